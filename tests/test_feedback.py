"""Feedback: recorded with its principal, moves ranking within the documented bounds, never a lifecycle, and
brings a memory to the review queue after repeated "unhelpful"."""

import pytest
from click.testing import CliRunner

from scope_recall_engine import config
from scope_recall_engine.cli.main import cli
from scope_recall_engine.companion import embedders
from scope_recall_engine.errors import IllegalTransition, InvalidInput, NotFound
from scope_recall_engine.reading import retrieval, trust
from scope_recall_engine.reading.explain import explain
from scope_recall_engine.truth.principals import agent, human
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import feedback, lifecycle, review_queue

AGENT = agent("default")


@pytest.fixture
def hashed(db, db_path):
    config.save(db_path, config.Config(embedding_model=embedders.HASH_MODEL_ID))
    return db


def _ranked(db, view, query):
    return [hit.id for hit in retrieval.search(db, view, query)]


def _unhelpful(db, memory_id, times, principal=AGENT, view=None):
    for n in range(times):
        feedback.record(db, memory_id, "unhelpful", principal, note=f"wrong {n}", surface="test", view=view)


def test_the_offset_is_bounded_and_documented():
    assert trust.offset(0, 1) == -2.0 and trust.offset(0, 3) == -3.0 and trust.offset(1, 0) == 2.0
    assert -trust.TRUST_WEIGHT < trust.offset(0, 10_000) < -3.99 and trust.offset(10_000, 0) < trust.TRUST_WEIGHT
    assert trust.offset(2, 2) == 0.0 and trust.offset(0, 0) == 0.0


def test_unhelpful_moves_a_close_rival_down_but_never_a_lifecycle_nor_abstention(hashed, alice):
    view = View(alice.accessible())
    red = lifecycle.store(hashed, alice, "user", "Alice's bike is red", human("op")).id
    blue = lifecycle.store(hashed, alice, "user", "Alice's bike is blue", human("op")).id
    first, second = _ranked(hashed, view, "alice bike colour")
    assert {first, second} == {red, blue}
    audit_before = hashed["audit_events"].count
    _unhelpful(hashed, first, 1, view=view)
    assert _ranked(hashed, view, "alice bike colour") == [second, first]  # still recalled, ranked second
    _unhelpful(hashed, first, 40, view=view)
    assert _ranked(hashed, view, "alice bike colour") == [second, first]  # abstention is untouched
    row = next(c for c in explain(hashed, view, "alice bike colour")["candidates"] if c["id"] == first)
    assert -trust.TRUST_WEIGHT < row["trust"] < 0 and row["admitted"]
    feedback.record(hashed, second, "helpful", human("op"), surface="test")
    assert {m["lifecycle"] for m in hashed["memories"].rows} == {"active"}
    assert hashed["audit_events"].count == audit_before  # an opinion is not a transition


def test_the_bound_keeps_a_far_better_memory_first(hashed, alice):
    view = View(alice.accessible())
    exact = lifecycle.store(hashed, alice, "user", "Alice's passport number ends in 4417", human("op")).id
    lifecycle.store(hashed, alice, "user", "Alice renewed her library card", human("op"))
    _unhelpful(hashed, exact, 30, view=view)
    assert _ranked(hashed, view, "passport number ends 4417")[:1] == [exact]


def test_repeated_unhelpful_puts_it_in_the_review_queue_with_the_notes_until_a_person_looks(db, alice):
    view = View(alice.accessible())
    wrong = lifecycle.store(db, alice, "user", "Alice lives in Lyon", AGENT).id
    fine = lifecycle.store(db, alice, "user", "Alice likes figs", AGENT).id
    _unhelpful(db, wrong, feedback.FLAG_AFTER - 1, view=view)
    _unhelpful(db, fine, 1, view=view)
    assert review_queue.flagged(db) == [] and feedback.summary(db, wrong)["flagged"] is False
    said = feedback.record(db, wrong, "unhelpful", AGENT, note="she moved to Grenoble", surface="test", view=view)
    assert said["flagged"] is True and said["unhelpful"] == feedback.FLAG_AFTER
    [item] = review_queue.flagged(db)
    assert item.memory["id"] == wrong and item.memory["lifecycle"] == "active"
    assert [e["content"] for e in item.evidence] == ["wrong 0", "wrong 1", "she moved to Grenoble"]
    assert all(e["role"] == "unhelpful · agent:default" for e in item.evidence)
    feedback.record(db, wrong, "helpful", human("op"), note="checked, still true", surface="console")
    assert review_queue.flagged(db) == []  # a person looked
    _unhelpful(db, wrong, feedback.FLAG_AFTER)
    assert [i.memory["id"] for i in review_queue.flagged(db)] == [wrong]
    lifecycle.edit(db, wrong, human("op"), "Alice lives in Grenoble")
    assert review_queue.flagged(db) == []  # a person's transition also counts as looking


def test_the_agent_judges_only_what_it_may_recall_and_bad_input_is_refused(db, alice, bob):
    mine = lifecycle.store(db, alice, "user", "Alice likes figs", AGENT).id
    theirs = lifecycle.store(db, bob, "user", "Bob likes plums", AGENT).id
    with pytest.raises(NotFound, match=f"^no memory with id {theirs}$"):
        feedback.record(db, theirs, "unhelpful", AGENT, surface="test", view=View(alice.accessible()))
    assert feedback.record(db, mine, "unhelpful", AGENT, surface="test", view=View(alice.accessible()))[
        "unhelpful"] == 1  # positive control
    with pytest.raises(InvalidInput, match="verdict"):
        feedback.record(db, mine, "meh", AGENT, surface="test")
    with pytest.raises(InvalidInput, match="at most"):
        feedback.record(db, mine, "helpful", AGENT, note="x" * 501, surface="test")
    lifecycle.purge(db, theirs, human("op"))
    with pytest.raises(IllegalTransition):
        feedback.record(db, theirs, "helpful", human("op"), surface="test")
    assert db["memory_feedback"].count == 1


def test_notes_are_redacted_and_purge_erases_them(db, alice):
    memory_id = lifecycle.store(db, alice, "user", "Alice's locker code", AGENT).id
    feedback.record(db, memory_id, "unhelpful", AGENT, note="key sk-ant-api03-" + "a" * 40, surface="test")
    assert "sk-ant" not in next(db["memory_feedback"].rows)["note"]
    lifecycle.purge(db, memory_id, human("op"))
    assert next(db["memory_feedback"].rows)["note"] is None
    assert feedback.summary(db, memory_id)["unhelpful"] == 1  # the count stays


def test_cli_feedback_and_flagged(db_path, alice):
    from scope_recall_engine.truth.store import connect

    db = connect(db_path)
    memory_id = lifecycle.store(db, alice, "user", "Alice lives in Lyon", AGENT).id
    db.close()
    runner = CliRunner()
    base = ["--db", str(db_path)]
    for n in range(feedback.FLAG_AFTER):
        out = runner.invoke(cli, [*base, "feedback", str(memory_id), "unhelpful", "--by", "ana", "--note", f"n{n}"])
        assert out.exit_code == 0, out.output
    assert "flagged for review" in out.output and "-3.00 sd" in out.output
    flagged = runner.invoke(cli, [*base, "review", "flagged"])
    assert "Alice lives in Lyon" in flagged.output and "unhelpful · human:ana: n2" in flagged.output
    bad = runner.invoke(cli, [*base, "feedback", "999", "helpful", "--by", "ana"])
    assert bad.exit_code == 1 and bad.output.strip() == "Error: no memory with id 999"
