"""Which store a command uses: --db, then $SCOPE_RECALL_DB, then the Hermes provider's store when $HERMES_HOME is
set, then ~/.scope-recall; ``-v`` and doctor say which and why; reads and diagnostics never create a store."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from scope_recall_engine.cli.main import cli
from scope_recall_engine.truth.principals import agent
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect, hermes_store
from scope_recall_engine.writing import lifecycle


@pytest.fixture
def hermes_home(tmp_path, monkeypatch):
    """A Hermes user's shell: HERMES_HOME set, no SCOPE_RECALL_DB, a home directory of their own."""
    monkeypatch.delenv("SCOPE_RECALL_DB")
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    home = tmp_path / "hermes"
    monkeypatch.setenv("HERMES_HOME", str(home))
    return home


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_with_hermes_home_set_the_cli_reads_the_hermes_store_and_never_creates_one(hermes_home, tmp_path):
    store = hermes_store(hermes_home)
    for command in (["review", "list", "--user", "bob"], ["search", "--user", "bob", "tea"], ["doctor"],
                    ["export", "--user", "bob"], ["index", "check"], ["journal", "list", "--user", "bob"]):
        result = run(*command)
        assert result.exit_code == 1 and f"no store at {store} (chosen by $HERMES_HOME" in result.stderr, command
    assert not store.exists() and not (tmp_path / "user-home" / ".scope-recall").exists()

    db = connect(store)  # what the Hermes provider writes for bob on telegram
    lifecycle.store(db, Identity(user="bob", platform="telegram"), "user", "Bob drinks green tea", agent("default"))
    db.close()
    listed = run("-v", "review", "list", "--user", "bob", "--platform", "telegram")
    assert listed.exit_code == 0 and "Bob drinks green tea" in listed.stdout
    assert f"store: {store} (chosen by $HERMES_HOME)" in listed.stderr
    doctor = run("doctor", "--json")
    assert doctor.exit_code == 0 and json.loads(doctor.stdout)["store"] == {"path": str(store),
                                                                          "chosen_by": "$HERMES_HOME"}
    assert run("doctor").stdout.startswith(f"store: {store} (chosen by $HERMES_HOME)\n")


def test_db_then_scope_recall_db_then_hermes_home_then_the_default(hermes_home, tmp_path, monkeypatch):
    def chosen(*args):
        result = run(*args, "-v", "store", "--user", "u", "--target", "user", "a fact worth keeping")
        assert result.exit_code == 0, result.output
        return result.stderr.splitlines()[0]

    explicit, env = tmp_path / "explicit.sqlite3", tmp_path / "env.sqlite3"
    monkeypatch.setenv("SCOPE_RECALL_DB", str(env))
    assert chosen("--db", str(explicit)) == f"store: {explicit} (chosen by --db)"
    assert chosen() == f"store: {env} (chosen by $SCOPE_RECALL_DB)"
    monkeypatch.delenv("SCOPE_RECALL_DB")
    assert chosen() == f"store: {hermes_store(hermes_home)} (chosen by $HERMES_HOME)"
    monkeypatch.delenv("HERMES_HOME")
    default = Path(tmp_path / "user-home" / ".scope-recall" / "memory.sqlite3")
    assert chosen() == f"store: {default} (chosen by default)" and default.exists()  # store creates, reads do not
