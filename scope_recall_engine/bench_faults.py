"""``scope-recall bench faults``: kills survived with nothing lost, concurrent writes/s, the decision race.

Every figure comes from the harnesses in ``faults`` run on a temporary store; the hostile-input and
property-test counts are the sizes of what the test suite tries (the fixture file and hypothesis settings).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
HOSTILE_FIXTURE = ROOT / "tests" / "fixtures" / "hostile.json"
PROPERTY_TESTS = ROOT / "tests" / "test_properties.py"


def measure(kills: int, seconds: float, writers: int, seed: int) -> dict:
    from . import faults

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
            "hostile_inputs": hostile_count(), "property_examples": property_examples(),
        }
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _crash(report) -> dict:
    return {"kills": report.kills, "by_operation": report.kills_by_op, "acknowledged": report.acknowledged,
            "lost": len(report.lost), "unsearchable": len(report.unsearchable),
            "violations": len(report.invariant_violations) + len(report.doctor_problems), "ok": report.ok}


def hostile_count() -> int | None:
    """Inputs in the hostile corpus (None in an installed copy without the tests)."""
    if not HOSTILE_FIXTURE.exists():
        return None
    return len(json.loads(HOSTILE_FIXTURE.read_text(encoding="utf-8"))["inputs"])


def property_examples() -> dict | None:
    """Run the property tests and count the examples hypothesis actually passed (None in an installed copy
    without the tests)."""
    if not PROPERTY_TESTS.exists():
        return None
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(PROPERTY_TESTS),
                           "--hypothesis-show-statistics"], capture_output=True, text=True, cwd=ROOT)
    passing = [int(n) for n in re.findall(r"^\s*- (\d+) passing", done.stdout, re.MULTILINE)]
    return {"tests": len(passing), "examples_total": sum(passing), "ok": done.returncode == 0}


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
    if not (result["kills_survived"] and result["concurrent"]["ok"] and not result["decision_race"]["violations"]
            and (result["property_examples"] or {"ok": True})["ok"]):
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
    if result["hostile_inputs"] is not None:
        click.echo(f"hostile inputs in the corpus (tests/test_hostile.py): {result['hostile_inputs']}")
    if result["property_examples"]:
        p = result["property_examples"]
        click.echo(f"property tests (tests/test_properties.py): {p['examples_total']} passing examples over "
                   f"{p['tests']} tests{'' if p['ok'] else ', FAILED (run them with pytest)'}")
