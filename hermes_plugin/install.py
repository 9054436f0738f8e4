"""``scope-recall hermes install|verify``: place the provider folder in a Hermes home, and load it the way Hermes
does to check it."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from hermes_plugin import PROVIDER_NAME
from hermes_plugin.runtime import hermes_store
from scope_recall_engine import config as settings
from scope_recall_engine.errors import ConfigError

SOURCE = Path(__file__).resolve().parent
SHIM_FILES = ("__init__.py", "plugin.yaml")  # what Hermes needs in its plugins folder


def install(hermes_home: str | Path, *, link: bool = False) -> Path:
    """Place the plugin at ``H/plugins/scope-recall/`` (a copy, or a symlink for development)."""
    target = Path(hermes_home).expanduser() / "plugins" / PROVIDER_NAME
    if target.is_symlink():
        target.unlink()
    elif target.exists():
        manifest = target / "plugin.yaml"
        if not manifest.is_file() or f"name: {PROVIDER_NAME}" not in manifest.read_text():
            raise ConfigError(f"{target} exists and is not a Scope Recall plugin; move it away first")
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    if link:
        target.symlink_to(SOURCE, target_is_directory=True)
    else:
        target.mkdir()
        for name in SHIM_FILES:  # the rest is imported from the installed package, so upgrades reach it
            shutil.copy2(SOURCE / name, target / name)
    return target


@contextlib.contextmanager
def hermes_home_env(path: Path):
    previous = os.environ.get("HERMES_HOME")
    os.environ["HERMES_HOME"] = str(path)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("HERMES_HOME", None)
        else:
            os.environ["HERMES_HOME"] = previous


def verify(hermes_home: str | Path) -> dict:
    """Load the provider exactly as Hermes does (``plugins.memory.load_memory_provider``) and report."""
    home = Path(hermes_home).expanduser()
    try:
        from plugins import memory as hermes_memory
    except ImportError:
        raise ConfigError("hermes-agent is not importable here: run verify with the Python of the Hermes "
                          "environment") from None
    with hermes_home_env(home):
        discovered = PROVIDER_NAME in hermes_memory.list_memory_provider_names()
        provider = hermes_memory.load_memory_provider(PROVIDER_NAME)
    report = {
        "hermes_home": str(home), "plugin_dir": str(home / "plugins" / PROVIDER_NAME), "discovered": discovered,
        "loaded": provider is not None, "provider": getattr(provider, "name", None),
        "available": bool(provider and provider.is_available()),
        "tools": [schema["name"] for schema in provider.get_tool_schemas()] if provider else [],
        "store": str(hermes_store(home)), "config": str(settings.config_path(hermes_store(home))),
        "active": _configured_provider(home) == PROVIDER_NAME,
    }
    report["ok"] = report["loaded"] and report["available"]
    return report


def _configured_provider(home: Path) -> str | None:
    path = home / "config.yaml"
    if not path.is_file():
        return None
    import yaml

    memory = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("memory") or {}
    return memory.get("provider")
