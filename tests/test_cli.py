"""The CLI contract of issue 2: names, JSON shapes, exit codes, bad input, and scope isolation on every read path."""

import json

import pytest
from click.testing import CliRunner

from scope_recall_engine.cli.main import cli


@pytest.fixture
def run(db_path):
    runner = CliRunner()

    def invoke(*args, input=None):
        return runner.invoke(cli, ["--db", str(db_path), *args], input=input, catch_exceptions=False)

    return invoke


def as_json(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def store(run, user, text, target="user", *extra):
    return as_json(run("store", "--user", user, "--target", target, "--json", *extra, text))


def test_store_returns_id_lifecycle_status_and_duplicates_return_the_existing_id(run):
    first = store(run, "alice", "Alice grows tomatoes")
    assert first == {"id": 1, "lifecycle": "active", "status": "created"}
    assert store(run, "alice", "alice grows TOMATOES.") == {"id": 1, "lifecycle": "active", "status": "duplicate"}


def test_search_returns_hits_with_id_content_target_score(run):
    store(run, "alice", "Alice grows tomatoes in her greenhouse")
    hits = as_json(run("search", "--user", "alice", "--json", "--limit", "5", "tomatoes"))
    assert [h["id"] for h in hits] == [1]
    assert {"id", "content", "target", "score"} <= set(hits[0])


def test_search_batch_prints_one_object_per_line(run, tmp_path):
    store(run, "alice", "Alice grows tomatoes")
    queries = tmp_path / "q.txt"
    queries.write_text("tomatoes\nsubmarines\n")
    result = run("search", "--user", "alice", "--batch", str(queries))
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["query"] for line in lines] == ["tomatoes", "submarines"]
    assert [len(line["hits"]) for line in lines] == [1, 0]


def test_scope_isolation_on_every_cli_read_path(run, tmp_path):
    store(run, "alice", "Alice's locker code is in the blue notebook")
    store(run, "alice", "scratch note about the notebook", "general", "--chat", "c1")
    store(run, "bob", "Bob's locker is by the door")
    for user, expected in (("alice", 1), ("bob", 3), ("mallory", None)):
        hits = as_json(run("search", "--user", user, "--json", "locker"))
        assert [h["id"] for h in hits] == ([expected] if expected else [])
        listed = as_json(run("review", "list", "--user", user, "--json"))
        assert [r["id"] for r in listed] == ([expected] if expected else [])
        exported = [json.loads(line) for line in run("export", "--user", user).stdout.splitlines()]
        assert [r["id"] for r in exported] == ([expected] if expected else [])
    # the local scratch row is visible only in its own chat
    in_chat = as_json(run("search", "--user", "alice", "--chat", "c1", "--json", "notebook"))
    assert sorted(h["id"] for h in in_chat) == [1, 2]
    other_chat = as_json(run("search", "--user", "alice", "--chat", "c2", "--json", "notebook"))
    assert [h["id"] for h in other_chat] == [1]


def test_review_flow_and_history_shape(run, tmp_path):
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text('{"content": "Alice speaks Welsh", "target": "user"}\n{"content": "Alice hates rain"}\n')
    assert as_json(run("import", "--user", "alice", "--json", str(jsonl))) == {"ids": [1, 2]}
    assert as_json(run("search", "--user", "alice", "--json", "Welsh")) == []  # candidates are not recalled
    candidates = as_json(run("review", "list", "--user", "alice", "--lifecycle", "candidate", "--json"))
    assert [(r["id"], r["lifecycle"]) for r in candidates] == [(1, "candidate"), (2, "candidate")]
    assert {"id", "content", "lifecycle", "target", "scope_id"} <= set(candidates[0])
    assert as_json(run("review", "promote", "1", "--by", "dana", "--json"))["lifecycle"] == "active"
    assert [h["id"] for h in as_json(run("search", "--user", "alice", "--json", "Welsh"))] == [1]
    assert run("review", "reject", "2", "--by", "dana", "--reason", "false").exit_code == 0
    refused = run("store", "--user", "alice", "--target", "memory", "alice hates rain!")
    assert refused.exit_code == 1 and "rejected by human:dana" in refused.stderr
    run("review", "edit", "1", "--by", "dana", "Alice speaks Welsh and Breton")
    superseded = as_json(run("review", "supersede", "1", "--by", "dana", "--json", "Alice speaks Cornish"))
    assert superseded["supersedes"] == 1 and superseded["lifecycle"] == "active"
    data = as_json(run("history", "1", "--json"))
    assert [v["version"] for v in data["versions"]] == [1, 2]
    assert set(data["versions"][0]) >= {"version", "content", "principal", "at"}
    assert [(e["action"], e["principal"]) for e in data["audit"]] == [
        ("extract", "system:import"), ("promote", "human:dana"), ("edit", "human:dana"),
        ("supersede", "human:dana")]
    assert set(data["audit"][0]) >= {"action", "principal", "at", "from_state", "to_state", "reason"}


def test_store_by_names_a_person_and_an_empty_name_is_refused(run, db):
    assert store(run, "alice", "Alice fixes clocks", "user", "--by", "dana")["status"] == "created"
    assert db["audit_events"].get(1)["principal"] == "human:dana"
    for blank in ("", "  "):
        refused = run("store", "--user", "alice", "--target", "user", "--by", blank, "Alice fixes radios")
        assert refused.exit_code == 1 and "non-empty name" in refused.stderr
    assert db["memories"].count == 1


def test_review_commands_require_by_and_report_illegal_transitions(run):
    store(run, "alice", "Alice fixes clocks")
    assert run("review", "promote", "1").exit_code == 2  # --by is required
    illegal = run("review", "promote", "1", "--by", "dana")
    assert illegal.exit_code == 1 and "cannot promote memory 1: it is active" in illegal.stderr
    missing = run("review", "archive", "99", "--by", "dana")
    assert missing.exit_code == 1 and "no memory with id 99" in missing.stderr


@pytest.mark.parametrize("text, message", [
    ("", "empty"), ("   \n\t", "empty"), ("a\x00b", "NUL"), ("bad \udc80 text", "surrogate"),
    ("x" * 4001, "limit is 4000"), ("?!...", "punctuation"),
])
def test_bad_content_is_a_clear_error_and_writes_nothing(run, db_path, text, message):
    store(run, "alice", "control row")
    result = run("store", "--user", "alice", "--target", "user", text)
    assert result.exit_code == 1 and message in result.stderr and "Traceback" not in result.output
    assert len(as_json(run("review", "list", "--user", "alice", "--json"))) == 1


def test_bad_identity_and_target(run):
    assert run("store", "--user", "", "--target", "user", "x").exit_code == 1
    assert run("store", "--target", "user", "x").exit_code == 2
    assert run("store", "--user", "alice", "--target", "diary", "x").exit_code == 2


def test_bad_import_file_writes_nothing(run, tmp_path):
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text('{"content": "Alice fine line"}\n{"content": ""}\n')
    result = run("import", "--user", "alice", str(jsonl))
    assert result.exit_code == 1 and "line 2" in result.stderr
    jsonl.write_text('{"content": "Alice fine line"}\nnot json\n')
    assert run("import", "--user", "alice", str(jsonl)).exit_code == 1
    listed = run("review", "list", "--user", "alice", "--json")  # refused before even the store was created
    assert listed.exit_code == 1 and "no store at" in listed.stderr
    jsonl.write_text('{"content": "Alice fine line"}\n')  # positive control
    assert as_json(run("import", "--user", "alice", "--json", str(jsonl))) == {"ids": [1]}


@pytest.mark.parametrize("query", ['"', "*", "NEAR(a b)", "^start", "content:secret", "a AND OR NOT", "()",
                                   "x" * 100_000, "\x00", "\udc80", "🙂", "' OR 1=1 --"])
def test_fts_syntax_and_junk_in_queries_is_inert(run, query):
    store(run, "alice", "Alice content secret start near")
    store(run, "bob", "Bob content secret start near")
    result = run("search", "--user", "alice", "--json", query)
    assert result.exit_code == 0, result.output
    assert all(h["id"] == 1 for h in json.loads(result.stdout))
    # positive control: the same row is found by a plain word
    assert [h["id"] for h in as_json(run("search", "--user", "alice", "--json", "secret"))] == [1]


def test_a_store_that_cannot_be_opened_is_a_clear_error(tmp_path):
    broken = tmp_path / "broken.sqlite3"
    broken.write_text("this is not a database")
    runner = CliRunner()
    for path in (broken, tmp_path / "missing-dir" / "x" / ".." / ".." / "broken.sqlite3"):
        result = runner.invoke(cli, ["--db", str(path), "store", "--user", "alice", "--target", "user", "x y z"])
        assert result.exit_code == 1 and "could not be used" in result.stderr and "Traceback" not in result.output
    fine = str(tmp_path / "fine.sqlite3")
    assert runner.invoke(cli, ["--db", fine, "store", "--user", "alice", "--target", "user", "x y z"]).exit_code == 0
    assert runner.invoke(cli, ["--db", fine, "search", "--user", "alice", "x"]).exit_code == 0  # control


def test_search_reads_the_scope_aliases_configured_beside_the_store(run, db_path):
    from scope_recall_engine import config
    from scope_recall_engine.truth.scope import Identity

    store(run, "team", "The team's deploy window is Tuesday 14:00")
    assert as_json(run("search", "--user", "alice", "--json", "deploy window")) == []  # not alice's scope
    config.save(db_path, config.Config(scope_aliases=[Identity(user="team").shared_scope]))
    assert [h["id"] for h in as_json(run("search", "--user", "alice", "--json", "deploy window"))] == [1]
