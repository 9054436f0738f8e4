"""``scope-recall entities list|probe|related``: the entity index as one identity may read it (the same
visibility as ``search``: active rows of its scopes only)."""

from __future__ import annotations

import click

from scope_recall_engine.cli.options import emit, identity_options, json_option, load_config, open_db
from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.reading import entities as index
from scope_recall_engine.truth.entity_rules import KINDS
from scope_recall_engine.truth.visibility import view_of


@hookimpl
def register_commands(cli):
    cli.add_command(entities)


@click.group()
def entities():
    """People, pets, places, organisations, projects and tools the memories mention."""


def entity_command(function):
    """An ``entities`` subcommand about one ENTITY: identity flags, --limit, --json."""
    for option in reversed([entities.command(name=function.__name__), identity_options,
                            click.option("--limit", default=10, show_default=True,
                                         type=click.IntRange(1, index.MAX_LIMIT)),
                            json_option, click.argument("entity")]):
        function = option(function)
    return function


def _line(entry: dict) -> str:
    return f"{entry['entity']} ({entry['kind']}): {entry['memories']} memories"


@entities.command(name="list")
@identity_options
@click.option("--kind", type=click.Choice(KINDS))
@click.option("--limit", default=index.MAX_LIMIT, show_default=True, type=click.IntRange(1, 10_000))
@json_option
def list_(identity, kind, limit, as_json):
    """Entities this identity's memories mention, most mentioned first."""
    found = index.listing(open_db(), view_of(identity, load_config()), limit, kind)
    emit(found, as_json, "\n".join(map(_line, found)) or "no entities")


@entity_command
def probe(identity, limit, as_json, entity):
    """The memories this identity may see that mention ENTITY, newest first."""
    found = index.probe(open_db(), view_of(identity, load_config()), entity, limit)
    emit(found, as_json, "\n".join(f"[{m['id']}] {m['target']}: {m['content']}" for m in found["memories"])
         or f"no memory mentions {entity}")


@entity_command
def related(identity, limit, as_json, entity):
    """Entities that share memories with ENTITY, with how many."""
    found = index.related(open_db(), view_of(identity, load_config()), entity, limit)
    emit(found, as_json, "\n".join(map(_line, found["related"])) or f"nothing comes up with {entity}")
