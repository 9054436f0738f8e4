"""The context, feedback and merge tools end to end through Hermes' own agent loop (real ``AIAgent`` instances as
the gateway builds them) against a fake OpenAI-compatible server: the assertions are on what the model receives
back from each tool call, and on what the store recorded with which principal."""

import json

import pytest
from fake_openai import FakeOpenAI, last_user, tool_call
from test_hermes_e2e import offered, turn

from hermes_plugin import runtime
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import lifecycle

ALICE = {"platform": "telegram", "user_id": "alice", "chat_id": "c-alice"}
BOB = {"platform": "telegram", "user_id": "bob", "chat_id": "c-bob"}


class Script:
    """The fake model: the next user message picks the tool call (with arguments that name another user, which
    must be ignored); after the tool answered, it replies in words."""

    def __init__(self):
        self.calls: dict[str, tuple[str, dict]] = {}

    def __call__(self, body: dict) -> dict:
        if body["messages"][-1]["role"] == "user":
            for trigger, (name, arguments) in self.calls.items():
                if trigger in last_user(body):
                    return tool_call(name, {**arguments, "user_id": "bob"})
        return {"content": "done"}


@pytest.fixture
def script():
    return Script()


@pytest.fixture
def server(script):
    fake = FakeOpenAI(script)
    yield fake
    fake.close()


def tool_result(requests: list[dict]) -> dict:
    """What the tool answered, as the model saw it in the next request."""
    return json.loads(next(m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"))


@pytest.fixture
def seeded(hermes_home):
    home = hermes_home()
    db = connect(runtime.hermes_store(home))
    alice = Identity(user="alice", platform="telegram", chat="c-alice")
    bob = Identity(user="bob", platform="telegram", chat="c-bob")
    ids = {name: lifecycle.store(db, who, "user", text, human("op")).id for name, who, text in (
        ("a1", alice, "Alice's favourite tea is oolong"), ("a2", alice, "Alice drinks oolong tea every morning"),
        ("b1", bob, "Bob's favourite tea is oolong with honey"))}
    yield db, ids
    db.close()


def test_context_tool_through_the_agent_loop_shows_only_the_users_memories(server, script, seeded):
    db, ids = seeded
    script.calls["context"] = ("scope_recall_context", {"query": "favourite oolong tea", "budget": 500})
    requests = turn(server, "Give me the context about tea", **ALICE)
    assert "scope_recall_context" in offered(requests[0])
    block = tool_result(requests)
    assert block["context"].startswith("Context from memory for this task") and len(block["context"]) <= 500
    assert "Alice's favourite tea is oolong" in block["context"]  # positive control: her memory, with evidence
    assert f"[#{ids['a1']} user · human_reviewed]" in block["context"]
    assert "honey" not in json.dumps(block) and ids["b1"] not in [e["id"] for e in block["evidence"]]
    as_bob = tool_result(turn(server, "Give me the context about tea", **BOB))
    assert "honey" in as_bob["context"] and "Alice" not in as_bob["context"]  # the model's user_id was ignored
    assert db.execute("select count(*) from recall_events where surface = 'hermes-tool'").fetchone()[0] == 2


def test_feedback_tool_records_the_agent_and_refuses_another_users_memory(server, script, seeded):
    db, ids = seeded
    script.calls["wrong"] = ("scope_recall_feedback", {"id": ids["a1"], "verdict": "unhelpful", "note": "outdated"})
    said = tool_result(turn(server, "That tea memory is wrong", **ALICE))
    assert said["unhelpful"] == 1 and said["trust_offset"] < 0 and said["flagged"] is False
    row = next(db["memory_feedback"].rows)
    assert (row["memory_id"], row["principal"], row["note"]) == (ids["a1"], "agent:default", "outdated")
    assert db["memories"].get(ids["a1"])["lifecycle"] == "active"  # feedback never changes a lifecycle
    script.calls["wrong"] = ("scope_recall_feedback", {"id": ids["b1"], "verdict": "unhelpful"})
    refused = tool_result(turn(server, "That tea memory is wrong", **ALICE))
    assert refused["kind"] == "NotFound" and "hint" in refused
    assert db["memory_feedback"].count == 1


def test_merge_tool_merges_within_the_users_scope_only(server, script, seeded):
    db, ids = seeded
    script.calls["merge"] = ("scope_recall_merge", {"ids": [ids["a1"], ids["b1"]], "content": "Tea: oolong"})
    refused = tool_result(turn(server, "Please merge those", **ALICE))
    assert refused["kind"] == "NotFound" and db["memories"].get(ids["b1"])["lifecycle"] == "active"
    script.calls["merge"] = ("scope_recall_merge", {"ids": [ids["a1"], ids["a2"]],
                                                    "content": "Alice drinks oolong every morning; her favourite"})
    merged = tool_result(turn(server, "Please merge those", **ALICE))
    assert merged["lifecycle"] == "active" and merged["merged"] == [ids["a1"], ids["a2"]]
    new = db["memories"].get(merged["id"])
    assert new["created_by"] == "agent:default" and "user:5:alice" in new["scope_id"] and new["origin"] == "merge"
    assert {db["memories"].get(i)["lifecycle"] for i in (ids["a1"], ids["a2"])} == {"superseded"}
