"""The product's own writers as concurrency roles: the Datasette console, the Hermes provider and the digest.

Each role runs in its own interpreter (started by ``faults.concurrency_run``), writes the same begin/ack lines
as the generic writers, and drives the real adapter: the console through its plugin routes in-process
(``datasette.client``: logged in through the form, posting with the session's CSRF token from its own origin),
Hermes through the provider plugin as Hermes loads it. A role stops on its own when the harness says so, so every
operation it began is either acknowledged or reported.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

from hermes_plugin import PROVIDER_NAME, install, runtime
from scope_recall_engine.errors import LeaseHeld
from scope_recall_engine.truth.principals import system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect, get_memory
from scope_recall_engine.writing import digest, lifecycle

CONSOLE = Identity(user="console-harness", platform="telegram", chat="ops")
HERMES_USER, HERMES_CHAT = "hermes-harness", "c1"
HERMES = Identity(user=HERMES_USER, platform="telegram", chat=HERMES_CHAT,
                  session=f"agent:main:telegram:dm:{HERMES_USER}:{HERMES_CHAT}")
STARTUP_SECONDS = {"writer": 1.0, "digest": 1.0, "console": 3.0, "hermes": 3.0}  # imports before the common start
CONSOLE_ACTIONS = ("promote", "promote", "reject", "edit")
HARNESS_PASSWORD = "harness-password"
ORIGIN = "http://localhost"  # datasette.client's host: the console takes posts from its own pages only


def home_for(db_path) -> Path:
    """A Hermes home whose store is ``db_path`` (its folder linked in as ``scope-recall/``)."""
    return Path(db_path).resolve().parent / "hermes-home"


def prepare(db_path, roles: list[str]) -> None:
    if "hermes" not in roles:
        return
    if Path(db_path).name != runtime.hermes_store(".").name:
        raise ValueError(f"the Hermes role needs the store file to be named {runtime.hermes_store('.').name}")
    home = home_for(db_path)
    home.mkdir(exist_ok=True)
    link = home / "scope-recall"
    if not link.exists():
        link.symlink_to(Path(db_path).resolve().parent, target_is_directory=True)
    install.install(home, link=True)


def run_role(db_path: str, role: str, seed: int, log: Path, start: float, stop: Path, give_up: float) -> None:
    """One role's process: set up, wait for the common start, work until told to stop (the ``stop`` file, or
    ``give_up`` if the harness died); errors are logged lines."""
    from scope_recall_bench.faults import _emit, transitions_worker

    with open(log, "w", encoding="utf-8") as out:
        try:
            work = transitions_worker if role == "writer" else SETUPS[role](db_path)
            db = connect(db_path)
            time.sleep(max(0.0, start - time.time()))
            work(db, random.Random(seed), out, lambda: not stop.exists() and time.time() < give_up)
        except Exception as error:
            _emit(out, "error", error=f"{role}: {type(error).__name__}: {error}"[:400])
            raise


# ---- the console -----------------------------------------------------------------------------------------

def console_role(db_path: str):
    from datasette_auth_passwords.utils import hash_password

    from datasette_plugins import server

    metadata = server.load_metadata()
    metadata["plugins"]["scope-recall"] = {"drain_vectors": False}
    metadata["plugins"]["datasette-auth-passwords"] = {  # an account of its own, logged in through the form
        "harness_password_hash": hash_password(HARNESS_PASSWORD, iterations=1000),
        "actors": {"harness": {"id": "harness-admin", "role": "admin"}}}
    datasette = server.build(db_path, metadata)
    return lambda db, rng, out, running: asyncio.run(_console(datasette, db, rng, out, running))


async def _log_in(datasette) -> tuple[dict, str]:
    """Log in as an operator does; returns the session's cookies and the CSRF token its pages carry."""
    login = await datasette.client.get("/-/login")
    cookies = {"ds_csrftoken": login.cookies["ds_csrftoken"]}
    done = await datasette.client.post("/-/login", cookies=cookies, headers={"origin": ORIGIN}, data={
        "username": "harness", "password": HARNESS_PASSWORD, "csrftoken": _csrf(login.text)})
    cookies = {"ds_actor": done.cookies["ds_actor"]}
    return cookies, _csrf((await datasette.client.get("/-/scope-recall/review", cookies=cookies)).text)


def _csrf(page: str) -> str:
    return page.split('name="csrftoken" value="', 1)[1].split('"', 1)[0]


async def _console(datasette, db, rng, out, running: Callable[[], bool]) -> None:
    """Seed a candidate (as an import would), then decide or edit it through the plugin's POST route."""
    from scope_recall_bench.faults import _emit, _token

    await datasette.invoke_startup()
    cookies, token = await _log_in(datasette)
    while running():
        content = f"console candidate {_token(rng)}"
        _emit(out, "begin", op="candidate", content=content)
        memory_id = lifecycle.extract(db, CONSOLE.shared_scope, "user", content, system("import"),
                                      origin="import").id
        _emit(out, "ack", op="candidate", id=memory_id, content=content, lifecycle="candidate")
        action = rng.choice(CONSOLE_ACTIONS)
        form = {"csrftoken": token}
        if action == "edit":
            form["content"] = f"console edited {_token(rng)}"
        if action == "reject":
            form.update(reason="harness says no", confirm="yes")
        _emit(out, "begin", op=f"console {action}", id=memory_id)
        response = await datasette.client.post(f"/-/scope-recall/memories/{memory_id}/{action}", data=form,
                                               cookies=cookies, headers={"origin": ORIGIN})
        shown = datasette.unsign(response.cookies["ds_messages"], "messages") if "ds_messages" in response.cookies \
            else []
        if response.status_code != 302 or any(kind != datasette.INFO for _, kind in shown):
            raise RuntimeError(f"console {action} of {memory_id}: HTTP {response.status_code}, {shown}")
        row = get_memory(db, memory_id)
        _emit(out, "ack", op=f"console {action}", id=memory_id, content=row["content"], lifecycle=row["lifecycle"])


# ---- the Hermes provider ---------------------------------------------------------------------------------

class _Failures(logging.Handler):
    """The provider logs and swallows failures (a turn goes on without memory); the harness counts them,
    keeping the background vector drain's apart: truth is intact then, only the rebuildable companion is not."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.messages: list[str] = []
        self.background: list[str] = []

    def emit(self, record):
        text = record.getMessage() + (f": {record.exc_info[1]}" if record.exc_info else "")
        (self.background if text.startswith("background job drain") else self.messages).append(text[:300])


def hermes_role(db_path: str):
    home = home_for(db_path)
    os.environ["HERMES_HOME"] = str(home)
    from plugins.memory import load_memory_provider

    provider = load_memory_provider(PROVIDER_NAME)
    provider.initialize("harness-session", hermes_home=str(home), platform="telegram", user_id=HERMES_USER,
                        chat_id=HERMES_CHAT, gateway_session_key=HERMES.session, agent_context="primary")
    failures = _Failures()
    logging.getLogger("scope_recall").addHandler(failures)
    return lambda db, rng, out, running: _hermes(provider, failures, rng, out, running)


def _hermes(provider, failures: _Failures, rng, out, running: Callable[[], bool]) -> None:
    """A conversation: every turn synced (journaled), now and then a fact stored through the memory tool."""
    from scope_recall_bench.faults import FACTS, _emit, _token

    try:
        while running():
            user = rng.choice(FACTS).format(t=_token(rng).capitalize())
            _emit(out, "begin", op="turn", turn=user)
            provider.sync_turn(user, f"Noted, thanks. ({_token(rng)})")
            _check(failures)
            _emit(out, "ack", op="turn", turn=user)
            if rng.random() < 0.4:
                content = f"hermes harness fact {_token(rng)}"
                _emit(out, "begin", op="tool store", content=content)
                result = json.loads(provider.handle_tool_call("scope_recall_store",
                                                              {"target": "user", "content": content}))
                if "error" in result:
                    raise RuntimeError(f"store tool refused: {result}")
                _emit(out, "ack", op="tool store", id=result["id"], content=content, lifecycle=result["lifecycle"])
    finally:
        provider.shutdown()
        for text in failures.background:
            _emit(out, "companion", error=text)
        _check(failures)


def _check(failures: _Failures) -> None:
    if failures.messages:
        raise RuntimeError(f"the provider swallowed a failure: {failures.messages[:3]}")


# ---- the digest ------------------------------------------------------------------------------------------

def digest_role(db_path: str):
    return _digest


def _digest(db, rng, out, running: Callable[[], bool]) -> None:
    """Digest the journal in a loop, as a cron job or a gateway's session-end digests would."""
    from scope_recall_bench.faults import _emit

    while running():
        _emit(out, "begin", op="digest")
        try:
            entries = digest.run(db, digest.RulesExtractor()).entries
        except LeaseHeld:  # another digest holds the lease: its business, not an error
            _emit(out, "ack", op="digest skipped")
            continue
        _emit(out, "ack", op="digest", entries=entries)
        time.sleep(0.02)


SETUPS = {"console": console_role, "hermes": hermes_role, "digest": digest_role}


# ---- afterwards ------------------------------------------------------------------------------------------

def invariants(db, by_role: dict, report) -> list[str]:
    """Counts match: every row each role created is one it acknowledged, and the digest leaves nothing behind."""
    from scope_recall_bench import faults

    problems = []
    expect = {
        "writer": (faults.IDENTITY.shared_scope, None, ("store", "candidate")),
        "console": (CONSOLE.shared_scope, None, ("candidate",)),
        "hermes": (HERMES.shared_scope, "agent:%", ("tool store",)),
    }
    for role, (scope, creator, ops) in expect.items():
        if role not in by_role:
            continue
        acked = sum(by_role[role][op] for op in ops)
        where, params = "shared_scope_id = ?", [scope]
        if creator:
            where, params = where + " and created_by like ?", params + [creator]
        found = db["memories"].count_where(where, params)
        if found != acked:
            problems.append(f"{role}: {found} rows in its scope, {acked} acknowledged")
    if "digest" in by_role:
        finished = digest.run(db, digest.RulesExtractor())
        if finished.backlog:
            problems.append(f"the digest left {finished.backlog} entries behind")
        problems += faults._linked_or_not(db)
    return problems
