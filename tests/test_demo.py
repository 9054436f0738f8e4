"""The demo store is real engine output, and the console commands refuse what they cannot do safely."""

from click.testing import CliRunner
from datasette_auth_passwords.utils import verify_password

from datasette_plugins.commands import _port_free
from datasette_plugins.demo import seed
from scope_recall_engine.cli.main import cli
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import review_queue


def test_demo_store_has_every_kind_of_row_an_operator_meets(tmp_path):
    path = tmp_path / "demo.sqlite3"
    summary = seed(path)
    db = connect(path)
    states = dict(db.execute("select lifecycle, count(*) from memories group by lifecycle").fetchall())
    assert {"active", "candidate", "rejected", "superseded", "archived"} <= set(states)
    assert summary == ", ".join(f"{n} {state}" for state, n in sorted(states.items()))
    users = {row[0] for row in db.execute("select distinct shared_scope_id from memories")}
    assert len(users) == 3
    queue = review_queue.queue(db).items
    assert len(queue) == states["candidate"] and all(item.evidence for item in queue)
    porto = next(item for item in queue if item.memory["content"] == "Alice lives in Porto")
    assert porto.memory["supersedes"] and porto.nearest[0].content == "Alice lives in Lisbon"
    superseded = next(db["memories"].rows_where("lifecycle = 'superseded'"))
    assert superseded["valid_to"] and superseded["superseded_by"]
    assert next(db["tombstones"].rows)["principal"] == "human:admin"
    decisions = {row[0] for row in db.execute("select action from audit_events where principal = 'human:admin'")}
    assert {"promote", "reject", "edit", "archive", "supersede"} <= decisions
    journal_text = " ".join(row[0] for row in db.execute("select content from journal_entries"))
    assert "ghp_" not in journal_text and "REDACTED" in journal_text
    assert db.execute("select max(corroborations) from memories").fetchone()[0] == 1


def test_demo_refuses_to_seed_over_an_existing_file(tmp_path):
    existing = tmp_path / "mine.sqlite3"
    existing.write_bytes(b"precious")
    result = CliRunner().invoke(cli, ["demo", "--db", str(existing)])
    assert result.exit_code == 1 and "exists" in result.output
    assert existing.read_bytes() == b"precious"


def test_demo_and_serve_refuse_a_taken_port_before_touching_any_store(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        demo = CliRunner().invoke(cli, ["demo", "--db", str(tmp_path / "demo.sqlite3"), "--port", str(port)])
        serve = CliRunner(env={"SCOPE_RECALL_ADMIN_PASSWORD_HASH": "x"}).invoke(
            cli, ["serve", "--db", str(tmp_path / "live.sqlite3"), "--port", str(port)])
    for result in (demo, serve):
        assert result.exit_code == 1, result.output
        [line] = result.output.strip().splitlines()
        assert line.startswith(f"Error: cannot serve on 127.0.0.1:{port}") and "--port" in line
    assert list(tmp_path.iterdir()) == []  # nothing seeded, nothing created
    _port_free("127.0.0.1", port)  # control: once the port is free again, the check lets the server start


def test_hash_password_makes_a_hash_the_login_accepts():
    result = CliRunner().invoke(cli, ["hash-password", "--password", "s3cret"])
    assert result.exit_code == 0
    hashed = result.output.strip()
    assert verify_password("s3cret", hashed) and not verify_password("other", hashed)


def test_serve_refuses_when_no_operator_could_log_in(tmp_path, monkeypatch):
    monkeypatch.delenv("SCOPE_RECALL_ADMIN_PASSWORD_HASH", raising=False)
    monkeypatch.delenv("SCOPE_RECALL_VIEWER_PASSWORD_HASH", raising=False)
    result = CliRunner().invoke(cli, ["serve", "--db", str(tmp_path / "s.sqlite3")])
    assert result.exit_code == 1 and "SCOPE_RECALL_ADMIN_PASSWORD_HASH" in result.output
    assert not (tmp_path / "s.sqlite3").exists()
