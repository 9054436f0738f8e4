"""How much a memory bears on a message, learned: a logistic probe over a bilinear form of the message's vector and the
memory's, fitted on the personal fixtures' pairs of a later message and one of its user's memories, labelled by
whether the message wants it.

e5's cosine weighs every dimension alike and pairs each only with itself; what makes a fact matter to a message
("plan a dinner for eight" and "vegetarian", "a nice pudding for sunday lunch" and "type 2 diabetes") lives in some
dimensions more than in others, and in one text's direction meeting another's. The form is a diagonal (the
elementwise product of the two vectors: a reweighed cosine) plus a low-rank term: the products of the two texts'
coordinates along RANK principal directions of the training memories, each pair of directions with a weight of its
own. Both fold into one matrix, so a search turns its query vector into a single weighed vector once and each row
then costs one dot product, like its cosine (files left out, stop 36: a wanted memory among the first three for
82.4% of messages with the diagonal alone, 89.6% with the low-rank term; ``bench fit-bearing``). Recall measures
that score against the fixed reference population and adds it to a candidate's ranking evidence, never to its
relevance: it orders what abstention admits and moves no floor (``reading/retrieval.py``). Its log-odds (with the
bias, ``bias``), weighed with the resting probe's, are also the chance a message wants a memory, which must reach a
floor of its own where that probe judges the message (``retrieval.wanted``). It ships for the default
model (``reference/bearing-<model>.json``, ``probes.py``), written by ``scope-recall bench fit-bearing``; for any
other model, or when the file is missing or corrupt, ranking goes on without it and ``doctor`` says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scope_recall_engine.companion import probes

if TYPE_CHECKING:
    import numpy as np

NAME = "bearing"
PENALTY = 1000.0  # L2 on the standardized weights (``bench fit-bearing`` prints the ranking it gives, files left out)
RANK = 32  # principal directions of the low-rank term (16: 88.0%, 24: 89.2%, 48: 89.9% with files left out)


def weighed(model_id: str, vector: "np.ndarray") -> "np.ndarray | None":
    """The message's unit query vector through the probe's matrix: a row's bearing is its vector's product with
    this (the bias is the same for every row, so ranking leaves it out); None without a probe."""
    found = probes.read(NAME, model_id)
    if found is None or found.weights.shape != vector.shape:
        return None
    return through(found, vector)


def bias(model_id: str) -> float:
    """The probe's bias: a row's bearing plus it is the log-odds that the message wants the row."""
    found = probes.read(NAME, model_id)
    return 0.0 if found is None else found.bias


def through(probe: probes.Probe, vectors: "np.ndarray") -> "np.ndarray":
    """Query vectors (one, or one per row) through the probe's matrix: the diagonal, plus the low-rank term."""
    weighed = vectors * probe.weights
    if probe.basis is not None:
        weighed = weighed + ((vectors @ probe.basis.T) @ probe.cross) @ probe.basis
    return weighed


def features(queries: "np.ndarray", memories: "np.ndarray", basis: "np.ndarray | None") -> "np.ndarray":
    """One row per pair of a query vector and a memory vector: their elementwise product, then the products of
    their coordinates along ``basis`` (the query's i-th by the memory's j-th, i major), as ``weighed`` reads them."""
    import numpy as np

    products = queries * memories
    if basis is None:
        return products
    along_query, along_memory = queries @ basis.T, memories @ basis.T
    pairs = (along_query[:, :, None] * along_memory[:, None, :]).reshape(len(queries), -1)
    return np.hstack([products, pairs])
