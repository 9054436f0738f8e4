"""Whether answering a message rests on the user's own life, as a probability: a logistic probe over the
message's vector, fitted on labelled messages ("suggest something quick for dinner" of someone vegetarian rests
on them; "why must insulin stay in the fridge?" of a pharmacist does not).

The rules of ``reading/intent.py`` and the placement among kinds of need (``needs.place``) read a message by its
shape and by its nearness to a few dozen examples; the probe reads its whole vector and was fitted on every
message of the personal fixtures, so recall lets it decide where it is sure and the rules decide where it is not
(``reading/retrieval.py``). It ships for the default model (``reference/resting-<model>.json``), written by
``scope-recall bench fit-resting``; for any other model, or when the file is missing or corrupt, the rules decide
alone and ``doctor`` says why.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING

from scope_recall_engine.companion import reference

if TYPE_CHECKING:
    import numpy as np

PENALTY = 100.0  # L2 on the standardized weights: held-out fixtures placed best with it (``bench fit-resting``)
NEWTON_STEPS = 30


def shipped(model_id: str) -> Path:
    return reference.DATA / f"resting-{model_id}.json"


@functools.lru_cache(maxsize=8)
def probe(model_id: str) -> "tuple[np.ndarray, float] | None":
    """(weights, bias) over a unit query vector for this model; None when none ships or the file is corrupt."""
    import numpy as np

    try:
        stored = json.loads(shipped(model_id).read_text(encoding="utf-8"))
        weights, bias = np.asarray(stored["weights"], np.float32), float(stored["bias"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return (weights, bias) if weights.ndim == 1 and np.isfinite(weights).all() else None


def probability(model_id: str, vector: "np.ndarray") -> float | None:
    """How likely answering the message (its unit query vector) rests on the user; None without a probe."""
    import numpy as np

    found = probe(model_id)
    if found is None or found[0].shape != vector.shape:
        return None
    weights, bias = found
    return float(1.0 / (1.0 + np.exp(-(float(vector @ weights) + bias))))


def shipped_ok(model_id: str) -> bool | None:
    """Whether the shipped probe loads (None: none ships for this model): for ``doctor``."""
    return probe(model_id) is not None if shipped(model_id).exists() else None


def fit(vectors: "np.ndarray", labels: "np.ndarray", penalty: float = PENALTY) -> "tuple[np.ndarray, float]":
    """Logistic regression by Newton's method on standardized features, returned as (weights, bias) over the raw
    vectors, so a search pays one dot product."""
    import numpy as np

    mean, spread = vectors.mean(axis=0), vectors.std(axis=0) + 1e-6
    features = np.hstack([(vectors - mean) / spread, np.ones((len(vectors), 1))])
    weights = np.zeros(features.shape[1])
    ridge = penalty * np.eye(len(weights))
    ridge[-1, -1] = 0.0  # the bias is not shrunk
    for _ in range(NEWTON_STEPS):
        predicted = 1.0 / (1.0 + np.exp(-features @ weights))
        gradient = features.T @ (predicted - labels) + ridge @ weights
        hessian = (features * (predicted * (1 - predicted))[:, None]).T @ features + ridge
        weights -= np.linalg.solve(hessian, gradient)
    scaled = weights[:-1] / spread
    return scaled, float(weights[-1] - scaled @ mean)
