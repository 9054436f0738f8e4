"""Engine calls on Datasette's connections: reads on its read connections, writes on its single write thread
(the engine opens and ends its own transactions), and the vector drain off the request path."""

from __future__ import annotations

import asyncio
import sys
import threading

import sqlite_utils

from scope_recall_engine.truth import store

DATABASE = "memory"
SESSIONS = "console"  # a read replica's own logins: its copy of the store is read-only
PLUGIN = "scope-recall"

_drain_lock = threading.Lock()
_background: set = set()


def serves_store(datasette) -> bool:
    """Only a Datasette serving a store is locked down; another Datasette in the same environment is not."""
    return DATABASE in datasette.databases


def config(datasette) -> dict:
    return datasette.plugin_config(PLUGIN) or {}


def read_only(datasette) -> str | None:
    """Why this console may not write the store (a read replica), else None."""
    return config(datasette).get("read_only")


def sessions_database(datasette) -> str:
    """Where logins are kept: the store itself, or a replica's own small database beside its copy."""
    return SESSIONS if SESSIONS in datasette.databases else DATABASE


async def read(datasette, fn, *args, database: str = DATABASE, **kwargs):
    return await datasette.get_database(database).execute_fn(
        lambda conn: fn(sqlite_utils.Database(conn), *args, **kwargs))


async def write(datasette, fn, *args, block: bool = True, database: str = DATABASE):
    """Run an engine write on the single write thread; ``block=False`` queues it and returns at once."""

    def call(conn):
        try:
            return fn(sqlite_utils.Database(conn), *args)
        finally:
            if conn.in_transaction:  # 0.65's execute_write_fn would commit a half-done write later
                conn.rollback()

    return await datasette.get_database(database).execute_write_fn(call, block=block)


def drain_soon(datasette) -> None:
    """Bring the vector companion up to date off the request path, if this install has one."""
    if not config(datasette).get("drain_vectors", True):
        return
    try:
        from scope_recall_engine.companion import vectors
    except ImportError:
        return
    path = datasette.get_database(DATABASE).path
    task = asyncio.get_running_loop().run_in_executor(None, _drain, vectors, path)
    _background.add(task)
    task.add_done_callback(_background.discard)


def _drain(vectors, path) -> None:
    with _drain_lock:
        db = store.connect(path)
        try:
            vectors.drain(db)
        except Exception as error:  # recall stays correct (hits are re-verified); report and move on
            print(f"scope-recall: vector drain failed: {error}", file=sys.stderr)
        finally:
            db.close()
