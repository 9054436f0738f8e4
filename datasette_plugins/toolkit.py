"""The console's toolkit routes: feedback on a memory, merge and unmerge (each as ``human:<login>``, through the
engine, behind the guard's Origin and CSRF checks), and a recall explained from its ledger row."""

from __future__ import annotations

import json

from datasette.utils.asgi import NotFound, Response

from datasette_plugins.db import drain_soon, read, write
from datasette_plugins.pages import row_path
from datasette_plugins.permissions import ACT, VIEW, require
from datasette_plugins.web import BASE, flash, local_path, memory_id
from scope_recall_engine.errors import ScopeRecallError
from scope_recall_engine.reading.explain import explain
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import feedback, lifecycle

POST_ONLY = "Use the forms on the memory's page (they POST)."


async def _memory_form(request, datasette) -> tuple[int, dict | None]:
    """The memory the URL names and the posted form (None for a GET), once the operator may act."""
    memory = memory_id(request.url_vars["memory_id"])
    await require(datasette, request, ACT)
    return memory, (await request.post_vars() if request.method == "POST" else None)


async def feedback_action(request, datasette):
    """A person's "helpful" / "unhelpful" with a note; their "helpful" also settles a flagged memory."""
    memory, form = await _memory_form(request, datasette)
    if form is None:
        return Response.text(POST_ONLY, status=405)
    try:
        said = await write(datasette, _record, memory, form.get("verdict", ""), human(request.actor["id"]),
                           form.get("note"))
    except ScopeRecallError as error:
        flash(datasette, request, f"Could not record feedback on memory {memory}: {error}", datasette.ERROR)
    else:
        flash(datasette, request, f"Memory {memory}: {said['helpful']} helpful, {said['unhelpful']} unhelpful "
                                  f"(ranking offset {said['trust_offset']:+.2f} sd).", datasette.INFO)
    return Response.redirect(local_path(form.get("next"), row_path(datasette, memory)))


def _record(db, memory: int, verdict: str, principal, note: str | None) -> dict:
    return feedback.record(db, memory, verdict, principal, note=note, surface="console")


async def merge_action(request, datasette):
    """Merge the memory whose page posted with the ids typed beside it into one new memory."""
    memory, form = await _memory_form(request, datasette)
    if form is None:
        return Response.text(POST_ONLY, status=405)
    others = [int(part) for part in form.get("ids", "").replace(",", " ").replace("#", " ").split()
              if part.isdigit() and len(part) <= 19]
    try:
        new = await write(datasette, _merge, [memory, *others], human(request.actor["id"]), form.get("content") or "",
                          form.get("reason"))
    except ScopeRecallError as error:
        flash(datasette, request, f"Could not merge: {error}", datasette.ERROR)
        return Response.redirect(row_path(datasette, memory))
    flash(datasette, request, f"Merged into memory {new['id']}.", datasette.INFO)
    drain_soon(datasette)
    return Response.redirect(row_path(datasette, new["id"]))


def _merge(db, ids: list[int], principal, content: str, reason: str | None) -> dict:
    return lifecycle.merge(db, ids, principal, content, reason=lifecycle.check_reason("merge", reason))


async def unmerge_action(request, datasette):
    memory, form = await _memory_form(request, datasette)
    if form is None:
        return Response.text(POST_ONLY, status=405)
    try:
        await write(datasette, _unmerge, memory, human(request.actor["id"]), form.get("reason"))
    except ScopeRecallError as error:
        flash(datasette, request, f"Could not undo merge {memory}: {error}", datasette.ERROR)
    else:
        flash(datasette, request, f"Merge {memory} undone: its sources are active again.", datasette.INFO)
        drain_soon(datasette)
    return Response.redirect(row_path(datasette, memory))


def _unmerge(db, memory: int, principal, reason: str | None) -> dict:
    return lifecycle.unmerge(db, memory, principal, reason=lifecycle.check_reason("unmerge", reason))


async def explain_page(request, datasette):
    """One recall from the ledger, asked again now with the same scopes: each candidate's scores and the rule
    that admitted or abstained it, and what each visibility predicate kept out (counts only)."""
    await require(datasette, request, VIEW)
    event_id = memory_id(request.url_vars["event_id"])
    event = await read(datasette, _event, event_id)
    if event is None:
        raise NotFound(f"no recall with id {event_id}")
    report = None
    if event["query"]:
        report = await read(datasette, explain, View(tuple(json.loads(event["scope_ids"]))), event["query"])
    return Response.html(await datasette.render_template("scope_recall_explain.html", {
        "event": event, "report": report, "base": BASE, "row_url": lambda m: row_path(datasette, m),
        "ranked": json.loads(event["ranked_ids"] or "[]"), "packed": json.loads(event["packed_ids"] or "[]"),
    }, request=request))


def _event(db, event_id: int) -> dict | None:
    return next(iter(db["recall_events"].rows_where("id = ?", [event_id])), None)
