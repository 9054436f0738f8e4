"""``bench recall``: recall latency (lexical-only and hybrid) over a filled store, plus store and drain throughput.

The fill is bulk (truth rows inserted in one transaction, the vector table written once) and reuses the vector
of each distinct text: N rows are drawn from a pool of generated sentences, so only the pool is embedded.
Latency and throughput are measured through the engine's public functions.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path

import click

from scope_recall_engine.companion import vectors
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth import content as text
from scope_recall_engine.truth.migrations import scope_key
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect, now, write
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


def fill(db, rows: int, scopes: int, texts: list[str], rng: random.Random) -> list[Identity]:
    """Bulk truth rows (each scope a sample of the pool) and one vector write reusing each text's vector."""
    identities = [Identity(user=f"user-{i:04d}") for i in range(scopes)]
    principal, at, records = human("bench"), now(), []
    for i, identity in enumerate(identities):
        count = rows // scopes + (i < rows % scopes)
        for content in rng.sample(texts, min(count, len(texts))):
            records.append({"scope_id": identity.shared_scope, "shared_scope_id": identity.shared_scope,
                            "scope_key": scope_key(identity.shared_scope),
                            "target": "memory", "content": content, "content_hash": text.content_hash(content),
                            "lifecycle": "active", "review_state": "human_reviewed", "origin": "bench",
                            "created_by": str(principal), "created_at": at, "updated_at": at, "version": 1,
                            "generation": 1, "corroborations": 0})
    with write(db):
        db["memories"].insert_all(records, batch_size=5000)
        db.execute("delete from vector_outbox")
    vectors.bulk_load(db, texts)
    return identities


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
        started = time.perf_counter()
        progress(f"filling {rows} rows over {scopes} scopes ({len(texts)} distinct texts embedded once)")
        identities = fill(db, rows, scopes, texts, rng)
        fill_seconds = time.perf_counter() - started
        asked = [(rng.choice(identities), q) for q in queries(texts, rng, query_count)]
        search = lambda use: lambda pair: retrieval.search(db, View(pair[0].accessible()), pair[1], 10,  # noqa: E731
                                                           use_vectors=use)
        progress("measuring lexical-only and hybrid recall")
        search(True)(asked[0])  # load the model and LanceDB once, as a long-lived process would have
        # first query per scope loads its vectors from the companion; measured apart, then every query warm
        cold = timed(search(True), [(identity, "warm up this scope") for identity in identities])
        answers = []
        lexical = timed(search(False), asked)
        hybrid = timed(lambda pair: answers.append(search(True)(pair)), asked)
        degraded = sum(answer.degraded for answer in answers)
        progress(f"storing {store_count} memories through lifecycle.store, then draining {drain_count}")
        fresh = [f"{s} (note {n})" for n, s in enumerate(pool(store_count, random.Random(seed + 1)))]
        started = time.perf_counter()
        for n, content in enumerate(fresh):
            lifecycle.store(db, identities[n % len(identities)], "memory", content, human("bench"))
        store_rate = store_count / (time.perf_counter() - started)
        started = time.perf_counter()
        drained = vectors.drain(db, limit=drain_count)
        drain_rate = drained.upserted / (time.perf_counter() - started)
        model = vectors.model_id(db)
        db.close()
    return {"rows": rows, "scopes": scopes, "distinct_texts": len(texts), "vectors_reused_for_repeated_texts": True,
            "fill_seconds": round(fill_seconds, 1), "lexical": percentiles(lexical), "hybrid": percentiles(hybrid),
            "hybrid_first_query_per_scope": percentiles(cold),
            "degraded_queries": degraded, "store_per_s": round(store_rate, 1), "drain_per_s": round(drain_rate, 1),
            "model": model}


@click.command(name="recall")
@click.option("--rows", type=click.IntRange(1), required=True, help="Memories to fill.")
@click.option("--scopes", type=click.IntRange(1), default=100, show_default=True)
@click.option("--queries", "query_count", type=click.IntRange(10), default=300, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def recall_command(rows, scopes, query_count, as_json):
    """Recall latency p50/p95/p99 (lexical-only and hybrid), store and drain throughput."""
    from scope_recall_engine.cli.options import emit

    say = (lambda message: click.echo(message, err=True))
    report = run(rows, scopes, query_count=query_count, progress=say)
    lines = [f"{rows} rows over {scopes} scopes, {report['distinct_texts']} distinct texts "
             "(rows with the same text reuse its vector)"]
    lines += [f"{name:<8} p50 {r['p50_ms']:>7.2f} ms  p95 {r['p95_ms']:>7.2f} ms  p99 {r['p99_ms']:>7.2f} ms"
              for name, r in (("lexical", report["lexical"]), ("hybrid", report["hybrid"]),
                              ("hybrid, first query per scope (loads its vectors)",
                               report["hybrid_first_query_per_scope"]))]
    lines += [f"store    {report['store_per_s']:.0f}/s (lifecycle.store, no embedding)",
              f"drain    {report['drain_per_s']:.1f}/s (embedding with {report['model']})",
              f"degraded {report['degraded_queries']} of {query_count} hybrid queries"]
    emit(report, as_json, "\n".join(lines))
