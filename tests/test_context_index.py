"""Contextual indexing: each memory is also indexed with the memory stored just before it in the same sitting."""

from datetime import timedelta

from scope_recall_engine import doctor
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth.principals import agent, human
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle


def context_doc(db, memory_id):
    return db.execute("select content from memories_context where rowid = ?", [memory_id]).fetchone()[0]


def store(db, identity, text):
    return lifecycle.store(db, identity, "memory", text, agent("default")).id


def test_a_reply_is_found_through_the_question_it_answers(db, alice):
    asked = store(db, alice, "Bob: where did you go hiking last weekend?")
    answer = store(db, alice, "Alice: the Lost Coast trail, it was stunning")
    assert context_doc(db, answer) == ("Bob: where did you go hiking last weekend?\n"
                                       "Alice: the Lost Coast trail, it was stunning")
    view = View(alice.accessible())
    hits = retrieval.search(db, view, "where did Alice go hiking", abstain=False, use_vectors=False)
    assert {asked, answer} <= {hit.id for hit in hits}
    assert context_doc(db, asked) == "\nBob: where did you go hiking last weekend?"  # first in its scope


def test_context_stays_in_scope_and_sitting(db, alice, bob, monkeypatch):
    first = store(db, alice, "Alice mentions the blue door")
    other = store(db, bob, "Bob mentions the red door")
    assert "blue" not in context_doc(db, other)
    monkeypatch.setattr(lifecycle, "CONTEXT_WINDOW", timedelta(0))
    later = store(db, alice, "Alice mentions the green door")
    assert db["memories"].get(later)["context_id"] is None and "blue" not in context_doc(db, later)
    assert db["memories"].get(first)["context_id"] is None


def test_edits_and_purges_flow_into_the_neighbours_context(db, alice):
    first = store(db, alice, "Alice's locker code is 4417")
    second = store(db, alice, "Alice also keeps a spare key at reception")
    lifecycle.edit(db, first, human("ops"), "Alice's locker code is 5520")
    assert "5520" in context_doc(db, second) and "4417" not in context_doc(db, second)
    lifecycle.purge(db, first, human("ops"))
    assert "5520" not in context_doc(db, second) and "spare key" in context_doc(db, second)
    assert db.execute("select count(*) from memories_context where memories_context match '5520'").fetchone()[0] == 0
    assert not [c for c in doctor.run(db) if not c.ok]


def test_doctor_finds_and_repairs_a_stale_context_document(db, alice):
    store(db, alice, "Alice waters the ferns on Fridays")
    second = store(db, alice, "Alice repots the cactus in spring")
    db.execute("update memories_context set content = 'tampered' where rowid = ?", [second])
    db.conn.commit()
    assert "full_text_index" in {c.name for c in doctor.run(db) if not c.ok}
    doctor.repair(db)
    assert not [c for c in doctor.run(db) if not c.ok]
