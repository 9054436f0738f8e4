"""``scope-recall doctor``: the store's health, and the repair for what is wrong."""

from __future__ import annotations

import sys

import click

from scope_recall_engine import doctor as health
from scope_recall_engine.cli.options import db_path, db_source, emit, json_option, open_db
from scope_recall_engine.hookspecs import hookimpl


@hookimpl
def register_commands(cli):
    cli.add_command(doctor)


@click.command()
@click.option("--repair", is_flag=True, help="First rebuild what can be rebuilt from truth (FTS and entity indexes).")
@json_option
def doctor(repair, as_json):
    """Check the store's health; exit 1 on any problem, naming the repair command."""
    db = open_db()
    if repair:
        click.echo(f"rebuilt: {', '.join(health.repair(db))}", err=True)
    checks = health.run(db)
    store = {"path": str(db_path()), "chosen_by": db_source()}
    emit({"ok": all(c.ok for c in checks), "store": store, "checks": [c.as_dict() for c in checks]}, as_json,
         f"store: {store['path']} (chosen by {store['chosen_by']})\n"
         + "\n".join(f"{'ok ' if c.ok else 'BAD'} {c.name}: {c.detail}"
                     + (f"\n    repair: {c.repair}" if c.repair else "")
                     for c in checks))
    if not all(c.ok for c in checks):
        sys.exit(1)


