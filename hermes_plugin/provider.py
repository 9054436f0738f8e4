"""The Scope Recall ``MemoryProvider``: every hook forwards to ``runtime.Runtime``, where the real work lives.
Nothing here raises into Hermes: a failure is logged and the turn goes on without memory; the setup and status
hooks read and write the one settings file (``settings.py``) and report (``status.py``)."""

from __future__ import annotations

import importlib.util
import json
import logging
import os

from agent.memory_provider import MemoryProvider

logger = logging.getLogger("scope_recall.hermes")


def _hermes_home() -> str:
    from hermes_constants import get_hermes_home  # Hermes' own resolution: profile override, then HERMES_HOME

    return str(get_hermes_home())


class ScopeRecallProvider(MemoryProvider):
    name = "scope-recall"

    def __init__(self):
        self._runtime = None
        self._initialized = False
        self.status = "not initialized"

    def is_available(self) -> bool:
        return importlib.util.find_spec("scope_recall_engine") is not None

    def initialize(self, session_id: str, **kwargs) -> None:
        from hermes_plugin import runtime

        home = kwargs.pop("hermes_home", None) or os.environ.get("HERMES_HOME") or "~/.hermes"
        self._call(None, "close")  # initialized again: the previous session's connections go first
        self._initialized = True
        try:
            self._runtime = runtime.Runtime(session_id, home, **kwargs)
            self.status = f"active: store {self._runtime.db_path}"
        except Exception as error:  # a refusal (no user id in a gateway) or a broken config: memory stays off
            self._runtime, self.status = None, f"off: {error}"
            logger.warning("Scope Recall %s", self.status)
            if callable(kwargs.get("warning_callback")):
                kwargs["warning_callback"](f"Scope Recall memory is {self.status}")

    def _call(self, default, method: str, *args, **kwargs):
        if self._runtime is None:
            return default
        try:
            return getattr(self._runtime, method)(*args, **kwargs)
        except Exception:
            logger.exception("Scope Recall %s failed", method)
            return default

    def system_prompt_block(self) -> str:
        return self._call("", "prompt_block")

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        return self._call("", "prefetch", query)

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        """Deliberately nothing: recall is always for the current query, never a stale previous turn."""

    def sync_turn(self, user_content: str, assistant_content: str, *, session_id: str = "", messages=None) -> None:
        self._call(0, "capture", [("user", user_content), ("assistant", assistant_content)])

    def on_pre_compress(self, messages) -> str:
        from hermes_plugin.runtime import turns_from_messages

        self._call(0, "capture", turns_from_messages(messages))
        return ""

    def on_delegation(self, task: str, result: str, *, child_session_id: str = "", **kwargs) -> None:
        """Deliberately nothing: a subagent's result is tool output (web pages, files), which the journal never
        keeps; what the parent tells the user about it arrives through ``sync_turn`` like any other reply."""

    def on_session_end(self, messages) -> None:
        self._call(False, "end_session")

    def on_session_switch(self, new_session_id: str, *, parent_session_id: str = "", reset: bool = False,
                          rewound: bool = False, **kwargs) -> None:
        self._call(None, "switch_session", new_session_id, reset=reset, reason=kwargs.get("reason", ""))

    def on_memory_write(self, action: str, target: str, content: str, metadata=None) -> None:
        self._call(None, "observe_memory_write", action, target)

    def get_tool_schemas(self) -> list:
        from scope_recall_engine import agent_tools

        # Hermes indexes tools before initialize; after it, a disabled or non-primary session offers none.
        if self._runtime is None:
            return [] if self._initialized else list(agent_tools.SCHEMAS)
        return self._runtime.tool_schemas()

    def handle_tool_call(self, tool_name: str, args, **kwargs) -> str:
        unavailable = json.dumps({"error": f"Scope Recall could not run {tool_name} (memory {self.status}; "
                                           "details in the Hermes log)",
                                  "hint": "Tell the user long-term memory is unavailable right now."})
        return self._call(unavailable, "call_tool", tool_name, args)

    def get_config_schema(self) -> list:
        """``hermes memory setup`` and ``status`` call this for every installed provider: it must never raise."""
        from hermes_plugin import settings

        try:
            return settings.schema(_hermes_home())
        except Exception as error:
            logger.warning("Scope Recall settings unreadable: %s", error)
            return []

    def save_config(self, values, hermes_home: str) -> None:
        from hermes_plugin import settings

        settings.save(hermes_home, values)  # Hermes prints a refusal (unknown model) as "Failed to write ..."

    def get_status_config(self, provider_config) -> dict:
        """``hermes memory status``: the store, user, digest model, backlog, last run and last error."""
        from hermes_plugin import status

        try:
            report = status.report(_hermes_home())
        except Exception as error:
            return {"status": f"unreadable: {type(error).__name__}: {error}"}
        problems = report.pop("problems")
        report["ok"] = "yes" if report["ok"] else "NO: " + "; ".join(problems)
        return report

    def shutdown(self) -> None:
        self._call(None, "close")
