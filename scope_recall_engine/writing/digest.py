"""The digest: journal entries in, candidate memories out, off the turn path.

Two extractors, chosen explicitly and never substituted for each other: an ``llm`` chat model (structured JSON,
a prompt biased to "most turns contain nothing durable") and a deterministic rules extractor for offline use.
Each batch's candidates, provenance links and "processed" marks commit together, so a re-run finds nothing to
do; a lease (taken in a BEGIN IMMEDIATE transaction) keeps two processes off the same entries. Runs record
counts and ids only: a run log that quoted facts would keep a purged value alive.
"""

from __future__ import annotations

import json
import os
import re
import socket
import threading
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from itertools import groupby
from typing import Callable

from scope_recall_engine.config import Config
from scope_recall_engine.errors import ConfigError, ConflictingOptions, ExtractionFailed, LeaseHeld, MissingKey
from scope_recall_engine.reading import ledger
from scope_recall_engine.truth.scope import TARGETS
from scope_recall_engine.truth.store import now, write
from scope_recall_engine.writing import adjudication, journal
from scope_recall_engine.writing.adjudication import Decision, Fact, Neighbour

BATCH = 200
LEASE = "digest"
LEASE_SECONDS = 300
RULES_VERSION = "rules-1"
PROMPT_VERSION = "digest-prompt-1"


@dataclass
class RunReport:
    run_id: int | None
    extractor: str
    model: str | None
    prompt_version: str
    dry_run: bool = False
    entries: int = 0
    facts: int = 0
    counts: dict = field(default_factory=dict)
    decisions: list = field(default_factory=list)
    backlog: int = 0
    pruned: int = 0
    duration_ms: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


# ---- leases -------------------------------------------------------------------------------------------------

def holder_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}:{uuid.uuid4().hex[:8]}"


def take_lease(db, holder: str) -> None:
    """Take or renew the lease; another holder's unexpired lease refuses with LeaseHeld."""
    moment = datetime.now(timezone.utc)
    at = moment.isoformat(timespec="microseconds")
    expires = (moment + timedelta(seconds=LEASE_SECONDS)).isoformat(timespec="microseconds")
    with write(db):
        row = db.execute("select holder, expires_at from leases where name = ?", [LEASE]).fetchone()
        if row and row[0] != holder and row[1] > at and _alive(row[0]):
            raise LeaseHeld(f"another digest ({row[0]}) holds the lease until {row[1]}")
        if row and row[0] != holder:  # expired, or its process died: its unfinished run is abandoned
            db.execute("update digest_runs set status = 'abandoned', finished_at = ? "
                       "where holder = ? and status = 'running'", [at, row[0]])
        db["leases"].upsert({"name": LEASE, "holder": holder, "acquired_at": at, "expires_at": expires}, pk="name")


def _alive(holder: str) -> bool:
    """A holder on this host whose process is gone holds nothing; one elsewhere is trusted until expiry."""
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def release_lease(db, holder: str) -> None:
    with write(db):
        db.execute("delete from leases where name = ? and holder = ?", [LEASE, holder])


# ---- the rules extractor ------------------------------------------------------------------------------------

_STOP = r"\s(?:and|but|because|so|which|who|since|although|though|when|while|if|as of)\s"
_VALUE = r"(?P<value>[^.;!?\n,]{1,80}?)(?=$|[.;!?\n,]|" + _STOP + ")"  # a value ends at a clause boundary
_TRAILING = re.compile(r"\s+(?:now|too|though|actually|anymore|currently|these days|nowadays|recently|yesterday|today"
                       r"|(?:last|this|next) (?:week|month|year|summer|winter|spring|autumn|fall))$", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_HYPOTHETICAL = re.compile(r"^\s*(?:if|what if|suppose|imagine|when|do|does|did|can|could|would|should)\b", re.I)
_NOT_ATTRIBUTES = {"name", "question", "point", "guess", "problem", "issue", "concern", "bad", "pleasure", "answer",
                   "understanding", "fault", "idea", "turn", "job here", "mistake", "password", "request", "code"}
_THIRD_PERSON = ((re.compile(r"\bI am\b|\bI'm\b"), "the user is"), (re.compile(r"\bmy\b", re.I), "the user's"),
                 (re.compile(r"\bI\b"), "the user"), (re.compile(r"\bme\b", re.I), "the user"))
_PROJECT = re.compile(r"\b(?:project|repo|repository|codebase|build|deploy|deployment|branch|ci)\b", re.I)
RULES = (  # (pattern, slot, template); the first pattern to claim a span wins
    (r"\bmy name is " + _VALUE, "name", "The user's name is {value}."),
    (r"(?i:\bcall me )(?P<value>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?)", "preferred_name",
     "The user wants to be called {value}."),
    (r"\bI(?: currently| still)? (?:live|am living|'m living) in " + _VALUE, "home", "The user lives in {value}."),
    (r"\bI(?: just| recently)? moved to " + _VALUE, "home", "The user lives in {value}."),
    (r"\bI work (?:at|for) " + _VALUE, "employer", "The user works at {value}."),
    (r"\bI work as " + _VALUE, "occupation", "The user works as {value}."),
    (r"\bI(?: really| absolutely)? (?P<verb>prefer|like|love|enjoy|hate|dislike) " + _VALUE, None,
     "The user {verb}s {value}."),
    (r"\b(?:please )?remember that " + _VALUE, None, "{clause}."),
    (r"\bmy (?P<slot>[a-z][\w']*(?: [a-z][\w']*)?) is " + _VALUE, "{slot}", "The user's {slot} is {value}."),
)
_COMPILED = tuple((re.compile(pattern, re.I if "(?i:" not in pattern else 0), slot, template)
                  for pattern, slot, template in RULES)


def _clean(value: str) -> str | None:
    value = _TRAILING.sub("", value.strip(" \"'“”")).strip()
    if not value or value.lower().startswith(("not ", "no longer")) or "[REDACTED" in value:
        return None
    return value


def _third_person(clause: str) -> str:
    for pattern, replacement in _THIRD_PERSON:
        clause = pattern.sub(replacement, clause)
    return clause[:1].upper() + clause[1:]


def _fact_from(match: re.Match, slot: str | None, template: str, entry_id: int) -> Fact | None:
    groups = match.groupdict()
    if template == "{clause}.":
        clause = match.group("value").strip()
        target = "project" if _PROJECT.search(clause) else "memory"
        return Fact(target, _third_person(clause) + ".", (entry_id,)) if clause else None
    value = _clean(groups["value"])
    attribute = groups.get("slot")
    if value is None or (attribute is not None and attribute.lower() in _NOT_ATTRIBUTES):
        return None
    text = template.format(value=value, verb=(groups.get("verb") or "").lower(), slot=(attribute or "").lower())
    return Fact("user", text, (entry_id,), slot.format(slot=(attribute or "").lower()) if slot else None)


class RulesExtractor:
    """Deterministic first-person patterns ("my name is", "I live in", "I prefer", "remember that", ...)."""

    name, model, prompt_version = "rules", None, RULES_VERSION

    def extract(self, entries: list[dict]) -> list[Fact]:
        facts = []
        for entry in entries:
            if entry["role"] == "user":
                facts.extend(self.facts_in(entry["content"], entry["id"]))
        return facts

    @staticmethod
    def facts_in(text: str, entry_id: int) -> list[Fact]:
        found: dict[str, Fact] = {}
        for sentence in _SENTENCE.findall(text):
            if sentence.rstrip().endswith("?") or _HYPOTHETICAL.match(sentence):
                continue
            claimed: set[int] = set()  # where a trigger phrase starts: "my name is" beats "my <x> is"
            for pattern, slot, template in _COMPILED:
                for match in pattern.finditer(sentence):
                    fact = None if match.start() in claimed else _fact_from(match, slot, template, entry_id)
                    if fact:
                        claimed.add(match.start())
                        found.setdefault(fact.content.casefold(), fact)
        return list(found.values())


# ---- the llm extractor --------------------------------------------------------------------------------------

EXTRACT_SYSTEM = """You keep the long-term memory of an assistant. Read the conversation turns and extract only
durable facts worth remembering in future, unrelated conversations: stable facts about the user (name, home,
work, family, lasting preferences), standing instructions, and facts about their projects.
Most turns contain nothing durable. Greetings, questions, one-off requests, small talk, moods, plans for today,
hypotheticals and anything the assistant says about itself are NOT facts. When in doubt, leave it out.
Never copy secrets or [REDACTED:...] markers.
Reply with JSON only: {"facts": [{"entries": [<ids of the turns it comes from>], "target": "user|memory|project|ops",
"key": "<attribute of a single-valued fact, e.g. name, home, employer; else null>",
"content": "<one short third-person sentence>"}]}. Reply {"facts": []} when nothing is durable."""
DECIDE_SYSTEM = """A fact was extracted from a conversation. Existing memories of the same scope are listed as
[id] state: text. Decide one:
ADD - the fact is new.
UPDATE <id> - it is the same fact as candidate <id>, perhaps reworded or refined.
SUPERSEDE <id> - it replaces active memory <id>, which is no longer true.
NOOP <id> - memory <id> already says this, or a person rejected it.
Reply with JSON only: {"decision": "ADD|UPDATE|SUPERSEDE|NOOP", "id": <id or null>, "reason": "<short>"}"""
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def parse_json(text: str, model_id: str) -> dict:
    try:
        data = json.loads(_FENCE.sub("", (text or "").strip()))
    except json.JSONDecodeError:
        raise ExtractionFailed(f"model {model_id} did not reply with JSON; the entries stay queued") from None
    if not isinstance(data, dict):
        raise ExtractionFailed(f"model {model_id} replied with JSON that is not an object")
    return data


class ModelExtractor:
    """An ``llm`` chat model extracts facts from each scope's turns, and decides against the neighbours."""

    name, prompt_version = "llm", PROMPT_VERSION

    def __init__(self, model_id: str):
        import llm  # lazy: the CLI's other commands should not pay for it

        try:
            self.llm_model = llm.get_model(model_id)
            self.llm_model.get_key()  # a missing key is a setup problem: say so before any entry is read
        except llm.UnknownModelError:
            raise ConfigError(f"unknown digest model {model_id!r}: install the llm plugin that provides it "
                              "(llm models lists them)") from None
        except llm.errors.NeedsKeyException as error:
            raise MissingKey(f"digest model {model_id!r} has no API key: {error}") from None
        self.model = self.llm_model.model_id

    def _ask(self, system_prompt: str, prompt: str) -> dict:
        try:
            reply = self.llm_model.prompt(prompt, system=system_prompt).text()
        except Exception as error:  # network, quota, auth: one line, and the entries stay queued
            first_line = (str(error).splitlines() or [""])[0]
            raise ExtractionFailed(f"model {self.model} failed: {type(error).__name__}: {first_line}"[:300]) from None
        return parse_json(reply, self.model)

    def extract(self, entries: list[dict]) -> list[Fact]:
        facts = []
        for _scope, group in groupby(entries, key=lambda entry: entry["scope_id"]):
            group = list(group)
            turns = "\n".join(f"[{e['id']}] {e['role']}: {e['content']}" for e in group)
            facts.extend(self._facts(self._ask(EXTRACT_SYSTEM, "Turns:\n" + turns), {e["id"] for e in group}))
        return facts

    @staticmethod
    def _facts(data: dict, ids: set[int]) -> list[Fact]:
        """Keep well-formed facts that cite turns of this group; drop the rest."""
        facts = []
        for item in data.get("facts") or []:
            if not isinstance(item, dict) or not isinstance(item.get("content"), str):
                continue
            cited = tuple(i for i in item.get("entries") or [] if isinstance(i, int) and i in ids)
            target = item.get("target") if item.get("target") in TARGETS else "user"
            key = item.get("key") if isinstance(item.get("key"), str) and item.get("key").strip() else None
            if cited:
                facts.append(Fact(target, item["content"].strip(), cited, key and key.strip().lower()))
        return facts

    def decide(self, fact: Fact, near: list[Neighbour]) -> Decision | None:
        listing = "\n".join(f"[{n.id}] {n.lifecycle}: {n.content}" for n in near)
        data = self._ask(DECIDE_SYSTEM, f"Fact: {fact.content}\nExisting:\n{listing}")
        action = str(data.get("decision", "")).upper()
        if action not in ("ADD", "UPDATE", "SUPERSEDE", "NOOP"):
            return None
        named = data.get("id") if isinstance(data.get("id"), int) else None
        note = str(data.get("reason") or "")[:300] or None
        reason = f"model: {action}" + (f" {named}" if named is not None else "")
        return Decision(action, named if action != "ADD" else None, reason, by="model", note=note)


def choose(extractor: str | None, model_id: str | None, config: Config):
    """``--extractor rules`` or a model (flag, then config); neither is an error, never a silent substitute."""
    if extractor == "rules":
        if model_id:
            raise ConflictingOptions("choose either --model or --extractor rules, not both")
        return RulesExtractor()
    model_id = model_id or config.digest_model
    return ModelExtractor(model_id) if model_id else None


# ---- runs ---------------------------------------------------------------------------------------------------

def run(db, extractor, *, shared_scope_id: str | None = None, dry_run: bool = False, batch_size: int = BATCH,
        config: Config | None = None, holder: str | None = None,
        stop: Callable[[], bool] | None = None) -> RunReport:
    """Digest every unprocessed entry (of one shared scope, or all). Safe to call from a background thread
    with its own connection. ``dry_run`` does all the work in one transaction and rolls it back. Each batch
    commits on its own, so a run cut short loses at most the batch in flight; ``stop`` is asked after each
    committed batch and, when it says so, ends the run there (status ``stopped``); the next run goes on."""
    report = RunReport(None, extractor.name, extractor.model, extractor.prompt_version, dry_run)
    started = time.perf_counter()
    if dry_run:
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            _digest(db, extractor, report, shared_scope_id, batch_size, None, started, stop)
        finally:
            db.rollback()  # a no-op if an error already ended the transaction
    else:
        holder = holder or holder_id()
        take_lease(db, holder)
        try:
            _digest(db, extractor, report, shared_scope_id, batch_size, holder, started, stop)
            retention = (config or Config()).journal_retention_days
            report.pruned = journal.prune(db, retention)
            ledger.prune_queries(db, retention)
        finally:
            release_lease(db, holder)
    report.backlog = journal.backlog(db, shared_scope_id)
    report.duration_ms = round((time.perf_counter() - started) * 1000, 3)
    return report


def _digest(db, extractor, report: RunReport, shared_scope_id, batch_size, holder, started, stop) -> None:
    with write(db):
        report.run_id = db["digest_runs"].insert({
            "started_at": now(), "status": "running", "holder": holder, "extractor": extractor.name,
            "model": extractor.model, "prompt_version": extractor.prompt_version}).last_pk
    after, status, error = 0, "done", None
    try:
        while entries := journal.unprocessed(db, after, batch_size, shared_scope_id):
            after = entries[-1]["id"]
            _batch(db, extractor, entries, report)
            if holder:
                take_lease(db, holder)  # renew: a long run keeps its claim
            if stop is not None and stop():
                status = "stopped"
                break
    except Exception as failure:
        status, error = "failed", f"{type(failure).__name__}: {failure}"[:500]
        raise
    finally:
        _record(db, report, status, error, started)


def _batch(db, extractor, entries: list[dict], report: RunReport) -> None:
    """Extract (outside the transaction: a model call is slow), then decide, write, link and mark as one."""
    facts = extractor.extract(entries)
    by_id = {entry["id"]: entry for entry in entries}
    decider = extractor if extractor.name == "llm" else None
    proposals = [adjudication.propose(db, by_id[fact.entry_ids[0]]["scope_id"], fact, decider) for fact in facts]
    with write(db):
        for fact, proposal in zip(facts, proposals):
            scope_id, decision = adjudication.decide(db, by_id[fact.entry_ids[0]]["scope_id"], fact, proposal)
            adjudication.apply(db, scope_id, fact, decision, by_id, report.run_id)
            report.decisions.append(decision.as_dict())
        journal.mark_processed(db, list(by_id), report.run_id)
        report.entries += len(entries)
        report.facts += len(facts)
        report.counts = dict(Counter(d["action"] for d in report.decisions))
        _record(db, report, "running", None, None)


def _record(db, report: RunReport, status: str, error: str | None, started: float | None) -> None:
    changes = {"status": status, "entries": report.entries, "facts": report.facts, "error": error,
               "counts": json.dumps(report.counts), "decisions": json.dumps(report.decisions)}
    if started is not None:
        changes.update(finished_at=now(), duration_ms=round((time.perf_counter() - started) * 1000, 3))
    with write(db):
        db["digest_runs"].update(report.run_id, changes)



# ---- what the last runs left behind (doctor, ``scope-recall hermes status``, Hermes' ``memory status``) --------

def record_refusal(db, model_id: str | None, error: Exception) -> int:
    """A digest that could not start (unknown model, missing key) where nobody is watching, such as inside
    Hermes: recorded as a failed run so that doctor and status show it."""
    with write(db):
        return db["digest_runs"].insert({
            "started_at": now(), "finished_at": now(), "status": "failed", "extractor": "llm", "model": model_id,
            "prompt_version": PROMPT_VERSION, "entries": 0, "facts": 0, "error": str(error)[:500]}).last_pk


def last_runs(db) -> dict:
    """The latest run, and the latest failure unless a run has completed since (then it is history)."""
    columns = "id, status, started_at, finished_at, model, extractor, entries, error"
    latest = db.execute(f"select {columns} from digest_runs order by id desc limit 1").fetchone()
    failure = db.execute(f"""select {columns} from digest_runs where status = 'failed' and id > coalesce(
                             (select max(id) from digest_runs where status in ('done', 'stopped')), 0)
                             order by id desc limit 1""").fetchone()
    names = [c.strip() for c in columns.split(",")]
    return {"last_run": dict(zip(names, latest)) if latest else None,
            "last_failure": dict(zip(names, failure)) if failure else None}
