"""Whether answering a message rests on the user's own life, as a probability: a logistic probe over the
message's vector, fitted on labelled messages ("suggest something quick for dinner" of someone vegetarian rests
on them; "why must insulin stay in the fridge?" of a pharmacist does not).

The rules of ``reading/intent.py`` and the placement among kinds of need (``needs.place``) read a message by its
shape and by its nearness to a few dozen examples; the probe reads its whole vector and was fitted on every
message of the personal fixtures, so recall lets it decide where it is sure and the rules decide where it is not
(``reading/retrieval.py``). A line through the space is one view: messages of one shape ("who scored most for
Galatasaray?", "what do I pay for three at 15% off?") sit in pockets of it, so the probability is the mean of the
fitted line's and of a vote of the message's nearest labelled examples (it misorders about half as many pairs of
a message resting on the user and one that does not, with each fixture file left out: ``bench fit-resting``).
It ships for the default model (``reference/resting-<model>.json`` and ``resting-examples-<model>.npz``,
``probes.py``), written by ``scope-recall bench fit-resting``; for any other model, or when a file is missing or
corrupt, the rules decide alone and ``doctor`` says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scope_recall_engine.companion import probes

if TYPE_CHECKING:
    import numpy as np

NAME = "resting"
PENALTY = 100.0  # L2 on the standardized weights: held-out fixtures placed best with it (``bench fit-resting``)
NEIGHBOURS = 20  # labelled examples that vote, the nearest by cosine ...
WARMTH = 0.05  # ... each weighed by exp(cosine / WARMTH): the nearest count most (chosen with files left out)


def probability(model_id: str, vector: "np.ndarray") -> float | None:
    """How likely answering the message (its unit query vector) rests on the user; None without a probe."""
    found, known = probes.read(NAME, model_id), probes.examples(NAME, model_id)
    if found is None or known is None or found.weights.shape != vector.shape or known[0].shape[1:] != vector.shape:
        return None
    return float(blended(found, *known, vector[None, :])[0])


def line(probe: probes.Probe, queries: "np.ndarray") -> "np.ndarray":
    """Each query's (one per row) probability on the fitted line alone."""
    import numpy as np

    return 1.0 / (1.0 + np.exp(-(queries @ probe.weights + probe.bias)))


def blended(probe: probes.Probe, vectors: "np.ndarray", labels: "np.ndarray", queries: "np.ndarray") -> "np.ndarray":
    """Each query's probability: the mean of the fitted line's and the examples' vote."""
    return 0.5 * line(probe, queries) + 0.5 * vote(vectors, labels, queries)


def vote(vectors: "np.ndarray", labels: "np.ndarray", queries: "np.ndarray") -> "np.ndarray":
    """Each query's (one per row) share of resting labels among its NEIGHBOURS nearest examples, nearer weighing
    more."""
    import numpy as np

    cosines = queries @ vectors.T
    count = min(NEIGHBOURS, vectors.shape[0])
    nearest = np.argpartition(-cosines, count - 1, axis=1)[:, :count]
    near = np.take_along_axis(cosines, nearest, axis=1)
    weights = np.exp((near - near.max(axis=1, keepdims=True)) / WARMTH)
    return (weights * labels[nearest]).sum(axis=1) / weights.sum(axis=1)


def shipped_ok(model_id: str) -> bool | None:
    """Whether the probe and its examples both load (None: neither ships for this model): for ``doctor``."""
    if not (probes.shipped(NAME, model_id).exists() or probes.examples_path(NAME, model_id).exists()):
        return None
    return probes.read(NAME, model_id) is not None and probes.examples(NAME, model_id) is not None
