"""The console's commands, joined to ``scope-recall`` through the engine's ``register_commands`` hook: ``serve``
(Datasette on a live store), ``demo`` (a seeded store, served) and ``hash-password``."""

from __future__ import annotations

import os
import secrets
import socket
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
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="Store file (default: the CLI's --db).")
@host_option
@port_option
@click.option("--metadata", "metadata_path", type=click.Path(dir_okay=False, exists=True),
              help="Datasette metadata (accounts, roles, facets); default: the bundled metadata.yml.")
@click.pass_context
def serve(ctx, db_path, host, port, metadata_path):
    """Serve the store in Datasette: read-only browsing, password login, audited review actions."""
    db_path = db_path or (ctx.obj or {}).get("db_path") or default_path()
    missing = _missing_accounts()
    if len(missing) == len(PASSWORD_ENV) and not metadata_path:
        raise ConfigError("no operator can log in: set SCOPE_RECALL_ADMIN_PASSWORD_HASH (and/or "
                          "SCOPE_RECALL_VIEWER_PASSWORD_HASH) to a hash from `scope-recall hash-password`")
    _port_free(host, port)
    datasette = build(db_path, load_metadata(metadata_path))
    click.echo(f"Scope Recall console on http://{host}:{port}/ (store {db_path}); log in at /-/login")
    run(datasette, host, port)


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
