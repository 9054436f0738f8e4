"""Reading memories back: every lane runs under the one visibility predicate."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from .content import clean_query
from .visibility import VISIBLE, View

_WORD = re.compile(r"\w+", re.UNICODE)


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


def fts_match(query: str) -> str | None:
    """Turn free text into an FTS5 expression of quoted terms, so user input can never be FTS syntax."""
    terms = dict.fromkeys(term.lower() for term in _WORD.findall(query))
    return " OR ".join(f'"{term}"' for term in terms) or None


def lexical(db, view: View, query: str, limit: int = 10) -> list[Hit]:
    """FTS5 BM25 over visible rows."""
    match = fts_match(clean_query(query))
    if match is None:
        return []
    sql = f"""
        select m.id, m.content, m.target, -bm25(memories_fts) as score, m.scope_id, m.review_state
        from memories_fts join memories m on m.id = memories_fts.rowid
        where memories_fts match :match and {VISIBLE}
        order by score desc limit :limit
    """
    rows = db.execute(sql, {"match": match, "limit": limit, **view.params()}).fetchall()
    return [Hit(*row) for row in rows]


def search(db, view: View, query: str, limit: int = 10) -> list[Hit]:
    return lexical(db, view, query, limit)
