"""Crash consistency and concurrency: real processes, real SIGKILLs, seeded, every acknowledged write checked."""

import json

import pytest

from scope_recall_bench import faults
from scope_recall_engine import config
from scope_recall_engine.companion import embedders, vectors
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import digest, journal, lifecycle

KILLS = {"transitions": 150, "digest": 80, "drain": 60}  # 290 forked victims, plus the CLI ones below


@pytest.mark.parametrize("kind", faults.CRASH_KINDS)
def test_sigkilled_workers_lose_nothing_acknowledged(tmp_path, kind):
    report = faults.crash_run(tmp_path / "memory.sqlite3", kills=KILLS[kind], seed=7, kind=kind)
    assert report.ok, report.as_dict()
    assert report.kills == KILLS[kind]
    busy = {"transitions": ("store", "edit", "purge"), "digest": ("digest",), "drain": ("drain",)}[kind]
    for op in busy:  # the kills landed inside the operations, not only before or between them
        assert report.kills_by_op.get(op, 0) >= 3, report.kills_by_op
    assert report.acknowledged > 5 * KILLS[kind] // 3


def test_sigkilled_cli_store_processes_lose_nothing_acknowledged(tmp_path):
    report = faults.store_kill_run(tmp_path / "cli.sqlite3", processes=60, seed=3)
    assert report.kills > 10 and report.acknowledged > 10
    assert report.ok, report.as_dict()


def test_four_concurrent_writers_see_no_lock_errors_and_lose_nothing(tmp_path):
    report = faults.concurrency_run(tmp_path / "memory.sqlite3", writers=4, seconds=5)  # 3 s: 236 on a slow machine
    assert report.acknowledged > 300 and not report.errors
    assert report.ok, report.as_dict()


def test_console_hermes_digest_and_a_writer_write_one_store_at_once(tmp_path):
    # every role does real work while the others write (a digest run takes the lock several times: fewer of
    # them); the quotas, not the clock, decide how long, so a busy CI machine checks the same overlap
    quotas = {"console": {"console promote": 6}, "hermes": {"tool store": 6, "turn": 21}, "digest": {"digest": 2}}
    report = faults.concurrency_run(tmp_path / "memory.sqlite3", writers=1, seconds=4,
                                    roles=("console", "hermes", "digest"), quotas=quotas)
    by_role = report.acknowledged_by_op
    assert all(by_role[role][op] >= n for role, ops in quotas.items() for op, n in ops.items()), by_role
    assert not report.errors, report.errors  # no "database is locked" (or anything else) reached any role
    assert report.ok, report.as_dict()  # truth whole, and the companion too (companion writes are serialized)


def test_concurrent_promote_and_reject_end_in_exactly_one_decision(tmp_path):
    result = faults.decision_race(tmp_path / "race.sqlite3", rounds=8)
    assert result["violations"] == []
    db = connect(tmp_path / "race.sqlite3")
    decided = {row["lifecycle"] for row in db["memories"].rows}
    assert decided <= {"active", "rejected"} and len(decided) >= 1


def test_the_verifier_detects_a_lost_write(tmp_path):
    """Positive control for the harness itself: a write removed behind its back is reported as lost."""
    path = tmp_path / "control.sqlite3"
    db = connect(path)
    kept = lifecycle.store(db, faults.IDENTITY, "user", "control memory tokkept", human("t")).id
    gone = lifecycle.store(db, faults.IDENTITY, "user", "control memory tokgone", human("t")).id
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("delete from memories where id = ?", [gone])
    db.conn.commit()
    report = faults.Report()
    faults._verify(db, {kept: ("active", "control memory tokkept"), gone: ("active", "control memory tokgone")},
                   {}, report)
    assert report.lost == [gone] and not report.ok


def test_the_digest_check_detects_a_half_applied_batch(tmp_path):
    """Positive control: an entry marked processed whose candidate never got written is flagged; a whole
    batch is not."""
    db = connect(tmp_path / "half.sqlite3")
    whole = journal.append(db, faults.IDENTITY, "s", "user", "My name is Tokwhole.").id
    digest.run(db, digest.RulesExtractor())
    assert faults._linked_or_not(db) == []
    half = journal.append(db, faults.IDENTITY, "s", "user", "I live in Tokhalfway.").id
    journal.mark_processed(db, [half], None)
    db.conn.commit()
    assert faults._linked_or_not(db) == [f"processed journal entry {half} has facts but no candidate cites it"]
    assert whole != half


def test_the_drain_check_detects_a_companion_out_of_step(tmp_path):
    """Positive control: a row missing from the vector companion (and not queued) is reported after a drain."""
    path = tmp_path / "companion.sqlite3"
    config.save(path, config.Config(embedding_model=embedders.HASH_MODEL_ID))
    db = connect(path)
    a = lifecycle.store(db, faults.IDENTITY, "memory", "companion fact one", human("t")).id
    lifecycle.store(db, faults.IDENTITY, "memory", "companion fact two", human("t"))
    assert faults.drain_invariants(db) == []
    vectors._table(db).delete(f"id = {a}")
    assert faults.drain_invariants(db) and "missing" in faults.drain_invariants(db)[0]


@pytest.mark.slow
def test_bench_faults_prints_every_figure():
    from click.testing import CliRunner

    from scope_recall_engine.cli.main import cli

    result = CliRunner().invoke(cli, ["bench", "faults", "--kills", "20", "--seconds", "2", "--writers", "4", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["kills_survived"] and figures["kills_total"] >= 20
    assert set(figures["kills"]) == {"transitions", "digest", "drain", "cli store"}
    assert figures["concurrent"]["ok"] and figures["concurrent"]["writers"] == 4
    assert figures["decision_race"]["violations"] == 0
    assert figures["hostile_inputs"] >= 30
