"""Personal recall, measured: does the recall packet put the right memory in front of the agent in the small
stores real users have (tens of memories), stay empty for messages that need none, and never show one user's
memory to another?

Each persona's memories are stored through the public write path in that user's own scope; every later message
then runs through the recall packet (what the agent is shown) and the abstaining search (the ranking behind it),
with no ``index drain`` first unless asked: read-your-writes is the product's job, not the harness's.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import re
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from scope_recall_bench.evals import FIXTURES
from scope_recall_engine import config
from scope_recall_engine.companion import reference, vectors
from scope_recall_engine.errors import InvalidInput
from scope_recall_engine.reading import recall, retrieval
from scope_recall_engine.truth.principals import agent, human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import feedback, lifecycle

DEFAULT_FIXTURE = FIXTURES / "personal.json"
GENERAL_QUESTIONS = FIXTURES / "general_questions.json"  # asked of every persona: they need nothing of anyone
GENERAL_GROUPS = ("impersonal", "first_person")
LOADER = human("personal-eval")
KINDS = ("direct", "implied", "unrelated")
SPLITS = ("dev", "heldout")
RANK_LIMIT = 10  # the ranking the recall packet is cut from
PACKED = 3  # hit@3: a wanted memory among the first three the agent is shown


def read_fixture(path: str | Path | None = None) -> list[dict]:
    """The personas, checked: unknown kinds or splits, repeated ids and wanted ids that name no memory are refused
    with one clear line rather than measured wrongly."""
    path = Path(path or DEFAULT_FIXTURE)
    try:
        personas = json.loads(path.read_text(encoding="utf-8"))["personas"]
        for persona in personas:
            _check(persona)
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as error:
        raise InvalidInput(f"{path}: not a personal fixture ({type(error).__name__}: {error})") from None
    if len({p["user"] for p in personas}) != len(personas):
        raise InvalidInput(f"{path}: two personas share a user id")
    return personas


def with_typo(text: str) -> str:
    """The message as a hurried user types it: its longest word of six or more letters that the language knows,
    with its middle two letters swapped ("daughter" -> "dauhgter"); unchanged when it has none."""
    known = [word for word in re.findall(r"[A-Za-z]{6,}", text) if reference.zipf().get(word.lower(), 0.0)
             >= reference.KNOWN_ZIPF]
    if not known:
        return text
    word = max(known, key=len)
    middle = len(word) // 2 - 1
    return text.replace(word, word[:middle] + word[middle + 1] + word[middle] + word[middle + 2:], 1)


def _check(persona: dict) -> None:
    where = f"persona {persona['key']!r}"
    memory_ids = [m["id"] for m in persona["memories"]]
    if persona["split"] not in SPLITS:
        raise InvalidInput(f"{where}: split {persona['split']!r} is not one of {', '.join(SPLITS)}")
    if len(set(memory_ids)) != len(memory_ids) or not memory_ids:
        raise InvalidInput(f"{where}: memory ids must be present and unique")
    for message in persona["messages"]:
        if message["kind"] not in KINDS:
            raise InvalidInput(f"{where}: message {message['id']!r} has kind {message['kind']!r}")
        if set(message["wanted"]) - set(memory_ids) or (message["kind"] == "unrelated") != (not message["wanted"]):
            raise InvalidInput(f"{where}: message {message['id']!r} must want memories of this persona "
                               "(and none exactly when it is unrelated)")


def identity(persona: dict) -> Identity:
    """What the host would pass for this user."""
    return Identity(user=str(persona["user"]), platform=persona.get("platform", "cli"), chat=persona.get("chat"))


@dataclass
class Stored:
    persona: dict
    identity: Identity
    ids: dict[str, int]  # fixture id -> memory id

    @property
    def keys(self) -> dict[int, str]:
        return {memory_id: key for key, memory_id in self.ids.items()}


def load(db, personas: list[dict]) -> list[Stored]:
    """Every persona's memories through ``lifecycle.store``, into that user's own scope."""
    stored = []
    for persona in personas:
        who = identity(persona)
        ids = {m["id"]: lifecycle.store(db, who, m.get("target", "memory"), m["content"], LOADER).id
               for m in persona["memories"]}
        stored.append(Stored(persona, who, ids))
    return stored


@dataclass
class Probe:
    """One message as recall saw it: what was packed, the abstaining ranking, and the ranking with no abstention."""

    packed: list[int]
    ranked: list[int]
    unabstained: list[int]
    miss_reason: str | None
    degraded: bool

    @property
    def found(self) -> set[int]:
        return {*self.packed, *self.ranked, *self.unabstained}


def probe(db, view: View, text: str) -> Probe:
    packet = recall.packet(db, view, text, surface="eval")
    ranked = retrieval.search(db, view, text, RANK_LIMIT)
    unabstained = retrieval.search(db, view, text, RANK_LIMIT, abstain=False)
    return Probe(packet.ids, [h.id for h in ranked], [h.id for h in unabstained], packet.miss_reason,
                 packet.degraded)


def outcome(message: dict, split: str, seen: Probe, keys: dict[int, str]) -> dict:
    """One message's row: the fixture ids recall returned and whether they include what it wanted."""
    wanted = set(message["wanted"])
    got = [keys[i] for i in seen.packed]
    ranked = [keys[i] for i in seen.ranked]
    unabstained = [keys[i] for i in seen.unabstained]
    return {"id": message["id"], "kind": message["kind"], "split": split, "text": message["text"],
            "wanted": message["wanted"], "got": got, "ranked": ranked, "miss_reason": seen.miss_reason,
            "degraded": seen.degraded,
            "hit@1": bool(wanted & set(got[:1])), "hit@3": bool(wanted & set(got[:PACKED])),
            "all_wanted@3": bool(wanted) and wanted <= set(got[:PACKED]),
            "ranked@10": bool(wanted & set(ranked)), "unabstained@3": bool(wanted & set(unabstained[:PACKED])),
            "leaked": message["kind"] == "unrelated" and bool(got)}


def _rate(count: int, total: int) -> float:
    return round(100 * count / total, 1) if total else 0.0


WANTED_METRICS = ("hit@1", "hit@3", "all_wanted@3", "ranked@10", "unabstained@3")


def summarize(rows: list[dict]) -> dict:
    """Per kind: the wanted-memory metrics as percentages (``answered`` counts hit@3), how many memories a packet
    that is not empty shows (``packed``) and the share of them the message wants (``precision``); and the unrelated
    leak rate (share of unrelated messages whose packet was not empty)."""
    summary = {}
    for label, kinds in (("all", {"direct", "implied"}), ("direct", {"direct"}), ("implied", {"implied"})):
        chosen = [row for row in rows if row["kind"] in kinds]
        packets = [row["got"] for row in chosen if row["got"]]
        shown = sum(len(got) for got in packets)
        summary[label] = {"messages": len(chosen), "answered": sum(row["hit@3"] for row in chosen),
                          **{m: _rate(sum(row[m] for row in chosen), len(chosen)) for m in WANTED_METRICS},
                          "packed": round(shown / len(packets), 2) if packets else 0.0,
                          "precision": _rate(sum(len(set(row["got"]) & set(row["wanted"])) for row in chosen), shown)}
    unrelated = [row for row in rows if row["kind"] == "unrelated"]
    leaked = sum(row["leaked"] for row in unrelated)
    summary["unrelated"] = {"messages": len(unrelated), "leaked": leaked, "leak_rate": _rate(leaked, len(unrelated))}
    return summary


def cross_user(db, stored: list[Stored], *, control: bool = False) -> dict:
    """Each persona's messages asked as the next persona (another user's view over the same store); a hit is any
    id of the first persona that recall packed or ranked. ``control`` widens the probing view to both users'
    scopes, so the same count must then find the first persona's memories."""
    probes = hits = 0
    leaks = []
    for index, owner in enumerate(stored):
        prober = stored[(index + 1) % len(stored)]
        if prober is owner:
            continue
        scopes = prober.identity.accessible() + (owner.identity.accessible() if control else ())
        owned = set(owner.ids.values())
        for message in owner.persona["messages"]:
            found = probe(db, View(scopes), message["text"]).found & owned
            probes += 1
            hits += len(found)
            leaks += [{"message": message["id"], "asked_as": prober.persona["key"],
                       "found": sorted(owner.keys[i] for i in found)}] if found else []
    return {"probes": probes, "hits": hits, "found": leaks}


def general_questions(db, stored: list[Stored]) -> dict:
    """Each general question asked of every persona through the recall packet, per group (impersonal, and chit-chat
    in the first person): any packet that is not empty recalled something nobody needed (the fixtures' own
    unrelated messages are few)."""
    groups = json.loads(GENERAL_QUESTIONS.read_text(encoding="utf-8"))
    report = {}
    for group in GENERAL_GROUPS:
        found = [{"persona": s.persona["key"], "text": text, "got": [s.keys[i] for i in packed]}
                 for s in stored for text in groups[group]
                 if (packed := recall.packet(db, View(s.identity.accessible()), text, surface="eval").ids)]
        asked = len(stored) * len(groups[group])
        report[group] = {"asked": asked, "leaked": len(found), "leak_rate": _rate(len(found), asked), "found": found}
    return report


def feedback_effect(db, stored: list[Stored], rows: list[dict]) -> dict:
    """Before and after feedback: each memory that the abstaining ranking put first for a message that did not
    want it is called "unhelpful" once (by the persona's agent, relaying the user), then every message that wants
    a memory is ranked again. Counts messages whose first-ranked memory is unwanted, and whose is wanted, before
    and after; and lifecycles changed by the feedback (must be 0)."""
    asked = [(s, m, row) for (s, m), row in zip(((s, m) for s in stored for m in s.persona["messages"]), rows)
             if m["kind"] != "unrelated"]
    marked = {s.ids[row["ranked"][0]]: s for s, m, row in asked
              if row["ranked"] and row["ranked"][0] not in m["wanted"]}
    states = dict(db.execute("select id, lifecycle from memories").fetchall())
    for memory_id, s in marked.items():
        feedback.record(db, memory_id, "unhelpful", agent(s.identity.agent), note="eval: ranked first, not wanted",
                        surface="eval", view=View(s.identity.accessible()))
    before = [row["ranked"][:1] for _, _, row in asked]
    after = [[s.keys[hit.id] for hit in retrieval.search(db, View(s.identity.accessible()), m["text"], 1)]
             for s, m, _ in asked]
    wanted = [set(m["wanted"]) for _, m, _ in asked]
    contested = [i for i, (_, m, row) in enumerate(asked)  # an unwanted memory first, a wanted one ranked below it
                 if row["ranked"] and not wanted[i] & set(row["ranked"][:1]) and wanted[i] & set(row["ranked"])]
    changed = sum(states[i] != state for i, state in db.execute("select id, lifecycle from memories"))
    return {"messages": len(asked), "marked_unhelpful": len(marked),
            "unwanted_first_before": sum(bool(b) and not w & set(b) for b, w in zip(before, wanted)),
            "unwanted_first_after": sum(bool(a) and not w & set(a) for a, w in zip(after, wanted)),
            "same_unwanted_first_after": sum(bool(b) and not w & set(b) and a == b
                                             for b, a, w in zip(before, after, wanted)),
            "wanted_first_before": sum(bool(w & set(b)) for b, w in zip(before, wanted)),
            "wanted_first_after": sum(bool(w & set(a)) for a, w in zip(after, wanted)),
            "contested_before": len(contested), "contested_wanted_first_after": sum(
                bool(wanted[i] & set(after[i])) for i in contested),
            "lifecycles_changed": changed}


def personal(path: str | Path | None = None, *, drain: bool = False, model: str | None = None,
             misses: bool = False, typos: bool = False, keep_rows: bool = False) -> dict:
    """Load the fixture into a fresh store and measure recall per split and kind, plus cross-user hits; with
    ``typos``, each of the fixture's messages carries one (``with_typo``); with ``keep_rows``, the report keeps every
    message's row (``outcome``)."""
    personas = read_fixture(path)
    for message in (message for persona in personas for message in persona["messages"] if typos):
        message["text"] = with_typo(message["text"])
    with tempfile.TemporaryDirectory(prefix="scope-recall-personal-") as tmp:
        db_path = Path(tmp) / "personal.sqlite3"
        if model:
            config.save(db_path, config.Config(embedding_model=model))
        db = connect(db_path)
        try:
            stored = load(db, personas)
            if drain:
                vectors.drain(db)
            rows = [outcome(message, s.persona["split"], probe(db, View(s.identity.accessible()), message["text"]),
                            s.keys)
                    for s in stored for message in s.persona["messages"]]
            others = cross_user(db, stored)
            control = cross_user(db, stored, control=True)
            general = general_questions(db, stored)
            after_feedback = feedback_effect(db, stored, rows)  # last: it changes the store's ranking
            embedding_model = vectors.model_id(db)
        finally:
            db.close()
    report = {"fixture": str(path or DEFAULT_FIXTURE), "drained": drain, "typos": typos,
              "embedding_model": embedding_model,
              "personas": len(personas), "memories": sum(len(p["memories"]) for p in personas),
              "messages": len(rows), "degraded": sum(row["degraded"] for row in rows),
              "overall": summarize(rows),
              **{split: summarize([row for row in rows if row["split"] == split]) for split in SPLITS},
              "cross_user": {"probes": others["probes"], "hits": others["hits"], "found": others["found"],
                             "control_hits": control["hits"]},
              "general_questions": {group: {k: v for k, v in found.items() if misses or k != "found"}
                                    for group, found in general.items()},
              "feedback": after_feedback}
    if misses:
        report["misses"] = [row for row in rows if row["leaked"] or (row["kind"] != "unrelated" and not row["hit@3"])]
    if keep_rows:
        report["rows"] = rows
    return report


def many(paths: list[str | Path], *, jobs: int = 1, **options) -> dict:
    """Several fixtures, each in a fresh store of its own (``jobs`` at a time, each in its own process), and their
    total: every message of every file summarized together, as if one fixture held them all."""
    measure = functools.partial(personal, **options, keep_rows=True)
    if jobs > 1:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            reports = list(pool.map(measure, paths))
    else:
        reports = [measure(path) for path in paths]
    rows = [row for report in reports for row in report.pop("rows")]
    total = {"fixtures": len(reports), "messages": len(rows),
             **{key: sum(report[key] for report in reports) for key in ("personas", "memories", "degraded")},
             "overall": summarize(rows),
             "cross_user": {key: sum(report["cross_user"][key] for report in reports)
                            for key in ("probes", "hits", "control_hits")}}
    return {"reports": reports, "total": total}


def feedback_line(effect: dict) -> str:
    return (f"feedback: {effect['marked_unhelpful']} memories ranked first but unwanted were called unhelpful once; "
            f"unwanted memory first {effect['unwanted_first_before']} -> {effect['unwanted_first_after']} "
            f"(the same one still first: {effect['same_unwanted_first_after']}), wanted memory first "
            f"{effect['wanted_first_before']} -> {effect['wanted_first_after']} of {effect['messages']} messages "
            f"(where a wanted one was ranked below an unwanted one: {effect['contested_wanted_first_after']} of "
            f"{effect['contested_before']} now first); "
            f"lifecycles changed: {effect['lifecycles_changed']}")


def _heading(report: dict) -> str:
    lanes = "index drained first" if report["drained"] else "no manual drain (read-your-writes)"
    typed = ", one typo in each message" if report["typos"] else ""
    return f"personal recall, abstention on, {lanes}{typed}, embedder {report['embedding_model']}"


def _packets_line(summary: dict) -> str:
    return "memories a packet shows, overall: " + ", ".join(
        f"{kind} {summary[kind]['packed']:.2f} ({summary[kind]['precision']:.1f}% wanted)"
        for kind in ("direct", "implied"))


def _fixture_line(name: str, summary: dict, cross: dict) -> str:
    every, direct, unrelated = summary["all"], summary["direct"], summary["unrelated"]
    return (f"{name:<26} hit@3 {every['answered']:>5}/{every['messages']:<5} {every['hit@3']:>5.1f}%  "
            f"hit@1 {every['hit@1']:>5.1f}%  direct {direct['answered']:>4}/{direct['messages']:<4}  "
            f"unrelated recalling {unrelated['leaked']:>3}/{unrelated['messages']:<4} {unrelated['leak_rate']:>4.1f}%  "
            f"cross-user {cross['hits']}")


def _miss_lines(report: dict) -> list[str]:
    return [f"MISS {row['id']} [{row['kind']}] {row['text']!r}: wanted {row['wanted'] or '-'}, "
            f"got {row['got'] or '-'} ({row['miss_reason'] or 'packed'}), ranked {row['ranked'] or '-'}"
            for row in report.get("misses", [])]


def many_table(result: dict) -> str:
    """Several fixtures as text: a line for each, their total, then (if asked) the misses."""
    reports, total = result["reports"], result["total"]
    lines = [f"{_heading(reports[0])}: {total['fixtures']} fixtures, {total['personas']} personas, "
             f"{total['memories']} memories, {total['messages']} messages"]
    lines += [_fixture_line(Path(report["fixture"]).name, report["overall"], report["cross_user"])
              for report in reports]
    lines += [_fixture_line("total", total["overall"], total["cross_user"]), _packets_line(total["overall"]),
              f"vector lane unavailable (lexical only) on {total['degraded']} of {total['messages']} messages"]
    return "\n".join(lines + [line for report in reports for line in _miss_lines(report)])


def table(report: dict) -> str:
    """The report as text: one line per split and kind, then leaks, cross-user hits and (if asked) the misses."""
    lines = [f"{_heading(report)}: {report['personas']} personas, {report['memories']} memories, "
             f"{report['messages']} messages",
             f"{'split':<8} {'kind':<8} {'n':>3} {'answered':>8} " + " ".join(f"{m:>13}" for m in WANTED_METRICS)]
    for split in ("overall", *SPLITS):
        for kind in ("all", "direct", "implied"):
            row = report[split][kind]
            lines.append(f"{split:<8} {kind:<8} {row['messages']:>3} {row['answered']:>8} "
                         + " ".join(f"{row[m]:>13.1f}" for m in WANTED_METRICS))
    leaks = ", ".join(f"{split} {report[split]['unrelated']['leaked']}/{report[split]['unrelated']['messages']} "
                      f"({report[split]['unrelated']['leak_rate']:.1f}%)" for split in ("overall", *SPLITS))
    cross, general = report["cross_user"], report["general_questions"]
    lines += [_packets_line(report["overall"]),
              f"unrelated messages recalling something: {leaks}",
              f"cross-user hits: {cross['hits']} over {cross['probes']} probes "
              f"(control, both users' scopes visible: {cross['control_hits']})",
              "general questions asked of every user recalling something: " + ", ".join(
                  f"{group.replace('_', ' ')} {general[group]['leaked']} of {general[group]['asked']} "
                  f"({general[group]['leak_rate']:.1f}%)" for group in GENERAL_GROUPS),
              f"vector lane unavailable (lexical only) on {report['degraded']} of {report['messages']} messages",
              feedback_line(report["feedback"])]
    lines += _miss_lines(report)
    for row in (row for group in GENERAL_GROUPS for row in general[group].get("found", [])):
        lines.append(f"GENERAL {row['persona']} {row['text']!r}: got {row['got']}")
    return "\n".join(lines)
