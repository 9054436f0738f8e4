"""Write-path commands: ``journal add|list``, ``digest``, ``govern``."""

from __future__ import annotations

import json

import click

from scope_recall_engine.cli.options import emit, identity_options, json_option, load_config, open_db
from scope_recall_engine.errors import NoExtractor
from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.writing import govern, journal


@click.group(name="journal")
def journal_group():
    """The sanitized, redacted record of turns (provenance only, never recalled)."""


@journal_group.command(name="add")
@identity_options
@click.option("--role", type=click.Choice(journal.JOURNALED_ROLES), required=True)
@json_option
@click.argument("text")
def journal_add(identity, role, as_json, text):
    """Append one turn of session --session (noise dropped, secrets redacted before it is stored)."""
    if not identity.session:
        raise click.UsageError("--session is required for journal add")
    result = journal.append(open_db(create=True), identity, identity.session, role, text, load_config())
    emit(result.as_dict(), as_json, f"{result.status}: entry {result.id}" if result.id
         else f"dropped: {result.reason}")


@journal_group.command(name="list")
@identity_options
@click.option("--limit", default=100, show_default=True, type=click.IntRange(1, 10000))
@json_option
def journal_list(identity, limit, as_json):
    """The identity's newest entries (one chat/session if given, else all of the user's)."""
    rows = journal.entries(open_db(), identity, limit)
    emit(rows, as_json, "\n".join(f"[{r['id']}] {r['session']} {r['role']:<9} "
                                  f"{'processed' if r['processed_at'] else 'pending  '} {r['content']}"
                                  for r in rows) or "no entries")


@click.command(name="digest")
@identity_options
@click.option("--model", "model_id", help="An llm chat model id (default: digest_model in config.json).")
@click.option("--extractor", type=click.Choice(["rules"]), help="The deterministic offline extractor.")
@click.option("--dry-run", is_flag=True, help="Decide everything, write nothing.")
@json_option
def digest_command(identity, model_id, extractor, dry_run, as_json):
    """Turn the identity's unprocessed journal entries into candidate memories for review."""
    from scope_recall_engine.writing import digest  # here: the other commands skip llm and the extractors

    db, config = open_db(), load_config()
    chosen = digest.choose(extractor, model_id, config)
    if chosen is None:
        error = NoExtractor(journal.backlog(db, identity.shared_scope))
        if as_json:
            click.echo(json.dumps({"backlog": error.backlog, "error": str(error)}))
        raise error
    report = digest.run(db, chosen, shared_scope_id=identity.shared_scope, dry_run=dry_run, config=config)
    counts = ", ".join(f"{action} {n}" for action, n in sorted(report.counts.items())) or "nothing to do"
    emit(report.as_dict(), as_json, f"{'dry run: ' if dry_run else ''}{report.entries} entries, {report.facts} "
         f"facts ({counts}); backlog {report.backlog}" + (f"; run {report.run_id}" if not dry_run else ""))


@click.command(name="govern")
@click.option("--threshold", type=float, default=govern.THRESHOLD, show_default=True,
              help="Propose archiving below this decay score (uses x exp(-idle days/30)).")
@click.option("--min-idle-days", type=float, default=govern.MIN_IDLE_DAYS, show_default=True)
@click.option("--apply", "apply_", is_flag=True, help="Archive the proposals as system:decay (reversible).")
@json_option
def govern_command(threshold, min_idle_days, apply_, as_json):
    """Recall counts, last recall and decay score per active memory; propose (or --apply) archiving."""
    db = open_db()
    usages = govern.report(db, threshold=threshold, min_idle_days=min_idle_days)
    proposed = [u.id for u in usages if u.proposal]
    archived = govern.apply(db, usages) if apply_ else []
    lines = [f"[{u.id}] recalls {u.recalls:<4} idle {u.idle_days:>7.1f}d score {u.score:<8} "
             + ("archive" if u.proposal else "protected (human-reviewed)" if u.protected else "keep")
             for u in usages]
    lines.append(f"archived: {archived}" if apply_ else f"proposed for archiving: {proposed or 'none'}")
    emit({"memories": [u.as_dict() for u in usages], "proposed": proposed, "archived": archived}, as_json,
         "\n".join(lines))


@hookimpl
def register_commands(cli):
    cli.add_command(journal_group)
    cli.add_command(digest_command)
    cli.add_command(govern_command)
