"""The console's Datasette app: the store served as database ``memory``, with this project's metadata and templates.

Datasette would name a database after its file stem; the console builds the Datasette object itself so the
store is always database ``memory`` (the name metadata.yml, the plugin and the templates use), served mutable
(WAL, live) rather than immutable, so the plugin's audited actions can write through Datasette's write thread.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
from pathlib import Path

from datasette_plugins.db import SESSIONS
from scope_recall_engine.errors import ConfigError
from scope_recall_engine.truth.store import check_servable, connect

# A checkout (or editable install) keeps them beside the package; a regular install puts them in share/.
ROOT = next((p for p in (Path(__file__).resolve().parent.parent, Path(sys.prefix) / "share" / "scope-recall")
             if (p / "metadata.yml").exists()), Path(__file__).resolve().parent.parent)
METADATA = ROOT / "metadata.yml"
TEMPLATES = ROOT / "templates"
DATABASE = "memory"
PASSWORD_ENV = {"admin": "SCOPE_RECALL_ADMIN_PASSWORD_HASH", "viewer": "SCOPE_RECALL_VIEWER_PASSWORD_HASH"}
STATIC = Path(__file__).resolve().parent / "static"  # the console's script and styles, package data
# No downloads of the store; no signed API tokens (a token would be a login no session table could end); facets are
# chosen in metadata.yml, not suggested from internal columns.
SETTINGS = {"allow_download": False, "default_page_size": 50, "allow_signed_tokens": False, "suggest_facets": False}


def load_metadata(path: str | os.PathLike | None = None) -> dict:
    import yaml

    path = Path(path or METADATA)
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as error:
        raise ConfigError(f"cannot read console metadata {path}: {error}") from None


def build(db_path: str | os.PathLike, metadata: dict | None = None, secret: str | None = None,
          read_only: str | None = None):
    """A Datasette serving the store (created and migrated first) as database ``memory``; or, with ``read_only``
    (why: a replica), serving it untouched, with logins kept in a small database of its own beside it."""
    from datasette.app import Datasette
    from datasette.database import Database

    metadata = load_metadata() if metadata is None else metadata
    if read_only:
        check_servable(db_path)
        plugin = metadata.setdefault("plugins", {}).setdefault("scope-recall", {})
        plugin |= {"read_only": read_only, "drain_vectors": False}
    else:
        connect(db_path).close()
    datasette = Datasette(
        [], metadata=metadata, template_dir=str(TEMPLATES),
        settings=SETTINGS, secret=secret or os.environ.get("DATASETTE_SECRET") or secrets.token_hex(32),
        static_mounts=[("-/scope-recall/static", str(STATIC))],
    )
    datasette.remove_database("_memory")
    kind = _followed_copy() if read_only else Database
    datasette.add_database(kind(datasette, path=str(Path(db_path).resolve()), is_mutable=True), name=DATABASE)
    if read_only:
        logins = sessions_path(db_path)
        connect(logins).close()
        datasette.add_database(Database(datasette, path=str(logins), is_mutable=True), name=SESSIONS)
    return datasette


def _followed_copy():
    """A Datasette database for a copy that ``litestream restore -f`` keeps fresh. Each read opens its own
    connection and closes it: a connection kept open would hold its shared lock on the copy (WAL mode), which
    stops Litestream from applying anything, and its page cache would not notice pages Litestream wrote."""
    from datasette import database

    class FollowedCopy(database.Database):
        async def execute_fn(self, fn):
            def fresh():
                conn = self.connect()
                try:
                    self.ds._prepare_connection(conn, self.name)
                    return fn(conn)
                finally:
                    conn.close()
                    self._all_file_connections.remove(conn)

            if self.ds.executor is None:
                return fresh()
            return await asyncio.get_running_loop().run_in_executor(self.ds.executor, fresh)

    return FollowedCopy


def sessions_path(db_path: str | os.PathLike) -> Path:
    path = Path(db_path).resolve()
    return path.parent / f"{path.stem}.console.sqlite3"


def run(datasette, host: str, port: int) -> None:
    import uvicorn

    asyncio.run(datasette.invoke_startup())
    uvicorn.run(datasette.app(), host=host, port=port, log_level="warning", lifespan="on")
