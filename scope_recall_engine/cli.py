"""The ``scope-recall`` command line: a thin adapter over the engine's functions."""

from __future__ import annotations

import functools
import json
import sqlite3
import sys
from pathlib import Path

import click

from . import config as settings
from . import lifecycle, retrieval, transfer
from .errors import NotFound, ScopeRecallError
from .principals import agent, human
from .scope import TARGETS, Identity
from .store import connect, default_path, get_memory, history as memory_history, parse_time
from .visibility import View


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
@click.option("--db", "db_path", type=click.Path(dir_okay=False), envvar="SCOPE_RECALL_DB",
              help="Store file (default $SCOPE_RECALL_DB, else ~/.scope-recall/memory.sqlite3).")
@click.version_option(package_name="scope-recall")
@click.pass_context
def cli(ctx, db_path):
    """Scoped, auditable long-term memory for LLM agents."""
    ctx.obj = {"db_path": Path(db_path).expanduser() if db_path else default_path()}  # resolved once, for all


def open_db(*, existing: bool = False):
    """The store this invocation names; ``existing`` for diagnostics, where a mistyped path must not pass as a
    new, healthy, empty store."""
    path = click.get_current_context().obj["db_path"]
    if existing and not path.exists():
        raise NotFound(f"no store at {path} (check --db or SCOPE_RECALL_DB)")
    return connect(path)


def load_config() -> settings.Config:
    """config.json beside the store this invocation uses."""
    return settings.load(click.get_current_context().obj["db_path"])


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


@cli.command()
@identity_options
@click.option("--target", type=click.Choice(TARGETS), required=True)
@click.option("--by", "by", help="Store as human:NAME (human-reviewed) instead of as the agent.")
@json_option
@click.argument("text")
def store(identity, target, by, as_json, text):
    """Store TEXT as an active memory (the user asked to keep it)."""
    principal = human(by) if by is not None else agent(identity.agent)
    result = lifecycle.store(open_db(), identity, target, text, principal)
    emit(result.as_dict(), as_json, f"{result.status}: memory {result.id} ({result.lifecycle})")


@cli.command(name="import")
@identity_options
@json_option
@click.argument("file", type=click.File("r", encoding="utf-8"))
def import_(identity, as_json, file):
    """Import JSON Lines {"content", "target"} as candidates for review."""
    records = transfer.parse_lines(file)
    result = transfer.import_records(open_db(), identity, records)
    for skip in result["skipped"]:
        click.echo(f"skipped line {skip['line']}: {skip['reason']}", err=True)
    emit(result if result["skipped"] else {"ids": result["ids"]}, as_json,
         f"imported {len(result['ids'])} candidates, skipped {len(result['skipped'])}")


@cli.command()
@identity_options
@click.argument("file", type=click.File("w", encoding="utf-8"), default="-")
def export(identity, file):
    """Export the identity's memories (every lifecycle but purged) as JSON Lines."""
    for row in transfer.export_rows(open_db(), identity):
        file.write(json.dumps(row, ensure_ascii=False) + "\n")


@cli.command()
@identity_options
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 100))
@click.option("--as-of", "as_of", help="Recall what was valid at this ISO-8601 time.")
@click.option("--trusted-only", is_flag=True, help="Only human-reviewed memories.")
@click.option("--batch", type=click.File("r", encoding="utf-8"), help="One query per line; JSON Lines out.")
@json_option
@click.argument("query", required=False)
def search(identity, limit, as_of, trusted_only, batch, as_json, query):
    """Search the memories this identity may see."""
    if (query is None) == (batch is None):
        raise click.UsageError("give either QUERY or --batch FILE")
    db = open_db()
    view = View(identity.accessible(tuple(load_config().scope_aliases)), at=parse_time(as_of) if as_of else None,
                trusted_only=trusted_only)
    if batch:
        for line in batch:
            line = line.rstrip("\n")
            result = retrieval.search(db, view, line, limit)
            hits = [hit.as_dict() for hit in result]
            click.echo(json.dumps({"query": line, "hits": hits, **({"degraded": True} if result.degraded else {})},
                                  ensure_ascii=False))
        return
    result = retrieval.search(db, view, query, limit)
    if result.degraded:
        click.echo(f"degraded: lexical lanes only; vector lane {result.lanes['vector']}", err=True)
    hits = [hit.as_dict() for hit in result]
    text = "\n".join(f"[{h['id']}] {h['score']:.3f} {h['target']}: {h['content']}" for h in hits) or "no match"
    emit(hits, as_json, text)


@cli.command()
@click.argument("memory_id", type=int)
@json_option
def history(memory_id, as_json):
    """Versions and audit events of one memory."""
    data = memory_history(open_db(), memory_id)
    lines = [f"v{v['version']} {v['at']} {v['principal']}: {v['content']}" for v in data["versions"]]
    lines += [f"{e['at']} {e['principal']} {e['action']} {e['from_state'] or '-'} -> {e['to_state'] or '-'}"
              + (f" ({e['reason']})" if e["reason"] else "") for e in data["audit"]]
    emit(data, as_json, "\n".join(lines))


@cli.group()
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
            for row in lifecycle.rows_in(open_db(), identity.accessible(), state)]
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


@cli.command()
@click.option("--repair", is_flag=True, help="First rebuild what can be rebuilt from truth (FTS indexes).")
@json_option
def doctor(repair, as_json):
    """Check the store's health; exit 1 on any problem, naming the repair command."""
    from . import doctor as health

    db = open_db(existing=True)
    if repair:
        click.echo(f"rebuilt: {', '.join(health.repair(db))}", err=True)
    checks = health.run(db)
    emit({"ok": all(c.ok for c in checks), "checks": [c.as_dict() for c in checks]}, as_json,
         "\n".join(f"{'ok ' if c.ok else 'BAD'} {c.name}: {c.detail}"
                   + (f"\n    repair: {c.repair}" if c.repair else "")
                   for c in checks))
    if not all(c.ok for c in checks):
        sys.exit(1)


from .write_commands import register_write_commands  # noqa: E402  (journal, digest, govern)
register_write_commands(cli)

from .bench_group import bench  # noqa: E402  (scope-recall bench: each benchmark joins the group in bench_group.py)
cli.add_command(bench)

from .console import demo, hash_password, serve  # noqa: E402  (operator console: Datasette imported lazily)
for _command in (serve, demo, hash_password):
    cli.add_command(_command)

from .hermes import hermes_group  # noqa: E402  (scope-recall hermes install|verify)
cli.add_command(hermes_group)

from . import evals, vectors  # noqa: E402  (index drain|check|rebuild, eval locomo|negative)
for _group in (vectors.index_group(), evals.eval_group()):
    cli.add_command(_group)
