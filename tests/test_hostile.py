"""The hostile input corpus (scope_recall_bench/fixtures/hostile.json): each input is refused cleanly, or stored
and then inert in the recall packet and escaped on every console page that shows it."""

import html
import json
import re
import unicodedata

import pytest
from click.testing import CliRunner
from console_kit import console_for, logged_in

from scope_recall_bench.bench_faults import HOSTILE_FIXTURE
from scope_recall_engine.cli.main import cli
from scope_recall_engine.reading import recall
from scope_recall_engine.truth.principals import human, system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle

CORPUS = json.loads(HOSTILE_FIXTURE.read_text(encoding="utf-8"))["inputs"]
REFUSED = [item for item in CORPUS if item["expect"] == "refused"]
STORED = [item for item in CORPUS if item["expect"] == "stored"]
OWNER = Identity(user='<img src=x onerror=alert("owner")>', platform="telegram", chat="<b>chat</b>")
FLAGS = ["--user", OWNER.user, "--platform", OWNER.platform, "--chat", OWNER.chat, "--target", "user", "--json"]
ITEM_LINE = re.compile(r'^\d\. \[#\d+ \w+\] "[^"\n]*"$')
ROLE_PREFIX = re.compile(r"\b(system|assistant|user|human|developer|tool)(\s+note)?\s*:", re.I)


def text_of(item: dict) -> str:
    return item["text"] * item.get("repeat", 1)


def token_of(item: dict) -> str | None:
    match = re.match(r"zqh\d\d", item["text"])
    return match.group(0) if match else None


def store(db_path, text: str):
    return CliRunner().invoke(cli, ["--db", str(db_path), "store", *FLAGS, text])


def counts(db) -> tuple:
    return tuple(db[table].count for table in ("memories", "memory_versions", "audit_events", "vector_outbox"))


@pytest.mark.parametrize("item", REFUSED, ids=[item["name"] for item in REFUSED])
def test_refused_input_exits_1_with_a_clear_error_and_writes_nothing(db, db_path, item):
    before = counts(db)
    result = store(db_path, text_of(item))
    assert result.exit_code == 1, result.output
    assert item["error"] in result.output and "Traceback" not in result.output
    assert counts(db) == before
    assert store(db_path, "zqhok a harmless fact").exit_code == 0 and counts(db) != before  # positive control


def assert_inert(packet_text: str) -> None:
    """Data, not markup: a fixed header, one quoted line per item, nothing invisible, no tags, no roles."""
    header, *items = packet_text.split("\n")
    assert header == recall.HEADER and items
    for line in items:
        assert ITEM_LINE.match(line), line
        body = line.split('] "', 1)[1]
        assert not ROLE_PREFIX.search(body), body
        assert "<" not in line and ">" not in line and "`" not in line
        assert all(unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cs") for ch in line), ascii(line)


@pytest.mark.parametrize("item", STORED, ids=[item["name"] for item in STORED])
def test_stored_input_is_inert_in_the_recall_packet(db, db_path, item):
    result = store(db_path, text_of(item))
    assert result.exit_code == 0, result.output
    memory_id = json.loads(result.output)["id"]
    assert db["memories"].get(memory_id)["content"] == text_of(item).strip()
    packet = recall.packet(db, View(OWNER.accessible()), f"what about {token_of(item)}", surface="test")
    assert memory_id in packet.ids  # positive control: found, and shown
    assert_inert(packet.text)
    assert len(packet.text) <= recall.MAX_CHARS


def pages(memory_id: int, candidate_id: int) -> list[str]:
    return [f"/memory/memories/{memory_id}", f"/memory/memories?id={memory_id}", f"/memory/memories/{candidate_id}",
            "/-/scope-recall/review", f"/-/scope-recall/memories/{memory_id}/history",
            f"/-/scope-recall/memories/{candidate_id}/history", "/memory/memories", "/memory/audit_events"]


def quotes_unescaped(page: str) -> str:
    """Escaped quotes back to quotes (markupsafe and html.escape spell them differently); tags stay escaped."""
    for entity, quote in (("&#39;", "'"), ("&#x27;", "'"), ("&#34;", '"'), ("&quot;", '"')):
        page = page.replace(entity, quote)
    return page


@pytest.mark.asyncio
async def test_every_stored_input_and_a_hostile_identity_are_escaped_on_every_console_page(db, db_path):
    stored = {}
    for item in STORED:
        text = text_of(item).strip()
        active = lifecycle.store(db, OWNER, "user", text, human("hostile-test")).id
        candidate = lifecycle.extract(db, OWNER.shared_scope, "user", f"{text[:3900]} (candidate)", system("digest"),
                                      origin="digest").id
        stored[item["name"]] = (text, active, candidate)
    db.conn.commit()
    datasette = await console_for(db_path)
    admin = await logged_in(datasette, "admin")
    fetched = {}
    try:
        for name, (text, active, candidate) in stored.items():
            for path in pages(active, candidate):
                if path not in fetched:
                    response = await admin.get(path)
                    assert response.status_code == 200, path
                    fetched[path] = response.text
                page = fetched[path]
                if any(ch in text for ch in '<>"'):
                    assert text not in page and text.split(" ", 1)[1] not in page, (name, path)
            row_page = fetched[f"/memory/memories/{active}"]
            assert html.escape(text, quote=False) in quotes_unescaped(row_page), name  # shown, escaped
        for page in fetched.values():
            assert OWNER.user not in page and OWNER.chat not in page  # the hostile identity, escaped too
        assert html.escape(OWNER.user, quote=False) in quotes_unescaped(fetched["/memory/memories"])
    finally:
        datasette.get_database("memory").close()
