import json

from click.testing import CliRunner

from scope_recall_engine import doctor
from scope_recall_engine.cli.main import cli
from scope_recall_engine.truth.principals import agent, human
from scope_recall_engine.writing import lifecycle


def names_failing(db):
    return {c.name for c in doctor.run(db) if not c.ok}


def seeded(db, alice):
    first = lifecycle.store(db, alice, "user", "Alice keeps a tidy garage", agent("default")).id
    lifecycle.edit(db, first, human("ops"), "Alice keeps a very tidy garage")
    return first


def test_a_healthy_store_is_clean_and_the_cli_exits_zero(db, db_path, alice):
    seeded(db, alice)
    assert names_failing(db) == set()
    result = CliRunner().invoke(cli, ["--db", str(db_path), "doctor", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["ok"] is True


def test_fts_drift_is_found_and_repaired(db, db_path, alice):
    memory_id = seeded(db, alice)
    content = db["memories"].get(memory_id)["content"]
    db.execute("insert into memories_fts(memories_fts, rowid, content) values ('delete', ?, ?)", [memory_id, content])
    db.conn.commit()
    assert "full_text_index" in names_failing(db)
    result = CliRunner().invoke(cli, ["--db", str(db_path), "doctor"])
    assert result.exit_code == 1 and "scope-recall doctor --repair" in result.stdout
    doctor.repair(db)
    assert "full_text_index" not in names_failing(db)


def test_a_write_that_bypassed_the_engine_is_reported(db, alice):
    memory_id = seeded(db, alice)
    db.execute("update memories set lifecycle = 'archived', generation = generation + 1 where id = ?", [memory_id])
    db.execute("update memories set content = 'silently rewritten' where id = ?", [memory_id])
    db.conn.commit()
    assert {"audit_coverage", "versions"} <= names_failing(db)


def test_vector_companion_drift_is_found_and_rebuild_repairs_it(db, db_path, alice):
    from scope_recall_engine import config
    from scope_recall_engine.companion import embedders, vectors

    config.save(db_path, config.Config(embedding_model=embedders.HASH_MODEL_ID))
    memory_id = seeded(db, alice)
    assert "vector_companion" not in names_failing(db)  # queued changes are converging, not a problem
    vectors.drain(db)
    assert "vector_companion" not in names_failing(db)
    vectors.connect_dir(vectors.index_dir(db)).open_table(vectors.TABLE).delete(f"id = {memory_id}")
    assert "vector_companion" in names_failing(db)
    vectors.rebuild(db)
    assert "vector_companion" not in names_failing(db)


def test_a_lost_companion_is_reported_and_rebuild_repairs_it(db, db_path, alice):
    import shutil

    from scope_recall_engine import config
    from scope_recall_engine.companion import embedders, vectors

    config.save(db_path, config.Config(embedding_model=embedders.HASH_MODEL_ID))
    seeded(db, alice)
    vectors.drain(db)
    assert "vector_companion" not in names_failing(db)  # control: drained and whole
    shutil.rmtree(vectors.index_dir(db))  # e.g. the store was copied without its .vectors directory
    assert "vector_companion" in names_failing(db)
    vectors.rebuild(db)
    assert "vector_companion" not in names_failing(db)


def test_doctor_refuses_a_path_with_no_store(tmp_path, db_path, db):
    missing = tmp_path / "typo" / "memory.sqlite3"
    result = CliRunner().invoke(cli, ["--db", str(missing), "doctor"])
    assert result.exit_code == 1 and "no store at" in result.stderr and not missing.parent.exists()
    assert CliRunner().invoke(cli, ["--db", str(db_path), "doctor"]).exit_code == 0  # control: a real store
