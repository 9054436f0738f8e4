"""Memory commands: store, import, export, search, history."""

from __future__ import annotations

import json

import click

from scope_recall_engine.cli.options import emit, identity_options, json_option, load_config, open_db
from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth.principals import agent, human
from scope_recall_engine.truth.scope import TARGETS
from scope_recall_engine.truth.store import history as memory_history
from scope_recall_engine.truth.store import parse_time
from scope_recall_engine.truth.visibility import readable_scopes, view_of
from scope_recall_engine.writing import lifecycle, transfer


@hookimpl
def register_commands(cli):
    for command in (store, import_, export, search, history):
        cli.add_command(command)


@click.command()
@identity_options
@click.option("--target", type=click.Choice(TARGETS), required=True)
@click.option("--by", "by", help="Store as human:NAME (human-reviewed) instead of as the agent.")
@json_option
@click.argument("text")
def store(identity, target, by, as_json, text):
    """Store TEXT as an active memory (the user asked to keep it)."""
    principal = human(by) if by is not None else agent(identity.agent)
    result = lifecycle.store(open_db(create=True), identity, target, text, principal)
    emit(result.as_dict(), as_json, f"{result.status}: memory {result.id} ({result.lifecycle})")


@click.command(name="import")
@identity_options
@json_option
@click.argument("file", type=click.File("r", encoding="utf-8"))
def import_(identity, as_json, file):
    """Import JSON Lines {"content", "target"} as candidates for review."""
    records = transfer.parse_lines(file)
    result = transfer.import_records(open_db(create=True), identity, records)
    for skip in result["skipped"]:
        click.echo(f"skipped line {skip['line']}: {skip['reason']}", err=True)
    emit(result if result["skipped"] else {"ids": result["ids"]}, as_json,
         f"imported {len(result['ids'])} candidates, skipped {len(result['skipped'])}")


@click.command()
@identity_options
@click.argument("file", type=click.File("w", encoding="utf-8"), default="-")
def export(identity, file):
    """Export the identity's memories (every lifecycle but purged) as JSON Lines."""
    for row in transfer.export_rows(open_db(), readable_scopes(identity, load_config())):
        file.write(json.dumps(row, ensure_ascii=False) + "\n")


@click.command()
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
    view = view_of(identity, load_config(), at=parse_time(as_of) if as_of else None, trusted_only=trusted_only)
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


@click.command()
@click.argument("memory_id", type=int)
@json_option
def history(memory_id, as_json):
    """Versions and audit events of one memory."""
    data = memory_history(open_db(), memory_id)
    lines = [f"v{v['version']} {v['at']} {v['principal']}: {v['content']}" for v in data["versions"]]
    lines += [f"{e['at']} {e['principal']} {e['action']} {e['from_state'] or '-'} -> {e['to_state'] or '-'}"
              + (f" ({e['reason']})" if e["reason"] else "") for e in data["audit"]]
    emit(data, as_json, "\n".join(lines))


