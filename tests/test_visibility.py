"""The SQL visibility predicate answers as the design states it, for every kind of row."""

import itertools
import json

from scope_recall_engine.truth.visibility import VISIBLE, View

SCOPES = ("scope-a", "scope-b")
T0, T1, T2 = "2026-01-01T00:00:00.000000+00:00", "2026-06-01T00:00:00.000000+00:00", "2026-12-01T00:00:00.000000+00:00"


def expected(row: dict, view: View) -> bool:
    """The rule in words: active (or superseded, for an explicit past moment), in the view's scopes, valid at
    the moment, human-reviewed when only trusted rows count."""
    at = view.at
    return ((row["lifecycle"] == "active" or (row["lifecycle"] == "superseded" and at is not None))
            and row["scope_id"] in view.scopes
            and (row["valid_from"] is None or row["valid_from"] <= at)
            and (row["valid_to"] is None or row["valid_to"] > at)
            and (not view.trusted_only or row["review_state"] == "human_reviewed"))


def test_sql_predicate_matches_the_rule(db):
    rows = []
    for n, (lifecycle, scope, valid_from, valid_to, review) in enumerate(itertools.product(
            ("candidate", "active", "archived", "rejected", "superseded", "purged"),
            ("scope-a", "scope-b", "scope-c"), (None, T0, T2), (None, T1, T2),
            ("human_reviewed", "agent_asserted", "auto"))):
        rows.append({"id": n, "lifecycle": lifecycle, "scope_id": scope, "valid_from": valid_from,
                     "valid_to": valid_to, "review_state": review})
    db.execute("create temp table m (id, lifecycle, scope_id, valid_from, valid_to, review_state)")
    db.conn.executemany("insert into m values (:id, :lifecycle, :scope_id, :valid_from, :valid_to, :review_state)",
                        rows)
    seen_visible = 0
    for view in (View(SCOPES, at=T1), View(SCOPES, at=T0), View(("scope-c",), at=T2),
                 View(SCOPES, at=T1, trusted_only=True)):
        sql_ids = {r[0] for r in db.execute(f"select id from m where {VISIBLE}", view.params())}
        python_ids = {row["id"] for row in rows if expected(row, view)}
        assert sql_ids == python_ids
        seen_visible += len(sql_ids)
    assert seen_visible > 0  # the comparison covered visible rows, not only empty sets


def test_params_carry_scopes_as_json(db):
    params = View(("a|b", "c'd")).params()
    assert json.loads(params["visible_scopes"]) == ["a|b", "c'd"]
