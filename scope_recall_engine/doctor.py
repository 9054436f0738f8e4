"""Health checks over one store: each says what is wrong and the command that repairs it."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass
from typing import Callable

from scope_recall_engine.truth.migrations import (
    CONTEXT_DOCUMENT,
    FTS_TABLES,
    MIGRATIONS,
    rebuild_context_index,
    schema_version,
)


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    repair: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


CHECKS: list[Callable] = []
check = CHECKS.append


def run(db) -> list[Check]:
    return [fn(db) for fn in CHECKS]


@check
def integrity(db) -> Check:
    result = [row[0] for row in db.execute("PRAGMA integrity_check")]
    return Check("integrity", result == ["ok"], "; ".join(result[:5]),
                 None if result == ["ok"] else "restore the store from a backup (sqlite3 .recover can salvage rows)")


@check
def schema(db) -> Check:
    applied, known = schema_version(db), [fn.__name__ for fn in MIGRATIONS]
    ok = applied == known
    return Check("schema", ok, f"{len(applied)} of {len(known)} migrations applied (latest {applied[-1:] or None})",
                 None if ok else "run any scope-recall command with this version to migrate")


@check
def full_text_index(db) -> Check:
    """Each FTS index is internally sound and holds exactly one document per memory row."""
    problems = []
    for table in FTS_TABLES:
        try:
            db.execute(f"insert into {table}({table}) values ('integrity-check')")
        except sqlite3.DatabaseError as error:
            problems.append(f"{table}: {error}")
        drift = db.execute(f"""
            select count(*) from (select id from memories except select id from {table}_docsize)
            union all select count(*) from (select id from {table}_docsize except select id from memories)
        """).fetchall()
        missing, extra = drift[0][0], drift[1][0]
        if missing or extra:
            problems.append(f"{table}: {missing} rows missing, {extra} extra")
    stale = db.execute(f"""select count(*) from memories d join memories_context c on c.rowid = d.id
                           where c.content is not {CONTEXT_DOCUMENT.format(row='d')}""").fetchone()[0]
    if stale:
        problems.append(f"memories_context: {stale} documents out of date")
    return Check("full_text_index", not problems, "; ".join(problems) or "FTS indexes match the memories table",
                 "scope-recall doctor --repair" if problems else None)


@check
def entity_index(db) -> Check:
    """The entity index holds exactly what the memories' text mentions now, and no name nothing mentions."""
    from scope_recall_engine.truth import entities

    found = entities.drift(db)
    ok = not (found["missing"] or found["extra"] or found["orphans"])
    detail = f"{found['links']} links to {found['entities']} entities"
    if not ok:
        detail += (f"; {found['missing']} links missing, {found['extra']} extra, {found['orphans']} entities "
                   f"nothing links to (memories {found['memories']})")
    return Check("entity_index", ok, detail, None if ok else "scope-recall doctor --repair")


@check
def audit_coverage(db) -> Check:
    """Every change bumps a row's generation once and writes exactly one audit event with a principal."""
    unaudited = db.execute("""
        select m.id from memories m left join audit_events a on a.memory_id = m.id
        group by m.id having count(a.id) != m.generation limit 20
    """).fetchall()
    anonymous = db.execute("select count(*) from audit_events where coalesce(principal, '') = ''").fetchone()[0]
    ok = not unaudited and not anonymous
    detail = (f"{db['audit_events'].count} events; memories whose changes and events disagree: "
              f"{[row[0] for row in unaudited]}; events without principal: {anonymous}")
    return Check("audit_coverage", ok, detail, None if ok else "investigate: a write bypassed the engine")


@check
def versions(db) -> Check:
    """Every live memory's current text is its latest recorded version."""
    broken = db.execute("""
        select m.id from memories m left join memory_versions v on v.memory_id = m.id and v.version = m.version
        where m.lifecycle != 'purged' and (v.id is null or v.content != m.content) limit 20
    """).fetchall()
    return Check("versions", not broken, f"memories without their current version: {[r[0] for r in broken]}",
                 "investigate: a write bypassed the engine" if broken else None)


@check
def recall_reference(db) -> Check:
    """The reference recall calibrates relevance against: shipped with the engine, loadable, of matching size."""
    from scope_recall_engine.companion import bearing, needs, probes, reference, resting, vectors
    from scope_recall_engine.errors import ConfigError

    model = vectors.model_id(db)
    try:
        texts, words = len(reference.population().texts), len(reference.zipf())
        spoken = [reference.language_zipf(language) for language in reference.languages()]
        if not spoken:
            raise ConfigError("the other languages' word frequencies are missing (messages are weighed as English)")
        shipped = (reference.DATA / f"{model}.npy").exists()
        detail = f"{texts} reference sentences, {words} background words, {len(spoken)} other languages"
        if shipped:
            reference.space(model)
            detail += f", vectors for {model}"
        else:
            detail += f"; vectors for {model} are embedded at its first search and kept beside the companion"
        if needs.shipped_ok(model) is False:
            raise ConfigError(f"the kinds of need {needs.shipped(model)} are corrupt or stale (embedded again and kept "
                              "beside the companion meanwhile)")
        for name, probe, files, without in (
                (resting.NAME, resting.shipped_ok(model), (probes.shipped(resting.NAME, model),
                                                          probes.examples_path(resting.NAME, model)),
                 "the rules alone decide whether a message rests on the user"),
                (bearing.NAME, probes.shipped_ok(bearing.NAME, model), (probes.shipped(bearing.NAME, model),),
                 "memories are ranked without it")):
            if probe is False:
                raise ConfigError(f"the {name} probe ({' and '.join(path.name for path in files)}) is missing or "
                                  f"corrupt ({without})")
            detail += f", the {name} probe" if probe else f"; no {name} probe for this model ({without})"
    except (ConfigError, OSError, ValueError) as error:
        return Check("recall_reference", False, f"{type(error).__name__}: {error}"[:300],
                     "reinstall scope-recall (pip install --force-reinstall scope-recall)")
    return Check("recall_reference", True, detail)


@check
def vector_companion(db) -> Check:
    """The LanceDB companion agrees with truth, except for changes still queued in the outbox (converging);
    with no companion yet, every embeddable memory must at least be queued."""
    from scope_recall_engine.companion import vectors

    try:
        found = vectors.check(db)
    except Exception as error:  # a missing or corrupt companion is a problem with a known repair
        return Check("vector_companion", False, f"unreadable: {type(error).__name__}: {error}"[:300],
                     "scope-recall index rebuild")
    waiting = {row[0] for row in db.execute("select distinct memory_id from vector_outbox")}
    queued = len(waiting)
    missing = [i for i in found.missing if i not in waiting]
    stale = [i for i in found.stale if i not in waiting]
    built = vectors.exists(db)
    ok = not (missing or stale or found.extra or found.repairs) and (found.model == found.index_model or not built)
    if built:
        detail = (f"{found.indexed} indexed of {found.expected}; missing {len(missing)}, stale {len(stale)}, "
                  f"extra {len(found.extra)}, flagged for repair {found.repairs}, queued {queued}; "
                  f"model {found.model} (index built with {found.index_model})")
    else:
        detail = (f"no index yet; {queued} memories queued (scope-recall index drain), "
                  f"{len(missing)} neither indexed nor queued")
    return Check("vector_companion", ok, detail, None if ok else "scope-recall index rebuild")


@check
def store_secret(db) -> Check:
    """Purged values are refused by hashes keyed with the secret beside the store: without it they could return."""
    from scope_recall_engine.truth import secret
    from scope_recall_engine.truth.content import KEYED

    keyed = db.execute("select count(*) from tombstones where content_hash like ?", [KEYED + "%"]).fetchone()[0]
    ok = not keyed or secret.key(db) is not None
    return Check("store_secret", ok, f"{keyed} purged values keyed with {secret.path_for(db)}"
                 + ("" if ok else ", which is missing: they are no longer refused"),
                 None if ok else "restore the .secret file from the store's backup")


@check
def digest_backlog(db) -> Check:
    """The backlog and the last run; a failure nobody has fixed since (a digest inside Hermes fails unseen) is a
    problem until a later run completes."""
    from scope_recall_engine.writing import digest, journal

    leases = [f"{row['name']} held by {row['holder']} until {row['expires_at']}" for row in db["leases"].rows]
    runs = digest.last_runs(db)
    last, failure = runs["last_run"], runs["last_failure"]
    detail = (f"{journal.backlog(db)} journal entries waiting for the digest; last run: "
              + (f"#{last['id']} {last['status']} at {last['finished_at'] or last['started_at']}" if last else "none")
              + f"; leases: {', '.join(leases) or 'none'}")
    if failure:
        detail += f"; last failure: run #{failure['id']} at {failure['finished_at']}: {failure['error']}"
    return Check("digest_backlog", failure is None, detail,
                 "fix what the failure names (model id, API key), then run: scope-recall digest --user USER"
                 if failure else None)


@check
def replication(db) -> Check:
    """With replication configured: the replica is reachable, and no change has waited for a sync much longer than
    the sync interval (the recovery point objective)."""
    from datetime import datetime, timedelta, timezone

    from scope_recall_engine import config, objectstore
    from scope_recall_engine import replication as litestream
    from scope_recall_engine.companion.vectors import database_file
    from scope_recall_engine.errors import ScopeRecallError

    store = database_file(db)
    settings = config.load(store)
    if not settings.replica_url:
        return Check("replication", True, "not configured (scope-recall replicate --to s3://BUCKET/PREFIX)")
    start = f"scope-recall replicate --to {settings.replica_url}"
    try:
        state = litestream.status(store, objectstore.parse(settings.replica_url, settings.object_store_endpoint))
    except ScopeRecallError as error:
        return Check("replication", False, f"{settings.replica_url}: {error}", f"fix that, then run: {start}")
    if state.last_sync is None:
        return Check("replication", False, f"{state.url} holds no backup of this store yet", f"run: {start}")
    grace = timedelta(seconds=max(30.0, 10 * settings.sync_interval_seconds))
    waiting, overdue = litestream.unsynced(db, state.last_sync, grace)
    lag = (datetime.now(timezone.utc) - state.last_sync).total_seconds()
    detail = (f"{state.url}: last successful sync {state.last_sync.isoformat()} ({lag:.0f}s ago, replica at "
              f"transaction {state.replica_txid}); {waiting} changes since, {overdue} of them waiting longer than "
              f"{grace.total_seconds():.0f}s; sync interval {settings.sync_interval_seconds:g}s")
    return Check("replication", not overdue, detail, None if not overdue else f"is Litestream running? {start}")


def repair(db) -> list[str]:
    """Rebuild what can be rebuilt from truth: the FTS indexes and the entity index."""
    from scope_recall_engine.truth import entities
    from scope_recall_engine.truth.store import write

    with write(db):
        for table in ("memories_fts", "memories_trigram"):
            db.execute(f"insert into {table}({table}) values ('rebuild')")
        rebuild_context_index(db)
        entities.rebuild(db)
    return [*FTS_TABLES, "entities"]
