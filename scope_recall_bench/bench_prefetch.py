"""``scope-recall bench prefetch``: recall latency as Hermes sees it, through the installed provider plugin.

Fills a temporary $HERMES_HOME store with ``--rows`` memories over ``--scopes`` users (the same generated
texts in every user's scope, so the vector drain embeds each distinct text once and reuses it, which the output
says), loads the provider with ``plugins.memory.load_memory_provider`` and times ``prefetch`` per query once the
vector lane is loaded (warm). Cold: ``--cold-runs`` fresh Python processes each load the provider the same way,
``initialize`` it and time their very first ``prefetch`` (the vector lane is still loading in the background, so
it answers from the lexical lanes), then the first one after the load finished.
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

from hermes_plugin import PROVIDER_NAME, host, install, runtime
from scope_recall_bench.bench import percentiles, timed
from scope_recall_engine import config as settings
from scope_recall_engine.errors import ConfigError
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect, write
from scope_recall_engine.writing import lifecycle

PEOPLE = ["my sister", "my brother", "my manager", "our landlord", "my daughter", "my son", "my dentist",
          "my neighbour", "my partner", "my mother", "my father", "my best friend", "the team lead", "my coach"]
FACTS = ["prefers {x} in the morning", "is allergic to {x}", "keeps the spare key for the {x}",
         "wants a reminder about the {x} on Fridays", "collects vintage {x}", "recommended the {x} near the station",
         "asked me to stop mentioning the {x}", "lent me the {x} last spring", "is learning about {x}",
         "booked the {x} for next month", "hates the {x} at the office", "gave me a {x} for my birthday"]
THINGS = ["green tea", "peanuts", "garage", "dentist visit", "cameras", "bakery", "budget review", "bicycle",
          "Portuguese grammar", "cabin", "coffee machine", "fountain pen", "sourdough starter", "jazz records",
          "climbing gym", "tax return", "electric scooter", "orchids"]
NONSENSE = ["zxqv wubble frobnicate", "qqq-4471-zz", "blorp snark vintage?", "xylophone quasar muffin",
            "what is the airspeed of a lamp", "ok", "thanks!", "🙂"]


def corpus(count: int, seed: int = 7) -> list[str]:
    """``count`` distinct, varied one-sentence facts."""
    combos = [f"{person.capitalize()} {fact.format(x=thing)}" for person in PEOPLE for fact in FACTS
              for thing in THINGS]
    random.Random(seed).shuffle(combos)
    if count > len(combos):
        raise ConfigError(f"at most {len(combos)} distinct memories per scope; use more --scopes")
    return combos[:count]


def queries(texts: list[str], count: int, seed: int = 11) -> list[str]:
    """Mostly questions about stored facts (a person and a thing), one in five unrelated or trivial."""
    rng = random.Random(seed)
    picked = []
    for index in range(count):
        if index % 5 == 4:
            picked.append(rng.choice(NONSENSE))
            continue
        text = rng.choice(texts).lower()
        person = next(p for p in PEOPLE if text.startswith(p))
        thing = next(t for t in THINGS if t.lower() in text)
        picked.append(f"what did I tell you about {person} and the {thing}?")
    return picked


def fill(db_path: Path, rows: int, scopes: int) -> tuple[list[str], float]:
    """Store ``rows`` memories through the engine's write path; returns (the distinct texts, seconds)."""
    texts = corpus(rows // scopes)
    started = time.perf_counter()
    db = connect(db_path)
    with write(db):
        for user in range(scopes):
            identity = Identity(user=f"user-{user:03d}")
            for text in texts:
                lifecycle.store(db, identity, "user", text, human("bench"))
    db.close()
    return texts, time.perf_counter() - started


def drain(db_path: Path) -> float | None:
    from scope_recall_engine.companion import vectors

    started = time.perf_counter()
    db = connect(db_path)
    vectors.drain(db)
    db.close()
    return time.perf_counter() - started


def run(rows: int, scopes: int, count: int, model: str, cold_runs: int = 5) -> dict:
    try:
        from plugins.memory import load_memory_provider
    except ImportError:
        raise ConfigError("hermes-agent is not importable: run the bench in the Hermes environment") from None
    home = Path(tempfile.mkdtemp(prefix="scope-recall-bench-"))
    try:
        db_path = runtime.hermes_store(home)
        settings.save(db_path, settings.Config(embedding_model=model))
        texts, fill_seconds = fill(db_path, rows, scopes)
        drain_seconds = drain(db_path)
        install.install(home)
        asked = queries(texts, count)
        cold = [cold_start(home, asked[0]) for _ in range(cold_runs)]
        with host.hermes_home_env(home):
            provider = load_memory_provider(PROVIDER_NAME)
        provider.initialize("bench", hermes_home=str(home), platform="cli", user_id="user-000",
                            agent_context="primary")
        provider._runtime.ready.wait(300)  # warm: the background load of the embedder and vectors is done
        provider.prefetch("warm up: my sister and the green tea")
        packets = []
        timings = timed(lambda query: packets.append(provider.prefetch(query)), asked)
        recalled = sum(bool(packet) for packet in packets)
        degraded = _degraded(db_path)
        provider.shutdown()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return {**_report(rows, scopes, len(texts), model, fill_seconds, drain_seconds, timings, recalled, degraded),
            "cold": _cold_summary(cold)}


COLD_CHILD = """
import json, sys, time
started = time.perf_counter()
from hermes_plugin import host
from plugins.memory import load_memory_provider
with host.hermes_home_env(sys.argv[1]):
    provider = load_memory_provider("scope-recall")
loaded = time.perf_counter()
provider.initialize("cold", hermes_home=sys.argv[1], platform="cli", user_id="user-000", agent_context="primary")
initialized = time.perf_counter()
first = provider.prefetch(sys.argv[2])
prefetched = time.perf_counter()
provider._runtime.ready.wait(300)
ready = time.perf_counter()
warm = provider.prefetch(sys.argv[2] + " ")
warmed = time.perf_counter()
provider.shutdown()
ms = lambda a, b: round((b - a) * 1000, 2)
print(json.dumps({"load_ms": ms(started, loaded), "initialize_ms": ms(loaded, initialized),
                  "first_prefetch_ms": ms(initialized, prefetched), "first_recalled": bool(first),
                  "background_load_ms": ms(initialized, ready), "first_warm_prefetch_ms": ms(ready, warmed),
                  "warm_recalled": bool(warm)}))
"""


def cold_start(home: Path, query: str) -> dict:
    """One fresh Python process: load the provider as Hermes does, initialize, and time the first prefetch."""
    done = subprocess.run([sys.executable, "-c", COLD_CHILD, str(home), query], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cold_summary(runs: list[dict]) -> dict:
    if not runs:
        return {}
    summary = {key: {"median": round(statistics.median(run[key] for run in runs), 2),
                     "max": round(max(run[key] for run in runs), 2)}
               for key in runs[0] if key.endswith("_ms")}
    return {"runs": len(runs), **summary, "first_recalled": sum(run["first_recalled"] for run in runs)}


def _degraded(db_path: Path) -> int:
    db = connect(db_path)
    count = db.execute("select count(*) from recall_events where surface = ? and session_key = 'bench' "
                       "and degraded = 1 and query not like 'warm up%'", [runtime.SURFACE]).fetchone()[0]
    db.close()
    return count


def _report(rows, scopes, distinct, model, fill_seconds, drain_seconds, timings, recalled, degraded) -> dict:
    spread = percentiles(timings)
    return {
        "rows": rows, "scopes": scopes, "distinct_texts": distinct, "embedding_model": model,
        "vectors_reused_across_scopes": scopes > 1,
        "store_per_s": round(rows / fill_seconds), "drain_s": round(drain_seconds, 1),
        "queries": len(timings), "recalled": recalled, "degraded": degraded,
        "prefetch_ms": {key: spread[f"{key}_ms"] for key in ("p50", "p95", "p99", "mean")},
    }


@click.command(name="prefetch")
@click.option("--rows", default=10_000, show_default=True, type=click.IntRange(10))
@click.option("--scopes", default=10, show_default=True, type=click.IntRange(1),
              help="Users the rows are spread over; the provider reads as the first one.")
@click.option("--queries", "count", default=200, show_default=True, type=click.IntRange(1))
@click.option("--cold-runs", default=5, show_default=True, type=click.IntRange(0),
              help="Fresh processes that time their first prefetch (cold start).")
@click.option("--model", default=settings.DEFAULT_EMBEDDING_MODEL, show_default=True,
              help="Embedding model id for the vector lane.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def prefetch_command(rows, scopes, count, cold_runs, model, as_json):
    """Prefetch latency through the Hermes provider (p50/p95/p99) on a temporary store of ROWS memories, warm and
    in fresh processes (cold)."""
    report = run(rows, scopes, count, model, cold_runs)
    if as_json:
        click.echo(json.dumps(report))
        return
    latency, cold = report["prefetch_ms"], report["cold"]
    click.echo(f"{report['rows']} memories over {report['scopes']} users ({report['distinct_texts']} distinct texts,"
               f" vectors reused across users), model {report['embedding_model']}")
    click.echo(f"fill {report['store_per_s']}/s, drain {report['drain_s']} s")
    click.echo(f"warm prefetch over {report['queries']} queries: p50 {latency['p50']} ms, p95 {latency['p95']} ms, "
               f"p99 {latency['p99']} ms (recalled {report['recalled']}, degraded {report['degraded']})")
    if cold:
        click.echo(f"cold, {cold['runs']} fresh processes (median / max): first prefetch "
                   f"{cold['first_prefetch_ms']['median']} / {cold['first_prefetch_ms']['max']} ms (recalled in "
                   f"{cold['first_recalled']}), initialize {cold['initialize_ms']['median']} ms, provider load "
                   f"{cold['load_ms']['median']} ms; vector lane loaded in the background after "
                   f"{cold['background_load_ms']['median']} ms, then prefetch "
                   f"{cold['first_warm_prefetch_ms']['median']} ms")
