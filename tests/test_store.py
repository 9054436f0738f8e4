"""Storage guarantees: migrations, one transaction per mutation, versions and a complete audit trail."""

import sqlite3

import pytest

from scope_recall_engine.truth import store
from scope_recall_engine.truth.migrations import MIGRATIONS, MIGRATIONS_TABLE, schema_version
from scope_recall_engine.truth.principals import agent, human, system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect, get_memory, history
from scope_recall_engine.writing import lifecycle


def test_migrations_apply_once_and_are_idempotent_on_an_existing_file(db_path, alice):
    first = connect(db_path)
    lifecycle.store(first, alice, "user", "kept row", agent("a"))
    first.close()
    again = connect(db_path)
    assert schema_version(again) == [fn.__name__ for fn in MIGRATIONS]
    assert again[MIGRATIONS_TABLE].count == len(MIGRATIONS)
    assert again["memories"].count == 1


def test_processes_creating_the_same_store_at_once_all_succeed(tmp_path):
    """The first open of a new file switches it to WAL and migrates it: racing processes wait, none fails."""
    import os

    for round_ in range(4):
        path = tmp_path / f"new-{round_}.sqlite3"
        children = []
        for n in range(6):
            pid = os.fork()
            if pid == 0:  # the child must never return into pytest
                code = 1
                try:
                    lifecycle.store(connect(path), Identity(user="u"), "user", f"fact {n}", human("racer"))
                    code = 0
                finally:
                    os._exit(code)
            children.append(pid)
        codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
        assert codes == [0] * 6
        assert connect(path)["memories"].count == 6


def test_store_uses_wal_and_real_indexed_columns(db):
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    indexed = {tuple(index.columns) for index in db["memories"].indexes}
    for column in ("lifecycle", "scope_id", "target", "review_state", "origin", "content_hash", "valid_from",
                   "valid_to", "created_at", "updated_at"):
        assert (column,) in indexed
    assert ("shared_scope_id", "content_hash") in indexed


def test_a_failure_mid_mutation_leaves_nothing_behind(db, alice, monkeypatch):
    def broken_audit(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error (simulated)")

    monkeypatch.setattr(lifecycle, "audit", broken_audit)
    with pytest.raises(sqlite3.OperationalError):
        lifecycle.store(db, alice, "user", "Alice collects stamps", agent("default"))
    for table in ("memories", "memory_versions", "audit_events", "vector_outbox"):
        assert db[table].count == 0, table
    assert db.execute("select count(*) from memories_fts where memories_fts match 'stamps'").fetchone()[0] == 0
    monkeypatch.undo()
    assert lifecycle.store(db, alice, "user", "Alice collects stamps", agent("default")).status == "created"
    assert db.execute("select count(*) from memories_fts where memories_fts match 'stamps'").fetchone()[0] == 1


def test_edits_keep_every_prior_version(db, alice):
    memory_id = lifecycle.store(db, alice, "user", "Alice runs 5k", agent("default")).id
    lifecycle.edit(db, memory_id, human("ops"), "Alice runs 10k", reason="she trained")
    lifecycle.edit(db, memory_id, agent("default"), "Alice runs half marathons", scopes=alice.accessible())
    versions = history(db, memory_id)["versions"]
    assert [(v["version"], v["content"], v["principal"]) for v in versions] == [
        (1, "Alice runs 5k", "agent:default"),
        (2, "Alice runs 10k", "human:ops"),
        (3, "Alice runs half marathons", "agent:default"),
    ]
    assert get_memory(db, memory_id)["content"] == "Alice runs half marathons"


def test_every_mutation_is_audited_with_a_principal(db, alice, bob):
    ops = human("ops")
    a = lifecycle.store(db, alice, "user", "Alice paints", agent("default")).id
    lifecycle.store(db, alice, "user", "Alice paints", agent("default"))  # duplicate: no mutation
    c = lifecycle.extract(db, alice.shared_scope, "user", "Alice sculpts", system("digest"), origin="digest").id
    lifecycle.store(db, alice, "user", "alice sculpts", agent("default"))  # corroboration
    lifecycle.promote(db, c, ops)
    lifecycle.edit(db, a, ops, "Alice paints in oil")
    lifecycle.archive(db, a, agent("default"), scopes=alice.accessible())
    lifecycle.restore(db, a, ops)
    lifecycle.supersede(db, c, ops, "Alice sculpts in marble")
    r = lifecycle.extract(db, bob.shared_scope, "user", "Bob juggles", system("digest"), origin="digest").id
    lifecycle.reject(db, r, ops, reason="not wanted")
    lifecycle.purge(db, a, ops)
    for memory in db["memories"].rows:
        events = list(db["audit_events"].rows_where("memory_id = ?", [memory["id"]]))
        # each change bumps the generation once and writes exactly one audit event
        assert len(events) == memory["generation"], memory
        assert all(e["principal"] and e["principal_kind"] in ("human", "agent", "system") for e in events)
    assert db.execute("select count(*) from audit_events where principal is null or principal = ''").fetchone()[0] == 0


def test_purge_erases_content_and_versions_but_keeps_a_contentless_audit(db, alice):
    memory_id = lifecycle.store(db, alice, "user", "Alice's diary code is heliotrope", agent("default")).id
    lifecycle.edit(db, memory_id, human("ops"), "Alice's diary code is marigold")
    lifecycle.purge(db, memory_id, human("ops"), reason="erasure request")
    row = get_memory(db, memory_id)
    assert row["lifecycle"] == "purged" and row["content"] == ""
    assert db["memory_versions"].count_where("memory_id = ?", [memory_id]) == 0
    assert not any("heliotrope" in str(event) or "marigold" in str(event) for event in db["audit_events"].rows)
    assert db.execute("select count(*) from memories_fts where memories_fts match 'marigold'").fetchone()[0] == 0


def test_parse_time_normalizes_to_utc():
    assert store.parse_time("2026-01-02") == "2026-01-02T00:00:00.000000+00:00"
    assert store.parse_time("2026-01-02T03:00:00+02:00") == "2026-01-02T01:00:00.000000+00:00"
