"""The SQL visibility predicate and its Python twin give the same answer for every kind of row."""

import itertools
import json

from scope_recall_engine.visibility import VISIBLE, View, is_visible

SCOPES = ("scope-a", "scope-b")
T0, T1, T2 = "2026-01-01T00:00:00.000000+00:00", "2026-06-01T00:00:00.000000+00:00", "2026-12-01T00:00:00.000000+00:00"


def test_sql_predicate_and_python_twin_agree(db):
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
        python_ids = {row["id"] for row in rows if is_visible(row, view)}
        assert sql_ids == python_ids
        seen_visible += len(sql_ids)
    assert seen_visible > 0  # the comparison covered visible rows, not only empty sets


def test_params_carry_scopes_as_json(db):
    params = View(("a|b", "c'd")).params()
    assert json.loads(params["visible_scopes"]) == ["a|b", "c'd"]
