"""The operator console in-process (datasette.client): who may see, who may act, and what acting records."""

import html
import re

import pytest
import pytest_asyncio
from console_kit import PASSWORD, Browser, console_for, logged_in, messages

from scope_recall_engine.truth.principals import human, system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.writing import journal, lifecycle

ALICE = Identity(user="alice", platform="telegram", chat="family")
TABLES = ("memories", "memory_versions", "audit_events", "tombstones", "vector_outbox", "journal_entries",
          "memory_sources")
ACTIONS = {  # action: (seeded row, form, lifecycle afterwards)
    "promote": ("candidate", {}, "active"),
    "reject": ("candidate", {"reason": "not true", "confirm": "yes"}, "rejected"),
    "archive": ("active", {}, "archived"),
    "restore": ("archived", {}, "active"),
    "edit": ("active", {"content": "Alice lives in Porto, by the river"}, "active"),
    "supersede": ("active", {"content": "Alice lives in Braga"}, "superseded"),
    "purge": ("active", {"confirm": "yes"}, "purged"),
}


@pytest.fixture
def rows(db):
    """One memory in each state an action starts from, made through the engine."""
    active = lifecycle.store(db, ALICE, "user", "Alice lives in Porto", human("setup")).id
    archived = lifecycle.store(db, ALICE, "user", "Alice plays the cello", human("setup")).id
    lifecycle.archive(db, archived, human("setup"))
    entry = journal.append(db, ALICE, "s1", "user", "I'm allergic to peanuts")
    candidate = lifecycle.extract(db, ALICE.shared_scope, "user", "Alice is allergic to peanuts",
                                  system("digest"), origin="digest").id
    journal.link(db, candidate, db["journal_entries"].get(entry.id), None)
    db.conn.commit()
    return {"active": active, "archived": archived, "candidate": candidate}


@pytest_asyncio.fixture
async def ds(db_path, rows):
    datasette = await console_for(db_path)
    yield datasette
    datasette.get_database("memory").close()


def snapshot(db) -> dict:
    return {table: db.execute(f"select * from {table} order by rowid").fetchall() for table in TABLES}


async def act(ds, who, memory_id, action, form=None):
    """POST an action form as ``who`` (an account name, or None) from the console's own page."""
    browser = await logged_in(ds, who)
    return await browser.post(f"/-/scope-recall/memories/{memory_id}/{action}", form)


@pytest.mark.asyncio
@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("who", [None, "viewer", "admin"])
async def test_auth_matrix(ds, db, rows, action, who):
    state, form, after = ACTIONS[action]
    memory_id = rows[state]
    before = snapshot(db)
    response = await act(ds, who, memory_id, action, form)
    if who != "admin":
        assert response.status_code == 403
        assert snapshot(db) == before
        return
    assert response.status_code == 302
    assert db["memories"].get(memory_id)["lifecycle"] == after
    last = db.execute("select action, principal, principal_kind from audit_events order by id desc").fetchone()
    assert last[1:] == ("human:admin", "human")
    assert [message for message, _ in messages(ds, response)] and messages(ds, response)[0][1] == ds.INFO


@pytest.mark.asyncio
async def test_illegal_transition_flashes_the_error_and_changes_nothing(ds, db, rows):
    before = snapshot(db)
    admin = await logged_in(ds, "admin")
    response = await admin.post(f"/-/scope-recall/memories/{rows['active']}/promote")
    assert response.status_code == 302
    [(text, kind)] = messages(ds, response)
    assert kind == ds.ERROR and "cannot promote" in text and "it is active" in text
    assert snapshot(db) == before
    page = await admin.get(response.headers["location"])
    assert "cannot promote" in page.text
    ok = await admin.post(f"/-/scope-recall/memories/{rows['candidate']}/promote")
    assert messages(ds, ok) == [[f"Memory {rows['candidate']} is now active.", ds.INFO]]


@pytest.mark.asyncio
async def test_a_refused_edit_keeps_the_typed_text(ds, db, rows):
    await act(ds, "admin", rows["candidate"], "reject", {"reason": "no", "confirm": "yes"})
    typed = "Alice is allergic to peanuts"  # tombstoned a moment ago
    response = await act(ds, "admin", rows["active"], "edit", {"content": typed, "reason": "she said so"})
    assert response.status_code == 422
    assert "rejected by human:admin" in response.text
    assert f">{typed}</textarea>" in response.text and 'value="she said so"' in response.text
    assert db["memories"].get(rows["active"])["content"] == "Alice lives in Porto"
    edited = await act(ds, "admin", rows["active"], "edit", {"content": "Alice lives in Porto, Portugal"})
    assert edited.status_code == 302 and messages(ds, edited)[0][1] == ds.INFO
    assert db["memories"].get(rows["active"])["version"] == 2


@pytest.mark.asyncio
async def test_principal_is_the_logged_in_operator(ds, db, rows):
    await act(ds, "dana", rows["candidate"], "reject", {"reason": "said in jest", "confirm": "yes"})
    event = db.execute("select principal, principal_kind, reason from audit_events where memory_id = ? "
                       "order by id desc", [rows["candidate"]]).fetchone()
    assert event == ("human:dana", "human", "said in jest")
    assert db["tombstones"].count == 1 and next(db["tombstones"].rows)["principal"] == "human:dana"


@pytest.mark.asyncio
@pytest.mark.parametrize("action, state, form", [("purge", "active", {}), ("reject", "candidate", {"reason": "no"})])
async def test_reject_and_purge_need_the_confirmation_step(ds, db, rows, action, state, form):
    before = snapshot(db)
    admin = await logged_in(ds, "admin")
    path = f"/-/scope-recall/memories/{rows[state]}/{action}"
    response = await admin.post(path, {**form, "next": "/-/scope-recall/review"})
    assert response.status_code == 302 and response.headers["location"] == (
        f"{path}?next=%2F-%2Fscope-recall%2Freview")
    assert snapshot(db) == before
    page = await admin.get(response.headers["location"])
    assert 'name="confirm" value="yes"' in page.text and "cannot be undone" in page.text
    assert 'class="danger confirm"' in page.text and 'name="next" value="/-/scope-recall/review"' in page.text
    done = await admin.post(path, {**form, "confirm": "yes", "next": "/-/scope-recall/review"})
    assert done.headers["location"] == "/-/scope-recall/review"
    assert db["memories"].get(rows[state])["lifecycle"] == {"purge": "purged", "reject": "rejected"}[action]


@pytest.mark.asyncio
async def test_anonymous_sees_only_the_login_page(ds):
    viewer = await logged_in(ds, "viewer")
    for path in ("/", "/memory", "/memory/memories", "/memory/memories/1", "/-/scope-recall/review",
                 "/memory/oldest_waiting_candidates", "/-/metadata", "/-/allow-debug", "/-/password-tool",
                 "/-/actor.json", "/-/scope-recall/memories/1/history"):
        response = await ds.client.get(path)
        assert response.status_code == 302 and response.headers["location"].startswith("/-/login"), path
        assert (await viewer.get(path)).status_code in (200, 404), path
    login = await ds.client.get("/-/login")
    assert login.status_code == 200 and 'name="password"' in login.text
    assert (await ds.client.get("/-/static/app.css")).status_code == 200  # assets stay reachable
    assert (await ds.client.get("/-/scope-recall/static/console.js")).status_code == 200
    no_role = await logged_in(ds, "mallory")
    assert (await no_role.get("/memory/memories")).status_code == 403


@pytest.mark.asyncio
async def test_unknown_urls_are_404_not_500(ds, rows):
    admin = await logged_in(ds, "admin")
    for path in ("/-/scope-recall/memories/1", "/a/b/c/d", "/memory/no_such_table",
                 "/-/scope-recall/memories/999/history", "/-/password-tool"):
        assert (await admin.get(path)).status_code == 404, path
    response = await admin.post("/-/scope-recall/memories/abc/promote")
    assert response.status_code == 404
    assert (await admin.get(f"/memory/memories/{rows['active']}")).status_code == 200


@pytest.mark.asyncio
async def test_password_login_gives_the_account_its_role_and_returns_to_the_page_that_asked(ds):
    browser = Browser(ds)
    asked = await browser.get("/-/scope-recall/review?scope=x")
    assert asked.headers["location"] == "/-/login?next=%2F-%2Fscope-recall%2Freview%3Fscope%3Dx"
    page = await browser.get(asked.headers["location"])
    assert 'name="next" value="/-/scope-recall/review?scope=x"' in page.text
    wrong = await browser.login("viewer", "wrong", next_path="/-/scope-recall/review?scope=x")
    assert wrong.status_code == 401 and "ds_actor" not in browser.cookies
    assert 'value="/-/scope-recall/review?scope=x"' in wrong.text  # the deep link survives a typo
    response = await browser.login("viewer", PASSWORD, next_path="/-/scope-recall/review?scope=x")
    assert response.status_code == 302 and response.headers["location"] == "/-/scope-recall/review?scope=x"
    actor = ds.unsign(browser.cookies["ds_actor"], "actor")["a"]
    assert actor == {"id": "viewer", "role": "viewer"}
    assert (await browser.get("/memory/memories")).status_code == 200


@pytest.mark.asyncio
async def test_sql_is_for_admins_and_never_writes(ds, db, rows):
    admin, viewer = await logged_in(ds, "admin"), await logged_in(ds, "viewer")
    select = await admin.get("/memory.json?sql=select+count(*)+as+n+from+memories&_shape=array")
    assert select.status_code == 200 and select.json() == [{"n": 3}]
    assert (await viewer.get("/memory.json?sql=select+1")).status_code == 403
    before = snapshot(db)
    for sql in ("update memories set lifecycle = 'active'", "delete from tombstones",
                "insert into audit_events (action, principal, principal_kind, at) values ('x', 'y', 'human', 'z')"):
        response = await admin.get("/memory.json", params={"sql": sql})
        assert response.status_code == 400 and "Statement must be a SELECT" in response.text
    assert snapshot(db) == before
    canned = await viewer.get("/memory/queue_size_by_scope.json?_shape=array")
    assert canned.json()[0]["scope"] == "telegram · alice" and canned.json()[0]["waiting"] == 1


@pytest.mark.asyncio
async def test_facets_and_readable_scopes(ds):
    viewer = await logged_in(ds, "viewer")
    expected = {"memories": {"lifecycle", "target", "review_state", "origin", "scope_id"},
                "audit_events": {"action", "principal", "principal_kind"},
                "tombstones": {"reason"}, "journal_entries": {"session"}}
    for table, facets in expected.items():
        data = (await viewer.get(f"/memory/{table}.json")).json()
        assert facets <= set(data["facet_results"]), table
    listing = (await viewer.get("/memory/memories")).text
    assert "telegram · alice" in listing and ">candidate</a> 1" in listing
    assert re.search(r'id="facet-scope_id".*?telegram · alice', listing, re.S)


@pytest.mark.asyncio
async def test_memory_content_is_rendered_escaped(ds, db, rows):
    evil = "<script>alert('x')</script><b>bold</b>"
    memory_id = lifecycle.extract(db, ALICE.shared_scope, "user", f"Alice said {evil}", system("digest"),
                                  origin="digest").id
    lifecycle.promote(db, rows["candidate"], human("setup"))  # so the dashboard shows the new one as the oldest
    db.conn.commit()
    admin = await logged_in(ds, "admin")
    for path in (f"/memory/memories/{memory_id}", "/-/scope-recall/review", "/",
                 f"/-/scope-recall/memories/{memory_id}/history", f"/-/scope-recall/memories/{memory_id}/purge",
                 f"/-/scope-recall/memories/{memory_id}/reject", f"/-/scope-recall/memories/{memory_id}/edit"):
        page = (await admin.get(path)).text
        assert "<script>alert" not in page and "<b>bold</b>" not in page, path
        assert html.escape(evil, quote=False) in page.replace("&#39;", "'").replace("&#x27;", "'"), path


@pytest.mark.asyncio
async def test_row_page_offers_the_state_s_actions_to_admins_only(ds, rows):
    path = f"/memory/memories/{rows['candidate']}"
    admin_page = (await (await logged_in(ds, "admin")).get(path)).text
    offered = re.findall(r'scope-recall-action[^"]*" data-action="(\w+)"', admin_page)
    assert offered == ["promote", "archive", "edit", "reject", "purge"]
    danger = admin_page[admin_page.index('class="danger-zone"'):]
    assert 'data-action="reject"' in danger and 'data-action="purge"' in danger  # styled apart, asks to confirm
    assert 'data-action="promote"' not in danger and "promote" in admin_page[:admin_page.index("danger-zone")]
    assert 'name="csrftoken"' in admin_page and "/history" in admin_page
    viewer_page = (await (await logged_in(ds, "viewer")).get(path)).text
    assert "data-action=" not in viewer_page and "Log in as an admin to act" in viewer_page
    archived = (await (await logged_in(ds, "admin")).get(f"/memory/memories/{rows['archived']}")).text
    assert re.findall(r'data-action="(\w+)"', archived) == ["restore", "purge"]


@pytest.mark.asyncio
async def test_review_queue_shows_evidence_and_nearest_active(ds, db, rows):
    other = Identity(user="bob", platform="cli")
    lifecycle.extract(db, other.shared_scope, "ops", "Bob deploys on Tuesdays", system("digest"), origin="digest")
    db.conn.commit()
    viewer, admin = await logged_in(ds, "viewer"), await logged_in(ds, "admin")
    page = (await viewer.get("/-/scope-recall/review")).text
    item = page[page.index(f'id="candidate-{rows["candidate"]}"'):]
    assert "Alice is allergic to peanuts" in item and "I&#39;m allergic to peanuts" in item
    assert "Bob deploys on Tuesdays" in page and "data-action=" not in page
    scoped = (await admin.get("/-/scope-recall/review", params={"scope": other.shared_scope})).text
    assert "Bob deploys on Tuesdays" in scoped and "Alice is allergic" not in scoped
    assert 'form="batch"' in scoped and 'data-action="promote"' in scoped
    nearest = lifecycle.extract(db, ALICE.shared_scope, "user", "Alice lives in Porto now", system("digest"),
                                origin="digest").id
    db.conn.commit()
    page = (await viewer.get("/-/scope-recall/review")).text
    item = page[page.index(f'id="candidate-{nearest}"'):]
    assert f'#{rows["active"]}</a> Alice lives in Porto <span' in item


@pytest.mark.asyncio
async def test_batch_decision_applies_each_and_reports_refusals(ds, db, rows):
    second = lifecycle.extract(db, ALICE.shared_scope, "user", "Alice has a cat", system("digest"),
                               origin="digest").id
    db.conn.commit()
    admin = await logged_in(ds, "admin")
    response = await admin.post("/-/scope-recall/review/decide", {
        "decision": "promote", "ids": [str(rows["candidate"]), str(second), str(rows["active"])]})
    assert response.status_code == 302
    assert [db["memories"].get(i)["lifecycle"] for i in (rows["candidate"], second)] == ["active", "active"]
    texts = [text for text, _ in messages(ds, response)]
    assert texts[0] == f"Promoted memories {rows['candidate']}, {second}."
    assert f"Could not promote memory {rows['active']}" in texts[1]


@pytest.mark.asyncio
async def test_a_rejection_needs_a_reason_on_the_row_and_in_a_batch(ds, db, rows):
    second = lifecycle.extract(db, ALICE.shared_scope, "user", "Alice has a cat", system("digest"),
                               origin="digest").id
    db.conn.commit()
    admin = await logged_in(ds, "admin")
    for reason in ("", "   "):
        refused = await admin.post(f"/-/scope-recall/memories/{rows['candidate']}/reject",
                                   {"reason": reason, "confirm": "yes"})
        assert refused.status_code == 422 and "say why: a reject is recorded with its reason." in refused.text

    async def batch(reason):
        return await admin.post("/-/scope-recall/review/decide", {
            "decision": "reject", "ids": str(second), "reason": reason, "confirm": "yes"})

    refused = await batch("")
    assert refused.status_code == 422 and "say why" in refused.text and f'name="ids" value="{second}"' in refused.text
    assert [db["memories"].get(i)["lifecycle"] for i in (rows["candidate"], second)] == ["candidate"] * 2
    assert db["tombstones"].count == 0
    # control: the same requests with a reason go through, and the reason is kept
    await admin.post(f"/-/scope-recall/memories/{rows['candidate']}/reject", {"reason": "never said",
                                                                               "confirm": "yes"})
    assert messages(ds, await batch("a joke"))[0] == [f"Rejected memories {second}.", ds.INFO]
    assert [db["memories"].get(i)["lifecycle"] for i in (rows["candidate"], second)] == ["rejected"] * 2
    assert {row["note"] for row in db["tombstones"].rows} == {"never said", "a joke"}


@pytest.mark.asyncio
async def test_a_batch_rejection_asks_to_confirm_first(ds, db, rows):
    admin = await logged_in(ds, "admin")
    before = snapshot(db)
    asked = await admin.post("/-/scope-recall/review/decide", {"decision": "reject", "ids": str(rows["candidate"]),
                                                               "reason": "a joke"})
    assert asked.status_code == 200 and snapshot(db) == before
    assert "Reject memory" in asked.text and 'name="confirm" value="yes"' in asked.text
    assert 'value="a joke"' in asked.text and "Alice is allergic to peanuts" in asked.text
    done = await admin.post("/-/scope-recall/review/decide", {"decision": "reject", "ids": str(rows["candidate"]),
                                                              "reason": "a joke", "confirm": "yes"})
    assert done.status_code == 302 and db["memories"].get(rows["candidate"])["lifecycle"] == "rejected"


@pytest.mark.asyncio
async def test_actions_drain_the_vector_outbox_when_enabled(ds, db, db_path, rows, monkeypatch):
    from datasette_plugins import db as console_db
    from scope_recall_engine.companion import vectors

    drained = []
    monkeypatch.setattr(vectors, "drain", lambda database: drained.append(database.execute(
        "select count(*) from vector_outbox").fetchone()[0]))
    await act(ds, "admin", rows["candidate"], "promote")
    assert drained == [] and not console_db._background
    draining = await console_for(db_path, drain_vectors=True)
    await act(draining, "admin", rows["active"], "archive")
    for task in list(console_db._background):
        await task
    assert len(drained) == 1 and drained[0] >= 1


@pytest.mark.asyncio
async def test_another_datasette_in_the_environment_is_not_locked(tmp_path):
    import sqlite3

    from datasette.app import Datasette

    sqlite3.connect(tmp_path / "other.db").execute("create table t (x)")
    other = Datasette([str(tmp_path / "other.db")])
    await other.invoke_startup()
    response = await other.client.get("/")
    assert response.status_code == 200 and "other" in response.text  # Datasette's own index, not the console's
    assert "frame-ancestors" not in response.headers.get("content-security-policy", "")
    assert not await other.permission_allowed(None, "scope-recall-act", default=False)
