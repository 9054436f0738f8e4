"""What an agent may be told about its own memory: counts by target and lifecycle in its own scopes, what it can
recall, and whether the vector companion keeps up. Never another scope's numbers: every count is narrowed to the
caller's scopes (recallable ones through the visibility predicate)."""

from __future__ import annotations

import json

from scope_recall_engine.companion import vectors
from scope_recall_engine.reading import entities
from scope_recall_engine.reading.ledger import visible_counts
from scope_recall_engine.truth.visibility import View

_IN_SCOPES = "m.scope_id in (select value from json_each(:scopes))"


def stats(db, own_scopes: tuple[str, ...], view: View) -> dict:
    """Counts in ``own_scopes`` (the identity's local and shared scopes) and the companion's health for them."""
    scopes = {"scopes": json.dumps(list(own_scopes))}
    by_target: dict[str, dict[str, int]] = {}
    for target, state, count in db.execute(f"select m.target, m.lifecycle, count(*) from memories m where "
                                           f"{_IN_SCOPES} and m.lifecycle != 'purged' group by 1, 2", scopes):
        by_target.setdefault(target, {})[state] = count
    return {"by_target": by_target, "recallable": visible_counts(db, view),
            "entities": len(entities.listing(db, view, limit=10**9)), "companion": companion(db, scopes)}


def companion(db, scopes: dict) -> dict:
    """The vector companion as it serves these scopes: model, rows still waiting, and whether search is degraded
    to its word lanes (no index yet, built with another model, or rows flagged for repair)."""
    model, built, index_model = vectors.model_id(db), vectors.exists(db), vectors.index_model(db)
    pending, repairs = (db.execute(f"select count(distinct t.memory_id) from {table} t join memories m on "
                                   f"m.id = t.memory_id where {_IN_SCOPES}", scopes).fetchone()[0]
                        for table in ("vector_outbox", "vector_repairs"))
    why = ("no vector index yet" if not built else f"index built with {index_model}" if index_model != model
           else f"{repairs} memories flagged for repair" if repairs else None)
    return {"model": model, "built": built, "pending": pending, "degraded": why is not None,
            **({"why": why} if why else {})}
