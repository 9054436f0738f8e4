"""``bench recall``: recall latency (lexical-only and hybrid) over a filled store, plus store and drain throughput.

The fill is bulk (truth rows inserted in one transaction, the vector table written once) and reuses the vector
of each distinct text: N rows are drawn from a pool of generated sentences, so only the pool is embedded.
Latency and throughput are measured through the engine's public functions.
"""

from __future__ import annotations

import itertools
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Iterator

import click

from scope_recall_engine.companion import vectors
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth import content as text
from scope_recall_engine.truth.migrations import scope_key
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect, now, optimize_text_indexes, write
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle

PEOPLE = ["Alice", "Bob", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Jun", "Keiko", "Luis"]
THINGS = ["green tea", "sushi", "a blue Volvo", "PostgreSQL 16", "the staging cluster", "dark mode", "vim",
          "the Lisbon offsite", "peanut allergy", "the quarterly report", "a sourdough starter", "the VPN",
          "Kubernetes upgrades", "the dentist", "marathon training", "the espresso machine", "Rust", "piano lessons",
          "the billing service", "a rescue dog", "the garden", "jazz records", "the backup bucket", "French classes"]
VERBS = ["prefers", "is responsible for", "asked about", "worries about", "recommended", "is learning",
         "booked", "fixed", "cancelled", "loves", "migrated", "reviewed"]
WHEN = ["on Mondays", "every morning", "since 2021", "before the release", "in September", "after lunch",
        "last weekend", "during the offsite", "twice a month", "at 02:00 UTC"]
FILL_TRANSACTION = 100_000  # truth rows per transaction while filling
COLD_SCOPES = 200  # scopes whose first query is timed (each loads its vectors from the companion)
LOAD_WAIT_S = 300  # a scope whose first query ran out of budget: seconds to let its load finish untimed
WHY = ["because the old one kept failing", "for the team", "to save money", "after the incident",
       "as a birthday present", "to help the new hire", "", "", ""]


def sentence(rng: random.Random) -> str:
    return " ".join(filter(None, [rng.choice(PEOPLE), rng.choice(VERBS), rng.choice(THINGS), rng.choice(WHEN),
                                  rng.choice(WHY)])) + "."


def pool(size: int, rng: random.Random) -> list[str]:
    texts: dict[str, None] = {}
    while len(texts) < size:
        texts[sentence(rng)] = None
    return list(texts)


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"p50_ms": round(pick(0.50), 2), "p95_ms": round(pick(0.95), 2), "p99_ms": round(pick(0.99), 2),
            "mean_ms": round(statistics.fmean(ordered), 2), "n": len(ordered)}


def scope_texts(texts: list[str], count: int, rng: random.Random) -> Iterator[tuple[int, str]]:
    """``count`` texts, distinct within one scope, with the index of the pool sentence whose vector each shares:
    the pool in a random order, then again, each round's copies marked as a later take."""
    order = rng.sample(range(len(texts)), len(texts))
    for n in range(count):
        base, take = order[n % len(texts)], n // len(texts)
        yield base, texts[base] if take == 0 else f"{texts[base][:-1]}, take {take + 1}."


def fill(db, rows: int, scopes: int, texts: list[str], rng: random.Random) -> tuple[list[Identity], dict]:
    """Exactly ``rows`` truth rows over ``scopes`` scopes, inserted in big transactions, then one companion
    write in which rows share the vector of their pool sentence. Returns the identities and the fill timings."""
    identities = [Identity(user=f"user-{i:05d}") for i in range(scopes)]
    principal, at, variants = str(human("bench")), now(), {}

    def records():
        for i, identity in enumerate(identities):
            scope = identity.shared_scope
            for base, content in scope_texts(texts, rows // scopes + (i < rows % scopes), rng):
                digest = text.content_hash(content)
                variants[digest] = base
                yield {"scope_id": scope, "shared_scope_id": scope, "scope_key": scope_key(scope),
                       "target": "memory", "content": content, "content_hash": digest,
                       "lifecycle": "active", "review_state": "human_reviewed", "origin": "bench",
                       "created_by": principal, "created_at": at, "updated_at": at, "version": 1,
                       "generation": 1, "corroborations": 0}

    started = time.perf_counter()
    batch = iter(records())
    while chunk := list(itertools.islice(batch, FILL_TRANSACTION)):
        with write(db):
            db["memories"].insert_all(chunk, batch_size=5000)
            db.execute("delete from vector_outbox")
    optimize_text_indexes(db)  # what `scope-recall index optimize` does after a bulk import
    truth_seconds = time.perf_counter() - started
    started = time.perf_counter()
    written = vectors.bulk_load(db, texts, variants)
    assert written == rows == db["memories"].count, (written, rows)  # a benchmark fills what it reports
    return identities, {"truth_seconds": truth_seconds, "companion_seconds": time.perf_counter() - started}


def disk_bytes(path: Path) -> int:
    """Bytes on disk of a file and its SQLite sidecars, or of every file under a directory."""
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def queries(texts: list[str], rng: random.Random, count: int) -> list[str]:
    """Half partial restatements of stored facts, half questions about things nobody stored."""
    asked = []
    for i in range(count):
        if i % 2:
            words = rng.choice(texts).rstrip(".").split()
            asked.append("what about " + " ".join(words[1:4]))
        else:
            asked.append(f"does {rng.choice(PEOPLE)} know anything about {rng.choice(['golf', 'tax law', 'opera'])}")
    return asked


def timed(fn, items) -> list[float]:
    samples = []
    for item in items:
        started = time.perf_counter()
        fn(item)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def run(rows: int, scopes: int, *, pool_size: int = 3000, query_count: int = 300, store_count: int = 1000,
        drain_count: int = 300, seed: int = 7, progress=print) -> dict:
    rng = random.Random(seed)
    texts = pool(min(pool_size, max(rows // max(scopes, 1), 1) * 3), rng)
    with tempfile.TemporaryDirectory(prefix="scope-recall-bench-") as tmp:
        db = connect(Path(tmp) / "bench.sqlite3")
        progress(f"filling {rows} rows over {scopes} scopes ({len(texts)} pool sentences embedded once)")
        identities, timings = fill(db, rows, scopes, texts, rng)
        db.execute("pragma wal_checkpoint(truncate)")
        sizes = {"store_bytes_per_memory": round(disk_bytes(vectors.database_file(db)) / rows),
                 "companion_bytes_per_memory": round(disk_bytes(Path(vectors.index_dir(db))) / rows)}
        progress("measuring lexical-only and hybrid recall")
        report = latencies(db, identities, texts, rng, query_count)
        progress(f"storing {store_count} memories through lifecycle.store, then draining {drain_count}")
        report |= throughput(db, identities, store_count, drain_count, seed)
        db.close()
    return {"rows": rows, "scopes": scopes, "distinct_texts": len(texts),
            "fill_seconds": round(timings["truth_seconds"] + timings["companion_seconds"], 1),
            "fill_truth_per_s": round(rows / timings["truth_seconds"]),
            "fill_companion_per_s": round(rows / timings["companion_seconds"]), **sizes, **report}


def latencies(db, identities: list[Identity], texts: list[str], rng: random.Random, query_count: int) -> dict:
    """First query of up to COLD_SCOPES scopes (each loads its vectors), then warm queries over those scopes."""
    search = lambda use: lambda pair: retrieval.search(db, View(pair[0].accessible()), pair[1], 10,  # noqa: E731
                                                       use_vectors=use)
    sampled = rng.sample(identities, min(COLD_SCOPES, len(identities)))
    asked = [(rng.choice(sampled), q) for q in queries(texts, rng, query_count)]
    search(True)((identities[-1], "load the model"))  # the model and LanceDB, as a long-lived process has them
    answers = []
    cold = timed(lambda pair: answers.append(search(True)(pair)), [(identity, "warm up") for identity in sampled])
    for identity, answer in zip(sampled, answers):  # a load past the budget goes on in the background: let it end
        if answer.degraded:                          # before timing, or it would compete with the timed queries
            retrieval.search(db, View(identity.accessible()), "warm up", 10, budget=LOAD_WAIT_S)
    answers = []
    lexical = timed(search(False), asked)
    hybrid = timed(lambda pair: answers.append(search(True)(pair)), asked)
    return {"lexical": percentiles(lexical), "hybrid": percentiles(hybrid),
            "hybrid_first_query_per_scope": percentiles(cold),
            "degraded_queries": sum(answer.degraded for answer in answers)}


def throughput(db, identities: list[Identity], store_count: int, drain_count: int, seed: int) -> dict:
    fresh = [f"{s} (note {n})" for n, s in enumerate(pool(store_count, random.Random(seed + 1)))]
    started = time.perf_counter()
    for n, content in enumerate(fresh):
        lifecycle.store(db, identities[n % len(identities)], "memory", content, human("bench"))
    store_rate = store_count / (time.perf_counter() - started)
    started = time.perf_counter()
    drained = vectors.drain(db, limit=drain_count)
    return {"store_per_s": round(store_rate, 1),
            "drain_per_s": round(drained.upserted / (time.perf_counter() - started), 1),
            "model": vectors.model_id(db)}


@click.command(name="recall")
@click.option("--rows", type=click.IntRange(1), required=True, help="Memories to fill.")
@click.option("--scopes", type=click.IntRange(1), default=100, show_default=True)
@click.option("--queries", "query_count", type=click.IntRange(10), default=300, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def recall_command(rows, scopes, query_count, as_json):
    """Recall latency p50/p95/p99 (lexical-only, hybrid, a scope's first query), fill and drain rates, bytes on
    disk per memory."""
    from scope_recall_engine.cli.options import emit

    say = (lambda message: click.echo(message, err=True))
    r = run(rows, scopes, query_count=query_count, progress=say)
    lines = [f"{rows} rows over {scopes} scopes, {r['distinct_texts']} pool sentences embedded (a row shares the "
             "vector of its pool sentence)"]
    lines += [f"{name:<8} p50 {q['p50_ms']:>7.2f} ms  p95 {q['p95_ms']:>7.2f} ms  p99 {q['p99_ms']:>7.2f} ms"
              for name, q in (("lexical", r["lexical"]), ("hybrid", r["hybrid"]),
                              (f"hybrid, first query of a scope ({r['hybrid_first_query_per_scope']['n']} scopes)",
                               r["hybrid_first_query_per_scope"]))]
    lines += [f"fill     {r['fill_truth_per_s']}/s truth rows, {r['fill_companion_per_s']}/s companion rows "
              f"(embedding the pool included; {r['fill_seconds']} s in all)",
              f"disk     {r['store_bytes_per_memory']} B/memory in the store, {r['companion_bytes_per_memory']} "
              "B/memory in the companion",
              f"store    {r['store_per_s']:.0f}/s (lifecycle.store, no embedding)",
              f"drain    {r['drain_per_s']:.1f}/s (embedding with {r['model']})",
              f"degraded {r['degraded_queries']} of {query_count} hybrid queries"]
    emit(r, as_json, "\n".join(lines))
