"""The real server on 127.0.0.1, driven by headless Chromium: an operator's day, and a page on another port that
tries to act through the operator's session.

Uses Debian's /usr/bin/chromium (`make test` installs it) through playwright's bundled driver; no browser is
downloaded. Missing Chromium fails these tests on purpose. Set SCOPE_RECALL_SCREENSHOTS=docs to refresh the
screenshots in docs/ (dashboard, memories table, a memory's page, the review queue, a history).
"""

import http.server
import os
import threading
import urllib.request
from pathlib import Path

import pytest
from console_kit import running_console
from datasette_auth_passwords.utils import hash_password

from datasette_plugins.demo import seed
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import review_queue

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PASSWORD = "browser-test-password"
SCREENSHOTS = {"dashboard": "/", "memories-table": "/memory/memories"}


@pytest.fixture
def server(tmp_path):
    """``scope-recall serve`` on a seeded demo store, as an operator would start it."""
    path = tmp_path / "store" / "demo.sqlite3"
    path.parent.mkdir()
    seed(path)
    with running_console(path, SCOPE_RECALL_ADMIN_PASSWORD_HASH=hash_password(PASSWORD)) as base:
        yield base, path


@pytest.fixture
def browser(tmp_path):
    assert CHROMIUM.exists(), "Debian's chromium is required: apt-get install -y chromium (make test does)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport={"width": 1280, "height": 900}, timezone_id="Europe/Lisbon", locale="en-GB")
        try:
            yield context
        finally:
            context.close()


def log_in(page, base: str) -> None:
    page.fill("#id_username", "admin")
    page.fill("#id_password", PASSWORD)
    page.click("form.password-login input[type=submit]")


def screenshot(page, name: str, tmp_path: Path) -> None:
    """The page as an operator first sees it, down to where the rows are (not a table's schema at the bottom)."""
    shot = tmp_path / f"{name}.png"
    page.screenshot(path=str(shot), full_page=True, clip={"x": 0, "y": 0, "width": 1280, "height": 1400})
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("SCOPE_RECALL_SCREENSHOTS"):
        shot.replace(Path(os.environ["SCOPE_RECALL_SCREENSHOTS"]) / shot.name)


def test_an_operator_logs_in_to_the_page_asked_for_and_triages_by_keyboard(server, browser, tmp_path):
    base, path = server
    db = connect(path)
    oldest, second = review_queue.candidates(db)[:2]
    page = browser.new_page()
    violations = []
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text else None)
    page.goto(base + "/-/scope-recall/review")
    assert page.url == base + "/-/login?next=%2F-%2Fscope-recall%2Freview"
    log_in(page, base)
    page.wait_for_url(base + "/-/scope-recall/review")  # the deep link, not the home page
    assert oldest["content"] in page.inner_text(f"#candidate-{oldest['id']}")
    stamp = page.locator(f"#candidate-{oldest['id']} time").first
    assert "UTC" in stamp.get_attribute("title") and "UTC" not in stamp.inner_text()  # local time, UTC on hover
    page.check("input[data-select-all]")
    assert page.locator("input[name=ids]:checked").count() == page.locator("input[name=ids]").count() > 1
    page.uncheck("input[data-select-all]")
    screenshot(page, "review-queue", tmp_path)
    page.goto(f"{base}/memory/memories/{oldest['id']}")  # a candidate: evidence, twins, what it would replace
    screenshot(page, "memory-page", tmp_path)
    page.goto(base + "/-/scope-recall/review")
    page.keyboard.press("j")
    assert "focused" in page.get_attribute(f"#candidate-{oldest['id']}", "class")
    page.keyboard.press("p")  # promote the focused candidate
    page.wait_for_selector(".message-info")
    page.wait_for_load_state()  # the page's script is in place before the next key
    assert page.inner_text(".message-info") == f"Memory {oldest['id']} is now active."
    assert page.locator(f"#candidate-{oldest['id']}").count() == 0
    page.keyboard.press("j")
    page.keyboard.press("r")  # reject asks first, with a reason, and comes back to the queue
    page.wait_for_url(f"{base}/-/scope-recall/memories/{second['id']}/reject?next=*")
    page.fill("input[name=reason]", "not a durable fact")
    page.click("button.danger.confirm")
    page.wait_for_url(base + "/-/scope-recall/review")
    assert db["memories"].get(second["id"])["lifecycle"] == "rejected"
    page.check("input[data-select-all]")  # the rest of the page, rejected in one go, after confirming
    rest = page.locator("input[name=ids]:checked").count()
    page.click("button[name=decision][value=reject]")
    page.fill("input[name=reason]", "not durable facts")
    page.click("button.danger.confirm")
    page.wait_for_url(base + "/-/scope-recall/review")
    assert page.inner_text(".message-info").startswith("Rejected memories") and rest >= 2
    assert page.locator(".scope-recall-item").count() == 0
    edited = db.execute("select memory_id from audit_events where action = 'edit'").fetchone()[0]
    for name, url in {**SCREENSHOTS, "history": f"/-/scope-recall/memories/{edited}/history"}.items():
        page.goto(base + url)
        screenshot(page, name, tmp_path)
    for url in ("/memory", "/memory?sql=select+id,+content+from+memories", "/memory/audit_events?_facet=action",
                "/-/logout"):  # Datasette's own pages and their inline scripts (facets, the SQL editor)
        page.goto(base + url)
    assert violations == []  # every inline script Datasette renders is allowed by hash; nothing else runs
    page.goto(base + "/memory/memories")
    page.click("details.nav-menu summary")
    page.click("text=Log out")  # Datasette's own menu form, from one of Datasette's own pages
    page.wait_for_url(base + "/-/login")
    assert page.inner_text(".message-info") == "You are logged out."
    page.goto(base + "/")
    assert page.url == base + "/-/login"
    promoted = db["memories"].get(oldest["id"])
    assert promoted["lifecycle"] == "active" and promoted["review_state"] == "human_reviewed"
    assert db.execute("select principal from audit_events where memory_id = ? order by id desc",
                      [oldest["id"]]).fetchone()[0] == "human:admin"


def test_an_operator_acts_from_a_memory_s_page_and_a_refused_edit_keeps_the_text(server, browser):
    base, path = server
    db = connect(path)
    memory = db.execute("select id from memories where content like 'Carol prefers%'").fetchone()[0]
    page = browser.new_page()
    page.goto(f"{base}/memory/memories/{memory}")
    log_in(page, base)
    page.wait_for_url(f"{base}/memory/memories/{memory}")
    page.click("details.scope-recall-content summary")
    typed = "Carol wants to quit her job"  # the value an operator rejected in Carol's scope
    page.fill("#edit-content", typed)
    page.click("form[data-action=edit] button")
    page.wait_for_load_state()
    assert "rejected by human:admin" in page.inner_text(".message-error")
    assert page.input_value("textarea[name=content]") == typed  # nothing the operator typed is lost
    page.fill("textarea[name=content]", "Carol prefers answers as short numbered lists")
    page.click("button.promote")
    page.wait_for_url(f"{base}/memory/memories/{memory}")
    assert page.inner_text(".message-info") == f"Memory {memory} saved as version 2."
    page.fill(".scope-recall-quick input[name=reason]", "Carol asked to stop")
    page.click("button[data-action=archive]")
    page.wait_for_load_state()
    assert page.inner_text(".message-info") == f"Memory {memory} is now archived."
    assert db.execute("select action, principal, reason from audit_events where memory_id = ? order by id desc",
                      [memory]).fetchone() == ("archive", "human:admin", "Carol asked to stop")


class Attacker:
    """Another origin on the same host (another port). It fetches the CSRF token the console hands to anyone,
    plants it as the console's CSRF cookie (cookies ignore ports) and auto-submits a purge to the console; a
    second page frames the console's purge confirmation."""

    def __init__(self, console: str, memory_id: int):
        with urllib.request.urlopen(console + "/-/login") as response:
            cookie = response.headers["set-cookie"] or ""
        token = cookie.split("ds_csrftoken=")[1].split(";")[0] if "ds_csrftoken=" in cookie else ""
        pages = {
            "/purge": (f'<script>document.cookie = "ds_csrftoken={token}; path=/";</script>'
                       f'<form id="f" method="post" action="{console}/-/scope-recall/memories/{memory_id}/purge">'
                       f'<input name="csrftoken" value="{token}"><input name="confirm" value="yes">'
                       f'<input name="reason" value="cross-site"></form>'
                       '<script>document.getElementById("f").submit()</script>'),
            "/frame": f'<iframe src="{console}/-/scope-recall/memories/{memory_id}/purge" width="800"></iframe>',
        }

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("content-type", "text/html")
                self.end_headers()
                self.wfile.write(pages.get(self.path, "").encode())

            def log_message(self, *args):
                pass

        self.httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


def test_a_page_on_another_port_cannot_purge_or_frame_through_a_logged_in_admin(server, browser):
    base, path = server
    db = connect(path)
    target = db.execute("select id from memories where content = 'Alice is vegetarian'").fetchone()[0]
    attacker = Attacker(base, target)
    try:
        page = browser.new_page()
        page.goto(base + "/-/login")
        log_in(page, base)
        page.wait_for_url(base + "/")
        with page.expect_navigation(url=lambda url: url.startswith(base)):
            page.goto(attacker.url + "/purge")
        page.wait_for_load_state()
        assert "not from a page of this console" in page.inner_text("body")
        assert db["memories"].get(target)["lifecycle"] == "active", "the cross-site purge went through"
        page.goto(attacker.url + "/frame")
        page.wait_for_timeout(500)
        framed = page.frames[1]
        assert "Purge memory" not in framed.content()  # frame-ancestors 'none': the console refuses to render
        # positive control, same browser, same session: the console's own confirmation page purges
        page.goto(f"{base}/-/scope-recall/memories/{target}/purge")
        assert page.inner_text("h1") == f"Purge memory {target}?"
        page.fill("form[data-action=purge] input[name=reason]", "asked to forget")
        page.click("form[data-action=purge] button[type=submit]")
        page.wait_for_load_state()
    finally:
        attacker.close()
    assert db["memories"].get(target)["lifecycle"] == "purged"
    assert db.execute("select principal, reason from audit_events where action = 'purge'").fetchall() == [
        ("human:admin", "asked to forget")]
