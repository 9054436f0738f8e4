"""Retrieval quality, measured: LoCoMo (any@k / frac@k against a plain BM25 baseline in the same run) and the
negative fixture (what must come back, and what must return nothing), each recomputed from current code."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Iterable

from scope_recall_engine.companion import vectors
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle

KS = (1, 3, 5, 10)
CATEGORIES = (1, 2, 3, 4)  # 5 (adversarial) has no evidence turns to find
FIXTURES = Path(__file__).resolve().parent / "fixtures"  # package data: works from a wheel too
LOADER = human("locomo-loader")


def turn_text(turn: dict) -> str:
    """A dialogue turn as the memory the product would hold: speaker-prefixed, with its image caption."""
    text = f"{turn['speaker']}: {turn.get('text', '')}".strip()
    if turn.get("blip_caption"):
        text += f" (image: {turn['blip_caption']})"
    return text


def _sessions(conversation: dict) -> Iterable[list[dict]]:
    keys = [k for k in conversation if re.fullmatch(r"session_\d+", k) and isinstance(conversation[k], list)]
    for key in sorted(keys, key=lambda k: int(k.split("_")[1])):
        yield conversation[key]


def load_conversation(db, sample: dict) -> tuple[Identity, dict[int, list[str]]]:
    """Store every turn through the public write path into the conversation's own scope."""
    identity = Identity(user=str(sample["sample_id"]), platform="locomo")
    dia_ids: dict[int, list[str]] = {}
    for session in _sessions(sample["conversation"]):
        for turn in session:
            result = lifecycle.store(db, identity, "memory", turn_text(turn), LOADER)
            dia_ids.setdefault(result.id, []).append(turn["dia_id"])
    return identity, dia_ids


def evidence_of(qa: dict) -> set[str]:
    return {part for item in qa.get("evidence", []) for part in re.split(r"[;,\s]+", item) if part}


def _ranked(hits, dia_ids: dict[int, list[str]]) -> list[str]:
    return [dia for hit in hits for dia in dia_ids.get(hit.id, [])]


def _score(ranked: list[str], evidence: set[str]) -> dict[str, float]:
    scores = {}
    for k in KS:
        top = set(ranked[:k])
        scores[f"any@{k}"] = float(bool(top & evidence))
        scores[f"frac@{k}"] = len(top & evidence) / len(evidence)
    return scores


def _summary(rows: list[dict]) -> dict:
    if not rows:
        return {"questions": 0}
    keys = [f"{m}@{k}" for m in ("any", "frac") for k in KS]
    return {"questions": len(rows), **{key: round(100 * sum(r[key] for r in rows) / len(rows), 1) for key in keys}}


def _report(per_question: dict[str, list[dict]]) -> dict:
    return {name: {"overall": _summary(rows),
                   "by_category": {str(c): _summary([r for r in rows if r["category"] == c]) for c in CATEGORIES}}
            for name, rows in per_question.items()}


def locomo(path: str | Path, ranks_out=None, progress=None) -> dict:
    """Load each conversation into a fresh store, drain the vector index, and rank every question (cats 1-4)."""
    samples = json.loads(Path(path).read_text(encoding="utf-8"))
    per_question: dict[str, list[dict]] = {"product": [], "bm25": []}
    abstained = 0
    with tempfile.TemporaryDirectory(prefix="scope-recall-locomo-") as tmp:
        db = connect(Path(tmp) / "locomo.sqlite3")
        loaded = [(sample, *load_conversation(db, sample)) for sample in samples]
        vectors.drain(db, progress=progress)
        for sample, identity, dia_ids in loaded:
            view = View(identity.accessible())
            for qa in sample["qa"]:
                evidence = evidence_of(qa)
                if qa.get("category") not in CATEGORIES or not evidence:
                    continue
                product = retrieval.search(db, view, qa["question"], 10, abstain=False)
                abstained += not product.admitted  # what the abstaining search would have returned: nothing
                baseline = retrieval.lexical(db, view, qa["question"], 10)
                ranked = _ranked(product, dia_ids)
                for name, order in (("product", ranked), ("bm25", _ranked(baseline, dia_ids))):
                    per_question[name].append({"category": qa["category"], **_score(order, evidence)})
                if ranks_out:
                    ranks_out.write(json.dumps({"sample_id": sample["sample_id"], "question": qa["question"],
                                                "category": qa["category"], "ranked": ranked}) + "\n")
        db.close()
    return {"conversations": len(samples), "abstained": abstained, **_report(per_question)}


NEGATIVE_IDENTITY = Identity(user="negative-eval", chat="eval")


def _recall_ids(db, view: View, query: str) -> list[int]:
    from scope_recall_engine.reading import recall

    return recall.packet(db, view, query, surface="eval").ids


def negative(fixture: Path | None = None) -> dict:
    """Run the negative fixture on every surface (search and the recall packet) with the configured embedder."""
    fixture = json.loads(Path(fixture or FIXTURES / "negative.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="scope-recall-negative-") as tmp:
        db = connect(Path(tmp) / "negative.sqlite3")
        ids = {m["key"]: lifecycle.store(db, NEGATIVE_IDENTITY, m["target"], m["content"], LOADER).id
               for m in fixture["memories"]}
        vectors.drain(db)
        view = View(NEGATIVE_IDENTITY.accessible())
        keys = {memory_id: key for key, memory_id in ids.items()}
        positives = []
        for probe in fixture["positives"]:
            query = re.sub(r"\{id:(\w+)\}", lambda m: str(ids[m.group(1)]), probe["query"])
            ranked = [keys[hit.id] for hit in retrieval.search(db, view, query, 3)]
            positives.append({"query": probe["query"], "expect": probe["expect"],
                              "in_top3": probe["expect"] in ranked,
                              "recalled": ids[probe["expect"]] in _recall_ids(db, view, query)})
        negatives = []
        for probe in fixture["negatives"]:
            result = retrieval.search(db, view, probe["query"], 10)
            negatives.append({"kind": probe["kind"], "query": probe["query"],
                              "search": [keys[hit.id] for hit in result.hits], "miss_reason": result.miss_reason,
                              "recall": [keys[i] for i in _recall_ids(db, view, probe["query"])]})
        db.close()
    return {"positives": positives, "negatives": negatives}


def compare(actual: dict, expected: dict) -> list[str]:
    """Field-by-field differences, plus any result that fails the rule itself (so expected cannot drift wrong)."""
    problems = []
    for section in ("positives", "negatives"):
        got, want = actual.get(section, []), expected.get(section, [])
        if len(got) != len(want):
            problems.append(f"{section}: {len(got)} results, expected {len(want)}")
        for index, (g, w) in enumerate(zip(got, want)):
            problems += [f"{section}[{index}] {g.get('query')!r}: {key} = {g.get(key)!r}, expected {w.get(key)!r}"
                         for key in sorted(set(g) | set(w)) if g.get(key) != w.get(key)]
    problems += [f"positive {p['query']!r}: not in the top 3 / not recalled"
                 for p in actual["positives"] if not (p["in_top3"] and p["recalled"])]
    problems += [f"negative {n['query']!r}: returned {n['search'] or n['recall']}"
                 for n in actual["negatives"] if n["search"] or n["recall"]]
    return problems


def table(report: dict) -> str:
    lines = [f"{'retriever':<9} {'cat':<7} {'n':>4} " + " ".join(f"{m}@{k:<3}" for m in ("any", "frac") for k in KS)]
    for name in ("product", "bm25"):
        for label, row in [("1-4", report[name]["overall"]), *report[name]["by_category"].items()]:
            values = " ".join(f"{row.get(f'{m}@{k}', 0):>6.1f}" for m in ("any", "frac") for k in KS)
            lines.append(f"{name:<9} {label:<7} {row['questions']:>4} {values}")
    return "\n".join(lines + [f"product abstained (returned nothing) on {report['abstained']} questions"])
