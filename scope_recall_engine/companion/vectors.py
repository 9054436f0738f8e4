"""The LanceDB vector companion: a rebuildable copy of truth, kept in step through the outbox.

Writes never touch LanceDB: every transition enqueues ``vector_outbox`` intents in its own SQLite transaction,
and ``drain`` (any process, any time, idempotent) re-reads truth for those ids and upserts or deletes rows keyed
by id + content hash + generation. Rows carry no text; a hit counts only after retrieval re-reads it from SQLite.
``import lancedb`` costs ~1.3 s, so it happens only here and only when the companion is used.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import threading
import warnings
from collections import OrderedDict
from dataclasses import asdict, dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from scope_recall_engine import config
from scope_recall_engine.companion import location
from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.truth.content import content_hash
from scope_recall_engine.truth.store import enqueue_vector_sync, now, write

if TYPE_CHECKING:
    import numpy as np

TABLE = "memories"
UNEMBEDDED_TARGETS = ("general",)  # scratch rows are found by the lexical lanes only
LOADED_STATES = ("active", "superseded")  # what a query can score (superseded rows serve as-of searches)
BATCH = 64
REPORT_IDS = 50  # ids listed per category in check()
INDEX_MIN_ROWS = 2000

_LOCK = threading.Lock()
_OPEN: dict[str, object] = {}  # index dir -> lancedb connection, reused across queries


@dataclass
class DrainResult:
    upserted: int = 0
    deleted: int = 0
    embedded: int = 0
    reused: int = 0
    rebuilt: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class CheckResult:
    model: str
    index_model: str | None
    expected: int
    indexed: int
    missing: list[int] = field(default_factory=list)
    stale: list[int] = field(default_factory=list)
    extra: list[int] = field(default_factory=list)
    pending: int = 0
    repairs: int = 0

    @property
    def ok(self) -> bool:
        return not (self.missing or self.stale or self.extra or self.repairs) and self.model == self.index_model

    def as_dict(self) -> dict:
        data = asdict(self)
        for key in ("missing", "stale", "extra"):
            data[key] = {"count": len(data[key]), "ids": data[key][:REPORT_IDS]}
        return {**data, "ok": self.ok}


def database_file(db) -> Path:
    return Path(db.execute("pragma database_list").fetchone()[2])


def index_dir(db) -> location.Companion:
    """Where the companion lives (the ``companion_uri`` setting; default ``NAME.vectors`` beside the store)."""
    path = database_file(db)
    settings = config.load(path)
    return location.resolve(path, settings.companion_uri, settings.object_store_endpoint)


def exists(db) -> bool:
    return index_dir(db).has_meta()


def model_id(db) -> str:
    return config.load(database_file(db)).embedding_model


def index_model(db) -> str | None:
    """The model the companion was built with (None before the first build)."""
    return _meta(db).get("model")


def _meta(db) -> dict:
    return index_dir(db).read_meta()


def model_changed(db, model: str) -> bool:
    """The companion was built with another embedding model than config.json names now (``built_otherwise``)."""
    return built_otherwise(_meta(db), model)


def built_otherwise(meta: dict, model: str) -> bool:
    """Whether the companion with this meta (empty: none yet) was built with another model than ``model``, or
    without the latent terms it offers, or with memories embedded another way (``embedders.passage_form``)."""
    from scope_recall_engine.companion import embedders

    return bool(meta) and (meta.get("model") != model or bool(meta.get("terms")) != embedders.offers_terms(model)
                           or meta.get("passages", "passage") != embedders.passage_form(model))


def _connect(db):
    return connect_dir(index_dir(db))


def connect_dir(directory: location.Companion):
    with _LOCK:
        if str(directory) not in _OPEN:
            _OPEN[str(directory)] = directory.connect()
        return _OPEN[str(directory)]


def _table(db):
    return _open(_connect(db))


def _open(connection):
    """The companion table, or None when there is none, including one whose creation a kill cut short (its
    directory exists without a committed version; LanceDB cannot open it, and the next write overwrites it)."""
    try:
        return connection.open_table(TABLE)
    except ValueError:  # "Table 'memories' was not found"
        return None


def _create(db, model: str, dimensions: int, terms: bool):
    import pyarrow as pa

    schema = pa.schema([
        ("id", pa.int64()), ("scope_id", pa.string()), ("lifecycle", pa.string()),
        ("content_hash", pa.string()), ("generation", pa.int64()), ("model", pa.string()),
        ("vector", pa.list_(pa.float32(), dimensions)),
        *([("terms", pa.list_(pa.uint16())), ("weights", pa.list_(pa.float32()))] if terms else []),
    ])
    # the model first: a kill between the two leaves a named model and no table, which the next drain creates
    connection = _connect(db)
    from scope_recall_engine.companion import embedders

    index_dir(db).write_meta({"model": model, "dimensions": dimensions, "terms": terms,
                              "passages": embedders.passage_form(model)})
    return connection.create_table(TABLE, schema=schema, mode="overwrite")


def _in(column: str, values: Iterable) -> str:
    quoted = ", ".join(str(int(v)) if isinstance(v, int) else "'" + str(v).replace("'", "''") + "'" for v in values)
    return f"{column} IN ({quoted})"


def _indexed(table, ids: list[int], columns: list[str]) -> dict[int, dict]:
    if table is None or not ids:
        return {}
    rows = table.search().where(_in("id", ids)).select(["id", *columns]).limit(len(ids) * 2).to_list()
    return {row["id"]: row for row in rows}


def _embedded(table) -> list[str]:
    """The columns a row's embedding lives in: its vector, and its latent terms when the companion keeps them."""
    return ["vector", "terms", "weights"] if "terms" in table.schema.names else ["vector"]


def _reusable(table, hashes: set[str], model: str) -> dict[str, dict]:
    """Embeddings already computed for the same text (same hash, same model), e.g. a value stored in two scopes."""
    if table is None or not hashes:
        return {}
    rows = (table.search().where(f"{_in('content_hash', hashes)} AND {_in('model', [model])}")
            .select(["content_hash", *_embedded(table)]).limit(len(hashes) * 4).to_list())
    return {row.pop("content_hash"): row for row in rows}


def _embed(model: str, texts: list[str]) -> list[dict]:
    """Each text's vector, and its latent terms when the model has them."""
    from scope_recall_engine.companion import embedders

    embedder = embedders.get_model(model)
    vectors, terms = embedders.embed_passages(embedder, texts), embedders.latent_terms(embedder, texts)
    return [{"vector": vector, **({"terms": terms[n][0], "weights": terms[n][1]} if terms else {})}
            for n, vector in enumerate(vectors)]


def _apply(db, ids: list[int], model: str, result: DrainResult) -> set[int]:
    """Bring the companion rows of ``ids`` in line with truth; returns the ids whose rows were erased."""
    truth = {row["id"]: row for row in db["memories"].rows_where(_in("id", ids))}
    gone = [i for i in ids if i not in truth or truth[i]["lifecycle"] == "purged"
            or truth[i]["target"] in UNEMBEDDED_TARGETS]
    wanted = [truth[i] for i in ids if i not in gone]
    table = _table(db)
    embedded = _embedded(table) if table is not None else []
    current = _indexed(table, [row["id"] for row in wanted], ["content_hash", "model", *embedded])
    vectors = {row["content_hash"]: {column: current[row["id"]][column] for column in embedded} for row in wanted
               if row["id"] in current and current[row["id"]]["model"] == model}
    vectors |= _reusable(table, {row["content_hash"] for row in wanted} - set(vectors), model)
    result.reused += sum(1 for row in wanted if row["content_hash"] in vectors)
    fresh = {row["content_hash"]: row["content"] for row in wanted if row["content_hash"] not in vectors}
    if fresh:
        vectors |= dict(zip(fresh, _embed(model, list(fresh.values()))))
        result.embedded += len(fresh)
    if wanted and table is None:
        first = next(iter(vectors.values()))
        table = _create(db, model, len(first["vector"]), "terms" in first)
    if wanted:
        records = [{"id": row["id"], "scope_id": row["scope_id"], "lifecycle": row["lifecycle"],
                    "content_hash": row["content_hash"], "generation": row["generation"], "model": model,
                    **vectors[row["content_hash"]]} for row in wanted]
        table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(records)
        result.upserted += len(records)
    erased = set(_indexed(table, gone, []))
    if erased:
        table.delete(_in("id", erased))
        result.deleted += len(erased)
    _settle(db, ids, truth)
    return {i for i in erased if i not in truth or truth[i]["lifecycle"] == "purged"}


def _settle(db, ids: list[int], truth: dict) -> None:
    """Remove the outbox intents and repair marks this pass has applied (newer intents stay)."""
    with write(db):
        for memory_id in ids:
            generation = truth[memory_id]["generation"] if memory_id in truth else 2**62
            db.execute("delete from vector_outbox where memory_id = ? and generation <= ?", [memory_id, generation])
            db.execute("delete from vector_repairs where memory_id = ?", [memory_id])


def ensure_indexes(table) -> None:
    """Bitmap indexes on the prefilter columns (a scoped search at 100k rows: ~140 ms without, ~9 ms with),
    created once the table is big enough to need them and refreshed when many rows are not yet indexed."""
    from lancedb.index import Bitmap

    rows = table.count_rows()
    if rows < INDEX_MIN_ROWS:
        return
    names = {index.name for index in table.list_indices()}
    for column in ("scope_id", "lifecycle"):
        if f"{column}_idx" not in names:
            table.create_index(column, config=Bitmap(), replace=True)
    stats = table.index_stats("scope_id_idx")
    if stats is not None and stats.num_unindexed_rows > max(INDEX_MIN_ROWS, rows // 20):
        table.optimize()


_HELD = threading.local()


class Busy(Exception):
    """Another process is writing the companion right now."""


def exclusive(function=None, *, wait: bool = True):
    """Companion writes (drain, forget, rebuild, bulk load) take a cross-process lock on the index directory:
    LanceDB rejects concurrent overwrites, and a purge's cleanup must not delete files another writer is using.
    ``wait=False`` raises Busy instead of waiting (a caller that can leave the work to the outbox)."""
    if function is None:
        return functools.partial(exclusive, wait=wait)

    @functools.wraps(function)
    def locked(db, *args, **kwargs):
        if getattr(_HELD, "depth", 0):
            return function(db, *args, **kwargs)
        directory = index_dir(db)
        directory.local.mkdir(parents=True, exist_ok=True)
        with open(directory / ".lock", "w") as handle, contextlib.ExitStack() as release:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                raise Busy(f"{directory} is being written by another process") from None
            release.callback(fcntl.flock, handle, fcntl.LOCK_UN)
            _HELD.depth = 1
            release.callback(setattr, _HELD, "depth", 0)
            return function(db, *args, **kwargs)

    return locked


@exclusive
def scrub(db) -> None:
    """Make deleted vectors unrecoverable: compact, rewrite fragments still holding deleted rows, drop old versions."""
    table = _table(db)
    if table is None:
        return
    with warnings.catch_warnings():  # "removes every version but the latest": that is the point here
        warnings.simplefilter("ignore", UserWarning)
        _optimize_now(table)
        stats = table.stats()
    fragments = stats["fragment_stats"]
    physical = round(fragments["lengths"]["mean"] * fragments["num_fragments"]) if fragments["num_fragments"] else 0
    if physical > stats["num_rows"]:
        # rewrite the rows in one new version (an atomic commit: a kill leaves the old version or the new one,
        # never no table), then drop every older version and the files only they used
        table.add(table.to_arrow(), mode="overwrite")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            _optimize_now(table)
        ensure_indexes(table)  # an overwrite starts without indexes


def _optimize_now(table) -> None:
    table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)


@hookimpl
def purge_memory_copies(db, memory_id: int) -> None:
    forget(db, memory_id)


def forget(db, memory_id: int) -> bool:
    """After a purge: delete the row and scrub old versions now rather than at the next drain.

    Returns False when the companion could not be reached; the outbox intent then stays for the next drain.
    """
    try:
        return _forget(db, memory_id) if exists(db) else True
    except Busy:  # a drain is running: it will meet this purge's intent in the outbox and scrub
        return False


@exclusive(wait=False)
def _forget(db, memory_id: int) -> bool:
    try:
        if _apply(db, [memory_id], model_id(db), DrainResult()):
            scrub(db)
    except Exception:  # LanceDB missing or broken: truth is already purged, and the intent is still queued
        return False
    return True


@exclusive
def drain(db, *, limit: int | None = None, progress: Callable[[int], None] | None = None) -> DrainResult:
    """Apply pending outbox intents (oldest first). Safe to run from several processes at once."""
    model = model_id(db)
    if model_changed(db, model):
        return rebuild(db, progress=progress)
    result, erased, done = DrainResult(), set(), 0
    while limit is None or done < limit:
        ids = [row[0] for row in db.execute(
            "select memory_id from vector_outbox group by memory_id order by min(id) limit ?",
            [BATCH if limit is None else min(BATCH, limit - done)])]
        if not ids:
            break
        erased |= _apply(db, ids, model, result)
        done += len(ids)
        if progress:
            progress(len(ids))
    if erased:
        scrub(db)
    if result.upserted and (table := _table(db)) is not None:
        ensure_indexes(table)
    return result


def pending_in(db, scopes: tuple[str, ...], limit: int) -> list[int]:
    """Ids of these scopes' rows whose changes still wait in the outbox, oldest first."""
    return [row[0] for row in db.execute(
        "select o.memory_id from vector_outbox o join memories m on m.id = o.memory_id"
        " where m.scope_id in (select value from json_each(?)) group by o.memory_id order by min(o.id) limit ?",
        [json.dumps(list(scopes)), limit])]


@exclusive(wait=False)
def catch_up(db, ids: list[int]) -> DrainResult:
    """Apply the outbox for a few rows now, so a search sees what was just written (read-your-writes). Raises
    Busy when another process is writing the companion: its drain will carry these rows too."""
    result, model = DrainResult(), model_id(db)
    if model_changed(db, model):
        return result  # a full drain rebuilds the companion
    if _apply(db, ids, model, result):
        scrub(db)
    return result


@exclusive
def bulk_load(db, texts: list[str], variants: dict[str, int] | None = None) -> int:
    """Write the companion for a freshly bulk-filled store in one pass, embedding each distinct text once
    (benchmarks: rows whose text repeats share its vector, and so do rows whose content hash ``variants`` maps to
    the index of a text in ``texts``). Returns the number of rows written."""
    import numpy as np
    import pyarrow as pa

    model = model_id(db)
    computed = _embed(model, texts)
    by_hash = {content_hash(t): i for i, t in enumerate(texts)} | (variants or {})
    rows = [row for row in _embeddable(db) if row[3] in by_hash]
    chosen = [computed[by_hash[row[3]]] for row in rows]
    matrix = np.asarray([row["vector"] for row in chosen], dtype=np.float32).reshape(len(rows), -1)
    columns, terms = (list(zip(*rows)) if rows else [[]] * 5), "terms" in computed[0]
    data = pa.table({
        "id": pa.array(columns[0], pa.int64()), "scope_id": pa.array(columns[1], pa.string()),
        "lifecycle": pa.array(columns[2], pa.string()), "content_hash": pa.array(columns[3], pa.string()),
        "generation": pa.array(columns[4], pa.int64()), "model": pa.array([model] * len(rows), pa.string()),
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(matrix.ravel(), pa.float32()), matrix.shape[1]),
        **({"terms": pa.array([row["terms"] for row in chosen], pa.list_(pa.uint16())),
            "weights": pa.array([row["weights"] for row in chosen], pa.list_(pa.float32()))} if terms else {}),
    })
    table = _create(db, model, matrix.shape[1], terms)
    table.add(data)
    ensure_indexes(table)
    return len(rows)


def _embeddable(db) -> list[tuple]:
    """(id, scope_id, lifecycle, content_hash, generation) of every row the companion should hold."""
    placeholders = ", ".join("?" for _ in UNEMBEDDED_TARGETS)
    return db.execute("select id, scope_id, lifecycle, content_hash, generation from memories "
                      f"where lifecycle != 'purged' and target not in ({placeholders})", UNEMBEDDED_TARGETS).fetchall()


def pending(db) -> int:
    return db.execute("select count(distinct memory_id) from vector_outbox").fetchone()[0]


def queue_all(db) -> None:
    """Queue every row for the next drain (one transaction): a rebuild, or a restored store whose companion
    stayed on the lost machine."""
    with write(db):
        db.execute("insert into vector_outbox (memory_id, generation, created_at) "
                   "select id, generation, ? from memories", [now()])


@exclusive
def rebuild(db, *, progress: Callable[[int], None] | None = None) -> DrainResult:
    """Throw the companion away and rebuild it from truth with the configured model.

    Every row is queued in the outbox first (one transaction), so a rebuild cut short is finished by whichever
    drain runs next, in any process."""
    queue_all(db)
    _connect(db).drop_table(TABLE, ignore_missing=True)
    index_dir(db).drop_meta()
    result = drain(db, progress=progress)
    scrub(db)  # one compacted version instead of one per batch
    return replace(result, rebuilt=True)


def indexed_ids(db) -> list[int]:
    """The memory ids the companion holds (none before the first build)."""
    if not exists(db):
        return []
    table = _table(db)
    return [row["id"] for row in table.search().select(["id"]).limit(max(table.count_rows(), 1)).to_list()]


def check(db) -> CheckResult:
    """Compare the companion with truth: rows missing, stale (hash, generation, lifecycle, scope, model), extra."""
    truth = {row[0]: row[1:] for row in _embeddable(db)}
    model = model_id(db)
    table = _table(db) if exists(db) else None
    indexed = {}
    if table is not None:
        columns = ["id", "scope_id", "lifecycle", "content_hash", "generation", "model"]
        rows = table.search().select(columns).limit(max(table.count_rows(), 1)).to_list()
        indexed = {row["id"]: (row["scope_id"], row["lifecycle"], row["content_hash"], row["generation"],
                               row["model"]) for row in rows}
    return CheckResult(
        model=model, index_model=_meta(db).get("model"), expected=len(truth), indexed=len(indexed),
        missing=sorted(set(truth) - set(indexed)),
        stale=sorted(i for i in set(truth) & set(indexed) if (*truth[i], model) != indexed[i]),
        extra=sorted(set(indexed) - set(truth)),
        pending=pending(db),
        repairs=db.execute("select count(distinct memory_id) from vector_repairs").fetchone()[0],
    )


def mark_for_repair(db, memory_id: int, reason: str) -> None:
    """A vector hit disagreed with truth: record it and queue the id so the next drain rewrites its row."""
    with write(db):
        db["vector_repairs"].insert({"memory_id": memory_id, "reason": reason, "at": now()})
        row = db.execute("select generation from memories where id = ?", [memory_id]).fetchone()
        enqueue_vector_sync(db, memory_id, row[0] if row else 0)


@dataclass
class ScopeVectors:
    """One scope's embedded rows, held in memory: a query is one matrix product, not an index round trip."""

    ids: "np.ndarray"
    position: dict[int, int]  # id -> row
    hashes: list[str]
    active: "np.ndarray"  # per row: active (the rest are superseded, seen only by as-of searches)
    matrix: "np.ndarray"  # unit vectors, one row per id
    paired: "np.ndarray"  # per row: it has a context row
    partner: "np.ndarray"  # position of each row's context row, or of the row itself
    context_norm: "np.ndarray"  # |v + v_partner|, so cos(q, mean of both) needs no extra product
    terms: "np.ndarray | None" = None  # latent terms per row (rows x TERMS feature ids, zero-padded), if kept
    weights: "np.ndarray | None" = None  # ... and their weights (0 where padded)


_SCOPES: OrderedDict[tuple[str, str], tuple[int, ScopeVectors]] = OrderedDict()  # least recently used first
# Per process: a gateway serving many users keeps its most recent scopes up to this many rows (~2.5 KB each in
# memory). Bounded by rows, not scopes: each user reads two scopes, one often empty, and a count of scopes
# would hold 256 users' vectors or one heavy scope's alike.
CACHED_ROWS = 250_000
_LOADING: dict[tuple[str, str], threading.Lock] = {}  # the scopes loading now, one load each at a time
_cached_rows = 0


def view_vectors(directory: location.Companion, scopes: tuple[str, ...], store: Path) -> list[ScopeVectors]:
    """Each scope's rows from the companion, reloaded whenever the companion's version moves (any process may
    have drained); the version is looked up once for all of them. Safe on a worker thread: truth is read through
    its own read-only connection."""
    table = _open_table(directory) if directory.has_meta() else None
    if table is None:
        raise FileNotFoundError(f"no vector index at {directory}: run `scope-recall index drain`")
    current = table.version
    return [_scope_rows(table, current, directory, scope_id, store) for scope_id in scopes]


def _scope_rows(table, current: int, directory: location.Companion, scope_id: str, store: Path) -> ScopeVectors:
    """A scope's rows at this version, from the cache or loaded once: a search that meets a load already running
    (one that ran past its budget goes on in the background) waits for it rather than loading the scope again."""
    key = (str(directory), scope_id)
    if (cached := _cached(key, current)) is not None:
        return cached
    with _LOCK:
        loading = _LOADING.setdefault(key, threading.Lock())
    with loading:
        if (cached := _cached(key, current)) is not None:
            return cached
        vectors = _load_scope(table, scope_id, store)
        _keep(key, current, vectors)
        with _LOCK:  # whoever waits holds the lock already; whoever comes later finds the scope cached
            _LOADING.pop(key, None)
        return vectors


def _cached(key: tuple[str, str], version: int) -> ScopeVectors | None:
    cached = _SCOPES.get(key)
    if not cached or cached[0] != version:
        return None
    with _LOCK:
        if key in _SCOPES:
            _SCOPES.move_to_end(key)
    return cached[1]


def _load_scope(table, scope_id: str, store: Path) -> ScopeVectors:
    import numpy as np
    import pyarrow.compute as pc

    data = (table.search().where(f"{_in('scope_id', [scope_id])} AND {_in('lifecycle', LOADED_STATES)}")
            .select(["id", "content_hash", "lifecycle", *_embedded(table)]).limit(None).to_arrow())
    ids = data["id"].to_numpy()
    width = data.schema.field("vector").type.list_size
    matrix = data["vector"].combine_chunks().values.to_numpy().reshape(len(ids), width)
    matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    position = {int(i): n for n, i in enumerate(ids)}
    context = np.array([position.get(c, -1) for c in _contexts(store, scope_id, ids)], dtype=np.int64)
    paired = context >= 0
    partner = np.where(paired, context, np.arange(len(ids)))
    norm = np.full(len(ids), 2.0, np.float32)  # |v + v_context| = sqrt(2 + 2 cos) for unit vectors; 2 alone
    norm[paired] = np.sqrt(2 + 2 * np.einsum("ij,ij->i", matrix[paired], matrix[context[paired]]))
    active = pc.equal(data["lifecycle"], "active").to_numpy()
    return ScopeVectors(ids, position, data["content_hash"].to_pylist(), active, matrix, paired, partner, norm,
                        *_padded_terms(data))


def _keep(key: tuple[str, str], version: int, vectors: ScopeVectors) -> None:
    """Cache a loaded scope, then drop the least recently used ones past CACHED_ROWS (the newest always stays)."""
    global _cached_rows
    weight = lambda rows: len(rows.ids) + 1  # noqa: E731  (an empty scope still holds an entry)
    with _LOCK:
        if (replaced := _SCOPES.pop(key, None)) is not None:
            _cached_rows -= weight(replaced[1])
        _SCOPES[key] = (version, vectors)
        _cached_rows += weight(vectors)
        while _cached_rows > CACHED_ROWS and len(_SCOPES) > 1:
            _cached_rows -= weight(_SCOPES.popitem(last=False)[1][1])


def _padded_terms(data) -> tuple:
    """The rows' latent terms as two rows x TERMS arrays (feature ids, weights; zero-padded), or (None, None)."""
    from scope_recall_engine.companion import embedders

    if "terms" not in data.schema.names:
        return None, None
    import pyarrow.compute as pc

    terms, weights = data["terms"].combine_chunks(), data["weights"].combine_chunks()
    lengths = pc.list_value_length(terms).fill_null(0).to_numpy(zero_copy_only=False)
    if not (pc.list_value_length(weights).fill_null(0).to_numpy(zero_copy_only=False) == lengths).all():
        raise ValueError("the companion's latent terms and weights disagree: run `scope-recall index rebuild`")
    flat = [pc.list_flatten(column).to_numpy(zero_copy_only=False) for column in (terms, weights)]
    return embedders.padded(lengths, *flat)


def _open_table(directory: location.Companion):
    """One open handle per companion (None while it has no table): its ``version`` is a cheap look at the
    latest manifest."""
    key = f"table:{directory}"
    if key not in _OPEN:
        table = _open(connect_dir(directory))
        if table is None:
            return None
        with _LOCK:
            _OPEN.setdefault(key, table)
    return _OPEN[key]


def _contexts(store: Path, scope_id: str, ids) -> list[int]:
    """Each row's context memory (see lifecycle.CONTEXT_WINDOW), or -1."""
    import sqlite3

    connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)
    try:
        found = dict(connection.execute("select id, context_id from memories where scope_id = ?", [scope_id]))
    finally:
        connection.close()
    return [found.get(int(i)) or -1 for i in ids]
