"""The console's commands, joined to ``scope-recall`` through the engine's ``register_commands`` hook: ``serve``
(Datasette on a live store), ``demo`` (a seeded store, served) and ``hash-password``."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import click

from datasette_plugins.server import PASSWORD_ENV, build, load_metadata, run
from scope_recall_engine.errors import ConfigError
from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.truth.store import default_path


@hookimpl
def register_commands(cli):
    for command in (serve, demo, hash_password):
        cli.add_command(command)


def _missing_accounts() -> list[str]:
    return [name for name, env in PASSWORD_ENV.items() if not os.environ.get(env)]


def _port_free(host: str, port: int) -> None:
    """Refuse before doing anything else (seeding a demo store, migrating a store) if the port is taken: the
    server would fail only after printing instructions for another server."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as error:
            raise ConfigError(f"cannot serve on {host}:{port}: {error.strerror or error}; "
                              "is another server running there? Choose another --port") from None


host_option = click.option("--host", default="127.0.0.1", show_default=True)
port_option = click.option("--port", default=8001, show_default=True, type=int)


@click.command()
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="Store file (default: the CLI's --db); "
              "with --replica, where to keep the replica's copy (must not exist; default: a temporary directory).")
@host_option
@port_option
@click.option("--metadata", "metadata_path", type=click.Path(dir_okay=False, exists=True),
              help="Datasette metadata (accounts, roles, facets); default: the bundled metadata.yml.")
@click.option("--replica", "replica_url", help="Serve a read-only replica of the store replicated to "
              "s3://BUCKET/PREFIX (restored here, then kept fresh by Litestream).")
@click.option("--endpoint", help="The replica's S3-compatible endpoint (credentials from the environment).")
@click.option("--read-only", is_flag=True, help="Serve the store without writing it (e.g. a restored copy).")
@click.pass_context
def serve(ctx, db_path, host, port, metadata_path, replica_url, endpoint, read_only):
    """Serve the store in Datasette: read-only browsing, password login, audited review actions (none on a
    replica: decisions go to the writer's console)."""
    missing = _missing_accounts()
    if len(missing) == len(PASSWORD_ENV) and not metadata_path:
        raise ConfigError("no operator can log in: set SCOPE_RECALL_ADMIN_PASSWORD_HASH (and/or "
                          "SCOPE_RECALL_VIEWER_PASSWORD_HASH) to a hash from `scope-recall hash-password`")
    _port_free(host, port)
    if replica_url:
        return _serve_replica(replica_url, endpoint, db_path, host, port, load_metadata(metadata_path))
    db_path = db_path or (ctx.obj or {}).get("db_path") or default_path()
    why = (f"This console serves {db_path} without writing it: review decisions go to the writer's console."
           if read_only else None)
    datasette = build(db_path, load_metadata(metadata_path), read_only=why)
    click.echo(f"Scope Recall console on http://{host}:{port}/ (store {db_path}{', read-only' if why else ''}); "
               "log in at /-/login")
    run(datasette, host, port)


def _serve_replica(url: str, endpoint: str | None, copy: str | None, host: str, port: int, metadata: dict) -> None:
    """Restore the replica, keep it fresh with ``litestream restore -f`` while serving it read-only."""
    from scope_recall_engine import objectstore, replication

    location = objectstore.parse(url, endpoint)
    with contextlib.ExitStack() as cleanup:  # on the way out: stop the follower, then drop a copy of our making
        if not copy:
            scratch = tempfile.mkdtemp(prefix="scope-recall-replica-")
            cleanup.callback(shutil.rmtree, scratch, ignore_errors=True)
            copy = Path(scratch) / "memory.sqlite3"
        follower = replication.follow(location, copy)
        cleanup.callback(_stop, follower)
        # uvicorn re-raises the SIGTERM it stopped on: as SystemExit here, so the cleanup runs
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        why = (f"This console serves a replica of {location.url}, kept fresh by Litestream: review decisions go to "
               "the writer's console.")
        datasette = build(copy, metadata, read_only=why)
        click.echo(f"Scope Recall replica console on http://{host}:{port}/ (copy of {location.url} at {copy}); "
                   "log in at /-/login")
        run(datasette, host, port)


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


@click.command(name="hash-password")
@click.password_option(help="The password to hash (prompted twice when not given).")
def hash_password(password):
    """Print a password hash for SCOPE_RECALL_ADMIN_PASSWORD_HASH / SCOPE_RECALL_VIEWER_PASSWORD_HASH."""
    from datasette_auth_passwords.utils import hash_password as make_hash

    click.echo(make_hash(password))


@click.command()
@click.option("--db", "db_path", type=click.Path(dir_okay=False),
              help="Where to create the demo store (must not exist; default: a fresh temporary directory).")
@host_option
@port_option
def demo(db_path, host, port):
    """Seed a realistic demo store and serve it, with demo passwords printed here."""
    from datasette_auth_passwords.utils import hash_password as make_hash

    if db_path and Path(db_path).exists():
        raise ConfigError(f"{db_path} exists: the demo seeds a new store; remove it or choose another path")
    _port_free(host, port)
    db_path = Path(db_path or Path(tempfile.mkdtemp(prefix="scope-recall-demo-")) / "demo.sqlite3")
    from datasette_plugins.demo import seed

    summary = seed(db_path)
    passwords = {name: secrets.token_urlsafe(9) for name in PASSWORD_ENV}
    for name, env in PASSWORD_ENV.items():
        os.environ[env] = make_hash(passwords[name])
    click.echo(f"Seeded {db_path}: {summary}")
    click.echo(f"Open http://{host}:{port}/-/scope-recall/review")
    click.echo(f"  log in as admin  / {passwords['admin']}   (may promote, reject, edit, purge)")
    click.echo(f"  or as    viewer  / {passwords['viewer']}   (may browse)")
    click.echo("Ctrl-C stops the server; the store stays where it is.")
    run(build(db_path), host, port)
