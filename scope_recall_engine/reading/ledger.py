"""The recall ledger (``recall_events``): one row per recall on every surface — query (redacted), ranked and
packed ids, miss reason, timing. It feeds decay, the repeat filter, and the operator's view of what recall did."""

from __future__ import annotations

import json
from datetime import timedelta

from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.truth.content import clean_query
from scope_recall_engine.truth.redaction import redact
from scope_recall_engine.truth.store import before, now, write
from scope_recall_engine.truth.visibility import VISIBLE, View

REPEAT_WINDOW = 3  # recall events of the same session whose packed memories are not shown again


def recently_recalled(db, session_key: str | None, window: int = REPEAT_WINDOW) -> set[int]:
    """Memory ids packed in this session's last few recalls: the agent still has them in context."""
    if not session_key:
        return set()
    rows = db["recall_events"].rows_where("session_key = ?", [session_key], order_by="id desc", limit=window,
                                          select="packed_ids")
    return {memory_id for row in rows for memory_id in json.loads(row["packed_ids"] or "[]")}


def record(db, view: View, query: str, *, surface: str, session_key: str | None, ranked_ids: list[int],
           packed_ids: list[int], miss_reason: str | None, degraded: bool = False, elapsed_ms: float = 0.0) -> None:
    """One measurement-ledger row per recall, on every surface. The query is stored redacted, like the journal:
    on Hermes it is the user's whole message."""
    with write(db):
        db["recall_events"].insert({
            "at": now(), "surface": surface, "query": redact(clean_query(query))[0],
            "scope_ids": json.dumps(list(view.scopes)),
            "session_key": session_key, "ranked_ids": json.dumps(ranked_ids), "packed_ids": json.dumps(packed_ids),
            "miss_reason": miss_reason, "degraded": int(degraded), "elapsed_ms": elapsed_ms,
        })


@hookimpl
def purge_memory_rows(db, memory_id: int) -> None:
    """Purge's share of the ledger: the queries that ranked the memory likely quote it, so their text goes."""
    db.execute(
        "update recall_events set query = null where query is not null and ("
        " exists (select 1 from json_each(ranked_ids) where value = :id)"
        " or exists (select 1 from json_each(packed_ids) where value = :id))", {"id": memory_id})


def prune_queries(db, retention_days: int | None, at: str | None = None) -> int:
    """Retention for the ledger's text: after ``retention_days`` only ids, reasons and timings remain."""
    if retention_days is None:
        return 0
    with write(db):
        return db.execute("update recall_events set query = null where query is not null and at < ?",
                          [before(timedelta(days=retention_days), at)]).rowcount


def visible_counts(db, view: View) -> dict[str, int]:
    """How many memories each target holds for this view: the static summary an agent may be told."""
    sql = f"select m.target, count(*) from memories m where {VISIBLE} group by m.target"
    return dict(db.execute(sql, view.params()).fetchall())
