"""Request and response helpers every console route shares: bounded ids, on-site redirects, short messages."""

from __future__ import annotations

from datasette.utils.asgi import BadRequest, NotFound

BASE = "/-/scope-recall"
MAX_ID = 2**63 - 1  # SQLite's largest integer: a larger id names no row, and must not reach SQLite
ID = r"\d{1,19}"  # route pattern for an id: never a number Python cannot parse quickly
MAX_MESSAGE = 300  # characters of one message: the messages cookie must stay well under 4 KB


def memory_id(text: str) -> int:
    """A memory id from the URL, or 404 (ids beyond SQLite's range name no memory)."""
    value = int(text)
    if value > MAX_ID:
        raise NotFound(f"no memory with id {text}")
    return value


def optional_id(request, name: str) -> int | None:
    """An id from the query string (``after``), or None; anything else is a 400 with a message."""
    text = request.args.get(name, "")
    if not text:
        return None
    if not text.isdigit() or len(text) > 19 or int(text) > MAX_ID:
        raise BadRequest(f"{name} must be a memory id, not {text[:40]!r}")
    return int(text)


def local_path(candidate: str | None, fallback: str) -> str:
    """Redirect only within this site: a path, never a host, nor what a browser reads as one (``//host``,
    ``/\\host``, or ``/<tab>/host``: browsers turn backslashes into slashes and drop tabs and newlines)."""
    if not candidate or not candidate.startswith("/") or candidate.startswith("//"):
        return fallback
    return fallback if any(ch == "\\" or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in candidate) else candidate


def flash(datasette, request, text: str, kind) -> None:
    """A message for the next page, cut short if long (a refusal may quote an operator's 1,000-character note)."""
    if len(text) > MAX_MESSAGE:
        text = text[: MAX_MESSAGE - 1] + "…"
    datasette.add_message(request, text, kind)
