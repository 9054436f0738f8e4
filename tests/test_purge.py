import json

import pytest
from click.testing import CliRunner

from scope_recall_engine import config, doctor
from scope_recall_engine.cli.main import cli
from scope_recall_engine.companion import embedders, vectors
from scope_recall_engine.errors import Tombstoned
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.store import history
from scope_recall_engine.writing import digest, journal, lifecycle, transfer

OP = human("op")
VALUE = "Quetzalcoatlus"


def files_containing(directory, needle: str) -> list[str]:
    found = []
    for path in directory.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if needle.encode() in data or needle.lower().encode() in data:
                found.append(str(path.relative_to(directory)))
    return found


@pytest.fixture
def hashed(db, db_path):
    """A store with a vector companion (fast hash embedder), so purge must clean LanceDB too."""
    config.save(db_path, config.Config(embedding_model=embedders.HASH_MODEL_ID))
    return db


def test_after_purge_and_drain_the_text_is_in_no_file(hashed, db_path, alice):
    db = hashed
    journal.append(db, alice, "s1", "user", f"My name is {VALUE} and I live in Lima")
    digest.run(db, digest.RulesExtractor())
    lifecycle.promote(db, 1, OP)
    lifecycle.edit(db, 1, OP, f"The user's name is {VALUE} Jones.")  # a second version to erase too
    vectors.drain(db)
    assert vectors.exists(db) and files_containing(db_path.parent, VALUE)  # control: it was on disk
    result = CliRunner().invoke(cli, ["--db", str(db_path), "review", "purge", "1", "--by", "op", "--json"])
    assert result.exit_code == 0, result.output
    vectors.drain(db)
    assert files_containing(db_path.parent, VALUE) == []
    assert files_containing(db_path.parent, "Lima")  # control: the other fact's memory is untouched
    row = db["memories"].get(1)
    assert (row["lifecycle"], row["content"], row["decision_reason"]) == ("purged", "", None)


def test_purge_erases_the_source_entries_and_flags_other_memories_citing_them(db, alice):
    journal.append(db, alice, "s1", "user", f"My name is {VALUE} and I live in Lima")
    journal.append(db, alice, "s2", "user", "I like tea")
    digest.run(db, digest.RulesExtractor())
    lima = db["memories"].get(2)
    assert lima["provenance"] is None and db["memory_sources"].count_where("revoked = 0") == 3
    lifecycle.purge(db, 1, OP)
    assert [e["content"] for e in journal.entries(db, alice)] == ["I like tea"]
    assert db["memories"].get(2)["provenance"] == "revoked" and db["memories"].get(3)["provenance"] is None
    source = next(db["memory_sources"].rows_where("memory_id = 2"))
    assert (source["revoked"], source["revoked_reason"]) == (1, "entry erased") and source["cited_sha256"] == \
        journal.sha256(f"My name is {VALUE} and I live in Lima")
    assert "revoke_provenance" in [event["action"] for event in history(db, 2)["audit"]]
    assert lima["lifecycle"] == db["memories"].get(2)["lifecycle"] == "candidate"
    assert all(check.ok for check in doctor.run(db))  # one generation, one audit event per change, still


def test_a_changed_entry_revokes_its_links_and_the_flag_is_sticky(db, alice):
    journal.append(db, alice, "s1", "user", "I work at Initech")
    digest.run(db, digest.RulesExtractor())
    db.execute("update journal_entries set content = 'I work at Initrode' where id = 1")
    assert db["memories"].get(1)["provenance"] == "revoked"
    assert next(db["memory_sources"].rows)["revoked_reason"] == "entry changed"
    journal.append(db, alice, "s2", "user", "I work at Initech")  # fresh evidence for the same fact
    digest.run(db, digest.RulesExtractor())
    assert db["memory_sources"].count_where("memory_id = 1 and revoked = 0") == 1
    assert db["memories"].get(1)["provenance"] == "revoked"  # never silently restored


def test_the_purged_value_never_returns(db, alice):
    journal.append(db, alice, "s1", "user", f"My favorite dinosaur is {VALUE}")
    digest.run(db, digest.RulesExtractor())
    content = db["memories"].get(1)["content"]
    lifecycle.purge(db, 1, OP)
    with pytest.raises(Tombstoned):
        lifecycle.store(db, alice, "user", content, OP)
    imported = transfer.import_records(db, alice, [{"line": 1, "content": content, "target": "user"},
                                                   {"line": 2, "content": "The user likes ferns.", "target": "user"}])
    assert len(imported["ids"]) == 1 and imported["skipped"][0]["line"] == 1
    journal.append(db, alice, "s9", "user", f"my favorite dinosaur is {VALUE}")
    report = digest.run(db, digest.RulesExtractor())
    assert report.counts == {"TOMBSTONED": 1}
    assert [r["content"] for r in db["memories"].rows_where("lifecycle != 'purged'")] == ["The user likes ferns."]
    assert json.dumps(list(db["digest_runs"].rows)).find(VALUE) == -1
