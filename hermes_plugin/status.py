"""What an operator needs to see about the provider in one Hermes home, in ``scope-recall hermes status`` and in
Hermes' own ``hermes memory status``: the store, the CLI user, the digest model and whether it can run, the
backlog, the last digest run and its last failure, and whether the host's built-in memory breaks isolation.
Reading status never creates a store."""

from __future__ import annotations

from pathlib import Path

from hermes_plugin import host
from hermes_plugin.settings import check_model, os_user
from scope_recall_engine import config as settings
from scope_recall_engine.errors import ScopeRecallError
from scope_recall_engine.truth.store import connect, hermes_store


def report(hermes_home: str | Path) -> dict:
    """Every line of the status, plus ``ok`` and the ``problems`` that make it not ok."""
    home = Path(hermes_home).expanduser()
    path = hermes_store(home)
    lines: dict = {"store": str(path) if path.exists() else f"{path} (not created yet: the first session creates it)",
                   "config": str(settings.config_path(path))}
    problems = []
    try:
        config = settings.load(path)
    except ScopeRecallError as error:
        return {**lines, "ok": False, "problems": [str(error)]}
    lines["cli_user"] = config.fallback_user or f"{os_user()} (the OS login; set fallback_user to choose)"
    lines["deployment"] = "multi-user" if config.multi_user else "single-user"
    on = host.builtin_memory_on(home)
    lines["hermes_builtin_memory"] = f"on ({', '.join(on)})" if on else "off"
    if problem := host.isolation_problem(home, config.multi_user):
        problems.append(problem)
    lines["digest_model"] = config.digest_model or "none (the journal waits for `scope-recall digest`)"
    if config.digest_model:
        try:
            check_model(config.digest_model)
        except ScopeRecallError as error:
            problems.append(str(error))
            lines["digest_model"] += f" (cannot run: {error})"
    lines.update(_digest_lines(path))
    if lines.get("last_error", "none") != "none":
        problems.append(f"the last digest failed: {lines['last_error']}")
    return {**lines, "ok": not problems, "problems": problems}


def _digest_lines(path: Path) -> dict:
    if not path.exists():
        return {"backlog": 0, "last_run": "none", "last_error": "none"}
    from scope_recall_engine.writing import digest, journal

    db = connect(path)
    try:
        runs, backlog = digest.last_runs(db), journal.backlog(db)
    finally:
        db.close()
    last, failure = runs["last_run"], runs["last_failure"]
    return {
        "backlog": f"{backlog} journal entries waiting for the digest",
        "last_run": (f"#{last['id']} {last['status']} at {last['finished_at'] or last['started_at']}, "
                     f"{last['entries'] or 0} entries, model {last['model'] or last['extractor']}") if last else "none",
        "last_error": f"run #{failure['id']} at {failure['finished_at']}: {failure['error']}" if failure else "none",
    }
