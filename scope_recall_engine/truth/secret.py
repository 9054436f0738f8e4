"""The store's secret: a random key in a file beside the store (``memory.sqlite3`` -> ``memory.secret``), never
inside it, so whoever can read the database (a console viewer, a copy of the file) cannot recompute what it keys.

Purge keys the hashes it keeps with it: a tombstone must still refuse the erased value, but the store must not let
a reader confirm a guess of it (``sha256("alice is vegetarian")`` would). Lose the file and purged values are no
longer refused; ``scope-recall doctor`` reports that.
"""

from __future__ import annotations

import os
import secrets
import threading
from pathlib import Path

KEY_BYTES = 32
_keys: dict[str, bytes] = {}
_lock = threading.Lock()


def path_for(db) -> Path | None:
    """The key file of the store behind ``db``; None for an in-memory or temporary database."""
    name = db.execute("pragma database_list").fetchone()[2]
    if not name:
        return None
    store = Path(name)
    return store.parent / f"{store.stem}.secret"


def key(db, *, create: bool = False) -> bytes | None:
    """The store's key, made (mode 0600) on first need when ``create``; None when there is none yet."""
    path = path_for(db)
    where = str(path) if path else f"memory:{id(db.conn)}"
    with _lock:
        if where not in _keys:
            found = _read(path) if path else None
            if found is None and create:
                found = _make(path) if path else secrets.token_bytes(KEY_BYTES)
            if found is None:
                return None
            _keys[where] = found
        return _keys[where]


def _read(path: Path) -> bytes | None:
    try:
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    except FileNotFoundError:
        return None


def _make(path: Path) -> bytes:
    """Write a new key to a private temporary file and link it into place: the link fails if another process got
    there first, so concurrent purges agree on one key, and nobody ever reads a half-written file."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as file:
            file.write(secrets.token_bytes(KEY_BYTES).hex() + "\n")
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
    finally:
        temporary.unlink(missing_ok=True)
    return _read(path)
