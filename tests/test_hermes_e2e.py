"""End to end: a real Hermes ``AIAgent`` against a fake OpenAI-compatible server on 127.0.0.1.

Turn 1 the (canned) model calls scope_recall_store; turn 2 the stored memory must be inside the
``<memory-context>`` block of the request the server receives.
"""

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hermes_plugin import install, runtime
from scope_recall_engine import config
from scope_recall_engine.truth.store import connect

FACT = "The user's favourite tea is oolong"


class FakeModel(BaseHTTPRequestHandler):
    """Chat completions only: the first call asks for a scope_recall_store tool call, later calls just answer."""

    requests: list = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if not self.path.endswith("/chat/completions"):
            self.send_error(404)
            return
        self.requests.append(body)
        if len(self.requests) == 1:
            call = {"index": 0, "id": "call_1", "type": "function", "function": {
                "name": "scope_recall_store", "arguments": json.dumps({"target": "user", "content": FACT,
                                                                        "user_id": "mallory"})}}
            delta, finish = {"role": "assistant", "tool_calls": [call]}, "tool_calls"
        else:
            delta, finish = {"role": "assistant", "content": f"answer {len(self.requests)}"}, "stop"
        self._reply(body.get("stream"), delta, finish)

    def _reply(self, stream: bool, delta: dict, finish: str):
        base = {"id": f"c{len(self.requests)}", "created": 0, "model": "fake"}
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        if stream:
            chunks = [{**base, "object": "chat.completion.chunk",
                       "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                      {**base, "object": "chat.completion.chunk", "usage": usage,
                       "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}]
            payload, kind = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n", \
                "text/event-stream"
        else:
            message = {**delta, "content": delta.get("content")}
            payload, kind = json.dumps({**base, "object": "chat.completion", "usage": usage, "choices": [
                {"index": 0, "message": message, "finish_reason": finish}]}), "application/json"
        raw = payload.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def fake_model():
    FakeModel.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", FakeModel.requests
    server.shutdown()
    server.server_close()


def _last_user(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


def test_real_agent_recalls_turn_one_memory_inside_turn_two_memory_context(fake_model):
    from run_agent import AIAgent

    url, requests = fake_model
    home = Path(os.environ["HERMES_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    install.install(home, link=True)
    config.save(runtime.hermes_store(home), config.Config(embedding_model="scope-recall-hash"))
    (home / "config.yaml").write_text("memory:\n  provider: scope-recall\n", encoding="utf-8")

    agent = AIAgent(base_url=url, api_key="test-key", model="fake", quiet_mode=True, skip_context_files=True,
                    platform="cli", user_id="alice", max_iterations=4, tool_delay=0, enabled_toolsets=["memory"])
    first = agent.run_conversation("Please remember that my favourite tea is oolong.")
    agent.run_conversation("What is my favourite tea?", conversation_history=first["messages"])
    agent._memory_manager.shutdown_all()

    assert len(requests) == 3  # turn 1: tool call + answer; turn 2: answer
    tools = [tool["function"]["name"] for tool in requests[0]["tools"]]
    assert {"scope_recall_store", "scope_recall_search", "scope_recall_forget", "scope_recall_update"} <= set(tools)
    assert not any("promote" in name or "purge" in name for name in tools)
    assert "<memory-context>" not in _last_user(requests[0])  # nothing stored yet: nothing recalled
    turn_two = _last_user(requests[2])
    block = turn_two[turn_two.index("<memory-context>"):turn_two.index("</memory-context>")]
    assert "Recalled memories (untrusted data" in block and f'"{FACT}"' in block
    assert "Scope Recall long-term memory is on" in requests[2]["messages"][0]["content"]

    db = connect(runtime.hermes_store(home))
    row = next(db["memories"].rows_where("content = ?", [FACT]))
    assert row["created_by"] == "agent:default" and "user:5:alice" in row["scope_id"]  # the model's user_id ignored
    assert db["recall_events"].count == 2
    db.close()
