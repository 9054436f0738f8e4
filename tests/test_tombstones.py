"""A person's no holds: rejected or purged values never come back through store, import or edit."""

import pytest

from scope_recall_engine.errors import Tombstoned
from scope_recall_engine.truth.content import content_hash
from scope_recall_engine.truth.principals import agent, human, system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.writing import lifecycle, transfer

VARIANTS = [
    "alice hates cats",
    "ALICE HATES CATS!!!",
    "  Alice   hates\tcats.  ",
    "Ａｌｉｃｅ hates cats",  # fullwidth letters fold under NFKC
    "Alice hates\u200b cats",  # zero-width space
    "“Alice hates cats.”",
    "Alice hates cats?!…",
]


@pytest.fixture
def rejected(db, alice):
    memory_id = lifecycle.extract(db, alice.shared_scope, "user", "Alice hates cats", system("digest"),
                                  origin="digest").id
    lifecycle.reject(db, memory_id, human("carol"), reason="she loves cats")
    return memory_id


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_normalized_variant_is_refused_on_store(db, alice, rejected, variant):
    assert content_hash(variant) == content_hash("Alice hates cats")
    with pytest.raises(Tombstoned, match=r"rejected by human:carol at .*she loves cats"):
        lifecycle.store(db, alice, "user", variant, agent("default"))
    # positive control on the same surface: a different value is stored
    assert lifecycle.store(db, alice, "user", "Alice hates dogs", agent("default")).status == "created"


def test_tombstones_cover_every_target_and_chat_of_the_shared_scope(db, alice, rejected):
    other_chat = Identity(user="alice", chat="chat-9")
    for identity, target in ((alice, "general"), (other_chat, "general"), (other_chat, "project")):
        with pytest.raises(Tombstoned):
            lifecycle.store(db, identity, target, "alice hates cats", agent("default"))
        # control on the same surface: another value goes in
        assert lifecycle.store(db, identity, target, f"alice hums in {target}", agent("default")).status in (
            "created", "duplicate")


def test_a_tombstone_is_per_user(db, alice, bob, rejected):
    assert lifecycle.store(db, bob, "user", "Alice hates cats", agent("default")).status == "created"


def test_import_skips_tombstoned_values_and_keeps_the_rest(db, alice, rejected):
    records = transfer.parse_lines(['{"content": "alice hates cats.", "target": "user"}',
                                    '{"content": "Alice bakes bread", "target": "user"}'])
    result = transfer.import_records(db, alice, records)
    assert len(result["ids"]) == 1 and result["skipped"][0]["line"] == 1
    assert "rejected by human:carol" in result["skipped"][0]["reason"]


def test_edit_into_a_tombstoned_value_is_refused_and_changes_nothing(db, alice, rejected):
    memory_id = lifecycle.store(db, alice, "user", "Alice likes cats", human("carol")).id
    with pytest.raises(Tombstoned):
        lifecycle.edit(db, memory_id, human("carol"), "ALICE hates cats")
    assert db["memories"].get(memory_id)["content"] == "Alice likes cats"
    assert lifecycle.edit(db, memory_id, human("carol"), "Alice adores cats")["version"] == 2


def test_purged_values_are_tombstoned_too(db, alice):
    memory_id = lifecycle.store(db, alice, "user", "Alice's PIN hint is the old street", human("carol")).id
    lifecycle.purge(db, memory_id, human("carol"))
    with pytest.raises(Tombstoned, match="purged by human:carol"):
        lifecycle.store(db, alice, "user", "alice's pin hint is the old street.", agent("default"))
    with pytest.raises(Tombstoned):
        lifecycle.extract(db, alice.shared_scope, "user", "Alice's PIN hint is the old street", system("digest"),
                          origin="digest")
    assert lifecycle.store(db, alice, "user", "Alice's bike is blue", agent("default")).status == "created"


@pytest.mark.parametrize("decision", ["reject", "purge"])
def test_a_no_after_an_edit_covers_every_earlier_wording(db, alice, decision):
    memory_id = lifecycle.extract(db, alice.shared_scope, "user", "Alice's passport number is X1234567",
                                  system("digest"), origin="digest").id
    lifecycle.edit(db, memory_id, human("carol"), "Alice's passport number is X1234567 (expires 2030)")
    getattr(lifecycle, decision)(db, memory_id, human("carol"), reason="not to be kept")
    for wording in ("Alice's passport number is X1234567", "alice's passport number is x1234567 (expires 2030)"):
        with pytest.raises(Tombstoned):
            lifecycle.store(db, alice, "user", wording, agent("default"))
        with pytest.raises(Tombstoned):
            lifecycle.extract(db, alice.shared_scope, "user", wording, system("digest"), origin="digest")
    # control on the same surfaces: an unrelated value still goes in
    assert lifecycle.store(db, alice, "user", "Alice's passport is red", agent("default")).status == "created"
    assert lifecycle.extract(db, alice.shared_scope, "user", "Alice renews passports in May", system("digest"),
                             origin="digest").status == "created"
