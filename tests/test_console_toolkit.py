"""The console's toolkit: feedback buttons, merge and its undo on the memory page, the flagged memories on the
review page, and a recall explained from the ledger; each post guarded like every console action."""

import pytest
import pytest_asyncio
from console_kit import console_for, logged_in, messages

from scope_recall_engine.reading import recall
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import feedback, lifecycle

ALICE, BOB = Identity(user="alice"), Identity(user="bob")


@pytest.fixture
def rows(db):
    ids = {name: lifecycle.store(db, who, "user", text, human("seed")).id for name, who, text in (
        ("miso", ALICE, "Alice's cat is called Miso"), ("tuna", ALICE, "Alice's cat likes tuna"),
        ("rex", BOB, "Bob's dog is called Rex"))}
    return ids


@pytest_asyncio.fixture
async def ds(db_path, rows):
    return await console_for(db_path)


@pytest.mark.asyncio
async def test_feedback_buttons_record_the_operator_and_need_the_csrf_token(ds, db, rows):
    admin = await logged_in(ds, "admin")
    page = await admin.get(f"/memory/memories/{rows['miso']}")
    assert 'value="unhelpful"' in page.text and "0 helpful · 0 unhelpful" in page.text
    path = f"/-/scope-recall/memories/{rows['miso']}/feedback"
    forged = await admin.post(path, {"verdict": "unhelpful"}, token=None)
    assert forged.status_code == 403 and db["memory_feedback"].count == 0
    viewer = await logged_in(ds, "viewer")
    assert (await viewer.post(path, {"verdict": "unhelpful"})).status_code == 403
    done = await admin.post(path, {"verdict": "unhelpful", "note": "she has a new cat"})
    assert done.status_code == 302 and messages(ds, done)[0][1] == ds.INFO
    row = next(db["memory_feedback"].rows)
    assert (row["principal"], row["verdict"], row["note"], row["surface"]) == (
        "human:admin", "unhelpful", "she has a new cat", "console")
    assert db["memories"].get(rows["miso"])["lifecycle"] == "active"


@pytest.mark.asyncio
async def test_merge_and_undo_from_the_memory_page(ds, db, rows):
    admin = await logged_in(ds, "admin")
    await admin.get(f"/memory/memories/{rows['miso']}")
    refused = await admin.post(f"/-/scope-recall/memories/{rows['miso']}/merge",
                               {"ids": str(rows["rex"]), "content": "Pets"})
    assert "different scopes" in messages(ds, refused)[0][0] and db["memories"].get(rows["rex"])["lifecycle"] == \
        "active"
    merged = await admin.post(f"/-/scope-recall/memories/{rows['miso']}/merge",
                              {"ids": f"#{rows['tuna']}", "content": "Alice's cat Miso likes tuna"})
    assert merged.status_code == 302
    new = db.execute("select id, created_by from memories where origin = 'merge'").fetchone()
    assert new[1] == "human:admin" and merged.headers["location"].endswith(f"/memories/{new[0]}")
    page = await admin.get(merged.headers["location"])
    assert "Merged from" in page.text and "Undo merge" in page.text
    undone = await admin.post(f"/-/scope-recall/memories/{new[0]}/unmerge", {"reason": "two facts"})
    assert undone.status_code == 302 and db["memories"].get(new[0])["lifecycle"] == "archived"
    assert {db["memories"].get(rows[k])["lifecycle"] for k in ("miso", "tuna")} == {"active"}


@pytest.mark.asyncio
async def test_flagged_memories_wait_on_the_review_page_with_the_notes(ds, db, rows):
    admin = await logged_in(ds, "admin")
    assert "Flagged by feedback" not in (await admin.get("/-/scope-recall/review")).text
    for n in range(feedback.FLAG_AFTER):
        feedback.record(db, rows["miso"], "unhelpful", human("u"), note=f"note {n}", surface="test")
    page = (await admin.get("/-/scope-recall/review")).text
    assert "Flagged by feedback (1)" in page and "note 2" in page and "Alice&#39;s cat is called Miso" in page


@pytest.mark.asyncio
async def test_a_recall_explained_from_the_ledger_shows_counts_not_other_scopes(ds, db, rows):
    recall.packet(db, View(ALICE.accessible()), "what is alice's cat called", surface="test")
    event = db.execute("select max(id) from recall_events").fetchone()[0]
    viewer = await logged_in(ds, "viewer")
    page = await viewer.get(f"/-/scope-recall/recalls/{event}")
    assert page.status_code == 200 and f"#{rows['miso']}</a>" in page.text
    assert "admitted: the query rests on the user" in page.text
    assert "1 by scope: not this identity" in page.text and "Rex" not in page.text
    assert (await viewer.get("/-/scope-recall/recalls/99999")).status_code == 404
    table = await viewer.get("/memory/recall_events")
    assert f'/-/scope-recall/recalls/{event}"' in table.text
