import json

import numpy as np
import pytest
from click.testing import CliRunner

from scope_recall_bench import fit_bearing, fit_resting
from scope_recall_engine.cli.main import cli
from scope_recall_engine.companion import bearing, dense, embedders, probes, resting

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
    weights, bias = probes.fit(vectors, labels, penalty=1.0)
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
    monkeypatch.setattr(probes, "shipped", lambda name, model_id: corrupt)
    probes.read.cache_clear()
    try:
        assert resting.probability(E5, vector) is None
        check = reference_check()
        assert not check.ok and "probe" in check.detail and "reinstall" in check.repair
    finally:
        probes.read.cache_clear()
    assert resting.probability(embedders.HASH_MODEL_ID, vector) is None  # no probe ships for another model


def _persona(key: str, messages: list[tuple[str, str]]) -> dict:
    memories = [{"id": f"{key}.m01", "target": "user", "content": "Vegetarian since 2015."},
                {"id": f"{key}.m02", "target": "user", "content": "Drives a silver 2019 Toyota Sienna."}]
    return {"key": key, "user": key, "platform": "telegram", "chat": key, "display_name": key, "split": "heldout",
            "memories": memories,
            "messages": [{"id": f"{key}.q{i:02d}", "kind": kind, "text": text,
                          "wanted": [] if kind == "unrelated" else [memories[0]["id"]]}
                         for i, (kind, text) in enumerate(messages, 1)]}


OWN = [("implied", "what should I cook for my dinner tonight"), ("direct", "what do I eat, remind me"),
       ("unrelated", "capital of Australia"), ("unrelated", "explain photosynthesis in plants")]


@pytest.fixture
def small_fixtures(tmp_path, monkeypatch):
    """Two training files and one held out, with the deterministic test embedder's probes written into tmp_path."""
    for name, key in (("personal_a", "p1"), ("personal_c", "p3"), ("personal_unseen_b", "p2")):
        (tmp_path / f"{name}.json").write_text(json.dumps({"personas": [_persona(key, OWN)]}), encoding="utf-8")
    (tmp_path / "general_questions.json").write_text(json.dumps(
        {"impersonal": ["who painted the Mona Lisa"], "first_person": ["I wonder how tall Everest is"]}))
    monkeypatch.setattr(fit_resting, "FIXTURES", tmp_path)
    monkeypatch.setattr(fit_resting, "HELD_OUT", ("personal_unseen_b",))
    monkeypatch.setattr(fit_resting.eval_personal, "GENERAL_QUESTIONS", tmp_path / "general_questions.json")
    monkeypatch.setattr(probes, "shipped", lambda name, model_id: tmp_path / f"{name}-{model_id}.json")
    probes.examples.cache_clear()
    yield tmp_path
    probes.read.cache_clear()
    probes.examples.cache_clear()


def test_fit_resting_fits_on_the_training_files_and_measures_on_the_held_out_ones(small_fixtures):
    """`scope-recall bench fit-resting` on small fixtures (the deterministic test embedder): two fitted on, one
    held out; the probe is written where the engine reads it and loads."""
    result = CliRunner().invoke(cli, ["bench", "fit-resting", "--model", embedders.HASH_MODEL_ID, "--penalty", "1",
                                      "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["files"] == 2 and report["messages"] == 8 and report["resting"] == 4
    assert report["general_questions"] == 2 and 0.0 <= report["auc_held_out"] <= 1.0
    assert 0.0 <= report["auc_file_left_out_line_alone"] <= 1.0
    written = json.loads((small_fixtures / f"resting-{embedders.HASH_MODEL_ID}.json").read_text())
    assert written["fitted_on"] == ["personal_a", "personal_c"] and written["held_out"] == ["personal_unseen_b"]
    vectors, labels = probes.examples(resting.NAME, embedders.HASH_MODEL_ID)  # the training messages and the
    assert vectors.shape[0] == 8 + 2 and labels.tolist() == [1, 1, 0, 0] * 2 + [0, 0]  # general questions
    vector = dense.query_vectors(embedders.HASH_MODEL_ID, ["what should I cook for my dinner tonight"])[:, 0]
    assert resting.probability(embedders.HASH_MODEL_ID, vector) > 0.5


def test_the_vote_follows_the_nearest_examples_whatever_the_line_says():
    """A message among resting examples gets their label, one among the others theirs; the nearest weigh most."""
    rng = np.random.default_rng(5)
    resting_side, other_side = np.eye(6)[0], np.eye(6)[1]
    vectors = np.vstack([resting_side + 0.05 * rng.normal(size=(30, 6)), other_side + 0.05 * rng.normal(size=(30, 6))])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    labels = np.r_[np.ones(30), np.zeros(30)]
    votes = resting.vote(vectors, labels, np.vstack([resting_side, other_side]))
    assert votes[0] > 0.99 and votes[1] < 0.01
    assert resting.vote(vectors[:3], labels[:3], other_side[None, :])[0] == pytest.approx(1.0)  # fewer than 20 known


def test_missing_or_corrupt_examples_leave_the_rules_alone_and_doctor_names_them(db, tmp_path, monkeypatch):
    from scope_recall_engine import doctor

    vector = dense.query_vectors(E5, ["suggest something quick for dinner tonight"])[:, 0]
    assert resting.probability(E5, vector) is not None  # control: the shipped probe and its examples
    real = probes.shipped(resting.NAME, E5)
    monkeypatch.setattr(probes, "shipped", lambda name, model_id: tmp_path / real.name)
    (tmp_path / real.name).write_bytes(real.read_bytes())  # the probe alone, no examples beside it
    examples = probes.examples_path(resting.NAME, E5)
    try:
        for broken in (None, b"not a zip file", b"PK\x03\x04 truncated"):
            if broken is not None:
                examples.write_bytes(broken)
            probes.read.cache_clear()
            probes.examples.cache_clear()
            assert probes.read(resting.NAME, E5) is not None and resting.probability(E5, vector) is None
            [check] = [c for c in doctor.run(db) if c.name == "recall_reference"]
            assert not check.ok and "examples" in check.detail
    finally:
        probes.read.cache_clear()
        probes.examples.cache_clear()


def test_fit_bearing_pairs_each_message_with_its_users_memories_and_writes_the_probe(small_fixtures):
    """`scope-recall bench fit-bearing`: each message that wants a memory is paired with both memories of its
    user (2 messages x 2 memories per training file); the probe is written and weighs a query vector."""
    result = CliRunner().invoke(cli, ["bench", "fit-bearing", "--model", embedders.HASH_MODEL_ID, "--penalty", "1",
                                      "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["files"] == 2 and report["messages"] == 4 and report["pairs"] == 8
    assert all(0.0 <= report[key] <= 100.0 for key in report if key.startswith("shown_"))
    written = json.loads((small_fixtures / f"bearing-{embedders.HASH_MODEL_ID}.json").read_text())
    assert written["fitted_on"] == ["personal_a", "personal_c"] and written["held_out"] == ["personal_unseen_b"]
    assert written["rank"] == bearing.RANK and np.asarray(written["cross"]).shape == (len(written["basis"]),) * 2
    vector = dense.query_vectors(embedders.HASH_MODEL_ID, ["what should I cook for my dinner tonight"])[:, 0]
    weighed = bearing.weighed(embedders.HASH_MODEL_ID, vector)
    assert weighed is not None and weighed.shape == vector.shape and not np.allclose(weighed, vector)


def test_the_bearing_a_search_computes_is_the_score_the_probe_was_fitted_on():
    """A search folds the diagonal and the low-rank term into one weighed query vector (``bearing.through``); each
    row's product with it equals the fitted weights times that pair's features, so what was fitted is what ranks.
    Control: the low-rank term moves the scores (without it they differ)."""
    rng = np.random.default_rng(5)
    queries, memories = rng.normal(size=(40, 12)), rng.normal(size=(40, 12))
    basis = np.linalg.qr(rng.normal(size=(12, 4)))[0].T
    weights, cross = rng.normal(size=12), rng.normal(size=(4, 4))
    probe = probes.Probe(weights, 0.0, basis, cross)
    fitted_scores = bearing.features(queries, memories, basis) @ np.r_[weights, cross.ravel()]
    assert np.allclose((memories * bearing.through(probe, queries)).sum(axis=1), fitted_scores)
    assert np.allclose(memories[3] @ bearing.through(probe, queries[3]), fitted_scores[3])  # one query, as searched
    diagonal = (memories * bearing.through(probes.Probe(weights, 0.0), queries)).sum(axis=1)
    assert not np.allclose(diagonal, fitted_scores)


@pytest.mark.parametrize("stored", [
    {"weights": [1.0, 2.0], "bias": 0.0, "basis": [[1.0, 0.0]], "cross": [[1.0, 2.0]]},  # cross not k x k
    {"weights": [1.0, 2.0], "bias": 0.0, "basis": [[1.0, 0.0, 0.0]], "cross": [[1.0]]},  # basis not k x dims
    {"weights": [1.0, 2.0], "bias": 0.0, "basis": [[1.0, 0.0]]},  # a basis without its weights
    {"weights": [1.0, 2.0], "bias": 0.0, "basis": [[1.0, 0.0]], "cross": [[float("nan")]]},
    {"weights": [1.0, 2.0], "bias": 0.0, "basis": [[1.0, 0.0]], "cross": 3.0},  # a number, not a matrix
    {"weights": [1.0, 2.0], "bias": 0.0, "basis": 1.0, "cross": [[3.0]]},
])
def test_a_low_rank_term_of_the_wrong_shape_reads_as_no_probe(tmp_path, monkeypatch, stored):
    """Control in the same run: the well-formed file reads, with its term."""
    path = tmp_path / "probe.json"
    monkeypatch.setattr(probes, "shipped", lambda name, model_id: path)
    try:
        path.write_text(json.dumps({"weights": [1.0, 2.0], "bias": 0.0, "basis": [[1.0, 0.0]], "cross": [[3.0]]}))
        probes.read.cache_clear()
        assert probes.read("bearing", "m").cross.tolist() == [[3.0]]
        path.write_text(json.dumps(stored))
        probes.read.cache_clear()
        assert probes.read("bearing", "m") is None
    finally:
        probes.read.cache_clear()


def test_shown_counts_a_message_whose_wanted_memory_is_among_its_first_three():
    """A wanted memory fourth of four is not shown; third, or second of two, is."""
    wanted = np.array([False, False, False, True, True, False])
    numbers = np.array([0, 0, 0, 0, 1, 1])
    assert fit_bearing.shown(np.array([4.0, 3, 2, 1, 0, 1]), wanted, numbers) == 50.0
    assert fit_bearing.shown(np.array([4.0, 3, 0, 2, 1, 0]), wanted, numbers) == 100.0


def test_a_corrupt_bearing_probe_ranks_without_it_and_doctor_names_it(db, tmp_path, monkeypatch):
    from scope_recall_engine import doctor
    from scope_recall_engine.reading import retrieval
    from scope_recall_engine.truth.principals import human
    from scope_recall_engine.truth.scope import Identity
    from scope_recall_engine.truth.visibility import View
    from scope_recall_engine.writing import lifecycle

    alice = Identity(user="alice", chat="c1")
    lifecycle.store(db, alice, "user", "Alice is allergic to shellfish", human("tester"))
    vector = dense.query_vectors(E5, ["team dinner at a sushi place, what should I order?"])[:, 0]
    assert bearing.weighed(E5, vector) is not None  # control: the shipped probe loads
    corrupt, shipped = tmp_path / "bearing.json", probes.shipped
    corrupt.write_text('{"weights": "x"}', encoding="utf-8")
    monkeypatch.setattr(probes, "shipped", lambda name, model_id: corrupt if name == "bearing" else shipped(name,
                                                                                                          model_id))
    probes.read.cache_clear()
    try:
        assert bearing.weighed(E5, vector) is None
        [check] = [c for c in doctor.run(db) if c.name == "recall_reference"]
        assert not check.ok and "bearing" in check.detail and "ranked without it" in check.detail
        found = retrieval.search(db, View(alice.accessible()), "team dinner at a sushi place, what should I order?")
        assert not found.degraded and [hit.content for hit in found] == ["Alice is allergic to shellfish"]
    finally:
        probes.read.cache_clear()


@pytest.mark.parametrize(("weights", "counts", "held"), [
    ({"physio": 1.0, "email": 3.0}, {"physio": 1}, 0.25), ({"a": 1.0}, {}, 1.0), ({}, {}, 1.0),
])
def test_the_held_share_is_the_weight_of_the_words_some_memory_holds(weights, counts, held):
    from scope_recall_engine.reading import retrieval

    assert retrieval.held_share(weights, counts) == held
