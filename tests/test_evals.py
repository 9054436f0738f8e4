import copy
import json

from click.testing import CliRunner

from scope_recall_bench import evals
from scope_recall_engine.cli.main import cli

TINY_LOCOMO = [{
    "sample_id": "tiny-1",
    "conversation": {
        "speaker_a": "Ana", "speaker_b": "Ben",
        "session_1_date_time": "1 May 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey kitten called Pixel last week!"},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Congrats! I started learning the cello."},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "My sister lives in Porto.",
             "blip_caption": "a photo of a bridge over a river"},
        ],
        "session_2_date_time": "8 May 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "My cello teacher is strict but kind."},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Pixel knocked my coffee over this morning."},
        ],
    },
    "qa": [
        {"question": "What is the name of Ana's kitten?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
        {"question": "Which instrument is Ben learning?", "answer": "cello", "evidence": ["D1:2; D2:1"],
         "category": 1},
        {"question": "Where does Ana's sister live?", "answer": "Porto", "evidence": ["D1:3"], "category": 4},
        {"question": "What did Ben say about Paris?", "answer": "nothing", "evidence": [], "category": 5},
    ],
}]


def test_eval_locomo_reports_both_retrievers_and_writes_ranks(tmp_path):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(TINY_LOCOMO))
    ranks = tmp_path / "ranks.jsonl"
    out = CliRunner().invoke(cli, ["eval", "locomo", str(data), "--ranks", str(ranks), "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output.splitlines()[-1])
    for name in ("product", "bm25"):
        assert report[name]["overall"]["questions"] == 3  # category 5 and evidence-less questions are skipped
        assert set(report[name]["by_category"]) == {"1", "2", "3", "4"}
        assert {f"any@{k}" for k in evals.KS} <= set(report[name]["overall"])
    assert report["product"]["overall"]["any@1"] == 100.0
    lines = [json.loads(line) for line in ranks.read_text().splitlines()]
    assert [line["question"] for line in lines] == [qa["question"] for qa in TINY_LOCOMO[0]["qa"][:3]]
    assert all(len(line["ranked"]) == 5 and line["sample_id"] == "tiny-1" for line in lines)
    assert lines[0]["ranked"][0] == "D1:1"


def test_turn_text_carries_speaker_and_caption():
    turn = TINY_LOCOMO[0]["conversation"]["session_1"][2]
    assert evals.turn_text(turn) == "Ana: My sister lives in Porto. (image: a photo of a bridge over a river)"
    assert evals.evidence_of({"evidence": ["D8:6; D9:17", "D1:2"]}) == {"D8:6", "D9:17", "D1:2"}


def test_eval_negative_passes_and_compares_field_by_field():
    out = CliRunner().invoke(cli, ["eval", "negative", "--json"])
    summary = json.loads(out.output.splitlines()[-1])
    assert out.exit_code == 0 and summary["ok"], summary["problems"]
    assert summary["positives"] >= 10 and summary["negatives"] >= 15
    expected = json.loads((evals.FIXTURES / "negative_expected.json").read_text(encoding="utf-8"))
    assert evals.compare(copy.deepcopy(expected), expected) == []
    drifted = copy.deepcopy(expected)
    drifted["negatives"][0]["miss_reason"] = "gated"
    assert evals.compare(drifted, expected)  # any field that changes is reported
    empty = copy.deepcopy(expected)
    for probe in empty["positives"]:
        probe.update(in_top3=False, recalled=False)
    assert evals.compare(empty, empty)  # an empty result fails the rule even against itself
