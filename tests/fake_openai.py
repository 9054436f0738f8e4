"""A fake OpenAI-compatible chat-completions server on 127.0.0.1, for Hermes' agent loop and for ``llm`` digest
models (registered through llm's ``extra-openai-models.yaml``). It records every request body; what it answers
comes from the test's ``reply(body) -> message`` (``{"content": ...}`` or ``{"tool_calls": [...]}``), which may
block to play a slow model."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

DIGEST_MODEL = "fake-digest"
_ENTRY = re.compile(r"^\[(\d+)\] ", re.M)


class FakeOpenAI:
    def __init__(self, reply: Callable[[dict], dict]):
        self.reply, self.requests = reply, []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not self.path.endswith("/chat/completions"):
                    self.send_error(404)
                    return
                fake.requests.append(body)
                fake.respond(self, body, fake.reply(body))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def to(self, model: str) -> list[dict]:
        return [body for body in self.requests if body.get("model") == model]

    def register_digest_model(self, llm_user_path: str | Path) -> str:
        """Make ``fake-digest`` an llm model that talks to this server (in this process and any child)."""
        path = Path(llm_user_path)
        path.mkdir(parents=True, exist_ok=True)
        (path / "extra-openai-models.yaml").write_text(
            f"- model_id: {DIGEST_MODEL}\n  model_name: {DIGEST_MODEL}\n  api_base: {self.url}\n", encoding="utf-8")
        return DIGEST_MODEL

    def respond(self, handler, body: dict, message: dict) -> None:
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        base = {"id": f"c{len(self.requests)}", "created": 0, "model": body.get("model", "fake")}
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        delta = {"role": "assistant", **message}
        if body.get("stream"):
            chunks = [{**base, "object": "chat.completion.chunk",
                       "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                      {**base, "object": "chat.completion.chunk", "usage": usage,
                       "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}]
            payload = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
            kind = "text/event-stream"
        else:
            payload = json.dumps({**base, "object": "chat.completion", "usage": usage, "choices": [
                {"index": 0, "message": {**delta, "content": delta.get("content")}, "finish_reason": finish}]})
            kind = "application/json"
        raw = payload.encode()
        handler.send_response(200)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(raw)))
        handler.end_headers()
        handler.wfile.write(raw)


def entry_ids(body: dict) -> list[int]:
    """The journal entry ids a digest extraction request shows the model ("[12] user: ...")."""
    text = "\n".join(m["content"] for m in body.get("messages", []) if isinstance(m.get("content"), str))
    return [int(found) for found in _ENTRY.findall(text)]


def is_extraction(body: dict) -> bool:
    return any("You keep the long-term memory" in (m.get("content") or "") for m in body.get("messages", [])
               if m.get("role") == "system")


def last_user(body: dict) -> str:
    content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


def tool_call(name: str, arguments: dict, call_id: str = "call_1") -> dict:
    return {"tool_calls": [{"index": 0, "id": call_id, "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)}}]}
