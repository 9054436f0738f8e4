"""Write-time adjudication: for each extracted fact, ADD / UPDATE / SUPERSEDE / NOOP against what the scope
already holds, rejected rows included, so a person's "no" also covers paraphrases of the value.

The rules decide when no model is configured; a model's decision is checked against the neighbours it was
shown, and never overrides a rejection. Reasons written to audit events are content-free (purge erases content,
not audit), so they name ids and similarities, never the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from scope_recall_engine.errors import InvalidInput
from scope_recall_engine.plugins import load_plugins
from scope_recall_engine.reading.retrieval import query_terms, scoped_match
from scope_recall_engine.truth.content import content_hash, normalize, validate
from scope_recall_engine.truth.principals import system
from scope_recall_engine.truth.scope import LOCAL_TARGETS, shared_part
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import journal, lifecycle

SAME = 0.8  # token overlap at which two facts say the same thing
PARAPHRASE = 0.6  # overlap with a rejected value at which the fact counts as a restatement of it
NEIGHBOURS = 8
KNOWN_STATES = ("candidate", "active", "rejected", "archived")
DIGEST = system("digest")
_WORD = re.compile(r"[\w']+")
_IGNORED = frozenset("the a an user user's users is are was be to of in at and for with as it that this s".split())
_SYNONYMS = {word: "+pref" for word in ("like", "love", "enjoy", "prefer", "adore", "favour", "favor")}
_SYNONYMS.update({word: "-pref" for word in ("hate", "dislike", "detest", "loathe")})


@dataclass(frozen=True)
class Fact:
    target: str
    content: str
    entry_ids: tuple[int, ...]
    slot: str | None = None  # the attribute of a single-valued fact (name, home, employer), else None

    def __post_init__(self):
        if self.slot is None:
            object.__setattr__(self, "slot", infer_slot(self.content))


@dataclass(frozen=True)
class Neighbour:
    id: int
    lifecycle: str
    content: str
    content_hash: str
    slot: str | None
    similarity: float


@dataclass
class Decision:
    action: str  # ADD | UPDATE | SUPERSEDE | NOOP | TOMBSTONED | INVALID | REFUSED (by an admission policy)
    memory_id: int | None  # the row it names (or, for ADD/SUPERSEDE, the new candidate once written)
    reason: str  # content-free
    by: str = "rules"
    note: str | None = None  # the model's own words, kept only on the memory row (purge clears it)
    entry_ids: tuple[int, ...] = field(default_factory=tuple)
    tombstone: str | None = None  # rejected | purged, for TOMBSTONED

    def as_dict(self) -> dict:
        return {"action": self.action, "memory_id": self.memory_id, "reason": self.reason, "by": self.by,
                "entries": list(self.entry_ids)}


class Decider(Protocol):
    def decide(self, fact: Fact, neighbours: list[Neighbour]) -> Decision | None: ...


_SLOTS = ((re.compile(r"\bname is\b", re.I), "name"),
          (re.compile(r"\b(?:wants to be called|goes by)\b", re.I), "preferred_name"),
          (re.compile(r"\b(?:lives|is living|resides) in\b|\bmoved to\b", re.I), "home"),
          (re.compile(r"\bworks (?:at|for)\b", re.I), "employer"),
          (re.compile(r"\bworks as\b", re.I), "occupation"),
          (re.compile(r"^the user's ([a-z][\w']*(?: [a-z][\w']*)?) is\b", re.I), None))


def infer_slot(text: str) -> str | None:
    """The single-valued attribute a sentence sets, for rows stored without one ("Alice lives in Lisbon")."""
    for pattern, slot in _SLOTS:
        if match := pattern.search(text):
            return slot or match.group(1).lower()
    return None


def _terms(text: str) -> set[str]:
    words = (word.rstrip("s") if len(word) > 3 else word for word in _WORD.findall(normalize(text)))
    return {_SYNONYMS.get(word, word) for word in words if word not in _IGNORED}


def similarity(a: str, b: str) -> float:
    """Jaccard overlap of content words (plural-folded, preference verbs folded to their polarity)."""
    left, right = _terms(a), _terms(b)
    return len(left & right) / len(left | right) if left and right else 0.0


def fact_scope(entry_scope: str, target: str) -> str:
    return entry_scope if target in LOCAL_TARGETS else shared_part(entry_scope)


def neighbours(db, scope_id: str, fact: Fact, extra_ids: tuple[int, ...] = ()) -> list[Neighbour]:
    """Nearest known rows of the scope, rejected ones included: BM25 over memories_fts (not the visible-only
    search), the rows holding the same slot, and any ids another lane (vectors) found."""
    states = ", ".join(f"'{state}'" for state in KNOWN_STATES)
    columns = "m.id, m.lifecycle, m.content, m.content_hash, m.slot"
    match = scoped_match((scope_id,), query_terms(fact.content))
    rows = db.execute(
        f"select {columns} from memories_fts f join memories m on m.id = f.rowid where memories_fts match ?"
        f" and m.scope_id = ? and m.lifecycle in ({states}) order by bm25(memories_fts, 1.0, 0.0) limit ?",
        [match, scope_id, NEIGHBOURS]).fetchall() if match else []
    if fact.slot:
        rows += db.execute(f"select {columns} from memories m where m.scope_id = ? and m.slot = ?"
                           " and m.lifecycle in ('candidate', 'active') order by m.id desc limit 4",
                           [scope_id, fact.slot]).fetchall()
    if extra_ids:
        marks = ", ".join("?" for _ in extra_ids)
        rows += db.execute(f"select {columns} from memories m where m.id in ({marks}) and m.scope_id = ?",
                           [*extra_ids, scope_id]).fetchall()
    unique = {row[0]: row for row in rows}
    return sorted((Neighbour(*row[:4], row[4] or infer_slot(row[2]), similarity(fact.content, row[2]))
                   for row in unique.values()),
                  key=lambda n: (-n.similarity, n.id))


def by_rules(fact: Fact, fact_hash: str, near: list[Neighbour]) -> Decision:
    """The deterministic decision: a rejection wins, then the same value, then the same slot, else ADD."""
    def first(state: str, threshold: float = SAME, slot: str | None = None) -> Neighbour | None:
        for n in near:
            if n.lifecycle == state and (n.slot == slot if slot else
                                         n.content_hash == fact_hash or n.similarity >= threshold):
                return n
        return None

    if row := first("rejected", PARAPHRASE):
        return Decision("NOOP", row.id, f"restates rejected memory {row.id} (similarity {row.similarity:.2f})")
    if row := first("active") or first("archived"):
        return Decision("NOOP", row.id, f"already {row.lifecycle} as memory {row.id}")
    if row := first("candidate"):
        return Decision("UPDATE", row.id, f"same fact as candidate {row.id} (similarity {row.similarity:.2f})")
    if fact.slot and (row := first("candidate", slot=fact.slot)):
        return Decision("UPDATE", row.id, f"new value for slot '{fact.slot}' of candidate {row.id}")
    if fact.slot and (row := first("active", slot=fact.slot)):
        return Decision("SUPERSEDE", row.id, f"new value for slot '{fact.slot}' of active memory {row.id}")
    return Decision("ADD", None, "no matching row in scope" if not near else
                    f"nearest row {near[0].id} differs (similarity {near[0].similarity:.2f})")


MODEL_SEES = ("active", "candidate")
REQUIRED_STATE = {  # the states the transition that carries out each decision starts from
    "UPDATE": lifecycle.TRANSITIONS["revise"].from_states, "SUPERSEDE": lifecycle.TRANSITIONS["supersede"].from_states,
    "NOOP": KNOWN_STATES, "ADD": None,
}


def checked(proposal: Decision | None, near: list[Neighbour], rules: Decision) -> Decision:
    """Accept a model's decision only if it names a row it was shown, in a state that decision applies to."""
    if proposal is None:
        return rules
    states = REQUIRED_STATE.get(proposal.action, ())
    named = next((n for n in near if n.id == proposal.memory_id), None)
    if states is None or (named is not None and named.lifecycle in states):
        return proposal
    rules.reason = f"model proposed {proposal.action} {proposal.memory_id}, which does not fit; {rules.reason}"
    return rules


def vector_ids(db, scope_id: str, text: str) -> tuple[int, ...]:
    """Active rows the vector companion finds near the fact (verified against truth); none without an index."""
    from scope_recall_engine.companion import dense, vectors  # lazy: LanceDB only when a companion exists

    if not vectors.exists(db):
        return ()
    lane, _status = dense.lane(db, View((scope_id,)), text)
    return tuple(lane.hits) if lane else ()


@dataclass
class Proposal:
    """The slow part of a decision, made outside the write lock: vector neighbours and the model's call."""

    extra_ids: tuple[int, ...] = ()
    decision: Decision | None = None


def _assess(db, scope_id: str, fact: Fact, extra_ids: tuple[int, ...]):
    """Tombstone check, nearest rows and the rules' decision; an early decision when nothing else may apply."""
    try:
        fact_hash = content_hash(validate(fact.content))
    except InvalidInput as error:
        return [], Decision("INVALID", None, str(error)), True
    if stone := lifecycle.find_tombstone(db, shared_part(scope_id), fact_hash):
        return [], Decision("TOMBSTONED", stone["memory_id"], f"value was {stone['reason']} (memory "
                            f"{stone['memory_id']})", tombstone=stone["reason"]), True
    if refusal := load_plugins().hook.admission_policy(content=fact.content, target=fact.target, scope_id=scope_id):
        return [], Decision("REFUSED", None, f"admission policy: {refusal}"), True
    near = neighbours(db, scope_id, fact, extra_ids)
    rules = by_rules(fact, fact_hash, near)
    rejection = rules.action == "NOOP" and any(n.id == rules.memory_id and n.lifecycle == "rejected" for n in near)
    return near, rules, rejection or not near


def propose(db, entry_scope: str, fact: Fact, decider: Decider | None) -> Proposal:
    """Ask the model (if any) before taking the write lock: a model call must never hold up other writers."""
    if decider is None:
        return Proposal()
    scope_id = fact_scope(entry_scope, fact.target)
    extra_ids = vector_ids(db, scope_id, fact.content)
    near, _rules, final = _assess(db, scope_id, fact, extra_ids)
    shown = [n for n in near if n.lifecycle in MODEL_SEES]  # a refused value is never sent to a model
    return Proposal(extra_ids, None if final or not shown else decider.decide(fact, shown))


def decide(db, entry_scope: str, fact: Fact, proposal: Proposal | None = None) -> tuple[str, Decision]:
    """Inside the write: re-read the scope, then take the model's proposal only if it still fits what is there
    now (see ``checked``), else the rules' decision. Returns (scope, decision)."""
    scope_id = fact_scope(entry_scope, fact.target)
    proposal = proposal or Proposal()
    near, decision, final = _assess(db, scope_id, fact, proposal.extra_ids)
    if not final and proposal.decision is not None:
        decision = checked(proposal.decision, near, decision)
    decision.entry_ids = fact.entry_ids
    return scope_id, decision


def apply(db, scope_id: str, fact: Fact, decision: Decision, entries: dict[int, dict], run_id: int | None) -> None:
    """Carry out a decision through the lifecycle functions and cite the journal entries it came from."""
    cited = [entries[i] for i in fact.entry_ids if i in entries]
    if decision.action in ("ADD", "SUPERSEDE"):
        supersedes = decision.memory_id if decision.action == "SUPERSEDE" else None
        result = lifecycle.extract(db, scope_id, fact.target, fact.content, DIGEST, origin="digest",
                                   reason=f"digest {decision.action} ({decision.by}): {decision.reason}",
                                   supersedes=supersedes,
                                   details={"decision": decision.action, "slot": fact.slot,
                                            "decision_reason": decision.note or decision.reason})
        decision.memory_id = result.id
        if result.status != "created":  # the exact value was already there (a lane missed it): count it as what it was
            decision.action = "NOOP" if result.status == "duplicate" else "UPDATE"
    elif decision.action == "UPDATE":
        fresh = [journal.link(db, decision.memory_id, entry, run_id) for entry in cited]
        if fresh and not any(fresh):  # these very entries were merged before: a re-run changes nothing
            decision.action, decision.reason = "NOOP", f"entries already cited by candidate {decision.memory_id}"
            return
        lifecycle.revise(db, decision.memory_id, DIGEST, fact.content,
                         reason=f"digest UPDATE ({decision.by}): {decision.reason}")
        return
    if decision.tombstone == "purged":
        journal.erase(db, [entry["id"] for entry in cited])  # a restated erasure is erased again
    elif decision.memory_id is not None and decision.action != "INVALID":
        for entry in cited:
            journal.link(db, decision.memory_id, entry, run_id)
