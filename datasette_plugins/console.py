"""Scope Recall's operator console on Datasette: the plugin hooks. A thin adapter over the engine.

Every request passes the guard (``guard.py``: sessions, the anonymous gate, Origin and CSRF, security headers);
every route asks ``permissions.require``; reads go through the engine's functions on Datasette's read connections
and writes only through its transitions on Datasette's single write thread, as ``human:<login>``.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from datasette import hookimpl
from markupsafe import Markup

from datasette_plugins import accounts, actions, guard, pages, permissions, toolkit
from datasette_plugins.db import DATABASE, PLUGIN, read, read_only, serves_store
from datasette_plugins.web import BASE, ID
from scope_recall_engine.errors import InvalidInput
from scope_recall_engine.truth import store
from scope_recall_engine.truth.scope import label
from scope_recall_engine.writing import feedback, lifecycle, review_queue

SCOPE_COLUMNS = ("scope_id", "shared_scope_id")
MEMORY_COLUMNS = ("memory_id",)  # in audit events, versions, tombstones, sources, outbox: link row and history
LIFECYCLES = set(lifecycle.STATES)
TIME = re.compile(r"^(at|valid_from|valid_to|.*_at)$")


@hookimpl
def permission_allowed(datasette, actor, action, resource):
    return permissions.allowed(datasette, actor, action, resource)


@hookimpl
def startup(datasette):
    """Datasette 0.65 passes an unmatched URL's 404 to rich's ``print_exception`` outside an ``except`` block
    whenever rich is installed (hermes-agent installs it), and rich's refusal turns every 404 into a 500. The
    console prints plain tracebacks instead."""
    if serves_store(datasette):
        from datasette import handle_exception as default_handler

        default_handler.rich = None


@hookimpl
def asgi_wrapper(datasette):
    return lambda app: guard.Guard(datasette, app)


@hookimpl
def extra_css_urls(datasette):
    return [datasette.urls.path(f"{BASE}/static/console.css")] if serves_store(datasette) else []


@hookimpl
def extra_js_urls(datasette):
    """A module script: deferred, so it runs once the page is parsed."""
    if not serves_store(datasette):
        return []
    return [{"url": datasette.urls.path(f"{BASE}/static/console.js"), "module": True}]


@hookimpl
def menu_links(datasette, actor):
    async def inner():
        if not await datasette.permission_allowed(actor, permissions.VIEW, default=False):
            return []
        return [{"href": datasette.urls.path("/"), "label": "Dashboard"},
                {"href": datasette.urls.path(f"{BASE}/review"), "label": "Review queue"},
                {"href": datasette.urls.table(DATABASE, "memories"), "label": "Memories"},
                {"href": datasette.urls.table(DATABASE, "entity_mentions"), "label": "Entities"},
                {"href": datasette.urls.table(DATABASE, "audit_events"), "label": "Audit log"}]

    return inner


# --- how values read ----------------------------------------------------------------------------------------

def readable(scope_id):
    """A scope id as operators read it (``cli · alice · chat 42``); anything else unchanged."""
    if not isinstance(scope_id, str):
        return scope_id
    try:
        return label(scope_id)
    except InvalidInput:
        return scope_id


def scope_span(scope_id: str) -> Markup:
    """A scope as every console page shows it: the readable label, the raw id on hover."""
    return Markup('<span class="scope" title="{}">{}</span>').format(scope_id, readable(scope_id))


def when(value) -> Markup | str:
    """A stored UTC time as the operator reads it: to the minute, turned into their own zone by the page's script,
    the exact UTC time on hover."""
    try:
        moment = datetime.fromisoformat(value).astimezone(timezone.utc)
    except (TypeError, ValueError):
        return value or ""
    return Markup('<time datetime="{}" title="{} UTC">{} UTC</time>').format(
        moment.isoformat(), moment.strftime("%Y-%m-%d %H:%M:%S"), moment.strftime("%Y-%m-%d %H:%M"))


def badge(state: str) -> Markup:
    return Markup('<span class="lifecycle-badge lifecycle-{}">{}</span>').format(state, state)


def memory_links(datasette, memory_id: int) -> Markup:
    row = datasette.urls.row(DATABASE, "memories", str(memory_id))
    history = datasette.urls.path(f"{BASE}/memories/{memory_id}/history")
    return Markup('<a href="{}">#{}</a> <a class="history-link" href="{}">history</a>').format(
        row, memory_id, history)


@hookimpl
def prepare_connection(conn, database):
    if database == DATABASE:
        store.configure(conn)
        conn.create_function("scope_label", 1, readable, deterministic=True)


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["scope_span"] = scope_span
    env.filters["when"] = when
    env.filters["badge"] = badge
    env.filters["facet_label"] = lambda value, column: readable(value) if column in SCOPE_COLUMNS else value


@hookimpl
def render_cell(row, value, column, table, database, datasette):
    if database != DATABASE:
        return None
    if table == "recall_events" and column == "miss_reason" and row is not None:
        return Markup('{} <a class="explain-link" href="{}">explain</a>').format(
            value or "", datasette.urls.path(f"{BASE}/recalls/{row['id']}"))
    if value is None:
        return None
    if column in SCOPE_COLUMNS and isinstance(value, str):
        return scope_span(value)
    if TIME.match(column) and isinstance(value, str):
        return when(value)
    if column in MEMORY_COLUMNS and table != "memories" and isinstance(value, int):
        return memory_links(datasette, value)
    if column == "lifecycle" and value in LIFECYCLES:
        return badge(value)
    return None


# --- routes and pages ---------------------------------------------------------------------------------------

@hookimpl
def register_routes():
    """The console's pages. ``/``, ``/-/login``, ``/-/logout`` and ``/-/password-tool`` reach theirs through the
    guard's aliases, only on a Datasette serving a store."""
    memory = rf"{BASE}/memories/(?P<memory_id>{ID})"
    return [
        (rf"^{BASE}/dashboard$", pages.dashboard),
        (rf"^{BASE}/login$", accounts.login),
        (rf"^{BASE}/logout$", accounts.logout),
        (rf"^{BASE}/password-tool$", accounts.password_tool),
        (rf"^{BASE}/review$", pages.review_page),
        (rf"^{BASE}/review/decide$", actions.review_decide),
        (rf"^{memory}/history$", pages.history_page),
        (rf"^{memory}/(?P<action>{'|'.join(review_queue.HUMAN_ACTIONS)})$", actions.memory_action),
        (rf"^{memory}/feedback$", toolkit.feedback_action),
        (rf"^{memory}/merge$", toolkit.merge_action),
        (rf"^{memory}/unmerge$", toolkit.unmerge_action),
        (rf"^{BASE}/recalls/(?P<event_id>{ID})$", toolkit.explain_page),
    ]


@hookimpl
def extra_template_vars(view_name, database, table, request, datasette):
    """Every page: no padlock (everything here is private; Debian's Chromium draws the emoji as a box). Table pages:
    which columns show first and which wait one click away. The memory row page: its lifecycle panel."""
    if not serves_store(datasette):
        return {}

    async def inner():
        extra = {"private": False, "scope_recall_read_only": read_only(datasette)}
        if view_name == "table" and database == DATABASE:
            columns = (datasette.plugin_config(PLUGIN, database=database, table=table) or {}).get("columns")
            extra["scope_recall_columns"] = {"shown": columns or [], "all": bool(request.args.get("_internals"))}
        if view_name == "row" and database == DATABASE and table == "memories":
            extra["scope_recall"] = await row_panel(datasette, request)
        return extra

    return inner


async def row_panel(datasette, request) -> dict:
    item = await read(datasette, review_queue.item, int(request.url_vars["pks"]))
    memory = item.memory
    history = await read(datasette, store.history, memory["id"])
    decided = [event for event in history["audit"] if event["action"] in actions.CONFIRMED]
    possible = review_queue.human_actions(memory)
    can_act = await permissions.may_act(datasette, request)
    return {
        "item": item, "memory": memory, "base": BASE, "decision": decided[-1] if decided else None,
        "feedback": await read(datasette, feedback.summary, memory["id"]),
        "merged_from": [row["id"] for row in await read(datasette, lifecycle.merged_sources, memory["id"])],
        "can_act": can_act,
        "actions": [a for a in possible if a not in actions.CONFIRMED] if can_act else [],
        "destructive": [a for a in possible if a in actions.CONFIRMED] if can_act else [],
        "possible": bool(possible), "row_url": lambda m: datasette.urls.row(DATABASE, "memories", str(m)),
    }
