"""The schema's history: an ordered list of small functions, each applied once and recorded."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import datetime, timezone
from typing import Callable

import sqlite_utils

from scope_recall_engine.truth import entities, secret
from scope_recall_engine.truth.content import KEYED, keyed_hash

MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = []
migration = MIGRATIONS.append
MIGRATIONS_TABLE = "_scope_recall_migrations"
FTS_TABLES = ("memories_fts", "memories_trigram", "memories_context")  # every full-text index over memories


def migrate(db: sqlite_utils.Database) -> None:
    """Apply pending migrations, each in its own ``BEGIN IMMEDIATE`` transaction with its record (so processes
    opening a new store at once queue on the lock instead of failing). An up-to-date store takes no lock."""
    if set(schema_version(db)) >= {fn.__name__ for fn in MIGRATIONS}:
        return
    for fn in MIGRATIONS:
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            db[MIGRATIONS_TABLE].create({"name": str, "applied_at": str}, pk="name", if_not_exists=True)
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


def _script(db, sql: str) -> None:
    """Run several statements inside the migration's transaction (``executescript`` would commit it first)."""
    statement = ""
    for piece in sql.split(";"):
        statement += piece + ";"
        if sqlite3.complete_statement(statement):
            if statement.strip(" \n;"):
                db.execute(statement)
            statement = ""


def _external_fts(db, name: str, tokenize: str, columns: tuple[str, ...] = ("content",)) -> None:
    """An FTS5 index over memories' columns, kept in step by triggers inside every write transaction."""
    listed = ", ".join(columns)
    new, old = ", ".join(f"new.{c}" for c in columns), ", ".join(f"old.{c}" for c in columns)
    _script(db, f"""
        CREATE VIRTUAL TABLE {name} USING fts5({listed}, content='memories', content_rowid='id', tokenize='{tokenize}');
        CREATE TRIGGER {name}_ai AFTER INSERT ON memories BEGIN
          INSERT INTO {name}(rowid, {listed}) VALUES (new.id, {new});
        END;
        CREATE TRIGGER {name}_ad AFTER DELETE ON memories BEGIN
          INSERT INTO {name}({name}, rowid, {listed}) VALUES ('delete', old.id, {old});
        END;
        CREATE TRIGGER {name}_au AFTER UPDATE OF content ON memories BEGIN
          INSERT INTO {name}({name}, rowid, {listed}) VALUES ('delete', old.id, {old});
          INSERT INTO {name}(rowid, {listed}) VALUES (new.id, {new});
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


_REVOKE_SOURCES = """
  UPDATE memories SET provenance = 'revoked'
    WHERE id IN (SELECT memory_id FROM memory_sources WHERE journal_entry_id = old.id AND revoked = 0);
  INSERT INTO audit_events(memory_id, scope_id, action, principal, principal_kind, reason, at)
    SELECT s.memory_id, m.scope_id, 'revoke_provenance', 'system:journal', 'system',
           'source journal entry ' || old.id || ' {what}', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
    FROM memory_sources s JOIN memories m ON m.id = s.memory_id
    WHERE s.journal_entry_id = old.id AND s.revoked = 0;
  UPDATE memory_sources SET revoked = 1, revoked_reason = 'entry {what}',
         revoked_at = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
    WHERE journal_entry_id = old.id AND revoked = 0;
"""


@migration
def m005_write_path(db):
    """Journal, provenance links (revoked by trigger when an entry is erased or changed), digest runs, leases."""
    db["journal_entries"].create(
        {"id": int, "scope_id": str, "shared_scope_id": str, "session": str, "role": str, "content": str,
         "content_hash": str, "redactions": int, "created_at": str, "processed_at": str, "digest_run_id": int},
        pk="id", not_null={"scope_id", "shared_scope_id", "session", "role", "content", "content_hash",
                           "created_at"},
        defaults={"redactions": 0},
    )
    db["journal_entries"].create_index(["scope_id", "session", "role", "content_hash"], unique=True)
    for column in ("processed_at", "shared_scope_id", "created_at"):
        db["journal_entries"].create_index([column])
    db["memory_sources"].create(
        {"id": int, "memory_id": int, "journal_entry_id": int, "cited_sha256": str, "run_id": int,
         "linked_at": str, "expired_at": str, "revoked": int, "revoked_reason": str, "revoked_at": str},
        pk="id", not_null={"memory_id", "cited_sha256", "linked_at"}, defaults={"revoked": 0},
        foreign_keys=[("memory_id", "memories", "id")],
    )
    db["memory_sources"].create_index(["memory_id", "journal_entry_id"], unique=True)
    db["memory_sources"].create_index(["journal_entry_id"])
    db["digest_runs"].create(
        {"id": int, "started_at": str, "finished_at": str, "status": str, "holder": str, "extractor": str,
         "model": str, "prompt_version": str, "entries": int, "facts": int, "decisions": str, "counts": str,
         "duration_ms": float, "error": str},
        pk="id", not_null={"started_at", "status", "extractor"},
    )
    db["leases"].create({"name": str, "holder": str, "acquired_at": str, "expires_at": str}, pk="name")
    for column in ("provenance", "decision", "decision_reason", "slot"):
        db["memories"].add_column(column, str)
    db["memories"].create_index(["scope_id", "slot"])
    _script(
        db,
        "CREATE TRIGGER journal_entries_revoke_ad AFTER DELETE ON journal_entries BEGIN"
        + _REVOKE_SOURCES.format(what="erased") + "END;"
        "CREATE TRIGGER journal_entries_revoke_au AFTER UPDATE OF content ON journal_entries"
        " WHEN old.content IS NOT new.content BEGIN" + _REVOKE_SOURCES.format(what="changed") + "END;"
    )


_NOW_SQL = "strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')"
_CITING = "SELECT memory_id FROM memory_sources WHERE journal_entry_id = old.id AND revoked = 0"
_REVOKE_SOURCES_AUDITED = f"""
  UPDATE memories SET provenance = 'revoked', generation = generation + 1, updated_at = {_NOW_SQL}
    WHERE id IN ({_CITING});
  INSERT INTO audit_events(memory_id, scope_id, action, principal, principal_kind, reason, at)
    SELECT m.id, m.scope_id, 'revoke_provenance', 'system:journal', 'system',
           'source journal entry ' || old.id || ' {{what}}', {_NOW_SQL}
    FROM memories m WHERE m.id IN ({_CITING});
  INSERT INTO vector_outbox(memory_id, generation, created_at)
    SELECT m.id, m.generation, {_NOW_SQL} FROM memories m WHERE m.id IN ({_CITING});
  UPDATE memory_sources SET revoked = 1, revoked_reason = 'entry {{what}}', revoked_at = {_NOW_SQL}
    WHERE journal_entry_id = old.id AND revoked = 0;
"""


@migration
def m006_provenance_revocation_is_a_change(db):
    """Flagging a memory is a change like any other: one generation, one audit event, one outbox intent."""
    _script(db,
        "DROP TRIGGER journal_entries_revoke_ad; DROP TRIGGER journal_entries_revoke_au;"
        "CREATE TRIGGER journal_entries_revoke_ad AFTER DELETE ON journal_entries BEGIN"
        + _REVOKE_SOURCES_AUDITED.format(what="erased") + "END;"
        "CREATE TRIGGER journal_entries_revoke_au AFTER UPDATE OF content ON journal_entries"
        " WHEN old.content IS NOT new.content BEGIN" + _REVOKE_SOURCES_AUDITED.format(what="changed") + "END;"
    )


CONTEXT_DOCUMENT = ("coalesce((SELECT p.content FROM memories p WHERE p.id = {row}.context_id), '')"
                    " || char(10) || {row}.content")
WORDS = "porter unicode61 remove_diacritics 2"


def scope_key(scope_id: str) -> str:
    """One FTS token per scope, so a full-text query is narrowed to the caller's scopes inside the index."""
    return "k" + hashlib.sha256(scope_id.encode("utf-8")).hexdigest()[:24]


@migration
def m007_context_index_and_scope_keys(db):
    """Contextual indexing: each memory is also indexed together with the memory stored just before it in the
    same scope (``context_id``), because an answer often lives in the reply to a question. A plain FTS5 table
    (it stores its documents), kept in step by triggers, and re-written for the rows that cite a changed one.
    Both word indexes carry the row's ``scope_key`` token, so a search intersects with its scopes in the index
    instead of ranking every scope's matches and filtering afterwards."""
    db["memories"].add_column("context_id", int)
    db["memories"].add_column("scope_key", str)
    db["memories"].create_index(["context_id"])
    for (scope_id,) in db.execute("select distinct scope_id from memories").fetchall():
        db.execute("update memories set scope_key = ? where scope_id = ?", [scope_key(scope_id), scope_id])
    _script(db, "DROP TRIGGER memories_fts_ai; DROP TRIGGER memories_fts_ad; DROP TRIGGER memories_fts_au;"
                "DROP TABLE memories_fts;")
    _external_fts(db, "memories_fts", WORDS, ("content", "scope_key"))
    db.execute("insert into memories_fts(memories_fts) values ('rebuild')")
    db.execute(f"CREATE VIRTUAL TABLE memories_context USING fts5(content, scope_key, tokenize='{WORDS}')")
    new_doc, dependents = CONTEXT_DOCUMENT.format(row="new"), CONTEXT_DOCUMENT.format(row="d")
    _script(db, f"""
        CREATE TRIGGER memories_context_ai AFTER INSERT ON memories BEGIN
          INSERT INTO memories_context(rowid, content, scope_key) VALUES (new.id, {new_doc}, new.scope_key);
        END;
        CREATE TRIGGER memories_context_ad AFTER DELETE ON memories BEGIN
          DELETE FROM memories_context WHERE rowid = old.id;
        END;
        CREATE TRIGGER memories_context_au AFTER UPDATE OF content, context_id ON memories BEGIN
          DELETE FROM memories_context
            WHERE rowid = new.id OR rowid IN (SELECT id FROM memories WHERE context_id = new.id);
          INSERT INTO memories_context(rowid, content, scope_key) VALUES (new.id, {new_doc}, new.scope_key);
          INSERT INTO memories_context(rowid, content, scope_key)
            SELECT d.id, {dependents}, d.scope_key FROM memories d WHERE d.context_id = new.id;
        END;
    """)
    db.execute("""
        UPDATE memories SET context_id = (
          SELECT p.id FROM memories p WHERE p.scope_id = memories.scope_id AND p.id < memories.id
          AND p.lifecycle = 'active' ORDER BY p.id DESC LIMIT 1)
    """)
    rebuild_context_index(db)



@migration
def m008_content_hash_index(db):
    """Datasette facets and the operator's "same value elsewhere?" look-ups go by content hash alone."""
    db["memories"].create_index(["content_hash"])


def rebuild_context_index(db) -> None:
    """The context index is derived data: rebuild it from memories (backfill, doctor --repair)."""
    db.execute("DELETE FROM memories_context")
    db.execute(f"INSERT INTO memories_context(rowid, content, scope_key) "
               f"SELECT d.id, {CONTEXT_DOCUMENT.format(row='d')}, d.scope_key FROM memories d")


@migration
def m009_purged_hashes_under_the_store_key(db):
    """A purged row and its tombstones kept the plain hash of the erased value, so a reader of the store could
    confirm a guess (sha256 of the normalized text). Key them with the store's secret, as purge now does."""
    where = {"memories": "lifecycle = 'purged'", "tombstones": "reason = 'purged'"}
    plain = {table: db.execute(f"select id, content_hash from {table} where {condition} and content_hash not like ?",
                               [KEYED + "%"]).fetchall() for table, condition in where.items()}
    if not any(plain.values()):
        return
    key = secret.key(db, create=True)
    for table, rows in plain.items():
        db.conn.executemany(f"update {table} set content_hash = ? where id = ?",
                            [(keyed_hash(value_hash, key), row_id) for row_id, value_hash in rows])


@migration
def m010_console_sessions(db):
    """Operator console logins, held server-side so they expire, idle out, and end at logout or when the
    account's password changes. Only a hash of each session's token is stored."""
    db["console_sessions"].create(
        {"id": str, "account": str, "actor": str, "credential": str, "address": str, "started_at": str,
         "seen_at": str, "expires_at": str, "ended_at": str, "ended_why": str},
        pk="id", not_null={"account", "actor", "credential", "started_at", "seen_at", "expires_at"},
    )
    db["console_sessions"].create_index(["account"])
    db["console_sessions"].create_index(["expires_at"])


@migration
def m011_entity_index(db):
    """The entity index (``truth/entities.py``): entities by normalized name, and each memory's links to them as
    written there; ``entity_mentions`` is the operator console's view of both, faceted by entity. Backfilled."""
    db["entities"].create({"id": int, "key": str}, pk="id", not_null={"key"})
    db["entities"].create_index(["key"], unique=True)
    db["memory_entities"].create(
        {"memory_id": int, "entity_id": int, "name": str, "kind": str}, pk=("memory_id", "entity_id"),
        not_null={"name", "kind"}, foreign_keys=[("memory_id", "memories", "id"), ("entity_id", "entities", "id")])
    db["memory_entities"].create_index(["entity_id"])
    db.execute("""CREATE VIEW entity_mentions AS
        SELECT l.memory_id, l.name AS entity, l.kind, e.key AS entity_key, m.content, m.lifecycle, m.target,
               m.review_state, m.scope_id
        FROM memory_entities l JOIN entities e ON e.id = l.entity_id JOIN memories m ON m.id = l.memory_id""")
    entities.rebuild(db)


@migration
def m012_memory_feedback(db):
    """Feedback on recalled memories ("helpful" / "unhelpful", a note, who said it, from which surface): a ledger
    of opinions beside the recall ledger. It moves ranking within bounds (``reading/trust.py``) and never a
    lifecycle; repeated "unhelpful" brings the memory to a person (``writing/review_queue.flagged``)."""
    db["memory_feedback"].create(
        {"id": int, "memory_id": int, "scope_id": str, "verdict": str, "note": str, "principal": str,
         "principal_kind": str, "surface": str, "at": str},
        pk="id", not_null={"memory_id", "scope_id", "verdict", "principal", "principal_kind", "surface", "at"},
        foreign_keys=[("memory_id", "memories", "id")],
    )
    db["memory_feedback"].create_index(["memory_id", "at"])
