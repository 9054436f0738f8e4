import json

import numpy as np
import pytest
from click.testing import CliRunner

from scope_recall_bench import fit_resting
from scope_recall_engine.cli.main import cli
from scope_recall_engine.companion import dense, embedders, resting

E5 = embedders.E5_MODEL_ID


def _likely(message: str) -> float:
    return resting.probability(E5, dense.query_vectors(E5, [message])[:, 0])


@pytest.mark.parametrize(("message", "rests"), [
    ("suggest something quick for dinner tonight", True),
    ("is a hilly 10k trail run a good idea this weekend?", True),
    ("help me write a note to my boss asking for friday off", True),
    ("Rosa can do the final fitting either July 29 or Aug 9. which one", True),
    ("what's the capital of Australia?", False),
    ("why must insulin stay in the fridge?", False),
    ("my friend says tomatoes are fruit, is that true?", False),
    ("explain photosynthesis", False),
])
def test_the_shipped_probe_is_sure_of_plain_messages_either_way(message, rests):
    likely = _likely(message)
    assert likely >= 0.9 if rests else likely < 0.3


def test_fit_finds_the_direction_that_separates_the_labels_and_folds_in_the_scaling():
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(400, 8)) * np.arange(1, 9)  # features of very different spreads
    labels = (vectors[:, 2] + 0.1 * rng.normal(size=400) > 0).astype(float)
    weights, bias = resting.fit(vectors, labels, penalty=1.0)
    predicted = 1 / (1 + np.exp(-(vectors @ weights + bias)))
    assert ((predicted > 0.5) == labels.astype(bool)).mean() > 0.95
    assert int(np.argmax(np.abs(weights))) == 2


def test_a_missing_or_corrupt_probe_leaves_the_rules_alone_and_doctor_names_it(db, tmp_path, monkeypatch):
    from scope_recall_engine import doctor

    def reference_check():
        [check] = [c for c in doctor.run(db) if c.name == "recall_reference"]
        return check

    vector = dense.query_vectors(E5, ["suggest something quick for dinner tonight"])[:, 0]
    assert resting.probability(E5, vector) is not None and reference_check().ok  # control: the shipped probe
    assert "resting probe" in reference_check().detail
    corrupt = tmp_path / "resting.json"
    corrupt.write_text('{"weights": [1.0, "x"]', encoding="utf-8")
    monkeypatch.setattr(resting, "shipped", lambda model_id: corrupt)
    resting.probe.cache_clear()
    try:
        assert resting.probability(E5, vector) is None
        check = reference_check()
        assert not check.ok and "probe" in check.detail and "reinstall" in check.repair
    finally:
        resting.probe.cache_clear()
    assert resting.probability(embedders.HASH_MODEL_ID, vector) is None  # no probe ships for another model


def test_fit_resting_fits_on_the_training_files_and_measures_on_the_held_out_ones(tmp_path, monkeypatch):
    """`scope-recall bench fit-resting` on two small fixtures (the deterministic test embedder): one fitted on, one
    held out; the probe is written where the engine reads it and loads."""
    def persona(key: str, user: str, messages: list[tuple[str, str]]) -> dict:
        memory = {"id": f"{key}.m01", "target": "user", "content": "Vegetarian since 2015."}
        return {"key": key, "user": user, "platform": "telegram", "chat": user, "display_name": key,
                "split": "heldout", "memories": [memory],
                "messages": [{"id": f"{key}.q{i:02d}", "kind": kind, "text": text,
                              "wanted": [] if kind == "unrelated" else [memory["id"]]}
                             for i, (kind, text) in enumerate(messages, 1)]}

    own = [("implied", "what should I cook for my dinner tonight"), ("direct", "what do I eat, remind me"),
           ("unrelated", "capital of Australia"), ("unrelated", "explain photosynthesis in plants")]
    for name, key in (("personal_a", "p1"), ("personal_unseen_b", "p2")):
        (tmp_path / f"{name}.json").write_text(json.dumps({"personas": [persona(key, key, own)]}), encoding="utf-8")
    (tmp_path / "general_questions.json").write_text(json.dumps(
        {"impersonal": ["who painted the Mona Lisa"], "first_person": ["I wonder how tall Everest is"]}))
    monkeypatch.setattr(fit_resting, "FIXTURES", tmp_path)
    monkeypatch.setattr(fit_resting, "HELD_OUT", ("personal_unseen_b",))
    monkeypatch.setattr(fit_resting.eval_personal, "GENERAL_QUESTIONS", tmp_path / "general_questions.json")
    monkeypatch.setattr(resting, "shipped", lambda model_id: tmp_path / f"resting-{model_id}.json")
    try:
        result = CliRunner().invoke(cli, ["bench", "fit-resting", "--model", embedders.HASH_MODEL_ID, "--penalty", "1",
                                          "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        assert report["files"] == 1 and report["messages"] == 4 and report["resting"] == 2
        assert report["general_questions"] == 2 and 0.0 <= report["auc_held_out"] <= 1.0
        written = json.loads((tmp_path / f"resting-{embedders.HASH_MODEL_ID}.json").read_text())
        assert written["fitted_on"] == ["personal_a"] and written["held_out"] == ["personal_unseen_b"]
        vector = dense.query_vectors(embedders.HASH_MODEL_ID, ["what should I cook for my dinner tonight"])[:, 0]
        assert resting.probability(embedders.HASH_MODEL_ID, vector) > 0.5
    finally:
        resting.probe.cache_clear()
