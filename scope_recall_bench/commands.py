"""``scope-recall bench`` and ``scope-recall eval``, joined to the CLI through the engine's ``register_commands``
hook. Each command is imported only when it runs, so the rest of the CLI never pays for the harnesses."""

from __future__ import annotations

import importlib

import click

from scope_recall_engine.hookspecs import hookimpl


class LazyGroup(click.Group):
    """A group whose commands are ``module:attribute`` paths, imported on use (click's documented pattern)."""

    def __init__(self, *args, lazy: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx):
        return sorted(self.lazy)

    def get_command(self, ctx, name):
        if name not in self.lazy:
            return None
        module, attribute = self.lazy[name].split(":")
        return getattr(importlib.import_module(module), attribute)


@click.group(name="bench", cls=LazyGroup, lazy={
    "recall": "scope_recall_bench.bench:recall_command",
    "write": "scope_recall_bench.bench_write:write_bench",
    "prefetch": "scope_recall_bench.bench_prefetch:prefetch_command",
    "faults": "scope_recall_bench.bench_faults:faults_bench",
    "embedder": "scope_recall_bench.bench_embedder:embedder_command",
    "fit-resting": "scope_recall_bench.fit_resting:fit_resting_command",
    "fit-bearing": "scope_recall_bench.fit_bearing:fit_bearing_command",
})
def bench():
    """Throughput and latency figures (each command also prints --json)."""


@click.group(name="eval", cls=LazyGroup, lazy={
    "locomo": "scope_recall_bench.eval_commands:locomo_command",
    "negative": "scope_recall_bench.eval_commands:negative_command",
    "personal": "scope_recall_bench.eval_commands:personal_command",
    "digest": "scope_recall_bench.eval_commands:digest_command",
})
def evaluate():
    """Measure retrieval (LoCoMo any@k/frac@k, the negative fixture, recall in personal stores) and extraction
    (the digest fixture)."""


@hookimpl
def register_commands(cli):
    cli.add_command(bench)
    cli.add_command(evaluate)
