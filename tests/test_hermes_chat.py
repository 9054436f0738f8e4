"""One-shot ``hermes chat -q`` runs, the real command in a fresh process each time, against a fake model server on
127.0.0.1 that also plays a slow digest model. Slow (two Hermes start-ups and its shutdown wait): ``-m slow``."""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from fake_openai import DIGEST_MODEL, FakeOpenAI, entry_ids, is_extraction

from hermes_plugin import install, runtime
from scope_recall_engine import config
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import journal

pytestmark = pytest.mark.slow
HERMES = str(Path(sys.executable).with_name("hermes"))
ALICE = Identity(user="alice", platform="cli", session="earlier")  # the CLI's fallback user


def test_one_shot_chats_finish_the_digest_across_runs_without_resending_processed_entries(tmp_path):
    hold, release = threading.Event(), threading.Event()  # hold: the second extraction hangs, as a slow model's

    def reply(body):
        if body.get("model") == DIGEST_MODEL and is_extraction(body):
            if hold.is_set() and sum(map(is_extraction, server.requests)) >= 2:
                release.wait(120)
            return {"content": json.dumps({"facts": []})}
        return {"content": "Paris."}

    server = FakeOpenAI(reply)
    home = Path(os.environ["HERMES_HOME"])
    home.mkdir(parents=True)
    server.register_digest_model(os.environ["LLM_USER_PATH"])
    install.install(home)
    (home / "config.yaml").write_text(f"memory:\n  provider: scope-recall\nmodel:\n  provider: custom\n"
                                      f"  base_url: {server.url}\n  default: fake-main\n", encoding="utf-8")
    store = runtime.hermes_store(home)
    config.save(store, config.Config(embedding_model="scope-recall-hash", digest_model=DIGEST_MODEL,
                                     fallback_user="alice"))
    db = connect(store)
    journal.append_many(db, ALICE, "earlier", [("user", f"Remember that shelf {n} holds box {n}") for n in range(16)],
                        config.load(store))

    def chat(text):
        done = subprocess.run([HERMES, "chat", "-Q", "-q", text], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "OPENAI_API_KEY": "unused"})
        assert done.returncode == 0 and "Paris." in done.stdout, done.stdout + done.stderr

    try:
        hold.set()
        chat("What is the capital of France?")  # the digest starts at session end; exit comes mid-batch 2
        runs = [row["status"] for row in db["digest_runs"].rows]
        assert runs == ["running"] and journal.backlog(db) == 18 - runtime.DIGEST_BATCH
        hold.clear()
        chat("And of Italy?")  # the cut-short digest goes on at session start, this chat's turns at its end
    finally:
        hold.clear()
        release.set()
        server.close()
    assert journal.backlog(db) == 0
    assert [row["status"] for row in db["digest_runs"].rows][:2] == ["abandoned", "done"]
    batches = [entry_ids(body) for body in server.requests if is_extraction(body)]
    sent = [i for batch in batches for i in batch]
    twice = {i for i in sent if sent.count(i) > 1}
    assert twice == set(batches[1]) and len(batches[1]) == runtime.DIGEST_BATCH  # only the batch in flight
    assert sorted(set(sent)) == list(range(1, 21))  # 16 earlier entries and both chats' turns
    db.close()
