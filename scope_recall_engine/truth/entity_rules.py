"""The core's entity extractor: who and what a memory mentions, by rules (no model), so the index can be rebuilt
from truth at any time and gives the same answer every time.

Kinds: person, pet, place, organisation, project, tool, and ``other`` for a capitalised name the rules cannot
place. A capitalised word counts wherever it stands unless it is a common English word (``The``, ``Please``):
memories usually open with their subject ("Alice plays the cello"). A plugin adds a better extractor through the
``extract_entities`` hook; its findings join these, and the first specific kind found for a name wins.
"""

from __future__ import annotations

import re

from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.truth.vocabulary import PETS, RELATIONS, TOOLS

KINDS = ("person", "pet", "place", "organisation", "project", "tool", "other")
MAX_WORDS = 4

_NAME = r"(?-i:[A-Z][\w'’&.-]*(?: (?:of |de |da |van |von |del )?[A-Z][\w'’&.-]*){0,3})"
_CAPITALISED = re.compile(_NAME)
_HANDLE = re.compile(r"(?<![\w@.])@([A-Za-z0-9_][A-Za-z0-9_.-]{1,38}[A-Za-z0-9_])")
_OWNERS = r"(?:my|our|his|her|their|your|the user's|[A-Z]\w+'s)"
# (pattern, kind): the name is the pattern's "name" group
_CONTEXTS = (  # the order is the precedence when one name is found in several contexts
    (rf"\b{_OWNERS} (?:\w+ )?{RELATIONS},? (?P<name>{_NAME})", "person"),
    (rf"\b{_OWNERS} (?:\w+ )?{PETS},? (?:called |named )?(?P<name>{_NAME})", "pet"),
    (r"\b(?:a|the) (?:\w+ )?" + PETS + rf" (?:called|named) (?P<name>{_NAME})", "pet"),
    (rf"\b(?:works?|working|worked|employed|interning|an? \w+) (?:at|for|by) (?P<name>{_NAME})", "organisation"),
    (rf"\b(?:joined|joins|founded|runs|owns) (?P<name>{_NAME})", "organisation"),
    (rf"\b(?:project|repo|repository|service|product|app) (?P<name>{_NAME})", "project"),
    (rf"\b(?P<name>{_NAME}) (?:project|repo|repository|service|app)\b", "project"),
    (rf"\b(?:uses?|using|used|prefers?|written in|built with|codes? in|programs? in) (?P<name>{_NAME})", "tool"),
    (rf"\b(?:lives?|living|lived|moved|moving|born|based|grew up|staying|stays|travel(?:l?ing|l?ed|s)?|flew|"
     rf"flying|visit(?:ing|ed|s)?|from|near|in) (?:in |to |at |from |near )?(?P<name>{_NAME})", "place"),
)
_PATTERNS = tuple((re.compile(pattern, re.I), kind) for pattern, kind in _CONTEXTS)
_TOOL_WORDS = re.compile(r"\b(" + "|".join(sorted((re.escape(t) for t in TOOLS if len(t) > 2), key=len, reverse=True))
                         + r")\b", re.I)

# Words that open sentences or are capitalised for other reasons: never a name on their own.
COMMON = frozenset("""
a an the i i'm i've i'd i'll me my mine we we're we've our ours you you're your yours he he's him his she she's her
hers it it's its they they're them their theirs this that these those there here what when where which who whom whose
why how and or but nor so yet if then else because since although though while after before until unless also too
not no yes ok okay sure please thanks thank hi hello hey dear remember note notes todo fyi ps re is are was were be
been being am do does did done have has had having will would shall should can could may might must let let's
every each all any some many most much more few several both either neither none one two three first second last
next other another always never often sometimes usually today tomorrow yesterday tonight now soon later
just only even still already again once very really quite about above across against along among around at by
for from in into near of off on onto out over per since through to toward towards under up upon with within
without mr mrs ms dr prof st mt user users assistant agent memory memories fact facts monday tuesday wednesday
thursday friday saturday sunday january february march april may june july august september october november
december christmas easter english french german spanish italian prefers likes loves hates wants needs lives
works plays uses buy call send check ask tell make get take keep use avoid allergic
""".split())


def _clean(name: str) -> str | None:
    """The name as a link keeps it: possessive and edge punctuation off, at most MAX_WORDS words, no common word."""
    name = re.sub(r"['’]s$", "", name.strip(" .,;:!?'\"’-"))
    words = name.split()
    while words and _common(words[0]):
        words = words[1:]
    while words and (_common(words[-1]) or words[-1] in ("of", "de", "da", "van", "von", "del")):
        words = words[:-1]
    if not words or len(words) > MAX_WORDS or len(" ".join(words)) < 2:
        return None
    return " ".join(words)


def _common(word: str) -> bool:
    word = word.casefold()
    return word in COMMON or (word.endswith("s") and word[:-1] in COMMON)


def rules(text: str) -> list[tuple[str, str]]:
    """(name, kind) for every entity the rules find, contextual kinds first, in order of appearance."""
    found: list[tuple[str, str]] = []
    for pattern, kind in _PATTERNS:
        for match in pattern.finditer(text):
            if name := _clean(match.group("name")):
                found.append((name, kind))
    found += [("@" + match.group(1), "person") for match in _HANDLE.finditer(text)]
    found += [(match.group(1), "tool") for match in _TOOL_WORDS.finditer(text)]
    for match in _CAPITALISED.finditer(text):
        if text[match.start() - 1:match.start()] != "@" and (name := _clean(match.group(0))):
            found.append((name, "other"))
    return found


@hookimpl
def extract_entities(text):
    return rules(text)
