"""Extraction through a chat model: one structured-JSON call per scope's turns, one per decision against the
neighbours. Any chat model fits, given as ``complete(system, prompt) -> text``: an ``llm`` model
(``ModelExtractor``), or a host's own model that the host's adapter passes in (``ChatExtractor``; inside Hermes,
``hermes_plugin.host_model``), so the engine never imports a host.
"""

from __future__ import annotations

import json
import re
import time
from itertools import groupby
from typing import Callable

from scope_recall_engine.errors import ConfigError, ExtractionFailed, MissingKey, ScopeRecallError
from scope_recall_engine.truth.scope import TARGETS
from scope_recall_engine.writing.adjudication import Decision, Fact, Neighbour

PROMPT_VERSION = "digest-prompt-2"
EXTRACT_SYSTEM = """You keep the long-term memory of an assistant. Read the conversation turns and extract only
durable facts worth remembering in future, unrelated conversations: stable facts about the user (name, home and
moves, work, tools and languages, family and pets with their names, health: allergies, intolerances, conditions,
medication; diet; lasting likes, dislikes and routines; how they want answers: length, format, units, language),
standing instructions, and facts about their projects. A later statement that changes a fact ("I'm not vegetarian
anymore", "we moved to Porto") is a fact too. Most turns contain nothing durable. Only what the user says about
themselves counts; the assistant's turns only confirm. Greetings, questions, one-off requests, small talk, moods,
plans for today, hypotheticals, jokes, other people's opinions, the assistant's suggestions and anything the
assistant says about itself are NOT facts. When in doubt, leave it out. Never copy secrets or [REDACTED:...]
markers. Reply with JSON only: {"facts": [{"entries": [<ids of the turns it comes from>], "target":
"user|memory|project|ops", "key": "<attribute of a single-valued fact, e.g. name, home, employer, diet; else null>",
"content": "<one short third-person sentence starting 'The user'>"}]}. Reply {"facts": []} when nothing is durable."""
DECIDE_SYSTEM = """A fact was extracted from a conversation. Existing memories of the same scope are listed as
[id] state: text. Decide one:
ADD - the fact is new.
UPDATE <id> - it is the same fact as candidate <id>, perhaps reworded or refined.
SUPERSEDE <id> - it replaces active memory <id>, which is no longer true.
NOOP <id> - memory <id> already says this, or a person rejected it.
Reply with JSON only: {"decision": "ADD|UPDATE|SUPERSEDE|NOOP", "id": <id or null>, "reason": "<short>"}"""
CHECK_SYSTEM = "You are checking that a connection works."
CHECK_PROMPT = 'Reply with this JSON and nothing else: {"ok": true}'
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def parse_json(text: str, model_id: str) -> dict:
    try:
        data = json.loads(_FENCE.sub("", (text or "").strip()))
    except json.JSONDecodeError:
        raise ExtractionFailed(f"model {model_id} did not reply with JSON; the entries stay queued") from None
    if not isinstance(data, dict):
        raise ExtractionFailed(f"model {model_id} replied with JSON that is not an object")
    return data


class ChatExtractor:
    """Extracts facts from each scope's turns, and decides against the neighbours, through ``complete``."""

    prompt_version = PROMPT_VERSION

    def __init__(self, complete: Callable[[str, str], str], model: str, name: str = "host"):
        self.complete, self.model, self.name = complete, model, name

    def ask(self, system_prompt: str, prompt: str) -> dict:
        """One call; a failing model (no network, no provider) is an ExtractionFailed, and the entries wait."""
        try:
            text = self.complete(system_prompt, prompt)
        except ScopeRecallError:
            raise
        except Exception as error:
            raise ExtractionFailed(f"{self.name} model {self.model} failed ({type(error).__name__}: "
                                   f"{str(error).splitlines()[0] if str(error) else 'no message'}); "
                                   "the entries stay queued") from error
        return parse_json(text, self.model)

    def extract(self, entries: list[dict]) -> list[Fact]:
        facts = []
        for _scope, group in groupby(entries, key=lambda entry: entry["scope_id"]):
            group = list(group)
            turns = "\n".join(f"[{e['id']}] {e['role']}: {e['content']}" for e in group)
            facts.extend(self._facts(self.ask(EXTRACT_SYSTEM, "Turns:\n" + turns), {e["id"] for e in group}))
        return facts

    @staticmethod
    def _facts(data: dict, ids: set[int]) -> list[Fact]:
        """Keep well-formed facts that cite turns of this group; drop the rest."""
        facts = []
        for item in data.get("facts") or []:
            if not isinstance(item, dict) or not isinstance(item.get("content"), str):
                continue
            cited = tuple(i for i in item.get("entries") or [] if isinstance(i, int) and i in ids)
            target = item.get("target") if item.get("target") in TARGETS else "user"
            key = item.get("key") if isinstance(item.get("key"), str) and item.get("key").strip() else None
            if cited:
                facts.append(Fact(target, item["content"].strip(), cited, key and key.strip().lower()))
        return facts

    def decide(self, fact: Fact, near: list[Neighbour]) -> Decision | None:
        listing = "\n".join(f"[{n.id}] {n.lifecycle}: {n.content}" for n in near)
        data = self.ask(DECIDE_SYSTEM, f"Fact: {fact.content}\nExisting:\n{listing}")
        action = str(data.get("decision", "")).upper()
        if action not in ("ADD", "UPDATE", "SUPERSEDE", "NOOP"):
            return None
        named = data.get("id") if isinstance(data.get("id"), int) else None
        note = str(data.get("reason") or "")[:300] or None
        reason = f"model: {action}" + (f" {named}" if named is not None else "")
        return Decision(action, named if action != "ADD" else None, reason, by="model", note=note)

    def check(self) -> str:
        """One short call, for a setup flow to prove the choice works before it is saved; raises if not."""
        started = time.perf_counter()
        if self.ask(CHECK_SYSTEM, CHECK_PROMPT).get("ok") is not True:
            raise ExtractionFailed(f"{self.name} model {self.model} answered, but not with {{\"ok\": true}}")
        return f"{self.name} model {self.model} answered in {(time.perf_counter() - started) * 1000:.0f} ms"


def llm_model(model_id: str):
    """The ``llm`` model for an id, with its key: an unknown id or a missing key is one line saying what to run."""
    import llm  # lazy: the CLI's other commands should not pay for it

    try:
        model = llm.get_model(model_id)
    except llm.UnknownModelError:
        raise ConfigError(f"unknown digest model {model_id!r}: `llm models` lists the ids; `llm install "
                          "<plugin>` adds the plugin that provides it") from None
    try:
        model.get_key()  # None for a model that needs no key
    except llm.NeedsKeyException:
        where = f" (or set {model.key_env_var})" if getattr(model, "key_env_var", None) else ""
        raise MissingKey(f"digest model {model.model_id!r} needs an API key: run `llm keys set {model.needs_key}`"
                          f"{where}, or use --extractor rules") from None
    return model


class ModelExtractor(ChatExtractor):
    """An ``llm`` chat model by id (see ``llm_model`` for the errors it raises up front)."""

    def __init__(self, model_id: str):
        model = llm_model(model_id)
        super().__init__(lambda system, prompt: model.prompt(prompt, system=system).text(), model.model_id, "llm")
