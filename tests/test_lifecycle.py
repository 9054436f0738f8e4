"""The transition table (docs/architecture.md), exhaustively: every principal kind x every transition x every
from-state."""

import pytest

from scope_recall_engine.errors import IllegalTransition, NotFound, NotPermitted
from scope_recall_engine.truth.principals import agent, human, system
from scope_recall_engine.truth.store import get_memory
from scope_recall_engine.writing import lifecycle

PRINCIPALS = {"human": human("ops"), "agent": agent("default"), "system": system("decay")}
STATES = ["candidate", "active", "archived", "rejected", "superseded", "purged"]
ACTIONS = ["promote", "reject", "archive", "restore", "edit", "supersede", "purge"]

# Written out by hand from the documented table (not derived from lifecycle.TRANSITIONS):
# ok, "perm" (NotPermitted), "state" (Illegal).
ALLOWED_FROM = {
    "promote": {"candidate"},
    "reject": {"candidate"},
    "archive": {"candidate", "active"},
    "restore": {"archived"},
    "edit": {"candidate", "active"},
    "supersede": {"active"},
    "purge": {"candidate", "active", "archived", "rejected", "superseded"},
}
KINDS_ALLOWED = {
    "promote": {"human"},
    "reject": {"human"},
    "archive": {"human", "agent", "system"},
    "restore": {"human"},
    "edit": {"human", "agent"},
    "supersede": {"human", "agent"},
    "purge": {"human"},
}


def make(db, identity, state, text="Alice keeps bees on the roof"):
    """A memory in ``state``, reached only through legal transitions by a human."""
    ops = human("setup")
    memory_id = lifecycle.extract(db, identity.shared_scope, "user", text, system("digest"), origin="digest").id
    if state == "candidate":
        return memory_id
    if state == "rejected":
        lifecycle.reject(db, memory_id, ops, reason="setup")
        return memory_id
    lifecycle.promote(db, memory_id, ops)
    if state == "archived":
        lifecycle.archive(db, memory_id, ops)
    elif state == "superseded":
        lifecycle.supersede(db, memory_id, ops, text + " and in the garden")
    elif state == "purged":
        lifecycle.purge(db, memory_id, ops)
    return memory_id


def apply(db, action, memory_id, principal, scopes):
    if action in ("edit", "supersede"):
        return getattr(lifecycle, action)(db, memory_id, principal, "Alice keeps wasps", scopes=scopes, reason="test")
    return getattr(lifecycle, action)(db, memory_id, principal, scopes=scopes, reason="test")


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("kind", PRINCIPALS)
def test_transition_table(db, alice, kind, action, state):
    memory_id = make(db, alice, state)
    before = get_memory(db, memory_id)
    audit_before = db["audit_events"].count
    if kind not in KINDS_ALLOWED[action]:
        expected = NotPermitted
    elif state not in ALLOWED_FROM[action]:
        expected = IllegalTransition
    else:
        expected = None
    if expected:
        with pytest.raises(expected):
            apply(db, action, memory_id, PRINCIPALS[kind], alice.accessible())
        assert get_memory(db, memory_id) == before
        assert db["audit_events"].count == audit_before
    else:
        apply(db, action, memory_id, PRINCIPALS[kind], alice.accessible())
        after = get_memory(db, memory_id)
        assert after["generation"] > before["generation"]
        audit = list(db["audit_events"].rows_where("memory_id = ?", [memory_id], order_by="-id", limit=1))[0]
        assert audit["principal"] == str(PRINCIPALS[kind]) and audit["action"] == action


@pytest.mark.parametrize("action", ["archive", "edit", "supersede"])
def test_agents_act_only_in_their_own_scope(db, alice, bob, action):
    own, foreign = make(db, alice, "active"), make(db, bob, "active")
    with pytest.raises(NotFound, match=f"^no memory with id {foreign}$"):  # the same words as for no such id
        apply(db, action, foreign, agent("default"), alice.accessible())
    apply(db, action, own, agent("default"), alice.accessible())  # positive control
    assert get_memory(db, foreign)["lifecycle"] == "active"


def test_store_is_for_humans_and_agents_and_extract_for_the_system(db, alice):
    assert lifecycle.store(db, alice, "user", "Alice likes figs", human("ops")).status == "created"
    assert lifecycle.store(db, alice, "user", "Alice likes plums", agent("default")).status == "created"
    with pytest.raises(NotPermitted):
        lifecycle.store(db, alice, "user", "Alice likes kiwis", system("digest"))
    for principal in (human("ops"), agent("default")):
        with pytest.raises(NotPermitted):
            lifecycle.extract(db, alice.shared_scope, "user", "Alice likes pears", principal, origin="digest")
    assert lifecycle.extract(db, alice.shared_scope, "user", "Alice likes pears", system("digest"),
                             origin="digest").lifecycle == "candidate"


def test_review_state_records_how_a_row_earned_its_standing(db, alice):
    by_agent = lifecycle.store(db, alice, "user", "Alice rows on Sundays", agent("default")).id
    by_human = lifecycle.store(db, alice, "user", "Alice swims on Mondays", human("ops")).id
    extracted = make(db, alice, "candidate")
    assert get_memory(db, by_agent)["review_state"] == "agent_asserted"
    assert get_memory(db, by_human)["review_state"] == "human_reviewed"
    assert get_memory(db, extracted)["review_state"] == "auto"
    lifecycle.promote(db, extracted, human("ops"))
    assert get_memory(db, extracted)["review_state"] == "human_reviewed"


def test_duplicates_and_corroboration(db, alice):
    first = lifecycle.store(db, alice, "user", "Alice drinks oolong", agent("default"))
    again = lifecycle.store(db, alice, "user", "  alice DRINKS oolong!  ", agent("default"))
    assert (again.id, again.status, again.lifecycle) == (first.id, "duplicate", "active")
    candidate = make(db, alice, "candidate", "Alice owns a red kayak")
    seen = lifecycle.store(db, alice, "user", "Alice owns a red kayak.", agent("default"))
    assert (seen.id, seen.status, seen.lifecycle) == (candidate, "corroborated", "candidate")
    row = get_memory(db, candidate)
    assert row["lifecycle"] == "candidate" and row["corroborations"] == 1


def test_restore_returns_to_the_previous_state(db, alice):
    candidate, active = make(db, alice, "candidate"), make(db, alice, "active", "Alice fences epee")
    for memory_id, state in ((candidate, "candidate"), (active, "active")):
        lifecycle.archive(db, memory_id, human("ops"))
        assert lifecycle.restore(db, memory_id, human("ops"))["lifecycle"] == state


def test_supersede_closes_the_old_window_and_links_both_rows(db, alice):
    old = make(db, alice, "active", "Alice lives in Lyon")
    new = lifecycle.supersede(db, old, human("ops"), "Alice lives in Porto")
    old_row = get_memory(db, old)
    assert old_row["lifecycle"] == "superseded" and old_row["superseded_by"] == new["id"]
    assert old_row["valid_to"] == new["valid_from"] is not None
    assert new["supersedes"] == old and new["lifecycle"] == "active"


def test_promoting_a_superseding_candidate_closes_the_active_row(db, alice):
    old = make(db, alice, "active", "Alice works at Acme")
    candidate = lifecycle.extract(db, alice.shared_scope, "user", "Alice works at Globex", system("digest"),
                                  origin="digest", supersedes=old).id
    assert get_memory(db, old)["lifecycle"] == "active"  # a candidate changes nothing until a person says yes
    lifecycle.promote(db, candidate, human("ops"))
    assert get_memory(db, old)["lifecycle"] == "superseded"
    assert get_memory(db, old)["valid_to"] == get_memory(db, candidate)["valid_from"]


def test_an_agent_edit_loses_the_human_review_and_leaves_trusted_reads(db, alice):
    from scope_recall_engine.reading import retrieval
    from scope_recall_engine.truth.visibility import View

    memory_id = lifecycle.store(db, alice, "user", "Alice reviews safety checks weekly", human("ops")).id
    trusted = View(alice.accessible(), trusted_only=True)
    assert [h.id for h in retrieval.search(db, trusted, "safety checks", use_vectors=False)] == [memory_id]
    lifecycle.edit(db, memory_id, agent("default"), "Alice skips safety checks", scopes=alice.accessible())
    assert get_memory(db, memory_id)["review_state"] == "agent_asserted"
    assert retrieval.search(db, trusted, "safety checks", use_vectors=False).hits == []
    lifecycle.edit(db, memory_id, human("ops"), "Alice runs safety checks weekly")  # a person re-approves it
    assert get_memory(db, memory_id)["review_state"] == "human_reviewed"
    assert [h.id for h in retrieval.search(db, trusted, "safety checks", use_vectors=False)] == [memory_id]
