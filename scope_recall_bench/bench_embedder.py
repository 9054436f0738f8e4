"""``scope-recall bench embedder``: what one message costs the embedder, the floor under every hybrid search.

A hybrid search embeds its message (one pass of the model) and, when the message asks for the user's context,
takes its latent terms too (a second pass, run beside the first). Nothing else a search does can make it faster
than these passes, so this times them alone, through the engine's own calls, on the messages ``bench recall``
and ``bench prefetch`` ask: back to back, or with ``--idle-ms`` between messages as a chat's turns come. The engine
runs each pass on one OpenMP thread unless OMP_NUM_THREADS is set; rerun with it set to compare.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ThreadPoolExecutor

import click

from scope_recall_bench import bench, bench_prefetch
from scope_recall_bench.bench import percentiles
from scope_recall_engine import config as settings
from scope_recall_engine.cli.options import emit, json_option
from scope_recall_engine.companion import dense, embedders


def messages(count: int) -> dict[str, list[str]]:
    """Messages of the kinds each benchmark asks (its own generators)."""
    recall_texts = bench.pool(3000, random.Random(7))
    return {"recall": bench.queries(recall_texts, random.Random(11), count),
            "prefetch": bench_prefetch.queries(bench_prefetch.corpus(1000), count)}


def timed_passes(model_id: str, asked: list[str], idle_s: float) -> dict:
    """Per message: its vector pass alone, then its vector and latent-terms passes side by side (milliseconds)."""
    model, terms = embedders.get_model(model_id), embedders.offers_terms(model_id)
    embedders.embed_query(model, "warm up")
    alone, both = [], []
    with ThreadPoolExecutor(max_workers=1) as beside:
        if terms:
            dense.query_latent_terms(model_id, "warm up")
        for message in asked:
            time.sleep(idle_s)
            started = time.perf_counter()
            embedders.embed_query(model, message)
            alone.append((time.perf_counter() - started) * 1000)
            if not terms:
                continue
            time.sleep(idle_s)
            started = time.perf_counter()
            latent = beside.submit(dense.query_latent_terms, model_id, message)
            embedders.embed_query(model, message)
            latent.result()
            both.append((time.perf_counter() - started) * 1000)
    return {"vector_pass": percentiles(alone), "vector_and_terms": percentiles(both) if both else None}


def run(model_id: str, count: int, idle_ms: float) -> dict:
    return {"model": model_id, "omp_num_threads": os.environ.get("OMP_NUM_THREADS", "1 (the engine's default)"),
            "idle_ms": idle_ms, "messages": count,
            **{name: timed_passes(model_id, asked, idle_ms / 1000) for name, asked in messages(count).items()}}


@click.command(name="embedder")
@click.option("--model", default=settings.DEFAULT_EMBEDDING_MODEL, show_default=True, help="Embedding model id.")
@click.option("--messages", "count", default=100, show_default=True, type=click.IntRange(10))
@click.option("--idle-ms", default=0.0, show_default=True, type=click.FloatRange(0),
              help="Pause before each timed pass, as between a chat's turns.")
@json_option
def embedder_command(model, count, idle_ms, as_json):
    """Query embedding latency (p50/p95): one message's vector pass, and its vector and latent-terms passes side
    by side, on the messages `bench recall` and `bench prefetch` ask."""
    report = run(model, count, idle_ms)
    lines = [f"model {report['model']}, OMP_NUM_THREADS {report['omp_num_threads']}, {count} messages per bench, "
             f"{idle_ms:g} ms idle before each pass"]
    for name in ("recall", "prefetch"):
        for label, key in (("vector pass", "vector_pass"), ("vector + latent terms", "vector_and_terms")):
            spread = report[name][key]
            if spread:
                lines.append(f"{name:<9}{label:<23}p50 {spread['p50_ms']:>7.2f} ms  p95 {spread['p95_ms']:>7.2f} ms")
    emit(report, as_json, "\n".join(lines))
