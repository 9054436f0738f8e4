"""Merge: one new version that keeps every source's provenance, within one scope, past no tombstone, audited
with its principal and reversible by a person."""

import pytest
from click.testing import CliRunner

from scope_recall_engine.cli.main import cli
from scope_recall_engine.errors import IllegalTransition, InvalidInput, NotFound, NotPermitted, Tombstoned
from scope_recall_engine.inspection import inspect
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth.principals import agent, human, system
from scope_recall_engine.truth.store import connect, get_memory
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import journal, lifecycle

AGENT = agent("default")


def _store(db, identity, *texts, target="user"):
    return [lifecycle.store(db, identity, target, text, AGENT).id for text in texts]


def test_the_agent_merges_its_own_memories_into_one_version_that_names_them(db, alice):
    a, b = _store(db, alice, "Alice's cat is called Miso", "Alice has a cat named Miso")
    new = lifecycle.merge(db, [a, b], AGENT, "Alice has a cat called Miso", scopes=alice.accessible())
    assert (new["lifecycle"], new["origin"], new["scope_id"]) == ("active", "merge", alice.shared_scope)
    for source in (a, b):
        row = get_memory(db, source)
        assert (row["lifecycle"], row["superseded_by"]) == ("superseded", new["id"]) and row["valid_to"]
    assert lifecycle.merged_sources(db, new["id"]) == [get_memory(db, a), get_memory(db, b)]
    events = [(e["memory_id"], e["action"], e["principal"], e["to_state"]) for e in db["audit_events"].rows_where(
        "action = 'merge'", order_by="id")]
    assert events == [(new["id"], "merge", "agent:default", "active"), (a, "merge", "agent:default", "superseded"),
                      (b, "merge", "agent:default", "superseded")]
    assert [h.id for h in retrieval.search(db, View(alice.accessible()), "alice cat miso")] == [new["id"]]
    assert inspect(db, new["id"])["merged_from"] == [a, b]


def test_merge_keeps_every_sources_journal_provenance(db, alice):
    entries = [journal.append(db, alice, "s1", "user", text).id for text in ("I have a cat", "her name is Miso")]
    first = lifecycle.extract(db, alice.shared_scope, "user", "Alice has a cat", system("digest"), origin="digest").id
    second = lifecycle.extract(db, alice.shared_scope, "user", "Alice's cat is Miso", system("digest"),
                               origin="digest").id
    for memory_id, entry_id in ((first, entries[0]), (second, entries[1])):
        db["memory_sources"].insert({"memory_id": memory_id, "journal_entry_id": entry_id, "cited_sha256": "x",
                                     "linked_at": "2026-01-01"})
        lifecycle.promote(db, memory_id, human("op"))
    new = lifecycle.merge(db, [first, second], human("op"), "Alice has a cat called Miso")
    assert [s["journal_entry_id"] for s in journal.sources(db, new["id"])] == entries
    assert new["review_state"] == "human_reviewed"


def test_merge_never_mixes_scopes_and_never_reaches_another_users(db, alice, bob):
    durable, other = _store(db, alice, "Alice's cat is Miso", "Alice's cat likes tuna")
    [scratch] = _store(db, alice, "Scratch: the cat's vet is on Friday", target="general")
    [foreign] = _store(db, bob, "Bob's cat is Rex")
    with pytest.raises(InvalidInput, match="different scopes"):
        lifecycle.merge(db, [durable, scratch], AGENT, "Alice's cat Miso", scopes=alice.accessible())
    with pytest.raises(NotFound, match=f"^no memory with id {foreign}$"):  # to the agent it does not exist
        lifecycle.merge(db, [durable, foreign], AGENT, "Cats", scopes=alice.accessible())
    with pytest.raises(InvalidInput, match="different scopes"):  # a person may not pool two users either
        lifecycle.merge(db, [durable, foreign], human("op"), "Cats")
    with pytest.raises(InvalidInput, match="2 to"):
        lifecycle.merge(db, [durable, durable], AGENT, "Cats", scopes=alice.accessible())
    with pytest.raises(NotPermitted):
        lifecycle.merge(db, [durable, other], system("decay"), "Cats")
    assert {m["lifecycle"] for m in db["memories"].rows} == {"active"} and db["memories"].count == 4
    assert lifecycle.merge(db, [durable, other], AGENT, "Alice's cat Miso likes tuna",
                           scopes=alice.accessible())["lifecycle"] == "active"  # positive control


def test_a_tombstoned_value_cannot_come_back_through_a_merge(db, alice):
    a, b = _store(db, alice, "Alice's cat is Miso", "Alice's cat likes tuna")
    refused = lifecycle.extract(db, alice.shared_scope, "user", "Alice is allergic to cats", system("digest"),
                                origin="digest").id
    lifecycle.reject(db, refused, human("op"), reason="wrong")
    with pytest.raises(Tombstoned):
        lifecycle.merge(db, [a, b], AGENT, "alice is allergic to cats", scopes=alice.accessible())
    assert get_memory(db, a)["lifecycle"] == get_memory(db, b)["lifecycle"] == "active"


def test_a_person_undoes_a_merge_and_the_sources_come_back(db, alice):
    a, b, plain = _store(db, alice, "Alice's cat is Miso", "Alice's cat likes tuna", "Alice likes figs")
    new = lifecycle.merge(db, [a, b], AGENT, "Alice's cat Miso likes tuna", scopes=alice.accessible())
    with pytest.raises(NotPermitted):
        lifecycle.unmerge(db, new["id"], AGENT, scopes=alice.accessible())
    with pytest.raises(IllegalTransition, match="not a merge"):
        lifecycle.unmerge(db, plain, human("op"))
    undone = lifecycle.unmerge(db, new["id"], human("op"), reason="two facts")
    assert undone["lifecycle"] == "archived"
    for source in (a, b):
        row = get_memory(db, source)
        assert (row["lifecycle"], row["superseded_by"], row["valid_to"]) == ("active", None, None)
    found = [h.id for h in retrieval.search(db, View(alice.accessible()), "alice cat miso tuna")]
    assert {a, b} <= set(found) and new["id"] not in found
    restores = list(db["audit_events"].rows_where("action = 'restore'"))
    assert {e["memory_id"] for e in restores} == {a, b} and all(e["principal"] == "human:op" for e in restores)


def test_cli_merge_and_unmerge(db_path, alice):
    db = connect(db_path)
    a, b = _store(db, alice, "Alice's cat is Miso", "Alice's cat likes tuna")
    db.close()
    runner = CliRunner()
    base = ["--db", str(db_path)]
    merged = runner.invoke(cli, [*base, "merge", str(a), str(b), "--content", "Alice's cat Miso likes tuna",
                                 "--by", "ana", "--json"])
    assert merged.exit_code == 0, merged.output
    new_id = int(merged.output.split('"id": ')[1].split(",")[0])
    shown = runner.invoke(cli, [*base, "inspect", str(new_id)])
    assert f"merged from: #{a}, #{b}" in shown.output and "human:ana merge" in shown.output
    again = runner.invoke(cli, [*base, "merge", str(a), str(b), "--content", "x y z", "--by", "ana"])
    assert again.exit_code == 1 and again.output.startswith("Error: cannot merge memory") and "Traceback" not in \
        again.output
    undone = runner.invoke(cli, [*base, "unmerge", str(new_id), "--by", "ana"])
    assert undone.exit_code == 0 and f"memories {a}, {b} active again" in undone.output
