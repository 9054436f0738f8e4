"""The one rule for what may reach a model: active, in the accessible scope set, valid at the query time.

``VISIBLE`` is the SQL every read lane uses (vector hits count only once re-read from SQLite under it);
``view_of`` is the one way a surface builds what an identity may read (its scopes plus configured aliases).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from scope_recall_engine.config import Config
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import now

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


def readable_scopes(identity: Identity, config: Config) -> tuple[str, ...]:
    """The identity's accessible set: its local and shared scopes plus the aliases config.json names."""
    return identity.accessible(tuple(config.scope_aliases))


def view_of(identity: Identity, config: Config, *, at: str | None = None, trusted_only: bool = False) -> View:
    """What an identity may read, built the same way by the CLI, the Hermes provider and the agent's tools."""
    return View(readable_scopes(identity, config), at=at, trusted_only=trusted_only)


@dataclass
class Hit:
    id: int
    content: str
    target: str
    score: float
    scope_id: str
    review_state: str

    def as_dict(self) -> dict:
        return asdict(self)


HIT_COLUMNS = "m.id, m.content, m.target, {score} as score, m.scope_id, m.review_state"


def visible_rows(db, view: View, ids) -> dict[int, tuple[Hit, str]]:
    """Rows as SQLite has them under VISIBLE, with their content hash."""
    sql = f"""select {HIT_COLUMNS.format(score="0.0")}, m.content_hash from memories m
              where m.id in (select value from json_each(:ids)) and {VISIBLE}"""
    rows = db.execute(sql, {"ids": json.dumps(list(ids)), **view.params()})
    return {row[0]: (Hit(*row[:6]), row[6]) for row in rows}
