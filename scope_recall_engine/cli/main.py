"""The ``scope-recall`` group. Every command joins it through the ``register_commands`` hook: the CLI's own
families below, and the console, the Hermes provider and the benchmarks from their packages' entry points."""

from __future__ import annotations

import sqlite3
import sys

import click

from scope_recall_engine.cli import (
    doctor,
    entities,
    hygiene,
    index,
    memories,
    replication,
    review,
    toolkit,
    write_path,
)
from scope_recall_engine.errors import ScopeRecallError
from scope_recall_engine.plugins import load_plugins
from scope_recall_engine.truth.store import resolve_path

COMMAND_FAMILIES = (memories, review, write_path, index, doctor, entities, hygiene, toolkit, replication)


class EngineGroup(click.Group):
    """Map engine refusals, and a store that cannot be opened or written, to exit code 1 with the message on
    stderr, never a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except ScopeRecallError as error:
            click.echo(f"Error: {error}", err=True)
            sys.exit(error.exit_code)
        except (sqlite3.Error, OSError) as error:
            click.echo(f"Error: the store {ctx.obj['db_path']} could not be used: {error}", err=True)
            sys.exit(1)


@click.group(cls=EngineGroup)
@click.option("--db", "db_path", type=click.Path(dir_okay=False),
              help="Store file (default $SCOPE_RECALL_DB, else $HERMES_HOME/scope-recall/memory.sqlite3 when "
                   "HERMES_HOME is set, else ~/.scope-recall/memory.sqlite3).")
@click.option("-v", "--verbose", is_flag=True, help="Say on stderr which store this command uses and why.")
@click.version_option(package_name="scope-recall")
@click.pass_context
def cli(ctx, db_path, verbose):
    """Scoped, auditable long-term memory for LLM agents."""
    path, source = resolve_path(db_path)  # resolved once, for every command of this invocation
    ctx.obj = {"db_path": path, "db_source": source}
    if verbose:
        click.echo(f"store: {path} (chosen by {source})", err=True)


def _register_commands() -> None:
    plugins = load_plugins()
    for family in COMMAND_FAMILIES:
        if not plugins.is_registered(family):
            plugins.register(family)
    plugins.hook.register_commands(cli=cli)


_register_commands()
