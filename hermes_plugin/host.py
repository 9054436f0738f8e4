"""What Scope Recall needs to know about the Hermes home it runs in: the active provider, and whether Hermes' own
built-in memory (MEMORY.md / USER.md, one pair of files for the whole home) is on beside it. In a deployment that
serves several people those files reach every user's system prompt, so there they must be off."""

from __future__ import annotations

import contextlib
import io
import os
import shlex
from pathlib import Path

# Hermes' settings for its built-in memory; both default to on (hermes_cli.config.DEFAULT_CONFIG["memory"]).
BUILTIN_MEMORY = ("memory.memory_enabled", "memory.user_profile_enabled")
DEFAULT_HOME = Path("~/.hermes")


def default_home() -> Path:
    return Path(os.environ.get("HERMES_HOME") or DEFAULT_HOME).expanduser()


def memory_settings(home: str | Path) -> dict:
    """The ``memory`` section of HOME/config.yaml as written (Hermes' defaults apply to what is missing)."""
    path = Path(home).expanduser() / "config.yaml"
    if not path.is_file():
        return {}
    import yaml

    section = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("memory")
    return section if isinstance(section, dict) else {}


def active_provider(home: str | Path) -> str | None:
    return memory_settings(home).get("provider") or None


def builtin_memory_on(home: str | Path) -> list[str]:
    """The built-in memory settings that are on, read the way Hermes reads them (truthy, default on)."""
    memory = memory_settings(home)
    return [key for key in BUILTIN_MEMORY if bool(memory.get(key.split(".", 1)[1], True))]


def config_commands(home: str | Path, keys: list[str]) -> list[str]:
    """The exact ``hermes config set`` commands that turn these settings off for this Hermes home."""
    home = Path(home).expanduser()
    prefix = "" if home.resolve() == DEFAULT_HOME.expanduser().resolve() else \
        f"HERMES_HOME={shlex.quote(str(home))} "
    return [f"{prefix}hermes config set {key} false" for key in keys]


def turn_off(home: str | Path, keys: list[str]) -> None:
    """Set each key to false through Hermes' own ``hermes config set`` code (it writes only what it changes)."""
    from hermes_cli.config import set_config_value

    with hermes_home_env(Path(home).expanduser()), contextlib.redirect_stdout(io.StringIO()):
        for key in keys:
            set_config_value(key, "false")


def isolation_problem(home: str | Path, multi_user: bool) -> str | None:
    """Why this home leaks between users, with the fix; None when it does not."""
    on = builtin_memory_on(home) if multi_user else []
    if not on:
        return None
    return (f"Hermes' built-in memory is on ({', '.join(on)}) in a multi-user deployment: its notes reach every "
            f"user's system prompt. Turn it off: {' && '.join(config_commands(home, on))}")


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
