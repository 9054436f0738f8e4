"""The digest: journal entries in, candidate memories out, off the turn path.

The extractor is chosen explicitly and never substituted: a chat model (an ``llm`` model id, or inside a host
such as Hermes the host's own model, passed in by its adapter; structured JSON, a prompt biased to "most turns
contain nothing durable"; writing/extraction_model.py) or the deterministic rules extractor for offline use
(writing/extraction_rules.py).
Each batch's candidates, provenance links and "processed" marks commit together, so a re-run finds nothing to
do; a lease (taken in a BEGIN IMMEDIATE transaction) keeps two processes off the same entries. Runs record
counts and ids only: a run log that quoted facts would keep a purged value alive.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable

from scope_recall_engine.config import Config
from scope_recall_engine.errors import ConfigError, ConflictingOptions, LeaseHeld
from scope_recall_engine.reading import ledger
from scope_recall_engine.truth.store import now, write
from scope_recall_engine.writing import adjudication, journal
from scope_recall_engine.writing.extraction_model import PROMPT_VERSION, ChatExtractor, ModelExtractor
from scope_recall_engine.writing.extraction_rules import RulesExtractor

BATCH = 200
LEASE = "digest"
LEASE_SECONDS = 300
EXTRACTORS = ("rules", "host", "llm")  # the values of config.json's digest_extractor


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


def choose(extractor: str | None, model_id: str | None, config: Config, host: ChatExtractor | None = None):
    """The flags (``--extractor rules`` or ``--model ID``), else config.json (digest_extractor, digest_model),
    else the host's model if a host lends one (``host``, from its adapter), else None: the backlog waits. One is
    never silently swapped for another: a configured choice that cannot run is an error."""
    if extractor and model_id:
        raise ConflictingOptions("choose either --model or --extractor rules, not both")
    if extractor == "rules" or (not model_id and config.digest_extractor == "rules"):
        return RulesExtractor()
    if model_id:
        return ModelExtractor(model_id)
    if config.digest_extractor not in (None, *EXTRACTORS):
        raise ConfigError(f"digest_extractor {config.digest_extractor!r} in config.json: use one of {EXTRACTORS}")
    if config.digest_extractor == "host" and host is None:
        raise ConfigError("digest_extractor is 'host' (the model of the agent that hosts Scope Recall), which only "
                          "runs inside that host: here, pass --model ID or --extractor rules")
    if config.digest_extractor == "llm" and not config.digest_model:
        raise ConfigError("digest_extractor is 'llm' but config.json names no digest_model")
    if config.digest_model and config.digest_extractor in (None, "llm"):
        return ModelExtractor(config.digest_model)
    return host


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
    decider = extractor if hasattr(extractor, "decide") else None
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
