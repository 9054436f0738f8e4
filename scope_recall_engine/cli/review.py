"""``scope-recall review``: list memories and apply a person's decisions."""

from __future__ import annotations

import click

from scope_recall_engine.cli.options import emit, identity_options, json_option, load_config, open_db
from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.store import get_memory
from scope_recall_engine.truth.visibility import readable_scopes
from scope_recall_engine.writing import lifecycle


@hookimpl
def register_commands(cli):
    cli.add_command(review)


@click.group()
def review():
    """List memories and apply a person's decisions."""


@review.command(name="list")
@identity_options
@click.option("--lifecycle", "state", type=click.Choice(lifecycle.STATES))
@json_option
def review_list(identity, state, as_json):
    """Rows of the identity's scopes (all lifecycles unless --lifecycle)."""
    rows = [{key: row[key] for key in ("id", "content", "lifecycle", "target", "scope_id", "review_state",
                                       "origin", "created_at")}
            for row in lifecycle.rows_in(open_db(), readable_scopes(identity, load_config()), state)]
    emit(rows, as_json, "\n".join(f"[{r['id']}] {r['lifecycle']:<10} {r['target']:<8} {r['content']}"
                                  for r in rows) or "nothing")


def decision_options(command):
    """ID, --by NAME (recorded as human:NAME), --reason and --json: what every review decision takes."""
    for option in reversed([click.argument("memory_id", type=int),
                            click.option("--by", required=True, help="Your name: recorded as human:NAME."),
                            click.option("--reason"), json_option]):
        command = option(command)
    return command


def _decision(action):
    @decision_options
    def command(memory_id, by, reason, as_json):
        row = getattr(lifecycle, action)(open_db(), memory_id, human(by), reason=reason)
        _print_row(row, as_json)

    command.__doc__ = f"{action.capitalize()} memory ID as human:NAME."
    return review.command(name=action)(command)


for _action in ("promote", "reject", "archive", "restore", "purge"):
    _decision(_action)


@review.command()
@decision_options
@click.argument("text")
def edit(memory_id, by, reason, as_json, text):
    """Write a new version of memory ID (the prior version is kept)."""
    _print_row(lifecycle.edit(open_db(), memory_id, human(by), text, reason=reason), as_json)


@review.command()
@decision_options
@click.argument("text")
def supersede(memory_id, by, reason, as_json, text):
    """Replace active memory ID with TEXT from now on; the old one's validity window is closed."""
    db = open_db()
    new = lifecycle.supersede(db, memory_id, human(by), text, reason=reason)
    emit({"id": new["id"], "lifecycle": new["lifecycle"], "supersedes": memory_id,
          "superseded": _summary(get_memory(db, memory_id))}, as_json,
         f"memory {new['id']} now active; memory {memory_id} superseded")


def _summary(row: dict) -> dict:
    return {key: row[key] for key in ("id", "lifecycle", "target", "scope_id", "content", "version",
                                      "review_state", "valid_from", "valid_to")}


def _print_row(row: dict, as_json: bool) -> None:
    emit(_summary(row), as_json, f"memory {row['id']}: {row['lifecycle']} (version {row['version']})")


