"""Plugin manager for the engine's hooks: entry points in group ``scope_recall``, and the core's own plugins.

The product's own entry points (the console, Hermes and bench commands) always load. ``SCOPE_RECALL_LOAD_PLUGINS``
(comma-separated distribution names, possibly empty) limits which other installed plugins load, as
``LLM_LOAD_PLUGINS`` does for llm; under pytest only the product's own load unless it names more.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from importlib import metadata

import pluggy

from scope_recall_engine import hookspecs

DEFAULT_PLUGINS = (
    "scope_recall_engine.truth.redaction",
    "scope_recall_engine.truth.entity_rules",
    "scope_recall_engine.truth.entities",
    "scope_recall_engine.reading.ledger",
    "scope_recall_engine.companion.vectors",
    "scope_recall_engine.writing.feedback",
)
OWN_DISTRIBUTION = "scope-recall"
ENTRY_POINT_GROUP = "scope_recall"

pm = pluggy.PluginManager("scope_recall")
pm.add_hookspecs(hookspecs)
_loaded = False
_loading = threading.Lock()


def load_plugins() -> pluggy.PluginManager:
    """Register the core's plugins and installed ones, once per process (threads wait for the first load:
    a turn journaled before the redaction rules are registered would be stored unredacted)."""
    global _loaded
    with _loading:
        if not _loaded:
            _register()
            _loaded = True
    return pm


def _register() -> None:
    chosen = os.environ.get("SCOPE_RECALL_LOAD_PLUGINS")
    _load_distribution(OWN_DISTRIBUTION)
    if chosen is None and "pytest" not in sys.modules:
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    for name in (chosen or "").split(","):
        if name.strip():
            _load_distribution(name.strip())
    for module_name in DEFAULT_PLUGINS:
        if not pm.has_plugin(module_name):
            pm.register(importlib.import_module(module_name), name=module_name)


def _load_distribution(name: str) -> None:
    try:
        distribution = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        sys.stderr.write(f"scope-recall plugin {name} could not be found\n")
        return
    for entry_point in distribution.entry_points:
        if entry_point.group == ENTRY_POINT_GROUP and not pm.has_plugin(entry_point.name):
            pm.register(entry_point.load(), name=entry_point.name)
