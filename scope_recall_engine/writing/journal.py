"""The journal: every eligible turn, sanitized and redacted, appended cheaply. Provenance only, never recalled.

Entries are keyed (scope, session, role, text hash), so staging the same turns twice (sync_turn, then
on_pre_compress) stores them once. Memories cite entries in ``memory_sources`` with a sha256 of the cited text;
erasing or changing an entry revokes those links and flags the memories (database triggers, so no write path
can forget to).
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import Iterable

from scope_recall_engine.config import Config
from scope_recall_engine.errors import InvalidInput
from scope_recall_engine.truth.redaction import JOURNALED_ROLES, Sanitized, sanitize  # noqa: F401 (JOURNALED_ROLES: for adapters)
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import before, now, write

_INSERT = """
    insert or ignore into journal_entries
      (scope_id, shared_scope_id, session, role, content, content_hash, redactions, created_at)
    values (?, ?, ?, ?, ?, ?, ?, ?)
"""
_LOCK_GUARD = threading.Lock()
LIST_FIELDS = ("id", "scope_id", "session", "role", "content", "redactions", "created_at", "processed_at")


@dataclass(frozen=True)
class Appended:
    id: int | None
    status: str  # journaled | duplicate | dropped
    reason: str | None = None
    redactions: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _lock(db) -> threading.Lock:
    """One lock per connection: concurrent appends on a shared connection never interleave transactions."""
    lock = getattr(db, "_scope_recall_journal_lock", None)
    if lock is None:
        with _LOCK_GUARD:
            lock = db.__dict__.setdefault("_scope_recall_journal_lock", threading.Lock())
    return lock


def append(db, identity: Identity, session: str, role: str, text: str | None,
           config: Config | None = None) -> Appended:
    """Journal one turn (the hot path: one small transaction)."""
    return append_many(db, identity, session, [(role, text)], config)[0]


def append_many(db, identity: Identity, session: str, turns: Iterable[tuple[str, str | None]],
                config: Config | None = None) -> list[Appended]:
    """Journal a batch of (role, text) turns in one transaction, e.g. messages staged before compression."""
    if not session or not str(session).strip():
        raise InvalidInput("a journal session id is required")
    config = config or Config()
    excluded = identity.chat is not None and identity.chat in config.excluded_chats
    prepared = [(role, Sanitized(None, "excluded chat") if excluded else sanitize(role, text)) for role, text in turns]
    local, shared = identity.local_scope, identity.shared_scope
    results = []
    with _lock(db), write(db):
        for role, sanitized in prepared:
            if sanitized.text is None:
                results.append(Appended(None, "dropped", sanitized.dropped))
                continue
            text_hash = sha256(sanitized.text)
            cursor = db.conn.execute(_INSERT, (local, shared, session, role, sanitized.text, text_hash,
                                               sanitized.redactions, now()))
            status = "journaled" if cursor.rowcount else "duplicate"
            entry_id = cursor.lastrowid if cursor.rowcount else db.execute(
                "select id from journal_entries where scope_id = ? and session = ? and role = ? and content_hash = ?",
                [local, session, role, text_hash]).fetchone()[0]
            results.append(Appended(entry_id, status, None, sanitized.redactions))
    return results


def entries(db, identity: Identity, limit: int = 100) -> list[dict]:
    """Newest entries of the identity: its local scope if chat/thread/session is given, else its shared scope."""
    local = any((identity.chat, identity.thread, identity.session))
    where, value = ("scope_id = ?", identity.local_scope) if local else ("shared_scope_id = ?",
                                                                       identity.shared_scope)
    rows = db["journal_entries"].rows_where(where, [value], order_by="id desc", limit=limit,
                                            select=", ".join(LIST_FIELDS))
    return list(rows)


def backlog(db, shared_scope_id: str | None = None) -> int:
    """Entries waiting for the digest."""
    where, params = "processed_at is null", []
    if shared_scope_id:
        where, params = where + " and shared_scope_id = ?", [shared_scope_id]
    return db.execute(f"select count(*) from journal_entries where {where}", params).fetchone()[0]


def unprocessed(db, after_id: int, limit: int, shared_scope_id: str | None = None) -> list[dict]:
    where, params = "processed_at is null and id > ?", [after_id]
    if shared_scope_id:
        where, params = where + " and shared_scope_id = ?", params + [shared_scope_id]
    return list(db["journal_entries"].rows_where(where, params, order_by="id", limit=limit))


def mark_processed(db, entry_ids: list[int], run_id: int | None) -> None:
    db.conn.executemany("update journal_entries set processed_at = ?, digest_run_id = ? where id = ?",
                        [(now(), run_id, entry_id) for entry_id in entry_ids])


def link(db, memory_id: int, entry: dict, run_id: int | None) -> bool:
    """Cite a journal entry as a memory's source; False if it was already cited (nothing new)."""
    cursor = db.conn.execute(
        "insert or ignore into memory_sources (memory_id, journal_entry_id, cited_sha256, run_id, linked_at)"
        " values (?, ?, ?, ?, ?)", (memory_id, entry["id"], sha256(entry["content"]), run_id, now()))
    return bool(cursor.rowcount)


def sources(db, memory_id: int) -> list[dict]:
    """A memory's evidence: its links and, while they exist, the cited entries' text."""
    return [dict(zip(("journal_entry_id", "cited_sha256", "revoked", "revoked_reason", "expired_at", "role",
                      "content", "created_at"), row)) for row in db.execute(
        "select s.journal_entry_id, s.cited_sha256, s.revoked, s.revoked_reason, s.expired_at, j.role, j.content,"
        " j.created_at from memory_sources s left join journal_entries j on j.id = s.journal_entry_id"
        " where s.memory_id = ? order by s.id", [memory_id])]


def copy_sources(db, from_ids: list[int], to_id: int) -> None:
    """A merged memory rests on every source's evidence: their links, revoked ones too, now also cite it."""
    db.execute("insert or ignore into memory_sources(memory_id, journal_entry_id, cited_sha256, run_id, linked_at,"
               " expired_at, revoked, revoked_reason, revoked_at) select ?, journal_entry_id, cited_sha256, run_id,"
               " linked_at, expired_at, revoked, revoked_reason, revoked_at from memory_sources"
               " where memory_id in (select value from json_each(?)) order by id", [to_id, json.dumps(from_ids)])


def erase_sources(db, memory_id: int) -> int:
    """Purge's share of the work: delete the entries a memory came from (the triggers revoke every link to
    them, flagging other memories that cite them) and the digest's reason, which may quote the value."""
    with write(db):
        ids = [row[0] for row in db.execute(
            "select journal_entry_id from memory_sources where memory_id = ? and journal_entry_id is not null",
            [memory_id])]
        db.execute("update memory_sources set revoked = 1, revoked_reason = 'memory purged', revoked_at = ?"
                   " where memory_id = ? and revoked = 0", [now(), memory_id])  # so only other memories get flagged
        erase(db, ids)
        db.execute("update memories set decision_reason = null where id = ?", [memory_id])
    return len(ids)


def erase(db, entry_ids: list[int]) -> None:
    """Delete entries outright (secure_delete zeroes the pages; store.scrub truncates the WAL)."""
    db.conn.executemany("delete from journal_entries where id = ?", [(entry_id,) for entry_id in entry_ids])


def prune(db, retention_days: int | None, at: str | None = None) -> int:
    """Retention: delete processed entries older than ``retention_days``; links keep their digest, marked
    expired (not revoked: the evidence aged out, nobody erased or changed it)."""
    if retention_days is None:
        return 0
    with write(db):
        old = "select id from journal_entries where processed_at is not null and created_at < ?"
        params = [before(timedelta(days=retention_days), at)]
        db.execute(f"update memory_sources set journal_entry_id = null, expired_at = ? "
                   f"where journal_entry_id in ({old})", [now(), *params])
        return db.execute(f"delete from journal_entries where id in ({old})", params).rowcount
