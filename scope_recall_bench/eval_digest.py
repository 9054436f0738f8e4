"""Extraction, measured: the labelled conversations of ``fixtures/digest.json`` go through the product's own write
path (journal with its noise filter and redaction, then ``digest.run`` with the extractor under test), and a
simulated reviewer promotes each candidate that states a labelled fact and rejects the rest before the persona's
next session, so a later change of a fact meets an active memory (SUPERSEDE) or, within a session, a candidate
(UPDATE).

A candidate *states* a labelled fact (the matching rule, also in docs/digest.md) when
  1. it cites the turn the fact was labelled on,
  2. both say it, or both deny it (a "not", "no", "never", "n't" on either side alone fails the match), and
  3. it holds at least two thirds of the fact's content terms.
Terms are words without stop words ("the", "user", "is", ...), folded to a crude stem ("allergic" and "allergy",
"works" and "working" meet), with like/love/enjoy/prefer/want folded to one "+pref" term and hate/dislike to
"-pref" ("doesn't like" counts as "-pref"). A candidate is *correct* when it states at least one labelled fact
and at least half of its own terms come from the facts labelled on the turns it cites (so a true fact buried in
noise does not count). Recall counts labelled facts stated by some candidate; precision counts correct
candidates among all candidates.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from scope_recall_bench.evals import FIXTURES
from scope_recall_engine.truth.content import normalize
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import digest, journal, lifecycle

DIGEST_FIXTURE = FIXTURES / "digest.json"
SPLITS = ("dev", "heldout")
COVERAGE, PURITY = 2 / 3, 1 / 2
REVIEWER = human("digest-eval")
MATCHING = ("a candidate states a labelled fact when it cites the fact's turn, agrees on negation, and holds "
            ">= 2/3 of the fact's content terms (stemmed, stop words dropped, like/love/prefer/want -> +pref, "
            "hate/dislike -> -pref); it is correct when it states one and >= 1/2 of its own terms come from the "
            "facts labelled on the turns it cites")
_ALLERGY_OR_DIET = re.compile(r"allerg|intoleran|coeliac|celiac|gluten|dairy|lactose", re.I)
_STOP = frozenset("the a an user user's users is are was be been being has have had to of in at on for with as and "
                  "or it its it's that this their they them his her he she assistant does do did very really also "
                  "some mostly mainly just called named there so much more all any".split())
_NEGATIONS = frozenset("not no never cannot nothing none nor longer anymore".split())
_PREFER = frozenset("like love enjoy prefer adore want wish fan favour favor favourite favorite keen".split())
_AVERSE = frozenset("hate dislike detest loathe despise".split())
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def stem(word: str) -> str:
    """A crude stem: plural, -ing and -ed dropped, a final e and a doubled consonant folded, six letters kept."""
    word = word.removesuffix("'s")
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    elif word.endswith("es") and len(word) > 4 and word[-3] in "sxzh":
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word[:6]


def terms(text: str) -> tuple[frozenset[str], bool]:
    """(content terms, negated) of a sentence, for the matching rule."""
    text = re.sub(r"\b(?:can't|cannot|can not) (?:stand|bear)\b", "hate", normalize(text).replace("’", "'"))
    negated, found = False, set()
    for word in _WORD.findall(text):
        if word in _NEGATIONS or word.endswith("n't"):
            negated = True
        elif word in _PREFER or word.rstrip("sd") in _PREFER or word.removesuffix("s") in _PREFER:
            found.add("+pref")
        elif word in _AVERSE or word.rstrip("sd") in _AVERSE or word.removesuffix("s") in _AVERSE:
            found.add("-pref")
        elif word not in _STOP:
            found.add(stem(word))
    if negated and "+pref" in found:  # "does not like" says the same as "dislikes"
        found, negated = (found - {"+pref"}) | {"-pref"}, False
    return frozenset(found), negated


@dataclass
class Label:
    id: str
    category: str
    fact: str
    update: bool

    def __post_init__(self):
        self.terms, self.negated = terms(self.fact)


@dataclass
class Turn:
    split: str
    persona: str
    session: int
    role: str
    text: str
    kind: str | None  # why the turn must yield nothing (question, joke, ...); None when it carries facts
    labels: list[Label] = field(default_factory=list)
    secret: str | None = None


@dataclass
class Candidate:
    turns: list[Turn]
    content: str
    action: str
    found: list[Label]
    correct: bool

    @property
    def category(self) -> str | None:
        labelled = self.found or [label for turn in self.turns for label in turn.labels]
        return labelled[0].category if labelled else None


def load(path: str | Path | None = None) -> list[list[Turn]]:
    """Sessions of turns; assistant turns that carry no kind are "assistant" (they must yield nothing)."""
    data = json.loads(Path(path or DIGEST_FIXTURE).read_text(encoding="utf-8"))
    sessions = []
    for persona in data["personas"]:
        for index, session in enumerate(persona["sessions"]):
            turns = []
            for position, item in enumerate(session):
                role = "user" if "user" in item else "assistant"
                labels = [Label(f"{persona['persona']}/{index}/{position}/{n}", fact[0], fact[1], "update" in fact[2:])
                          for n, fact in enumerate(item.get("facts", []))]
                kind = item.get("none", None if labels or role == "user" else "assistant")
                turns.append(Turn(persona["split"], persona["persona"], index, role, item[role], kind, labels,
                                  item.get("secret")))
            sessions.append(turns)
    return sessions


def states(content_terms: tuple[frozenset[str], bool], label: Label) -> bool:
    found, negated = content_terms
    return negated == label.negated and len(found & label.terms) >= COVERAGE * len(label.terms)


def judge(content: str, cited: list[Turn]) -> tuple[list[Label], bool]:
    """The labelled facts a candidate states, and whether it is correct (see the module docstring)."""
    content_terms = terms(content)
    labels = [label for turn in cited for label in turn.labels]
    found = [label for label in labels if states(content_terms, label)]
    labelled_terms = frozenset().union(*(label.terms for label in labels))
    pure = len(content_terms[0] & labelled_terms) >= PURITY * len(content_terms[0])
    return found, bool(found) and pure


class _Recorder:
    """The extractor under test, keeping what it proposed (a run's decisions come in the same order)."""

    def __init__(self, inner):
        self.inner, self.facts = inner, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def extract(self, entries):
        facts = self.inner.extract(entries)
        self.facts.extend(facts)
        return facts


def _session(db, extractor, turns: list[Turn]) -> list[Candidate]:
    """Journal one session, digest it, judge each candidate, then review like a careful person would."""
    first = turns[0]
    identity = Identity(user=first.persona, platform="eval", chat=f"session-{first.session}")
    appended = journal.append_many(db, identity, f"{first.persona}-{first.session}", [(t.role, t.text) for t in turns])
    by_entry = {entry.id: turn for entry, turn in zip(appended, turns) if entry.id is not None}
    recorder = _Recorder(extractor)
    report = digest.run(db, recorder, shared_scope_id=identity.shared_scope)
    judged, verdicts = [], {}
    for fact, decision in zip(recorder.facts, report.decisions):
        cited = [by_entry[i] for i in fact.entry_ids if i in by_entry]
        found, correct = judge(fact.content, cited)
        judged.append(Candidate(cited, fact.content, decision["action"], found, correct))
        if decision["memory_id"] is not None and decision["action"] in ("ADD", "UPDATE", "SUPERSEDE"):
            verdicts[decision["memory_id"]] = correct
    for memory_id, correct in verdicts.items():
        if db["memories"].get(memory_id)["lifecycle"] == "candidate":
            if correct:
                lifecycle.promote(db, memory_id, REVIEWER)
            else:
                lifecycle.reject(db, memory_id, REVIEWER, reason="digest eval: states no labelled fact")
    return judged


def measure(extractor, fixture: str | Path | None = None, splits: tuple[str, ...] = SPLITS) -> dict:
    """Run every session of the chosen splits through a fresh store; report per split (see ``render``)."""
    sessions = [turns for turns in load(fixture) if turns[0].split in splits]
    candidates = []
    with tempfile.TemporaryDirectory(prefix="scope-recall-digest-eval-") as tmp:
        db = connect(Path(tmp) / "eval.sqlite3")
        for turns in sessions:
            candidates += _session(db, extractor, turns)
        db.close()
        stored = b"".join(path.read_bytes() for path in Path(tmp).iterdir() if path.is_file())
    every_turn = [turn for turns in sessions for turn in turns]
    secrets = [turn for turn in every_turn if turn.secret]
    return {"extractor": extractor.name, "model": extractor.model, "prompt_version": extractor.prompt_version,
            "matching": MATCHING, "secrets": len(secrets),
            "secrets_on_disk": sum(_as_said(turn).encode() in stored for turn in secrets),
            "splits": {split: _split([t for t in every_turn if t.split == split],
                                     [c for c in candidates if c.turns and c.turns[0].split == split])
                       for split in splits}}


def _as_said(turn: Turn) -> str:
    """The secret with the words before it, as the turn said it ("PIN is 7391"): a short secret alone could turn up
    by chance inside a hash or a timestamp in the store file."""
    at = turn.text.index(turn.secret)
    return turn.text[max(0, at - 12):at + len(turn.secret)]


def _share(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def _split(turns: list[Turn], candidates: list[Candidate]) -> dict:
    labels = [label for turn in turns for label in turn.labels]
    finder = {}
    for candidate in candidates:
        for label in candidate.found:
            finder.setdefault(label.id, candidate)
    categories = sorted({label.category for label in labels})
    by_category = {category: _scores([lb for lb in labels if lb.category == category], finder,
                                     [c for c in candidates if c.category == category]) for category in categories}
    updates = [label for label in labels if label.update]
    wrong_turns = {id(turn) for c in candidates if not c.correct for turn in c.turns}
    kinds = sorted({turn.kind for turn in turns if turn.kind})
    allergy_diet = [lb for lb in labels if lb.category == "diet" or _ALLERGY_OR_DIET.search(lb.fact)]
    context = {label.id: turn for turn in turns for label in turn.labels}
    return {
        "turns": len(turns), "overall": _scores(labels, finder, candidates), "by_category": by_category,
        "updates": {"facts": len(updates), "found": sum(lb.id in finder for lb in updates),
                    "decisions": dict(Counter(finder[lb.id].action for lb in updates if lb.id in finder))},
        "nothing": {kind: {"turns": sum(t.kind == kind for t in turns),
                           "yielded": sum(t.kind == kind and id(t) in wrong_turns for t in turns)} for kind in kinds},
        "allergy_and_diet": {"facts": len(allergy_diet), "found": sum(lb.id in finder for lb in allergy_diet)},
        "misses": [{"persona": context[lb.id].persona, "category": lb.category, "fact": lb.fact,
                    "turn": context[lb.id].text} for lb in labels if lb.id not in finder],
        "wrong": [{"persona": c.turns[0].persona, "kind": c.turns[0].kind or c.category, "candidate": c.content,
                   "turn": c.turns[0].text} for c in candidates if not c.correct],
    }


def _scores(labels: list[Label], finder: dict, candidates: list[Candidate]) -> dict:
    found = sum(label.id in finder for label in labels)
    correct = sum(c.correct for c in candidates)
    return {"facts": len(labels), "found": found, "recall": _share(found, len(labels)),
            "candidates": len(candidates), "correct": correct, "precision": _share(correct, len(candidates))}


def _percent(value: float | None) -> str:
    return "   -" if value is None else f"{value:5.1f}"


def render(report: dict) -> str:
    """Per split: recall and precision per category, updates, turns that must yield nothing, then the misses."""
    name = report["extractor"] + (f" ({report['model']}, {report['prompt_version']})" if report["model"]
                                  else f" ({report['prompt_version']})")
    lines = [f"extractor: {name}", f"matching: {report['matching']}",
             f"secrets in the fixture: {report['secrets']}, found on disk after the run: {report['secrets_on_disk']}"]
    for split, result in report["splits"].items():
        lines += ["", f"== {split}: {result['turns']} turns",
                  f"{'category':<12} {'facts':>5} {'found':>5} {'recall':>6} {'cands':>5} {'right':>5} {'prec':>6}"]
        for category, row in [*result["by_category"].items(), ("all", result["overall"])]:
            lines.append(f"{category:<12} {row['facts']:>5} {row['found']:>5} {_percent(row['recall']):>6} "
                         f"{row['candidates']:>5} {row['correct']:>5} {_percent(row['precision']):>6}")
        updates, allergy = result["updates"], result["allergy_and_diet"]
        decided = ", ".join(f"{action} {n}" for action, n in sorted(updates["decisions"].items())) or "none"
        lines.append(f"updates: {updates['found']}/{updates['facts']} found, decided as: {decided}")
        lines.append(f"allergy and diet statements with a candidate: {allergy['found']}/{allergy['facts']}")
        nothing = result["nothing"]
        total = sum(row["turns"] for row in nothing.values())
        yielded = sum(row["yielded"] for row in nothing.values())
        lines.append(f"turns that must yield nothing: {yielded}/{total} yielded a wrong candidate "
                     f"({_percent(_share(yielded, total)).strip()}%): "
                     + ", ".join(f"{kind} {row['yielded']}/{row['turns']}" for kind, row in nothing.items()))
        lines += [f"  miss [{m['category']}] {m['fact']!r} <- {m['turn']!r}" for m in result["misses"]]
        lines += [f"  wrong [{w['kind']}] {w['candidate']!r} <- {w['turn']!r}" for w in result["wrong"]]
    return "\n".join(lines)
