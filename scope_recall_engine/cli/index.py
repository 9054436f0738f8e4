"""``scope-recall index drain|check|rebuild``: the vector companion against truth; ``index optimize``: the
full-text indexes after a bulk load."""

from __future__ import annotations

import click

from scope_recall_engine.cli.options import emit, json_option, open_db, progress_bar
from scope_recall_engine.companion import vectors
from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.truth.store import optimize_text_indexes


@hookimpl
def register_commands(cli):
    cli.add_command(index)


@click.group(name="index")
def index():
    """The LanceDB vector companion (drain the outbox, check it against truth, rebuild it) and the full-text
    indexes (optimize)."""


@index.command(name="drain")
@json_option
def drain_command(as_json):
    """Apply pending outbox intents (embeds new and changed memories)."""
    db = open_db()
    with progress_bar("draining", vectors.pending(db)) as bar:
        result = vectors.drain(db, progress=bar.update)
    emit(result.as_dict(), as_json, " ".join(f"{k}={v}" for k, v in result.as_dict().items()))


@index.command(name="check")
@json_option
def check_command(as_json):
    """Missing, stale and extra rows versus truth; exit 1 unless consistent."""
    result = vectors.check(open_db()).as_dict()
    emit(result, as_json, "\n".join(f"{key}: {value}" for key, value in result.items()))
    if not result["ok"]:
        raise SystemExit(1)


@index.command(name="rebuild")
@json_option
def rebuild_command(as_json):
    """Rebuild the companion from truth with the configured embedding model."""
    db = open_db()
    total = db["memories"].count
    with progress_bar("rebuilding", total) as bar:
        result = vectors.rebuild(db, progress=bar.update)
    emit(result.as_dict(), as_json, " ".join(f"{k}={v}" for k, v in result.as_dict().items()))


@index.command(name="optimize")
@json_option
def optimize_command(as_json):
    """Merge the full-text indexes into one segment each (after a bulk import; writers wait meanwhile)."""
    took = optimize_text_indexes(open_db())
    emit({"optimized": took}, as_json, " ".join(f"{table}={seconds}s" for table, seconds in took.items()))
