"""The real server on 127.0.0.1, driven by headless Chromium: log in, open the queue, promote by clicking.

Uses Debian's /usr/bin/chromium (`make test` installs it) through playwright's bundled driver; no browser is
downloaded. Missing Chromium fails this test on purpose. Set SCOPE_RECALL_SCREENSHOT=docs/review-queue.png to
refresh the README's screenshot.
"""

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from datasette_auth_passwords.utils import hash_password

from datasette_plugins.demo import seed
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import review_queue

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PASSWORD = "browser-test-password"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    """``scope-recall serve`` on a seeded demo store, as an operator would start it."""
    path = tmp_path / "store" / "demo.sqlite3"
    path.parent.mkdir()
    seed(path)
    port = free_port()
    env = {**os.environ, "SCOPE_RECALL_ADMIN_PASSWORD_HASH": hash_password(PASSWORD)}
    command = [str(Path(sys.executable).with_name("scope-recall")), "serve", "--db", str(path), "--port", str(port)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base + "/-/login", process)
        yield base, path
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_until_up(url: str, process, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited: {process.stdout.read().decode()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"server did not answer {url} within {timeout}s")


def test_operator_logs_in_and_promotes_a_candidate_by_clicking(server, tmp_path):
    assert CHROMIUM.exists(), "Debian's chromium is required: apt-get install -y chromium (make test does)"
    from playwright.sync_api import sync_playwright

    base, path = server
    db = connect(path)
    oldest = review_queue.candidates(db)[0]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport={"width": 1280, "height": 900})
        try:
            page = browser.new_page()
            page.goto(base + "/")
            assert page.url == base + "/-/login"
            page.fill("#id_username", "admin")
            page.fill("#id_password", PASSWORD)
            page.click("form.password-login input[type=submit]")
            page.wait_for_url(base + "/")
            page.goto(base + "/-/scope-recall/review")
            item = page.locator(f"#candidate-{oldest['id']}")
            assert oldest["content"] in item.inner_text()
            shot = tmp_path / "review-queue.png"
            page.screenshot(path=str(shot), full_page=True)
            item.locator("form[data-action=promote] button").click()
            page.wait_for_selector(".message-info")
            assert page.inner_text(".message-info") == f"Memory {oldest['id']} is now active."
            assert page.locator(f"#candidate-{oldest['id']}").count() == 0
        finally:
            browser.close()
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("SCOPE_RECALL_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["SCOPE_RECALL_SCREENSHOT"])
    promoted = db["memories"].get(oldest["id"])
    assert promoted["lifecycle"] == "active" and promoted["review_state"] == "human_reviewed"
    last = db.execute("select action, principal from audit_events where memory_id = ? order by id desc",
                      [oldest["id"]]).fetchone()
    assert last == ("promote", "human:admin")
