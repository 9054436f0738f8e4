"""The entity index: which memory mentions which person, pet, place, organisation, project or tool.

Derived from a memory's text and written in the same transaction as that text (``index``, called by every write
that sets content), so the index never disagrees with truth between two commits; a purge removes the links and
any entity nothing else mentions, so no name outlives the last memory that said it. The index holds every
lifecycle; who may read what is decided at read time by the visibility predicate (``reading/entities.py``).
"""

from __future__ import annotations

import json

from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.plugins import load_plugins
from scope_recall_engine.truth.content import normalize
from scope_recall_engine.truth.entity_rules import KINDS

MAX_NAME_CHARS = 80


def key(name: str) -> str:
    """What makes two mentions one entity: the normalized name (case, width, edge punctuation folded); a handle
    keeps its ``@``."""
    folded = normalize(name)
    return "@" + folded.lstrip("@") if name.strip().startswith("@") else folded


def extract(text: str) -> list[tuple[str, str, str]]:
    """(name, kind, key) of each entity in ``text``, once per key: every extractor's findings, the first specific
    kind found for a name winning over ``other``."""
    merged: dict[str, list[str]] = {}
    for found in load_plugins().hook.extract_entities(text=text):
        for name, kind in found or ():
            name = " ".join(str(name).split())[:MAX_NAME_CHARS]
            entity_key = key(name)
            if not entity_key.strip("@"):
                continue
            kind = kind if kind in KINDS else "other"
            if entity_key not in merged:
                merged[entity_key] = [name, kind]
            elif merged[entity_key][1] == "other":
                merged[entity_key][1] = kind
    return [(name, kind, entity_key) for entity_key, (name, kind) in merged.items()]


def index(db, memory_id: int, content: str) -> None:
    """Replace the memory's links with what its text mentions now (inside the caller's write transaction)."""
    linked = unlink(db, memory_id, drop_orphans=False)
    for name, kind, entity_key in extract(content):
        db.execute("insert into entities (key) values (?) on conflict (key) do nothing", [entity_key])
        entity_id = db.execute("select id from entities where key = ?", [entity_key]).fetchone()[0]
        db.execute("insert into memory_entities (memory_id, entity_id, name, kind) values (?, ?, ?, ?)",
                   [memory_id, entity_id, name, kind])
    _drop_orphans(db, linked)


def unlink(db, memory_id: int, *, drop_orphans: bool = True) -> list[int]:
    """Remove the memory's links; returns the entity ids it was linked to."""
    linked = [row[0] for row in db.execute("select entity_id from memory_entities where memory_id = ?",
                                           [memory_id])]
    db.execute("delete from memory_entities where memory_id = ?", [memory_id])
    if drop_orphans:
        _drop_orphans(db, linked)
    return linked


def _drop_orphans(db, entity_ids: list[int]) -> None:
    if entity_ids:
        db.execute("delete from entities where id in (select value from json_each(?)) and not exists "
                   "(select 1 from memory_entities l where l.entity_id = entities.id)", [json.dumps(entity_ids)])


@hookimpl
def purge_memory_rows(db, memory_id):
    """Purge's share of the index: the erased memory's links, and any name only it mentioned."""
    unlink(db, memory_id)


def _expected(db):
    """(memory_id, key, name, kind) the index should hold, from every memory's current text."""
    for memory_id, content in db.execute("select id, content from memories where lifecycle != 'purged'"):
        for name, kind, entity_key in extract(content):
            yield memory_id, entity_key, name, kind


def _stored(db) -> set[tuple]:
    return set(db.execute("select l.memory_id, e.key, l.name, l.kind from memory_entities l "
                          "join entities e on e.id = l.entity_id").fetchall())


def drift(db) -> dict:
    """How far the index is from what the memories say now: links missing, links extra (a write that bypassed
    the engine, a changed extractor), and entities nothing links to."""
    expected, stored = set(_expected(db)), _stored(db)
    orphans = db.execute("select count(*) from entities e where not exists "
                         "(select 1 from memory_entities l where l.entity_id = e.id)").fetchone()[0]
    return {"links": len(stored), "entities": db["entities"].count, "missing": len(expected - stored),
            "extra": len(stored - expected), "orphans": orphans,
            "memories": sorted({link[0] for link in expected ^ stored})[:20]}


def rebuild(db) -> int:
    """Re-derive the whole index from the memories' text (inside the caller's transaction); returns the links."""
    db.execute("delete from memory_entities")
    db.execute("delete from entities")
    for memory_id, content in db.execute("select id, content from memories where lifecycle != 'purged'").fetchall():
        index(db, memory_id, content)
    return db["memory_entities"].count
