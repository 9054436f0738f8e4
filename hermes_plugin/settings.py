"""The provider's settings as ``hermes memory setup`` sees them. There is one source of truth, ``config.json``
beside the store (the CLI, the console and the runtime all read it): the setup flow's prompts default to the saved
values, so pressing Enter keeps them, and ``save_config`` writes back only what the user changed."""

from __future__ import annotations

import dataclasses
import getpass
from pathlib import Path

from scope_recall_engine import config as settings
from scope_recall_engine.errors import MissingKey
from scope_recall_engine.truth.store import hermes_store

CLEAR = "none"  # typed at a prompt, turns an optional setting off
SETTINGS = ("fallback_user", "digest_extractor", "digest_model")  # what `hermes memory setup` asks; the rest
# lives in config.json only


def os_user() -> str:
    try:
        return getpass.getuser() or "local"
    except (OSError, KeyError):
        return "local"


def schema(hermes_home: str | Path) -> list[dict]:
    """Hermes' config schema, each default the saved value (what Enter keeps)."""
    saved = settings.load(hermes_store(hermes_home))
    fields = [
        {"key": "fallback_user", "description": "User id for CLI sessions (Hermes supplies none there)",
         "default": saved.fallback_user or os_user()},
        {"key": "digest_extractor", "description": "Digest with: rules (offline, no model), host (Hermes' own model, "
                                                   "no extra key) or llm (the model id next); empty: Hermes' model "
                                                   f"when it has one ('{CLEAR}' clears it)"},
        {"key": "digest_model", "description": "llm model id that turns the journal into candidate memories "
                                               f"(empty: none, nothing is digested; '{CLEAR}' turns it off)"},
    ]
    for field in fields[1:]:
        if getattr(saved, field["key"]):
            field["default"] = getattr(saved, field["key"])
    return fields


def save(hermes_home: str | Path, values: dict) -> Path:
    """Merge what setup collected into config.json; an unknown digest model is refused and nothing is written."""
    path = hermes_store(hermes_home)
    config = settings.load(path)
    changes = {key: (None if str(value).strip().lower() in ("", CLEAR) else str(value).strip())
               for key, value in values.items() if key in SETTINGS}
    if changes.get("digest_model"):
        check_model(changes["digest_model"], require_key=False)  # the key may well be set after setup
    if changes.get("digest_extractor"):
        check_extractor(changes["digest_extractor"])
    return settings.save(path, dataclasses.replace(config, **changes))


def check_extractor(choice: str) -> None:
    """Refuse an extractor that is not one, and prove rules or Hermes' own model work with one short call (an llm
    model is checked as ``digest_model``)."""
    from hermes_plugin import host_model
    from scope_recall_engine.errors import ConfigError
    from scope_recall_engine.writing import digest

    if choice not in digest.EXTRACTORS:
        raise ConfigError(f"digest extractor {choice!r}: choose one of {', '.join(digest.EXTRACTORS)}")
    if choice != "llm":
        host_model.check(choice)


def check_model(model_id: str, *, require_key: bool = True) -> None:
    """Raise ConfigError for a digest model id ``llm`` does not know (or, with ``require_key``, has no key for)."""
    from scope_recall_engine.writing import digest

    try:
        digest.ModelExtractor(model_id)
    except MissingKey:
        if require_key:
            raise
