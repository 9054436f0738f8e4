"""Console security: every action needs an admin session and a CSRF token, the login cookie's flags, no open
redirect anywhere in the login or action flows, and a principal on every audit event a console session leaves."""

import pytest
import pytest_asyncio
from datasette_auth_passwords.utils import hash_password

from datasette_plugins import server
from scope_recall_engine import doctor
from scope_recall_engine.truth.principals import human, system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.writing import lifecycle

ALICE = Identity(user="alice", platform="telegram", chat="family")
ADMIN, VIEWER = {"id": "dana", "role": "admin"}, {"id": "vic", "role": "viewer"}
TABLES = ("memories", "memory_versions", "audit_events", "tombstones", "vector_outbox", "journal_entries")
OFFSITE = ("https://evil.example/", "//evil.example", "/\\evil.example", "/\t/evil.example", "\\\\evil.example",
           "http:evil.example", "javascript:alert(1)", " //evil.example")


@pytest.fixture
def rows(db):
    ids = {"active": lifecycle.store(db, ALICE, "user", "Alice lives in Porto", human("setup")).id}
    ids["archived"] = lifecycle.store(db, ALICE, "user", "Alice plays the cello", human("setup")).id
    lifecycle.archive(db, ids["archived"], human("setup"))
    for n in range(3):
        ids[f"candidate{n}"] = lifecycle.extract(db, ALICE.shared_scope, "user", f"Alice fact number {n}",
                                                 system("digest"), origin="digest").id
    db.conn.commit()
    return ids


@pytest_asyncio.fixture
async def ds(db_path, rows):
    metadata = server.load_metadata()
    metadata["plugins"]["scope-recall"] = {"drain_vectors": False}
    datasette = server.build(db_path, metadata)
    await datasette.invoke_startup()
    yield datasette
    datasette.get_database("memory").close()


def snapshot(db) -> dict:
    return {table: db.execute(f"select * from {table} order by rowid").fetchall() for table in TABLES}


async def session(ds, actor) -> dict:
    """Cookies of a browser that logged in as ``actor`` (None: anonymous) and loaded a page (CSRF cookie)."""
    cookies = {"ds_actor": ds.sign({"a": actor}, "actor")} if actor else {}
    cookies["ds_csrftoken"] = (await ds.client.get("/-/login", cookies=cookies)).cookies["ds_csrftoken"]
    return cookies


ROUTES = {  # action: (row key, form)
    "promote": ("candidate0", {}), "reject": ("candidate0", {"reason": "no"}), "archive": ("active", {}),
    "restore": ("archived", {}), "edit": ("active", {"content": "Alice lives in Braga"}),
    "supersede": ("active", {"content": "Alice lives in Faro"}), "purge": ("active", {"confirm": "yes"}),
}


async def post(ds, cookies, path, form, token=True):
    data = {**form, **({"csrftoken": cookies.get("ds_csrftoken", "")} if token else {})}
    return await ds.client.post(path, data=data, cookies=cookies)


@pytest.mark.asyncio
@pytest.mark.parametrize("action", [*ROUTES, "batch"])
async def test_every_action_needs_an_admin_session_and_a_csrf_token(ds, db, rows, action):
    row, form = ROUTES.get(action, ("candidate0", {}))
    path = f"/-/scope-recall/memories/{rows[row]}/{action}"
    if action == "batch":
        path, form = "/-/scope-recall/review/decide", {"decision": "promote", "ids": str(rows["candidate0"])}
    before = snapshot(db)
    admin = await session(ds, ADMIN)
    refusals = [
        await post(ds, await session(ds, None), path, form),  # anonymous, with a token
        await post(ds, await session(ds, VIEWER), path, form),  # viewer, with a token
        await post(ds, await session(ds, {"id": "mallory"}), path, form),  # a login without a role
        await post(ds, admin, path, form, token=False),  # admin, no token
        await post(ds, {**admin, "ds_csrftoken": (await session(ds, ADMIN))["ds_csrftoken"]}, path,
                   {**form, "csrftoken": admin["ds_csrftoken"]}, token=False),  # admin, token of another session
        await ds.client.get(path + "?" + "&".join(f"{k}={v}" for k, v in form.items()), cookies=admin),  # GET
    ]
    assert [r.status_code for r in refusals[:5]] == [403] * 5, action
    assert refusals[5].status_code in (200, 405)  # purge's GET is the confirmation page; the rest refuse GET
    assert snapshot(db) == before
    done = await post(ds, admin, path, form)  # positive control: admin with the token
    assert done.status_code == 302 and snapshot(db) != before, action


@pytest.mark.asyncio
async def test_the_login_cookie_is_http_only_and_same_site(ds, monkeypatch):
    monkeypatch.setenv("SCOPE_RECALL_ADMIN_PASSWORD_HASH", hash_password("correct horse"))
    token = (await ds.client.get("/-/login")).cookies["ds_csrftoken"]
    response = await ds.client.post("/-/login", data={"username": "admin", "password": "correct horse",
                                                      "csrftoken": token}, cookies={"ds_csrftoken": token})
    [cookie] = [v for k, v in response.headers.multi_items() if k == "set-cookie" and v.startswith("ds_actor=")]
    flags = {part.strip().split("=")[0].lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite", "path"} <= flags, cookie
    assert "samesite=lax" in cookie.lower()
    assert "secure" not in flags  # plain HTTP here; behind TLS the flag is added (see the next test)
    wrong = await ds.client.post("/-/login", data={"username": "admin", "password": "nope", "csrftoken": token},
                                 cookies={"ds_csrftoken": token})
    assert "ds_actor" not in wrong.cookies  # positive control for the login itself: a wrong password gets nothing


@pytest.mark.asyncio
async def test_the_login_cookie_is_secure_over_tls(ds, monkeypatch):
    import httpx

    monkeypatch.setenv("SCOPE_RECALL_ADMIN_PASSWORD_HASH", hash_password("correct horse"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=ds.app()), base_url="https://console") as client:
        token = (await client.get("/-/login")).cookies["ds_csrftoken"]
        client.cookies.set("ds_csrftoken", token)
        response = await client.post("/-/login", data={"username": "admin", "password": "correct horse",
                                                       "csrftoken": token})
    cookie = next(v for k, v in response.headers.multi_items() if k == "set-cookie" and v.startswith("ds_actor="))
    assert "secure" in cookie.lower() and "httponly" in cookie.lower(), cookie


@pytest.mark.asyncio
@pytest.mark.parametrize("target", OFFSITE)
async def test_no_redirect_leaves_the_site(ds, db, rows, target, monkeypatch):
    monkeypatch.setenv("SCOPE_RECALL_ADMIN_PASSWORD_HASH", hash_password("correct horse"))
    login_page = await ds.client.get("/-/login", params={"next": target})
    assert login_page.status_code == 200
    token = login_page.cookies["ds_csrftoken"]
    login = await ds.client.post("/-/login", params={"next": target}, data={
        "username": "admin", "password": "correct horse", "csrftoken": token, "next": target},
        cookies={"ds_csrftoken": token})
    admin = await session(ds, ADMIN)
    acted = await post(ds, admin, f"/-/scope-recall/memories/{rows['candidate0']}/promote", {"next": target})
    batch = await post(ds, admin, "/-/scope-recall/review/decide",
                       {"decision": "reject", "ids": str(rows["candidate1"]), "reason": "no", "next": target})
    for response in (login, acted, batch):
        assert response.status_code == 302
        location = response.headers["location"]
        assert location.startswith("/") and not location.startswith("//") and "evil" not in location, location
        assert "\\" not in location and "\t" not in location
    assert db["memories"].get(rows["candidate0"])["lifecycle"] == "active"  # the actions themselves went through
    local = await post(ds, admin, f"/-/scope-recall/memories/{rows['candidate2']}/promote",
                       {"next": "/-/scope-recall/review?scope=x"})
    assert local.headers["location"] == "/-/scope-recall/review?scope=x"  # positive control: on-site kept


SESSION = [("promote", "candidate0", {}), ("reject", "candidate1", {"reason": "no"}), ("archive", "active", {}),
           ("restore", "active", {}), ("edit", "active", {"content": "Alice lives in Braga"}),
           ("supersede", "active", {"content": "Alice lives in Faro"}), ("restore", "archived", {}),
           ("purge", "archived", {"confirm": "yes"})]


@pytest.mark.asyncio
async def test_every_audit_event_of_a_console_session_names_its_principal(ds, db, rows):
    first = db.execute("select coalesce(max(id), 0) from audit_events").fetchone()[0]
    admin = await session(ds, ADMIN)
    for action, row, form in SESSION:
        response = await post(ds, admin, f"/-/scope-recall/memories/{rows[row]}/{action}", form)
        assert response.status_code == 302 and "ds_messages" in response.cookies, action
        assert all(kind == ds.INFO for _, kind in ds.unsign(response.cookies["ds_messages"], "messages")), action
    await post(ds, admin, "/-/scope-recall/review/decide", {"decision": "promote", "ids": str(rows["candidate2"])})
    events = db.execute("select action, principal, principal_kind from audit_events where id > ?",
                        [first]).fetchall()
    assert len(events) >= len(SESSION) + 1
    assert all(principal and kind for _, principal, kind in events), events
    human_actions = [e for e in events if e[0] in ROUTES]
    assert human_actions and all(e[1:] == ("human:dana", "human") for e in human_actions), events
    assert all(check.ok for check in doctor.run(db) if check.name == "audit_coverage")
