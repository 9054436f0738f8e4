import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from scope_recall_engine.cli.main import cli
from scope_recall_engine.config import Config
from scope_recall_engine.errors import InvalidInput
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import journal, lifecycle

SECRET = "sk-proj-Zq9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0F"


def files_containing(directory: Path, needle: str) -> list[str]:
    return [p.name for p in directory.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_a_secret_in_a_turn_reaches_no_file(db, db_path, alice):
    result = journal.append(db, alice, "s1", "user", f"deploy with marmalade-marker and {SECRET} please")
    assert result.status == "journaled" and result.redactions == 1
    assert files_containing(db_path.parent, "marmalade-marker")  # control: the turn itself is on disk
    assert files_containing(db_path.parent, SECRET) == []
    assert files_containing(db_path.parent, SECRET[8:20]) == []


def test_noise_is_dropped_and_nothing_written(db, alice):
    assert journal.append(db, alice, "s1", "user", "thanks!").status == "dropped"
    assert journal.append(db, alice, "s1", "system", "You are helpful").reason == "system turn"
    assert journal.entries(db, alice) == []
    assert journal.append(db, alice, "s1", "user", "I moved to Lisbon").status == "journaled"
    assert [e["content"] for e in journal.entries(db, alice)] == ["I moved to Lisbon"]


def test_excluded_chats_are_never_journaled(db):
    config = Config(excluded_chats=["secret-chat"])
    private, public = Identity(user="alice", chat="secret-chat"), Identity(user="alice", chat="work")
    assert journal.append(db, private, "s1", "user", "I live in Oslo", config).reason == "excluded chat"
    assert journal.append(db, public, "s1", "user", "I live in Oslo", config).status == "journaled"
    assert journal.entries(db, private) == [] and len(journal.entries(db, public)) == 1


def test_batches_are_one_transaction_and_restaging_stores_nothing_twice(db, alice):
    turns = [("user", "I prefer tea"), ("assistant", "Noted, tea it is."), ("user", "ok")]
    first = journal.append_many(db, alice, "s1", turns)
    assert [r.status for r in first] == ["journaled", "journaled", "dropped"]
    again = journal.append_many(db, alice, "s1", turns)
    assert [r.status for r in again] == ["duplicate", "duplicate", "dropped"]
    assert [r.id for r in again[:2]] == [r.id for r in first[:2]]
    assert journal.backlog(db) == 2
    assert journal.append(db, alice, "s2", "user", "I prefer tea").status == "journaled"  # another session


def test_a_session_id_is_required(db, alice):
    with pytest.raises(InvalidInput):
        journal.append(db, alice, "", "user", "I prefer tea")


def test_concurrent_appends_on_one_connection(db, alice):
    def worker(n):
        for i in range(50):
            journal.append(db, alice, f"s{n}", "user", f"turn {i} of worker {n}")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert journal.backlog(db) == 200


def test_the_journal_is_never_recalled(db, alice):
    journal.append(db, alice, "s1", "user", "the kumquat harvest is on friday")
    view = View(alice.accessible())
    assert list(retrieval.search(db, view, "kumquat harvest")) == []
    lifecycle.store(db, alice, "memory", "kumquat harvest on friday", human("op"))
    assert [h.content for h in retrieval.search(db, view, "kumquat harvest")] == ["kumquat harvest on friday"]


def test_retention_prunes_processed_entries_only(db, alice):
    old, pending = (journal.append(db, alice, "s1", "user", text).id for text in ("I like figs", "I like kiwis"))
    journal.mark_processed(db, [old], None)
    assert journal.prune(db, 30) == 0  # not old enough yet
    assert journal.prune(db, 30, at="2999-01-01T00:00:00+00:00") == 1
    assert [e["id"] for e in journal.entries(db, alice)] == [pending]
    assert journal.prune(db, None, at="2999-01-01T00:00:00+00:00") == 0


def test_cli_add_and_list(db_path):
    runner = CliRunner()
    base = ["--db", str(db_path), "journal"]
    added = runner.invoke(cli, base + ["add", "--user", "alice", "--session", "s1", "--role", "user", "--json",
                                       f"token {SECRET} and I live in Porto"])
    assert added.exit_code == 0, added.output
    assert json.loads(added.output)["status"] == "journaled"
    noise = runner.invoke(cli, base + ["add", "--user", "alice", "--session", "s1", "--role", "user", "ok"])
    assert noise.output.strip() == "dropped: acknowledgement"
    missing = runner.invoke(cli, base + ["add", "--user", "alice", "--role", "user", "hello there"])
    assert missing.exit_code == 2 and "--session" in missing.output
    listed = runner.invoke(cli, base + ["list", "--user", "alice", "--json"])
    rows = json.loads(listed.output)
    assert [r["content"] for r in rows] == ["token [REDACTED:openai_key] and I live in Porto"]
    assert json.loads(runner.invoke(cli, base + ["list", "--user", "bob", "--json"]).output) == []
