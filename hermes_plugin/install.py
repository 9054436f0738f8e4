"""``scope-recall hermes install|verify``: place the provider folder in a Hermes home (and, for a deployment that
serves several people, turn off Hermes' own shared memory), and load it the way Hermes does to check it."""

from __future__ import annotations

import dataclasses
import json
import shlex
import shutil
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from hermes_plugin import PROVIDER_NAME, SOURCE_FILE, host
from scope_recall_engine import config as settings
from scope_recall_engine.errors import ConfigError
from scope_recall_engine.truth.store import hermes_store

SOURCE = Path(__file__).resolve().parent
SHIM_FILES = ("__init__.py", "plugin.yaml")  # what Hermes needs in its plugins folder


def install(hermes_home: str | Path, *, link: bool = False, multi_user: bool = False,
            edit_hermes_config: bool = True) -> list[str]:
    """Place the plugin at ``H/plugins/scope-recall/`` (a copy, or a symlink for development); with
    ``multi_user``, record it and turn Hermes' built-in memory off, or (``edit_hermes_config=False``) refuse
    while it is on, before anything is changed. Returns what was done, a line each."""
    home = Path(hermes_home).expanduser()
    target = home / "plugins" / PROVIDER_NAME
    on = host.builtin_memory_on(home) if multi_user else []
    if on and not edit_hermes_config:
        raise ConfigError(host.isolation_problem(home, multi_user))
    _place(target, link)
    done = [f"{'linked' if link else 'installed'} {target}"]
    if multi_user:
        path = hermes_store(home)
        settings.save(path, dataclasses.replace(settings.load(path), multi_user=True))
        done.append(f"recorded a multi-user deployment in {settings.config_path(path)}")
    if on:
        try:
            host.turn_off(home, on)
        except ImportError:
            raise ConfigError("hermes-agent is not importable here to change its settings; run: "
                              + " && ".join(host.config_commands(home, on))) from None
        done.append(f"turned off Hermes' built-in memory (shared by every user): {', '.join(on)} = false")
    return done


def _place(target: Path, link: bool) -> None:
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
        return
    target.mkdir()
    for name in SHIM_FILES:  # the rest is imported from the installed package, so upgrades reach it
        shutil.copy2(SOURCE / name, target / name)
    (target / SOURCE_FILE).write_text(json.dumps({"pip": pip_spec()}) + "\n", encoding="utf-8")


def pip_spec() -> str:
    """pip's arguments that install this scope-recall again, as it was installed (editable, a path, a URL or a
    version): the shim shows them, after Hermes' Python, when the package cannot be imported there."""
    found = list(metadata.distributions(name="scope-recall"))  # a source tree's egg-info may come first
    if not found:
        return "scope-recall"
    distribution = next((d for d in found if d.read_text("direct_url.json")), found[0])
    direct = json.loads(distribution.read_text("direct_url.json") or "{}")
    url = direct.get("url", "")
    if url.startswith("file://"):
        path = shlex.quote(unquote(urlparse(url).path))
        return f"-e {path}" if direct.get("dir_info", {}).get("editable") else path
    return shlex.quote(url) if url else f"scope-recall=={distribution.version}"


def verify(hermes_home: str | Path) -> dict:
    """Load the provider exactly as Hermes does (``plugins.memory.load_memory_provider``) and report, including
    whether Hermes' built-in memory breaks isolation in a multi-user deployment."""
    home = Path(hermes_home).expanduser()
    try:
        from plugins import memory as hermes_memory
    except ImportError:
        raise ConfigError("hermes-agent is not importable here: run verify with the Python of the Hermes "
                          "environment") from None
    with host.hermes_home_env(home):
        discovered = PROVIDER_NAME in hermes_memory.list_memory_provider_names()
        provider = hermes_memory.load_memory_provider(PROVIDER_NAME)
    available = bool(provider and provider.is_available())
    multi_user = settings.load(hermes_store(home)).multi_user
    on = host.builtin_memory_on(home)
    report = {
        "hermes_home": str(home), "plugin_dir": str(home / "plugins" / PROVIDER_NAME), "discovered": discovered,
        "loaded": provider is not None, "provider": getattr(provider, "name", None), "available": available,
        "tools": [schema["name"] for schema in provider.get_tool_schemas()] if available else [],
        "store": str(hermes_store(home)), "config": str(settings.config_path(hermes_store(home))),
        "active": host.active_provider(home) == PROVIDER_NAME,
        "deployment": "multi-user" if multi_user else "single-user",
        "hermes_builtin_memory": f"on ({', '.join(on)})" if on else "off",
    }
    problems = [host.isolation_problem(home, multi_user)]
    if provider is not None and not available:  # the shim's stand-in: why, and the command that installs it
        problems.append("; ".join(f"{key}: {value}" for key, value in provider.get_status_config({}).items()))
    report["problems"] = [problem for problem in problems if problem]
    report["ok"] = report["loaded"] and available and not report["problems"]
    return report
