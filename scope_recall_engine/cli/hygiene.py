"""``scope-recall hygiene`` (a read-only report for the operator) and ``scope-recall dedupe --apply`` (archive
exact duplicates the operator names). Operator commands: nothing here is offered to the model."""

from __future__ import annotations

import click

from scope_recall_engine.cli.options import emit, json_option, open_db
from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.truth.principals import human
from scope_recall_engine.writing import hygiene as cleanup


@hookimpl
def register_commands(cli):
    for command in (hygiene, dedupe):
        cli.add_command(command)


SECTIONS = {  # title, and how one item reads
    "exact_duplicates": ("Exact duplicates", lambda d: f"keep #{d['keep']}, archive {d['archive']}: "
                                                      f"{d['content']!r} -> `{d['command']}`"),
    "near_duplicates": ("Near duplicates (proposed merges)",
                        lambda d: f"#{d['ids'][0]} and #{d['ids'][1]} ({d['similarity']}): keep "
                                  f"#{d['proposed']['keep']} worded {d['proposed']['content']!r}"),
    "short": ("Very short rows", lambda d: f"#{d['id']} ({d['chars']} chars): {d['content']!r}"),
    "long": ("Very long rows", lambda d: f"#{d['id']} ({d['chars']} chars): {d['content'][:80]!r}..."),
    "noise": ("Runtime noise and assistant prose", lambda d: f"#{d['id']} ({d['why']}): {d['content']!r}"),
    "stale_candidates": ("Stale candidates", lambda d: f"#{d['id']} waiting since {d['created_at']}: "
                                                      f"{d['content']!r}"),
    "decay": ("Decay proposals", lambda d: f"#{d['id']} archive: score {d['score']}, {d['recalls']} recalls, "
                                           f"idle {d['idle_days']} days"),
    "general_in_companion": ("Scratch (general) rows in the vector companion", lambda d: f"#{d}"),
}


def markdown(report: dict) -> str:
    lines = [f"# Hygiene report ({report['memories']} live memories)", ""]
    for key, (title, item) in SECTIONS.items():
        lines += [f"## {title} ({len(report[key])})", ""]
        lines += [f"- {item(entry)}" for entry in report[key]] or ["none"]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


@click.command()
@json_option
@click.option("--markdown", "as_markdown", is_flag=True, help="Print the report as Markdown.")
def hygiene(as_json, as_markdown):
    """Read-only report of what may need cleaning: duplicates, noise, stale and decaying rows."""
    found = cleanup.report(open_db())
    if as_json:
        emit(found, True)
    elif as_markdown:
        click.echo(markdown(found), nl=False)
    else:
        click.echo("\n".join(f"{title}: {len(found[key])}" for key, (title, _) in SECTIONS.items()))


@click.command()
@click.option("--apply", "apply_ids", type=int, multiple=True, required=True, metavar="ID",
              help="An exact duplicate to archive (repeat, or list several after it).")
@click.option("--by", required=True, help="Your name: recorded as human:NAME.")
@json_option
@click.argument("more_ids", type=int, nargs=-1)
def dedupe(apply_ids, by, as_json, more_ids):
    """Archive exact duplicates you name (from scope-recall hygiene); each keeps a twin, restore undoes it."""
    rows = cleanup.dedupe(open_db(), [*apply_ids, *more_ids], human(by))
    emit([{"id": row["id"], "lifecycle": row["lifecycle"]} for row in rows], as_json,
         "\n".join(f"archived memory {row['id']} (restore: scope-recall review restore {row['id']} --by NAME)"
                   for row in rows))
