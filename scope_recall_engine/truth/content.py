"""Memory text: what is accepted, and the normalized hash that rejection memory is keyed on (plain, or under the
store's secret for purged values)."""

from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata

from scope_recall_engine.errors import InvalidInput

MAX_CONTENT_CHARS = 4000
MAX_QUERY_CHARS = 2000
_SPACE = re.compile(r"\s+")


def validate(text: object) -> str:
    """Return the stored form of memory text, or raise InvalidInput naming what is wrong."""
    if not isinstance(text, str):
        raise InvalidInput("memory content must be text")
    if "\x00" in text:
        raise InvalidInput("memory content contains a NUL byte")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        raise InvalidInput("memory content contains a lone surrogate (invalid Unicode)")
    text = text.strip()
    if not text:
        raise InvalidInput("memory content is empty")
    if len(text) > MAX_CONTENT_CHARS:
        raise InvalidInput(f"memory content is {len(text)} characters; the limit is {MAX_CONTENT_CHARS}")
    if not normalize(text):
        raise InvalidInput("memory content is only punctuation")
    return text


def normalize(text: str) -> str:
    """NFKC, casefold, drop invisible format characters, fold whitespace and edge punctuation."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = _SPACE.sub(" ", text)
    start, end = 0, len(text)
    while start < end and _is_edge_noise(text[start]):
        start += 1
    while end > start and _is_edge_noise(text[end - 1]):
        end -= 1
    return text[start:end]


def _is_edge_noise(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch).startswith("P")


KEYED = "keyed:"  # marks a hash made under the store's secret (truth/secret.py)


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize(text).encode("utf-8")).hexdigest()


def keyed_hash(value_hash: str, key: bytes) -> str:
    """A plain content hash under the store's secret: still equal for equal values, so a tombstone keeps
    refusing the value, but useless for testing a guess without the key."""
    return KEYED + hmac.new(key, value_hash.encode("ascii"), hashlib.sha256).hexdigest()


def clean_query(query: object) -> str:
    """Queries are never fatal: drop NULs and surrogates, truncate, keep the rest."""
    if not isinstance(query, str):
        return ""
    query = "".join(ch for ch in query if ch != "\x00" and not 0xD800 <= ord(ch) <= 0xDFFF)
    return query[:MAX_QUERY_CHARS].strip()
