"""``scope-recall eval digest``: the matching rule, the rules extractor's figures on the packaged fixture (the
held-out split's targets), and a model measured through the same command."""

import json
import re

import llm
import pytest
from click.testing import CliRunner
from llm.plugins import pm

from scope_recall_bench import eval_digest
from scope_recall_bench.eval_digest import Label, Turn, judge, stem, terms
from scope_recall_engine.cli.main import cli
from scope_recall_engine.writing.extraction_model import EXTRACT_SYSTEM
from scope_recall_engine.writing.extraction_rules import RulesExtractor


def test_stems_meet_across_word_forms():
    pairs = [("allergic", "allergy"), ("works", "working"), ("replies", "reply"), ("writes", "writing"),
             ("lives", "living"), ("runs", "running"), ("peanuts", "peanut")]
    assert all(stem(a) == stem(b) for a, b in pairs)
    assert stem("vegan") != stem("vegetarian")


def test_the_matching_rule_wants_the_facts_terms_its_polarity_and_little_else():
    turn = Turn("dev", "p", 0, "user", "I'm not vegetarian anymore, I eat fish.", None,
                [Label("a", "diet", "The user is not vegetarian.", True),
                 Label("b", "diet", "The user eats fish.", False)])
    assert judge("The user is no longer a vegetarian.", [turn]) == ([turn.labels[0]], True)
    assert judge("The user is vegetarian.", [turn]) == ([], False)  # the opposite polarity states nothing
    assert judge("The user eats fish and enjoys sailing, hiking and opera.", [turn])[1] is False  # mostly noise
    assert judge("The user eats fish.", []) == ([], False)  # it must cite the labelled turn
    assert terms("The user doesn't like coffee") == terms("The user dislikes coffee.")
    assert terms("The user can't stand horror movies.") == terms("The user hates horror movies")


def measure(*args):
    result = CliRunner().invoke(cli, ["eval", "digest", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_rules_extractor_meets_its_targets_on_the_held_out_split():
    report = measure("--extractor", "rules")
    assert (report["extractor"], report["model"], set(report["splits"])) == ("rules", None, {"dev", "heldout"})
    held_out = report["splits"]["heldout"]
    assert held_out["overall"]["recall"] >= 80 and held_out["overall"]["precision"] >= 90, held_out["overall"]
    for kind in ("question", "hypothetical", "suggestion", "assistant", "secret", "joke", "other_opinion"):
        assert held_out["nothing"][kind]["turns"] > 0 and held_out["nothing"][kind]["yielded"] == 0, kind
    for split in report["splits"].values():  # a candidate for every allergy and diet statement, in both splits
        assert split["allergy_and_diet"]["found"] == split["allergy_and_diet"]["facts"] > 0
        assert split["updates"]["facts"] > 0 and set(split["updates"]["decisions"]) <= {"UPDATE", "SUPERSEDE"}
    assert report["secrets"] == 7 and report["secrets_on_disk"] == 0


def test_the_text_report_prints_the_matching_rule_and_the_misses(tmp_path):
    fixture = tmp_path / "tiny.json"
    fixture.write_text(json.dumps({"personas": [{"persona": "zoe", "split": "dev", "sessions": [[
        {"user": "I'm allergic to kiwi.", "facts": [["health", "The user is allergic to kiwi."]]},
        {"user": "Tuesdays are my gym days.", "facts": [["schedule", "The user goes to the gym on Tuesdays."]]},
        {"user": "What's a kiwi?", "none": "question"},
        {"user": "My locker combination is 31-17-09.", "none": "secret", "secret": "31-17-09"}]]}]}), encoding="utf-8")
    result = CliRunner().invoke(cli, ["eval", "digest", str(fixture), "--extractor", "rules", "--split", "dev"])
    assert result.exit_code == 0, result.output
    assert "matching: a candidate states a labelled fact when it cites the fact's turn" in result.output
    assert re.search(r"health\s+1\s+1\s+100\.0\s+1\s+1\s+100\.0", result.output)
    assert "miss [schedule] 'The user goes to the gym on Tuesdays.' <- 'Tuesdays are my gym days.'" in result.output
    assert "question 0/1" in result.output and "== heldout" not in result.output
    assert "secrets in the fixture: 1, found on disk after the run: 1" in result.output  # no rule knows lockers


class RulesEcho(llm.Model):
    """A stand-in chat model: extracts with the rules extractor and decides ADD every time."""

    model_id = "rules-echo"
    can_stream = False

    def execute(self, prompt, stream, response, conversation):
        if prompt.system != EXTRACT_SYSTEM:
            yield '{"decision": "ADD", "id": null, "reason": "new"}'
            return
        facts = []
        for entry_id, role, text in re.findall(r"^\[(\d+)\] (user|assistant): (.*)$", prompt.prompt, re.M):
            if role == "user":
                facts += [{"entries": [int(entry_id)], "target": fact.target, "key": fact.slot,
                           "content": fact.content} for fact in RulesExtractor.facts_in(text, int(entry_id))]
        yield json.dumps({"facts": facts})


@pytest.fixture
def rules_echo():
    class Plugin:
        __name__ = "RulesEchoPlugin"

        @llm.hookimpl
        def register_models(self, register):
            register(RulesEcho())

    pm.register(Plugin(), name="rules-echo-plugin")
    yield
    pm.unregister(name="rules-echo-plugin")


def test_a_model_is_measured_by_the_same_command_and_its_adds_of_changes_show(rules_echo):
    report = measure("--model", "rules-echo", "--split", "heldout")
    assert (report["extractor"], report["model"], list(report["splits"])) == ("llm", "rules-echo", ["heldout"])
    held_out = report["splits"]["heldout"]
    assert held_out["overall"]["recall"] >= 80  # the same facts as the rules extractor
    assert held_out["updates"]["decisions"] == {"ADD": held_out["updates"]["found"]}  # a second ADD, not a change
    assert eval_digest.render(report).count("== ") == 1
