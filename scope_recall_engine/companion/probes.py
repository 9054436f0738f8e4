"""Logistic probes over a model's vectors, shipped as reference data: how one is fitted, written and read back.

Two ship for the default model: ``resting`` (whether answering a message rests on the user, ``resting.py``) and
``bearing`` (how much a memory bears on a message, ``bearing.py``). Each is a file of weights and a bias written by
its ``scope-recall bench fit-*`` command, and the bearing probe a low-rank term besides (a basis and the weights of
the products of two texts' coordinates in it); a missing or corrupt file reads as None, the search goes on without
that probe, and ``doctor`` says why. A probe may ship the labelled examples it was fitted on beside it (their
vectors and labels, ``examples``), for a vote of a message's nearest ones (``resting.py``).
"""

from __future__ import annotations

import functools
import json
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from scope_recall_engine.companion import reference

if TYPE_CHECKING:
    import numpy as np

NEWTON_STEPS = 30


class Probe(NamedTuple):
    weights: "np.ndarray"
    bias: float
    basis: "np.ndarray | None" = None  # k x dimensions, unit rows: a subspace of the vectors ...
    cross: "np.ndarray | None" = None  # k x k: ... and the weight of each product of two texts' coordinates in it


def shipped(name: str, model_id: str) -> Path:
    return reference.DATA / f"{name}-{model_id}.json"


@functools.lru_cache(maxsize=8)
def read(name: str, model_id: str) -> Probe | None:
    """The named probe for this model; None when none ships or the file is corrupt."""
    import numpy as np

    try:
        stored = json.loads(shipped(name, model_id).read_text(encoding="utf-8"))
        found = Probe(np.asarray(stored["weights"], np.float32), float(stored["bias"]),
                      *(np.asarray(stored[key], np.float32) if key in stored else None for key in ("basis", "cross")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return found if _well_formed(found) else None


def _well_formed(probe: Probe) -> bool:
    import numpy as np

    if probe.weights.ndim != 1 or (probe.basis is None) != (probe.cross is None):
        return False
    arrays = [probe.weights]
    if probe.basis is not None:
        rank = probe.basis.shape[0] if probe.basis.ndim == 2 else -1
        if probe.basis.shape != (rank, len(probe.weights)) or probe.cross.shape != (rank, rank):
            return False
        arrays += [probe.basis, probe.cross]
    return all(np.isfinite(array).all() for array in arrays)


def shipped_ok(name: str, model_id: str) -> bool | None:
    """Whether the named probe loads (None: none ships for this model): for ``doctor``."""
    return read(name, model_id) is not None if shipped(name, model_id).exists() else None


def examples_path(name: str, model_id: str) -> Path:
    return shipped(name, model_id).with_name(f"{name}-examples-{model_id}.npz")


@functools.lru_cache(maxsize=4)
def examples(name: str, model_id: str) -> "tuple[np.ndarray, np.ndarray] | None":
    """The named probe's labelled examples (unit vectors, one per row, and a label in [0, 1] each); None when
    none ship or the file is corrupt."""
    import numpy as np

    try:
        with np.load(examples_path(name, model_id)) as stored:
            vectors, labels = stored["vectors"].astype(np.float32), stored["labels"].astype(np.float32)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    well_formed = (vectors.ndim == 2 and labels.shape == (len(vectors),) and len(vectors) > 0
                   and np.isfinite(vectors).all() and ((labels >= 0) & (labels <= 1)).all())
    return (vectors, labels) if well_formed else None


def write_examples(name: str, model_id: str, vectors: "np.ndarray", labels: "np.ndarray") -> Path:
    """The probe's labelled examples where the engine reads them (half precision: a vote needs no more)."""
    import numpy as np

    path = examples_path(name, model_id)
    with path.open("wb") as out:
        np.savez_compressed(out, vectors=np.asarray(vectors, np.float16), labels=np.asarray(labels, np.uint8))
    examples.cache_clear()
    return path


def write(name: str, model_id: str, probe: Probe, **about) -> Path:
    """The probe where the engine reads it, with what it was fitted on (``about``)."""
    path = shipped(name, model_id)
    arrays = {key: _rounded(getattr(probe, key)) for key in ("weights", "basis", "cross")
              if getattr(probe, key) is not None}
    path.write_text(json.dumps({"model": model_id, **about, **arrays, "bias": round(probe.bias, 6)}) + "\n",
                    encoding="utf-8")
    read.cache_clear()
    return path


def _rounded(array: "np.ndarray"):
    import numpy as np

    return np.round(np.asarray(array, np.float64), 6).tolist()


def fit(features: "np.ndarray", labels: "np.ndarray", penalty: float) -> "tuple[np.ndarray, float]":
    """Logistic regression by Newton's method on standardized features (L2 ``penalty`` on the standardized
    weights, the bias not shrunk), returned as (weights, bias) over the raw features, so a search pays one dot
    product."""
    import numpy as np

    mean, spread = features.mean(axis=0), features.std(axis=0) + 1e-6
    design = np.hstack([(features - mean) / spread, np.ones((len(features), 1))])
    weights = np.zeros(design.shape[1])
    ridge = penalty * np.eye(len(weights))
    ridge[-1, -1] = 0.0
    for _ in range(NEWTON_STEPS):
        predicted = 1.0 / (1.0 + np.exp(-design @ weights))
        gradient = design.T @ (predicted - labels) + ridge @ weights
        hessian = (design * (predicted * (1 - predicted))[:, None]).T @ design + ridge
        weights -= np.linalg.solve(hessian, gradient)
    scaled = weights[:-1] / spread
    return scaled, float(weights[-1] - scaled @ mean)
