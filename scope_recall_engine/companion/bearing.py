"""How much a memory bears on a message, learned: a logistic probe over the elementwise product of the message's
vector and the memory's (a diagonal metric), fitted on the personal fixtures' pairs of a later message and one of
its user's memories, labelled by whether the message wants it.

e5's cosine weighs every dimension alike; what makes a fact matter to a message ("plan a dinner for eight" and
"vegetarian", "insurance form asks what year my van" and "drives a 2019 Toyota Sienna") lives in some dimensions
more than in others. The probe reweighs them: a search multiplies its query vector by the weights once, and each
row then costs one dot product, like its cosine. Recall measures that score against the fixed reference population
and adds it to a candidate's ranking evidence, never to its relevance: it orders what abstention admits and moves
no floor (``reading/retrieval.py``). It ships for the default model (``reference/bearing-<model>.json``,
``probes.py``), written by ``scope-recall bench fit-bearing``; for any other model, or when the file is missing or
corrupt, ranking goes on without it and ``doctor`` says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scope_recall_engine.companion import probes

if TYPE_CHECKING:
    import numpy as np

NAME = "bearing"
PENALTY = 100.0  # L2 on the standardized weights (``bench fit-bearing`` prints the ranking it gives, files left out)


def weighed(model_id: str, vector: "np.ndarray") -> "np.ndarray | None":
    """The message's unit query vector times the probe's weights: a row's bearing is its vector's product with
    this (the bias is the same for every row, so ranking leaves it out); None without a probe."""
    found = probes.read(NAME, model_id)
    if found is None or found[0].shape != vector.shape:
        return None
    return vector * found[0]
