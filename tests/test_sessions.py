"""Console sessions held in the store: each login its own, ended by logout, expiry, idleness or a new password."""

from scope_recall_engine.truth.store import before
from scope_recall_engine.writing import sessions

ADMIN = {"id": "admin", "role": "admin"}
CREDENTIALS = {"admin": "fingerprint-1"}


def test_each_login_is_its_own_session_and_the_table_holds_no_token(db):
    first = sessions.start(db, "admin", ADMIN, "fingerprint-1", "127.0.0.1")
    second = sessions.start(db, "admin", ADMIN, "fingerprint-1", "127.0.0.1")
    assert first != second
    assert sessions.resolve(db, first, CREDENTIALS).actor == ADMIN
    stored = " ".join(str(value) for row in db.execute("select * from console_sessions") for value in row)
    assert first not in stored and second not in stored
    assert sessions.resolve(db, "forged-token", CREDENTIALS) is None


def test_logout_ends_only_that_session(db):
    first = sessions.start(db, "admin", ADMIN, "fingerprint-1")
    second = sessions.start(db, "admin", ADMIN, "fingerprint-1")
    sessions.end(db, first)
    assert sessions.resolve(db, first, CREDENTIALS) is None
    assert sessions.resolve(db, second, CREDENTIALS) is not None


def test_a_new_password_ends_every_session_of_the_account(db):
    token = sessions.start(db, "admin", ADMIN, "fingerprint-1")
    assert sessions.resolve(db, token, {"admin": "fingerprint-2"}) is None
    assert sessions.resolve(db, token, {}) is None  # the account was removed
    assert sessions.resolve(db, token, CREDENTIALS) is not None


def test_sessions_expire_and_idle_out_and_activity_keeps_them(db):
    expired, idle, busy = (sessions.start(db, "admin", ADMIN, "fingerprint-1") for _ in range(3))
    ids = [row[0] for row in db.execute("select id from console_sessions order by rowid")]
    db.execute("update console_sessions set expires_at = ? where id = ?", [before(sessions.SEEN_EVERY), ids[0]])
    db.execute("update console_sessions set seen_at = ? where id = ?", [before(sessions.IDLE), ids[1]])
    db.execute("update console_sessions set seen_at = ? where id = ?", [before(2 * sessions.SEEN_EVERY), ids[2]])
    db.conn.commit()
    assert sessions.resolve(db, expired, CREDENTIALS) is None and sessions.resolve(db, idle, CREDENTIALS) is None
    assert sessions.resolve(db, busy, CREDENTIALS).stale()  # control: used a while ago, still live
    for token in (busy, idle):
        sessions.touch(db, token)
    assert not sessions.resolve(db, busy, CREDENTIALS).stale()
    assert sessions.resolve(db, idle, CREDENTIALS) is None  # activity does not revive an idled-out session
