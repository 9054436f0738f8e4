"""The digest on the host's model: inside Hermes, the model Hermes uses for side tasks, reached through Hermes' own
auxiliary client (``agent.auxiliary_client.call_llm``) against a fake OpenAI-compatible server on 127.0.0.1."""

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hermes_plugin import host_model
from scope_recall_engine.config import Config
from scope_recall_engine.errors import ConfigError, ExtractionFailed
from scope_recall_engine.writing import digest, journal
from scope_recall_engine.writing.extraction_model import EXTRACT_SYSTEM


class SideTaskModel(BaseHTTPRequestHandler):
    """Chat completions that answer from a queue ('{"facts": []}' when it is empty) and keep each request."""

    replies: list = []
    requests: list = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append(body)
        content = self.replies.pop(0) if self.replies else '{"facts": []}'
        raw = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                          "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                          "choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": content}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def hermes_model(monkeypatch):
    """A Hermes home whose main model is a custom endpoint on 127.0.0.1 (what `hermes model` writes)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    SideTaskModel.replies, SideTaskModel.requests = [], []
    server = ThreadingHTTPServer(("127.0.0.1", 0), SideTaskModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    home = Path(os.environ["HERMES_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(f"model:\n  provider: custom\n  base_url: http://127.0.0.1:"
                                      f"{server.server_address[1]}/v1\n  default: side-model\n", encoding="utf-8")
    yield SideTaskModel
    server.shutdown()
    server.server_close()


def test_with_no_digest_model_configured_a_hermes_session_digests_on_hermes_model(db, alice, hermes_model):
    ids = [journal.append(db, alice, "s1", "user", text).id for text in ("Hi!", "I'm allergic to shellfish.")]
    hermes_model.replies.append(json.dumps({"facts": [
        {"entries": [ids[1]], "target": "user", "key": None, "content": "The user is allergic to shellfish."}]}))
    extractor = host_model.digest_extractor(Config())
    report = digest.run(db, extractor)
    assert (report.extractor, report.model, report.prompt_version) == (
        "host", "hermes:side-model", extractor.prompt_version)
    assert [r["content"] for r in db["memories"].rows] == ["The user is allergic to shellfish."]
    run = db["digest_runs"].get(report.run_id)
    assert (run["extractor"], run["model"], run["prompt_version"]) == ("host", "hermes:side-model", "digest-prompt-2")
    request = hermes_model.requests[0]
    assert request["model"] == "side-model" and request["messages"][0] == {"role": "system",
                                                                            "content": EXTRACT_SYSTEM}
    assert f"[{ids[1]}] user: I'm allergic to shellfish." in request["messages"][1]["content"]


def test_the_choice_inside_hermes(hermes_model, canned):
    assert host_model.digest_extractor(Config(digest_extractor="rules")).name == "rules"
    assert host_model.digest_extractor(Config(digest_model="canned")).model == "canned"  # a configured llm id wins
    assert host_model.digest_extractor(Config(digest_extractor="host")).name == "host"
    assert host_model.digest_extractor(Config()).name == "host"


def test_without_a_hermes_model_the_journal_waits_unless_the_host_was_chosen(monkeypatch):
    for key in ("OPENAI_API_KEY", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    assert host_model.available() is None and host_model.digest_extractor(Config()) is None
    with pytest.raises(ConfigError, match="hermes setup"):
        host_model.digest_extractor(Config(digest_extractor="host"))
    assert host_model.digest_extractor(Config(digest_extractor="rules")).name == "rules"  # control


def test_the_setup_check_makes_one_short_call(hermes_model):
    hermes_model.replies += ['{"ok": true}', "Sure, I'm here!"]
    assert host_model.check("host").startswith("host model hermes:side-model answered in ")
    assert hermes_model.requests[0]["messages"][1]["content"] == 'Reply with this JSON and nothing else: {"ok": true}'
    with pytest.raises(ExtractionFailed, match="did not reply with JSON"):
        host_model.check("host")
    assert host_model.check("rules") == "rules: the offline extractor, no model to call"
    with pytest.raises(ConfigError, match="unknown digest model"):
        host_model.check("llm", "no-such-model")
    with pytest.raises(ConfigError, match="needs a model id"):
        host_model.check("llm")
    with pytest.raises(ConfigError, match="unknown digest extractor"):
        host_model.check("magic")
    assert len(hermes_model.requests) == 2  # the failing choices never reached the model


def test_a_host_model_that_cannot_answer_leaves_the_journal_queued(db, alice, monkeypatch):
    def no_provider(system, prompt):
        raise RuntimeError("No LLM provider configured for task=scope_recall_digest provider=auto. Run: hermes setup")

    journal.append(db, alice, "s1", "user", "I'm vegan.")
    extractor = digest.ChatExtractor(no_provider, "hermes:gone", "host")
    with pytest.raises(ExtractionFailed, match=r"host model hermes:gone failed \(RuntimeError: No LLM provider"):
        digest.run(db, extractor)
    assert journal.backlog(db) == 1 and db["memories"].count == 0
    assert [r["status"] for r in db["digest_runs"].rows] == ["failed"]
    assert digest.run(db, digest.RulesExtractor()).counts == {"ADD": 1}  # control: the entry is still there
