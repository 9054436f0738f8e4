import json
import os
import socket
import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner

from scope_recall_engine.cli.main import cli
from scope_recall_engine.config import Config
from scope_recall_engine.errors import ConfigError, ExtractionFailed, LeaseHeld
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.store import connect
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import digest, journal, lifecycle

TURNS = ["My name is Dana and I live in Lisbon.", "Can you check the weather?", "I love green tea"]


def memories(db):
    return list(db.execute("select id, lifecycle, content, origin, created_by, decision from memories order by id"))


def journal_turns(db, identity, turns=TURNS, session="s1"):
    return [journal.append(db, identity, session, "user", turn).id for turn in turns]


def test_rules_digest_makes_candidates_that_are_not_recalled_until_promoted(db, alice):
    journal_turns(db, alice)
    report = digest.run(db, digest.RulesExtractor())
    assert (report.entries, report.facts, report.counts, report.backlog) == (3, 3, {"ADD": 3}, 0)
    rows = memories(db)
    assert [r[2] for r in rows] == ["The user's name is Dana.", "The user lives in Lisbon.",
                                    "The user loves green tea."]
    assert {(r[1], r[3], r[4], r[5]) for r in rows} == {("candidate", "digest", "system:digest", "ADD")}
    view = View(alice.accessible())
    assert list(retrieval.search(db, view, "Lisbon")) == []
    lifecycle.promote(db, rows[1][0], human("op"))
    assert [h.content for h in retrieval.search(db, view, "Lisbon")] == ["The user lives in Lisbon."]


def test_rerunning_over_the_same_entries_creates_nothing(db, alice):
    journal_turns(db, alice)
    digest.run(db, digest.RulesExtractor())
    before = (memories(db), db["memory_versions"].count, db["memory_sources"].count)
    assert digest.run(db, digest.RulesExtractor()).entries == 0
    db.execute("update journal_entries set processed_at = null")  # force the very same entries through again
    again = digest.run(db, digest.RulesExtractor())
    assert again.entries == 3 and set(again.counts) == {"NOOP"}
    assert (memories(db), db["memory_versions"].count, db["memory_sources"].count) == before
    assert [r["corroborations"] for r in db["memories"].rows] == [0, 0, 0]


def test_runs_are_recorded_without_content(db, alice):
    journal_turns(db, alice)
    report = digest.run(db, digest.RulesExtractor())
    run = db["digest_runs"].get(report.run_id)
    assert (run["status"], run["extractor"], run["prompt_version"], run["entries"], run["facts"]) == (
        "done", "rules", digest.RulesExtractor.prompt_version, 3, 3)
    assert json.loads(run["counts"]) == {"ADD": 3} and run["duration_ms"] > 0
    assert [d["memory_id"] for d in json.loads(run["decisions"])] == [1, 2, 3]
    assert "Lisbon" not in json.dumps(run)
    assert {e["digest_run_id"] for e in db["journal_entries"].rows} == {report.run_id}


def test_dry_run_writes_nothing(db, alice):
    journal_turns(db, alice)
    report = digest.run(db, digest.RulesExtractor(), dry_run=True)
    assert report.counts == {"ADD": 3} and report.backlog == 3
    assert memories(db) == [] and db["digest_runs"].count == 0
    assert digest.run(db, digest.RulesExtractor()).counts == {"ADD": 3}  # control: the real run does it


def test_no_model_and_no_rules_reports_the_backlog(db_path, alice):
    db = connect(db_path)
    journal_turns(db, alice)
    runner = CliRunner()
    base = ["--db", str(db_path), "digest", "--user", "alice", "--chat", "chat-1"]
    result = runner.invoke(cli, base + ["--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["backlog"] == 3 and "--extractor rules" in result.stderr
    assert memories(db) == []
    unknown = runner.invoke(cli, base + ["--model", "no-such-model"])
    assert unknown.exit_code == 1 and "unknown digest model" in unknown.stderr and memories(db) == []
    ok = runner.invoke(cli, base + ["--extractor", "rules", "--json"])
    assert ok.exit_code == 0 and json.loads(ok.stdout)["counts"] == {"ADD": 3}
    assert runner.invoke(cli, base).exit_code == 2  # a backlog of 0 is still no extractor
    both = runner.invoke(cli, base + ["--extractor", "rules", "--model", "canned"])
    assert both.exit_code == 2 and "not both" in both.stderr and len(memories(db)) == 3
    with pytest.raises(ConfigError):
        digest.choose("rules", "canned", Config())


def test_the_digest_only_takes_its_identitys_entries(db_path, alice, bob):
    db = connect(db_path)
    journal_turns(db, alice)
    journal_turns(db, bob, ["I live in Oslo"])
    result = CliRunner().invoke(cli, ["--db", str(db_path), "digest", "--user", "bob", "--extractor", "rules"])
    assert result.exit_code == 0, result.output
    assert [r[2] for r in memories(db)] == ["The user lives in Oslo."] and journal.backlog(db) == 3


def test_a_lease_keeps_a_second_digest_out(db, alice):
    journal_turns(db, alice)
    digest.take_lease(db, "other-process")
    with pytest.raises(LeaseHeld):
        digest.run(db, digest.RulesExtractor())
    assert memories(db) == [] and journal.backlog(db) == 3
    db.execute("update leases set expires_at = '2000-01-01T00:00:00+00:00'")  # the other process died
    assert digest.run(db, digest.RulesExtractor()).counts == {"ADD": 3}
    assert db["leases"].count == 0  # released


def test_two_threads_never_digest_the_same_entries(db_path, alice):
    db = connect(db_path)
    journal_turns(db, alice, [f"I like fruit number {i}" for i in range(300)])
    outcomes = []

    def worker():
        try:
            outcomes.append(digest.run(connect(db_path), digest.RulesExtractor(), batch_size=20).entries)
        except LeaseHeld:
            outcomes.append("busy")

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(n for n in outcomes if n != "busy") == 300
    assert db["memories"].count == 300 and db["memory_sources"].count == 300


def test_the_model_path_with_a_canned_model(db, alice, canned):
    ids = journal_turns(db, alice)
    canned.enqueue({"facts": [{"entries": [ids[0]], "target": "user", "key": "name", "content": "User is Dana"},
                              {"entries": [999], "target": "user", "content": "cites no turn of the batch"}]})
    report = digest.run(db, digest.ModelExtractor("canned"))
    assert (report.extractor, report.model, report.prompt_version) == (
        "llm", "canned", digest.ModelExtractor.prompt_version)
    assert report.facts == 1 and report.counts == {"ADD": 1}
    system_prompt, prompt = canned.prompts[0]
    assert "Most turns contain nothing durable" in system_prompt
    assert f"[{ids[1]}] user: Can you check the weather?" in prompt
    row = db["memories"].get(1)
    assert (row["content"], row["lifecycle"], row["slot"]) == ("User is Dana", "candidate", "name")
    assert digest.run(db, digest.ModelExtractor("canned")).entries == 0 and len(canned.prompts) == 1


def test_an_unusable_model_reply_leaves_the_entries_queued(db, alice, canned):
    journal_turns(db, alice)
    canned.enqueue("Sure! Here are the facts: the user is Dana.")
    with pytest.raises(ExtractionFailed):
        digest.run(db, digest.ModelExtractor("canned"))
    assert journal.backlog(db) == 3 and memories(db) == []
    assert [r["status"] for r in db["digest_runs"].rows] == ["failed"] and db["leases"].count == 0
    canned.enqueue('```json\n{"facts": []}\n```')
    assert digest.run(db, digest.ModelExtractor("canned")).entries == 3 and journal.backlog(db) == 0


def test_digest_from_a_background_thread(db_path, alice):
    db = connect(db_path)
    journal_turns(db, alice)
    reports = []
    thread = threading.Thread(target=lambda: reports.append(digest.run(connect(db_path), digest.RulesExtractor())))
    thread.start()
    thread.join()
    assert reports[0].counts == {"ADD": 3} and len(memories(db)) == 3


def test_retention_runs_after_a_digest(db, alice):
    journal_turns(db, alice)
    db.execute("update journal_entries set created_at = '2000-01-01T00:00:00+00:00'")
    report = digest.run(db, digest.RulesExtractor(), config=Config(journal_retention_days=30))
    assert report.pruned == 3 and db["journal_entries"].count == 0
    sources = list(db["memory_sources"].rows)
    assert len(sources) == 3 and all(s["expired_at"] and not s["revoked"] for s in sources)
    assert {r["provenance"] for r in db["memories"].rows} == {None}  # aged out, not revoked


@pytest.mark.parametrize("text, expected", [
    ("My name is Dana Scully and I live in Lisbon.", ["The user's name is Dana Scully.", "The user lives in Lisbon."]),
    ("I really love green tea, but I hate coffee.", ["The user loves green tea.", "The user hates coffee."]),
    ("Please remember that my sister is allergic to nuts", ["The user's sister is allergic to nuts."]),
    ("Remember that the repo deploys from main", ["The repo deploys from main."]),
    ("Call me Ishmael. Call me tomorrow.", ["The user wants to be called Ishmael."]),
    ("I work at Acme as of May", ["The user works at Acme."]),
    ("my favorite color is teal", ["The user's favorite color is teal."]),
    ("what if my name is Bob?", []),
    ("my name is not Bob", []),
    ("I don't like cheese", ["The user does not like cheese."]),
    ("my password is [REDACTED:password]", []),
    ("Can you summarize this article for me", []),
])
def test_rules_extractor_patterns(text, expected):
    assert [f.content for f in digest.RulesExtractor.facts_in(text, 1)] == expected


def test_rules_extractor_targets_and_slots():
    facts = {f.content: f for f in digest.RulesExtractor.facts_in(
        "I moved to Porto. Remember that the project uses Postgres. My favorite color is teal.", 7)}
    assert (facts["The user lives in Porto."].slot, facts["The user lives in Porto."].target) == ("home", "user")
    assert facts["The project uses Postgres."].target == "project"
    assert facts["The user's favorite color is teal."].slot == "favorite color"
    assert {f.entry_ids for f in facts.values()} == {(7,)}
    assert digest.RulesExtractor().extract([{"id": 1, "role": "assistant", "content": "My name is Claude"}]) == []


def test_bench_write_cli_reports_both_rates():
    result = CliRunner().invoke(cli, ["bench", "write", "--turns", "200", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["turns"] == 200 and figures["digested_entries"] == figures["journaled"] > 150
    assert figures["journal_append_per_s"] > 0 and figures["digest_rules_per_s"] > 0 and figures["facts"] > 0


@pytest.mark.slow
def test_write_path_throughput_targets():
    from scope_recall_bench.bench_write import measure

    figures = measure(5000)
    assert figures["journal_append_per_s"] >= 2000 and figures["digest_rules_per_s"] >= 1000


def test_the_model_comes_from_the_flag_or_config_json(db_path, alice, canned):
    from scope_recall_engine import config as settings

    db = connect(db_path)
    journal_turns(db, alice)
    base = ["--db", str(db_path), "digest", "--user", "alice", "--chat", "chat-1", "--json"]
    canned.enqueue({"facts": [{"entries": [1], "target": "user", "content": "The user is called Dana."}]})
    flagged = json.loads(CliRunner().invoke(cli, base + ["--model", "canned"]).output)
    assert (flagged["model"], flagged["counts"]) == ("canned", {"ADD": 1})
    settings.save(db_path, settings.Config(digest_model="canned"))
    journal.append(db, alice, "s2", "user", "I also speak Basque")
    configured = json.loads(CliRunner().invoke(cli, base).output)
    assert (configured["model"], configured["entries"]) == ("canned", 1) and len(canned.prompts) == 2


def test_a_lease_held_by_a_dead_process_is_taken_over_and_its_run_abandoned(db):
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = f"{socket.gethostname()}:{finished.stdout.strip()}:1:dead"
    live = f"{socket.gethostname()}:{os.getpid()}:1:live"
    digest.take_lease(db, live)
    with pytest.raises(LeaseHeld):  # control: a live holder keeps its lease
        digest.take_lease(db, "someone-else")
    digest.release_lease(db, live)
    digest.take_lease(db, dead)
    run_id = db["digest_runs"].insert({"started_at": "2026-01-01", "status": "running", "holder": dead,
                                       "extractor": "rules"}).last_pk
    db.conn.commit()
    digest.take_lease(db, "the-next-digest")
    assert db["leases"].get("digest")["holder"] == "the-next-digest"
    assert db["digest_runs"].get(run_id)["status"] == "abandoned"


def test_rules_drop_time_phrases_from_the_value():
    facts = digest.RulesExtractor.facts_in("I moved to Porto last month, and I work at Acme this year", 1)
    assert [fact.content for fact in facts] == ["The user lives in Porto.", "The user works at Acme."]


def test_the_choice_of_extractor_flags_then_config_then_the_host(canned):
    host = digest.ChatExtractor(lambda system, prompt: '{"facts": []}', "host-model")
    assert digest.choose("rules", None, Config(digest_model="canned"), host).name == "rules"
    assert digest.choose(None, "canned", Config(digest_extractor="rules"), host).name == "llm"
    assert digest.choose(None, None, Config(digest_extractor="rules"), host).name == "rules"
    assert digest.choose(None, None, Config(digest_model="canned"), host).name == "llm"
    assert digest.choose(None, None, Config(digest_extractor="llm", digest_model="canned")).name == "llm"
    assert digest.choose(None, None, Config(), host) is host
    assert digest.choose(None, None, Config(digest_extractor="host"), host) is host
    assert digest.choose(None, None, Config()) is None  # outside a host, nothing chosen: the backlog waits
    for config, message in ((Config(digest_extractor="host"), "only runs inside that host"),
                            (Config(digest_extractor="llm"), "names no digest_model"),
                            (Config(digest_extractor="magic"), "use one of")):
        with pytest.raises(ConfigError, match=message):
            digest.choose(None, None, config)


def test_a_model_that_needs_a_key_it_lacks_is_one_line_saying_what_to_run(db_path, alice, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    db = connect(db_path)
    journal_turns(db, alice)
    runner = CliRunner()
    for args in (["--db", str(db_path), "digest", "--user", "alice", "--model", "gpt-4o-mini"],
                 ["eval", "digest", "--model", "gpt-4o-mini"]):
        result = runner.invoke(cli, args)
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.output
        assert "needs an API key: run `llm keys set openai` (or set OPENAI_API_KEY)" in result.stderr
        assert "Traceback" not in result.output
    for args in (["--db", str(db_path), "digest", "--user", "alice", "--model", "no-such-model"],
                 ["eval", "digest", "--model", "no-such-model"]):
        result = runner.invoke(cli, args)
        assert result.exit_code == 1 and "unknown digest model 'no-such-model': `llm models` lists" in result.stderr
    assert memories(db) == [] and db["digest_runs"].count == 0 and journal.backlog(db) == 3
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # control: with a key the model resolves
    assert digest.ModelExtractor("gpt-4o-mini").model == "gpt-4o-mini"


def test_a_host_callable_goes_through_the_same_interface_as_an_llm_model(db, alice):
    asked = []

    def complete(system, prompt):
        asked.append(system)
        if system.startswith("A fact was extracted"):
            return '{"decision": "SUPERSEDE", "id": 1, "reason": "moved"}'
        return json.dumps({"facts": [{"entries": [int(prompt.split("[")[1].split("]")[0])], "target": "user",
                                      "key": "home", "content": "The user lives in Porto."}]})

    lifecycle.store(db, alice, "user", "The user lives in Lisbon.", human("op"))
    journal.append(db, alice, "s1", "user", "We moved to Porto")
    report = digest.run(db, digest.ChatExtractor(complete, "host-model"))
    assert (report.extractor, report.model, report.counts) == ("host", "host-model", {"SUPERSEDE": 1})
    assert [d["by"] for d in report.decisions] == ["model"] and len(asked) == 2
    new = db["memories"].get(2)
    assert (new["content"], new["lifecycle"], new["supersedes"]) == ("The user lives in Porto.", "candidate", 1)
