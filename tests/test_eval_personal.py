import json

import pytest
from click.testing import CliRunner

from scope_recall_bench import eval_personal
from scope_recall_bench.eval_personal import Probe, outcome, personal, summarize
from scope_recall_bench.evals import FIXTURES
from scope_recall_engine.cli.main import cli
from scope_recall_engine.companion.embedders import HASH_MODEL_ID
from scope_recall_engine.errors import InvalidInput

TINY = {"personas": [
    {"key": "a", "user": "ada", "platform": "telegram", "chat": "c1", "display_name": "Ada Lind", "split": "dev",
     "memories": [
         {"id": "a.m1", "target": "user", "content": "Ada plays the theremin in a jazz trio."},
         {"id": "a.m2", "content": "Her cockatoo is called Pistachio."},
         {"id": "a.m3", "content": "I work night shifts at the observatory"},
     ],
     "messages": [
         {"id": "a.q1", "kind": "direct", "text": "theremin", "wanted": ["a.m1"]},
         {"id": "a.q2", "kind": "implied", "text": "what should Pistachio eat?", "wanted": ["a.m2"]},
         {"id": "a.u1", "kind": "unrelated", "text": "capital of Peru", "wanted": []},
     ]},
    {"key": "b", "user": "7731", "platform": "discord", "display_name": "Bo", "split": "heldout",
     "memories": [
         {"id": "b.m1", "content": "Bo keeps bees on a rooftop in Oslo."},
         {"id": "b.m2", "content": "The user is allergic to wasps."},
     ],
     "messages": [
         {"id": "b.q1", "kind": "direct", "text": "rooftop bees", "wanted": ["b.m1"]},
         {"id": "b.u1", "kind": "unrelated", "text": "what is 9 squared", "wanted": []},
     ]},
]}


def _write(tmp_path, data) -> str:
    path = tmp_path / "fixture.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_metric_arithmetic():
    keys = {1: "a.m1", 2: "a.m2", 3: "a.m3", 4: "a.m4"}

    def row(kind, wanted, packed, ranked=None, unabstained=None):
        seen = Probe(packed, packed if ranked is None else ranked, packed if unabstained is None else unabstained,
                     None if packed else "abstained", False)
        return outcome({"id": "x", "kind": kind, "text": "t", "wanted": wanted}, "dev", seen, keys)

    rows = [
        row("direct", ["a.m1"], [1, 2]),  # first: every metric
        row("direct", ["a.m1", "a.m2"], [3, 1, 4]),  # one of two, second place
        row("implied", ["a.m2"], [], [], [4, 3, 2]),  # abstained; the open ranking had it third
        row("implied", ["a.m4"], [1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 4]),  # ranked fourth: not shown
        row("unrelated", [], []),
        row("unrelated", [], [2]),  # something packed for a message that needed nothing: a leak
    ]
    assert rows[1]["got"] == ["a.m3", "a.m1", "a.m4"] and rows[1]["hit@3"] and not rows[1]["all_wanted@3"]
    summary = summarize(rows)
    assert summary["all"] == {"messages": 4, "answered": 2, "hit@1": 25.0, "hit@3": 50.0, "all_wanted@3": 25.0,
                              "ranked@10": 75.0, "unabstained@3": 75.0, "packed": 2.67, "precision": 25.0}
    assert summary["direct"] == {"messages": 2, "answered": 2, "hit@1": 50.0, "hit@3": 100.0,  # 2 of 5 shown wanted
                                 "all_wanted@3": 50.0, "ranked@10": 100.0, "unabstained@3": 100.0, "packed": 2.5,
                                 "precision": 40.0}
    assert summary["implied"] == {"messages": 2, "answered": 0, "hit@1": 0.0, "hit@3": 0.0, "all_wanted@3": 0.0,
                                  "ranked@10": 50.0, "unabstained@3": 50.0, "packed": 3.0, "precision": 0.0}
    assert summary["unrelated"] == {"messages": 2, "leaked": 1, "leak_rate": 50.0}
    assert summarize([])["all"]["hit@3"] == 0.0 and summarize([])["unrelated"]["leak_rate"] == 0.0
    assert summarize([])["all"]["packed"] == 0.0 and summarize([])["all"]["precision"] == 0.0


def test_tiny_fixture_counts_cross_user_hits_only_when_the_view_spans_both_users(tmp_path):
    report = personal(_write(tmp_path, TINY), drain=True, model=HASH_MODEL_ID, misses=True)
    assert (report["personas"], report["memories"], report["messages"], report["degraded"]) == (2, 5, 5, 0)
    assert report["embedding_model"] == HASH_MODEL_ID
    assert report["dev"]["all"]["messages"] == 2 and report["heldout"]["direct"]["messages"] == 1
    assert report["overall"]["unrelated"]["messages"] == 2
    wanted_misses = [row for row in report["misses"] if row["kind"] != "unrelated"]
    assert len(wanted_misses) == report["overall"]["all"]["messages"] - report["overall"]["all"]["answered"]
    # each user's messages asked as the other user: nothing of the first user comes back ...
    cross = report["cross_user"]
    assert cross["probes"] == 5 and cross["hits"] == 0 and cross["found"] == []
    # ... while the same count over a view that includes the first user's scope finds their memories
    assert cross["control_hits"] > 0


def test_cross_user_control_on_one_store(tmp_path, db):
    stored = eval_personal.load(db, eval_personal.read_fixture(_write(tmp_path, TINY)))
    assert eval_personal.cross_user(db, stored)["hits"] == 0
    control = eval_personal.cross_user(db, stored, control=True)
    assert control["hits"] > 0
    found = {(row["message"], row["asked_as"]): row["found"] for row in control["found"]}
    assert "a.m1" in found[("a.q1", "b")] and "b.m1" in found[("b.q1", "a")]


@pytest.mark.parametrize("change, message", [
    (lambda d: d["personas"][0]["messages"][0].update(wanted=["a.m9"]), "must want memories of this persona"),
    (lambda d: d["personas"][0]["messages"][2].update(wanted=["a.m1"]), "none exactly when it is unrelated"),
    (lambda d: d["personas"][1].update(split="train"), "split 'train'"),
    (lambda d: d["personas"][1].update(user="ada"), "share a user id"),
    (lambda d: d["personas"][1]["memories"].append({"id": "b.m1", "content": "again"}), "unique"),
    (lambda d: d["personas"][0].pop("messages"), "not a personal fixture"),
])
def test_bad_fixture_is_refused_in_one_line(tmp_path, change, message):
    data = json.loads(json.dumps(TINY))
    change(data)
    with pytest.raises(InvalidInput, match=message):
        eval_personal.read_fixture(_write(tmp_path, data))
    out = CliRunner().invoke(cli, ["eval", "personal", _write(tmp_path, data)])
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert out.output.startswith("Error: ") and message in out.output and len(out.output.splitlines()) == 1
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    out = CliRunner().invoke(cli, ["eval", "personal", str(broken)])
    assert out.exit_code == 1 and out.output.startswith("Error: ") and "not a personal fixture" in out.output


def test_packaged_fixture_meets_its_brief():
    personas = eval_personal.read_fixture()
    assert len(personas) >= 5 and [p["split"] for p in personas] == ["dev"] * 3 + ["heldout"] * 2
    assert any(p["user"].isdigit() for p in personas)
    messages = [m for p in personas for m in p["messages"]]
    for persona in personas:
        kinds = [m["kind"] for m in persona["messages"]]
        assert len(persona["memories"]) >= 20 and persona["display_name"]
        assert len(kinds) - kinds.count("unrelated") >= 8 and kinds.count("unrelated") >= 3
        assert {"direct", "implied"} <= set(kinds)
        assert all(m["id"].startswith(persona["key"] + ".") for m in persona["memories"] + persona["messages"])
    assert sum(m["kind"] != "unrelated" for m in messages) >= 40 and sum(m["kind"] == "unrelated"
                                                                         for m in messages) >= 20


@pytest.mark.parametrize(("fixture", "users"), [("personal_unseen.json", 3), ("personal_unseen_2.json", 4),
                                                ("personal_unseen_3.json", 4)])
def test_the_unseen_fixtures_are_valid_held_out_ones(fixture, users):
    """Fixtures written without sight of the engine or the others: held-out users, one with a numeric id."""
    personas = eval_personal.read_fixture(FIXTURES / fixture)
    assert [p["split"] for p in personas] == ["heldout"] * users and any(p["user"].isdigit() for p in personas)
    for persona in personas:
        kinds = [m["kind"] for m in persona["messages"]]
        assert len(persona["memories"]) >= 20 and kinds.count("unrelated") >= 5 and len(kinds) >= 20


def test_eval_personal_command_on_the_packaged_fixture():
    out = CliRunner().invoke(cli, ["eval", "personal", "--json", "--misses", "--embedding-model", HASH_MODEL_ID])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output.splitlines()[-1])
    personas = eval_personal.read_fixture()
    messages = [m for p in personas for m in p["messages"]]
    assert report["messages"] == len(messages) and report["personas"] == len(personas)
    assert report["fixture"].endswith("personal.json") and report["drained"] is False
    for split in ("overall", "dev", "heldout"):
        assert set(report[split]) == {"all", "direct", "implied", "unrelated"}
        assert set(report[split]["all"]) == {"messages", "answered", "packed", "precision",
                                             *eval_personal.WANTED_METRICS}
        assert set(report[split]["unrelated"]) == {"messages", "leaked", "leak_rate"}
    assert report["overall"]["direct"]["messages"] == sum(m["kind"] == "direct" for m in messages)
    assert report["dev"]["all"]["messages"] + report["heldout"]["all"]["messages"] == \
        report["overall"]["all"]["messages"]
    assert report["cross_user"]["probes"] == len(messages)
    assert report["cross_user"]["hits"] == 0 and report["cross_user"]["control_hits"] > 0
    questions = json.loads(eval_personal.GENERAL_QUESTIONS.read_text())  # each asked of every persona
    for group in eval_personal.GENERAL_GROUPS:
        general = report["general_questions"][group]
        assert general["asked"] == len(personas) * len(questions[group]) > 0
        assert len(general["found"]) == general["leaked"] <= general["asked"]
    misses = report["misses"]  # every wanted message not answered, and every leak: no more, no fewer
    assert all({"id", "text", "wanted", "got", "ranked", "miss_reason"} <= set(row) for row in misses)
    assert sum(not row["leaked"] for row in misses) == \
        report["overall"]["all"]["messages"] - report["overall"]["all"]["answered"]
    assert sum(row["leaked"] for row in misses) == report["overall"]["unrelated"]["leaked"]
    text = CliRunner().invoke(cli, ["eval", "personal", "--embedding-model", HASH_MODEL_ID])
    assert text.exit_code == 0 and "cross-user hits: 0 over" in text.output and "hit@3" in text.output


def test_the_before_and_after_feedback_figure(tmp_path):
    """A memory ranked first for a message that wanted another is called unhelpful once; the figure counts it,
    ranks every message again, and no lifecycle moves."""
    fixture = {"personas": [
        {"key": "a", "user": "ada", "split": "dev", "memories": [
            {"id": "a.old", "content": "Which car Ada has: her old car, a blue Fiat car she sold, was the car she had"},
            {"id": "a.new", "content": "Ada has a red Volvo"}],
         "messages": [{"id": "a.q1", "kind": "direct", "text": "which car does Ada have", "wanted": ["a.new"]},
                      {"id": "a.u1", "kind": "unrelated", "text": "capital of Peru", "wanted": []}]},
        {"key": "b", "user": "bo", "split": "heldout", "memories": [{"id": "b.m1", "content": "Bo keeps bees"}],
         "messages": [{"id": "b.q1", "kind": "direct", "text": "bees", "wanted": ["b.m1"]}]}]}
    report = personal(_write(tmp_path, fixture), model=HASH_MODEL_ID)
    effect = report["feedback"]
    assert effect["messages"] == 2 and effect["marked_unhelpful"] == 1 and effect["unwanted_first_before"] == 1
    assert effect["wanted_first_before"] == 1 and effect["lifecycles_changed"] == 0  # b.q1 is the control
    assert effect["unwanted_first_after"] <= effect["unwanted_first_before"]
    assert "feedback: 1 memories ranked first but unwanted" in eval_personal.table(report)


def test_typos_give_each_message_one_and_the_report_says_so(tmp_path, monkeypatch):
    """``--typos`` swaps the middle letters of each message's longest known word; a message without one is kept."""
    assert eval_personal.with_typo("how old is my daughter") == "how old is my dauhgter"
    assert eval_personal.with_typo("where is the theremin?") == "where is the theremin?"  # control: no known word
    assert eval_personal.with_typo("capital of Peru") == "caiptal of Peru"
    asked, probe = [], eval_personal.probe
    monkeypatch.setattr(eval_personal, "probe", lambda db, view, text: asked.append(text) or probe(db, view, text))
    report = personal(_write(tmp_path, TINY), model=HASH_MODEL_ID, typos=True)
    assert report["typos"] and report["messages"] == 5
    assert {"theremin", "what shuold Pistachio eat?", "caiptal of Peru"} <= set(asked)
    assert "what should Pistachio eat?" not in asked and "capital of Peru" not in asked


def test_several_fixtures_print_a_line_each_and_their_total(tmp_path):
    """The total counts every message of every file, as one fixture holding them all would; measured in two
    processes it is what one process measures."""
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    other = json.loads(json.dumps(TINY))
    other["personas"] = other["personas"][:1]
    paths = [_write(tmp_path / "a", TINY), _write(tmp_path / "b", other)]
    one, two = (personal(path, drain=True, model=HASH_MODEL_ID) for path in paths)
    serial = eval_personal.many(paths, drain=True, model=HASH_MODEL_ID)
    total = serial["total"]
    assert (total["fixtures"], total["personas"], total["messages"]) == (2, 3, 8)
    for kind in ("all", "direct", "implied"):
        assert total["overall"][kind]["answered"] == one["overall"][kind]["answered"] + \
            two["overall"][kind]["answered"]
    assert total["overall"]["unrelated"]["leaked"] == \
        one["overall"]["unrelated"]["leaked"] + two["overall"]["unrelated"]["leaked"]
    assert total["cross_user"]["probes"] == one["cross_user"]["probes"] + two["cross_user"]["probes"] == 5
    assert total["cross_user"]["hits"] == 0 and total["cross_user"]["control_hits"] > 0
    assert [r["overall"] for r in serial["reports"]] == [one["overall"], two["overall"]]
    out = CliRunner().invoke(cli, ["eval", "personal", *paths, "--jobs", "2", "--drain", "--json",
                                   "--embedding-model", HASH_MODEL_ID])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output.splitlines()[-1])["total"] == total
    text = CliRunner().invoke(cli, ["eval", "personal", *paths, "--drain", "--embedding-model", HASH_MODEL_ID])
    lines = text.output.splitlines()
    assert "2 fixtures, 3 personas" in lines[0]
    assert [line.split()[0] for line in lines[1:4]] == ["fixture.json", "fixture.json", "total"]
    assert f"hit@3 {total['overall']['all']['answered']:>5}/5" in lines[3]
