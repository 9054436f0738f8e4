import json
import os
from pathlib import Path

import llm
import pytest
from llm.plugins import pm

from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect

os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path_factory, monkeypatch):
    """No test reads or writes the user's real config: llm, Hermes and the default store all point at tmp."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("LLM_USER_PATH", str(home / "llm"))
    monkeypatch.setenv("HERMES_HOME", str(home / "hermes"))
    monkeypatch.setenv("SCOPE_RECALL_DB", str(home / "default.sqlite3"))


@pytest.fixture
def hermes_home():
    """Make the test's Hermes home: the provider installed (linked), active, with these Scope Recall settings and
    the deterministic test embedder."""
    from hermes_plugin import install
    from scope_recall_engine import config
    from scope_recall_engine.truth.store import hermes_store

    def make(**settings) -> Path:
        path = Path(os.environ["HERMES_HOME"])
        path.mkdir(parents=True, exist_ok=True)
        install.install(path, link=True)
        config.save(hermes_store(path), config.Config(**{"embedding_model": "scope-recall-hash", **settings}))
        (path / "config.yaml").write_text("memory:\n  provider: scope-recall\n", encoding="utf-8")
        return path

    return make


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


# A canned ``llm`` chat model for the digest's model path (llm's own tests/conftest.py MockModel pattern).
class CannedModel(llm.Model):
    model_id = "canned"
    can_stream = False

    def __init__(self):
        self.replies: list[str] = []
        self.prompts: list[tuple[str, str]] = []

    def enqueue(self, *replies):
        self.replies.extend(r if isinstance(r, str) else json.dumps(r) for r in replies)

    def execute(self, prompt, stream, response, conversation):
        self.prompts.append((prompt.system or "", prompt.prompt))
        yield self.replies.pop(0) if self.replies else '{"facts": []}'


@pytest.fixture
def canned():
    model = CannedModel()

    class Plugin:
        __name__ = "CannedModelPlugin"

        @llm.hookimpl
        def register_models(self, register):
            register(model)

    pm.register(Plugin(), name="canned-model-plugin")
    try:
        yield model
    finally:
        pm.unregister(name="canned-model-plugin")


@pytest.fixture(scope="session")
def s3_server():
    """moto's S3 server on 127.0.0.1 for the whole session (started on first use, stopped at the end)."""
    import s3_kit

    process, server = s3_kit.start()
    yield server
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def s3(s3_server, monkeypatch):
    """The server, with its credentials in the environment, as an operator sets them. AWS_CA_BUNDLE stays set
    (as on the machines this runs on): Litestream 0.5.17 refuses custom endpoints under it unless handled."""
    import certifi

    for name, value in s3_server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_CA_BUNDLE", certifi.where())
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return s3_server
