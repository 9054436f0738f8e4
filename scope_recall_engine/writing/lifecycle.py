"""Transitions: the only functions that change a memory, each enforcing the transition table below (who may do
what, from which state, with what) and writing its audit event.

Every function runs as one write transaction: the row, its FTS rows (triggers), its version, its audit event,
its tombstone and its vector-outbox intent commit together or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from scope_recall_engine.errors import IllegalTransition, InvalidInput, NotFound, NotPermitted, Tombstoned
from scope_recall_engine.plugins import load_plugins
from scope_recall_engine.truth import content as text
from scope_recall_engine.truth import entities, secret
from scope_recall_engine.truth.migrations import scope_key
from scope_recall_engine.truth.principals import Principal
from scope_recall_engine.truth.scope import Identity, check_target, shared_part
from scope_recall_engine.truth.store import (
    audit,
    before,
    enqueue_vector_sync,
    get_memory,
    now,
    record_version,
    scrub,
    update_memory,
    write,
)
from scope_recall_engine.writing.journal import copy_sources, erase_sources

STATES = ("candidate", "active", "archived", "rejected", "superseded", "purged")
ALLOW, OWN_SCOPE, DENY = "allow", "own scope", "deny"
NEW = None  # the from-state of a memory that does not exist yet
CONTEXT_WINDOW = timedelta(minutes=30)  # memories stored this close together are one conversation's context


MAX_REASON_CHARS = 1000  # a reason explains a decision; it is not a place to store documents
MAX_MERGE = 10  # memories one merge folds together: a merge states one fact, not a digest of many


@dataclass(frozen=True)
class Transition:
    """Who may apply it (per principal kind), from which states, and whether it must say why."""

    from_states: tuple
    human: str = DENY
    agent: str = DENY
    system: str = DENY
    needs_reason: bool = False
    one_row: bool = True  # applied to one existing row by itself (merge takes several; unmerge only a merge)


TRANSITIONS = {
    "store": Transition((NEW,), human=ALLOW, agent=OWN_SCOPE),
    "extract": Transition((NEW,), system=ALLOW),
    "promote": Transition(("candidate",), human=ALLOW),
    "reject": Transition(("candidate",), human=ALLOW, needs_reason=True),  # the reason stays with the tombstone
    "archive": Transition(("candidate", "active"), human=ALLOW, agent=OWN_SCOPE, system=ALLOW),
    "restore": Transition(("archived",), human=ALLOW),
    "edit": Transition(("candidate", "active"), human=ALLOW, agent=OWN_SCOPE),
    "revise": Transition(("candidate",), system=ALLOW),  # the digest merges a later sighting into its own candidate
    "supersede": Transition(("active",), human=ALLOW, agent=OWN_SCOPE),
    "purge": Transition(tuple(s for s in STATES if s != "purged"), human=ALLOW),
    "merge": Transition(("active",), human=ALLOW, agent=OWN_SCOPE, one_row=False),  # each source, superseded
    "unmerge": Transition(("active",), human=ALLOW, one_row=False),  # the merged row: archived, sources restored
}


@dataclass(frozen=True)
class StoreResult:
    id: int
    lifecycle: str
    status: str  # created | duplicate | corroborated

    def as_dict(self) -> dict:
        return {"id": self.id, "lifecycle": self.lifecycle, "status": self.status}


def check_reason(action: str, reason: str | None) -> str | None:
    """The reason as it will be recorded (trimmed, or None); refused when the transition needs one or it is too
    long. Surfaces call it to refuse early, with the engine's words."""
    reason = (reason or "").strip() or None
    if reason is None and TRANSITIONS[action].needs_reason:
        raise InvalidInput(f"say why: a {action} is recorded with its reason.")
    if reason is not None and len(reason) > MAX_REASON_CHARS:
        raise InvalidInput(f"a reason is at most {MAX_REASON_CHARS} characters (this one has {len(reason)})")
    return reason


def authorize(action: str, principal: Principal, memory: dict | None = None,
              scopes: tuple[str, ...] | None = None, reason: str | None = None) -> str | None:
    """Raise unless ``principal`` may apply ``action`` to ``memory`` (None for a new memory) with ``reason``;
    return the reason as it is recorded (``check_reason``)."""
    rule = TRANSITIONS[action]
    permission = getattr(rule, principal.kind)
    if permission == DENY:
        raise NotPermitted(f"{principal} may not {action} memories: only {_who(rule)} may")
    if permission == OWN_SCOPE and memory is not None and memory["scope_id"] not in (scopes or ()):
        # to an agent, another scope's memory does not exist: the refusal must not confirm that the id is taken
        raise NotFound(f"no memory with id {memory['id']}")
    state = memory["lifecycle"] if memory is not None else NEW
    if state not in rule.from_states:
        allowed = ", ".join(s or "new" for s in rule.from_states)
        raise IllegalTransition(f"cannot {action} memory {memory['id']}: it is {state}; {action} applies to: {allowed}")
    return check_reason(action, reason)


def _who(rule: Transition) -> str:
    return " and ".join(kind for kind in ("human", "agent", "system") if getattr(rule, kind) != DENY) or "nobody"


def find_tombstone(db, shared_scope_id: str, content_hash: str) -> dict | None:
    """The record of a person's no for this value in this shared scope, if there is one: under its plain hash, or
    under the store's key when it was purged."""
    hashes = [content_hash]
    if key := secret.key(db):
        hashes.append(text.keyed_hash(content_hash, key))
    rows = db["tombstones"].rows_where(
        f"shared_scope_id = ? and content_hash in ({', '.join('?' for _ in hashes)})", [shared_scope_id, *hashes],
        limit=1)
    return next(iter(rows), None)


def check_tombstone(db, shared_scope_id: str, content_hash: str) -> None:
    """Refuse a value a person rejected or purged in this shared scope, saying when and by whom."""
    if stone := find_tombstone(db, shared_scope_id, content_hash):
        reason = f" ({stone['note']})" if stone["note"] else ""
        raise Tombstoned(
            f"refused: this value was {stone['reason']} by {stone['principal']} at {stone['at']}{reason}, "
            "and a person's no is not undone automatically"
        )


def _value_hashes(db, memory: dict) -> set[str]:
    """The memory's value and every earlier wording of it (an edit before the decision must not leave the
    original text free to come back)."""
    return {memory["content_hash"], *(row[0] for row in db.execute(
        "select content_hash from memory_versions where memory_id = ?", [memory["id"]]))}


def _tombstone(db, memory: dict, reason: str, principal: Principal, note: str | None,
               key: bytes | None = None) -> None:
    """Remember a person's no for each of the memory's value hashes; with ``key`` (purge) only under the key, and
    the plain hashes of the value are dropped from the tombstones."""
    for value_hash in sorted(_value_hashes(db, memory)):
        stone = {"shared_scope_id": memory["shared_scope_id"], "content_hash": value_hash, "reason": reason,
                 "principal": str(principal), "at": now(), "memory_id": memory["id"], "note": note}
        if key:
            db["tombstones"].delete_where("shared_scope_id = ? and content_hash = ?",
                                          [stone["shared_scope_id"], value_hash])
            stone["content_hash"] = text.keyed_hash(value_hash, key)
        if existing := find_tombstone(db, stone["shared_scope_id"], value_hash):
            db["tombstones"].update(existing["id"], stone)
        else:
            db["tombstones"].insert(stone)


def _insert(db, *, scope_id: str, target: str, content: str, content_hash: str, principal: Principal,
            lifecycle: str, review_state: str, origin: str, valid_from: str | None = None,
            supersedes: int | None = None, reason: str | None = None, details: dict | None = None,
            action: str | None = None) -> dict:
    at = now()
    row = {
        "scope_id": scope_id, "shared_scope_id": shared_part(scope_id), "target": target, "content": content,
        "content_hash": content_hash, "lifecycle": lifecycle, "review_state": review_state,
        "origin": origin, "created_by": str(principal), "valid_from": valid_from, "valid_to": None,
        "created_at": at, "updated_at": at, "version": 1, "generation": 1, "corroborations": 0,
        "supersedes": supersedes, "context_id": _context_of(db, scope_id, at), "scope_key": scope_key(scope_id),
        **(details or {}),
    }
    memory_id = db["memories"].insert(row).last_pk
    memory = {**row, "id": memory_id}
    entities.index(db, memory_id, content)
    record_version(db, memory_id, 1, content, row["content_hash"], principal, reason)
    audit(db, memory, action or ("store" if lifecycle == "active" else "extract"), principal,
          to_state=lifecycle, reason=reason)
    enqueue_vector_sync(db, memory_id, 1)
    return memory


def _standing(principal: Principal) -> str:
    """How active text earned its place: a person wrote or approved it, or the agent did (the user asked)."""
    return "human_reviewed" if principal.kind == "human" else "agent_asserted"


def _context_of(db, scope_id: str, at: str) -> int | None:
    """The memory stored just before, in the same scope and the same sitting: indexed beside this one."""
    since = before(CONTEXT_WINDOW, at)
    row = db.execute("select id from memories where scope_id = ? and lifecycle = 'active' and created_at >= ? "
                     "order by id desc limit 1", [scope_id, since]).fetchone()
    return row[0] if row else None


def _existing(db, scope_id: str, content_hash: str) -> dict | None:
    """The live row (active first, then candidate) holding this value in this scope, if any."""
    rows = db["memories"].rows_where(
        "scope_id = ? and content_hash = ? and lifecycle in ('active', 'candidate')",
        [scope_id, content_hash], order_by="lifecycle = 'candidate', id", limit=1,
    )
    return next(iter(rows), None)


def _corroborate(db, memory: dict, principal: Principal) -> StoreResult:
    """A second sighting of a candidate counts for it but never promotes it."""
    update_memory(db, memory, corroborations=memory["corroborations"] + 1)
    audit(db, memory, "corroborate", principal, from_state="candidate", to_state="candidate")
    return StoreResult(memory["id"], "candidate", "corroborated")


def _admit(db, scope_id: str, target: str, content: str, principal: Principal, **insert) -> StoreResult:
    """The shared path of every new value: refused if a person said no, a no-op if already active, a
    corroboration if waiting as a candidate, else a new row."""
    content_hash = text.content_hash(content)
    with write(db):
        check_tombstone(db, shared_part(scope_id), content_hash)
        existing = _existing(db, scope_id, content_hash)
        if existing and existing["lifecycle"] == "active":
            return StoreResult(existing["id"], "active", "duplicate")
        if existing:
            return _corroborate(db, existing, principal)
        memory = _insert(db, scope_id=scope_id, target=target, content=content, content_hash=content_hash,
                         principal=principal, **insert)
        return StoreResult(memory["id"], memory["lifecycle"], "created")


def store(db, identity: Identity, target: str, content: str, principal: Principal, *,
          origin: str = "explicit", reason: str | None = None) -> StoreResult:
    """Explicit store (a person, or the agent because the user asked): active at once, in the caller's scope."""
    check_target(target)
    content = text.validate(content)
    authorize("store", principal)
    return _admit(db, identity.scope_for(target), target, content, principal, lifecycle="active",
                  review_state=_standing(principal), origin=origin, reason=reason)


def extract(db, scope_id: str, target: str, content: str, principal: Principal, *, origin: str,
            reason: str | None = None, supersedes: int | None = None, details: dict | None = None) -> StoreResult:
    """A machine-found fact (digest, import): a candidate that waits for a person. ``details`` are the digest's
    columns (decision, its reason, slot), written with the row."""
    check_target(target)
    content = text.validate(content)
    authorize("extract", principal)
    return _admit(db, scope_id, target, content, principal, lifecycle="candidate", review_state="auto",
                  origin=origin, reason=reason, supersedes=supersedes, details=details)


def _transition(db, action: str, memory: dict, principal: Principal, scopes, reason, **changes) -> dict:
    reason = authorize(action, principal, memory, scopes, reason)
    updated = update_memory(db, memory, **changes)
    audit(db, memory, action, principal, from_state=memory["lifecycle"], to_state=updated["lifecycle"],
          reason=reason)
    return updated


def promote(db, memory_id: int, principal: Principal, *, reason: str | None = None,
            scopes: tuple[str, ...] | None = None) -> dict:
    """A person's yes: the candidate becomes active; if it supersedes an active row, that row's window closes."""
    with write(db):
        candidate = get_memory(db, memory_id)
        changes = {"lifecycle": "active", "review_state": "human_reviewed"}
        if candidate["supersedes"]:
            changes["valid_from"] = candidate["valid_from"] or now()
        promoted = _transition(db, "promote", candidate, principal, scopes, reason, **changes)
        if promoted["supersedes"]:
            _close(db, get_memory(db, promoted["supersedes"]), promoted["id"], principal, promoted["valid_from"])
        return promoted


def reject(db, memory_id: int, principal: Principal, *, reason: str | None = None,
           scopes: tuple[str, ...] | None = None) -> dict:
    """A person's no: the candidate is rejected and its value tombstoned for the shared scope."""
    with write(db):
        rejected = _transition(db, "reject", get_memory(db, memory_id), principal, scopes, reason, lifecycle="rejected")
        _tombstone(db, rejected, "rejected", principal, reason)
        return rejected


def archive(db, memory_id: int, principal: Principal, *, reason: str | None = None,
            scopes: tuple[str, ...] | None = None) -> dict:
    """Forget, reversibly: out of recall, remembered for restore."""
    with write(db):
        memory = get_memory(db, memory_id)
        return _transition(db, "archive", memory, principal, scopes, reason, lifecycle="archived",
                           previous_lifecycle=memory["lifecycle"])


def restore(db, memory_id: int, principal: Principal, *, reason: str | None = None,
            scopes: tuple[str, ...] | None = None) -> dict:
    with write(db):
        memory = get_memory(db, memory_id)
        return _transition(db, "restore", memory, principal, scopes, reason,
                           lifecycle=memory["previous_lifecycle"] or "candidate", previous_lifecycle=None)


def edit(db, memory_id: int, principal: Principal, content: str, *, reason: str | None = None,
         scopes: tuple[str, ...] | None = None) -> dict:
    """A new version of the text; the prior one stays in memory_versions."""
    content = text.validate(content)
    content_hash = text.content_hash(content)
    with write(db):
        memory = get_memory(db, memory_id)
        authorize("edit", principal, memory, scopes, reason=reason)
        if content == memory["content"]:
            return memory
        check_tombstone(db, memory["shared_scope_id"], content_hash)
        version = memory["version"] + 1
        standing = memory["review_state"] if memory["lifecycle"] == "candidate" else _standing(principal)
        updated = update_memory(db, memory, content=content, content_hash=content_hash, version=version,
                                review_state=standing)
        record_version(db, memory_id, version, content, content_hash, principal, reason)
        audit(db, memory, "edit", principal, from_state=memory["lifecycle"], to_state=memory["lifecycle"],
              reason=reason)
        return updated


def revise(db, memory_id: int, principal: Principal, content: str, *, reason: str | None = None) -> dict:
    """Another sighting of an unreviewed candidate: counted, and new wording becomes a new version; never a
    promotion, and never past a tombstone."""
    content = text.validate(content)
    content_hash = text.content_hash(content)
    with write(db):
        memory = get_memory(db, memory_id)
        authorize("revise", principal, memory, reason=reason)
        check_tombstone(db, memory["shared_scope_id"], content_hash)
        changes = {"corroborations": memory["corroborations"] + 1}
        if content_hash != memory["content_hash"]:
            changes.update(content=content, content_hash=content_hash, version=memory["version"] + 1)
            record_version(db, memory_id, changes["version"], content, content_hash, principal, reason)
        updated = update_memory(db, memory, **changes)
        audit(db, memory, "revise", principal, from_state="candidate", to_state="candidate", reason=reason)
        return updated


def supersede(db, memory_id: int, principal: Principal, content: str, *, reason: str | None = None,
              scopes: tuple[str, ...] | None = None) -> dict:
    """The world changed: a new active row from now on, the old one's validity window closed (not deleted)."""
    content = text.validate(content)
    with write(db):
        old = get_memory(db, memory_id)
        authorize("supersede", principal, old, scopes, reason=reason)
        content_hash = text.content_hash(content)
        check_tombstone(db, old["shared_scope_id"], content_hash)
        at = now()
        new = _insert(db, scope_id=old["scope_id"], target=old["target"], content=content, content_hash=content_hash,
                      principal=principal, lifecycle="active", review_state=_standing(principal), origin="correction",
                      valid_from=at, supersedes=old["id"], reason=reason or f"supersedes memory {old['id']}")
        _close(db, old, new["id"], principal, at, reason)
        return new


def _close(db, old: dict, successor_id: int, principal: Principal, at: str, reason: str | None = None) -> None:
    if old["lifecycle"] != "active":
        return
    update_memory(db, old, lifecycle="superseded", valid_to=at, superseded_by=successor_id)
    audit(db, old, "supersede", principal, from_state="active", to_state="superseded",
          reason=reason or f"superseded by memory {successor_id}")


def merge(db, memory_ids: list[int], principal: Principal, content: str, *, reason: str | None = None,
          scopes: tuple[str, ...] | None = None) -> dict:
    """Several active memories of one scope and target become one new active memory with ``content``: each source
    is superseded by it (window closed, ``superseded_by`` set, audited), its journal provenance is linked to the
    new row, and the new row's version and audit event name the sources. Never across scopes (shared and local,
    or two users'), never past a tombstone; ``unmerge`` reverses it."""
    ids = list(dict.fromkeys(memory_ids))
    if not 2 <= len(ids) <= MAX_MERGE:
        raise InvalidInput(f"a merge takes 2 to {MAX_MERGE} different memory ids, not {len(ids)}")
    content = text.validate(content)
    content_hash = text.content_hash(content)
    with write(db):
        sources = [get_memory(db, memory_id) for memory_id in ids]
        for source in sources:  # every source first: to an agent, another scope's id does not exist
            note = authorize("merge", principal, source, scopes, reason)
        if len({source["scope_id"] for source in sources}) > 1:
            raise InvalidInput("cannot merge memories of different scopes (durable and this chat's, or two users'): "
                               "merge memories of one scope")
        if len({source["target"] for source in sources}) > 1:
            raise InvalidInput("cannot merge memories of different targets: merge memories of one target")
        first, at = sources[0], now()
        check_tombstone(db, first["shared_scope_id"], content_hash)
        listed = ", ".join(f"#{memory_id}" for memory_id in ids)
        new = _insert(db, scope_id=first["scope_id"], target=first["target"], content=content,
                      content_hash=content_hash, principal=principal, lifecycle="active",
                      review_state=_standing(principal), origin="merge", valid_from=at, action="merge",
                      reason=f"merge of {listed}" + (f": {note}" if note else ""),
                      details={"corroborations": sum(source["corroborations"] for source in sources),
                               "provenance": next((s["provenance"] for s in sources if s["provenance"]), None)})
        copy_sources(db, ids, new["id"])
        for source in sources:
            update_memory(db, source, lifecycle="superseded", valid_to=at, superseded_by=new["id"])
            audit(db, source, "merge", principal, from_state="active", to_state="superseded",
                  reason=f"merged into memory {new['id']}" + (f": {note}" if note else ""))
        return new


def merged_sources(db, memory_id: int) -> list[dict]:
    """The memories a merge folded into ``memory_id`` (empty unless it is a merge), in id order."""
    return list(db["memories"].rows_where("superseded_by = ? and lifecycle = 'superseded'", [memory_id],
                                          order_by="id"))


def unmerge(db, memory_id: int, principal: Principal, *, reason: str | None = None,
            scopes: tuple[str, ...] | None = None) -> dict:
    """A person undoes a merge: the merged memory is archived and each source is restored as it was (active,
    window open again), unless a person has since refused a source's value (its tombstone holds)."""
    with write(db):
        merged = get_memory(db, memory_id)
        note = authorize("unmerge", principal, merged, scopes, reason)
        sources = merged_sources(db, memory_id)
        if merged["origin"] != "merge" or not sources:
            raise IllegalTransition(f"cannot unmerge memory {memory_id}: it is not a merge of memories that are "
                                    "still superseded by it")
        for source in sources:
            check_tombstone(db, source["shared_scope_id"], source["content_hash"])
        archived = update_memory(db, merged, lifecycle="archived", previous_lifecycle="active")
        audit(db, merged, "unmerge", principal, from_state="active", to_state="archived", reason=note)
        for source in sources:
            update_memory(db, source, lifecycle="active", valid_to=None, superseded_by=None)
            audit(db, source, "restore", principal, from_state="superseded", to_state="active",
                  reason=f"merge {memory_id} undone" + (f": {note}" if note else ""))
        return archived


def purge(db, memory_id: int, principal: Principal, *, reason: str | None = None,
          scopes: tuple[str, ...] | None = None) -> dict:
    """Erase: content and versions gone, the audit event without content, and what stays of the value (the row's
    hash, the tombstone) keyed with the store's secret, so reading the store cannot confirm a guess of it."""
    plugins = load_plugins()
    with write(db):
        memory = get_memory(db, memory_id)
        note = authorize("purge", principal, memory, scopes, reason=reason)
        key = secret.key(db, create=True)
        _tombstone(db, memory, "purged", principal, note, key)
        db["memory_versions"].delete_where("memory_id = ?", [memory_id])
        erase_sources(db, memory_id)  # the journal entries it came from; links to them are revoked everywhere
        purged = update_memory(db, memory, lifecycle="purged", content="", previous_lifecycle=None,
                               content_hash=text.keyed_hash(memory["content_hash"], key))
        audit(db, memory, "purge", principal, from_state=memory["lifecycle"], to_state="purged", reason=reason)
        plugins.hook.purge_memory_rows(db=db, memory_id=memory_id)  # the recall ledger, and plugins' rows
    scrub(db)
    plugins.hook.purge_memory_copies(db=db, memory_id=memory_id)  # the vector companion, and plugins' copies
    return purged


def rows_in(db, scopes: tuple[str, ...], state: str | None = None) -> list[dict]:
    """Rows of the given scopes for review, optionally of one lifecycle state, oldest first."""
    where = f"scope_id in ({', '.join('?' for _ in scopes)})"
    params = list(scopes)
    if state:
        where += " and lifecycle = ?"
        params.append(state)
    return list(db["memories"].rows_where(where, params, order_by="id"))
