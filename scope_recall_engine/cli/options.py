"""What every command family shares: the store this invocation names, identity flags, JSON output."""

from __future__ import annotations

import functools
import json

import click

from scope_recall_engine import config as settings
from scope_recall_engine.errors import NotFound
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect


def open_db(*, create: bool = False):
    """The store this invocation names. Only commands that add memories or turns ``create`` it: a read or a
    diagnosis of a mistyped or unexpected path must fail, not pass as a new, healthy, empty store."""
    path = db_path()
    if not create and not path.exists():
        raise NotFound(f"no store at {path} (chosen by {db_source()}; name another with --db or SCOPE_RECALL_DB)")
    return connect(path)


def db_path():
    """The store path the group resolved once for this invocation."""
    return click.get_current_context().find_root().obj["db_path"]


def db_source() -> str:
    """What chose the store: --db, $SCOPE_RECALL_DB, $HERMES_HOME or the default."""
    return click.get_current_context().find_root().obj["db_source"]


def load_config() -> settings.Config:
    """config.json beside the store this invocation uses."""
    return settings.load(db_path())


def identity_options(command):
    """Add the identity flags and hand the command one ``identity`` argument built from them."""
    options = [
        click.option("--user", required=True, help="User id (required, non-empty)."),
        click.option("--platform", default="cli", show_default=True),
        click.option("--agent", "agent_id", default="default", show_default=True),
        click.option("--workspace", default="hermes", show_default=True),
        click.option("--chat"), click.option("--thread"), click.option("--session"),
    ]

    @functools.wraps(command)
    def wrapper(user, platform, agent_id, workspace, chat, thread, session, **kwargs):
        identity = Identity(user=user, platform=platform, agent=agent_id, workspace=workspace, chat=chat,
                            thread=thread, session=session)
        return command(identity=identity, **kwargs)

    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


def emit(data, as_json: bool, human_text: str | None = None) -> None:
    if as_json or human_text is None:
        click.echo(json.dumps(data, ensure_ascii=False))
    else:
        click.echo(human_text)


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def progress_bar(label: str, total: int):
    """A progress bar on stderr, so stdout stays the command's output."""
    import sys

    return click.progressbar(length=total, label=label, file=sys.stderr)
