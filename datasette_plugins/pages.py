"""The console's own read-only pages: the landing dashboard, the review queue and a memory's history."""

from __future__ import annotations

import difflib
import re
import urllib.parse
from datetime import datetime, timedelta, timezone

from datasette.utils.asgi import BadRequest, NotFound, Response

from datasette_plugins.db import DATABASE, read
from datasette_plugins.permissions import VIEW, may_act, require
from datasette_plugins.web import BASE, memory_id, optional_id
from scope_recall_engine import overview
from scope_recall_engine.errors import ScopeRecallError
from scope_recall_engine.truth import store
from scope_recall_engine.writing import review_queue

MAX_SCOPE = 2000  # characters of a scope filter: far beyond any real scope id
LIFECYCLE_ORDER = ("candidate", "active", "archived", "superseded", "rejected", "purged")


def row_path(datasette, memory: int) -> str:
    return datasette.urls.row(DATABASE, "memories", str(memory))


async def memory_or_404(datasette, memory: int) -> dict:
    try:
        return await read(datasette, store.get_memory, memory)
    except ScopeRecallError as error:
        raise NotFound(str(error)) from None


async def dashboard(request, datasette):
    """The landing page: what waits, what was decided, what the store holds and whether its helpers keep up."""
    await require(datasette, request, VIEW)
    summary = await read(datasette, overview.overview)
    days = _days(summary)
    return Response.html(await datasette.render_template("scope_recall_dashboard.html", {
        "o": summary, "base": BASE, "days": days, "row_url": lambda m: row_path(datasette, m),
        "table_url": lambda table: datasette.urls.table(DATABASE, table),
        "decisions": chart(days, [("promote", "promote", "promoted"), ("reject", "rejected", "rejected"),
                                  ("other", "archived", "other decisions")]),
        "recalls": chart(days, [("hits", "active", "recalls that packed a memory"),
                                ("misses", "archived", "recalls that packed nothing")]),
        "lifecycles": parts(summary.lifecycles),
        "targets": [(target, parts(states), sum(states.values())) for target, states in summary.targets.items()],
        "widest": max((sum(states.values()) for states in summary.targets.values()), default=1),
    }, request=request))


def _days(summary: overview.Overview) -> list[dict]:
    """Each of the last DAYS days, oldest first: {day, promote, reject, other, hits, misses} (0 if none)."""
    today = datetime.now(timezone.utc).date()
    days = {str(today - timedelta(days=n)): dict.fromkeys(("promote", "reject", "other", "hits", "misses"), 0)
            for n in reversed(range(overview.DAYS))}
    for row in summary.decisions:
        if row["day"] in days:
            days[row["day"]][row["action"] if row["action"] in ("promote", "reject") else "other"] += row["decisions"]
    for row in summary.recalls:
        if row["day"] in days:
            days[row["day"]].update(hits=row["recalls"] - (row["misses"] or 0), misses=row["misses"] or 0)
    return [{"day": day, **counts} for day, counts in days.items()]


CHART_WIDTH, CHART_HEIGHT = 280, 70


def chart(days: list[dict], series: list[tuple[str, str, str]]) -> dict:
    """A stacked bar per day as SVG rectangles: series are (key, colour, label), drawn from the bottom up."""
    peak = max((sum(day[key] for key, _, _ in series) for day in days), default=0) or 1
    width = CHART_WIDTH / len(days)
    rects = []
    for index, day in enumerate(days):
        bottom = CHART_HEIGHT + 10
        for key, colour, label in series:
            height = round(day[key] / peak * CHART_HEIGHT, 1)
            if height:
                bottom -= height
                rects.append({"x": round(index * width + 1, 1), "y": round(bottom, 1), "width": round(width - 2, 1),
                              "height": height, "colour": colour, "title": f"{day['day']}: {day[key]} {label}"})
    return {"rects": rects, "peak": peak, "first": days[0]["day"],
            "last": days[-1]["day"], "totals": {key: sum(day[key] for day in days) for key, _, _ in series}}


def parts(counts: dict[str, int]) -> list[tuple[int, str, str]]:
    """(count, colour, state) per lifecycle state present, in lifecycle order: the segments of a split bar."""
    return [(counts[state], state, state) for state in LIFECYCLE_ORDER if counts.get(state)]


async def review_page(request, datasette):
    await require(datasette, request, VIEW)
    scope_id = request.args.get("scope") or None
    if scope_id and len(scope_id) > MAX_SCOPE:
        raise BadRequest(f"scope is at most {MAX_SCOPE} characters")
    page = await read(datasette, review_queue.queue, scope_id, after=optional_id(request, "after"))
    here = datasette.urls.path(f"{BASE}/review")

    def url(after: int | None) -> str:
        query = {**({"scope": scope_id} if scope_id else {}), **({"after": after} if after else {})}
        return here + ("?" + urllib.parse.urlencode(query) if query else "")

    current = page.ahead // review_queue.PAGE_SIZE
    return Response.html(await datasette.render_template("scope_recall_review.html", {
        "page": page, "items": page.items, "scopes": page.scopes, "selected_scope": scope_id, "base": BASE,
        "next_url": page.next_after and url(page.next_after),
        "previous_url": url(page.previous_after) if page.ahead else None,
        "pages": [{"number": n + 1, "url": url(start), "current": n == current} for n, start in enumerate(page.starts)],
        "first_shown": page.ahead + 1,
        "can_act": await may_act(datasette, request), "row_url": lambda m: row_path(datasette, m),
        "here": request.full_path, "flagged": await read(datasette, review_queue.flagged, scope_id),
    }, request=request))


async def history_page(request, datasette):
    await require(datasette, request, VIEW)
    memory = await memory_or_404(datasette, memory_id(request.url_vars["memory_id"]))
    history = await read(datasette, store.history, memory["id"])
    versions = history["versions"]
    for before, after in zip([None, *versions], versions):
        after["diff"] = word_diff(before["content"], after["content"]) if before else None
    timeline = sorted([{"kind": "version", **v} for v in versions]
                      + [{"kind": "event", **e} for e in history["audit"]], key=lambda entry: entry["at"])
    return Response.html(await datasette.render_template("scope_recall_history.html", {
        "memory": memory, "timeline": timeline, "row_url": lambda m: row_path(datasette, m), "base": BASE,
    }, request=request))


WORD = re.compile(r"\s+|\w+|[^\w\s]+")  # spaces, words, punctuation: "mood" -> "mood," keeps "mood"


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """``new`` against ``old`` word by word: (``same`` | ``removed`` | ``added``, text) pieces, in reading order."""
    a, b = WORD.findall(old), WORD.findall(new)
    pieces = []
    for op, a1, a2, b1, b2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            pieces.append(("same", "".join(a[a1:a2])))
            continue
        if a2 > a1:
            pieces.append(("removed", "".join(a[a1:a2])))
        if b2 > b1:
            pieces.append(("added", "".join(b[b1:b2])))
    return pieces
