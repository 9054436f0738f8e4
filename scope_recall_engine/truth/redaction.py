"""What may enter the journal: noise is dropped and secrets are redacted before anything touches disk.

The core registers its rules and its noise filter through the engine's own hooks ("just a plugin"), so a user's
plugin adds rules the same way.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable

from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.plugins import load_plugins

JOURNALED_ROLES = ("user", "assistant")
ACKNOWLEDGEMENTS = frozenset({
    "ok", "okay", "k", "kk", "ok thanks", "okay thanks", "thanks", "thank you", "thank you so much", "thx", "ty",
    "yes", "yep", "yeah", "yup", "no", "nope", "sure", "cool", "great", "nice", "good", "fine", "perfect",
    "awesome", "got it", "gotcha", "alright", "all right", "lol", "haha", "hmm", "hi", "hello", "hey", "bye",
    "sounds good", "will do", "done", "continue", "go on", "go ahead", "proceed", "👍", "🙏", "👌", "✅",
})
_MARKER = re.compile(
    r"^\s*(?:(?:\[(?:image|img|photo|picture|screenshot|attachment|file|document|audio|video|voice|sticker|gif)"
    r"\b[^\]]*\]|<(?:image|attachment|media omitted)[^>]*>)\s*)+$", re.IGNORECASE)
_TOOL_PREFIXES = ("<tool_call", "<tool_response", "<tool_result", "<function_results", "<function_calls",
                  "[tool", "tool output:", "tool result:")


@dataclass(frozen=True)
class Rule:
    """A secret pattern; the named group ``secret`` (if any) is what gets replaced, else the whole match."""

    name: str
    pattern: re.Pattern
    check: Callable[[str], bool] | None = None


@dataclass(frozen=True)
class Sanitized:
    text: str | None  # None when the turn is dropped
    dropped: str | None = None
    redactions: int = 0


def luhn(candidate: str) -> bool:
    digits = [int(ch) for ch in candidate if ch.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for position, digit in enumerate(reversed(digits)):
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


_WHAT_FOR = r"(?:\s+(?:for|to|on|of)(?:\s+[\w'.@-]+){1,4}?)?"  # "my password for the school portal is ..."
DEFAULT_RULES = (
    ("private_key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.S),
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_-]{16,}", 0),
    ("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", 0),
    ("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})", 0),
    ("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", 0),
    ("slack_token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 0),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}", 0),
    ("stripe_key", r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}", 0),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 0),
    ("bearer_token", r"\bbearer\s+(?P<secret>[A-Za-z0-9._~+/=-]{12,})", re.I),
    ("password", r"\b(?:pass(?:word|phrase|code)?|passwd|pwd)\b" + _WHAT_FOR + r"(?:\s+(?:is|was|=)|\s*[:=])\s*"
                 r"(?P<secret>\"[^\"]+\"|'[^']+'|\S+)", re.I),
    ("pin", r"\bpin(?:\s+(?:code|number))?\b" + _WHAT_FOR + r"(?:\s+(?:is|was|=)|\s*[:=])\s*(?P<secret>\d{4,8})\b",
     re.I),
    ("assigned_secret", r"\b(?:api[_-]?key|secret(?:[_-]?key)?|access[_-]?token|auth[_-]?token|aws_secret_access_key)"
                        r"\b\s*[:=]\s*(?P<secret>[^\s\"']{8,})", re.I),
)


@hookimpl
def register_redaction_rules(register):
    for name, pattern, flags in DEFAULT_RULES:
        register(name, re.compile(pattern, flags))
    register("card_number", re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)"), luhn)


@hookimpl
def capture_filter(role, text):
    """The core's noise filter: only user/assistant prose is worth keeping."""
    if role not in JOURNALED_ROLES:
        return f"{role} turn"
    stripped = (text or "").strip()
    if not stripped:
        return "empty"
    if re.sub(r"[\s.!,]+", " ", stripped.casefold()).strip() in ACKNOWLEDGEMENTS:
        return "acknowledgement"
    if _MARKER.match(stripped):
        return "attachment marker"
    if stripped.casefold().startswith(_TOOL_PREFIXES) or _is_json(stripped):
        return "tool output"
    return None


def _is_json(text: str) -> bool:
    if text[0] not in "{[" or text[-1] not in "}]":
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


_cache: dict = {}


def rules() -> tuple[Rule, ...]:
    """Every registered rule, collected once per set of plugins."""
    manager = load_plugins()
    key = frozenset(map(id, manager.get_plugins()))
    if key not in _cache:
        collected: list[Rule] = []
        manager.hook.register_redaction_rules(
            register=lambda name, pattern, check=None: collected.append(
                Rule(name, re.compile(pattern) if isinstance(pattern, str) else pattern, check)))
        _cache.clear()
        _cache[key] = tuple(collected)
    return _cache[key]


def redact(text: str) -> tuple[str, int]:
    """Replace every secret with ``[REDACTED:<rule>]``; returns the text and the number of replacements."""
    count = 0
    for rule in rules():
        def replace(match, rule=rule):
            nonlocal count
            if rule.check and not rule.check(match.group(0)):
                return match.group(0)
            count += 1
            value, tag = match.group(0), f"[REDACTED:{rule.name}]"
            if "secret" not in rule.pattern.groupindex or not match.group("secret"):
                return tag
            start, end = (index - match.start() for index in match.span("secret"))
            return value[:start] + tag + value[end:]
        text = rule.pattern.sub(replace, text)
    return text, count


def sanitize(role: str, text: str | None) -> Sanitized:
    """Drop noise, then redact: the only form of a turn the journal ever sees."""
    reason = load_plugins().hook.capture_filter(role=role, text=text)
    if reason:
        return Sanitized(None, dropped=reason)
    redacted, count = redact(text.strip())
    return Sanitized(redacted, redactions=count)
