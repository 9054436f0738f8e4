"""The operator console in-process (datasette.client): who may see, who may act, and what acting records."""

import html
import re

import pytest
import pytest_asyncio
from datasette_auth_passwords.utils import hash_password

from datasette_plugins import server
from scope_recall_engine.truth.principals import human, system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.writing import journal, lifecycle, review_queue

ALICE = Identity(user="alice", platform="telegram", chat="family")
ADMIN = {"id": "admin", "role": "admin"}
VIEWER = {"id": "viewer", "role": "viewer"}
TABLES = ("memories", "memory_versions", "audit_events", "tombstones", "vector_outbox", "journal_entries",
          "memory_sources")
ACTIONS = {  # action: (seeded row, form, lifecycle afterwards)
    "promote": ("candidate", {}, "active"),
    "reject": ("candidate", {"reason": "not true"}, "rejected"),
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


async def console_for(db_path, drain_vectors=False):
    metadata = server.load_metadata()
    metadata["plugins"]["scope-recall"] = {"drain_vectors": drain_vectors}
    datasette = server.build(db_path, metadata)
    await datasette.invoke_startup()
    return datasette


@pytest_asyncio.fixture
async def ds(db_path, rows):
    datasette = await console_for(db_path)
    yield datasette
    datasette.get_database("memory").close()


def snapshot(db) -> dict:
    return {table: db.execute(f"select * from {table} order by rowid").fetchall() for table in TABLES}


def as_actor(ds, actor) -> dict:
    return {"ds_actor": ds.sign({"a": actor}, "actor")} if actor else {}


async def act(ds, actor, memory_id, action, form=None, csrf=True):
    """POST an action form the way a browser does: the CSRF cookie from a page, echoed in the form."""
    cookies = as_actor(ds, actor)
    data = dict(form or {})
    if csrf:
        page = await ds.client.get("/-/login", cookies=cookies)
        cookies["ds_csrftoken"] = data["csrftoken"] = page.cookies["ds_csrftoken"]
    return await ds.client.post(f"/-/scope-recall/memories/{memory_id}/{action}", data=data, cookies=cookies)


def messages(ds, response) -> list:
    return ds.unsign(response.cookies["ds_messages"], "messages") if "ds_messages" in response.cookies else []


@pytest.mark.asyncio
@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("who", ["anonymous", "viewer", "admin"])
async def test_auth_matrix(ds, db, rows, action, who):
    state, form, after = ACTIONS[action]
    memory_id = rows[state]
    before = snapshot(db)
    response = await act(ds, {"viewer": VIEWER, "admin": ADMIN}.get(who), memory_id, action, form)
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
async def test_post_without_csrf_token_is_refused(ds, db, rows):
    before = snapshot(db)
    refused = await act(ds, ADMIN, rows["candidate"], "promote", csrf=False)
    assert refused.status_code == 403
    assert snapshot(db) == before
    done = await act(ds, ADMIN, rows["candidate"], "promote")
    assert done.status_code == 302 and db["memories"].get(rows["candidate"])["lifecycle"] == "active"


@pytest.mark.asyncio
async def test_illegal_transition_flashes_the_error_and_changes_nothing(ds, db, rows):
    before = snapshot(db)
    response = await act(ds, ADMIN, rows["active"], "promote")
    assert response.status_code == 302
    [(text, kind)] = messages(ds, response)
    assert kind == ds.ERROR and "cannot promote" in text and "it is active" in text
    assert snapshot(db) == before
    shown = {**as_actor(ds, ADMIN), "ds_messages": response.cookies["ds_messages"]}
    page = await ds.client.get(response.headers["location"], cookies=shown)
    assert "cannot promote" in page.text
    ok = await act(ds, ADMIN, rows["candidate"], "promote")
    assert messages(ds, ok) == [[f"Memory {rows['candidate']} is now active.", ds.INFO]]


@pytest.mark.asyncio
async def test_tombstoned_value_is_refused_with_a_clear_message(ds, db, rows):
    await act(ds, ADMIN, rows["candidate"], "reject", {"reason": "no"})
    response = await act(ds, ADMIN, rows["active"], "edit", {"content": "Alice is allergic to peanuts"})
    [(text, kind)] = messages(ds, response)
    assert kind == ds.ERROR and "rejected by human:admin" in text
    assert db["memories"].get(rows["active"])["content"] == "Alice lives in Porto"
    edited = await act(ds, ADMIN, rows["active"], "edit", {"content": "Alice lives in Porto, Portugal"})
    assert messages(ds, edited)[0][1] == ds.INFO
    assert db["memories"].get(rows["active"])["version"] == 2


@pytest.mark.asyncio
async def test_principal_is_the_logged_in_operator(ds, db, rows):
    dana = {"id": "dana", "role": "admin"}
    await act(ds, dana, rows["candidate"], "reject", {"reason": "said in jest"})
    event = db.execute("select principal, principal_kind, reason from audit_events where memory_id = ? "
                       "order by id desc", [rows["candidate"]]).fetchone()
    assert event == ("human:dana", "human", "said in jest")
    assert db["tombstones"].count == 1 and next(db["tombstones"].rows)["principal"] == "human:dana"


@pytest.mark.asyncio
async def test_purge_needs_the_confirmation_step(ds, db, rows):
    before = snapshot(db)
    response = await act(ds, ADMIN, rows["active"], "purge")
    assert response.headers["location"] == f"/-/scope-recall/memories/{rows['active']}/purge"
    assert snapshot(db) == before
    page = await ds.client.get(response.headers["location"], cookies=as_actor(ds, ADMIN))
    assert 'name="confirm" value="yes"' in page.text and "Alice lives in Porto" in page.text
    await act(ds, ADMIN, rows["active"], "purge", {"confirm": "yes"})
    purged = db["memories"].get(rows["active"])
    assert purged["lifecycle"] == "purged" and purged["content"] == ""


@pytest.mark.asyncio
async def test_anonymous_sees_only_the_login_page(ds):
    for path in ("/", "/memory", "/memory/memories", "/memory/memories/1", "/-/scope-recall/review",
                 "/memory/oldest_waiting_candidates", "/-/metadata"):
        response = await ds.client.get(path)
        assert response.status_code == 302 and response.headers["location"] == "/-/login", path
        assert (await ds.client.get(path, cookies=as_actor(ds, VIEWER))).status_code == 200, path
    assert (await ds.client.get("/memory/memories.json")).status_code in (302, 403)
    assert (await ds.client.get("/memory/memories.json", cookies=as_actor(ds, VIEWER))).status_code == 200
    login = await ds.client.get("/-/login")
    assert login.status_code == 200 and 'name="password"' in login.text
    no_role = await ds.client.get("/memory/memories", cookies=as_actor(ds, {"id": "stranger"}))
    assert no_role.status_code == 403


@pytest.mark.asyncio
async def test_unknown_urls_are_404_not_500(ds, rows):
    cookies = as_actor(ds, ADMIN)
    for path in ("/-/scope-recall/memories/1", "/a/b/c/d", "/memory/no_such_table"):
        assert (await ds.client.get(path, cookies=cookies)).status_code == 404, path
    token = (await ds.client.get("/-/login", cookies=cookies)).cookies["ds_csrftoken"]
    response = await ds.client.post("/-/scope-recall/memories/abc/promote", content=f"csrftoken={token}",
                                    headers={"content-type": "application/x-www-form-urlencoded"},
                                    cookies={**cookies, "ds_csrftoken": token})
    assert response.status_code == 404
    assert (await ds.client.get(f"/memory/memories/{rows['active']}", cookies=cookies)).status_code == 200


@pytest.mark.asyncio
async def test_password_login_gives_the_account_its_role(ds, monkeypatch):
    monkeypatch.setenv("SCOPE_RECALL_VIEWER_PASSWORD_HASH", hash_password("correct horse"))
    page = await ds.client.get("/-/login")
    token = page.cookies["ds_csrftoken"]

    async def login(password):
        return await ds.client.post("/-/login", data={"username": "viewer", "password": password,
                                                      "csrftoken": token}, cookies={"ds_csrftoken": token})

    assert "ds_actor" not in (await login("wrong")).cookies
    response = await login("correct horse")
    actor = ds.unsign(response.cookies["ds_actor"], "actor")["a"]
    assert actor == {"id": "viewer", "name": "Viewer", "role": "viewer"}
    assert (await ds.client.get("/memory/memories", cookies={"ds_actor": response.cookies["ds_actor"]})
            ).status_code == 200


@pytest.mark.asyncio
async def test_sql_is_for_admins_and_never_writes(ds, db, rows):
    admin, viewer = as_actor(ds, ADMIN), as_actor(ds, VIEWER)
    select = await ds.client.get("/memory.json?sql=select+count(*)+as+n+from+memories&_shape=array", cookies=admin)
    assert select.status_code == 200 and select.json() == [{"n": 3}]
    assert (await ds.client.get("/memory.json?sql=select+1", cookies=viewer)).status_code == 403
    before = snapshot(db)
    for sql in ("update memories set lifecycle = 'active'", "delete from tombstones",
                "insert into audit_events (action, principal, principal_kind, at) values ('x', 'y', 'human', 'z')"):
        response = await ds.client.get("/memory.json", params={"sql": sql}, cookies=admin)
        assert response.status_code == 400 and "Statement must be a SELECT" in response.text
    assert snapshot(db) == before
    canned = await ds.client.get("/memory/queue_size_by_scope.json?_shape=array", cookies=viewer)
    assert canned.json()[0]["scope"] == "telegram · alice" and canned.json()[0]["waiting"] == 1


@pytest.mark.asyncio
async def test_facets_and_readable_scopes(ds):
    viewer = as_actor(ds, VIEWER)
    expected = {"memories": {"lifecycle", "target", "review_state", "origin", "scope_id"},
                "audit_events": {"action", "principal", "principal_kind"},
                "tombstones": {"reason"}, "journal_entries": {"session"}}
    for table, facets in expected.items():
        data = (await ds.client.get(f"/memory/{table}.json", cookies=viewer)).json()
        assert facets <= set(data["facet_results"]), table
    listing = (await ds.client.get("/memory/memories", cookies=viewer)).text
    assert "telegram · alice" in listing and ">candidate</a> 1" in listing
    assert re.search(r'id="facet-scope_id".*?telegram · alice', listing, re.S)


@pytest.mark.asyncio
async def test_memory_content_is_rendered_escaped(ds, db):
    evil = "<script>alert('x')</script><b>bold</b>"
    memory_id = lifecycle.extract(db, ALICE.shared_scope, "user", f"Alice said {evil}", system("digest"),
                                  origin="digest").id
    db.conn.commit()
    for path in (f"/memory/memories/{memory_id}", "/-/scope-recall/review",
                 f"/-/scope-recall/memories/{memory_id}/history", f"/-/scope-recall/memories/{memory_id}/purge"):
        page = (await ds.client.get(path, cookies=as_actor(ds, ADMIN))).text
        assert "<script>alert" not in page and "<b>bold</b>" not in page, path
        assert html.escape(evil, quote=False) in page.replace("&#39;", "'").replace("&#x27;", "'"), path


@pytest.mark.asyncio
async def test_row_page_offers_the_state_s_actions_to_admins_only(ds, rows):
    path = f"/memory/memories/{rows['candidate']}"
    admin_page = (await ds.client.get(path, cookies=as_actor(ds, ADMIN))).text
    offered = re.findall(r'class="scope-recall-action" data-action="(\w+)"', admin_page)
    assert offered == ["promote", "reject", "archive", "edit", "purge"]
    assert 'name="csrftoken"' in admin_page and "/history" in admin_page
    viewer_page = (await ds.client.get(path, cookies=as_actor(ds, VIEWER))).text
    assert "data-action=" not in viewer_page and "Lifecycle" in viewer_page
    archived = (await ds.client.get(f"/memory/memories/{rows['archived']}", cookies=as_actor(ds, ADMIN))).text
    assert re.findall(r'data-action="(\w+)"', archived) == ["restore", "purge"]


@pytest.mark.asyncio
async def test_review_queue_shows_evidence_and_nearest_active(ds, db, rows):
    other = Identity(user="bob", platform="cli")
    lifecycle.extract(db, other.shared_scope, "ops", "Bob deploys on Tuesdays", system("digest"), origin="digest")
    db.conn.commit()
    page = (await ds.client.get("/-/scope-recall/review", cookies=as_actor(ds, VIEWER))).text
    item = page[page.index(f'id="candidate-{rows["candidate"]}"'):]
    assert "Alice is allergic to peanuts" in item and "I&#39;m allergic to peanuts" in item
    assert "Bob deploys on Tuesdays" in page and "data-action=" not in page
    scoped = (await ds.client.get("/-/scope-recall/review", params={"scope": other.shared_scope},
                                  cookies=as_actor(ds, ADMIN))).text
    assert "Bob deploys on Tuesdays" in scoped and "Alice is allergic" not in scoped
    assert 'form="batch"' in scoped and 'data-action="promote"' in scoped
    nearest = lifecycle.extract(db, ALICE.shared_scope, "user", "Alice lives in Porto now", system("digest"),
                                origin="digest").id
    db.conn.commit()
    page = (await ds.client.get("/-/scope-recall/review", cookies=as_actor(ds, VIEWER))).text
    item = page[page.index(f'id="candidate-{nearest}"'):]
    assert f'#{rows["active"]}</a> <span class="content-text">Alice lives in Porto</span>' in item


@pytest.mark.asyncio
async def test_batch_decision_applies_each_and_reports_refusals(ds, db, rows):
    second = lifecycle.extract(db, ALICE.shared_scope, "user", "Alice has a cat", system("digest"),
                               origin="digest").id
    db.conn.commit()
    cookies = as_actor(ds, ADMIN)
    token = (await ds.client.get("/-/login", cookies=cookies)).cookies["ds_csrftoken"]
    body = [("csrftoken", token), ("decision", "promote"), ("ids", str(rows["candidate"])), ("ids", str(second)),
            ("ids", str(rows["active"]))]
    response = await ds.client.post("/-/scope-recall/review/decide", content="&".join(f"{k}={v}" for k, v in body),
                                    headers={"content-type": "application/x-www-form-urlencoded"},
                                    cookies={**cookies, "ds_csrftoken": token})
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
    for reason in ("", "   "):
        refused = await act(ds, ADMIN, rows["candidate"], "reject", {"reason": reason})
        assert messages(ds, refused) == [[f"Could not reject memory {rows['candidate']}: say why: a reject is "
                                          "recorded with its reason.", ds.ERROR]]
    cookies = as_actor(ds, ADMIN)
    token = (await ds.client.get("/-/login", cookies=cookies)).cookies["ds_csrftoken"]

    async def batch(reason):
        return await ds.client.post("/-/scope-recall/review/decide", data={
            "csrftoken": token, "decision": "reject", "ids": str(second), "reason": reason},
            cookies={**cookies, "ds_csrftoken": token})

    assert messages(ds, await batch("")) == [["Nothing rejected: say why: a reject is recorded with its reason.",
                                              ds.ERROR]]
    assert [db["memories"].get(i)["lifecycle"] for i in (rows["candidate"], second)] == ["candidate"] * 2
    assert db["tombstones"].count == 0
    # control: the same requests with a reason go through, and the reason is kept
    await act(ds, ADMIN, rows["candidate"], "reject", {"reason": "never said"})
    assert messages(ds, await batch("a joke"))[0] == [f"Rejected memories {second}.", ds.INFO]
    assert [db["memories"].get(i)["lifecycle"] for i in (rows["candidate"], second)] == ["rejected"] * 2
    assert {row["note"] for row in db["tombstones"].rows} == {"never said", "a joke"}


@pytest.mark.asyncio
async def test_review_queue_pages_oldest_first_and_deciding_a_page_skips_nobody(ds, db, rows):
    more = [lifecycle.extract(db, ALICE.shared_scope, "user", f"Alice owns record number {n}", system("digest"),
                              origin="digest").id for n in range(review_queue.PAGE_SIZE + 1)]
    db.conn.commit()
    waiting = [rows["candidate"], *more]
    shown = lambda page: [int(i) for i in re.findall(r'id="candidate-(\d+)"', page)]
    first = (await ds.client.get("/-/scope-recall/review", cookies=as_actor(ds, VIEWER))).text
    assert shown(first) == waiting[:review_queue.PAGE_SIZE]
    assert f"{review_queue.PAGE_SIZE} of {len(waiting)} waiting candidates shown" in first
    next_url = html.unescape(re.search(r'href="([^"]+)" class="scope-recall-next"', first).group(1))
    for memory_id in waiting[:review_queue.PAGE_SIZE]:  # the operator decides the whole first page
        lifecycle.promote(db, memory_id, human("admin"))
    second = (await ds.client.get(next_url, cookies=as_actor(ds, VIEWER))).text
    assert shown(second) == waiting[review_queue.PAGE_SIZE:] and "scope-recall-next" not in second


@pytest.mark.asyncio
async def test_history_puts_versions_and_events_on_one_timeline(ds, rows):
    await act(ds, ADMIN, rows["active"], "edit", {"content": "Alice lives in Porto, Portugal", "reason": "fuller"})
    page = (await ds.client.get(f"/-/scope-recall/memories/{rows['active']}/history",
                                cookies=as_actor(ds, VIEWER))).text
    rows_html = re.findall(r'<tr class="(version|event)">', page)
    assert rows_html == ["version", "event", "version", "event"]
    assert "Alice lives in Porto, Portugal" in page and "human:admin" in page and "(fuller)" in page
    assert (await ds.client.get("/-/scope-recall/memories/999/history", cookies=as_actor(ds, VIEWER))
            ).status_code == 404


@pytest.mark.asyncio
async def test_actions_drain_the_vector_outbox_when_enabled(ds, db, db_path, rows, monkeypatch):
    from datasette_plugins import console as plugin
    from scope_recall_engine.companion import vectors

    drained = []
    monkeypatch.setattr(vectors, "drain", lambda database: drained.append(database.execute(
        "select count(*) from vector_outbox").fetchone()[0]))
    await act(ds, ADMIN, rows["candidate"], "promote")
    assert drained == [] and not plugin._background
    draining = await console_for(db_path, drain_vectors=True)
    await act(draining, ADMIN, rows["active"], "archive")
    for task in list(plugin._background):
        await task
    assert len(drained) == 1 and drained[0] >= 1


@pytest.mark.asyncio
async def test_another_datasette_in_the_environment_is_not_locked(tmp_path):
    import sqlite3

    from datasette.app import Datasette

    sqlite3.connect(tmp_path / "other.db").execute("create table t (x)")
    other = Datasette([str(tmp_path / "other.db")])
    await other.invoke_startup()
    assert (await other.client.get("/")).status_code == 200
    assert not await other.permission_allowed(None, "scope-recall-act", default=False)
