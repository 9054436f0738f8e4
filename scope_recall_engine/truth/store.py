"""The SQLite truth store: connections, write transactions and the row-level writes every transition shares."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

import sqlite_utils

from scope_recall_engine.errors import ConfigError, InvalidInput, NotFound
from scope_recall_engine.truth import entities
from scope_recall_engine.truth.migrations import FTS_TABLES, migrate
from scope_recall_engine.truth.principals import Principal

BUSY_TIMEOUT_SECONDS = 30.0
DEFAULT_PATH = Path("~/.scope-recall/memory.sqlite3")


def hermes_store(hermes_home: str | os.PathLike) -> Path:
    """Where the Hermes provider keeps its store: one per Hermes home (profile)."""
    return Path(hermes_home).expanduser() / "scope-recall" / "memory.sqlite3"


def resolve_path(explicit: str | os.PathLike | None = None) -> tuple[Path, str]:
    """The store to use and where that choice came from: an explicit path (--db), $SCOPE_RECALL_DB, the Hermes
    provider's store when $HERMES_HOME is set (so the CLI reads what Hermes writes), else the default."""
    if explicit:
        return Path(explicit).expanduser(), "--db"
    if os.environ.get("SCOPE_RECALL_DB"):
        return Path(os.environ["SCOPE_RECALL_DB"]).expanduser(), "$SCOPE_RECALL_DB"
    if os.environ.get("HERMES_HOME"):
        return hermes_store(os.environ["HERMES_HOME"]), "$HERMES_HOME"
    return DEFAULT_PATH.expanduser(), "default"


def default_path() -> Path:
    return resolve_path()[0]


def check_servable(path: str | os.PathLike) -> None:
    """A store served as it is (a read replica): it must exist and be one, opened read-only, never created."""
    try:
        connection = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
        try:
            connection.execute("select count(*) from memories").fetchone()
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise ConfigError(f"{path} is not a Scope Recall store that can be served read-only: {error}") from None


def connect(path: str | os.PathLike | None = None) -> sqlite_utils.Database:
    """Open (and create or upgrade) a store: WAL, a generous busy timeout, secure delete."""
    path = Path(path).expanduser() if path else default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False)
    _enable_wal(conn)
    conn.execute("PRAGMA synchronous = NORMAL")
    configure(conn)
    db = sqlite_utils.Database(conn)
    migrate(db)
    return db


def _enable_wal(conn: sqlite3.Connection) -> None:
    """Switching a new file to WAL needs it alone for a moment, and SQLite's busy handler does not wait for
    that: processes creating the same store at once retry here instead of failing with "database is locked"."""
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def configure(conn: sqlite3.Connection) -> None:
    """Settings every connection to a store needs, also ones opened by others (Datasette): wait, erase, enforce."""
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    conn.execute("PRAGMA secure_delete = ON")
    conn.execute("PRAGMA foreign_keys = ON")


@contextlib.contextmanager
def write(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """One mutation, one transaction: ``BEGIN IMMEDIATE`` so writers queue instead of failing mid-way."""
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.rollback()
        raise
    else:
        db.conn.execute("COMMIT")


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def before(delta: timedelta, at: str | None = None) -> str:
    """The moment ``delta`` before ``at`` (default now), in the store's UTC form: the cutoff of every window."""
    return (datetime.fromisoformat(at or now()) - delta).astimezone(timezone.utc).isoformat(timespec="microseconds")


def parse_time(text: str) -> str:
    """Accept ISO-8601 (date or datetime, any offset) and return the store's UTC form."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        raise InvalidInput(f"{text!r} is not an ISO-8601 date or time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def get_memory(db: sqlite_utils.Database, memory_id: int) -> dict:
    try:
        return db["memories"].get(memory_id)
    except sqlite_utils.db.NotFoundError:
        raise NotFound(f"no memory with id {memory_id}") from None


def audit(db, memory: dict, action: str, principal: Principal, *, from_state=None, to_state=None,
          reason=None) -> None:
    db["audit_events"].insert({
        "memory_id": memory["id"],
        "scope_id": memory["scope_id"],
        "action": action,
        "principal": str(principal),
        "principal_kind": principal.kind,
        "from_state": from_state,
        "to_state": to_state,
        "reason": reason,
        "at": now(),
    })


def record_version(db, memory_id: int, version: int, content: str, content_hash: str, principal: Principal,
                   reason: str | None = None) -> None:
    db["memory_versions"].insert({
        "memory_id": memory_id, "version": version, "content": content, "content_hash": content_hash,
        "principal": str(principal), "at": now(), "reason": reason,
    })


def enqueue_vector_sync(db, memory_id: int, generation: int) -> None:
    """Tell the vector companion this row changed; the drainer re-reads truth and applies it."""
    db["vector_outbox"].insert({"memory_id": memory_id, "generation": generation, "created_at": now()})


def update_memory(db, memory: dict, **changes) -> dict:
    """Apply column changes, bump the generation, re-index new text's entities and queue the vector companion;
    returns the new row."""
    changes.setdefault("updated_at", now())
    changes["generation"] = memory["generation"] + 1
    db["memories"].update(memory["id"], changes)
    if "content" in changes:
        entities.index(db, memory["id"], changes["content"])
    enqueue_vector_sync(db, memory["id"], changes["generation"])
    return {**memory, **changes}


def scrub(db: sqlite_utils.Database) -> None:
    """Make erased bytes unrecoverable: merge FTS segments (dropping deleted terms), then truncate the WAL."""
    with write(db):
        for table in FTS_TABLES:
            db.execute(f"insert into {table}({table}) values ('optimize')")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def history(db: sqlite_utils.Database, memory_id: int) -> dict:
    """Versions and audit events of one memory: what it said, and who did what, when."""
    get_memory(db, memory_id)
    versions = db["memory_versions"].rows_where("memory_id = ?", [memory_id], order_by="version",
                                                select="version, content, principal, at, reason")
    events = db["audit_events"].rows_where("memory_id = ?", [memory_id], order_by="id",
                                           select="action, principal, at, from_state, to_state, reason")
    return {"versions": list(versions), "audit": list(events)}


TEXT_INDEXES = ("memories_fts", "memories_context", "memories_trigram")


def optimize_text_indexes(db) -> dict[str, float]:
    """Merge each full-text index into one segment. FTS5 merges as it goes, but a bulk load leaves many segments
    and every scoped search seeks in each of them.
    Returns the seconds each index took; writers wait meanwhile."""
    took = {}
    with write(db):
        for table in TEXT_INDEXES:
            started = time.perf_counter()
            db.execute(f"insert into {table}({table}) values ('optimize')")
            took[table] = round(time.perf_counter() - started, 3)
    return took
