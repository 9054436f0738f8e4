"""The schema's history: an ordered list of small functions, each applied once and recorded."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

import sqlite_utils

MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = []
migration = MIGRATIONS.append
MIGRATIONS_TABLE = "_scope_recall_migrations"


def migrate(db: sqlite_utils.Database) -> None:
    """Apply pending migrations, each in its own transaction with its record."""
    if not db[MIGRATIONS_TABLE].exists():
        with db.atomic():
            db[MIGRATIONS_TABLE].create({"name": str, "applied_at": str}, pk="name", if_not_exists=True)
    for fn in MIGRATIONS:
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            applied = db.execute(f"select 1 from {MIGRATIONS_TABLE} where name = ?", [fn.__name__]).fetchone()
            if not applied:
                fn(db)
                db[MIGRATIONS_TABLE].insert(
                    {"name": fn.__name__, "applied_at": datetime.now(timezone.utc).isoformat()}
                )
            db.conn.execute("COMMIT")
        except BaseException:
            db.rollback()
            raise


def schema_version(db: sqlite_utils.Database) -> list[str]:
    return [row["name"] for row in db[MIGRATIONS_TABLE].rows] if db[MIGRATIONS_TABLE].exists() else []


def _external_fts(db, name: str, tokenize: str) -> None:
    """An FTS5 index over memories.content, kept in step by triggers inside every write transaction."""
    db.executescript(
        f"""
        CREATE VIRTUAL TABLE {name} USING fts5(content, content='memories', content_rowid='id', tokenize='{tokenize}');
        CREATE TRIGGER {name}_ai AFTER INSERT ON memories BEGIN
          INSERT INTO {name}(rowid, content) VALUES (new.id, new.content);
        END;
        CREATE TRIGGER {name}_ad AFTER DELETE ON memories BEGIN
          INSERT INTO {name}({name}, rowid, content) VALUES ('delete', old.id, old.content);
        END;
        CREATE TRIGGER {name}_au AFTER UPDATE OF content ON memories BEGIN
          INSERT INTO {name}({name}, rowid, content) VALUES ('delete', old.id, old.content);
          INSERT INTO {name}(rowid, content) VALUES (new.id, new.content);
        END;
        """
    )


@migration
def m001_memories(db):
    db["memories"].create(
        {
            "id": int,
            "scope_id": str,
            "shared_scope_id": str,
            "target": str,
            "content": str,
            "content_hash": str,
            "lifecycle": str,
            "previous_lifecycle": str,
            "review_state": str,
            "origin": str,
            "created_by": str,
            "valid_from": str,
            "valid_to": str,
            "created_at": str,
            "updated_at": str,
            "version": int,
            "generation": int,
            "corroborations": int,
            "supersedes": int,
            "superseded_by": int,
        },
        pk="id",
        not_null={"scope_id", "shared_scope_id", "target", "content", "content_hash", "lifecycle",
                  "review_state", "origin", "created_by", "created_at", "updated_at"},
        defaults={"version": 1, "generation": 1, "corroborations": 0},
        foreign_keys=[("supersedes", "memories", "id"), ("superseded_by", "memories", "id")],
    )
    for column in ("lifecycle", "scope_id", "target", "review_state", "origin", "valid_from", "valid_to",
                   "created_at", "updated_at"):
        db["memories"].create_index([column])
    db["memories"].create_index(["shared_scope_id", "content_hash"])
    _external_fts(db, "memories_fts", "porter unicode61 remove_diacritics 2")
    _external_fts(db, "memories_trigram", "trigram")


@migration
def m002_versions_audit_tombstones(db):
    db["memory_versions"].create(
        {"id": int, "memory_id": int, "version": int, "content": str, "content_hash": str,
         "principal": str, "at": str, "reason": str},
        pk="id", foreign_keys=[("memory_id", "memories", "id")],
    )
    db["memory_versions"].create_index(["memory_id", "version"], unique=True)
    db["audit_events"].create(
        {"id": int, "memory_id": int, "scope_id": str, "action": str, "principal": str,
         "principal_kind": str, "from_state": str, "to_state": str, "reason": str, "at": str},
        pk="id", not_null={"action", "principal", "principal_kind", "at"},
    )
    for column in ("memory_id", "action", "principal", "principal_kind", "at"):
        db["audit_events"].create_index([column])
    db["tombstones"].create(
        {"id": int, "shared_scope_id": str, "content_hash": str, "reason": str, "principal": str,
         "at": str, "memory_id": int, "note": str},
        pk="id", not_null={"shared_scope_id", "content_hash", "reason", "principal", "at"},
    )
    db["tombstones"].create_index(["shared_scope_id", "content_hash"], unique=True)
    db["tombstones"].create_index(["reason"])


@migration
def m003_vector_outbox_and_recall_ledger(db):
    db["vector_outbox"].create(
        {"id": int, "memory_id": int, "generation": int, "created_at": str},
        pk="id", not_null={"memory_id", "generation", "created_at"},
    )
    db["recall_events"].create(
        {"id": int, "at": str, "surface": str, "query": str, "scope_ids": str, "session_key": str,
         "ranked_ids": str, "packed_ids": str, "miss_reason": str, "degraded": int, "elapsed_ms": float},
        pk="id",
    )
    for column in ("at", "surface", "miss_reason", "session_key"):
        db["recall_events"].create_index([column])


@migration
def m004_vector_repairs(db):
    """Vector hits that failed re-verification against truth: the index needs repair (index check reports them)."""
    db["vector_repairs"].create(
        {"id": int, "memory_id": int, "reason": str, "at": str},
        pk="id", not_null={"memory_id", "reason", "at"},
    )
    db["vector_repairs"].create_index(["memory_id"])
