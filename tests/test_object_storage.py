"""The vector companion on object storage (moto's S3 server on 127.0.0.1), and a replica console serving a
restored store."""

import itertools
import os
import time
import urllib.error
import urllib.parse
import urllib.request

import numpy as np
import pytest
from console_kit import PASSWORD, TOKEN, console_for, logged_in, running_console
from s3_kit import replicate_until_synced

from scope_recall_engine import config, objectstore, replication
from scope_recall_engine.companion import embedders, vectors
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.store import connect
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle

ME = human("tester")
_buckets = itertools.count()


@pytest.fixture
def remote(s3, db_path):
    """A store whose companion lives at s3://BUCKET/vectors (fast hash embedder)."""
    bucket = s3.bucket(f"companion-{os.getpid()}-{next(_buckets)}")
    config.save(db_path, config.Config(embedding_model=embedders.HASH_MODEL_ID, companion_uri=f"s3://{bucket}/vectors",
                                       object_store_endpoint=s3.endpoint))
    db = connect(db_path)
    yield db
    db.close()


def _needle(text: str) -> bytes:
    vector = np.array(embedders.embed_passages(embedders.get_model(embedders.HASH_MODEL_ID), [text])[0], np.float32)
    start = int(np.flatnonzero(vector)[0])
    return vector[start:start + 8].tobytes()


def test_companion_on_object_storage_drains_searches_checks_rebuilds_and_purges(remote, alice, db_path):
    keep, gone = (lifecycle.store(remote, alice, "memory", text, ME).id
                  for text in ("alice keeps this fact", "alice's secret door code is 4711"))
    assert vectors.drain(remote).upserted == 2
    companion = vectors.index_dir(remote)
    assert companion.remote is not None and not (db_path.parent / "memory.vectors").exists()
    objects = companion.files()
    assert any(key.endswith("/vectors/index.json") for key in objects) and len(objects) > 3
    found = retrieval.search(remote, View(alice.accessible()), "door code", 5)
    assert found.lanes["vector"] == "ok" and gone in [hit.id for hit in found.hits]
    assert vectors.check(remote).ok and vectors.rebuild(remote).rebuilt and vectors.check(remote).ok

    needle = _needle("alice's secret door code is 4711")
    assert [key for key, data in companion.files().items() if needle in data]  # control: the vector is stored
    lifecycle.purge(remote, gone, ME)
    after = companion.files()  # every object listed and read back
    assert after and not [key for key, data in after.items() if needle in data]
    assert vectors.check(remote).ok and vectors.check(remote).indexed == 1
    found = retrieval.search(remote, View(alice.accessible()), "alice keeps this fact", 5)
    assert found.lanes["vector"] == "ok" and [hit.id for hit in found.hits] == [keep]


def test_a_wrong_key_for_the_companion_degrades_search_to_lexical_and_doctor_says_so(remote, alice, db_path,
                                                                                      monkeypatch):
    from click.testing import CliRunner

    from scope_recall_engine.cli.main import cli

    lifecycle.store(remote, alice, "memory", "alice drinks green tea", ME)
    vectors.drain(remote)
    assert CliRunner().invoke(cli, ["--db", str(db_path), "doctor"]).exit_code == 0  # control
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret-123")
    found = retrieval.search(remote, View(alice.accessible()), "green tea", 5)
    assert found.hits and found.lanes["vector"] != "ok"  # lexical lanes still answer
    doctor = CliRunner().invoke(cli, ["--db", str(db_path), "doctor"])
    assert doctor.exit_code == 1 and "vector_companion" in doctor.output
    assert "not-the-secret-123" not in doctor.output


@pytest.fixture
def replicated(s3, tmp_path):
    """A writer's store replicated to the S3 server: (its path, the replica's location, a memory's id)."""
    from scope_recall_engine.truth.scope import Identity

    store = tmp_path / "writer" / "memory.sqlite3"
    config.save(store, config.Config(embedding_model=embedders.HASH_MODEL_ID))
    db = connect(store)
    memory_id = lifecycle.store(db, Identity(user="alice"), "memory", "alice drinks green tea", ME).id
    db.close()
    bucket = s3.bucket(f"replica-{os.getpid()}-{next(_buckets)}")
    location = objectstore.parse(f"s3://{bucket}/store", s3.endpoint)
    replicate_until_synced(store, location)
    return store, location, memory_id


@pytest.mark.asyncio
async def test_a_replica_console_shows_the_restored_store_and_refuses_every_action(replicated, tmp_path):
    store, location, memory_id = replicated
    restored = replication.restore(location, tmp_path / "second" / "memory.sqlite3")
    ds = await console_for(restored, read_only="Replica of the writer: decisions go to the writer's console.")
    admin = await logged_in(ds, "admin")  # logins work: they go to the replica's own small database
    page = await admin.get(f"/memory/memories/{memory_id}")
    assert page.status_code == 200 and "alice drinks green tea" in page.text
    assert "Read-only replica." in page.text and "decisions go to the writer" in page.text
    assert "/archive" not in page.text  # no action buttons
    refused = await admin.post(f"/-/scope-recall/memories/{memory_id}/archive", {"reason": "old"})
    assert refused.status_code == 403 and "decisions go to the writer" in refused.text
    assert connect(restored)["memories"].get(memory_id)["lifecycle"] == "active"  # nothing written
    assert (await admin.get("/console/console_sessions")).status_code == 403  # the logins are not browsable

    writer = await console_for(store)  # control: the writer's console shows the action and takes it
    writer_admin = await logged_in(writer, "admin")
    assert "/archive" in (await writer_admin.get(f"/memory/memories/{memory_id}")).text
    done = await writer_admin.post(f"/-/scope-recall/memories/{memory_id}/archive", {"reason": "old"})
    assert done.status_code == 302 and connect(store)["memories"].get(memory_id)["lifecycle"] == "archived"


def test_serve_replica_restores_keeps_fresh_and_serves_read_only(replicated, s3):
    from datasette_auth_passwords.utils import hash_password

    from scope_recall_engine.truth.scope import Identity

    store, location, memory_id = replicated
    env = {"SCOPE_RECALL_ADMIN_PASSWORD_HASH": hash_password(PASSWORD, iterations=1000)}
    with running_console(None, "--replica", location.url, "--endpoint", s3.endpoint, **env) as base:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        token = TOKEN.search(opener.open(base + "/-/login").read().decode()).group(1)
        form = urllib.parse.urlencode({"username": "admin", "password": PASSWORD, "csrftoken": token}).encode()
        opener.open(urllib.request.Request(base + "/-/login", data=form, headers={"Origin": base}))
        page = opener.open(f"{base}/memory/memories/{memory_id}").read().decode()
        assert "alice drinks green tea" in page and "Read-only replica." in page
        # the writer goes on: its next memory reaches the replica while it serves
        db = connect(store)
        later = lifecycle.store(db, Identity(user="alice"), "memory", "alice bought a kayak", ME).id
        db.close()
        replicate_until_synced(store, location)
        deadline = time.monotonic() + 20
        while True:
            try:
                if "alice bought a kayak" in opener.open(f"{base}/memory/memories/{later}").read().decode():
                    break
            except urllib.error.HTTPError:
                pass
            assert time.monotonic() < deadline, "the replica never caught up"
            time.sleep(0.3)


def test_companion_uri_may_name_another_directory(db, db_path, alice):
    config.save(db_path, config.Config(embedding_model=embedders.HASH_MODEL_ID, companion_uri="elsewhere/vectors"))
    memory_id = lifecycle.store(db, alice, "memory", "alice drinks green tea", ME).id
    assert vectors.drain(db).upserted == 1 and vectors.check(db).ok
    assert (db_path.parent / "elsewhere" / "vectors" / "index.json").exists()
    assert not (db_path.parent / "memory.vectors").exists()  # control: not the default place
    found = retrieval.search(db, View(alice.accessible()), "green tea", 5)
    assert found.lanes["vector"] == "ok" and [hit.id for hit in found.hits] == [memory_id]
