import pytest
from hypothesis import given
from hypothesis import strategies as st

from scope_recall_engine.errors import InvalidInput
from scope_recall_engine.truth.scope import Identity, decode, label, shared_part

identifiers = st.text(min_size=1, max_size=20).filter(lambda s: s.strip() and "\x00" not in s)


def test_scope_ids_are_labelled_and_length_framed():
    alice = Identity(user="alice")
    assert alice.shared_scope == "platform:3:cli|workspace:6:hermes|agent:7:default|user:5:alice"
    assert Identity(user="alice", chat="42").local_scope == alice.shared_scope + "|chat:2:42"


@pytest.mark.parametrize("forged, victim", [
    (Identity(user="a|user:5:alice"), Identity(user="alice")),
    (Identity(user="x", agent="default|user:5:alice"), Identity(user="alice")),
    (Identity(user="alice", chat="1|thread:1:2"), Identity(user="alice", chat="1", thread="2")),
    (Identity(user="alice:5:alice"), Identity(user="alice")),
])
def test_delimiters_inside_identifiers_cannot_forge_another_scope(forged, victim):
    assert forged.shared_scope != victim.shared_scope or forged.local_scope != victim.local_scope
    assert victim.local_scope not in forged.accessible()
    assert victim.shared_scope not in forged.accessible() or forged.user == victim.user


@given(identifiers, identifiers, identifiers, identifiers)
def test_distinct_identities_never_share_a_scope(user_a, user_b, chat_a, chat_b):
    a, b = Identity(user=user_a, chat=chat_a), Identity(user=user_b, chat=chat_b)
    assert (a.shared_scope == b.shared_scope) == (user_a == user_b)
    assert (a.local_scope == b.local_scope) == (user_a == user_b and chat_a == chat_b)
    assert [value for _, value in decode(a.local_scope)] == ["cli", "hermes", "default", user_a, chat_a]


def test_shared_targets_follow_the_user_and_general_stays_local():
    one, two = Identity(user="alice", chat="1"), Identity(user="alice", chat="2")
    assert one.scope_for("user") == two.scope_for("user") == one.shared_scope
    assert one.scope_for("general") != two.scope_for("general")
    assert shared_part(one.scope_for("general")) == one.shared_scope
    assert one.accessible() == (one.local_scope, one.shared_scope)


@pytest.mark.parametrize("user", ["", "   ", None])
def test_an_empty_user_is_refused(user):
    with pytest.raises(InvalidInput, match="user id is required"):
        Identity(user=user)


def test_unknown_target_and_malformed_scope_ids_are_clear_errors():
    with pytest.raises(InvalidInput, match="unknown target"):
        Identity(user="alice").scope_for("diary")
    with pytest.raises(InvalidInput, match="malformed"):
        decode("user:9:alice")


def test_label_is_readable():
    assert label(Identity(user="alice", platform="telegram", chat="42").local_scope) == "telegram · alice · chat 42"
