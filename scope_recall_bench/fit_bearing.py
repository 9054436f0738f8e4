"""``scope-recall bench fit-bearing``: fit the probe of how much a memory bears on a message
(``scope_recall_engine/companion/bearing.py``) on the personal fixtures, and write it where the engine reads it.

Every message that wants a memory (direct or implied) is paired with each memory of its user: a pair is positive
when the message wants that memory. The features are the elementwise product of the message's query vector and
the memory's stored vector (a reweighting of their cosine), and the products of their coordinates along the
training memories' first ``--rank`` principal directions (``bearing.features``). The files ``fit-resting`` holds out are
held out here too, and KEPT_OUT besides; so that a change can be judged before it ships, the command prints how
often a wanted memory is among each message's first three on the cosine alone and on the probe alone, with the
training files left out a group at a time (FOLDS) and on the held-out files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from scope_recall_bench import eval_personal, fit_resting
from scope_recall_engine import config as settings
from scope_recall_engine.cli.options import emit, json_option
from scope_recall_engine.companion import bearing, dense, embedders, probes, reference

if TYPE_CHECKING:
    import numpy as np

FOLDS = 6  # groups of training files left out in turn (one file at a time would fit 30 probes of 50,000 pairs)
SHOWN = 3  # a wanted memory among the first three: what the recall packet shows
KEPT_OUT = tuple(f"personal_unseen_{number}" for number in range(41, 143))  # the batches since stop 35, which the
# resting probe learns from: the shipped bearing probe was fitted on the 41 files before them. Fitted on 41 to 50 too
# (stop 37), it took LoCoMo's any@5 from 69.9 to 69.5, under its floor; on 1 to 110 (stop 48), alone it put a wanted
# memory among the first three for 87.7% of 111 to 118's 416 messages (84.6% for the shipped one), but at
# BEARING_WEIGHT 3 LoCoMo's any@5 fell to 68.2; on 1 to 122 (stop 49), 82.7% of 123 to 126's 208 messages, which
# no probe was fitted on, against 82.2% for the shipped one (the cosine alone 75.5%): kept


def held_out_files() -> list[str]:
    """``fit-resting``'s held-out files and KEPT_OUT, those that exist."""
    return [name for name in sorted(set(fit_resting.HELD_OUT) | set(KEPT_OUT))
            if (fit_resting.FIXTURES / f"{name}.json").exists()]


def pairs(model_id: str, names: list[str]):
    """(query vectors, memory vectors, wanted, file, message number) of every pair of a message that wants a memory
    and a memory of its user, in the named fixtures."""
    import numpy as np

    messages, memories, groups, wanted = [], [], [], []  # groups: (file, the user's first memory, how many)
    for name in names:
        for persona in eval_personal.read_fixture(fit_resting.FIXTURES / f"{name}.json"):
            first = len(memories)
            memories += [memory["content"] for memory in persona["memories"]]
            for message in (m for m in persona["messages"] if m["wanted"]):
                messages.append(message["text"])
                groups.append((name, first, len(persona["memories"])))
                wanted += [memory["id"] in message["wanted"] for memory in persona["memories"]]
    counts = [count for _, _, count in groups]
    queries = dense.query_vectors(model_id, messages).T
    stored = reference.unit_rows(np.asarray(embedders.embed_passages(embedders.get_model(model_id), memories),
                                            np.float32))
    numbers = np.repeat(np.arange(len(groups)), counts)
    rows = np.concatenate([np.arange(first, first + count) for _, first, count in groups])
    files = np.repeat([name for name, _, _ in groups], counts)
    return queries[numbers], stored[rows], np.asarray(wanted), files, numbers


def principal_directions(memories: "np.ndarray", rank: int) -> "np.ndarray | None":
    """The first ``rank`` principal directions of the (distinct) memory vectors; None for rank 0."""
    import numpy as np

    if not rank:
        return None
    distinct = np.unique(memories, axis=0)
    return np.linalg.svd(distinct - distinct.mean(axis=0), full_matrices=False)[2][:rank]


def fitted(queries, memories, labels, penalty: float, rank: int) -> probes.Probe:
    """The probe fitted on these pairs, its low-rank term along their memories' principal directions."""
    basis = principal_directions(memories, rank)
    weights, bias = probes.fit(bearing.features(queries, memories, basis), labels, penalty)
    dimensions = queries.shape[1]
    cross = None if basis is None else weights[dimensions:].reshape(len(basis), len(basis))
    return probes.Probe(weights[:dimensions], bias, basis, cross)


def scored(probe: probes.Probe, queries, memories):
    """Each pair's bearing under ``probe`` (less its bias), as a search computes it."""
    return (memories * bearing.through(probe, queries)).sum(axis=1)


def shown(scores, wanted, numbers) -> float:
    """The share of messages with a wanted memory among their first SHOWN by ``scores``, in percent."""
    import numpy as np

    found = [wanted[numbers == number][np.argsort(-scores[numbers == number])[:SHOWN]].any()
             for number in np.unique(numbers)]
    return round(100 * float(np.mean(found)), 1) if found else 0.0


def run(model_id: str, penalty: float, rank: int) -> dict:
    import numpy as np

    held_out = held_out_files()
    names = fit_resting.training_files(tuple(held_out))
    queries, memories, wanted, files, numbers = pairs(model_id, names + held_out)
    training, labels, cosine = ~np.isin(files, held_out), wanted.astype(float), (queries * memories).sum(axis=1)
    left_out = np.zeros(len(wanted))
    for fold in (names[start::FOLDS] for start in range(FOLDS)):
        rows = np.isin(files, fold)
        fitting = training & ~rows
        if rows.any() and fitting.any():
            probe = fitted(queries[fitting], memories[fitting], labels[fitting], penalty, rank)
            left_out[rows] = scored(probe, queries[rows], memories[rows])
    probe = fitted(queries[training], memories[training], labels[training], penalty, rank)
    written = probes.write(bearing.NAME, model_id, probe, penalty=penalty, rank=rank, fitted_on=names,
                           held_out=held_out)
    held = ~training
    return {"model": model_id, "written": str(written), "files": len(names), "held_out": held_out,
            "messages": len(np.unique(numbers[training])), "pairs": int(training.sum()),
            "shown_cosine_left_out": shown(cosine[training], wanted[training], numbers[training]),
            "shown_bearing_left_out": shown(left_out[training], wanted[training], numbers[training]),
            "shown_cosine_held_out": shown(cosine[held], wanted[held], numbers[held]),
            "shown_bearing_held_out": shown(scored(probe, queries[held], memories[held]), wanted[held],
                                            numbers[held])}


@click.command(name="fit-bearing")
@click.option("--model", default=settings.DEFAULT_EMBEDDING_MODEL, show_default=True, help="Embedding model id.")
@click.option("--penalty", default=bearing.PENALTY, show_default=True, type=click.FloatRange(0, min_open=True))
@click.option("--rank", default=bearing.RANK, show_default=True, type=click.IntRange(0),
              help="Principal directions of the low-rank term (0: the diagonal alone).")
@json_option
def fit_bearing_command(model, penalty, rank, as_json):
    """Fit the probe of how much a memory bears on a message and write it into the engine's reference data."""
    report = run(model, penalty, rank)
    emit(report, as_json, f"{report['pairs']} pairs of {report['messages']} messages of {report['files']} files, "
                          f"model {report['model']}\na wanted memory among the first {SHOWN}, cosine / probe:\n"
                          f"  training files left out {FOLDS} groups at a time: {report['shown_cosine_left_out']} / "
                          f"{report['shown_bearing_left_out']}\n  held-out files ({', '.join(report['held_out'])}): "
                          f"{report['shown_cosine_held_out']} / {report['shown_bearing_held_out']}\n"
                          f"written: {report['written']}")
