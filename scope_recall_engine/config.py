"""Settings that live beside the store, in ``config.json`` in the store's directory
(Hermes: $HERMES_HOME/scope-recall/)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from scope_recall_engine.errors import ConfigError

DEFAULT_EMBEDDING_MODEL = "scope-recall-e5-small"


@dataclass
class Config:
    embedding_model: str = DEFAULT_EMBEDDING_MODEL  # any llm embedding model id
    digest_model: str | None = None  # an llm chat model id; None means "no model configured"
    # rules | host (inside Hermes: the model it uses for side tasks) | llm (digest_model); None: digest_model if
    # set, else the host's model inside a host, else nothing is digested until someone chooses
    digest_extractor: str | None = None
    scope_aliases: list[str] = field(default_factory=list)  # extra scope ids every identity may read
    excluded_chats: list[str] = field(default_factory=list)  # chats whose turns are never journaled
    # processed journal entries, and the query text of the recall ledger, are deleted after this many days
    journal_retention_days: int | None = 30
    fallback_user: str | None = None  # Hermes CLI runtimes that supply no user id
    # Hermes platforms that pass no user id but serve one person (e.g. {"api_server": "alice"}); set by an operator
    platform_users: dict[str, str] = field(default_factory=dict)
    multi_user: bool = False  # the Hermes deployment serves several people: the host's own shared memory must be off
    # Beyond one machine (docs/scaling.md). Credentials never live here: only in the environment.
    replica_url: str | None = None  # s3://BUCKET/PREFIX that `scope-recall replicate` streams the store to
    object_store_endpoint: str | None = None  # an S3-compatible endpoint (MinIO, ...); None: AWS S3
    sync_interval_seconds: float = 1.0  # Litestream's sync interval: the recovery point objective follows from it
    companion_uri: str | None = None  # the vector companion: s3://BUCKET/PREFIX or a directory; None: beside the store


def config_path(db_path: str | Path) -> Path:
    return Path(db_path).expanduser().parent / "config.json"


def load(db_path: str | Path) -> Config:
    path = config_path(db_path)
    if not path.exists():
        return Config()
    try:
        values = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    known = {f.name for f in fields(Config)}
    unknown = set(values) - known
    if unknown:
        raise ConfigError(f"{path}: unknown settings {sorted(unknown)}; known: {sorted(known)}")
    return Config(**values)


def save(db_path: str | Path, config: Config) -> Path:
    path = config_path(db_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(config), indent=2) + "\n", encoding="utf-8")
    return path
