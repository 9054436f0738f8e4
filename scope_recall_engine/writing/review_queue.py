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
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import journal, lifecycle
from scope_recall_engine.writing.lifecycle import DENY, NEW, TRANSITIONS

NEAREST_LIMIT = 3
PAGE_SIZE = 50  # candidates per page: each shows evidence and twins, so a page stays readable
HUMAN_ACTIONS = tuple(action for action, rule in TRANSITIONS.items()  # what a person may do to an existing row
                      if rule.human != DENY and NEW not in rule.from_states)
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


def candidates(db: sqlite_utils.Database, scope_id: str | None = None, limit: int = PAGE_SIZE,
               after: int | None = None) -> list[dict]:
    """Candidates oldest first (the ones that waited longest are decided first), optionally of one scope.

    ``after`` is the id of the last candidate of the previous page: keyset paging, so deciding rows on one page
    never shifts the next page past rows nobody has seen."""
    where, params = "lifecycle = 'candidate'", []
    if scope_id:
        where += " and scope_id = ?"
        params.append(scope_id)
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
    """One page of the queue, how many wait in all, the scopes they wait in, and where the next page starts
    (None on the last page)."""

    items: list[QueueItem]
    waiting: int
    scopes: list[dict]
    next_after: int | None


def queue(db: sqlite_utils.Database, scope_id: str | None = None, limit: int = PAGE_SIZE,
          after: int | None = None) -> Page:
    """The review queue: each waiting candidate beside its evidence and its nearest active memories."""
    rows = candidates(db, scope_id, limit + 1, after)
    items = [QueueItem(memory=row, evidence=journal.sources(db, row["id"]), nearest=nearest_active(db, row))
             for row in rows[:limit]]
    scopes = waiting_scopes(db)
    waiting = sum(s["waiting"] for s in scopes if scope_id in (None, s["scope_id"]))
    return Page(items, waiting, scopes, rows[limit - 1]["id"] if len(rows) > limit else None)


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
