"""Scope Recall memory provider for Hermes Agent. Hermes finds this folder in ``$HERMES_HOME/plugins/`` and calls
``register(ctx)``, which hands it the provider (``ctx.register_memory_provider``). The provider, its runtime and
the ``scope-recall hermes`` commands live in the installed ``hermes_plugin`` package, so an upgrade of
scope-recall upgrades them too.

When that package or the engine cannot be imported from Hermes' Python (installed into another environment, or
half-installed), ``register`` still hands Hermes a provider: one that says it is unavailable, why, and the exact
command that installs it, so ``hermes memory status`` and ``hermes memory setup`` keep working for every provider.
"""

import functools
import json
import logging
import shlex
import sys
from pathlib import Path

PROVIDER_NAME = "scope-recall"  # the folder under HERMES_HOME/plugins/ and the memory.provider value
SOURCE_FILE = "install.json"  # written beside this file by `scope-recall hermes install`: how to reinstall


def register(ctx) -> None:
    try:
        from hermes_plugin import runtime  # noqa: F401  (the engine and its dependencies, imported for real)
        from hermes_plugin.provider import ScopeRecallProvider
    except Exception as error:  # not installed in this Python, or broken: say so instead of vanishing
        ctx.register_memory_provider(unavailable(f"{type(error).__name__}: {error}"))
        return
    ctx.register_memory_provider(ScopeRecallProvider())


def install_command() -> str:
    """The command that installs scope-recall into the Python running Hermes, as it was installed before."""
    here = Path(__file__).resolve().parent
    try:
        spec = json.loads((here / SOURCE_FILE).read_text(encoding="utf-8"))["pip"]
    except (OSError, ValueError, KeyError):
        project = here.parent  # a --link install: this folder is the package inside the project
        spec = f"-e {shlex.quote(str(project))}" if (project / "pyproject.toml").is_file() else "scope-recall"
    return f"{shlex.quote(sys.executable)} -m pip install {spec}"


@functools.cache
def _warn_once(reason: str, command: str) -> None:
    """Hermes loads providers several times per command: one line in its log is enough."""
    logging.getLogger("scope_recall.hermes").warning(
        "Scope Recall memory is unavailable in %s (%s); install it with: %s", sys.executable, reason, command)


def unavailable(reason: str):
    """A provider Hermes can list, set up and report on, which never activates (``is_available`` is False)."""
    from agent.memory_provider import MemoryProvider

    command = install_command()
    _warn_once(reason, command)

    class UnavailableProvider(MemoryProvider):
        name = PROVIDER_NAME

        def is_available(self) -> bool:
            return False

        def initialize(self, session_id: str, **kwargs) -> None:
            """Never called: Hermes does not initialize an unavailable provider."""

        def get_tool_schemas(self) -> list:
            return []

        def get_config_schema(self) -> list:
            return []

        def get_status_config(self, provider_config) -> dict:
            return {"status": f"unavailable: scope-recall cannot be imported here ({reason})",
                    "install": command}

        def post_setup(self, hermes_home: str, config: dict) -> None:
            print(f"\n  Scope Recall is not installed in this Python ({reason}).\n  Install it with:\n"
                  f"    {command}\n  then run `hermes memory setup` again. Nothing was changed.\n")

    return UnavailableProvider()
