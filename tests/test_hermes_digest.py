"""The digest as Hermes users live with it: a slow model, sessions that end (or processes that die) mid-digest,
and failures nobody is watching. The digest model is a real ``llm`` model (llm's OpenAI plugin, through
``extra-openai-models.yaml``) talking to a fake server on 127.0.0.1 that the tests can hold, release or break."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_openai import FakeOpenAI, entry_ids, is_extraction
from plugins.memory import load_memory_provider

from hermes_plugin import runtime, status
from scope_recall_engine import config
from scope_recall_engine.cli.main import cli
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import journal

ALICE = Identity(user="alice", platform="telegram", chat="c1", session="old-session")
ENTRIES = 3 * runtime.DIGEST_BATCH  # three batches of the journal wait for the digest


class Model:
    """The digest model's behaviour: ``held`` extraction requests wait until released; ``broken`` ones get junk."""

    def __init__(self):
        self.gate, self.held, self.broken = threading.Semaphore(0), False, False

    def __call__(self, body: dict) -> dict:
        if not is_extraction(body):
            return {"content": json.dumps({"decision": "ADD", "id": None, "reason": "new"})}
        if self.held:
            self.gate.acquire(timeout=60)
        return {"content": "this is not JSON" if self.broken else json.dumps({"facts": []})}


@pytest.fixture
def model():
    behaviour = Model()
    server = FakeOpenAI(behaviour)
    server.register_digest_model(os.environ["LLM_USER_PATH"])
    behaviour.server = server
    yield behaviour
    behaviour.gate.release(100)
    server.close()


@pytest.fixture
def home(hermes_home):
    return hermes_home(digest_model="fake-digest")


@pytest.fixture
def store(home):
    db = connect(runtime.hermes_store(home))
    journal.append_many(db, ALICE, "old-session", [("user", f"Remember that locker {n} holds my blue bag number {n}")
                                                   for n in range(ENTRIES)], config.load(runtime.hermes_store(home)))
    assert journal.backlog(db) == ENTRIES
    yield db
    db.close()


def sent(model) -> list[list[int]]:
    """The entry ids of each extraction request the model received, in order."""
    return [entry_ids(body) for body in model.server.requests if is_extraction(body)]


def wait_for(condition, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def start(home, session):
    provider = load_memory_provider("scope-recall")
    provider.initialize(session, hermes_home=str(home), platform="telegram", user_id="alice", chat_id="c1",
                        agent_context="primary")
    return provider


def runs(db) -> list[str]:
    return [row["status"] for row in db["digest_runs"].rows]


def test_a_session_that_ends_mid_digest_stops_after_its_batch_and_the_next_session_goes_on(home, store, model,
                                                                                            monkeypatch):
    monkeypatch.setattr(runtime, "SHUTDOWN_WAIT_SECONDS", 0.2)  # Hermes' exit comes while a batch is in flight
    model.held = True
    first = start(home, "s1")
    first.on_session_end([])
    wait_for(lambda: len(sent(model)) == 1)
    model.gate.release()  # batch 1 answered and committed
    wait_for(lambda: len(sent(model)) == 2)
    first.shutdown()  # batch 2 still waiting for the model
    model.gate.release()
    wait_for(lambda: runs(store) == ["stopped"])  # batch 2 committed, then the digest stopped
    assert journal.backlog(store) == ENTRIES - 2 * runtime.DIGEST_BATCH

    model.held = False
    second = start(home, "s2")  # no session end needed: the cut-short digest goes on at session start
    assert second._runtime.worker.wait(30)
    assert runs(store) == ["stopped", "done"] and journal.backlog(store) == 0
    batches = sent(model)
    assert [len(batch) for batch in batches] == [runtime.DIGEST_BATCH] * 3
    assert sorted(i for batch in batches for i in batch) == list(range(1, ENTRIES + 1))  # each sent exactly once
    second.shutdown()


CHILD = """
import sys, time
from plugins.memory import load_memory_provider
provider = load_memory_provider("scope-recall")
provider.initialize("s1", hermes_home=sys.argv[1], platform="telegram", user_id="alice", chat_id="c1",
                    agent_context="primary")
provider.on_session_end([])
print("digesting", flush=True)
time.sleep(120)
"""


def test_a_hermes_process_killed_mid_digest_loses_one_batch_and_scope_recall_digest_goes_on(home, store, model):
    model.held = True
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(home)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        wait_for(lambda: len(sent(model)) == 1)
        model.gate.release()
        wait_for(lambda: len(sent(model)) == 2 and journal.backlog(store) == ENTRIES - runtime.DIGEST_BATCH)
        child.send_signal(signal.SIGKILL)  # the process ends with batch 2 at the model
    finally:
        child.wait(10)
    model.held = False
    model.gate.release(10)
    assert runs(store) == ["running"]  # what a killed run leaves behind
    result = CliRunner().invoke(cli, ["--db", str(runtime.hermes_store(home)), "digest", "--user", "alice",
                                      "--platform", "telegram", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["backlog"] == 0 and runs(store) == ["abandoned", "done"]
    first, lost, rest = sent(model)  # the CLI's run takes the rest in one batch of its own size
    assert len(first) == len(lost) == runtime.DIGEST_BATCH
    assert rest == sorted(set(range(1, ENTRIES + 1)) - set(first))  # nothing committed went again...
    assert set(lost) < set(rest)  # ... only the batch that was in flight


def test_a_failed_digest_shows_in_doctor_and_in_both_status_commands_until_a_run_completes(home, store, model):
    model.broken = True
    provider = start(home, "s1")
    provider.on_session_end([])
    assert provider._runtime.worker.wait(30)
    provider.shutdown()
    assert runs(store) == ["failed"] and journal.backlog(store) == ENTRIES  # nothing lost: the entries wait
    db_args = ["--db", str(runtime.hermes_store(home))]
    doctor = CliRunner().invoke(cli, [*db_args, "doctor"])
    assert doctor.exit_code == 1 and "BAD digest_backlog" in doctor.stdout and "did not reply with JSON" in \
        doctor.stdout and "scope-recall digest --user USER" in doctor.stdout
    hermes_status = CliRunner().invoke(cli, ["hermes", "status", "--hermes-home", str(home)])
    assert hermes_status.exit_code == 1 and "last_error: run #1" in hermes_status.stdout
    shown = provider.get_status_config({})
    assert shown["last_error"].startswith("run #1") and shown["ok"].startswith("NO")
    assert shown["backlog"].startswith(f"{ENTRIES} journal entries")
    hermes = subprocess.run([str(Path(sys.executable).with_name("hermes")), "memory", "status"], capture_output=True,
                            text=True, env={**os.environ, "HERMES_HOME": str(home)}, timeout=120)
    assert hermes.returncode == 0 and "last_error: run #1" in hermes.stdout and "digest_model: fake-digest" in \
        hermes.stdout

    model.broken = False  # the cause fixed: a run completes, and the failure is history
    assert CliRunner().invoke(cli, [*db_args, "digest", "--user", "alice", "--platform", "telegram"]).exit_code == 0
    assert CliRunner().invoke(cli, [*db_args, "doctor"]).exit_code == 0
    assert status.report(home)["ok"] is True and runs(store) == ["failed", "done"]


def test_an_unknown_digest_model_inside_hermes_is_recorded_not_just_logged(home, store):
    config.save(runtime.hermes_store(home), config.Config(embedding_model="scope-recall-hash",
                                                          digest_model="no-such-model"))
    provider = start(home, "s1")
    provider.on_session_end([])
    assert provider._runtime.worker.wait(30)
    provider.shutdown()
    report = status.report(home)
    assert not report["ok"] and "unknown digest model 'no-such-model'" in report["last_error"]
    assert "unknown digest model" in report["digest_model"] and journal.backlog(store) == ENTRIES


@pytest.mark.parametrize("model_id, message", [("gpt-4o-mini", "needs an API key"),
                                               ("no-such-model", "unknown digest model")])
def test_the_digest_command_reports_a_missing_key_or_unknown_model_in_one_line(home, store, monkeypatch, model_id,
                                                                                message):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = CliRunner().invoke(cli, ["--db", str(runtime.hermes_store(home)), "digest", "--user", "alice",
                                      "--platform", "telegram", "--model", model_id])
    assert result.exit_code == 1 and message in result.stderr and result.stderr.count("\n") == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert journal.backlog(store) == ENTRIES and runs(store) == []


def test_a_model_that_cannot_be_reached_is_one_line_and_a_recorded_failure(home, store):
    gone = FakeOpenAI(lambda body: {"content": "{}"})
    gone.register_digest_model(os.environ["LLM_USER_PATH"])
    gone.close()  # the digest model's server is down
    result = CliRunner().invoke(cli, ["--db", str(runtime.hermes_store(home)), "digest", "--user", "alice",
                                      "--platform", "telegram"])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "model fake-digest failed (APIConnectionError" in result.stderr
    assert runs(store) == ["failed"] and journal.backlog(store) == ENTRIES
