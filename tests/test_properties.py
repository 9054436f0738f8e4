"""Property-based tests (hypothesis): scope isolation on every read surface, hostile query syntax, and the
normalized-hash tombstone against every variant the normalizer promises to fold.

Each example gets its own store (tempfile inside the test: hypothesis and function fixtures do not mix).
"""

import contextlib
import json
import string
import tempfile
import unicodedata
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scope_recall_engine import agent_tools, config
from scope_recall_engine.companion import embedders
from scope_recall_engine.errors import Tombstoned
from scope_recall_engine.reading import recall, retrieval
from scope_recall_engine.reading.explain import explain
from scope_recall_engine.truth.content import normalize
from scope_recall_engine.truth.principals import agent, human, system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle, review_queue, transfer

EXAMPLES = 100  # per property test (bench faults counts the examples that pass)
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ME = human("prop")

# identifiers: delimiter-laden (the scope framing's own characters and digits) or any Unicode but NUL/surrogates
DELIMITED = st.text(alphabet="|:0123456789ab", min_size=1, max_size=10)
UNICODE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=10)
IDS = st.one_of(DELIMITED, UNICODE).filter(lambda value: value.strip())
TOKENS = st.text(alphabet=string.ascii_lowercase, min_size=8, max_size=12).map(lambda s: "zq" + s)
FTS_SYNTAX = st.sampled_from(['"', '""', "*", "NEAR(", ")", "(", "AND", "OR", "NOT", "^", "content:", "-", "+",
                              "{a b}", "'", ":", "NEAR/2", "\\", "%", "_", "\u202e", "\u200b", "\ufeff"])
QUERIES = st.lists(st.one_of(st.text(max_size=30), FTS_SYNTAX, TOKENS), max_size=8).map(" ".join)


@contextlib.contextmanager
def fresh_store():
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "memory.sqlite3"
        config.save(path, config.Config(embedding_model=embedders.HASH_MODEL_ID))
        db = connect(path)
        try:
            yield db
        finally:
            db.close()


def identities():
    return st.builds(lambda user, platform, chat: Identity(user=user, platform=platform, chat=chat),
                     IDS, st.one_of(st.just("cli"), IDS), st.one_of(st.none(), IDS))


def seed(db, identity: Identity, token: str) -> dict:
    """One active shared memory, one scratch note and one candidate carrying the identity's token."""
    return {
        "active": lifecycle.store(db, identity, "user", f"the secret word is {token}", ME).id,
        "scratch": lifecycle.store(db, identity, "general", f"scratch note about {token}", ME).id,
        "candidate": lifecycle.extract(db, identity.shared_scope, "user", f"maybe the word {token} matters",
                                       system("digest"), origin="digest").id,
    }


def surfaces(db, identity: Identity, query: str) -> dict[str, set[int]]:
    """Memory ids each read surface returns to ``identity`` for ``query``."""
    view = View(identity.accessible())
    context = agent_tools.ToolContext(db, identity, agent(identity.agent), view)
    searched = json.loads(agent_tools.call(context, agent_tools.SEARCH, {"query": query}))
    block = json.loads(agent_tools.call(context, agent_tools.CONTEXT, {"query": query}))
    queue = review_queue.queue(db, identity.shared_scope).items
    return {
        "search": {hit.id for hit in retrieval.search(db, view, query, 10).hits},
        "packet": set(recall.packet(db, view, query, surface="property").ids),
        "tool": {result["id"] for result in searched.get("results", [])},
        "export": {row["id"] for row in transfer.export_rows(db, identity.accessible())},
        "queue": {item.memory["id"] for item in queue} | {hit.id for item in queue for hit in item.nearest},
        "candidates": {row["id"] for row in review_queue.candidates(db, identity.shared_scope)},
        "context": {line["id"] for line in block.get("evidence", [])},
        "explain": {candidate["id"] for candidate in explain(db, view, query)["candidates"]},
    }


def packet_text(db, identity: Identity, query: str) -> str:
    return recall.packet(db, View(identity.accessible()), query, surface="property").text


@SETTINGS
@given(owner=identities(), other=identities(), owner_token=TOKENS, other_token=TOKENS)
def test_one_identity_s_memories_never_reach_another_on_any_read_surface(owner, other, owner_token, other_token):
    assume(owner.shared_scope != other.shared_scope and owner_token != other_token)
    with fresh_store() as db:
        mine = seed(db, owner, owner_token)
        theirs = seed(db, other, other_token)
        lifecycle.extract(db, other.shared_scope, "user", f"they also mention {owner_token}", system("digest"),
                          origin="digest")  # the other's queue item is a near twin of the owner's memory
        query = f"what is {owner_token}"
        for surface, ids in surfaces(db, other, query).items():
            assert not ids & set(mine.values()), (surface, owner, other)
        assert owner_token not in packet_text(db, other, query)
        as_other = View(other.accessible())
        tool = agent_tools.ToolContext(db, other, agent(other.agent), as_other)
        for text in (json.dumps(explain(db, as_other, query)), agent_tools.call(tool, agent_tools.CONTEXT,
                                                                                {"query": query})):
            assert f"word is {owner_token}" not in text and f"about {owner_token}" not in text
        found = surfaces(db, owner, query)  # positive control: the owner finds its own on each surface
        assert mine["active"] in found["search"] and mine["active"] in found["packet"]
        assert mine["active"] in found["tool"] and set(mine.values()) <= found["export"]
        assert mine["active"] in found["context"] and mine["active"] in found["explain"]
        assert mine["candidate"] in found["queue"] and mine["candidate"] in found["candidates"]
        assert owner_token in packet_text(db, owner, f"tell me {owner_token}")
        assert not found["export"] & set(theirs.values())


@SETTINGS
@given(owner=identities(), other=identities(), token=TOKENS, query=QUERIES)
def test_any_query_text_never_raises_and_never_leaks(owner, other, token, query):
    assume(owner.shared_scope != other.shared_scope)
    with fresh_store() as db:
        mine = seed(db, owner, token)
        seed(db, other, token[::-1])
        for probe in (query, f"{query} {token}", f"{token} {query}"):
            for surface, ids in surfaces(db, other, probe).items():
                assert not ids & set(mine.values()), (surface, probe)
            surfaces(db, owner, probe)  # the owner's side must not raise either
        assert mine["active"] in surfaces(db, owner, token)["search"]  # positive control


WIDE = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}  # ASCII -> fullwidth forms (NFKC folds them back)
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]
SPACES = [" ", "  ", "\t", "\n", " \u3000 ", "\u00a0", "\u2003"]
EDGES = st.text(alphabet="!?.,;:\"'«»¿¡()[]-…*", max_size=4)
WORDS = st.lists(st.text(alphabet=string.ascii_letters, min_size=2, max_size=8), min_size=2, max_size=5)


@st.composite
def variants(draw):
    """A value and a rewriting of it that differs only in what ``normalize`` promises to fold."""
    words = draw(WORDS)
    cased = [draw(st.sampled_from((w, w.upper(), w.lower(), w.title(), w.swapcase()))) for w in words]
    wide = ["".join(WIDE.get(ch, ch) if draw(st.booleans()) else ch for ch in w) for w in cased]
    hidden = ["".join(ch + (draw(st.sampled_from(INVISIBLE)) if draw(st.booleans()) else "") for ch in w)
              for w in wide]
    spaced = "".join(w + draw(st.sampled_from(SPACES)) for w in hidden[:-1]) + hidden[-1]
    return " ".join(words), draw(EDGES) + spaced + draw(EDGES)


@SETTINGS
@given(pair=variants(), person=IDS)
def test_a_rejected_value_is_refused_in_every_variant_the_normalizer_folds(pair, person):
    value, variant = pair
    identity = Identity(user=person)
    assert normalize(value) == normalize(variant)
    with fresh_store() as db:
        refused = lifecycle.extract(db, identity.shared_scope, "user", value, system("digest"), origin="digest").id
        lifecycle.reject(db, refused, ME, reason="not wanted")
        try:
            lifecycle.store(db, identity, "user", variant, ME)
        except Tombstoned:
            pass
        else:
            raise AssertionError(f"variant {variant!r} of rejected {value!r} was stored")
        other = lifecycle.store(db, identity, "user", f"{value} and more", ME)  # positive control
        assert other.status == "created" and unicodedata.is_normalized("NFC", value)


def tool(db, identity: Identity, name: str, **args) -> dict:
    context = agent_tools.ToolContext(db, identity, agent(identity.agent), View(identity.accessible()))
    return json.loads(agent_tools.call(context, name, args))


@SETTINGS
@given(owner=identities(), other=identities(), owner_token=TOKENS, other_token=TOKENS)
def test_probe_related_and_stats_never_show_another_identity_s_memories(owner, other, owner_token, other_token):
    assume(owner.shared_scope != other.shared_scope and owner_token != other_token)
    name, place = owner_token.capitalize(), owner_token[::-1].capitalize()
    with fresh_store() as db:
        mine = lifecycle.store(db, owner, "user", f"My sister {name} lives in {place}", ME).id
        archived = lifecycle.store(db, owner, "user", f"{name} once visited Zqfaraway", ME).id
        lifecycle.archive(db, archived, ME)
        lifecycle.extract(db, owner.shared_scope, "user", f"{name} works at Zqcorp", system("digest"), origin="digest")
        lifecycle.store(db, other, "user", f"My friend {other_token.capitalize()} lives in Oslo", ME)
        for entity in (name, place, "Zqfaraway", "Zqcorp"):
            assert tool(db, other, agent_tools.PROBE, entity=entity)["memories"] == []
            assert tool(db, other, agent_tools.RELATED, entity=entity)["related"] == []
        counted = tool(db, other, agent_tools.STATS)
        assert counted["by_target"] == {"user": {"active": 1}} and counted["recallable"] == {"user": 1}
        assert counted["entities"] == 2 and counted["companion"]["pending"] == 1
        # positive control on the same surfaces: the owner sees its active memory, never its archived or candidate
        assert [m["id"] for m in tool(db, owner, agent_tools.PROBE, entity=name)["memories"]] == [mine]
        assert tool(db, owner, agent_tools.RELATED, entity=name)["related"] == [
            {"entity": place, "kind": "place", "memories": 1}]
        assert tool(db, owner, agent_tools.PROBE, entity="Zqcorp")["memories"] == []
        assert tool(db, owner, agent_tools.STATS)["by_target"] == {
            "user": {"active": 1, "archived": 1, "candidate": 1}}
