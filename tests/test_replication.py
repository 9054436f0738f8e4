"""Replication with Litestream against moto's S3 server on 127.0.0.1: the restore drill, and bad input."""

import hashlib
import itertools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from console_kit import free_port
from s3_kit import replicate_until_synced

from scope_recall_engine import config, objectstore, replication
from scope_recall_engine.cli.main import cli
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import lifecycle

SCOPE_RECALL = str(Path(sys.executable).with_name("scope-recall"))
_buckets = itertools.count()

# The writer: stores memories until killed, printing each id once lifecycle.store has returned (committed).
WRITER = """
import sys, time
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import lifecycle
db, n = connect(sys.argv[1]), 0
while True:
    row = lifecycle.store(db, Identity(user="alice"), "memory", f"alice noted fact number {n}", human("drill"))
    print(row.id, flush=True)
    n += 1
    time.sleep(0.02)
"""


def run(*args):
    return CliRunner().invoke(cli, list(args))


def _store(path: Path, texts=("alice drinks green tea",)) -> Path:
    config.save(path, config.Config(embedding_model="scope-recall-hash"))
    db = connect(path)
    for text in texts:
        lifecycle.store(db, Identity(user="alice"), "memory", text, human("tester"))
    db.close()
    return path


@pytest.fixture
def bucket(s3):
    return s3.bucket(f"drill-{os.getpid()}-{next(_buckets)}")


def _wait_for(condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)
    return found


def test_restore_drill_loses_nothing_acknowledged_before_the_last_sync(s3, bucket, tmp_path):
    store = _store(tmp_path / "writer" / "memory.sqlite3")
    location = objectstore.parse(f"s3://{bucket}/store", s3.endpoint)
    litestream = subprocess.Popen([SCOPE_RECALL, "--db", str(store), "replicate", "--to", location.url,
                                   "--endpoint", s3.endpoint, "--sync-interval", "0.5"],
                                  start_new_session=True, stderr=subprocess.DEVNULL)
    writer = None
    try:
        _wait_for(lambda: replication.status(store, location).last_sync)
        time.sleep(1.1)  # the replica's clock counts whole seconds: a moment clear of the first sync and the writer
        before_writer = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        time.sleep(1.1)
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(store)], stdout=subprocess.PIPE, text=True)
        acknowledged = {}  # id -> when the test saw it committed (after the commit)
        while len(acknowledged) < 30:
            acknowledged[int(writer.stdout.readline())] = time.time()
        checkpoint = time.time()  # the writer goes on writing while a sync after these 30 ships
        _wait_for(lambda: replication.status(store, location).last_sync.timestamp() > checkpoint + 1)
        # the machine is lost: writer and Litestream die at once, mid-stream
        writer.kill()
        os.killpg(litestream.pid, signal.SIGKILL)
        lost_at = time.time()
        acknowledged |= {int(line): lost_at for line in writer.stdout}  # printed before the kill
    finally:
        for process in (writer, litestream):
            if process is not None and process.poll() is None:
                process.kill()
    last_sync = replication.status(store, location).last_sync.timestamp()
    before = {i for i, at in acknowledged.items() if at < last_sync}
    assert len(before) >= 30  # the drill means something: writes were acknowledged before the last sync

    restored = tmp_path / "second-machine" / "memory.sqlite3"
    result = run("restore", "--from", location.url, "--endpoint", s3.endpoint, "--db", str(restored))
    assert result.exit_code == 0, result.output
    db = connect(restored)
    rows = {row["id"]: row["content"] for row in db["memories"].rows}
    assert before <= set(rows)
    assert all(rows[i] == f"alice noted fact number {i - 2}" for i in rows if i > 1)  # the first is the setup's
    as_of = tmp_path / "point-in-time" / "memory.sqlite3"  # the store as it was before the writer started
    result = run("restore", "--from", location.url, "--endpoint", s3.endpoint, "--db", str(as_of), "--timestamp",
                 before_writer)
    assert result.exit_code == 0 and connect(as_of)["memories"].count == 1, result.output
    doctor = run("--db", str(restored), "doctor")
    assert doctor.exit_code == 0, doctor.output
    assert "no index yet" in doctor.output  # the companion stayed behind: every row is queued for the next drain
    assert run("--db", str(restored), "index", "drain").exit_code == 0
    assert run("--db", str(restored), "doctor").exit_code == 0


def test_doctor_reports_the_replicas_last_sync(s3, bucket, tmp_path):
    store = _store(tmp_path / "memory.sqlite3")
    location = objectstore.parse(f"s3://{bucket}/store", s3.endpoint)
    assert "replication: not configured" in run("--db", str(store), "doctor").output
    config.save(store, config.Config(embedding_model="scope-recall-hash", replica_url=location.url,
                                     object_store_endpoint=s3.endpoint))
    missing = run("--db", str(store), "doctor")
    assert missing.exit_code == 1 and "holds no backup of this store yet" in missing.output
    replicate_until_synced(store, location)
    report = run("--db", str(store), "doctor")
    assert report.exit_code == 0 and "replication: s3://" in report.output and "last successful sync" in report.output


def _one_line_error(result, *, needle: str, secrets: tuple[str, ...]) -> None:
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in result.output, result.stderr
    assert not any(secret in result.output for secret in secrets)


def test_bad_input_is_one_line_exit_1_no_credentials_and_nothing_overwritten(s3, bucket, tmp_path, monkeypatch):
    source = _store(tmp_path / "writer" / "memory.sqlite3", ["alice drinks green tea", "alice owns a kayak"])
    url = f"s3://{bucket}/store"
    assert run("--db", str(source), "replicate", "--to", "s3://no-such-bucket/x", "--endpoint",
               s3.endpoint).exit_code == 1
    location = objectstore.parse(url, s3.endpoint)
    replicate_until_synced(source, location)
    target = _store(tmp_path / "other" / "memory.sqlite3", ["bob keeps bees"])
    before = hashlib.sha256(target.read_bytes()).hexdigest()
    good = ("--from", url, "--endpoint", s3.endpoint, "--db", str(target))

    _one_line_error(run("restore", *good), needle="already holds a store", secrets=(s3.secret,))
    _one_line_error(run("restore", "--from", url, "--endpoint", f"http://127.0.0.1:{free_port()}", "--db",
                        str(tmp_path / "new.sqlite3"), "--force"), needle="cannot reach", secrets=(s3.secret,))
    _one_line_error(run("restore", "--from", "s3://no-such-bucket/store", "--endpoint", s3.endpoint, "--db",
                        str(target), "--force"), needle="bucket no-such-bucket does not exist", secrets=(s3.secret,))
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret-123")
    _one_line_error(run("restore", *good, "--force"), needle="refused AWS_SECRET_ACCESS_KEY",
                    secrets=(s3.secret, "not-the-secret-123"))
    _one_line_error(run("--db", str(source), "replicate", "--to", url, "--endpoint", s3.endpoint),
                    needle="refused AWS_SECRET_ACCESS_KEY", secrets=(s3.secret, "not-the-secret-123"))
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIANOBODY")
    _one_line_error(run("restore", *good, "--force"), needle="does not know the access key", secrets=(s3.secret,))
    assert hashlib.sha256(target.read_bytes()).hexdigest() == before  # nothing overwritten by any of them
    assert not list(target.parent.glob(".*restoring*"))

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3.key_id)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3.secret)
    replaced = run("restore", *good, "--force")  # control: the same command with --force and good credentials
    assert replaced.exit_code == 0, replaced.output
    contents = {row["content"] for row in connect(target)["memories"].rows}
    assert contents == {"alice drinks green tea", "alice owns a kayak"}


def test_litestream_gets_the_ca_bundle_as_ssl_cert_file(monkeypatch):
    monkeypatch.setenv("AWS_CA_BUNDLE", "/etc/ssl/bundle.pem")
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    env = replication.environment()
    assert "AWS_CA_BUNDLE" not in env and env["SSL_CERT_FILE"] == "/etc/ssl/bundle.pem"
    monkeypatch.setenv("SSL_CERT_FILE", "/etc/ssl/mine.pem")  # an operator's own choice is kept
    assert replication.environment()["SSL_CERT_FILE"] == "/etc/ssl/mine.pem"
