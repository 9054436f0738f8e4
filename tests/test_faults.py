"""Crash consistency and concurrency: real processes, real SIGKILLs, seeded and reproducible."""

from scope_recall_engine import faults, lifecycle
from scope_recall_engine.principals import human
from scope_recall_engine.store import connect


def test_sigkilled_writers_lose_nothing_acknowledged(tmp_path):
    report = faults.crash_run(tmp_path / "crash.sqlite3", kills=100, seed=7, max_delay=0.3)
    assert report.kills == 100
    assert report.acknowledged > 1000  # the kills landed among real writes, not before them
    assert report.ok, report.as_dict()


def test_sigkilled_cli_store_processes_lose_nothing_acknowledged(tmp_path):
    report = faults.store_kill_run(tmp_path / "cli.sqlite3", processes=60, seed=3)
    assert report.kills > 10 and report.acknowledged > 10
    assert report.ok, report.as_dict()


def test_three_concurrent_writers_see_no_lock_errors_and_lose_nothing(tmp_path):
    report = faults.concurrency_run(tmp_path / "concurrent.sqlite3", writers=3, seconds=3)
    assert report.acknowledged > 300 and not report.errors
    assert report.ok, report.as_dict()


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
