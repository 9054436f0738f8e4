"""Where the vector companion lives: a directory beside the store (the default), another directory, or an
object-store prefix (``companion_uri = "s3://BUCKET/PREFIX"``) that every machine can reach.

Whatever the URI, a few files stay on this machine: the lock that serialises companion writes (writes come from
the writer's machine; replicas only read) and the reference vectors embedded for a model that ships none. A
``Companion`` is path-like for those local files, so ``companion / NAME`` is always a local path; for a companion
in a directory that directory is the companion itself, as before.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from scope_recall_engine import objectstore

META = "index.json"  # the model and dimensions the companion was built with


@dataclass(frozen=True)
class Companion(os.PathLike):
    uri: str  # what LanceDB connects to
    local: Path  # this machine's files: the lock, cached reference vectors (the companion itself when local)
    remote: objectstore.Location | None = None

    def __fspath__(self) -> str:
        return str(self.local)

    def __truediv__(self, name: str) -> Path:
        return self.local / name

    def __str__(self) -> str:
        return self.uri

    def connect(self):
        import lancedb

        self.local.mkdir(parents=True, exist_ok=True)
        options = objectstore.storage_options(self.remote) if self.remote else None
        return lancedb.connect(self.uri, read_consistency_interval=timedelta(0), storage_options=options)

    def has_meta(self) -> bool:
        if self.remote is None:
            return (self.local / META).exists()
        return self.read_meta() != {}

    def read_meta(self) -> dict:
        if self.remote is None:
            path = self.local / META
            return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        data = objectstore.read(self.remote.child(META))
        return json.loads(data) if data else {}

    def write_meta(self, meta: dict) -> None:
        """Atomically: a kill never leaves half a file (a rename here, a single PUT on object storage)."""
        text = json.dumps(meta) + "\n"
        if self.remote is not None:
            objectstore.write(self.remote.child(META), text.encode())
            return
        self.local.mkdir(parents=True, exist_ok=True)
        staged = self.local / f"{META}.tmp"
        staged.write_text(text, encoding="utf-8")
        staged.replace(self.local / META)

    def drop_meta(self) -> None:
        if self.remote is not None:
            objectstore.delete(self.remote.child(META))
        else:
            (self.local / META).unlink(missing_ok=True)

    def files(self) -> dict[str, bytes]:
        """Every file of the companion with its bytes (object storage: every object, read back)."""
        if self.remote is None:
            return {str(p): p.read_bytes() for p in self.local.rglob("*") if p.is_file()}
        return {key: objectstore.read(self.remote, key) or b"" for key in objectstore.objects(self.remote)}


def resolve(store: Path, uri: str | None, endpoint: str | None = None) -> Companion:
    """The companion of a store from the ``companion_uri`` setting (relative directories: beside the store)."""
    store = Path(store)
    if objectstore.is_url(uri):
        location = objectstore.parse(uri, endpoint)
        return Companion(location.url, store.parent / f"{store.stem}.vectors-local", location)
    directory = store.parent / (Path(uri).expanduser() if uri else f"{store.stem}.vectors")
    return Companion(str(directory), directory)
