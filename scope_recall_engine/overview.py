"""The store at a glance, for the operator console's landing page: what waits for a person, what people decided,
what the store holds, whether recall uses it, and whether the digest and the vector companion keep up.

Read-only and cheap (counts and small groupings, no vector table scan), so the page can be opened all day.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from scope_recall_engine.companion import vectors
from scope_recall_engine.truth.store import before
from scope_recall_engine.writing import govern, journal
from scope_recall_engine.writing.review_queue import HUMAN_ACTIONS

DAYS = 14  # the window of the per-day charts


@dataclass
class Overview:
    waiting: int
    oldest: dict | None  # the candidate that has waited longest: id, content, created_at
    decisions: list[dict]  # {day, action, decisions} for the last DAYS days, human principals only
    lifecycles: dict[str, int]  # memories per lifecycle state
    targets: dict[str, dict[str, int]]  # target -> lifecycle -> memories
    recalled: int  # active memories recalled at least once
    never_recalled: int  # active memories no recall ever packed
    recalls: list[dict]  # {day, recalls, misses} for the last DAYS days
    backlog: int  # journal entries waiting for the digest
    last_run: dict | None  # the latest digest run: status, started_at, finished_at, error
    last_failure: dict | None  # the latest failed digest run
    vectors: dict = field(default_factory=dict)  # built, model, queued, flagged for repair


def overview(db) -> Overview:
    since = before(timedelta(days=DAYS))
    oldest = db.execute("select id, content, created_at from memories where lifecycle = 'candidate' "
                        "order by created_at, id limit 1").fetchone()
    usage = govern.report(db)
    return Overview(
        waiting=db.execute("select count(*) from memories where lifecycle = 'candidate'").fetchone()[0],
        oldest=dict(zip(("id", "content", "created_at"), oldest)) if oldest else None,
        decisions=_rows(db, f"""select substr(at, 1, 10) as day, action, count(*) as decisions from audit_events
            where principal_kind = 'human' and at >= ? and action in ({', '.join('?' for _ in HUMAN_ACTIONS)})
            group by day, action order by day, action""", [since, *HUMAN_ACTIONS]),
        lifecycles=dict(db.execute("select lifecycle, count(*) from memories group by 1 order by 2 desc")),
        targets=_targets(db),
        recalled=sum(1 for u in usage if u.recalls), never_recalled=sum(1 for u in usage if not u.recalls),
        recalls=_rows(db, """select substr(at, 1, 10) as day, count(*) as recalls,
            sum(miss_reason is not null) as misses from recall_events where at >= ? group by day order by day""",
                      [since]),
        backlog=journal.backlog(db),
        last_run=_one(db, "select id, status, started_at, finished_at, error from digest_runs order by id desc"),
        last_failure=_one(db, "select id, status, started_at, finished_at, error from digest_runs "
                              "where status = 'failed' order by id desc"),
        vectors={"built": vectors.exists(db), "model": vectors.model_id(db), "queued": vectors.pending(db),
                 "repairs": db.execute("select count(distinct memory_id) from vector_repairs").fetchone()[0]},
    )


def _rows(db, sql: str, params: list) -> list[dict]:
    cursor = db.execute(sql, params)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _one(db, sql: str) -> dict | None:
    rows = _rows(db, sql + " limit 1", [])
    return rows[0] if rows else None


def _targets(db) -> dict[str, dict[str, int]]:
    targets: dict[str, dict[str, int]] = {}
    for target, state, count in db.execute("select target, lifecycle, count(*) from memories group by 1, 2"):
        targets.setdefault(target, {})[state] = count
    return dict(sorted(targets.items(), key=lambda item: -sum(item[1].values())))
