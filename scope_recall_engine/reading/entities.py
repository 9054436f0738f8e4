"""Reading the entity index through the visibility predicate: which entities a view's memories mention, the
memories attached to one, and the entities that come up with it. Every query joins ``memories`` under
``VISIBLE``, so another scope's memories, and rows that are not active, never count, not even as a number."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

from scope_recall_engine.errors import InvalidInput
from scope_recall_engine.truth.entities import key
from scope_recall_engine.truth.visibility import VISIBLE, View

MAX_LIMIT = 50
_LINKS = f"""select e.key, l.name, l.kind, l.memory_id from memory_entities l
             join entities e on e.id = l.entity_id join memories m on m.id = l.memory_id
             where {VISIBLE}"""


def _key(name: object) -> str:
    if not isinstance(name, str) or not key(name).strip("@"):
        raise InvalidInput("entity must be a name such as 'Ana', 'Acme' or '@handle'")
    return key(name)


def _summaries(rows, kinds_from=None) -> list[dict]:
    """One entry per entity key: its most frequent spelling and kind (in ``kinds_from`` when given, else in these
    rows), and how many of these rows' memories mention it."""
    names, kinds, memories = defaultdict(Counter), defaultdict(Counter), defaultdict(set)
    for entity_key, name, kind, memory_id in rows:
        names[entity_key][name] += 1
        kinds[entity_key][kind] += 1
        memories[entity_key].add(memory_id)
    for entity_key, _, kind, _ in kinds_from or ():
        if entity_key in memories:
            kinds[entity_key][kind] += 1
    entries = [{"entity": names[k].most_common(1)[0][0], "kind": _kind(kinds[k]), "memories": len(memories[k])}
               for k in memories]
    return sorted(entries, key=lambda entry: (-entry["memories"], entry["entity"].casefold()))


def _kind(kinds: Counter) -> str:
    specific = [(count, kind) for kind, count in kinds.items() if kind != "other"]
    return max(specific)[1] if specific else "other"


def listing(db, view: View, limit: int = MAX_LIMIT, kind: str | None = None) -> list[dict]:
    """The entities the view's memories mention, most mentioned first."""
    entries = _summaries(db.execute(_LINKS, view.params()))
    return [entry for entry in entries if kind in (None, entry["kind"])][:limit]


_ATTACHED = f"""select m.id, m.target, m.content, m.review_state, m.created_at from memory_entities l
                join entities e on e.id = l.entity_id join memories m on m.id = l.memory_id
                where e.key = :entity_key and {VISIBLE} order by m.id desc"""
_MEMORY_FIELDS = ("id", "target", "content", "review_state", "created_at")


def _attached(db, view: View, entity_key: str) -> list[dict]:
    rows = db.execute(_ATTACHED, {**view.params(), "entity_key": entity_key})
    return [dict(zip(_MEMORY_FIELDS, row)) for row in rows]


def probe(db, view: View, name: object, limit: int = 10) -> dict:
    """The view's memories that mention the entity, newest first, and how many there are in all."""
    entity_key = _key(name)
    memories = _attached(db, view, entity_key)
    return {"entity": name.strip(), "key": entity_key, "total": len(memories), "memories": memories[:limit]}


def related(db, view: View, name: object, limit: int = 10) -> dict:
    """Entities that share a visible memory with this one, with how many memories they share (their kind as the
    view's memories say it overall)."""
    entity_key = _key(name)
    ids = [memory["id"] for memory in _attached(db, view, entity_key)]
    sql = _LINKS + " and l.memory_id in (select value from json_each(:ids)) and e.key != :entity_key"
    rows = db.execute(sql, {**view.params(), "ids": json.dumps(ids), "entity_key": entity_key}).fetchall()
    everywhere = db.execute(_LINKS + " and e.key in (select value from json_each(:keys))",
                            {**view.params(), "keys": json.dumps(sorted({row[0] for row in rows}))})
    return {"entity": name.strip(), "key": entity_key, "memories": len(ids),
            "related": _summaries(rows, everywhere)[:limit]}
