"""The operator's hygiene report and the one clean-up it may lead to. Read-only except ``dedupe``.

The report lists what a person may want to tidy: exact and near duplicates (with the merge it proposes), rows too
short to say anything or too long to be one fact, runtime noise and assistant prose that slipped into memory,
candidates nobody decided for long, decay proposals, and scratch (``general``) rows the vector companion holds
although it never should. ``dedupe`` archives only rows an operator names that are exact duplicates of a row
that stays: audited as that person, reversible by ``restore``. None of this is ever offered to the model.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import timedelta
from itertools import combinations

from scope_recall_engine.errors import InvalidInput, NotPermitted
from scope_recall_engine.plugins import load_plugins
from scope_recall_engine.truth.content import normalize
from scope_recall_engine.truth.principals import Principal
from scope_recall_engine.truth.store import before, get_memory, write
from scope_recall_engine.writing import govern, lifecycle

LIVE = ("active", "candidate")
SHORT_CHARS, LONG_CHARS = 12, 600
NEAR = 0.75  # word-set Jaccard from which two rows are near duplicates
COMMON_WORD_ROWS = 50  # a word in more rows of a shared scope than this does not pair rows up
STALE_DAYS = 30
_WORD = re.compile(r"\w{2,}")
ASSISTANT_PROSE = re.compile(
    r"^\s*(?:sure|certainly|of course|absolutely|great question|got it|noted|understood|okay,? i|as an ai|"
    r"i(?:'ve| have) (?:saved|noted|stored|remembered|updated|added)|i(?:'ll| will) (?:remember|keep|note)|"
    r"i can help|here(?:'s| is) (?:a|an|the|what|how)|let me (?:know|check|help))\b"
    r"|\blet me know if\b|\bhope this helps\b|\bfeel free to\b", re.I)


def _live(db) -> list[dict]:
    columns = "id, scope_id, shared_scope_id, target, content, content_hash, lifecycle, review_state, created_at"
    rows = db.execute(f"select {columns} from memories where lifecycle in ('active', 'candidate') order by id")
    return [dict(zip(columns.split(", "), row)) for row in rows]


def _keeper(rows: list[dict]) -> dict:
    """Which of equal rows stays: active before candidate, reviewed by a person, durable before scratch, oldest."""
    return min(rows, key=lambda r: (r["lifecycle"] != "active", r["review_state"] != "human_reviewed",
                                    r["target"] == "general", r["id"]))


def exact_duplicates(rows: list[dict]) -> list[dict]:
    """Live rows of one shared scope with the same normalized text: keep one, archive the rest."""
    groups = defaultdict(list)
    for row in rows:
        groups[(row["shared_scope_id"], row["content_hash"])].append(row)
    found = []
    for group in (g for g in groups.values() if len(g) > 1):
        keep = _keeper(group)
        found.append({"keep": keep["id"], "archive": [r["id"] for r in group if r is not keep],
                      "content": keep["content"], "scope_id": keep["shared_scope_id"],
                      "command": f"scope-recall dedupe --apply {' '.join(str(r['id']) for r in group if r is not keep)}"
                                 " --by NAME"})
    return found


def near_duplicates(rows: list[dict]) -> list[dict]:
    """Pairs of live rows of one shared scope whose word sets overlap by NEAR or more (not equal): a merge is
    proposed, keeping the longer wording. Rows are paired through the words they share, so the cost follows the
    pairs, not the square of the store."""
    words = {row["id"]: set(_WORD.findall(normalize(row["content"]))) for row in rows}
    by_id = {row["id"]: row for row in rows}
    postings = defaultdict(list)
    for row in rows:
        for word in words[row["id"]]:
            postings[(row["shared_scope_id"], word)].append(row["id"])
    pairs = {pair for ids in postings.values() if len(ids) <= COMMON_WORD_ROWS for pair in combinations(ids, 2)}
    found = []
    for a, b in sorted(pairs):
        first, second = by_id[a], by_id[b]
        union = words[a] | words[b]
        similarity = len(words[a] & words[b]) / len(union) if union else 0.0
        if similarity >= NEAR and first["content_hash"] != second["content_hash"]:
            longer = max((first, second), key=lambda r: (len(r["content"]), -r["id"]))
            found.append({"ids": [a, b], "similarity": round(similarity, 3),
                          "proposed": {"keep": _keeper([first, second])["id"], "content": longer["content"]}})
    return found


def noise(row: dict) -> str | None:
    """Why a memory's text looks like runtime noise or the assistant's own prose, else None."""
    reason = load_plugins().hook.capture_filter(role="user", text=row["content"])
    if reason:
        return reason
    return "assistant prose" if ASSISTANT_PROSE.search(row["content"]) else None


def _general_in_companion(db) -> list[int]:
    from scope_recall_engine.companion import vectors

    if not vectors.exists(db):
        return []
    general = {row[0] for row in db.execute("select id from memories where target = 'general'")}
    return sorted(general & set(vectors.indexed_ids(db)))


def report(db, *, at: str | None = None) -> dict:
    """The whole read-only report, one section per kind of problem."""
    rows = _live(db)
    stale_before = before(timedelta(days=STALE_DAYS), at)
    short = lambda row: len(row["content"]) < SHORT_CHARS or len(_WORD.findall(row["content"])) < 2
    brief = lambda row, **extra: {"id": row["id"], "target": row["target"], "lifecycle": row["lifecycle"],
                                  "content": row["content"][:200], **extra}
    return {
        "memories": len(rows),
        "exact_duplicates": exact_duplicates(rows),
        "near_duplicates": near_duplicates(rows),
        "short": [brief(r, chars=len(r["content"])) for r in rows if short(r)],
        "long": [brief(r, chars=len(r["content"])) for r in rows if len(r["content"]) > LONG_CHARS],
        "noise": [brief(r, why=why) for r in rows if (why := noise(r))],
        "stale_candidates": [brief(r, created_at=r["created_at"]) for r in rows
                             if r["lifecycle"] == "candidate" and r["created_at"] < stale_before],
        "decay": [usage.as_dict() for usage in govern.report(db) if usage.proposal],
        "general_in_companion": _general_in_companion(db),
    }


def dedupe(db, memory_ids: list[int], principal: Principal) -> list[dict]:
    """Archive the named rows, each an exact duplicate of a live row of its shared scope that is not named and so
    stays. All or nothing: a named row that is not such a duplicate refuses the whole call, naming it."""
    if principal.kind != "human":
        raise NotPermitted(f"{principal} may not dedupe: only a person (the operator) may")
    if not memory_ids:
        raise InvalidInput("name the duplicates to archive (ids from scope-recall hygiene)")
    named = set(memory_ids)
    with write(db):
        plan = []
        for memory_id in dict.fromkeys(memory_ids):
            memory = get_memory(db, memory_id)
            twin = db.execute(
                "select id from memories where shared_scope_id = ? and content_hash = ? and lifecycle in "
                "('active', 'candidate') and id not in (select value from json_each(?)) order by "
                "lifecycle != 'active', id limit 1",
                [memory["shared_scope_id"], memory["content_hash"], str(sorted(named))]).fetchone()
            if memory["lifecycle"] not in LIVE or twin is None:
                raise InvalidInput(f"memory {memory_id} is not an exact duplicate of a live memory that stays; "
                                   "dedupe archives only exact duplicates (see scope-recall hygiene)")
            plan.append((memory_id, twin[0]))
        return [lifecycle.archive(db, memory_id, principal, reason=f"exact duplicate of memory {twin}")
                for memory_id, twin in plan]
