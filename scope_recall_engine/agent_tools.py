"""The agent's memory tools: bare function schemas and their dispatch, JSON in and JSON out.

The scope and the principal come from the host (``ToolContext``), never from the model: arguments such as
``user_id`` or ``scope`` are not in any schema and are ignored when sent. There is no promote, reject or purge
tool; those are decisions for people. Engine refusals become tool JSON here and nowhere else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from scope_recall_engine.errors import (
    IllegalTransition,
    InvalidInput,
    NotFound,
    NotPermitted,
    ScopeRecallError,
    Tombstoned,
)
from scope_recall_engine.reading import entities, ledger, recall, retrieval, stats
from scope_recall_engine.truth.principals import Principal
from scope_recall_engine.truth.scope import TARGETS, Identity
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle

STORE, SEARCH = "scope_recall_store", "scope_recall_search"
FORGET, UPDATE = "scope_recall_forget", "scope_recall_update"
PROBE, RELATED, STATS = "scope_recall_probe", "scope_recall_related", "scope_recall_stats"
WRITE_TOOLS = (STORE, FORGET, UPDATE)
MAX_SEARCH_RESULTS = 10

_ID = {"type": "integer", "description": "A memory id, as shown in recalled memories ([#12 ...]) or search results."}
SCHEMAS = [
    {"name": STORE,
     "description": ("Save a durable fact the user asked you to remember. target: user (facts about the user), "
                     "memory (agreements, context), project, ops; general = this chat only. To correct an existing "
                     "memory, pass its id as corrects: the old one is kept in history, the new one replaces it."),
     "parameters": {"type": "object", "properties": {
         "target": {"type": "string", "enum": list(TARGETS)},
         "content": {"type": "string", "description": "One self-contained fact, in the user's words."},
         "corrects": _ID}, "required": ["target", "content"]}},
    {"name": SEARCH,
     "description": "Search this user's memories (relevant ones are already recalled each turn).",
     "parameters": {"type": "object", "properties": {
         "query": {"type": "string"},
         "limit": {"type": "integer", "minimum": 1, "maximum": MAX_SEARCH_RESULTS}}, "required": ["query"]}},
    {"name": FORGET,
     "description": "Stop recalling a memory the user wants forgotten (archived: a person can restore it).",
     "parameters": {"type": "object", "properties": {"id": _ID, "reason": {"type": "string"}},
                    "required": ["id"]}},
    {"name": UPDATE,
     "description": "Rewrite a memory's text (a new version; earlier versions stay in its history).",
     "parameters": {"type": "object", "properties": {"id": _ID, "content": {"type": "string"},
                                                     "reason": {"type": "string"}}, "required": ["id", "content"]}},
]
_ENTITY = {"type": "object", "properties": {
    "entity": {"type": "string", "description": "A name as the user says it: a person, pet, place, organisation, "
                                                "project or tool ('Ana', 'Acme', '@jsmith')."},
    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_SEARCH_RESULTS}}, "required": ["entity"]}
SCHEMAS += [
    {"name": PROBE,
     "description": ("What do I know about a person, pet, place, organisation, project or tool? Returns this "
                     "user's active memories that mention it, newest first. Read-only; it cannot see other users' "
                     "memories or ones that were forgotten, rejected or are still waiting for review."),
     "parameters": _ENTITY},
    {"name": RELATED,
     "description": ("Which people, places, projects or tools come up together with an entity in this user's "
                     "active memories, with how many memories they share. Read-only, this user's memories only."),
     "parameters": _ENTITY},
    {"name": STATS,
     "description": ("How big this user's memory is: counts by target and lifecycle in this user's own scopes, "
                     "how many memories can be recalled, and whether the vector index is healthy. Read-only; it "
                     "says nothing about other users and cannot change anything."),
     "parameters": {"type": "object", "properties": {}}},
]

HINTS = [  # most specific first: what the model should do after each kind of refusal
    (Tombstoned, "Tell the user a person refused this value earlier; do not store it again or reword it."),
    (NotPermitted, "This memory is not yours to change; a person can do it in the review console."),
    (NotFound, "Call scope_recall_search to find the right id."),
    (IllegalTransition, "That memory is no longer active; search for the current one."),
    (InvalidInput, "Fix the arguments and call the tool again."),
    (ScopeRecallError, "Tell the user the memory store refused this request."),
]


@dataclass(frozen=True)
class ToolContext:
    """Everything the host decided: the database, whose scope, who acts, and how reads are labelled."""

    db: object
    identity: Identity
    principal: Principal
    view: View
    surface: str = "tool"
    session_key: str | None = None


def call(ctx: ToolContext, name: str, args: object) -> str:
    """Run one tool call and return its JSON result; refusals come back as JSON with a hint, never raised."""
    try:
        handler = _HANDLERS.get(name)
        if handler is None:
            raise InvalidInput(f"unknown tool {name!r}; available: {', '.join(_HANDLERS)}")
        if not isinstance(args, dict):
            raise InvalidInput("tool arguments must be a JSON object")
        return json.dumps(handler(ctx, args), ensure_ascii=False)
    except ScopeRecallError as error:
        return error_json(error)


def error_json(error: ScopeRecallError) -> str:
    hint = next(text for kind, text in HINTS if isinstance(error, kind))
    return json.dumps({"error": str(error), "kind": type(error).__name__, "hint": hint}, ensure_ascii=False)


def _text(args: dict, key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{key!r} must be a non-empty string")
    return value


def _note(args: dict, key: str) -> str | None:
    value = args.get(key)
    return value.strip()[:500] or None if isinstance(value, str) else None


def _int(args: dict, key: str, *, required: bool = False) -> int | None:
    value = args.get(key)
    if value is None or value == "":
        if required:
            raise InvalidInput(f"{key!r} is required")
        return None
    try:
        return int(str(value).lstrip("#"))
    except ValueError:
        raise InvalidInput(f"{key!r} must be an integer such as a memory id, not {value!r}") from None


def _writable(ctx: ToolContext) -> tuple[str, ...]:
    """The agent writes only in its own local and shared scopes, never in configured read-only aliases."""
    return ctx.identity.accessible()


def _store(ctx: ToolContext, args: dict) -> dict:
    content, corrects = _text(args, "content"), _int(args, "corrects")
    if corrects is not None:
        new = lifecycle.supersede(ctx.db, corrects, ctx.principal, content, scopes=_writable(ctx),
                                  reason=f"corrected by {ctx.principal}")
        return {"id": new["id"], "lifecycle": new["lifecycle"], "status": "corrected", "supersedes": corrects}
    return lifecycle.store(ctx.db, ctx.identity, _text(args, "target"), content, ctx.principal).as_dict()


def _search(ctx: ToolContext, args: dict) -> dict:
    query = _text(args, "query")
    found = retrieval.search(ctx.db, ctx.view, query, _limit(args))
    results = [{"id": hit.id, "target": hit.target, "content": recall.neutralize(hit.content)}
               for hit in found.hits]
    ids = [result["id"] for result in results]
    ledger.record(ctx.db, ctx.view, query, surface=ctx.surface, session_key=ctx.session_key, ranked_ids=ids,
                  packed_ids=ids, miss_reason=found.miss_reason, degraded=found.degraded)
    return {"results": results, "degraded": found.degraded} if results else {
        "results": [], "note": "nothing relevant is remembered for this query"}


def _forget(ctx: ToolContext, args: dict) -> dict:
    row = lifecycle.archive(ctx.db, _int(args, "id", required=True), ctx.principal,
                            reason=_note(args, "reason") or "forgotten by the agent", scopes=_writable(ctx))
    return {"id": row["id"], "lifecycle": row["lifecycle"], "note": "archived; a person can restore it"}


def _update(ctx: ToolContext, args: dict) -> dict:
    row = lifecycle.edit(ctx.db, _int(args, "id", required=True), ctx.principal, _text(args, "content"),
                         reason=_note(args, "reason"), scopes=_writable(ctx))
    return {"id": row["id"], "lifecycle": row["lifecycle"], "version": row["version"]}


def _limit(args: dict, default: int = 5) -> int:
    return min(max(_int(args, "limit") or default, 1), MAX_SEARCH_RESULTS)


def _probe(ctx: ToolContext, args: dict) -> dict:
    found = entities.probe(ctx.db, ctx.view, _text(args, "entity"), _limit(args))
    memories = [{"id": m["id"], "target": m["target"], "content": recall.neutralize(m["content"]),
                 "review_state": m["review_state"]} for m in found["memories"]]
    ids = [memory["id"] for memory in memories]
    ledger.record(ctx.db, ctx.view, f"probe: {found['entity']}", surface=ctx.surface, session_key=ctx.session_key,
                  ranked_ids=ids, packed_ids=ids, miss_reason=None if ids else "no_match")
    return {"entity": recall.neutralize(found["entity"]), "total": found["total"], "memories": memories} if ids \
        else {"entity": recall.neutralize(found["entity"]), "memories": [],
              "note": "no remembered memory mentions this; try scope_recall_search"}


def _related(ctx: ToolContext, args: dict) -> dict:
    found = entities.related(ctx.db, ctx.view, _text(args, "entity"), _limit(args))
    return {"entity": recall.neutralize(found["entity"]), "memories": found["memories"],
            "related": [{**entry, "entity": recall.neutralize(entry["entity"])} for entry in found["related"]]}


def _stats(ctx: ToolContext, args: dict) -> dict:
    return stats.stats(ctx.db, _writable(ctx), ctx.view)


_HANDLERS = {STORE: _store, SEARCH: _search, FORGET: _forget, UPDATE: _update, PROBE: _probe, RELATED: _related,
             STATS: _stats}
