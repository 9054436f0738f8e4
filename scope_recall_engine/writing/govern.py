"""Usage and decay: how often each active memory was actually recalled, and which ones have gone stale.

Uses come from the recall ledger (``recall_events.packed_ids``: what reached a model). The decay score is
uses x exp(-idle days / 30); rows scoring under the threshold after a minimum idle time are proposed for
archiving (reversible). Human-reviewed rows are reported but never proposed: a person vouched for them.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from datetime import datetime

from scope_recall_engine.truth.principals import system
from scope_recall_engine.truth.store import now
from scope_recall_engine.writing import lifecycle

DECAY_DAYS = 30.0
THRESHOLD = 0.5
MIN_IDLE_DAYS = 30.0
DECAY = system("decay")


@dataclass
class Usage:
    id: int
    target: str
    review_state: str
    recalls: int
    last_recalled_at: str | None
    idle_days: float
    score: float
    proposal: str | None  # "archive" or None
    protected: bool  # human-reviewed: never archived by decay

    def as_dict(self) -> dict:
        return asdict(self)


def _days(since: str, at: str) -> float:
    return max(0.0, (datetime.fromisoformat(at) - datetime.fromisoformat(since)).total_seconds() / 86400)


def report(db, *, threshold: float = THRESHOLD, min_idle_days: float = MIN_IDLE_DAYS) -> list[Usage]:
    """Every active memory with its recall count, last recall, idle days, decay score and proposal."""
    at = now()
    rows = db.execute("""
        with uses as (
          select cast(j.value as integer) as id, count(*) as n, max(r.at) as last
          from recall_events r, json_each(coalesce(r.packed_ids, '[]')) j group by 1)
        select m.id, m.target, m.review_state, coalesce(u.n, 0), u.last, coalesce(m.valid_from, m.created_at)
        from memories m left join uses u on u.id = m.id
        where m.lifecycle = 'active' order by m.id""").fetchall()
    result = []
    for memory_id, target, review_state, uses, last, since in rows:
        idle = _days(last or since, at)
        score = uses * math.exp(-idle / DECAY_DAYS)
        protected = review_state == "human_reviewed"
        stale = not protected and score < threshold and idle >= min_idle_days
        result.append(Usage(memory_id, target, review_state, uses, last, round(idle, 2), round(score, 4),
                            "archive" if stale else None, protected))
    return result


def apply(db, usages: list[Usage]) -> list[int]:
    """Archive the proposals as system:decay (restorable by a person)."""
    archived = []
    for usage in usages:
        if usage.proposal == "archive" and not usage.protected:
            lifecycle.archive(db, usage.id, DECAY, reason=f"decay score {usage.score} after {usage.idle_days} "
                                                          f"idle days, {usage.recalls} recalls")
            archived.append(usage.id)
    return archived
