"""Scopes: who may see a row, derived only from the identity the host supplies.

A scope id is a sequence of labelled, length-framed components such as
``platform:3:cli|workspace:6:hermes|agent:7:default|user:5:alice``. The length prefix
means a delimiter inside an identifier can never forge a different scope.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scope_recall_engine.errors import InvalidInput

SHARED_TARGETS = ("user", "memory", "project", "ops")
LOCAL_TARGETS = ("general",)
TARGETS = SHARED_TARGETS + LOCAL_TARGETS
SHARED_LABELS = ("platform", "workspace", "agent", "user")
LOCAL_LABELS = ("chat", "thread", "session")
MAX_IDENTIFIER_CHARS = 256
_COMPONENT = re.compile(r"([a-z]+):(\d+):")


@dataclass(frozen=True)
class Identity:
    """Who the host says is talking; the only source of scope."""

    user: str
    platform: str = "cli"
    agent: str = "default"
    workspace: str = "hermes"
    chat: str | None = None
    thread: str | None = None
    session: str | None = None

    def __post_init__(self):
        if self.user is None or not str(self.user).strip():
            raise InvalidInput("a user id is required: memories are never pooled across unknown users")
        for label in SHARED_LABELS + LOCAL_LABELS:
            value = getattr(self, label)
            if value is None:
                continue
            if not isinstance(value, str) or not value.strip():
                raise InvalidInput(f"{label} must be a non-empty string when given")
            if len(value) > MAX_IDENTIFIER_CHARS or "\x00" in value:
                raise InvalidInput(f"{label} must be at most {MAX_IDENTIFIER_CHARS} characters, without NUL bytes")

    @property
    def shared_scope(self) -> str:
        """Durable scope for user/memory/project/ops: follows one user across chats."""
        return frame([(label, getattr(self, label)) for label in SHARED_LABELS])

    @property
    def local_scope(self) -> str:
        """Scratch scope for ``general``: the shared scope plus chat/thread/session."""
        local = [(label, getattr(self, label)) for label in LOCAL_LABELS if getattr(self, label)]
        return self.shared_scope + "|" + frame(local or [("session", "default")])

    def scope_for(self, target: str) -> str:
        check_target(target)
        return self.local_scope if target in LOCAL_TARGETS else self.shared_scope

    def accessible(self, aliases: tuple[str, ...] = ()) -> tuple[str, ...]:
        """Every scope this identity may read: local, shared and explicitly configured aliases."""
        return (self.local_scope, self.shared_scope, *aliases)


def check_target(target: str) -> str:
    if target not in TARGETS:
        raise InvalidInput(f"unknown target {target!r}: choose one of {', '.join(TARGETS)}")
    return target


def frame(components: list[tuple[str, str]]) -> str:
    return "|".join(f"{label}:{len(value)}:{value}" for label, value in components)


def decode(scope_id: str) -> list[tuple[str, str]]:
    """Parse a scope id back into its (label, value) components, honouring the length frames."""
    components, position = [], 0
    while position < len(scope_id):
        match = _COMPONENT.match(scope_id, position)
        if not match:
            raise InvalidInput(f"malformed scope id at position {position}: {scope_id!r}")
        start = match.end()
        end = start + int(match.group(2))
        if end > len(scope_id) or (end < len(scope_id) and scope_id[end] != "|"):
            raise InvalidInput(f"malformed scope id: frame of {match.group(1)!r} overruns: {scope_id!r}")
        components.append((match.group(1), scope_id[start:end]))
        position = end + 1
    return components


def shared_part(scope_id: str) -> str:
    """The durable scope a (possibly local) scope belongs to: where tombstones live."""
    return frame([c for c in decode(scope_id) if c[0] in SHARED_LABELS])


def label(scope_id: str) -> str:
    """A readable label for operators, e.g. ``cli · alice · chat 42``."""
    parts = dict(decode(scope_id))
    words = [parts.get("platform", "?"), parts.get("user", "?")]
    words += [f"{name} {parts[name]}" for name in LOCAL_LABELS if name in parts]
    if parts.get("agent") not in (None, "default"):
        words.insert(1, f"agent {parts['agent']}")
    return " · ".join(words)
