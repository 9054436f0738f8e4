"""What an operator needs to decide on candidates: the waiting rows, their evidence, their likely twins.

Plain functions for the review surfaces (Datasette's queue page, any future CLI): oldest candidates first, the
journal turns each one came from, and the active memories under the same scope that it may duplicate or
contradict (lexical FTS under the visibility predicate, so only what recall could return counts as a twin);
and a batch decision that applies lifecycle transitions one memory at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlite_utils

from scope_recall_engine.errors import InvalidInput, ScopeRecallError
from scope_recall_engine.reading.retrieval import Hit, lexical
from scope_recall_engine.truth.principals import Principal
from scope_recall_engine.truth.scope import label, shared_part
from scope_recall_engine.truth.store import get_memory
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import feedback, journal, lifecycle
from scope_recall_engine.writing.lifecycle import DENY, NEW, TRANSITIONS

NEAREST_LIMIT = 3
PAGE_SIZE = 25  # candidates per page: each shows evidence and twins, so a page stays readable
HUMAN_ACTIONS = tuple(action for action, rule in TRANSITIONS.items()  # what a person may do to an existing row
                      if rule.human != DENY and NEW not in rule.from_states and rule.one_row)
BATCH_DECISIONS = ("promote", "reject")


@dataclass
class QueueItem:
    """One candidate with what it rests on and what it might collide with."""

    memory: dict
    evidence: list[dict] = field(default_factory=list)
    nearest: list[Hit] = field(default_factory=list)


def waiting_scopes(db: sqlite_utils.Database) -> list[dict]:
    """Scopes with candidates waiting, the longest-waiting first, each with a readable label."""
    rows = db.execute(
        "select scope_id, count(*), min(created_at) from memories where lifecycle = 'candidate' "
        "group by scope_id order by min(created_at)"
    ).fetchall()
    return [{"scope_id": scope_id, "label": label(scope_id), "waiting": waiting, "oldest": oldest}
            for scope_id, waiting, oldest in rows]


def _waiting(scope_id: str | None) -> tuple[str, list]:
    """The where clause of the queue: candidates, optionally of one scope."""
    return ("lifecycle = 'candidate' and scope_id = ?", [scope_id]) if scope_id else ("lifecycle = 'candidate'", [])


def candidates(db: sqlite_utils.Database, scope_id: str | None = None, limit: int = PAGE_SIZE,
               after: int | None = None) -> list[dict]:
    """Candidates oldest first (the ones that waited longest are decided first), optionally of one scope.

    ``after`` is the id of the last candidate of the previous page: keyset paging, so deciding rows on one page
    never shifts the next page past rows nobody has seen."""
    where, params = _waiting(scope_id)
    if after is not None:
        where += " and (created_at, id) > (select created_at, id from memories where id = ?)"
        params.append(after)
    return list(db["memories"].rows_where(where, params, order_by="created_at, id", limit=limit))


def nearest_active(db: sqlite_utils.Database, memory: dict, limit: int = NEAREST_LIMIT) -> list[Hit]:
    """Active memories an identity in the candidate's scope would recall for its text: duplicates or conflicts."""
    scopes = tuple(dict.fromkeys((memory["scope_id"], shared_part(memory["scope_id"]))))
    hits = lexical(db, View(scopes), memory["content"], limit + 1, content_only=True)
    return [hit for hit in hits if hit.id != memory["id"]][:limit]


@dataclass
class Page:
    """One page of the queue, how many wait in all, the scopes they wait in, and where pages start: ``next_after``
    (None on the last page), ``ahead`` (candidates before this page), ``previous_after`` (where the page before
    starts; None is the first page) and ``starts`` (where each page starts, for page numbers)."""

    items: list[QueueItem]
    waiting: int
    scopes: list[dict]
    next_after: int | None
    ahead: int = 0
    previous_after: int | None = None
    starts: list[int | None] = field(default_factory=lambda: [None])


def _order(db: sqlite_utils.Database, scope_id: str | None) -> list[int]:
    where, params = _waiting(scope_id)
    return [row[0] for row in db.execute(f"select id from memories where {where} order by created_at, id", params)]


def _ahead(db: sqlite_utils.Database, scope_id: str | None, after: int | None) -> int:
    """Waiting candidates queued up to ``after`` (which may have been decided since)."""
    if after is None:
        return 0
    where, params = _waiting(scope_id)
    return db.execute(f"select count(*) from memories where {where} and (created_at, id) <= "
                      "(select created_at, id from memories where id = ?)", [*params, after]).fetchone()[0]


def queue(db: sqlite_utils.Database, scope_id: str | None = None, limit: int = PAGE_SIZE,
          after: int | None = None) -> Page:
    """The review queue: each waiting candidate beside its evidence and its nearest active memories."""
    rows = candidates(db, scope_id, limit + 1, after)
    items = [_item(db, row) for row in rows[:limit]]
    scopes = waiting_scopes(db)
    order = _order(db, scope_id)
    ahead = _ahead(db, scope_id, after)
    return Page(items, len(order), scopes, rows[limit - 1]["id"] if len(rows) > limit else None, ahead,
                order[ahead - limit - 1] if ahead > limit else None,
                [None, *(order[end - 1] for end in range(limit, len(order), limit))])


def item(db: sqlite_utils.Database, memory_id: int) -> QueueItem:
    """One memory as the review surfaces show it: its evidence and, while it waits, its likely twins."""
    return _item(db, get_memory(db, memory_id))


def _item(db: sqlite_utils.Database, memory: dict) -> QueueItem:
    nearest = nearest_active(db, memory) if memory["lifecycle"] == "candidate" else []
    return QueueItem(memory=memory, evidence=journal.sources(db, memory["id"]), nearest=nearest)


def flagged(db: sqlite_utils.Database, scope_id: str | None = None) -> list[QueueItem]:
    """Active memories that feedback called unhelpful ``feedback.FLAG_AFTER`` times since a person last looked,
    each with the feedback notes as its evidence: a person decides (edit, archive, or call it helpful)."""
    return [QueueItem(memory=get_memory(db, memory_id), evidence=feedback.notes(db, memory_id))
            for memory_id in feedback.flagged_ids(db, scope_id)]


def human_actions(memory: dict) -> list[str]:
    """The transitions a person may apply to this row in its current state (the transition table), in table order."""
    return [action for action in HUMAN_ACTIONS if memory["lifecycle"] in TRANSITIONS[action].from_states]


def decide(db: sqlite_utils.Database, decision: str, memory_ids: list[int], principal: Principal,
           reason: str | None = None) -> tuple[list[int], list[tuple[int, str]]]:
    """Promote or reject several candidates, each in its own transaction: one refusal does not undo the rest.

    Returns the ids decided and, for the others, why not.
    """
    if decision not in BATCH_DECISIONS:
        raise InvalidInput(f"a batch decision is {' or '.join(BATCH_DECISIONS)}, not {decision!r}")
    done, refused = [], []
    for memory_id in memory_ids:
        try:
            getattr(lifecycle, decision)(db, memory_id, principal, reason=reason)
        except ScopeRecallError as error:
            refused.append((memory_id, str(error)))
        else:
            done.append(memory_id)
    return done, refused
