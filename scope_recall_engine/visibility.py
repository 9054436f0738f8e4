"""The one rule for what may reach a model: active, in the accessible scope set, valid at the query time.

``VISIBLE`` is the SQL every read lane uses (vector hits count only once re-read from SQLite under it);
``is_visible`` is its Python twin, held to the same answers by tests, for code that judges a row in hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .store import now

# Superseded rows only for an explicit past moment (search --as-of), and only inside their window. The unary
# "+" keeps SQLite from reaching rows through the lifecycle/validity indexes (most rows are active and open-ended):
# the scope (or the row id, when the caller names rows) is always the narrow way in.
VISIBLE = (
    "(+m.lifecycle = 'active' OR (+m.lifecycle = 'superseded' AND :visible_as_of = 1))"
    " AND m.scope_id IN (SELECT value FROM json_each(:visible_scopes))"
    " AND (+m.valid_from IS NULL OR +m.valid_from <= :visible_at)"
    " AND (+m.valid_to IS NULL OR +m.valid_to > :visible_at)"
    " AND (:visible_trusted_only = 0 OR +m.review_state = 'human_reviewed')"
)


@dataclass(frozen=True)
class View:
    """Whose eyes a read is for: scopes, the moment, and whether only human-reviewed rows count."""

    scopes: tuple[str, ...]
    at: str | None = None
    trusted_only: bool = False

    def params(self) -> dict:
        return {
            "visible_scopes": json.dumps(list(self.scopes)),
            "visible_at": self.at or now(),
            "visible_as_of": int(self.at is not None),
            "visible_trusted_only": int(self.trusted_only),
        }


def is_visible(row: dict, view: View) -> bool:
    at = view.at or now()
    return (
        (row["lifecycle"] == "active" or (row["lifecycle"] == "superseded" and view.at is not None))
        and row["scope_id"] in view.scopes
        and (row["valid_from"] is None or row["valid_from"] <= at)
        and (row["valid_to"] is None or row["valid_to"] > at)
        and (not view.trusted_only or row["review_state"] == "human_reviewed")
    )
