import json
import time

from click.testing import CliRunner

from scope_recall_engine.cli.main import cli
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.store import connect, now
from scope_recall_engine.writing import digest, journal, lifecycle


def search(runner, db_path, query, as_of=None):
    args = ["--db", str(db_path), "search", "--user", "alice", "--json", query]
    result = runner.invoke(cli, args + (["--as-of", as_of] if as_of else []))
    assert result.exit_code == 0, result.output
    return [hit["content"] for hit in json.loads(result.stdout)]


def test_review_supersede_and_search_as_of(db_path):
    runner = CliRunner()
    base = ["--db", str(db_path)]
    stored = runner.invoke(cli, base + ["store", "--user", "alice", "--target", "user", "--by", "op", "--json",
                                        "Alice lives in Lisbon"])
    old_id = json.loads(stored.output)["id"]
    time.sleep(0.01)
    before = now()
    time.sleep(0.01)
    result = runner.invoke(cli, base + ["review", "supersede", str(old_id), "--by", "op", "--json",
                                        "Alice lives in Porto"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["supersedes"] == old_id and out["superseded"]["lifecycle"] == "superseded"
    time.sleep(0.01)
    assert search(runner, db_path, "where does Alice live", as_of=before) == ["Alice lives in Lisbon"]
    assert search(runner, db_path, "where does Alice live", as_of=now()) == ["Alice lives in Porto"]
    assert search(runner, db_path, "where does Alice live") == ["Alice lives in Porto"]
    history = json.loads(runner.invoke(cli, base + ["history", str(old_id), "--json"]).output)
    assert [e["action"] for e in history["audit"]] == ["store", "supersede"]  # when we knew it: transaction time


def test_a_promoted_superseding_candidate_closes_the_old_window(db_path, alice):
    db = connect(db_path)
    lifecycle.store(db, alice, "user", "The user lives in Lisbon.", human("op"))
    journal.append(db, alice, "s1", "user", "I moved to Porto")
    digest.run(db, digest.RulesExtractor())
    time.sleep(0.01)
    before = now()
    time.sleep(0.01)
    lifecycle.promote(db, 2, human("op"))
    runner = CliRunner()
    assert search(runner, db_path, "lives", as_of=before) == ["The user lives in Lisbon."]
    assert search(runner, db_path, "lives") == ["The user lives in Porto."]
    old, new = db["memories"].get(1), db["memories"].get(2)
    assert old["valid_to"] == new["valid_from"] and old["superseded_by"] == 2
