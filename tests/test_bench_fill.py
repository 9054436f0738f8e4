"""``bench recall`` fills what it reports: every row, distinct within its scope, each with a companion row."""

import random

import pytest

from scope_recall_bench import bench
from scope_recall_engine import config
from scope_recall_engine.companion import embedders, vectors


@pytest.mark.parametrize("rows, scopes", [(1000, 1), (1001, 3)])
def test_fill_writes_every_row_it_reports(db, db_path, rows, scopes):
    config.save(db_path, config.Config(embedding_model=embedders.HASH_MODEL_ID))
    rng = random.Random(1)
    texts = bench.pool(300, rng)  # fewer sentences than one scope's rows: later rounds are marked takes
    identities, timings = bench.fill(db, rows, scopes, texts, rng)
    assert db["memories"].count == rows and len(identities) == scopes
    per_scope = db.execute("select count(*), count(distinct content_hash) from memories group by scope_id").fetchall()
    assert sorted(count for count, _ in per_scope) == sorted(rows // scopes + (i < rows % scopes)
                                                             for i in range(scopes))
    assert all(count == distinct for count, distinct in per_scope)
    report = vectors.check(db)
    assert report.ok and report.indexed == rows and timings["truth_seconds"] > 0
