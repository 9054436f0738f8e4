"""The operator's hygiene report on a store seeded with duplicates and noise, and dedupe, which archives only
exact duplicates an operator names (audited as that person, undone by restore)."""

import json

import pytest
from click.testing import CliRunner

from scope_recall_engine import agent_tools
from scope_recall_engine.cli.main import cli
from scope_recall_engine.companion import vectors
from scope_recall_engine.errors import InvalidInput, NotPermitted
from scope_recall_engine.truth.principals import agent, human, system
from scope_recall_engine.writing import hygiene, lifecycle

ME = human("carol")


@pytest.fixture
def seeded(db, alice, bob):
    store = lambda text, target="user", who=alice: lifecycle.store(db, who, target, text, ME).id
    ids = {
        "kept": store("Alice drinks oolong tea every morning"),
        "exact": store("alice drinks oolong tea every morning!", target="general"),  # same value, scratch copy
        "near": store("Alice drinks oolong tea every single morning"),
        "short": store("ok tea"),
        "long": store("Alice keeps notes " + "on every tea she tries " * 30),
        "tool": store('{"status": "ok", "rows": 3}'),
        "prose": store("I've saved that Alice likes green tea, let me know if anything changes"),
        "bobs": store("Alice drinks oolong tea every morning", who=bob),  # another person's: no duplicate of hers
    }
    ids["stale"] = lifecycle.extract(db, alice.shared_scope, "user", "Alice might visit Kyoto", system("digest"),
                                     origin="digest").id
    db.execute("update memories set created_at = '2020-01-01T00:00:00+00:00' where id = ?", [ids["stale"]])
    db.conn.commit()
    return ids


def test_report_finds_each_kind_of_problem_and_nothing_else(db, seeded):
    found = hygiene.report(db)
    assert found["exact_duplicates"] == [{
        "keep": seeded["kept"], "archive": [seeded["exact"]], "content": "Alice drinks oolong tea every morning",
        "scope_id": lifecycle.get_memory(db, seeded["kept"])["shared_scope_id"],
        "command": f"scope-recall dedupe --apply {seeded['exact']} --by NAME"}]
    near = {tuple(pair["ids"]) for pair in found["near_duplicates"]}
    assert near == {(seeded["kept"], seeded["near"]), (seeded["exact"], seeded["near"])}
    assert next(p for p in found["near_duplicates"] if p["ids"][0] == seeded["kept"])["proposed"] == {
        "keep": seeded["kept"], "content": "Alice drinks oolong tea every single morning"}
    assert [row["id"] for row in found["short"]] == [seeded["short"]]
    assert [row["id"] for row in found["long"]] == [seeded["long"]]
    assert {row["id"]: row["why"] for row in found["noise"]} == {seeded["tool"]: "tool output",
                                                                 seeded["prose"]: "assistant prose"}
    assert [row["id"] for row in found["stale_candidates"]] == [seeded["stale"]]
    assert found["decay"] == [] and found["general_in_companion"] == []


def test_report_names_scratch_rows_the_companion_holds(db, seeded):
    vectors.drain(db)
    assert hygiene.report(db)["general_in_companion"] == []  # control: scratch rows are never embedded
    db.execute("update memories set target = 'general' where id = ?", [seeded["near"]])  # held since it was durable
    db.conn.commit()
    assert hygiene.report(db)["general_in_companion"] == [seeded["near"]]


def test_dedupe_refuses_anything_but_named_exact_duplicates_and_writes_nothing(db, seeded):
    before = db["audit_events"].count
    for ids in ([seeded["near"]], [seeded["exact"], seeded["near"]], [seeded["kept"], seeded["exact"]],
                [seeded["bobs"]]):
        with pytest.raises(InvalidInput, match="not an exact duplicate"):
            hygiene.dedupe(db, ids, ME)
    with pytest.raises(NotPermitted):
        hygiene.dedupe(db, [seeded["exact"]], agent("default"))
    assert db["audit_events"].count == before and lifecycle.get_memory(db, seeded["exact"])["lifecycle"] == "active"
    archived = hygiene.dedupe(db, [seeded["exact"]], ME)  # positive control: the named exact duplicate goes
    assert [row["lifecycle"] for row in archived] == ["archived"]
    event = db.execute("select principal, action, reason from audit_events order by id desc limit 1").fetchone()
    assert event == ("human:carol", "archive", f"exact duplicate of memory {seeded['kept']}")
    assert lifecycle.restore(db, seeded["exact"], ME)["lifecycle"] == "active"  # reversible


def test_cli_hygiene_and_dedupe(db_path, seeded):
    runner = CliRunner()
    base = ["--db", str(db_path)]
    report = json.loads(runner.invoke(cli, [*base, "hygiene", "--json"]).output)
    assert report["exact_duplicates"][0]["archive"] == [seeded["exact"]]
    markdown = runner.invoke(cli, [*base, "hygiene", "--markdown"]).output
    assert markdown.startswith("# Hygiene report") and "## Exact duplicates (1)" in markdown
    assert "Runtime noise and assistant prose: 2" in runner.invoke(cli, [*base, "hygiene"]).output
    refused = runner.invoke(cli, [*base, "dedupe", "--apply", str(seeded["near"]), "--by", "carol"])
    assert refused.exit_code == 1 and refused.output.count("\n") == 1 and "not an exact duplicate" in refused.output
    done = runner.invoke(cli, [*base, "dedupe", "--apply", str(seeded["exact"]), "--by", "carol", "--json"])
    assert done.exit_code == 0 and json.loads(done.output) == [{"id": seeded["exact"], "lifecycle": "archived"}]


def test_hygiene_and_dedupe_are_never_offered_to_the_model():
    names = [schema["name"] for schema in agent_tools.SCHEMAS]
    assert not [name for name in names if any(word in name for word in ("hygiene", "dedupe", "purge", "promote"))]
    assert "scope_recall_probe" in names  # control: the list is the real one
