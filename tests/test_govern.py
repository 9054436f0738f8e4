import json

from click.testing import CliRunner

from scope_recall_engine.cli.main import cli
from scope_recall_engine.reading import ledger
from scope_recall_engine.truth.principals import agent, human
from scope_recall_engine.truth.store import history
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import govern, lifecycle

LONG_AGO = "2000-01-01T00:00:00.000000+00:00"


def seed(db, alice):
    ids = {name: lifecycle.store(db, alice, "user", f"fact about {name}", agent("default")).id
           for name in ("busy", "faded", "never", "fresh")}
    ids["vouched"] = lifecycle.store(db, alice, "user", "fact about vouched", human("op")).id
    db.execute("update memories set created_at = ? where id != ?", [LONG_AGO, ids["fresh"]])
    view = View(alice.accessible())
    for _ in range(5):
        ledger.record(db, view, "q", surface="test", session_key=None, ranked_ids=[ids["busy"]],
                      packed_ids=[ids["busy"]], miss_reason=None)
    ledger.record(db, view, "q", surface="test", session_key=None, ranked_ids=[ids["faded"]],
                  packed_ids=[ids["faded"]], miss_reason=None)
    db.execute("update recall_events set at = ? where packed_ids = ?", [LONG_AGO, json.dumps([ids["faded"]])])
    return ids


def test_report_counts_recalls_and_proposes_only_stale_unvouched_rows(db, alice):
    ids = seed(db, alice)
    usage = {u.id: u for u in govern.report(db)}
    assert (usage[ids["busy"]].recalls, usage[ids["faded"]].recalls, usage[ids["never"]].recalls) == (5, 1, 0)
    assert usage[ids["busy"]].score > 4.9 and usage[ids["busy"]].last_recalled_at > LONG_AGO
    assert usage[ids["faded"]].last_recalled_at == LONG_AGO and usage[ids["faded"]].score < 0.01
    proposed = {memory_id for memory_id, u in usage.items() if u.proposal == "archive"}
    assert proposed == {ids["faded"], ids["never"]}
    assert usage[ids["vouched"]].protected and usage[ids["vouched"]].idle_days > 30  # stale, but a person vouched
    assert usage[ids["fresh"]].proposal is None  # never recalled, but new


def test_govern_cli_proposes_then_applies_as_system_decay(db, db_path, alice):
    ids = seed(db, alice)
    runner = CliRunner()
    dry = json.loads(runner.invoke(cli, ["--db", str(db_path), "govern", "--json"]).output)
    assert sorted(dry["proposed"]) == sorted([ids["faded"], ids["never"]]) and dry["archived"] == []
    assert db["memories"].count_where("lifecycle = 'archived'") == 0
    applied = json.loads(runner.invoke(cli, ["--db", str(db_path), "govern", "--apply", "--json"]).output)
    assert sorted(applied["archived"]) == sorted([ids["faded"], ids["never"]])
    states = {r["id"]: r["lifecycle"] for r in db["memories"].rows}
    assert states[ids["vouched"]] == states[ids["busy"]] == states[ids["fresh"]] == "active"
    event = history(db, ids["never"])["audit"][-1]
    assert (event["action"], event["principal"]) == ("archive", "system:decay") and "decay score" in event["reason"]
    lifecycle.restore(db, ids["never"], human("op"))
    assert db["memories"].get(ids["never"])["lifecycle"] == "active"
