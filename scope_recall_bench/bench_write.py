"""``scope-recall bench write``: journal append and rules-digest throughput on a temporary store."""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from pathlib import Path

import click

from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import digest, journal

CITIES = ("Lisbon", "Porto", "Oslo", "Lima", "Quito", "Kyoto", "Accra", "Perth")
THINGS = ("green tea", "jazz", "rust", "hiking", "chess", "sushi", "cold brew", "vinyl records")
PROSE = ("Can you help me refactor the parser in module {n}?", "What does error E{n} mean in this build log?",
         "Sure, here is a version that handles the edge case number {n}.", "Let's try again with batch size {n}.",
         "Summarize the meeting notes from call {n} please.", "The test suite fails on step {n} with a timeout.")


def turns(count: int, seed: int = 7) -> list[tuple[Identity, str, str, str]]:
    """Synthetic chat: mostly prose and noise, one turn in eight states a fact, now and then a secret."""
    rng = random.Random(seed)
    result = []
    for n in range(count):
        identity = Identity(user=f"user-{n % 20:02d}", chat=f"chat-{n % 7}")
        roll = rng.random()
        if roll < 0.125:
            text = rng.choice((f"My name is Person{n}.", f"I live in {rng.choice(CITIES)} since {n}.",
                               f"I really like {rng.choice(THINGS)} number {n}.", f"I work at Company{n}."))
        elif roll < 0.2:
            text = rng.choice(("ok", "thanks!", "[Image #1]"))
        elif roll < 0.22:
            text = f"my password is hunter{n} and the key is sk-proj-{n:08d}abcdefghijklmnopqrstuv"
        else:
            text = rng.choice(PROSE).format(n=n)
        result.append((identity, f"s{n % 50}", "user" if n % 2 == 0 or roll < 0.125 else "assistant", text))
    return result


def measure(count: int) -> dict:
    directory = Path(tempfile.mkdtemp(prefix="scope-recall-bench-write-"))
    try:
        db = connect(directory / "memory.sqlite3")
        sample = turns(count)
        started = time.perf_counter()
        kept = sum(journal.append(db, *turn).status == "journaled" for turn in sample)
        append_s = time.perf_counter() - started
        started = time.perf_counter()
        report = digest.run(db, digest.RulesExtractor())
        digest_s = time.perf_counter() - started
        return {"turns": count, "journaled": kept, "journal_append_per_s": round(count / append_s),
                "digested_entries": report.entries, "digest_rules_per_s": round(report.entries / digest_s),
                "facts": report.facts, "decisions": report.counts,
                "targets": {"journal_append_per_s": 2000, "digest_rules_per_s": 1000}}
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@click.command(name="write")
@click.option("--turns", "count", default=5000, show_default=True, type=click.IntRange(100))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def write_bench(count, as_json):
    """Journal append turns/s (target >= 2,000) and rules digest turns/s (target >= 1,000)."""
    result = measure(count)
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"journal append: {result['journal_append_per_s']} turns/s over {count} turns "
               f"({result['journaled']} kept; target >= 2000)")
    click.echo(f"rules digest: {result['digest_rules_per_s']} turns/s over {result['digested_entries']} entries "
               f"({result['facts']} facts: {result['decisions']}; target >= 1000)")
