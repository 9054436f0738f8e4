"""A memory's trust: what people and agents said about it when it was recalled ("helpful" / "unhelpful"), as a
bounded offset to its ranking evidence. It is applied after relevance, so it reorders what recall admits but
never admits a memory nor keeps one out, and it never touches a lifecycle: only a person retires a memory.

trust = (helpful - unhelpful) / (helpful + unhelpful + PRIOR), always inside (-1, 1);
offset = TRUST_WEIGHT * trust standard deviations of the reference population (the unit of ``evidence``).
One "unhelpful" moves a memory 2 sd down, three move it 3, and no amount moves it 4 or more (about the lead
that sharing one more of the query's important words gives: ``LEXICAL_WEIGHT`` is 4.5 sd for all of them).
"""

from __future__ import annotations

import json

VERDICTS = ("helpful", "unhelpful")
PRIOR = 1  # a single opinion counts half: trust = ±1/2 after one, ±3/4 after three
TRUST_WEIGHT = 4.0  # the bound of the offset, in the sd units of ranking evidence (see module docstring)


def counts(db, ids: list[int]) -> dict[int, dict[str, int]]:
    """{memory id: {"helpful": n, "unhelpful": n}} for the memories that have any feedback."""
    found: dict[int, dict[str, int]] = {}
    rows = db.execute("select memory_id, verdict, count(*) from memory_feedback "
                      "where memory_id in (select value from json_each(?)) group by memory_id, verdict",
                      [json.dumps(list(ids))])
    for memory_id, verdict, number in rows:
        found.setdefault(memory_id, dict.fromkeys(VERDICTS, 0))[verdict] = number
    return found


def score(helpful: int, unhelpful: int) -> float:
    return (helpful - unhelpful) / (helpful + unhelpful + PRIOR)


def offset(helpful: int, unhelpful: int) -> float:
    """The ranking offset in sd: strictly between -TRUST_WEIGHT and +TRUST_WEIGHT."""
    return TRUST_WEIGHT * score(helpful, unhelpful)


def adjust(db, candidates: dict) -> None:
    """Retrieval's trust step (called once, after every candidate's evidence and relevance are set): shift each
    candidate's ranking evidence by its bounded offset. Relevance, and so abstention, are left as they are."""
    for memory_id, said in counts(db, list(candidates)).items():
        candidate = candidates[memory_id]
        candidate.trust = offset(said["helpful"], said["unhelpful"])
        candidate.evidence += candidate.trust
