"""``scope-recall bench fit-resting``: fit the probe of whether a message rests on the user
(``scope_recall_engine/companion/resting.py``) on the personal fixtures' labelled messages, and write it, with those
messages' vectors and labels for its vote of nearest examples, where the engine reads them.

A direct question or an implied need rests on the user; an unrelated message, and every general question
(``general_questions.json``), does not. The files in HELD_OUT measure the probe (``eval personal``) and are never
fitted on; so that a change of the probe can be judged before it ships, the command prints the area under the ROC
curve with each training file left out in turn, and on the held-out files.
"""

from __future__ import annotations

import json

import click

from scope_recall_bench import eval_personal
from scope_recall_bench.evals import FIXTURES
from scope_recall_engine import config as settings
from scope_recall_engine.cli.options import emit, json_option
from scope_recall_engine.companion import dense, probes, resting

HELD_OUT = tuple(f"personal_unseen_{number}" for number in range(143, 173))  # written at stops 51 to 57, first
# measured on arrival; every earlier batch is fitted on (123 to 142 from stop 53, 111 to 122 from 49, 56 to 110 from
# 47, 51 to 55 from 38)


def training_files(held_out: tuple[str, ...] | None = None) -> list[str]:
    """Every personal fixture but the held-out ones (HELD_OUT unless named), by name."""
    held_out = HELD_OUT if held_out is None else held_out
    return sorted(path.stem for path in FIXTURES.glob("personal*.json") if path.stem not in held_out)


def labelled(names: list[str]) -> list[tuple[str, str, bool]]:
    """(file, message, rests on the user) for every message of the named fixtures."""
    return [(name, message["text"], message["kind"] != "unrelated")
            for name in names for persona in eval_personal.read_fixture(FIXTURES / f"{name}.json")
            for message in persona["messages"]]


def area_under_curve(scores, labels) -> float:
    """The chance that a message resting on the user scores above one that does not (ties count half)."""
    import numpy as np

    scores, labels = np.asarray(scores), np.asarray(labels, bool)
    above = scores[labels][:, None] - scores[~labels][None, :]
    return float((above > 0).mean() + 0.5 * (above == 0).mean())


def run(model_id: str, penalty: float) -> dict:
    import numpy as np

    names, held = training_files(), [name for name in HELD_OUT if (FIXTURES / f"{name}.json").exists()]
    training, held_out = labelled(names), labelled(held)
    general = json.loads(eval_personal.GENERAL_QUESTIONS.read_text(encoding="utf-8"))
    asked = [text for group in eval_personal.GENERAL_GROUPS for text in general[group]]
    texts = [text for _, text, _ in training + held_out] + asked
    vectors = dense.query_vectors(model_id, texts).T.astype(np.float64)
    fitted, tested = vectors[:len(training)], vectors[len(training):len(training) + len(held_out)]
    always = vectors[len(training) + len(held_out):]  # general questions: negatives in every fit
    files = np.array([name for name, _, _ in training])
    labels = np.array([rests for _, _, rests in training], float)

    def probe(rows):
        """The probe and its examples with only ``rows`` of the training messages known."""
        examples = (np.vstack([fitted[rows], always]), np.r_[labels[rows], np.zeros(len(always))])
        return probes.Probe(*probes.fit(*examples, penalty)), examples

    line_left_out, left_out = np.zeros(len(training)), np.zeros(len(training))
    for name in names:
        found, examples = probe(files != name)
        line_left_out[files == name] = resting.line(found, fitted[files == name])
        left_out[files == name] = resting.blended(found, *examples, fitted[files == name])
    found, examples = probe(np.ones(len(training), bool))
    line_held_out, held_out_probability = resting.line(found, tested), resting.blended(found, *examples, tested)
    shipped = probes.write(resting.NAME, model_id, found, penalty=penalty, fitted_on=names, held_out=held)
    probes.write_examples(resting.NAME, model_id, *examples)
    resting_held_out = [rests for _, _, rests in held_out]
    return {"model": model_id, "written": str(shipped), "files": len(names), "held_out": held,
            "messages": len(training),
            "resting": int(labels.sum()), "general_questions": len(asked),
            "auc_file_left_out": round(area_under_curve(left_out, labels), 4),
            "auc_held_out": round(area_under_curve(held_out_probability, resting_held_out), 4),
            "auc_file_left_out_line_alone": round(area_under_curve(line_left_out, labels), 4),
            "auc_held_out_line_alone": round(area_under_curve(line_held_out, resting_held_out), 4)}


@click.command(name="fit-resting")
@click.option("--model", default=settings.DEFAULT_EMBEDDING_MODEL, show_default=True, help="Embedding model id.")
@click.option("--penalty", default=resting.PENALTY, show_default=True, type=click.FloatRange(0, min_open=True))
@json_option
def fit_resting_command(model, penalty, as_json):
    """Fit the probe of whether a message rests on the user and write it into the engine's reference data."""
    report = run(model, penalty)
    emit(report, as_json, f"{report['messages']} messages of {report['files']} files ({report['resting']} resting "
                          f"on the user) and {report['general_questions']} general questions, model "
                          f"{report['model']}\nAUC, each file left out in turn: {report['auc_file_left_out']:.4f} "
                          f"(the fitted line alone: {report['auc_file_left_out_line_alone']:.4f})\n"
                          f"AUC on the held-out files ({', '.join(report['held_out'])}): {report['auc_held_out']:.4f} "
                          f"(the line alone: {report['auc_held_out_line_alone']:.4f})\n"
                          f"written: {report['written']}")
