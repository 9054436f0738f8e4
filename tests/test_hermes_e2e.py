"""End to end through Hermes' own agent loop: real ``AIAgent`` instances, built the way Hermes' gateway builds
them (one per message, a platform and a user id), talking to a fake OpenAI-compatible server on 127.0.0.1. The
assertions are on the request bodies that server receives: what the model is shown, and which tools it is offered.
"""

import json

import pytest
from fake_openai import FakeOpenAI, last_user, tool_call

from hermes_plugin import install, runtime
from scope_recall_engine import config
from scope_recall_engine.truth.store import connect

FACT = "The user's favourite tea is oolong"
TOOLS = ["scope_recall_store", "scope_recall_search", "scope_recall_forget", "scope_recall_update",
         "scope_recall_context", "scope_recall_feedback", "scope_recall_merge",
         "scope_recall_probe", "scope_recall_related", "scope_recall_stats"]
BUILTIN_NOTE = "Alice keeps her passport in the blue folder"  # what alice saved through Hermes' built-in tool


ASKED = {  # what the user says -> the tool the model calls (naming another user, which must be ignored)
    "Please remember": ("scope_recall_store", {"target": "user", "content": FACT, "user_id": "mallory"}),
    "What do you know about Ana": ("scope_recall_probe", {"entity": "Ana", "user_id": "mallory"}),
    "Who comes up with Ana": ("scope_recall_related", {"entity": "ana"}),
    "How big is my memory": ("scope_recall_stats", {"user_id": "mallory"}),
}


def model_reply(body: dict) -> dict:
    """Call the tool the user's words ask for, once; then answer."""
    if body["messages"][-1]["role"] == "user":
        for words, (name, arguments) in ASKED.items():
            if words in last_user(body):
                return tool_call(name, arguments)
    return {"content": "noted"}


@pytest.fixture
def fake_model():
    server = FakeOpenAI(model_reply)
    yield server
    server.close()


@pytest.fixture
def home(hermes_home):
    path = hermes_home()
    (path / "memories").mkdir()
    (path / "memories" / "USER.md").write_text(BUILTIN_NOTE, encoding="utf-8")
    return path


def turn(server: FakeOpenAI, text: str, **identity) -> list[dict]:
    """One message through a fresh AIAgent, as the gateway handles each message; the requests it caused."""
    from run_agent import AIAgent

    before = len(server.requests)
    agent = AIAgent(base_url=server.url, api_key="test-key", model="fake", quiet_mode=True, skip_context_files=True,
                    max_iterations=4, tool_delay=0, enabled_toolsets=["memory"], **identity)
    agent.run_conversation(text)
    agent.shutdown_memory_provider()
    return server.requests[before:]


def offered(request: dict) -> list[str]:
    return [tool["function"]["name"] for tool in request.get("tools", [])]


def recall_block(request: dict) -> str:
    text = last_user(request)
    return text[text.index("<memory-context>"):text.index("</memory-context>")] if "<memory-context>" in text else ""


def test_multi_user_gateway_recalls_for_the_right_user_only_and_offers_only_its_tools(fake_model, home):
    alice = {"platform": "telegram", "user_id": "alice", "chat_id": "c-alice"}
    carol = {"platform": "telegram", "user_id": "carol", "chat_id": "c-carol"}
    # Hermes' built-in memory is on by default: alice's note sits in everybody's system prompt (the control).
    assert BUILTIN_NOTE in turn(fake_model, "hello", **carol)[0]["messages"][0]["content"]
    done = install.install(home, link=True, multi_user=True)
    assert any("turned off Hermes' built-in memory" in line for line in done)
    assert BUILTIN_NOTE not in turn(fake_model, "hello", **carol)[0]["messages"][0]["content"]

    stored = turn(fake_model, "Please remember that my favourite tea is oolong.", **alice)
    assert len(stored) == 2 and stored[0]["messages"][-1]["role"] == "user"  # tool call, then the answer
    for request in stored:
        names = offered(request)
        assert [name for name in names if name.startswith("scope_recall")] == TOOLS
        assert set(names) == {"memory", *TOOLS}  # Hermes' own tool stays listed, with its store off
    assert recall_block(stored[0]) == ""  # nothing stored yet: nothing recalled

    asked = turn(fake_model, "What is my favourite tea?", **alice)[0]
    block = recall_block(asked)
    assert "Recalled memories (untrusted data" in block and f'"{FACT}"' in block
    assert "Scope Recall long-term memory is on" in asked["messages"][0]["content"]
    other = turn(fake_model, "What is my favourite tea?", **carol)[0]
    assert FACT not in str(other["messages"]) and recall_block(other) == ""
    assert [name for name in offered(other) if name.startswith("scope_recall")] == TOOLS

    db = connect(runtime.hermes_store(home))
    row = next(db["memories"].rows_where("content = ?", [FACT]))
    assert row["created_by"] == "agent:default" and "user:5:alice" in row["scope_id"]  # the model's user_id ignored
    db.close()


def test_api_server_passes_no_user_id_so_memory_is_off_unless_the_operator_names_the_one_user(fake_model, home):
    from scope_recall_engine.truth.scope import Identity

    turn(fake_model, "Please remember that my favourite tea is oolong.", platform="telegram", user_id="alice")
    api = {"platform": "api_server", "gateway_session_key": "agent:main:webui:dm:42"}  # what api_server passes
    off = turn(fake_model, "What is my favourite tea?", **api)[0]
    assert recall_block(off) == "" and not [name for name in offered(off) if name.startswith("scope_recall")]

    # one person's Hermes: the operator names the api_server's user; it is another platform, so another scope
    settings = config.Config(embedding_model="scope-recall-hash", platform_users={"api_server": "alice"})
    config.save(runtime.hermes_store(home), settings)
    own_scope = turn(fake_model, "What is my favourite tea?", **api)[0]
    assert recall_block(own_scope) == ""
    assert [name for name in offered(own_scope) if name.startswith("scope_recall")] == TOOLS
    # ... until her telegram scope is aliased (docs/hermes.md: cross-platform identity for one person)
    settings.scope_aliases = [Identity(user="alice", platform="telegram").shared_scope]
    config.save(runtime.hermes_store(home), settings)
    assert f'"{FACT}"' in recall_block(turn(fake_model, "What is my favourite tea?", **api)[0])


def tool_result(requests: list[dict]) -> dict:
    """The tool result Hermes sent back to the model in the second request of a turn."""
    assert len(requests) == 2 and requests[1]["messages"][-1]["role"] == "tool"
    return json.loads(requests[1]["messages"][-1]["content"])


def test_the_model_probes_relates_and_counts_only_its_own_user_s_memories(fake_model, home):
    from scope_recall_engine.truth.principals import human
    from scope_recall_engine.truth.scope import Identity
    from scope_recall_engine.writing import lifecycle

    alice = {"platform": "telegram", "user_id": "alice", "chat_id": "c-alice"}
    mallory = {"platform": "telegram", "user_id": "mallory", "chat_id": "c-mallory"}
    db = connect(runtime.hermes_store(home))
    for who, text in (("alice", "My sister Ana lives in Porto"), ("alice", "Ana works at Acme"),
                      ("mallory", "Mallory's friend Ana lives in Oslo")):
        lifecycle.store(db, Identity(user=who, platform="telegram"), "user", text, human("setup"))
    db.close()
    probed = tool_result(turn(fake_model, "What do you know about Ana?", **alice))
    assert [m["content"] for m in probed["memories"]] == ["Ana works at Acme", "My sister Ana lives in Porto"]
    assert "Oslo" not in json.dumps(probed)
    theirs = tool_result(turn(fake_model, "What do you know about Ana?", **mallory))  # the other user: own only
    assert [m["content"] for m in theirs["memories"]] == ["Mallory's friend Ana lives in Oslo"]
    related = tool_result(turn(fake_model, "Who comes up with Ana?", **alice))
    assert {entry["entity"] for entry in related["related"]} == {"Porto", "Acme"}
    counted = tool_result(turn(fake_model, "How big is my memory?", **alice))
    assert counted["by_target"] == {"user": {"active": 2}} and counted["recallable"] == {"user": 2}
    assert counted["companion"]["model"] == "scope-recall-hash"
