"""Whether answering a message rests on the user's own life, as a probability: a logistic probe over the
message's vector, fitted on labelled messages ("suggest something quick for dinner" of someone vegetarian rests
on them; "why must insulin stay in the fridge?" of a pharmacist does not).

The rules of ``reading/intent.py`` and the placement among kinds of need (``needs.place``) read a message by its
shape and by its nearness to a few dozen examples; the probe reads its whole vector and was fitted on every
message of the personal fixtures, so recall lets it decide where it is sure and the rules decide where it is not
(``reading/retrieval.py``). It ships for the default model (``reference/resting-<model>.json``, ``probes.py``),
written by ``scope-recall bench fit-resting``; for any other model, or when the file is missing or corrupt, the
rules decide alone and ``doctor`` says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scope_recall_engine.companion import probes

if TYPE_CHECKING:
    import numpy as np

NAME = "resting"
PENALTY = 100.0  # L2 on the standardized weights: held-out fixtures placed best with it (``bench fit-resting``)


def probability(model_id: str, vector: "np.ndarray") -> float | None:
    """How likely answering the message (its unit query vector) rests on the user; None without a probe."""
    import numpy as np

    found = probes.read(NAME, model_id)
    if found is None or found.weights.shape != vector.shape:
        return None
    return float(1.0 / (1.0 + np.exp(-(float(vector @ found.weights) + found.bias))))
