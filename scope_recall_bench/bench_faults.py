"""``scope-recall bench faults``: kills survived with nothing lost, concurrent writes/s, the decision race.

Every figure comes from the harnesses in ``faults`` run on a temporary store; the hostile-input count is the size
of the corpus the test suite feeds every surface (fixtures/hostile.json).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import click

HOSTILE_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "hostile.json"


def measure(kills: int, seconds: float, writers: int, seed: int) -> dict:
    from scope_recall_bench import faults

    directory = Path(tempfile.mkdtemp(prefix="scope-recall-bench-faults-"))
    try:
        share = {kind: max(1, kills * weight // 10) for kind, weight in (("transitions", 5), ("digest", 3),
                                                                          ("drain", 2))}
        crashes = {kind: faults.crash_run(directory / kind / "memory.sqlite3", n, seed, kind)
                   for kind, n in share.items()}
        cli = faults.store_kill_run(directory / "cli" / "memory.sqlite3", processes=max(10, kills // 5), seed=seed)
        concurrent = faults.concurrency_run(directory / "writers" / "memory.sqlite3", writers, seconds, seed)
        race = faults.decision_race(directory / "race" / "memory.sqlite3", rounds=10)
        return {
            "kills": {kind: _crash(report) for kind, report in {**crashes, "cli store": cli}.items()},
            "kills_total": sum(r.kills for r in (*crashes.values(), cli)),
            "kills_survived": all(r.ok for r in (*crashes.values(), cli)),
            "concurrent": {"writers": writers, "seconds": seconds, "acknowledged": concurrent.acknowledged,
                           "writes_per_second": concurrent.writes_per_second, "errors": len(concurrent.errors),
                           "lost": len(concurrent.lost), "ok": concurrent.ok},
            "decision_race": {"rounds": race["rounds"], "violations": len(race["violations"])},
            "hostile_inputs": hostile_count(),
        }
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _crash(report) -> dict:
    return {"kills": report.kills, "by_operation": report.kills_by_op, "acknowledged": report.acknowledged,
            "lost": len(report.lost), "unsearchable": len(report.unsearchable),
            "violations": len(report.invariant_violations) + len(report.doctor_problems), "ok": report.ok}


def hostile_count() -> int:
    """Inputs in the hostile corpus the test suite feeds every surface."""
    return len(json.loads(HOSTILE_FIXTURE.read_text(encoding="utf-8"))["inputs"])


@click.command(name="faults")
@click.option("--kills", default=200, show_default=True, type=click.IntRange(10),
              help="SIGKILLed workers in all (half transitions, then digest, then index drain; plus CLI stores).")
@click.option("--seconds", default=5.0, show_default=True, type=click.FloatRange(1), help="Concurrent run length.")
@click.option("--writers", default=3, show_default=True, type=click.IntRange(1), help="Concurrent writer processes.")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def faults_bench(kills, seconds, writers, seed, as_json):
    """Kills survived with nothing lost, writes/s of concurrent writers with zero errors, the decision race."""
    result = measure(kills, seconds, writers, seed)
    if as_json:
        click.echo(json.dumps(result))
    else:
        _print(result)
    if not (result["kills_survived"] and result["concurrent"]["ok"] and not result["decision_race"]["violations"]):
        raise SystemExit(1)


def _print(result: dict) -> None:
    verdict = "nothing lost" if result["kills_survived"] else "LOSSES OR VIOLATIONS (see --json)"
    click.echo(f"SIGKILL: {result['kills_total']} kills survived, {verdict}")
    for kind, crash in result["kills"].items():
        ops = ", ".join(f"{op} {n}" for op, n in sorted(crash["by_operation"].items(), key=lambda kv: -kv[1]))
        click.echo(f"  {kind}: {crash['kills']} kills ({ops}); {crash['acknowledged']} acknowledged writes, "
                   f"{crash['lost']} lost, {crash['unsearchable']} unsearchable, {crash['violations']} violations")
    c = result["concurrent"]
    click.echo(f"concurrency: {c['writes_per_second']} writes/s sustained by {c['writers']} writer processes over "
               f"{c['seconds']:g} s ({c['acknowledged']} acknowledged), {c['errors']} errors, {c['lost']} lost")
    race = result["decision_race"]
    click.echo(f"promote vs reject race: {race['rounds']} rounds, {race['violations']} with other than one decision")
    click.echo(f"hostile inputs in the corpus (fixtures/hostile.json, fed to every surface by the tests): "
               f"{result['hostile_inputs']}")
