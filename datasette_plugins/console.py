"""Scope Recall's operator console on Datasette: who may look, who may act, and the routes that act.

A thin adapter. Every route asks ``require`` (the one permission check); reads go through the engine's
``review_queue``/``store`` functions on Datasette's read connections, and writes only through the engine's
``lifecycle`` transitions on Datasette's single write thread, with ``human:<actor id>`` as principal.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import urllib.parse

import sqlite_utils
from datasette import hookimpl
from datasette.utils.asgi import Forbidden, NotFound, Response
from markupsafe import Markup

from scope_recall_engine.errors import InvalidInput, ScopeRecallError
from scope_recall_engine.truth import store
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import label
from scope_recall_engine.writing import lifecycle, review_queue

DATABASE = "memory"
PLUGIN = "scope-recall"
BASE = "/-/scope-recall"
VIEW, ACT = "view-instance", "scope-recall-act"
ROLES = {"admin": {VIEW, ACT}, "viewer": {VIEW}}
CONTENT_ACTIONS = ("edit", "supersede")
PAST = {"promote": "promoted", "reject": "rejected"}
SCOPE_COLUMNS = ("scope_id", "shared_scope_id")

_drain_lock = threading.Lock()
_background: set = set()


# --- who may do what -------------------------------------------------------------------------------------

def serves_store(datasette) -> bool:
    """Only a Datasette serving a store is locked down; another Datasette in the same environment is not."""
    return DATABASE in datasette.databases


@hookimpl
def permission_allowed(datasette, actor, action):
    """Roles come from the login's actor (``role: admin|viewer``): no role, no access; only admins act."""
    if action in (VIEW, ACT) and serves_store(datasette):
        return action in ROLES.get((actor or {}).get("role"), ())
    return None


async def require(datasette, request, action: str) -> None:
    """The one permission check every console route and form goes through."""
    if not await datasette.permission_allowed(request.actor, action, default=False):
        raise Forbidden("log in as an operator allowed to do this" if request.actor else "log in first")


@hookimpl
def startup(datasette):
    """Datasette 0.65 passes an unmatched URL's 404 to rich's ``print_exception`` outside an ``except`` block
    whenever rich is installed (hermes-agent installs it), and rich's refusal turns every 404 into a 500. The
    console prints plain tracebacks instead."""
    if serves_store(datasette):
        from datasette import handle_exception as default_handler

        default_handler.rich = None


@hookimpl
def forbidden(datasette, request):
    """The store holds personal data: anonymous browsers get the login page, never a page of data."""
    if request.actor is None and request.method == "GET" and serves_store(datasette):
        return Response.redirect(datasette.urls.path("/-/login"))
    return None


@hookimpl
def asgi_wrapper(datasette):
    """The login cookie is for the server only: HttpOnly (datasette-auth-passwords sets only SameSite=Lax), and
    Secure when the request came over TLS, so script injected into a page could not read the session."""

    def wrap(app):
        async def with_cookie_flags(scope, receive, send):
            async def flagged(message):
                if message["type"] == "http.response.start":
                    message = {**message, "headers": [_harden(name, value, scope.get("scheme") == "https")
                                                      for name, value in message.get("headers", [])]}
                await send(message)

            await app(scope, receive, flagged if scope["type"] == "http" else send)

        return with_cookie_flags

    return wrap


def _harden(name: bytes, value: bytes, tls: bool) -> tuple[bytes, bytes]:
    if name.lower() != b"set-cookie" or not value.startswith(b"ds_actor="):
        return name, value
    flags = value.lower()
    value += b"" if b"httponly" in flags else b"; HttpOnly"
    return name, value + (b"; Secure" if tls and b"secure" not in flags else b"")


@hookimpl
def menu_links(datasette, actor):
    async def inner():
        if await datasette.permission_allowed(actor, VIEW, default=False):
            return [{"href": datasette.urls.path(f"{BASE}/review"), "label": "Review queue"}]
        return []

    return inner


# --- readable scopes ---------------------------------------------------------------------------------------

def readable(scope_id):
    """A scope id as operators read it (``cli · alice · chat 42``); anything else unchanged."""
    if not isinstance(scope_id, str):
        return scope_id
    try:
        return label(scope_id)
    except InvalidInput:
        return scope_id


@hookimpl
def prepare_connection(conn, database):
    if database == DATABASE:
        store.configure(conn)
        conn.create_function("scope_label", 1, readable, deterministic=True)


def scope_span(scope_id: str) -> Markup:
    """A scope as every console page shows it: the readable label, the raw id on hover."""
    return Markup('<span class="scope" title="{}">{}</span>').format(scope_id, readable(scope_id))


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["scope_span"] = scope_span
    env.filters["facet_label"] = lambda value, column: readable(value) if column in SCOPE_COLUMNS else value


@hookimpl
def render_cell(value, column, database):
    if database == DATABASE and column in SCOPE_COLUMNS and isinstance(value, str):
        return scope_span(value)
    return None


# --- engine calls on Datasette's connections ---------------------------------------------------------------

async def read(datasette, fn, *args, **kwargs):
    return await datasette.get_database(DATABASE).execute_fn(
        lambda conn: fn(sqlite_utils.Database(conn), *args, **kwargs))


async def write(datasette, fn, *args):
    """Run an engine write on the single write thread; the engine opens and ends its own transaction."""

    def call(conn):
        try:
            return fn(sqlite_utils.Database(conn), *args)
        finally:
            if conn.in_transaction:  # 0.65's execute_write_fn would commit a half-done write later
                conn.rollback()

    return await datasette.get_database(DATABASE).execute_write_fn(call, block=True)


def drain_soon(datasette) -> None:
    """Bring the vector companion up to date off the request path, if this install has one."""
    if not (datasette.plugin_config(PLUGIN) or {}).get("drain_vectors", True):
        return
    try:
        from scope_recall_engine.companion import vectors
    except ImportError:
        return
    path = datasette.get_database(DATABASE).path
    task = asyncio.get_running_loop().run_in_executor(None, _drain, vectors, path)
    _background.add(task)
    task.add_done_callback(_background.discard)


def _drain(vectors, path) -> None:
    with _drain_lock:
        db = store.connect(path)
        try:
            vectors.drain(db)
        except Exception as error:  # recall stays correct (hits are re-verified); report and move on
            print(f"scope-recall: vector drain failed: {error}", file=sys.stderr)
        finally:
            db.close()


# --- routes ------------------------------------------------------------------------------------------------

def apply(db, action: str, memory_id: int, principal, form: dict) -> dict:
    content = (form.get("content") or "",) if action in CONTENT_ACTIONS else ()
    reason = lifecycle.check_reason(action, form.get("reason"))
    return getattr(lifecycle, action)(db, memory_id, principal, *content, reason=reason)


def outcome(action: str, memory_id: int, row: dict) -> str:
    if action == "supersede":
        return f"Memory {memory_id} superseded by memory {row['id']}."
    if action == "edit":
        return f"Memory {memory_id} saved as version {row['version']}."
    return f"Memory {memory_id} is now {row['lifecycle']}."


def row_path(datasette, memory_id: int) -> str:
    return datasette.urls.row(DATABASE, "memories", str(memory_id))


def local_path(candidate: str | None, fallback: str) -> str:
    """Redirect only within this site: a path, never a host, nor what a browser reads as one (``//host``,
    ``/\\host``, or ``/<tab>/host``: browsers turn backslashes into slashes and drop tabs and newlines)."""
    if not candidate or not candidate.startswith("/") or candidate.startswith("//"):
        return fallback
    return fallback if any(ch == "\\" or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in candidate) else candidate


async def memory_action(request, datasette):
    memory_id, action = int(request.url_vars["memory_id"]), request.url_vars["action"]
    await require(datasette, request, ACT)
    if request.method != "POST":
        if action == "purge":
            return await purge_confirmation(request, datasette, memory_id)
        return Response.text("use the form on the memory's page (POST)", status=405)
    form = await request.post_vars()
    if action == "purge" and form.get("confirm") != "yes":
        return Response.redirect(datasette.urls.path(f"{BASE}/memories/{memory_id}/purge"))
    next_path = local_path(form.get("next"), row_path(datasette, memory_id))
    try:
        row = await write(datasette, apply, action, memory_id, human(request.actor["id"]), form)
    except ScopeRecallError as error:
        datasette.add_message(request, f"Could not {action} memory {memory_id}: {error}", datasette.ERROR)
        return Response.redirect(next_path)
    datasette.add_message(request, outcome(action, memory_id, row), datasette.INFO)
    drain_soon(datasette)
    if action == "supersede" and not form.get("next"):
        next_path = row_path(datasette, row["id"])
    return Response.redirect(next_path)


async def purge_confirmation(request, datasette, memory_id: int):
    memory = await _memory_or_404(datasette, memory_id)
    return Response.html(await datasette.render_template(
        "scope_recall_purge.html", {"memory": memory, "base": BASE, "row_url": row_path(datasette, memory_id)},
        request=request))


async def review_decide(request, datasette):
    """Promote or reject a checked batch; each memory in its own transaction, so one refusal spoils nothing."""
    await require(datasette, request, ACT)
    if request.method != "POST":
        return Response.text("POST only", status=405)
    form = urllib.parse.parse_qs((await request.post_body()).decode("utf-8"), keep_blank_values=True)
    decision = (form.get("decision") or [""])[0]
    if decision not in review_queue.BATCH_DECISIONS:
        return Response.text(f"decision must be one of {', '.join(review_queue.BATCH_DECISIONS)}", status=400)
    ids = [int(value) for value in form.get("ids", []) if value.isdigit()]
    back = local_path((form.get("next") or [""])[0], datasette.urls.path(f"{BASE}/review"))
    try:
        reason = lifecycle.check_reason(decision, (form.get("reason") or [""])[0]) if ids else None
    except InvalidInput as error:
        datasette.add_message(request, f"Nothing {PAST[decision]}: {error}", datasette.ERROR)
        return Response.redirect(back)
    done, refused = await write(datasette, review_queue.decide, decision, ids, human(request.actor["id"]), reason)
    if done:
        datasette.add_message(request, f"{PAST[decision].capitalize()} memories {', '.join(map(str, done))}.",
                              datasette.INFO)
        drain_soon(datasette)
    for memory_id, message in refused:
        datasette.add_message(request, f"Could not {decision} memory {memory_id}: {message}", datasette.ERROR)
    if not ids:
        datasette.add_message(request, "Nothing checked: tick the candidates to decide.", datasette.WARNING)
    return Response.redirect(back)


async def review_page(request, datasette):
    await require(datasette, request, VIEW)
    scope_id = request.args.get("scope") or None
    after = request.args.get("after", "")
    page = await read(datasette, review_queue.queue, scope_id, after=int(after) if after.isdigit() else None)
    return Response.html(await datasette.render_template("scope_recall_review.html", {
        "page": page, "items": page.items, "scopes": page.scopes, "selected_scope": scope_id, "base": BASE,
        "next_url": page.next_after and datasette.urls.path(f"{BASE}/review") + "?" + urllib.parse.urlencode(
            {**({"scope": scope_id} if scope_id else {}), "after": page.next_after}),
        "can_act": await datasette.permission_allowed(request.actor, ACT, default=False),
        "row_url": lambda memory_id: row_path(datasette, memory_id),
        "here": request.full_path,
    }, request=request))


async def history_page(request, datasette):
    await require(datasette, request, VIEW)
    memory_id = int(request.url_vars["memory_id"])
    memory = await _memory_or_404(datasette, memory_id)
    history = await read(datasette, store.history, memory_id)
    timeline = sorted([{"kind": "version", **v} for v in history["versions"]]
                      + [{"kind": "event", **e} for e in history["audit"]], key=lambda entry: entry["at"])
    return Response.html(await datasette.render_template("scope_recall_history.html", {
        "memory": memory, "timeline": timeline, "row_url": row_path(datasette, memory_id)}, request=request))


async def _memory_or_404(datasette, memory_id: int) -> dict:
    try:
        return await read(datasette, store.get_memory, memory_id)
    except ScopeRecallError as error:
        raise NotFound(str(error)) from None


@hookimpl
def register_routes():
    return [
        (rf"^{BASE}/review$", review_page),
        (rf"^{BASE}/review/decide$", review_decide),
        (rf"^{BASE}/memories/(?P<memory_id>\d+)/history$", history_page),
        (rf"^{BASE}/memories/(?P<memory_id>\d+)/(?P<action>{'|'.join(review_queue.HUMAN_ACTIONS)})$", memory_action),
    ]


@hookimpl
def extra_template_vars(view_name, database, table, request, datasette):
    """The memory row page's lifecycle panel: its state and the transitions this operator may apply now."""
    if view_name != "row" or database != DATABASE or table != "memories":
        return {}

    async def inner():
        memory = await _memory_or_404(datasette, int(request.url_vars["pks"]))
        can_act = await datasette.permission_allowed(request.actor, ACT, default=False)
        possible = review_queue.human_actions(memory)
        return {"scope_recall": {
            "memory": memory, "base": BASE,
            "actions": possible if can_act else [], "possible": bool(possible),
        }}

    return inner
