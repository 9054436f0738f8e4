"""Purge keeps only hashes keyed with the store's secret (a file beside the store): reading the store cannot
confirm a guess of the erased value, and the value is still refused everywhere."""

import hashlib
import stat

import pytest

from scope_recall_engine import doctor
from scope_recall_engine.errors import Tombstoned
from scope_recall_engine.truth import secret
from scope_recall_engine.truth.content import KEYED, content_hash, normalize
from scope_recall_engine.truth.migrations import MIGRATIONS_TABLE, migrate
from scope_recall_engine.truth.principals import human, system
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import lifecycle, transfer

OP = human("op")
SECRET_VALUE = "Alice is vegetarian"


def guess_hash(text: str) -> str:
    """What a viewer would compute to test a guess: sha256 of the normalized text (README documents it)."""
    return hashlib.sha256(normalize(text).encode("utf-8")).hexdigest()


def every_value(db) -> set:
    """Every text value in every table of the store."""
    found = set()
    for table in db.table_names():
        for row in db.execute(f"select * from [{table}]"):
            found |= {value for value in row if isinstance(value, str)}
    return found


def test_a_viewer_cannot_confirm_a_guess_of_purged_content(db, alice):
    purged = lifecycle.store(db, alice, "user", SECRET_VALUE, OP).id
    lifecycle.edit(db, purged, OP, "Alice is a vegetarian")  # an earlier wording must not leak either
    rejected = lifecycle.extract(db, alice.shared_scope, "user", "Alice hates cats", system("digest"),
                                 origin="digest").id
    lifecycle.reject(db, rejected, OP, reason="she loves cats")
    assert guess_hash(SECRET_VALUE) in every_value(db)  # control: before the purge the guess is confirmable
    lifecycle.purge(db, purged, OP, reason="asked to forget")
    values = every_value(db)
    assert guess_hash(SECRET_VALUE) not in values and guess_hash("Alice is a vegetarian") not in values
    assert db["memories"].get(purged)["content_hash"].startswith(KEYED)
    stones = {row["reason"]: row for row in db["tombstones"].rows}
    assert stones["purged"]["content_hash"].startswith(KEYED) and stones["purged"]["note"] == "asked to forget"
    assert stones["rejected"]["content_hash"] == guess_hash("Alice hates cats")  # the rejected text is still shown


def test_the_purged_value_is_still_refused_in_a_fresh_process(db, db_path, alice):
    purged = lifecycle.store(db, alice, "user", SECRET_VALUE, OP).id
    lifecycle.purge(db, purged, OP)
    secret._keys.clear()  # as a new process: the key comes from the file
    fresh = connect(db_path)
    with pytest.raises(Tombstoned, match="purged by human:op"):
        lifecycle.store(fresh, alice, "user", "ALICE is vegetarian!", OP)
    kept = lifecycle.store(fresh, alice, "user", "Alice is vegan", OP)  # control: another value goes in
    with pytest.raises(Tombstoned):
        lifecycle.edit(fresh, kept.id, OP, "alice is vegetarian")
    imported = transfer.import_records(fresh, alice, [{"line": 1, "content": SECRET_VALUE, "target": "user"}])
    assert imported["ids"] == [] and imported["skipped"][0]["line"] == 1


def test_the_key_lives_beside_the_store_readable_by_its_owner_only(db, db_path, alice):
    assert secret.key(db) is None and not secret.path_for(db).exists()  # no purge, no key
    lifecycle.purge(db, lifecycle.store(db, alice, "user", SECRET_VALUE, OP).id, OP)
    path = secret.path_for(db)
    assert path == db_path.with_name("memory.secret") and path.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().strip() not in every_value(db)
    assert all(check.ok for check in doctor.run(db) if check.name == "store_secret")
    path.unlink()
    secret._keys.clear()
    [check] = [c for c in doctor.run(db) if c.name == "store_secret"]
    assert not check.ok and "no longer refused" in check.detail


def test_an_older_store_s_purged_hashes_are_keyed_when_it_is_opened(db, db_path, alice):
    purged = lifecycle.store(db, alice, "user", SECRET_VALUE, OP).id
    lifecycle.purge(db, purged, OP)
    plain = content_hash(SECRET_VALUE)  # as the purge of an older version left it
    db.execute("update memories set content_hash = ? where id = ?", [plain, purged])
    db.execute("update tombstones set content_hash = ?", [plain])
    db.execute(f"delete from {MIGRATIONS_TABLE} where name = 'm009_purged_hashes_under_the_store_key'")
    db.conn.commit()
    assert guess_hash(SECRET_VALUE) in every_value(db)
    migrate(db)
    assert guess_hash(SECRET_VALUE) not in every_value(db)
    with pytest.raises(Tombstoned):
        lifecycle.store(db, alice, "user", SECRET_VALUE, OP)
