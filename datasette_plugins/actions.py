"""The routes that act: each calls an engine transition on Datasette's write thread as ``human:<login>``.

Reject and purge cannot be undone, so they go through a confirmation page (a post without ``confirm=yes`` is sent
there). A refused edit, supersede, reject or purge shows its page again with what the operator typed and why it
was refused; other refusals come back as a message on the page the operator came from.
"""

from __future__ import annotations

import urllib.parse

from datasette.utils.asgi import BadRequest, Response

from datasette_plugins.db import drain_soon, read, write
from datasette_plugins.pages import memory_or_404, row_path
from datasette_plugins.permissions import ACT, require
from datasette_plugins.web import BASE, MAX_ID, flash, local_path, memory_id
from scope_recall_engine.errors import InvalidInput, ScopeRecallError
from scope_recall_engine.truth import store
from scope_recall_engine.truth.principals import human
from scope_recall_engine.writing import lifecycle, review_queue

CONTENT_ACTIONS = ("edit", "supersede")
CONFIRMED = ("reject", "purge")  # irreversible: asked to confirm on their own page
PAST = {"promote": "promoted", "reject": "rejected"}
MAX_BATCH = 200  # ids in one batch decision: a page of the queue holds far fewer
REFUSALS_SHOWN = 3  # a batch's refusals listed one by one; the rest are counted


def apply(db, action: str, memory: int, principal, form: dict) -> dict:
    content = (form.get("content") or "",) if action in CONTENT_ACTIONS else ()
    reason = lifecycle.check_reason(action, form.get("reason"))
    return getattr(lifecycle, action)(db, memory, principal, *content, reason=reason)


def outcome(action: str, memory: int, row: dict) -> str:
    if action == "supersede":
        return f"Memory {memory} superseded by memory {row['id']}."
    if action == "edit":
        return f"Memory {memory} saved as version {row['version']}."
    return f"Memory {memory} is now {row['lifecycle']}."


async def memory_action(request, datasette):
    memory, action = memory_id(request.url_vars["memory_id"]), request.url_vars["action"]
    await require(datasette, request, ACT)
    if request.method != "POST":
        return await decision_page(request, datasette, memory, action, dict(request.args))
    form = await request.post_vars()
    next_path = local_path(form.get("next"), row_path(datasette, memory))
    if action in CONFIRMED and form.get("confirm") != "yes":
        query = urllib.parse.urlencode({"next": next_path})
        return Response.redirect(datasette.urls.path(f"{BASE}/memories/{memory}/{action}") + "?" + query)
    try:
        row = await write(datasette, apply, action, memory, human(request.actor["id"]), form)
    except ScopeRecallError as error:
        if action in CONTENT_ACTIONS + CONFIRMED:
            return await decision_page(request, datasette, memory, action, form, str(error), status=422)
        flash(datasette, request, f"Could not {action} memory {memory}: {error}", datasette.ERROR)
        return Response.redirect(next_path)
    flash(datasette, request, outcome(action, memory, row), datasette.INFO)
    drain_soon(datasette)
    if action == "supersede" and not form.get("next"):
        next_path = row_path(datasette, row["id"])
    return Response.redirect(next_path)


async def decision_page(request, datasette, memory: int, action: str, form: dict, error: str | None = None,
                        status: int = 200) -> Response:
    """The page of one decision: confirm a reject or purge, or write an edit or supersede; with what the operator
    typed and the refusal, when the engine refused it."""
    if action not in CONFIRMED + CONTENT_ACTIONS:
        return Response.text("Use the buttons on the memory's page (they POST).", status=405)
    row = await memory_or_404(datasette, memory)
    possible = action in review_queue.human_actions(row)
    return Response.html(await datasette.render_template("scope_recall_decide.html", {
        "memories": [row], "action": action, "possible": possible, "error": error, "base": BASE,
        "post_to": datasette.urls.path(f"{BASE}/memories/{memory}/{action}"),
        "content": form.get("content", row["content"] if action == "edit" else ""), "reason": form.get("reason", ""),
        "next": local_path(form.get("next"), row_path(datasette, memory)), "ids": [],
        "row_url": lambda m: row_path(datasette, m),
    }, request=request), status=status if possible else 409)


def batch_ids(values: list[str]) -> list[int]:
    if len(values) > MAX_BATCH:
        raise BadRequest(f"at most {MAX_BATCH} memories in one decision")
    return [int(value) for value in values if value.isdigit() and len(value) <= 19 and int(value) <= MAX_ID]


async def review_decide(request, datasette):
    """Promote or reject a checked batch; each memory in its own transaction, so one refusal spoils nothing."""
    await require(datasette, request, ACT)
    if request.method != "POST":
        return Response.text("POST only", status=405)
    form = urllib.parse.parse_qs((await request.post_body()).decode("utf-8"), keep_blank_values=True)
    first = {key: values[0] for key, values in form.items()}
    decision = first.get("decision", "")
    if decision not in review_queue.BATCH_DECISIONS:
        raise BadRequest(f"decision must be one of {', '.join(review_queue.BATCH_DECISIONS)}")
    ids = batch_ids(form.get("ids", []))
    back = local_path(first.get("next"), datasette.urls.path(f"{BASE}/review"))
    if not ids:
        flash(datasette, request, "Nothing checked: tick the candidates to decide.", datasette.WARNING)
        return Response.redirect(back)
    try:
        reason = lifecycle.check_reason(decision, first.get("reason"))
    except InvalidInput as error:
        if decision != "reject":
            flash(datasette, request, f"Nothing {PAST[decision]}: {error}", datasette.ERROR)
            return Response.redirect(back)
        return await batch_page(request, datasette, ids, first, back, str(error), 422)
    if decision == "reject" and first.get("confirm") != "yes":
        return await batch_page(request, datasette, ids, first, back)
    done, refused = await write(datasette, review_queue.decide, decision, ids, human(request.actor["id"]), reason)
    report(datasette, request, decision, done, refused)
    return Response.redirect(back)


def report(datasette, request, decision: str, done: list[int], refused: list[tuple[int, str]]) -> None:
    if done:
        flash(datasette, request, f"{PAST[decision].capitalize()} memories {', '.join(map(str, done))}.",
              datasette.INFO)
        drain_soon(datasette)
    for memory, message in refused[:REFUSALS_SHOWN]:
        flash(datasette, request, f"Could not {decision} memory {memory}: {message}", datasette.ERROR)
    if len(refused) > REFUSALS_SHOWN:
        others = ", ".join(str(memory) for memory, _ in refused[REFUSALS_SHOWN:])
        flash(datasette, request, f"Could not {decision} memories {others} either.", datasette.ERROR)


async def batch_page(request, datasette, ids: list[int], form: dict, back: str, error: str | None = None,
                     status: int = 200) -> Response:
    """Confirm a batch rejection: the checked candidates, the reason, and what rejecting means."""
    rows = await read(datasette, _existing, ids)
    return Response.html(await datasette.render_template("scope_recall_decide.html", {
        "memories": rows, "action": "reject", "possible": True, "error": error, "base": BASE,
        "post_to": datasette.urls.path(f"{BASE}/review/decide"), "content": "", "reason": form.get("reason", ""),
        "next": back, "ids": [row["id"] for row in rows], "row_url": lambda m: row_path(datasette, m),
    }, request=request), status=status)


def _existing(db, ids: list[int]) -> list[dict]:
    rows = []
    for memory in ids:
        try:
            rows.append(store.get_memory(db, memory))
        except ScopeRecallError:
            continue
    return rows
