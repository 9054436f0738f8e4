"""The fixed reference recall calibrates against, so that relevance means the same in a store of 1 memory and
of 100,000: 4,000 generic memory-like sentences about made-up people (``reference/sentences.txt``, with their
vectors for the default embedder) and background word-frequency tables (``reference/zipf-en.tsv``, and for 32
other languages the words each uses more than English, ``reference/zipf-<language>.tsv``; ``hi-latn`` is Hindi
in Latin letters).

A term's weight blends that background with the store's own counts (a rare word is rare in the language before
the store has seen anything); a message written (or half written) in another language has that language's
frequencies too (``spoken``), so "que", "tengo" and "pa" weigh as little in Spanish as "what", "have" and "for"
in English, and "rekordbox" holds its share of the message. The reference population is scored exactly like a
memory, and a memory's relevance is the share of it the memory out-scores. Built by
``python -m scope_recall_bench.build_reference``.
"""

from __future__ import annotations

import collections
import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from scope_recall_engine.errors import ConfigError
from scope_recall_engine.truth.vocabulary import CLIPPED, SAME_ROLE

if TYPE_CHECKING:
    import numpy as np

DATA = Path(__file__).resolve().parent / "reference"
WORD = re.compile(r"\w+", re.UNICODE)
WORDS_PER_MEMORY = 12  # a memory is a sentence: a word of frequency f shows up in ~12·f of them
PRIOR_DOCUMENTS = 100  # the background counts as this many documents beside the store's own
UNSEEN_ZIPF = 1.0  # a word the table does not know: a name, a code, a typo — rare
MAX_WEIGHT = 12.0
KNOWN_ZIPF = 3.0  # a word at least this frequent (once in a million words) is one the language knows
ENGLISH_SHARE = 0.6  # a message with no other language's signs whose words are this much known to English is English
COMMON_ZIPF = 5.5  # the language's commonest words ("like", "live", "get", "work"): weak evidence of a topic
SPOKEN_SIGNS = 2  # signs of a language (its common words, ``_signs``) that name a message's language ("Café da
# manhã ideas?"; one is a name or a loan word)


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Crude English suffix folding, enough to let "plays" meet "play" and "lives" or "lived" meet "live"."""
    for suffix in ("ingly", "edly", "ing", "ies", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[:-len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


@functools.lru_cache(maxsize=1)
def zipf() -> dict[str, float]:
    return _frequencies("en")


def languages() -> list[str]:
    """The other languages whose frequencies ship (``zipf-<language>.tsv``)."""
    return sorted(path.stem.removeprefix("zipf-") for path in DATA.glob("zipf-*.tsv") if path.stem != "zipf-en")


@functools.lru_cache(maxsize=64)
def language_zipf(language: str) -> dict[str, float]:
    """A language's words that it uses more than English does, with their Zipf values, commonest first."""
    return _frequencies(language)


def _frequencies(language: str) -> dict[str, float]:
    """``zipf-<language>.tsv``: word, value, word, value ... (a cold turn reads English's)."""
    path = DATA / f"zipf-{language}.tsv"
    try:
        fields = path.read_text(encoding="utf-8").split()
        if len(fields) % 2:
            raise ValueError("a word without its frequency")
        return dict(zip(fields[::2], map(float, fields[1::2])))
    except (OSError, ValueError) as error:
        raise ConfigError(f"the recall reference {path} is missing or corrupt ({error}): reinstall scope-recall")


@functools.lru_cache(maxsize=1)
def _signs() -> dict[str, tuple[str, ...]]:
    """Each word that is a sign of another language (``reference/signs.tsv``: a word of Zipf 5 or more there, and
    1 or more above English, ``scope_recall_bench.build_reference``), with the languages it is a sign of."""
    path = DATA / "signs.tsv"
    try:
        rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
        return {word: tuple(languages.split(",")) for word, languages in rows}
    except (OSError, ValueError) as error:
        raise ConfigError(f"the recall reference {path} is missing or corrupt ({error}): reinstall") from None


def spoken(terms: list[str], asked_in: tuple[str, ...] = ()) -> str | None:
    """The language besides English the terms are written in: the one with the most signs, SPOKEN_SIGNS at least
    ("cuanto llevo ahorrado pa berlin", "qual era o nome do moinho again?"), or None; of languages with as many,
    the one whose table holds more of the terms. Fewer signs are too few (a name, a loan word), unless the message
    opens or closes with a question word of a language (``asked_in``, ``glosses.question_languages``: "wanneer is
    fenna jarig", "vize randevum ne zamandı") and English does not know most of its words. Its table is loaded
    here, so a broken one is reported before any word is weighed."""
    signs = _signs()
    counted = collections.Counter(language for term in set(terms) for language in signs.get(term, ()))
    most = max(counted.values(), default=0)
    if most < SPOKEN_SIGNS:
        tied = list(asked_in) if asked_in and not english(terms) else []  # not "ne, what was the dose?"
    else:
        tied = [language for language, count in counted.items() if count == most]  # "si ... y ... es en": es or fr?
    return max(tied, key=lambda language: (_known(language, terms), language), default=None)


def english(terms: list[str]) -> bool:
    """Whether words that show no other language (``spoken`` is None) are English: most of them are words English
    knows, not a language without a table ("shoe size yangu ni ngapi, nimesahau lol" is Swahili)."""
    words, table = [term for term in terms if term.isalpha()], zipf()
    known = sum(table.get(word, UNSEEN_ZIPF) >= KNOWN_ZIPF for word in words)
    return bool(words) and known >= ENGLISH_SHARE * len(words)


def _known(language: str, terms: list[str]) -> float:
    """How much of the message a language's table holds (its words' Zipf values): of the languages a message
    shows as many signs of, the one it is written in holds its other words too ("cuánto", "bocadillos")."""
    table = language_zipf(language)
    return sum(table.get(term, 0.0) for term in set(terms))


def frequency(term: str, language: str | None = None) -> float:
    """The term's Zipf value in English or, when the message is written in ``language``, there, whichever is
    higher."""
    value = zipf().get(term, UNSEEN_ZIPF)
    return max(value, language_zipf(language).get(term, UNSEEN_ZIPF)) if language else value


def background_share(term: str, language: str | None = None) -> float:
    """The share of memory-like sentences that would hold ``term``, from its frequency in the language."""
    return min(1.0, WORDS_PER_MEMORY * 10 ** (frequency(term, language) - 9))


def uncommon(terms: list[str], language: str | None = None) -> set[str]:
    """The terms that are not among the language's commonest words."""
    return {term for term in terms if frequency(term, language) < COMMON_ZIPF}


def weights(terms: list[str], store_counts: dict[str, int], store_size: int, language: str | None = None
            ) -> dict[str, float]:
    """Each query term's weight: -log of its document share, the store's counts blended with the background (of
    the message's language too, ``spoken``)."""
    blended = {}
    for term in terms:
        share = (store_counts.get(term, 0) + PRIOR_DOCUMENTS * background_share(term, language)) / (
            store_size + PRIOR_DOCUMENTS)
        blended[term] = min(MAX_WEIGHT, -math.log(max(share, 1e-12)))
    return blended


SPELLED_LENGTH = 6  # shorter unknown words are more often clippings ("tmrw") than typos, and have many neighbours
LETTERS = "abcdefghijklmnopqrstuvwxyz"


@functools.lru_cache(maxsize=16384)
def spelled(term: str, language: str | None = None) -> str | None:
    """The word a mistyped term most likely meant: the language's most frequent known word one edit away after its
    first letter (a letter dropped, doubled, swapped or wrong: "dauhgter", "febuary", "anniversery"), or None when
    the term (or its stem, or its singular: "beagles") is a word of the language, or of the message's other
    ``language`` ("hermano" in Spanish is no "herman"), short, not plain letters, or near no known word."""
    try:
        table = zipf()
        foreign = frequency(term, language) >= KNOWN_ZIPF if language else False
    except ConfigError:  # without the table, recall is degraded to the words as typed (and says so)
        return None
    if (len(term) < SPELLED_LENGTH or not (term.isascii() and term.isalpha()) or foreign
            or {term, stem(term), term.removesuffix("s")} & table.keys()):
        return None
    splits = [(term[:i], term[i:]) for i in range(1, len(term) + 1)]  # people seldom mistype the first letter
    edits = ({left + right[1:] for left, right in splits if right}
             | {left + right[1] + right[0] + right[2:] for left, right in splits if len(right) > 1}
             | {left + letter + right[1:] for left, right in splits if right for letter in LETTERS}
             | {left + letter + right for left, right in splits for letter in LETTERS})
    known = [(table[edit], edit) for edit in edits if table.get(edit, 0.0) >= KNOWN_ZIPF]
    return max(known)[1] if known else None


def forms(term: str) -> tuple[str, ...]:
    """The term and the words that count as it: those that name the same role ("boss": "manager", "supervisor"),
    or the word it clips ("sems": "semester")."""
    return (term, *SAME_ROLE.get(term, ()), *CLIPPED.get(term, ()))


@functools.lru_cache(maxsize=65536)
def form_stems(term: str) -> frozenset[str]:
    """The stems of the term's forms, once per term: coverage checks them for every candidate of every query."""
    return frozenset(stem(form) for form in forms(term))


def coverage(texts: tuple[str, ...], term_weights: dict[str, float]) -> float:
    """Share of the query's weight that these texts hold together: word stems (of the term or a word of the same
    role), a short form of a word or name (``short_forms``: "van" of "campervan", "lc" of "LeetCode"), or a coined
    term of 4+ characters inside a coined word ("postgres" in "PostgreSQL"; not "list" in "listen" or "light" in
    "Stormlight")."""
    stems = set().union(*(stems_of(text) for text in texts), *(short_forms(text) for text in texts))
    found = sum(w for term, w in term_weights.items()
                if not stems.isdisjoint(form_stems(term)) or (len(term) >= 4 and _inside_coined(term, texts)))
    return found / (sum(term_weights.values()) or 1.0)


CAPITALIZED = re.compile(r"\b(?:[A-Z][a-z]+[ -])+[A-Z][a-z]+\b")  # a name in words: "Manchester Royal Infirmary"
CAMEL = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b")  # a name in one word: "LeetCode", "YouTube"
PART = re.compile(r"[A-Z][a-z]+")


@functools.lru_cache(maxsize=16384)
def short_forms(text: str) -> frozenset[str]:
    """What people call a text's compounds and names for short: the head of a compound the language does not list
    at all, written in lower case, whose parts it knows ("van" of "campervan"; not "pet" of "carpet" nor "hole" of
    "keyhole", words of their own, nor "light" of "Stormlight", a name); and a name's initials ("lc" of "LeetCode",
    "mri" of "Manchester Royal Infirmary")."""
    heads = {stem(word[split:]) for word in WORD.findall(text) if word.islower() and _frequency(word) == UNSEEN_ZIPF
             for split in range(3, len(word) - 2)
             if _frequency(word[:split]) >= KNOWN_ZIPF and _frequency(word[split:]) >= KNOWN_ZIPF}
    initials = ["".join(part[0] for part in PART.findall(name)).lower()  # of each run of two or more of its words
                for name in CAPITALIZED.findall(text) + CAMEL.findall(text)]
    return frozenset(heads | {letters[start:end] for letters in initials
                              for start in range(len(letters)) for end in range(start + 2, len(letters) + 1)})


def _inside_coined(term: str, texts: tuple[str, ...]) -> bool:
    """Whether the term, itself no word the language knows, is part of another such word ("postgres" of
    "PostgreSQL"; not "light" of "Stormlight"), looked up only where the text holds it."""
    return _frequency(term) < KNOWN_ZIPF and any(
        term in text.casefold() and any(term in word for word in coined_words(text)) for text in texts)


def _frequency(word: str) -> float:
    """The word's Zipf value; without the table (a broken install, recall degraded to words) every word is coined."""
    try:
        return zipf().get(word, UNSEEN_ZIPF)
    except ConfigError:
        return UNSEEN_ZIPF


@functools.lru_cache(maxsize=16384)
def coined_words(text: str) -> frozenset[str]:
    """A text's words that are no common word of the language: names, products, codes, compounds."""
    return frozenset(word for word in WORD.findall(text.casefold()) if _frequency(word) < KNOWN_ZIPF)


@functools.lru_cache(maxsize=16384)
def stems_of(text: str) -> frozenset[str]:
    """A memory's word stems, kept for the texts a long-lived process meets again and again."""
    return frozenset(stem(word) for word in WORD.findall(text.casefold()))


@dataclass(frozen=True)
class Population:
    texts: list[str]
    stems: dict[str, "np.ndarray"]  # stem -> indexes of the sentences holding it


@functools.lru_cache(maxsize=1)
def population() -> Population:
    import numpy as np

    path = DATA / "sentences.txt"
    try:
        texts = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    except OSError as error:
        raise ConfigError(f"the recall reference {path} is missing ({error}): reinstall scope-recall") from None
    index: dict[str, list[int]] = {}
    for n, text in enumerate(texts):
        for word in stems_of(text):
            index.setdefault(word, []).append(n)
    return Population(texts, {word: np.asarray(rows) for word, rows in index.items()})


def lexical(term_weights: dict[str, float]) -> "np.ndarray":
    """Coverage of the query in every reference sentence (whole-word stems, or a word of the same role; the
    population is plain prose)."""
    import numpy as np

    people = population()
    found = np.zeros(len(people.texts), dtype=np.float32)
    for term, weight in term_weights.items():
        rows = [found_in for form in forms(term) if (found_in := people.stems.get(stem(form))) is not None]
        if rows:
            found[rows[0] if len(rows) == 1 else np.unique(np.concatenate(rows))] += weight
    return found / (sum(term_weights.values()) or 1.0)


@dataclass(frozen=True)
class Space:
    """The reference in an embedding model's space."""

    alone: "np.ndarray"  # each sentence, unit vectors
    pair_norms: "np.ndarray"  # |a + b| of each sentence and the one before it: the reference for memories scored
    # with a context memory is each such pair, and its cosines follow from the sentences' own (``paired``)
    terms: "np.ndarray | None" = None  # each sentence's latent terms (sentences x TERMS), for models that have them
    weights: "np.ndarray | None" = None

    def paired(self, cosines: "np.ndarray") -> "np.ndarray":
        """Each pair's cosine with the query, from its sentences' (sentences x wordings): no second pass over the
        reference's vectors, which a query's embedding has just pushed out of the cache."""
        import numpy as np

        return (cosines + np.roll(cosines, 1, axis=0)) / self.pair_norms[:, None]


def terms_similarity(query: "np.ndarray", terms: "np.ndarray", weights: "np.ndarray") -> "np.ndarray":
    """Each row's latent-term overlap with the query (the query's terms spread over the whole feature space)."""
    return (query[terms] * weights).sum(axis=1)


def unit_rows(matrix: "np.ndarray") -> "np.ndarray":
    import numpy as np

    return matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)


_SPACES: dict[str, Space] = {}


def space(model_id: str, cache_dir: Path | None = None) -> Space:
    """The reference for an embedding model: its vectors ship for the default model; for any other they are
    embedded once and kept in ``cache_dir`` (the companion's directory)."""
    import numpy as np

    if model_id not in _SPACES:
        shipped, cached = DATA / f"{model_id}.npy", cache_dir / f"reference-{model_id}.npy" if cache_dir else None
        path = shipped if shipped.exists() else cached
        if path is not None and path.exists():
            matrix = np.load(path).astype(np.float32)
        else:
            from scope_recall_engine.companion import embedders

            matrix = unit_rows(np.asarray(embedders.embed_passages(embedders.get_model(model_id),
                                                                    population().texts), dtype=np.float32))
            if cached is not None:
                np.save(cached, matrix.astype(np.float16))
        if matrix.shape[0] != len(population().texts):
            raise ConfigError(f"the recall reference vectors {path} do not match its sentences: reinstall")
        pair_norms = np.maximum(np.linalg.norm(matrix + np.roll(matrix, 1, axis=0), axis=1), 1e-12)
        _SPACES[model_id] = Space(matrix, pair_norms, *_reference_terms(model_id, cache_dir))
    return _SPACES[model_id]


def _reference_terms(model_id: str, cache_dir: Path | None) -> tuple:
    """The reference's latent terms for a model that has them (shipped for the default model, else computed once
    and kept beside the companion), or (None, None)."""
    import numpy as np

    from scope_recall_engine.companion import embedders

    if not embedders.offers_terms(model_id):
        return None, None
    shipped = DATA / f"{model_id}.terms.npz"
    cached = cache_dir / f"reference-{model_id}.terms.npz" if cache_dir else None
    path = shipped if shipped.exists() else cached
    if path is not None and path.exists():
        try:
            with np.load(path) as stored:
                terms, weights = stored["terms"].astype(np.int64), stored["weights"].astype(np.float32)
        except (OSError, ValueError, KeyError) as error:
            raise ConfigError(f"the recall reference terms {path} are corrupt ({error}): reinstall") from None
    else:
        terms, weights = embedders.term_arrays(embedders.latent_terms(embedders.get_model(model_id),
                                                                       population().texts))
        if cached is not None:
            np.savez_compressed(cached, terms=terms.astype(np.uint16), weights=weights.astype(np.float16))
    if terms.shape[0] != len(population().texts):
        raise ConfigError(f"the recall reference terms {path} do not match its sentences: reinstall")
    return terms, weights
