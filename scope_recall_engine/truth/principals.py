"""Principals: who acts. ``human:<name>``, ``agent:<identity>``, ``system:<job>``."""

from __future__ import annotations

from dataclasses import dataclass

from scope_recall_engine.errors import InvalidInput

KINDS = ("human", "agent", "system")


@dataclass(frozen=True)
class Principal:
    kind: str
    name: str

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InvalidInput(f"unknown principal kind {self.kind!r}: use human, agent or system")
        if not self.name or not self.name.strip() or "\x00" in self.name or len(self.name) > 256:
            raise InvalidInput("a principal needs a non-empty name of at most 256 characters")

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"


def human(name: str) -> Principal:
    return Principal("human", name)


def agent(name: str) -> Principal:
    return Principal("agent", name)


def system(job: str) -> Principal:
    return Principal("system", job)
