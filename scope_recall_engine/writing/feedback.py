"""Feedback on a memory: "helpful" or "unhelpful", with a note, from the agent relaying its user, from a person
in the console or on the command line. Each opinion is one ``memory_feedback`` row with its principal.

Feedback is not a decision: it moves ranking within the bounds of ``reading/trust.py`` and never changes a
lifecycle. When FLAG_AFTER "unhelpful" verdicts arrive after a person last looked at the memory (a person's
transition, or a person calling it helpful), it waits in the review queue with the notes as evidence.
"""

from __future__ import annotations

from scope_recall_engine.errors import IllegalTransition, InvalidInput, NotFound
from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.reading import trust
from scope_recall_engine.truth.principals import Principal
from scope_recall_engine.truth.redaction import redact
from scope_recall_engine.truth.store import get_memory, now, write
from scope_recall_engine.truth.visibility import View, visible_rows

FLAG_AFTER = 3  # "unhelpful" verdicts since a person last looked that bring a memory to the review queue
MAX_NOTE_CHARS = 500

# The last moment a person looked at the memory: any transition they applied, or their "helpful".
_REVIEWED = """coalesce((select max(at) from (
      select at from audit_events a where a.memory_id = f.memory_id and a.principal_kind = 'human'
      union all select at from memory_feedback h where h.memory_id = f.memory_id and h.principal_kind = 'human'
        and h.verdict = 'helpful')), '')"""


def record(db, memory_id: int, verdict: str, principal: Principal, *, note: str | None = None,
           surface: str, view: View | None = None) -> dict:
    """Record one opinion. With ``view`` (the agent's), only a memory that view may recall can be judged: to the
    agent another scope's memory does not exist. Returns the memory's counts, trust offset and flag."""
    if verdict not in trust.VERDICTS:
        raise InvalidInput(f"verdict must be {' or '.join(trust.VERDICTS)}, not {verdict!r}")
    note = (note or "").strip() or None
    if note is not None and len(note) > MAX_NOTE_CHARS:
        raise InvalidInput(f"a feedback note is at most {MAX_NOTE_CHARS} characters (this one has {len(note)})")
    with write(db):
        memory = get_memory(db, memory_id)
        if view is not None and memory_id not in visible_rows(db, view, [memory_id]):
            raise NotFound(f"no memory with id {memory_id}")
        if memory["lifecycle"] == "purged":
            raise IllegalTransition(f"memory {memory_id} is purged: there is nothing left to judge")
        db["memory_feedback"].insert({
            "memory_id": memory_id, "scope_id": memory["scope_id"], "verdict": verdict,
            "note": redact(note)[0] if note else None, "principal": str(principal),
            "principal_kind": principal.kind, "surface": surface, "at": now()})
    return summary(db, memory_id)


def summary(db, memory_id: int) -> dict:
    """A memory's feedback as surfaces show it: counts, the trust offset in ranking, and whether it is flagged."""
    said = trust.counts(db, [memory_id]).get(memory_id, dict.fromkeys(trust.VERDICTS, 0))
    return {"id": memory_id, **said, "trust_offset": round(trust.offset(said["helpful"], said["unhelpful"]), 3),
            "flagged": memory_id in flagged_ids(db, memory_id=memory_id)}


def flagged_ids(db, scope_id: str | None = None, memory_id: int | None = None) -> list[int]:
    """Active memories called unhelpful FLAG_AFTER times since a person last looked, longest-waiting first."""
    sql = f"""select f.memory_id from memory_feedback f join memories m on m.id = f.memory_id
              where f.verdict = 'unhelpful' and m.lifecycle = 'active' and f.at > {_REVIEWED}
              and (:scope is null or m.scope_id = :scope) and (:memory is null or m.id = :memory)
              group by f.memory_id having count(*) >= :n order by min(f.at), f.memory_id"""
    rows = db.execute(sql, {"scope": scope_id, "memory": memory_id, "n": FLAG_AFTER})
    return [row[0] for row in rows]


def notes(db, memory_id: int) -> list[dict]:
    """The feedback since a person last looked, oldest first, in the shape of the queue's evidence."""
    rows = db.execute(f"""select f.verdict, f.principal, f.note, f.at from memory_feedback f
                          where f.memory_id = ? and f.at > {_REVIEWED} order by f.id""", [memory_id])
    return [{"role": f"{verdict} · {principal}", "content": note or "(no note)", "created_at": at, "revoked": 0}
            for verdict, principal, note, at in rows]


def history(db, memory_id: int) -> list[dict]:
    """Every opinion on a memory, oldest first (inspect)."""
    return list(db["memory_feedback"].rows_where("memory_id = ?", [memory_id], order_by="id",
                                                 select="verdict, note, principal, surface, at"))


@hookimpl
def purge_memory_rows(db, memory_id: int) -> None:
    """Purge's share of feedback: a note may quote the memory, so the notes go; the verdicts stay as counts."""
    db.execute("update memory_feedback set note = null where memory_id = ?", [memory_id])
