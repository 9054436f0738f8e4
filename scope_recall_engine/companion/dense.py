"""The dense lane: every embedded row of the view's scopes scored against the query inside a time budget, the
best rows re-read from SQLite under ``VISIBLE`` with the same content hash before they count. A hit the
companion holds wrongly is dropped and marked for repair; a missing, corrupt or slow companion degrades the
search to its lexical lanes instead of failing it."""

from __future__ import annotations

import functools
import json
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from scope_recall_engine.companion import bearing, needs, reference, resting, vectors
from scope_recall_engine.truth.visibility import Hit, View, visible_rows

if TYPE_CHECKING:
    import numpy as np

CANDIDATES = 50  # best rows re-verified against truth
VECTOR_BUDGET_S = 0.5  # embedding + LanceDB; past it the vector lane is dropped and the result says degraded
CATCH_UP_ROWS = 32  # rows a search embeds itself when they wait in the outbox (read-your-writes): an import of
# a conversation's worth of memories is found by meaning at once (about 75 ms a row on one core)
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="vector-lane")
_EMBEDDING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="query-vector")  # beside the scopes' loading
_TERMS_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="latent-terms")  # beside the query's vector
_PRODUCTS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vector-products")  # half of a large scope's product
_READING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="query-reading")  # kinds of need, resting probe
SPLIT_ROWS = 20_000


@dataclass
class Part:
    """One scope's cached rows (``vectors.ScopeVectors``) and where they start among all scopes' rows."""

    offset: int
    scope_id: str
    rows: "vectors.ScopeVectors"


@dataclass
class DenseScores:
    """Every embedded row of the view's scopes scored against the query: the turn's cosine and the dense
    evidence D = cos(q, turn) + cos(q, turn with its context) (the context as the mean of both vectors), and the
    same D for every sentence of the fixed reference population (no context: D = 2·cos). Per-row facts (hash,
    scope, latent terms) stay in each scope's cached rows: a search builds no Python list as long as the scope
    (two such lists per query gave the garbage collector 100,000 references to walk at each pass)."""

    ids: "np.ndarray"
    parts: list[Part]
    similarity: "np.ndarray"
    dense: "np.ndarray"
    seen: "np.ndarray"  # rows whose lifecycle the view can see
    paired: "np.ndarray"  # rows scored with a context memory
    reference: dict[bool, "np.ndarray"]  # D of each reference sentence, alone (False) and paired with another
    query_terms: "np.ndarray | None" = None  # the query's latent terms over the whole feature space, if any
    reference_terms: "np.ndarray | None" = None  # each reference sentence's latent-term overlap with the query
    query_needs: "np.ndarray | None" = None  # how much the query falls in each kind of need (needs.py)
    sides: "needs.Sides | None" = None  # ... and the kinds' examples, to place a row among them
    reference_needs: "np.ndarray | None" = None  # each reference sentence's link to the query through its needs
    personal: float | None = None  # how much the query falls among the kinds of need, not general requests
    small_talk: bool = False  # whether it falls nearest small talk (``needs.place``)
    resting: float | None = None  # how likely answering it rests on the user (``resting.probability``)
    bearing: "np.ndarray | None" = None  # the query vector weighed by the bearing probe (``bearing.weighed``)
    reference_bearing: "np.ndarray | None" = None  # ... and each reference sentence's bearing on the query
    bearing_bias: float = 0.0  # the probe's bias: a row's bearing plus it is the log-odds the message wants the row
    every_request: "np.ndarray | None" = None  # the requests a row's hubness is measured against (needs.py)
    reference_hubness: "np.ndarray | None" = None  # ... and each reference sentence's

    def _place(self, memory_id: int) -> tuple[Part, int] | None:
        """(scope, row within that scope) of a memory id (each scope's map was built once, when it loaded)."""
        for part in self.parts:
            if (row := part.rows.position.get(memory_id)) is not None:
                return part, row
        return None

    def at(self, memory_id: int) -> int | None:
        """The row of a memory id among all scopes' rows."""
        place = self._place(memory_id)
        return None if place is None else place[0].offset + place[1]

    def held(self, memory_id: int) -> tuple[str, str] | None:
        """(content hash, scope id) the companion holds for a memory id."""
        place = self._place(memory_id)
        return None if place is None else (place[0].rows.hashes[place[1]], place[0].scope_id)

    def of(self, memory_id: int, content_hash: str) -> tuple[float, float, bool, float | None] | None:
        """(cosine, D, paired with a context memory, latent-term overlap or None) for a row, only if the companion
        holds the same text as truth."""
        place = self._place(memory_id)
        if place is None or place[0].rows.hashes[place[1]] != content_hash:
            return None
        at = place[0].offset + place[1]
        return float(self.similarity[at]), float(self.dense[at]), bool(self.paired[at]), self._terms(*place)

    def _terms(self, part: Part, row: int) -> float | None:
        """Computed for the few rows a search scores, not for every row of the scopes."""
        if self.query_terms is None or part.rows.terms is None:
            return None
        terms, weights = part.rows.terms[row:row + 1], part.rows.weights[row:row + 1]
        return float(reference.terms_similarity(self.query_terms, terms, weights)[0])

    def needs_of(self, memory_ids: list[int]) -> dict[int, float]:
        """The rows' links to the query through their kinds of need, in one product: asked by a search for the rows
        it scores, and only when the message rests on the user."""
        import numpy as np

        found = self._vectors(memory_ids)
        if not found or self.query_needs is None:
            return {}
        return dict(zip(found, (needs.memory_kinds(np.stack(list(found.values())), self.sides)
                                @ self.query_needs).tolist()))

    def bearing_of(self, memory_ids: list[int]) -> dict[int, float]:
        """How much each row bears on the query (``bearing.py``), for the rows a search scores, in one product."""
        import numpy as np

        found = self._vectors(memory_ids)
        if not found or self.bearing is None:
            return {}
        return dict(zip(found, (np.stack(list(found.values())) @ self.bearing).tolist()))

    def hubness_of(self, memory_ids: list[int]) -> dict[int, float]:
        """The rows' hubness (``needs.hubness``), for the rows a search scores, in one product."""
        import numpy as np

        found = self._vectors(memory_ids)
        if not found or self.every_request is None:
            return {}
        return dict(zip(found, needs.hubness(np.stack(list(found.values())), self.every_request).tolist()))

    def _vectors(self, memory_ids: list[int]) -> dict[int, "np.ndarray"]:
        return {memory_id: vector for memory_id in memory_ids if (vector := self._vector(memory_id)) is not None}

    def _vector(self, memory_id: int) -> "np.ndarray | None":
        place = self._place(memory_id)
        return None if place is None else place[0].rows.matrix[place[1]]


@dataclass
class VectorLane:
    model: str
    hits: dict[int, tuple[Hit, float]]  # verified best rows by D: the row from truth and its cosine
    scores: DenseScores


def query_latent_terms(model_id: str, query: str) -> "np.ndarray":
    """The query's latent terms as one vector over the whole feature space (terms thread, no SQLite)."""
    import numpy as np

    from scope_recall_engine.companion import embedders

    (features, weights), = embedders.latent_terms(embedders.get_model(model_id), [query])
    spread = np.zeros(embedders.TERMS_SPACE, np.float32)
    spread[features] = weights
    return spread


def query_vectors(model_id: str, queries: list[str]) -> "np.ndarray":
    """The query's wordings embedded, as unit columns (embedding thread, no SQLite)."""
    import numpy as np

    from scope_recall_engine.companion import embedders  # lazy: llm and the weights load on first use

    model = embedders.get_model(model_id)
    return reference.unit_rows(np.asarray([embedders.embed_query(model, query) for query in queries], np.float32)).T


def _score_scopes(directory, store, model_id: str, scopes: tuple[str, ...], query: Future, as_of: bool,
                  terms: Future | None = None) -> DenseScores:
    """Worker thread (no SQLite): while ``query`` is embedded (each wording; a row scores its best), find the
    scopes' cached rows (the companion's version is checked on disk); then score them and the reference, collect
    the query's latent terms from ``terms``, place the query among the kinds of need (and general requests), and
    score the reference on both (rows are scored on them lazily, see ``DenseScores.of``)."""
    import numpy as np

    space = reference.space(model_id, directory)
    parts, offset = [], 0
    for scope, rows in zip(scopes, vectors.view_vectors(directory, scopes, store)):
        parts.append(Part(offset, scope, rows))
        offset += len(rows.ids)
    q = query.result()
    reading = _READING.submit(_read_message, model_id, directory, q[:, 0])
    sims, dense, seen, paired = [], [], [], []
    for part in (part.rows for part in parts):
        similarity = _product(part.matrix, q)  # rows x wordings
        paired_similarity = (similarity + similarity[part.partner]) / part.context_norm[:, None]
        cosine, evidence = _best_wording(similarity, paired_similarity)
        sims.append(cosine)
        dense.append(evidence)
        seen.append(np.ones_like(part.active) if as_of else part.active)
        paired.append(part.paired)
    weighed = bearing.weighed(model_id, q[:, 0])
    products = space.alone @ (q if weighed is None else np.column_stack([q, weighed]))  # one pass over the reference
    alone = products[:, :q.shape[1]]
    population = {False: _best_wording(alone, alone)[1], True: _best_wording(alone, space.paired(alone))[1]}
    scores = DenseScores(_join([part.rows.ids for part in parts], np.int64), parts, _join(sims, np.float32),
                         _join(dense, np.float32), _join(seen, bool), _join(paired, bool), population)
    if terms is not None and space.terms is not None:
        scores.query_terms = terms.result()
        scores.reference_terms = reference.terms_similarity(scores.query_terms, space.terms, space.weights)
    kinds, (scores.query_needs, scores.personal, scores.small_talk), scores.resting = reading.result()
    scores.sides, scores.every_request = kinds.sides, kinds.every_request
    scores.reference_hubness = kinds.reference_hubness
    scores.reference_needs = kinds.reference_kinds @ scores.query_needs
    scores.bearing = weighed
    if weighed is not None:
        scores.reference_bearing, scores.bearing_bias = products[:, -1], bearing.bias(model_id)
    return scores


def _read_message(model_id: str, directory, query: "np.ndarray") -> tuple:
    """The query (its first wording's unit vector) among the kinds of need, and how likely it rests on the user: on
    a thread of its own, beside the scoring of the rows and the reference (each reads arrays that the query's
    embedding has just pushed out of the cache)."""
    kinds = needs.prototypes(model_id, directory)
    return kinds, needs.place(query, kinds.sides, kinds.every_request), resting.probability(model_id, query)


def _join(arrays: list, kind) -> "np.ndarray":
    """The scopes' arrays end to end; when one scope holds every row (a view's other scope is often empty), its
    own array, not a copy (read only: a copy of 100,000 rows is not free)."""
    import numpy as np

    filled = [array for array in arrays if len(array)]
    return filled[0] if len(filled) == 1 else np.concatenate(filled) if filled else np.zeros(0, dtype=kind)


def _best_wording(alone: "np.ndarray", paired: "np.ndarray") -> tuple["np.ndarray", "np.ndarray"]:
    """Per row (rows x wordings), the wording that scores it best: its cosine alone and D = alone + paired."""
    import numpy as np

    scored = alone + paired
    if scored.shape[1] == 1:
        return alone[:, 0], scored[:, 0]
    best, rows = scored.argmax(axis=1), np.arange(len(scored))
    return alone[rows, best], scored[rows, best]


def _product(matrix: "np.ndarray", q: "np.ndarray") -> "np.ndarray":
    """``matrix @ q``; a large scope's rows are split with a second thread (the product reads every vector, so
    one core's memory bandwidth bounds it: 12 ms for 100,000 rows here, 6 ms in two halves). By then the caller's
    lexical lanes are done and its thread only waits for this one."""
    import numpy as np

    if len(matrix) < SPLIT_ROWS:
        return matrix @ q
    half = len(matrix) // 2
    other = _PRODUCTS.submit(np.matmul, matrix[half:], q)
    return np.concatenate([matrix[:half] @ q, other.result()])


_WARMED: set[tuple[str, str]] = set()
_WARMING: dict[tuple[str, str], threading.Event] = {}  # set once a background warm-up has finished
_WARM_LOCK = threading.Lock()


def _warm(directory, model_id: str) -> None:
    """Import LanceDB, load the weights and the reference once per process, outside the budget: a cold start is
    not a slow index."""
    from scope_recall_engine.companion import embedders

    key = (str(directory), model_id)
    if key in _WARMED:
        return
    with _WARM_LOCK:  # a session's warm-up thread and a turn never load the same weights twice
        if key not in _WARMED:
            _one_blas_thread()
            embedders.embed_query(embedders.get_model(model_id), "warm up")
            vectors.connect_dir(directory)
            reference.space(model_id, directory)  # itself: the kinds of need below are cached apart from it
            needs.prototypes(model_id, directory)
            _WARMED.add(key)


@functools.cache
def _one_blas_thread() -> None:
    """The lane's matrix products on one BLAS thread: numpy's OpenBLAS otherwise starts a thread per core, which
    then waits on cores busy with the query's two embedding passes (a Hermes prefetch at 10,000 memories took
    54 ms at p50 with OpenBLAS' default, 32 ms with one thread)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def warm_up(db, scopes: tuple[str, ...]) -> Callable[[], None] | None:
    """For a host starting a session: a job that loads LanceDB, the embedder, the reference and these scopes'
    vectors off the turn path (None when there is nothing to load). Until it has run, ``lane`` answers at once
    that it is warming up, so a turn's search degrades to its lexical lanes instead of waiting seconds."""
    if not vectors.exists(db):
        return None
    model_id, directory, store = vectors.model_id(db), vectors.index_dir(db), vectors.database_file(db)
    key = (str(directory), model_id)
    if key in _WARMED:
        return None
    ready = _WARMING.setdefault(key, threading.Event())

    def job() -> None:
        try:
            _warm(directory, model_id)
            vectors.view_vectors(directory, scopes, store)
        finally:
            ready.set()  # a failed warm-up leaves the lane to fail (or load) on its own, as before

    return job


def _catch_up(db, view: View) -> str | None:
    """Embed the view's few rows still waiting in the outbox, so what was just stored is found at the next search;
    says why when some are left for the drainer."""
    waiting = vectors.pending_in(db, view.scopes, CATCH_UP_ROWS + 1)
    if not waiting:
        return None
    try:
        vectors.catch_up(db, waiting[:CATCH_UP_ROWS])
    except vectors.Busy:
        return "another process is writing the vector index"
    if len(waiting) > CATCH_UP_ROWS:
        return f"more than {CATCH_UP_ROWS} rows wait for `scope-recall index drain`"
    return None


@dataclass
class Pending:
    """A dense lane started on the worker thread; the caller runs its lexical lanes meanwhile."""

    model: str = ""
    future: Future | None = None
    deadline: float = 0.0
    budget: float = VECTOR_BUDGET_S
    status: str = "ok"  # why there is no future, or what catching up left behind


def start(db, view: View, queries: list[str] | str, budget: float = VECTOR_BUDGET_S, *,
          context: bool = False) -> Pending:
    """Catch up the view's waiting rows, then score its scopes on the worker thread (embedding the query, for one
    wording or its best of a few, its kinds of need, and for a message that asks for the user's ``context`` its
    latent terms beside it) while the caller goes on; ``finish`` collects it within ``budget`` seconds."""
    try:
        model_id, directory = vectors.model_id(db), vectors.index_dir(db)
        warming = _WARMING.get((str(directory), model_id))
        if warming is not None and not warming.is_set():  # before catching up: it would wait for the same loads
            return Pending(status="warming up: the embedder and the vector index are still loading")
        behind = _catch_up(db, view)
        meta = directory.read_meta()  # once: on object storage each look is a request
        if not meta:
            return Pending(status="no vector index yet (nothing embedded; run: scope-recall index drain)")
        if vectors.built_otherwise(meta, model_id):  # its vectors would be scored against another model's reference
            return Pending(status="the vector index was built with another model or form: run `scope-recall index"
                                  " drain` to rebuild it")
        _warm(directory, model_id)
        from scope_recall_engine.companion import embedders

        queries = [queries] if isinstance(queries, str) else queries
        terms = context and embedders.offers_terms(model_id)
        vector = _EMBEDDING.submit(query_vectors, model_id, queries)
        latent = _TERMS_POOL.submit(query_latent_terms, model_id, queries[-1]) if terms else None
        future = _POOL.submit(_score_scopes, directory, vectors.database_file(db), model_id, view.scopes,
                              vector, view.at is not None, latent)
    except Exception as error:  # LanceDB or the reference missing or corrupt, model unavailable: lexical answers
        return Pending(status=f"{type(error).__name__}: {error}"[:200])
    return Pending(model_id, future, time.monotonic() + budget, budget, behind or "ok")


def finish(db, view: View, pending: Pending) -> tuple[VectorLane | None, str]:
    """The started lane's scores, if they came within its budget; the best rows re-verified against truth."""
    if pending.future is None:
        return None, pending.status
    try:
        scores = pending.future.result(timeout=max(0.0, pending.deadline - time.monotonic()))
    except FutureTimeout:
        return None, f"timed out after {pending.budget:.2f}s"
    except Exception as error:
        return None, f"{type(error).__name__}: {error}"[:200]
    import numpy as np  # here, not above: a warm-up thread may hold the import lock while the lane is skipped

    ranked = np.flatnonzero(scores.seen)
    if len(ranked) > CANDIDATES:  # the best few of a large scope without sorting all of it
        ranked = ranked[np.argpartition(-scores.dense[ranked], CANDIDATES)[:CANDIDATES]]
    best = ranked[np.argsort(-scores.dense[ranked], kind="stable")]
    top = [int(memory_id) for memory_id in scores.ids[best]]
    return VectorLane(pending.model, verify(db, view, top, scores), scores), pending.status


def lane(db, view: View, queries: list[str] | str, budget: float = VECTOR_BUDGET_S
         ) -> tuple[VectorLane | None, str]:
    """Dense scores for the view's scopes within ``budget`` seconds, started and collected at once."""
    return finish(db, view, start(db, view, queries, budget))


def verify(db, view: View, ids: list[int], scores: DenseScores) -> dict[int, tuple[Hit, float]]:
    """Keep a vector hit only if truth, under VISIBLE, has the same row with the same hash; flag for repair the
    hits the companion holds wrongly."""

    if not ids:
        return {}
    rows = visible_rows(db, view, ids)
    queued = {row[0] for row in db.execute("select distinct memory_id from vector_outbox where memory_id in "
                                           "(select value from json_each(?))", [json.dumps(ids)])}
    verified, unseen = {}, []
    for memory_id in ids:
        row = rows.get(memory_id)
        if row and (row[1], row[0].scope_id) == scores.held(memory_id):
            verified[memory_id] = (row[0], float(scores.similarity[scores.at(memory_id)]))
        elif memory_id not in queued:  # not a change still waiting for the drainer
            unseen.append(memory_id)
    for memory_id in _companion_wrong(db, unseen, scores):
        vectors.mark_for_repair(db, memory_id, "vector hit disagrees with truth (hash, scope or lifecycle)")
    return verified


def _companion_wrong(db, ids: list[int], scores: DenseScores) -> list[int]:
    """Of hits the view did not see, those the companion holds wrongly. A row can be right in the companion and
    still invisible to this view (trusted-only, or outside an as-of window): that is no reason to repair it."""

    if not ids:
        return []
    found = {row[0]: row[1:] for row in db.execute(
        "select id, content_hash, scope_id, lifecycle from memories where id in (select value from json_each(?))",
        [json.dumps(ids)])}
    return [i for i in ids
            if i not in found or found[i][:2] != scores.held(i) or found[i][2] not in vectors.LOADED_STATES]
