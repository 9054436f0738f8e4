import os

import pytest

from scope_recall_engine.scope import Identity
from scope_recall_engine.store import connect

os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path_factory, monkeypatch):
    """No test reads or writes the user's real config: llm, Hermes and the default store all point at tmp."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("LLM_USER_PATH", str(home / "llm"))
    monkeypatch.setenv("HERMES_HOME", str(home / "hermes"))
    monkeypatch.setenv("SCOPE_RECALL_DB", str(home / "default.sqlite3"))


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "memory.sqlite3"


@pytest.fixture
def db(db_path):
    database = connect(db_path)
    yield database
    database.close()


@pytest.fixture
def alice():
    return Identity(user="alice", chat="chat-1")


@pytest.fixture
def bob():
    return Identity(user="bob", chat="chat-1")
