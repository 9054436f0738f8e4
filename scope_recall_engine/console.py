"""The operator console's commands: ``serve`` (Datasette on a live store), ``demo`` and ``hash-password``.

Datasette would name a database after its file stem; the console builds the Datasette object itself so the
store is always database ``memory`` (the name metadata.yml, the plugin and the templates use), served mutable
(WAL, live) rather than immutable, so the plugin's audited actions can write through Datasette's write thread.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
import tempfile
from pathlib import Path

import click

from .errors import ConfigError
from .store import connect, default_path

# A checkout (or editable install) keeps them beside the package; a regular install puts them in share/.
ROOT = next((p for p in (Path(__file__).resolve().parent.parent, Path(sys.prefix) / "share" / "scope-recall")
             if (p / "metadata.yml").exists()), Path(__file__).resolve().parent.parent)
METADATA = ROOT / "metadata.yml"
TEMPLATES = ROOT / "templates"
DATABASE = "memory"
PASSWORD_ENV = {"admin": "SCOPE_RECALL_ADMIN_PASSWORD_HASH", "viewer": "SCOPE_RECALL_VIEWER_PASSWORD_HASH"}
SETTINGS = {"allow_download": False, "default_page_size": 50}


def load_metadata(path: str | os.PathLike | None = None) -> dict:
    import yaml

    path = Path(path or METADATA)
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as error:
        raise ConfigError(f"cannot read console metadata {path}: {error}") from None


def build(db_path: str | os.PathLike, metadata: dict | None = None, secret: str | None = None):
    """A Datasette serving the store (created and migrated first) as database ``memory``."""
    from datasette.app import Datasette
    from datasette.database import Database

    connect(db_path).close()
    datasette = Datasette(
        [], metadata=load_metadata() if metadata is None else metadata, template_dir=str(TEMPLATES),
        settings=SETTINGS, secret=secret or os.environ.get("DATASETTE_SECRET") or secrets.token_hex(32),
    )
    datasette.remove_database("_memory")
    datasette.add_database(Database(datasette, path=str(Path(db_path).resolve()), is_mutable=True), name=DATABASE)
    return datasette


def run(datasette, host: str, port: int) -> None:
    import uvicorn

    asyncio.run(datasette.invoke_startup())
    uvicorn.run(datasette.app(), host=host, port=port, log_level="warning", lifespan="on")


def _missing_accounts() -> list[str]:
    return [name for name, env in PASSWORD_ENV.items() if not os.environ.get(env)]


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

    from .demo import seed

    if db_path and Path(db_path).exists():
        raise ConfigError(f"{db_path} exists: the demo seeds a new store; remove it or choose another path")
    db_path = Path(db_path or Path(tempfile.mkdtemp(prefix="scope-recall-demo-")) / "demo.sqlite3")
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
