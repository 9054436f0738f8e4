"""Console security: every action needs an admin session, a CSRF token bound to that session and a post from the
console's own pages; sessions end; logins are throttled and hashed off the event loop; every response carries
the security headers; bad input is a 4xx with a message; no redirect leaves the site; every audit event of a
console session names its principal."""

import base64
import hashlib
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
import pytest_asyncio
from console_kit import ORIGIN, PASSWORD, TOKEN, Browser, console_for, logged_in, messages, metadata, running_console
from datasette_auth_passwords.utils import hash_password

from datasette_plugins import accounts, server
from scope_recall_engine import doctor
from scope_recall_engine.truth.content import normalize
from scope_recall_engine.truth.principals import human, system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.writing import lifecycle

ALICE = Identity(user="alice", platform="telegram", chat="family")
TABLES = ("memories", "memory_versions", "audit_events", "tombstones", "vector_outbox", "journal_entries")
OFFSITE = ("https://evil.example/", "//evil.example", "/\\evil.example", "/\t/evil.example", "\\\\evil.example",
           "http:evil.example", "javascript:alert(1)", " //evil.example")
ROUTES = {  # action: (row key, form)
    "promote": ("candidate0", {}), "reject": ("candidate0", {"reason": "no", "confirm": "yes"}),
    "archive": ("active", {}), "restore": ("archived", {}), "edit": ("active", {"content": "Alice lives in Braga"}),
    "supersede": ("active", {"content": "Alice lives in Faro"}), "purge": ("active", {"confirm": "yes"}),
}


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


@pytest.fixture(autouse=True)
def fresh_throttles(monkeypatch):
    """Each test starts with no failed logins remembered (the throttles live as long as the process)."""
    monkeypatch.setattr(accounts, "PER_ACCOUNT", accounts.Throttle(limit=10, window=900))
    monkeypatch.setattr(accounts, "PER_ADDRESS", accounts.Throttle(limit=20, window=900))


@pytest_asyncio.fixture
async def ds(db_path, rows):
    datasette = await console_for(db_path)
    yield datasette
    datasette.get_database("memory").close()


def snapshot(db) -> dict:
    return {table: db.execute(f"select * from {table} order by rowid").fetchall() for table in TABLES}


def route(rows, action) -> tuple[str, dict]:
    if action == "batch":
        return "/-/scope-recall/review/decide", {"decision": "promote", "ids": str(rows["candidate0"])}
    row, form = ROUTES[action]
    return f"/-/scope-recall/memories/{rows[row]}/{action}", form


def from_address(ds, address: str) -> Browser:
    return Browser(ds, httpx.AsyncClient(transport=httpx.ASGITransport(app=ds.app(), client=(address, 1234)),
                                         base_url=ORIGIN))


@pytest.mark.asyncio
@pytest.mark.parametrize("action", [*ROUTES, "batch"])
async def test_every_action_needs_an_admin_session_and_a_csrf_token_bound_to_it(ds, db, rows, action):
    path, form = route(rows, action)
    before = snapshot(db)
    admin, other_admin, anonymous = await logged_in(ds, "admin"), await logged_in(ds, "admin"), Browser(ds)
    handed_out = await anonymous.token()  # what /-/login gives anyone, with its cookie
    planted = {**admin.cookies, "ds_csrftoken": anonymous.cookies["ds_csrftoken"]}  # set by another site
    refusals = [
        await anonymous.post(path, form),
        await (await logged_in(ds, "viewer")).post(path, form),
        await (await logged_in(ds, "mallory")).post(path, form),  # a login without a role
        await admin.post(path, form, token=None),
        await admin.post(path, form, token=await other_admin.token()),  # another session's token
        await ds.client.post(path, data={**form, "csrftoken": handed_out}, cookies=planted,
                             headers={"origin": ORIGIN}),  # the cross-site purge of issue 13
        await admin.get(path, params=form),
    ]
    assert [r.status_code for r in refusals[:6]] == [403] * 6, action
    assert refusals[6].status_code in (200, 405)  # reject's and purge's GET is the confirmation page
    assert snapshot(db) == before
    done = await admin.post(path, form)  # positive control: the admin, from its own page
    assert done.status_code == 302 and snapshot(db) != before, action


@pytest.mark.asyncio
@pytest.mark.parametrize("origin, referer", [("http://127.0.0.1:9999", None), ("null", None), (None, None),
                                             ("http://localhost.evil.example", None),
                                             (None, "http://127.0.0.1:9999/attack.html")])
async def test_a_post_from_another_site_is_refused_even_with_the_session_s_token(ds, db, rows, origin, referer):
    admin = await logged_in(ds, "admin")
    token = await admin.token()
    path, form = route(rows, "purge")
    headers = {**({"origin": origin} if origin else {}), **({"referer": referer} if referer else {})}
    refused = await ds.client.post(path, data={**form, "csrftoken": token}, cookies=admin.cookies, headers=headers)
    assert refused.status_code == 403 and "not from a page of this console" in refused.text
    assert db["memories"].get(rows["active"])["lifecycle"] == "active"
    same_site = await ds.client.post(path, data={**form, "csrftoken": token}, cookies=admin.cookies,
                                     headers={"referer": f"{ORIGIN}/memory/memories/1"})  # Referer, no Origin
    assert same_site.status_code == 302 and db["memories"].get(rows["active"])["lifecycle"] == "purged"


@pytest.mark.asyncio
async def test_a_console_behind_a_proxy_accepts_its_public_origin_when_told(db_path, rows):
    data = metadata()
    data["plugins"]["scope-recall"]["origins"] = ["https://console.example"]
    proxied = server.build(db_path, data)
    admin = await logged_in(proxied, "admin")
    path, form = route(rows, "promote")
    assert (await admin.post(path, form, origin="https://other.example")).status_code == 403
    assert (await admin.post(path, form, origin="https://console.example")).status_code == 302


@pytest.mark.asyncio
async def test_each_login_is_its_own_session_and_logout_ends_only_it(ds):
    first, second = await logged_in(ds, "admin"), await logged_in(ds, "admin")
    assert first.cookies["ds_actor"] != second.cookies["ds_actor"]
    stolen = dict(first.cookies)
    out = await first.post("/-/logout")
    assert out.status_code == 302 and "ds_actor" not in first.cookies
    replayed = await ds.client.get("/memory/memories", cookies=stolen)
    assert replayed.status_code == 302 and replayed.headers["location"].startswith("/-/login")
    assert "ds_actor=; Max-Age=0" in replayed.headers["set-cookie"]  # the browser forgets it too
    assert (await second.get("/memory/memories")).status_code == 200


@pytest.mark.asyncio
async def test_a_stolen_cookie_survives_neither_logout_nor_a_password_change_across_restarts(db_path, rows):
    secret, accounts_as_configured = "a-datasette-secret-set-as-the-readme-advises", metadata()
    admin = await logged_in(server.build(db_path, accounts_as_configured, secret=secret), "admin")
    stolen = dict(admin.cookies)
    restarted = server.build(db_path, accounts_as_configured, secret=secret)
    assert (await restarted.client.get("/memory/memories", cookies=stolen)).status_code == 200  # a live session
    forged = {"ds_actor": restarted.sign({"a": {"id": "admin", "role": "admin"}}, "actor")}  # no session behind it
    assert (await restarted.client.get("/memory/memories", cookies=forged)).status_code == 302
    data = metadata()
    data["plugins"]["datasette-auth-passwords"]["admin_password_hash"] = accounts.UNKNOWN  # a new password
    changed = server.build(db_path, data, secret=secret)
    assert (await changed.client.get("/memory/memories", cookies=stolen)).status_code == 302
    viewer = await logged_in(changed, "viewer")  # control: an account whose password did not change
    assert (await viewer.get("/memory/memories")).status_code == 200


@pytest.mark.asyncio
async def test_expired_and_idle_sessions_end(ds, db):
    expired, idle, live = [await logged_in(ds, "admin") for _ in range(3)]
    ids = [row[0] for row in db.execute("select id from console_sessions order by rowid")]
    db.execute("update console_sessions set expires_at = '2000-01-01T00:00:00.000000+00:00' where id = ?", [ids[0]])
    db.execute("update console_sessions set seen_at = '2000-01-01T00:00:00.000000+00:00' where id = ?", [ids[1]])
    db.conn.commit()
    assert (await expired.get("/memory/memories")).status_code == 302
    assert (await idle.get("/memory/memories")).status_code == 302
    assert (await live.get("/memory/memories")).status_code == 200


@pytest.mark.asyncio
async def test_failed_logins_are_throttled_per_account(ds):
    browser = await logged_in(ds, None)
    for _ in range(10):
        assert (await browser.login("admin", "wrong")).status_code == 401
    throttled = await browser.login("admin", PASSWORD)
    assert throttled.status_code == 429 and "Too many failed logins" in throttled.text
    assert "ds_actor" not in browser.cookies
    elsewhere = await from_address(ds, "10.0.0.2").login("admin", PASSWORD)
    assert elsewhere.status_code == 429  # the account is throttled, whoever asks
    other_account = Browser(ds)
    assert (await other_account.login("viewer", PASSWORD)).status_code == 302  # control: another account logs in


@pytest.mark.asyncio
async def test_failed_logins_are_throttled_per_address(ds):
    guesser = from_address(ds, "10.0.0.3")
    for n in range(20):
        assert (await guesser.login(f"guess{n}", "wrong")).status_code == 401
    assert (await guesser.login("viewer", PASSWORD)).status_code == 429
    assert (await from_address(ds, "10.0.0.4").login("viewer", PASSWORD)).status_code == 302  # control


def test_password_hashing_leaves_the_server_answering(db_path, rows):
    """Twelve wrong logins at once (the real PBKDF2 cost) against the real server: its pages keep answering."""
    def wrong_login(base: str) -> int:
        with urllib.request.urlopen(base + "/-/login") as page:
            cookie = page.headers["set-cookie"].split(";")[0]
            token = TOKEN.search(page.read().decode()).group(1)
        form = urllib.parse.urlencode({"username": "admin", "password": "wrong", "csrftoken": token}).encode()
        request = urllib.request.Request(base + "/-/login", data=form, headers={"cookie": cookie, "origin": base})
        try:
            return urllib.request.urlopen(request).status
        except urllib.error.HTTPError as refused:
            return refused.code

    with running_console(db_path, SCOPE_RECALL_ADMIN_PASSWORD_HASH=hash_password(PASSWORD)) as base:
        with ThreadPoolExecutor(max_workers=12) as pool:
            started = time.perf_counter()
            logins = [pool.submit(wrong_login, base) for _ in range(12)]
            time.sleep(0.3)  # the logins are hashing now
            waits = []
            for _ in range(5):
                asked = time.perf_counter()
                urllib.request.urlopen(base + "/-/static/app.css").read()
                waits.append(time.perf_counter() - asked)
            statuses = [login.result() for login in logins]
            busy = time.perf_counter() - started
    print(f"a page answered in at most {max(waits):.3f} s while 12 wrong logins took {busy:.3f} s")
    assert max(waits) < 0.5 < busy, (waits, busy)  # real hashing work, and the server kept answering
    assert statuses == [401] * 12


@pytest.mark.asyncio
async def test_nobody_can_make_the_server_hash_passwords_for_them(ds):
    anonymous = await logged_in(ds, None)
    refused = await anonymous.post("/-/password-tool", {"password": "x"})
    assert refused.status_code == 403
    admin = await logged_in(ds, "admin")
    for response in (await admin.get("/-/password-tool"), await admin.post("/-/password-tool", {"password": "x"})):
        assert response.status_code == 404 and "scope-recall hash-password" in response.text
        assert "pbkdf2" not in response.text


@pytest.mark.asyncio
async def test_every_response_carries_the_security_headers(ds, rows):
    admin = await logged_in(ds, "admin")
    responses = [await ds.client.get("/-/login"), await ds.client.get("/memory/memories"),
                 await admin.get("/memory/memories"), await admin.get(f"/memory/memories/{rows['active']}"),
                 await admin.get("/"), await admin.get(f"/-/scope-recall/memories/{rows['active']}/purge"),
                 await admin.get("/no/such/page"), await admin.get("/-/static/app.css"),
                 await ds.client.post("/-/scope-recall/review/decide", data={}, headers={"origin": "http://x"})]
    for response in responses:
        csp = response.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers.get_list("referrer-policy") == ["same-origin"]  # Datasette's no-referrer replaced


def inline_scripts(page: str) -> list[str]:
    return re.findall(r"<script>(.*?)</script>", page, re.S)


def sha256_source(script: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"


@pytest.mark.asyncio
@pytest.mark.parametrize("allow_facet", [True, False])
async def test_every_inline_script_a_page_renders_is_allowed_by_its_hash(ds, rows, allow_facet):
    ds._settings = {**ds._settings, "allow_facet": allow_facet}  # Datasette's table script depends on it
    admin = await logged_in(ds, "admin")
    seen = 0
    for path in ("/-/login", "/", "/memory", "/memory/memories", f"/memory/memories/{rows['active']}",
                 "/memory?sql=select+1", "/-/scope-recall/review", "/-/logout"):
        page = await admin.get(path)
        allowed = page.headers["content-security-policy"].split("script-src")[1].split(";")[0].split()
        for script in inline_scripts(page.text):
            assert sha256_source(script) in allowed, (path, script[:80])
            seen += 1
    assert seen >= 8  # control: the pages do carry inline scripts (every page closes its menus by script)
    assert sha256_source("alert(1)") not in allowed


@pytest.mark.asyncio
async def test_the_login_cookie_is_http_only_and_same_site(ds):
    browser = await logged_in(ds, None)
    response = await browser.login("admin")
    [cookie] = [v for k, v in response.headers.multi_items() if k == "set-cookie" and v.startswith("ds_actor=")]
    flags = {part.strip().split("=")[0].lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite", "path", "max-age"} <= flags, cookie
    assert "samesite=lax" in cookie.lower()
    assert "secure" not in flags  # plain HTTP here; behind TLS the flag is added (see the next test)
    wrong = await Browser(ds).login("admin", "nope")
    assert "ds_actor" not in wrong.cookies  # positive control for the login itself: a wrong password gets nothing


@pytest.mark.asyncio
async def test_the_login_cookie_is_secure_over_tls(ds):
    tls = Browser(ds, httpx.AsyncClient(transport=httpx.ASGITransport(app=ds.app()), base_url="https://localhost"))
    response = await tls.post("/-/login", {"username": "admin", "password": PASSWORD}, origin="https://localhost")
    cookie = next(v for k, v in response.headers.multi_items() if k == "set-cookie" and v.startswith("ds_actor="))
    assert "secure" in cookie.lower() and "httponly" in cookie.lower(), cookie


BAD_REQUESTS = [  # (method, path, form or raw body, content type, status, message)
    ("GET", "/-/scope-recall/memories/9223372036854775808/history", None, None, 404, "no memory with id"),
    ("GET", "/-/scope-recall/memories/99999999999999999999999/history", None, None, 404, None),
    ("POST", "/-/scope-recall/memories/9223372036854775808/promote", {}, None, 404, "no memory with id"),
    ("GET", "/-/scope-recall/review?after=9223372036854775808", None, None, 400, "after must be a memory id"),
    ("GET", "/-/scope-recall/review?after=1e9", None, None, 400, "after must be a memory id"),
    ("GET", "/memory/memories/9223372036854775808", None, None, 404, None),
    ("POST", "/-/scope-recall/memories/1/promote", b"reason=\xff\xfe", None, 400, "not UTF-8"),
    ("POST", "/-/scope-recall/memories/1/promote", b"reason=%ff%fe", None, 400, "not UTF-8"),
    ("POST", "/-/scope-recall/memories/1/edit", b"content=" + b"a" * 300_000, None, 413, "at most 256 KiB"),
    ("POST", "/-/scope-recall/memories/1/promote", b'{"reason": "x"}', "application/json", 415, "form posts only"),
]


@pytest.mark.asyncio
@pytest.mark.parametrize("method, path, body, content_type, status, message", BAD_REQUESTS)
async def test_bad_input_is_a_4xx_with_a_message_never_a_500(ds, db, rows, method, path, body, content_type,
                                                             status, message):
    admin = await logged_in(ds, "admin")
    before = snapshot(db)
    if method == "GET":
        response = await admin.get(path)
    elif isinstance(body, dict):
        response = await admin.post(path, body)
    else:
        token = await admin.token()
        separator = b"&" if content_type is None else b""
        response = await ds.client.post(path, content=(f"csrftoken={token}".encode() + separator + body
                                                       if content_type is None else body),
                                        cookies=admin.cookies, headers={
                                            "origin": ORIGIN, "x-csrftoken": token,
                                            "content-type": content_type or "application/x-www-form-urlencoded"})
    assert response.status_code == status, response.text[:500]
    assert message is None or message in response.text
    assert snapshot(db) == before
    sane = await admin.get(f"/-/scope-recall/memories/{rows['active']}/history")  # control: the same kind, sane
    assert sane.status_code == 200


@pytest.mark.asyncio
async def test_a_reason_is_bounded_and_refusing_it_records_nothing(ds, db, rows):
    admin = await logged_in(ds, "admin")
    before = snapshot(db)
    promote = await admin.post(f"/-/scope-recall/memories/{rows['candidate0']}/promote", {"reason": "x" * 1001})
    [(text, kind)] = messages(ds, promote)
    assert kind == ds.ERROR and "a reason is at most 1000 characters (this one has 1001)" in text
    reject = await admin.post(f"/-/scope-recall/memories/{rows['candidate1']}/reject",
                              {"reason": "y" * 5000, "confirm": "yes"})
    assert reject.status_code == 422 and "at most 1000 characters" in reject.text
    assert snapshot(db) == before
    kept = await admin.post(f"/-/scope-recall/memories/{rows['candidate0']}/promote", {"reason": "z" * 1000})
    assert kept.status_code == 302 and db["memories"].get(rows["candidate0"])["lifecycle"] == "active"  # control


@pytest.mark.asyncio
async def test_many_refusals_still_fit_in_the_message_cookie(ds, db, rows):
    actives = [lifecycle.store(db, ALICE, "user", f"Alice knows fact {n}", human("setup")).id for n in range(60)]
    db.conn.commit()
    admin = await logged_in(ds, "admin")
    response = await admin.post("/-/scope-recall/review/decide", {
        "decision": "promote", "ids": [str(rows["candidate2"])] + [str(i) for i in actives]})
    cookie = next(v for k, v in response.headers.multi_items() if k == "set-cookie" and v.startswith("ds_messages="))
    assert len(cookie) < 4000  # browsers drop a larger cookie, and with it every message
    page = (await admin.get(response.headers["location"])).text
    assert f"Promoted memories {rows['candidate2']}." in page and f"Could not promote memory {actives[0]}" in page
    assert f"memories {', '.join(map(str, actives[3:6]))}" in page  # the rest are named, not dropped


@pytest.mark.asyncio
async def test_a_viewer_cannot_confirm_a_guess_of_purged_content(ds, db, rows):
    admin, viewer = await logged_in(ds, "admin"), await logged_in(ds, "viewer")
    guess = hashlib.sha256(normalize("Alice lives in Porto").encode()).hexdigest()
    shown = lambda: " ".join((viewer_response.text for viewer_response in responses))
    responses = [await viewer.get("/memory/memories.json?_shape=array&_col=content_hash"),
                 await viewer.get("/memory/tombstones.json?_shape=array")]
    assert guess in shown()  # control: before the purge the plain hash is there to compare
    await admin.post(f"/-/scope-recall/memories/{rows['active']}/purge", {"confirm": "yes"})
    responses = [await viewer.get("/memory/memories.json?_shape=array&_col=content_hash"),
                 await viewer.get("/memory/tombstones.json?_shape=array")]
    assert guess not in shown() and "keyed:" in shown()
    assert (await viewer.get("/memory/console_sessions")).status_code == 403  # nor who is logged in


@pytest.mark.asyncio
@pytest.mark.parametrize("target", OFFSITE)
async def test_no_redirect_leaves_the_site(ds, db, rows, target):
    anonymous = Browser(ds)
    assert (await anonymous.get("/-/login", params={"next": target})).status_code == 200
    login = await anonymous.login("admin", next_path=target)
    admin = await logged_in(ds, "admin")
    acted = await admin.post(f"/-/scope-recall/memories/{rows['candidate0']}/promote", {"next": target})
    batch = await admin.post("/-/scope-recall/review/decide", {"decision": "reject", "ids": str(rows["candidate1"]),
                                                               "reason": "no", "confirm": "yes", "next": target})
    for response in (login, acted, batch):
        assert response.status_code == 302
        location = response.headers["location"]
        assert location.startswith("/") and not location.startswith("//") and "evil" not in location, location
        assert "\\" not in location and "\t" not in location
    assert db["memories"].get(rows["candidate0"])["lifecycle"] == "active"  # the actions themselves went through
    local = await admin.post(f"/-/scope-recall/memories/{rows['candidate2']}/promote",
                             {"next": "/-/scope-recall/review?scope=x"})
    assert local.headers["location"] == "/-/scope-recall/review?scope=x"  # positive control: on-site kept


SESSION = [("promote", "candidate0", {}), ("reject", "candidate1", {"reason": "no", "confirm": "yes"}),
           ("archive", "active", {}), ("restore", "active", {}),
           ("edit", "active", {"content": "Alice lives in Braga"}),
           ("supersede", "active", {"content": "Alice lives in Faro"}), ("restore", "archived", {}),
           ("purge", "archived", {"confirm": "yes"})]


@pytest.mark.asyncio
async def test_every_audit_event_of_a_console_session_names_its_principal(ds, db, rows):
    first = db.execute("select coalesce(max(id), 0) from audit_events").fetchone()[0]
    dana = await logged_in(ds, "dana")
    for action, row, form in SESSION:
        response = await dana.post(f"/-/scope-recall/memories/{rows[row]}/{action}", form)
        assert response.status_code == 302 and "ds_messages" in response.cookies, action
        assert all(kind == ds.INFO for _, kind in messages(ds, response)), action
    await dana.post("/-/scope-recall/review/decide", {"decision": "promote", "ids": str(rows["candidate2"])})
    events = db.execute("select action, principal, principal_kind from audit_events where id > ?",
                        [first]).fetchall()
    assert len(events) >= len(SESSION) + 1
    assert all(principal and kind for _, principal, kind in events), events
    human_actions = [e for e in events if e[0] in ROUTES]
    assert human_actions and all(e[1:] == ("human:dana", "human") for e in human_actions), events
    assert all(check.ok for check in doctor.run(db) if check.name == "audit_coverage")
