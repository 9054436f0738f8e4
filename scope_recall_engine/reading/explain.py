"""Why recall returned what it did, for an operator: every candidate retrieval weighed (each lane's raw score,
relevance, ranking evidence, the feedback offset), why it was admitted or abstained, and how many other rows
holding the query's words the visibility predicate kept out, by predicate: counts only, never another scope's
content or ids. It runs retrieval itself (``SearchResult.candidates``), so it cannot drift from what recall does.
"""

from __future__ import annotations

from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth.content import clean_query
from scope_recall_engine.truth.visibility import VISIBLE, View

MAX_CANDIDATES = 20

# The first part of VISIBLE a row fails, in the order VISIBLE checks them.
_PREDICATE = """case
  when m.scope_id not in (select value from json_each(:visible_scopes)) then 'scope: not this identity''s'
  when not (+m.lifecycle = 'active' or (+m.lifecycle = 'superseded' and :visible_as_of = 1))
    then 'lifecycle: ' || m.lifecycle
  when m.valid_from is not null and m.valid_from > :visible_at then 'validity: not yet valid'
  when m.valid_to is not null and m.valid_to <= :visible_at then 'validity: no longer valid'
  else 'review: not human-reviewed (trusted only)' end"""


def explain(db, view: View, query: str, limit: int = MAX_CANDIDATES) -> dict:
    """Retrieval for ``query`` as ``view``, with nothing abstained, explained candidate by candidate."""
    found = retrieval.search(db, view, query, limit, abstain=False)
    if found.miss_reason == "gated":
        miss = "gated"
    else:
        miss = None if found.admitted else ("abstained" if found.candidates else "no_match")
    admitted = retrieval.recalled(found.candidates, *found.abstention, found.leans)
    packed = {hit.id for hit in retrieval.near_first([c.row for c in admitted], found.candidates, found.looks_up)}
    kept = {id(c) for c in admitted}
    return {"query": clean_query(query), "miss_reason": miss, "admitted": found.admitted,
            "degraded": found.degraded, "lanes": found.lanes, "rests_on_user": found.rests_on_user,
            "asks_the_world": found.asks_the_world, "small_talk": found.small_talk, "language": found.language,
            "doubted": found.doubted, "makes": found.makes, "read_as": found.read_as,
            "looks_up": found.looks_up,
            "candidates": [_candidate(rank, c, id(c) in kept, c.row.id in packed, found)
                           for rank, c in enumerate(found.candidates[:limit], 1)],
            "excluded": excluded(db, view, query)}


def _candidate(rank: int, candidate: retrieval.Candidate, admitted: bool, packed: bool,
               found: retrieval.SearchResult) -> dict:
    left_out = (f"; left out of the packet: a lookup of a stated fact, and its evidence is more than "
                f"{retrieval.LOOKUP_GAP:g} sd below the first's") if admitted and not packed else ""
    return {"rank": rank, "id": candidate.row.id, "target": candidate.row.target,
            "review_state": candidate.row.review_state,
            "lanes": {lane: _round(score) for lane, score in candidate.lanes.items()},
            "lexical": round(candidate.lexical_own, 4), "dense": _round(candidate.dense),
            "relevance": round(candidate.relevance, 4), "evidence": round(candidate.evidence, 4),
            "trust": round(candidate.trust, 4), "wanted": _round(candidate.wanted), "admitted": admitted,
            "packed": packed, "why": why(candidate, admitted, *found.abstention, found.leans and rank == 1) + left_out}


def _round(value: float | None) -> float | None:
    """Four significant digits: small lane scores must not read as zero."""
    return None if value is None else float(f"{value:.4g}")


def why(candidate: retrieval.Candidate, admitted: bool, context_floor: float | None = None, world: bool = False,
        chat: bool = False, doubted: bool = False, makes: bool = False, leans: bool = False) -> str:
    """The abstention rule that decided this candidate (``retrieval.admission``), with its numbers against the
    rule's thresholds; ``leans`` for the first-ranked candidate where the resting probe leans to the user
    (``retrieval.first_on_meaning``)."""
    verdict = "admitted" if admitted else "abstained"
    rule, floor, margin = retrieval.admission(candidate, context_floor, world, chat, doubted, makes)
    if rule == "exact":
        return "admitted: the query names this memory's id"
    if rule == "world":
        return ("abstained: a general question the world answers (an explanation, a fact, a sum, a joke, a claim "
                "to check) rests on nothing of the user's")
    if rule == "chat":
        return "abstained: small talk that asks nothing (no question, no request) needs nothing of the user's"
    beyond = "no vector" if candidate.beyond == float("-inf") else f"{candidate.beyond:.2f} sd"
    if rule == "context":
        doubt = (f", and {beyond} beyond the best reference sentence against {margin} sd (the resting probe "
                 "doubts it rests on the user)") if margin is not None else ""
        wanted = ("" if candidate.wanted is None else f", and the chance it is wanted {candidate.wanted:.2f} against "
                  f"{retrieval.WANTED_FLOOR} (the resting and bearing probes)")
        above = ", but ranked above a recalled memory" if admitted and not retrieval.admissible(
            candidate, context_floor, world, chat, doubted, makes) else ""
        return (f"{verdict}: the query rests on the user's own context; relevance {candidate.relevance:.3f} "
                f"against the floor {floor}{doubt}{wanted}{above}")
    if rule == "note":
        return (f"{verdict}: a note on how to help, for a request to make something; relevance "
                f"{candidate.relevance:.3f} against the floor {floor}")
    if rule == "words":
        return f"{verdict}: shares words with the query; relevance {candidate.relevance:.3f} against the floor {floor}"
    passing = ("shares only common words or words in passing with this general question, so " if
               candidate.lexical_own > 0 else "")
    first = f" ({retrieval.FIRST_MARGIN} sd as the first ranked: the resting probe leans to the user)" if leans else ""
    return (f"{verdict}: {passing}meaning only; relevance {candidate.relevance:.3f} against the floor {floor}, "
            f"and {beyond} beyond the best reference sentence against {margin} sd{first}")


def excluded(db, view: View, query: str) -> dict[str, int]:
    """Rows anywhere in the store whose text holds one of the query's words but which this view may not recall,
    counted by the predicate that keeps each out (the word index only; the vector lane's finds are re-read under
    the same predicate)."""
    terms = retrieval.query_terms(clean_query(query), content_only=True)[:20]
    if not terms:
        return {}
    match = "content : (" + " OR ".join('"' + term.replace('"', '""') + '"' for term in terms) + ")"
    sql = f"""select {_PREDICATE} as predicate, count(*) from memories_fts
              join memories m on m.id = memories_fts.rowid
              where memories_fts match :match and not ({VISIBLE}) group by predicate order by predicate"""
    return dict(db.execute(sql, {"match": match, **view.params()}).fetchall())
