"""One memory, everything known about it: its versions, audit events, feedback, merge links and recall history
(``scope-recall inspect ID``, the console's memory page)."""

from __future__ import annotations

from scope_recall_engine.truth.store import get_memory, history
from scope_recall_engine.writing import feedback, lifecycle

RECENT_RECALLS = 10
_CITES = "exists (select 1 from json_each({column}) where value = :id)"


def inspect(db, memory_id: int, recent: int = RECENT_RECALLS) -> dict:
    memory = get_memory(db, memory_id)
    shown = ("id", "lifecycle", "target", "scope_id", "content", "version", "review_state", "origin", "created_by",
             "created_at", "valid_from", "valid_to", "supersedes", "superseded_by")
    return {"memory": {key: memory[key] for key in shown}, **history(db, memory_id),
            "merged_from": [row["id"] for row in lifecycle.merged_sources(db, memory_id)],
            "feedback": {**feedback.summary(db, memory_id), "events": feedback.history(db, memory_id)},
            "recalls": recalls(db, memory_id, recent)}


def recalls(db, memory_id: int, recent: int = RECENT_RECALLS) -> dict:
    """How often recall ranked and packed the memory, and its latest recalls (the ledger; queries as stored)."""
    ranked, packed = _CITES.format(column="ranked_ids"), _CITES.format(column="packed_ids")
    params = {"id": memory_id, "recent": recent}
    total = db.execute(f"select count(*), coalesce(sum({packed}), 0) from recall_events where {ranked} or {packed}",
                       params).fetchone()
    rows = db.execute(f"select id, at, surface, query, {packed} as packed, miss_reason from recall_events "
                      f"where {ranked} or {packed} order by id desc limit :recent", params)
    columns = ("event", "at", "surface", "query", "packed", "miss_reason")
    return {"ranked": total[0], "packed": total[1],
            "recent": [dict(zip(columns, row)) | {"packed": bool(row[4])} for row in rows]}
