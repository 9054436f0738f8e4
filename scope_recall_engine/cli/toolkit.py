"""The memory toolkit on the command line: context, feedback, merge and unmerge, explain, inspect, and the
review queue's memories flagged by feedback."""

from __future__ import annotations

import click

from scope_recall_engine import inspection
from scope_recall_engine.cli.options import emit, identity_options, json_option, load_config, open_db
from scope_recall_engine.cli.review import review
from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.reading import context as context_block
from scope_recall_engine.reading import explain as explaining
from scope_recall_engine.reading import trust
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.store import parse_time
from scope_recall_engine.truth.visibility import view_of
from scope_recall_engine.writing import feedback as opinions
from scope_recall_engine.writing import lifecycle, review_queue


@hookimpl
def register_commands(cli):
    for command in (context, feedback, merge, unmerge, explain, inspect):
        cli.add_command(command)
    review.add_command(flagged)


@click.command()
@identity_options
@click.option("--budget", default=context_block.DEFAULT_BUDGET, show_default=True,
              type=click.IntRange(context_block.MIN_BUDGET, context_block.MAX_BUDGET), help="Characters in all.")
@json_option
@click.argument("query")
def context(identity, budget, as_json, query):
    """The context block the agent's scope_recall_context tool gets for QUERY (one ledger row, surface cli)."""
    block = context_block.block(open_db(), view_of(identity, load_config()), query, budget=budget, surface="cli")
    emit(block, as_json, block["context"] or f"nothing ({block['miss_reason']})")


@click.command()
@click.argument("memory_id", type=int)
@click.argument("verdict", type=click.Choice(trust.VERDICTS))
@click.option("--by", required=True, help="Your name: recorded as human:NAME.")
@click.option("--note", help="Why (kept with the feedback, redacted like the journal).")
@json_option
def feedback(memory_id, verdict, by, note, as_json):
    """Record that memory ID was helpful or unhelpful. It moves ranking within bounds, never a lifecycle;
    a person's "helpful" also clears the memory from the flagged list."""
    said = opinions.record(open_db(), memory_id, verdict, human(by), note=note, surface="cli")
    emit(said, as_json, f"memory {memory_id}: {said['helpful']} helpful, {said['unhelpful']} unhelpful, "
                        f"ranking offset {said['trust_offset']:+.2f} sd" + (" (flagged for review)"
                                                                           if said["flagged"] else ""))


@click.command()
@click.argument("memory_ids", type=int, nargs=-1, required=True)
@click.option("--content", required=True, help="The merged memory's text.")
@click.option("--by", required=True, help="Your name: recorded as human:NAME.")
@click.option("--reason")
@json_option
def merge(memory_ids, content, by, reason, as_json):
    """Merge active memories ID ID... of one scope and target into one new memory with --content; the sources
    become superseded by it (undo with `scope-recall unmerge`)."""
    new = lifecycle.merge(open_db(), list(memory_ids), human(by), content, reason=reason)
    emit({"id": new["id"], "lifecycle": new["lifecycle"], "merged": list(dict.fromkeys(memory_ids))}, as_json,
         f"memory {new['id']} now active; memories {', '.join(map(str, dict.fromkeys(memory_ids)))} superseded")


@click.command()
@click.argument("memory_id", type=int)
@click.option("--by", required=True, help="Your name: recorded as human:NAME.")
@click.option("--reason")
@json_option
def unmerge(memory_id, by, reason, as_json):
    """Undo the merge that made memory ID: it is archived and its sources are active again."""
    db = open_db()
    restored = [row["id"] for row in lifecycle.merged_sources(db, memory_id)]
    row = lifecycle.unmerge(db, memory_id, human(by), reason=reason)
    emit({"id": row["id"], "lifecycle": row["lifecycle"], "restored": restored}, as_json,
         f"memory {memory_id} archived; memories {', '.join(map(str, restored))} active again")


@click.command()
@identity_options
@click.option("--limit", default=explaining.MAX_CANDIDATES, show_default=True, type=click.IntRange(1, 50))
@click.option("--as-of", "as_of", help="Explain recall as of this ISO-8601 time.")
@click.option("--trusted-only", is_flag=True, help="Only human-reviewed memories count.")
@json_option
@click.argument("query")
def explain(identity, limit, as_of, trusted_only, as_json, query):
    """Why recall returns what it does for QUERY: each candidate's lane scores, relevance and the rule that
    admitted or abstained it, and how many other rows each visibility predicate kept out (counts only)."""
    view = view_of(identity, load_config(), at=parse_time(as_of) if as_of else None, trusted_only=trusted_only)
    report = explaining.explain(open_db(), view, query, limit)
    emit(report, as_json, explanation_text(report))


def explanation_text(report: dict) -> str:
    lanes = ", ".join(f"{lane} {state}" for lane, state in report["lanes"].items())
    miss = f" ({report['miss_reason']})" if report["miss_reason"] else ""
    language = f"; words weighed in {report['language']} too" if report.get("language") else ""
    read_as = f"; read as {report['read_as']!r}" if report.get("read_as") else ""
    lines = [f"query {report['query']!r}: {report['admitted']} admitted{miss}" + (f"; lanes: {lanes}" if lanes else "")
             + read_as + language]
    for c in report["candidates"]:
        scores = " ".join(f"{lane}={score:g}" for lane, score in c["lanes"].items())
        lines.append(f"{c['rank']:>2}. #{c['id']} {c['target']} · {c['review_state']}: {scores}; relevance "
                     f"{c['relevance']:.3f}, evidence {c['evidence']:.2f} (trust {c['trust']:+.2f})\n    {c['why']}")
    kept_out = ", ".join(f"{count} by {predicate}" for predicate, count in report["excluded"].items())
    lines.append(f"rows with the query's words kept out: {kept_out or 'none'}")
    return "\n".join(lines)


@click.command()
@click.argument("memory_id", type=int)
@json_option
def inspect(memory_id, as_json):
    """Everything about memory ID: versions, audit events, feedback, merge links and recall history."""
    data = inspection.inspect(open_db(), memory_id)
    emit(data, as_json, inspection_text(data))


def inspection_text(data: dict) -> str:
    memory, said, recalls = data["memory"], data["feedback"], data["recalls"]
    lines = [f"memory {memory['id']}: {memory['lifecycle']} {memory['target']} · {memory['review_state']} · "
             f"version {memory['version']} · origin {memory['origin']}", f"  {memory['content']}"]
    if data["merged_from"]:
        lines.append(f"merged from: {', '.join(f'#{i}' for i in data['merged_from'])}")
    lines += [f"v{v['version']} {v['at']} {v['principal']}: {v['content']}" for v in data["versions"]]
    lines += [f"{e['at']} {e['principal']} {e['action']} {e['from_state'] or '-'} -> {e['to_state'] or '-'}"
              + (f" ({e['reason']})" if e["reason"] else "") for e in data["audit"]]
    lines.append(f"feedback: {said['helpful']} helpful, {said['unhelpful']} unhelpful, ranking offset "
                 f"{said['trust_offset']:+.2f} sd" + (", flagged for review" if said["flagged"] else ""))
    lines += [f"  {f['at']} {f['principal']} {f['verdict']}" + (f": {f['note']}" if f["note"] else "")
              for f in said["events"]]
    lines.append(f"recalls: ranked {recalls['ranked']} times, packed {recalls['packed']}")
    lines += [f"  {r['at']} {r['surface']} {'packed' if r['packed'] else 'ranked'}" for r in recalls["recent"]]
    return "\n".join(lines)


@click.command()
@click.option("--scope", "scope_id", help="Only this scope id.")
@json_option
def flagged(scope_id, as_json):
    """Active memories that feedback called unhelpful repeatedly since a person last looked, with the notes."""
    items = review_queue.flagged(open_db(), scope_id)
    data = [{"id": item.memory["id"], "content": item.memory["content"], "scope_id": item.memory["scope_id"],
             "feedback": item.evidence} for item in items]
    lines = [f"[{d['id']}] {d['content']}\n" + "\n".join(f"    {e['role']}: {e['content']}" for e in d["feedback"])
             for d in data]
    emit(data, as_json, "\n".join(lines) or "nothing flagged")
