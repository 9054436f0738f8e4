"""Operator console sessions, held in the store so a login can end: it expires, idles out, ends at logout, and
stops counting when the account's credential changes (the console passes a fingerprint of the password hash).

The browser keeps only a random token; the table keeps its SHA-256, so reading the table (an admin may run SQL)
yields nothing that logs anyone in.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from scope_recall_engine.truth.store import before, now, write

LIFETIME = timedelta(hours=12)  # a working day, then log in again
IDLE = timedelta(hours=1)  # a console left alone this long is logged out
SEEN_EVERY = timedelta(minutes=1)  # how stale seen_at may get before a request refreshes it
KEEP_ENDED = timedelta(days=30)  # ended sessions stay this long as a record of who was logged in from where


@dataclass(frozen=True)
class Session:
    account: str
    actor: dict
    seen_at: str
    expires_at: str

    def stale(self) -> bool:
        """Whether a request should refresh ``seen_at`` (at most once a minute, not on every request)."""
        return self.seen_at < before(SEEN_EVERY)


def _id(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _later(delta: timedelta) -> str:
    return (datetime.now(timezone.utc) + delta).isoformat(timespec="microseconds")


def start(db, account: str, actor: dict, credential: str, address: str | None = None) -> str:
    """Open a session for a login that was just verified; returns the token for the browser's cookie."""
    token = secrets.token_urlsafe(32)
    at = now()
    with write(db):
        db["console_sessions"].delete_where("coalesce(ended_at, expires_at) < ?", [before(KEEP_ENDED)])
        db["console_sessions"].insert({
            "id": _id(token), "account": account, "actor": json.dumps(actor, sort_keys=True),
            "credential": credential, "address": address, "started_at": at, "seen_at": at,
            "expires_at": _later(LIFETIME),
        })
    return token


def resolve(db, token: str, credentials: dict[str, str]) -> Session | None:
    """The live session behind ``token``: not ended, not expired, not idle, and its account's credential still
    the one it logged in with (``credentials`` maps account to its current fingerprint). Read-only."""
    row = db.execute("select account, actor, credential, seen_at, expires_at from console_sessions "
                     "where id = ? and ended_at is null", [_id(token)]).fetchone()
    if row is None:
        return None
    account, actor, credential, seen_at, expires_at = row
    at = now()
    if expires_at <= at or seen_at <= before(IDLE, at) or credentials.get(account) != credential:
        return None
    return Session(account, json.loads(actor), seen_at, expires_at)


def touch(db, token: str) -> None:
    """Record activity, which keeps a live session from idling out (an idle one stays ended)."""
    at = now()
    with write(db):
        db.execute("update console_sessions set seen_at = ? where id = ? and ended_at is null and seen_at > ?",
                   [at, _id(token), before(IDLE, at)])


def end(db, token: str, why: str = "logout") -> None:
    with write(db):
        db.execute("update console_sessions set ended_at = ?, ended_why = ? where id = ? and ended_at is null",
                   [now(), why, _id(token)])
