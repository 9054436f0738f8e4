"""The offline rules extractor: what a user says about themselves, in the first person, becomes a third-person
candidate ("I'm allergic to shellfish" -> "The user is allergic to shellfish.").

Only statements are read: a question, a hypothetical ("if", "imagine", "what if"), a joke (lol, haha) or a hedge
("I think", "maybe") yields nothing. A rule fires only at the start of a clause whose subject is the user ("I",
"we", "my", or a clause continuing one: "I'm Farid, a pharmacist"), so reported speech and other people's opinions
yield nothing either. Each fact carries a slot where a later statement should replace it: one value for home,
employer or diet; one per thing for allergies and opinions ("allergy:peanuts"), so "I'm not allergic to peanuts
anymore" replaces exactly that fact. Assistant turns are never read: they only confirm.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator

from scope_recall_engine.truth.vocabulary import (
    ATTRIBUTES,
    CALENDAR,
    CONDITION,
    CONDITION_ADJECTIVES,
    DEMONYMS,
    DIETS,
    EXCLUSIVE_DIETS,
    LANGUAGES,
    MEDICATION,
    NOT_NAMES,
    OCCUPATIONS,
    PETS,
    RELATIONS,
    STUDENT,
    TOOLS,
)
from scope_recall_engine.writing.adjudication import Fact

RULES_VERSION = "rules-2"
Found = list[tuple[str, "str | None"]]  # (content, slot) pairs a rule makes of one clause


# ---- shared pieces of pattern --------------------------------------------------------------------------------
_ADV = (r"(?:(?:really|also|still|now|currently|actually|definitely|totally|absolutely|always|usually|normally|"
        r"generally|mostly|mainly|just|recently|originally|honestly|severely|very|quite|pretty|mildly|slightly|"
        r"extremely|highly|seriously|super|so|truly|finally|officially|basically|even|only|fully)\s+)*")
_BE = r"(?:I'm|I am|I've (?:always |now |also )?been|I have (?:always )?been|we're|we are|we've been) " + _ADV
_I = r"(?:I|we)(?:'m|'re|'ve| am| are| have)? " + _ADV  # a first-person subject, any auxiliary, adverbs
_NEG = r"(?P<neg>not (?:an? )?|no longer (?:an? )?|never )?"
_END = r"\s*$"
_NAME = r"(?P<name>(?-i:[A-Z][\w'-]+(?: [A-Z][\w'-]+)?))"
_PLACE = r"(?P<place>(?-i:(?:the )?[A-Z][\w'.-]*(?: (?:(?:de|da|do|del|of|upon|am|la|le) )?[A-Z][\w'.-]*){0,3}))"
_SEASONS = r"(?:week|month|year|weekend|summer|winter|spring|autumn|fall)"
_WHEN = (r"(?P<when> (?:(?:in|on|over|during|from|early|late|at the end of) (?:(?-i:[A-Z]\w+)|the \w+)|"
         r"(?:this|next) (?:" + _SEASONS + r"|(?-i:[A-Z]\w+))|in \d+ (?:weeks|months|days))"
         r"(?: \d{1,2}(?:st|nd|rd|th)?)?)")
_FREQ = re.compile(
    r"\b(?:every (?:single |other )?\w+(?: (?:morning|afternoon|evening|night))?|each (?:morning|evening|night|day|"
    r"week|weekend|month)|(?:on|most) (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|"
    r"weekdays)|(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays)\b|daily|"
    r"nightly|weekly|twice a \w+|once a \w+|\w+ times a \w+|before every \w+|usually|normally|typically)", re.I)
_FILLER = (r"now|too|though|actually|anymore|any more|currently|these days|nowadays|recently|already|again|at all|"
           r"much|a lot|very much|so much|by the way|btw|please|honestly|obviously|clearly|for now|at the moment|"
           r"right now|just so you know|fyi|as you know|for everything|properly|from now on|going forward|"
           r"with a passion|as far as I know|as far as I can tell|I think|I guess|I believe|there|"
           r"in future|in the future|by default|last \w+|yesterday|today|tonight|this morning|in \d{4}|since \d{4}|"
           r"as of \w+|for (?:about |almost |over |nearly |around |the last |the past )?(?:a|an|\w+|\d+) "
           r"(?:years?|months?|weeks?|days?|decades?)")
_FILLER_TAIL = re.compile(r"(?:[\s,]+(?:" + _FILLER + r"))+$", re.I)
_TIME_TAIL = re.compile(r"(?:[\s,]+(?:" + _FILLER + r"|(?:this|next) " + _SEASONS + r"|in (?:" +
                        CALENDAR.replace(" ", "|") + r")))+$", re.I)
_DEICTIC = re.compile(r"^(?:it|this|that|these|those|them|him|her|you|your|how|what|when|the way|to|it's|one|"
                      r"doing|being|not to|the (?:first|second|third|last|other|former|latter|previous|next|new|same)|"
                      r"(?:this|that|the|your) (?:one|option|version|idea|answer|draft|suggestion))\b", re.I)


def _clean(value: str | None) -> str:
    """A value without its filler and time words ("Porto last month" -> "Porto")."""
    return _TIME_TAIL.sub("", (value or "").strip(" \"'“”")).strip(" ,")


def _items(value: str) -> list[str]:
    """A listed value ("peanuts, tree nuts and shellfish") as its items."""
    return [item.strip() for item in re.split(r",\s*(?:and |or )?|\s+(?:and|or|&)\s+", value) if item.strip()]


def _key(value: str) -> str:
    return re.sub(r"^(?:the|an?|my|our)\s+", "", value.casefold())


def sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip(" ,")
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!")) else ".")


# ---- third person ----------------------------------------------------------------------------------------------
_IRREGULAR = {"am": "is", "are": "is", "'m": "is", "'re": "is", "have": "has", "'ve": "has", "do": "does",
              "go": "goes", "'d": "would", "'ll": "will", "were": "was", "don't": "does not", "haven't": "has not",
              "aren't": "is not", "can't": "cannot", "won't": "will not"}
_KEPT = {"can", "cannot", "could", "will", "would", "should", "must", "might", "may", "was", "did", "didn't", "had",
         "used", "rather", "not"}
_SUBJECT = re.compile(r"^(?:I|we)(?P<aux>'m|'re|'ve|'d|'ll)?\s+(?P<adverbs>" + _ADV +
                      r"(?:no longer\s+)?)(?P<verb>do not|don't|haven't|aren't|can't|won't|[\w']+)\b", re.I)
_INTENSIFIERS = re.compile(r"\b(?:really|actually|honestly|definitely|totally|absolutely|just|also|basically|truly|"
                           r"seriously|super|so|officially|finally)\s+", re.I)
_PRONOUNS = ((re.compile(r"\b(?:my|our)\b", re.I), "the user's"),
             (re.compile(r"\b(?:mine|ours)\b", re.I), "the user's"), (re.compile(r"\b(?:me|us)\b"), "the user"),
             (re.compile(r"\bmyself\b", re.I), "themselves"),
             (re.compile(r"\bI'm\b"), "the user is"), (re.compile(r"\bI\b"), "the user"),
             (re.compile(r"\byour\b", re.I), "its"), (re.compile(r"\byou\b", re.I), "the assistant"))


def conjugate(verb: str) -> str:
    """The third-person singular of a present-tense verb ("go" -> "goes", "study" -> "studies")."""
    lowered = verb.lower()
    if lowered == "do not":
        return "does not"
    if lowered in _IRREGULAR:
        return _IRREGULAR[lowered]
    if lowered in _KEPT or lowered.endswith("ed"):
        return lowered
    if re.search(r"[^aeiou]y$", lowered):
        return lowered[:-1] + "ies"
    return lowered + ("es" if re.search(r"(?:s|sh|ch|x|z|o)$", lowered) else "s")


def third_person(clause: str) -> str:
    """"I really love fado" -> "The user really loves fado." (the subject and its verb, then the pronouns)."""
    def subject(match: re.Match) -> str:
        aux, verb = match.group("aux"), match.group("verb")
        adverbs = _INTENSIFIERS.sub("", match.group("adverbs"))
        if aux:
            return f"the user {_IRREGULAR[aux.lower()]} {adverbs}{verb}"
        return f"the user {adverbs}{conjugate(verb)}"

    text = _SUBJECT.sub(subject, clause.strip(), count=1)
    for pattern, replacement in _PRONOUNS:
        text = pattern.sub(replacement, text)
    return sentence(text)


# ---- what each rule makes of its match -------------------------------------------------------------------------
def _as_said(slot: str | None = None) -> Callable[[re.Match], Found]:
    """The clause itself, in the third person; the slot keyed by the value."""
    def build(match: re.Match) -> Found:
        value = _clean(match.group("v"))
        if not value or _DEICTIC.match(value):
            return []
        return [(third_person(_clean(match.group(0))), slot.format(v=_key(value)) if slot else None)]
    return build


def _worded(text: str, slot: str | None = None, split: bool = False,
            check: Callable[[str], bool] | None = None) -> Callable[[re.Match], Found]:
    """A fixed wording around the value; ``split`` makes one fact per listed item, ``check`` vets each."""
    def build(match: re.Match) -> Found:
        groups = {key: value or "" for key, value in match.groupdict().items()}
        valued = "v" in match.re.groupindex
        value = _clean(groups.get("v"))
        if valued and match.start("v") == 0 and value[:2].istitle():  # a food opening the clause: "Gluten makes me"
            value = value[:1].lower() + value[1:]
        found = []
        for item in _items(value) if split else [value]:
            if (item or not valued) and not _DEICTIC.match(item) and (check is None or check(item)):
                fields = {**groups, "v": item, "not": "not " if groups.get("neg") else "",
                          "place": _clean(groups.get("place"))}
                found.append((sentence(text.format(**fields)), slot.format(v=_key(item)) if slot else None))
        return found
    return build


def _is_name(value: str) -> bool:
    return bool(value) and value[0].isupper() and value.split()[0].lower() not in NOT_NAMES


def _is_place(place: str) -> bool:
    return bool(place) and place.split()[-1].lower() not in NOT_NAMES


def _is_tool(value: str) -> bool:
    first = value.split()[0] if value.split() else ""
    return first[:1].isupper() or first.lower() in TOOLS


def _diet(negated: bool = False) -> Callable[[re.Match], Found]:
    def build(match: re.Match) -> Found:
        value = match.group("v").lower()
        slot = "diet" if value in EXCLUSIVE_DIETS else f"diet:{value}"
        return [(sentence(f"The user is {'not ' if negated or match.groupdict().get('neg') else ''}{value}"), slot)]
    return build


def _named(relation: str, name: str) -> Found:
    relation = relation.lower()
    if not _is_name(name):
        return []
    if re.fullmatch(PETS, relation):
        return [(sentence(f"The user has a {relation} called {name}"), f"pet:{name.lower()}")]
    return [(sentence(f"The user's {relation} is called {name}"), f"{relation}:{name.lower()}")]


def _has(match: re.Match) -> Found:
    value, name = match.group("v"), match.group("name")
    if name and _is_name(name):
        return [(sentence(f"The user has {value} called {name}"), f"pet:{name.lower()}")]
    return [(sentence(f"The user has {value}"), f"has:{match.group('kind').lower()}")]


def _home(match: re.Match) -> Found:
    place = _clean(match.group("place"))
    return [(sentence(f"The user lives in {place}"), "home")] if _is_place(place) else []


def _employer(match: re.Match) -> Found:
    groups = match.groupdict()
    org = _clean(groups.get("v"))
    if not org or _DEICTIC.match(org) or _key(org).startswith(("home", "moment", "night", "weekend")):
        return []
    works = "no longer works" if groups.get("neg") else "works" + (groups.get("adv") or "")
    found = [(sentence(f"The user {works} at {org}"), "employer")]
    if groups.get("role") and not groups.get("neg"):
        found.append((sentence(f"The user works as {_clean(groups['role'])}"), "occupation"))
    return found


def _occupation(verb: str) -> Callable[[re.Match], Found]:
    def build(match: re.Match) -> Found:
        role, org = _clean(match.group("v")), _clean(match.group("org"))
        student = bool(STUDENT.search(role))
        found = [(sentence(f"The user {verb} {role}" + (f" at {org}" if org and student else "")), "occupation")]
        return found + ([(sentence(f"The user works at {org}"), "employer")] if org and not student else [])
    return build


def _runs(match: re.Match) -> Found:
    value = _clean(match.group("v"))
    if not value or _FREQ.search(value) or _DEICTIC.match(value):
        return []
    said = match.string[match.start():match.end("org") if match.group("org") else match.end("v")]
    return [(third_person(_clean(said)), "occupation")]


def _travel(verb: str) -> Callable[[re.Match], Found]:
    def build(match: re.Match) -> Found:
        place = _clean(match.group("place"))
        if not _is_place(place):
            return []
        return [(sentence(f"The user {verb} {place}{match.group('when')}"), f"travel:{place.lower()}")]
    return build


def _attribute(match: re.Match) -> Found:
    value = _clean(match.group("v"))
    slot = match.group("slot").lower()
    verb = "are" if slot.endswith("s") else "is"
    return [(sentence(f"The user's {slot} {verb} {value}"), slot)] if value and not _DEICTIC.match(value) else []


# ---- the rules: the first to make something of a clause wins -----------------------------------------------------
_AT_ORG = r"(?: (?:at|for) (?P<org>.+?))?"
_IN_PLACE = r"(?:,? (?:based |living |working )?in " + _PLACE + r")?"
RULES: tuple[tuple[re.Pattern, Callable[[re.Match], Found]], ...] = tuple((re.compile(p, re.I), b) for p, b in (
    # who the user is
    (r"my name(?:'s| is) (?P<v>(?-i:[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2}))" + _END,
     _worded("The user's name is {v}.", "name", check=_is_name)),
    (r"(?:please )?(?:call me|I go by) (?P<v>(?-i:[A-Z][\w'-]*(?: [A-Z][\w'-]*)?))\b",
     _worded("The user wants to be called {v}.", "preferred_name", check=_is_name)),
    (_BE + r"(?P<v>(?-i:" + DEMONYMS + r"))" + _END, _worded("The user is {v}.", "nationality")),
    (r"(?:I'm|I am|this is|it's) (?P<v>(?-i:[A-Z][\w'-]+))" + _END,
     _worded("The user's name is {v}.", "name", check=_is_name)),
    # health
    (_BE + _NEG + _ADV + r"allergic to (?P<v>.+?)" + _END,
     _worded("The user is {not}allergic to {v}.", "allergy:{v}", split=True)),
    (r"I(?:'ve| have)? " + _ADV + r"(?:have|got) (?:an? )?(?:severe |mild |bad |serious |life-threatening |deadly )?"
     r"(?:(?P<v>[\w -]+?) allerg(?:y|ies)|allerg(?:y|ies) to (?P<w>.+?))" + _END,
     lambda m: _worded("The user is allergic to {v}.", "allergy:{v}", split=True)(m) if m.group("v") else
     [(sentence(f"The user is allergic to {item}"), f"allergy:{_key(item)}") for item in _items(_clean(m.group("w")))]),
    (_BE + _NEG + r"(?P<v>[\w-]+) intolerant" + _END, _worded("The user is {not}{v} intolerant.", "intolerance:{v}")),
    (_BE + _NEG + r"intolerant (?:to|of) (?P<v>.+?)" + _END,
     _worded("The user is {not}intolerant to {v}.", "intolerance:{v}", split=True)),
    (_BE + _NEG + r"(?:an? )?(?:\d+ (?:weeks|months) )?(?P<v>(?:type \w+ )?" + CONDITION_ADJECTIVES + r")" + _END,
     _worded("The user is {not}{v}.", "condition:{v}")),
    (r"(?P<v>[\w -]{2,30}?) (?:makes? me (?:sick|ill|bloated)|(?:doesn't|does not|don't|do not) agree with me|"
     r"upsets? my stomach|gives? me (?:an? )?(?:rash|hives|headaches?|migraines?|stomach ?aches?|heartburn|cramps))\b",
     _worded("The user cannot have {v}.", "intolerance:{v}")),
    (r"I(?:'ve| have|'m| am)? " + _ADV + r"(?:have|got|had|was diagnosed with|been diagnosed with|diagnosed with|"
     r"suffer from|suffered from|live with|living with) (?P<v>.+?)" + _END,
     _worded("The user has {v}.", "condition:{v}", split=True, check=lambda v: bool(CONDITION.match(v)))),
    (r"I(?:'m| am)? " + _ADV + r"(?:take|taking|on) (?P<v>[\w -]+?)(?P<when>(?: (?:\w+ )?(?:every|each|before|after|"
     r"twice|once|daily|at night|in the morning)\b.*)?)" + _END,
     _worded("The user takes {v}{when}.", "medication:{v}", check=lambda v: bool(MEDICATION.match(v)))),
    # diet
    (_BE + _NEG + r"(?:an? )?(?P<v>" + DIETS + r")(?: diet)?" + _END, _diet()),
    (r"I " + _ADV + r"(?:stopped|quit) being (?:an? )?(?P<v>" + DIETS + r")\b", _diet(negated=True)),
    (r"I(?:'ve| have)? " + _ADV + r"(?:went|turned|became|gone|become) (?:fully )?(?P<v>" + DIETS + r")\b", _diet()),
    (r"I " + _ADV + r"(?:keep|eat|only eat) (?P<v>kosher|halal)" + _END, _worded("The user keeps {v}.", "diet:{v}")),
    (r"I(?:'m| am)? " + _ADV + r"(?:follow|on) an? (?P<v>[\w-]+(?: [\w-]+)?) diet" + _END,
     _worded("The user follows a {v} diet.", "diet:{v}")),
    (r"I " + _ADV + r"(?:started|began) (?P<verb>eat|drink)ing (?P<v>.+?)" + _END,
     lambda m: [(sentence(f"The user {m.group('verb').lower()}s {_clean(m.group('v'))}"),
                 f"eats:{_key(_clean(m.group('v')))}")]),
    (r"I " + _ADV + r"(?:(?:don't|do not|never|no longer|can't|cannot|won't|will not|try not to) " + _ADV +
     r"(?:eat|drink|touch|consume)|(?:can't|cannot) have) (?P<v>.+?)" + _END, _as_said("eats:{v}")),
    (r"I " + _ADV + r"(?:don't|do not|never) drink(?: alcohol)?" + _END,
     lambda m: [("The user does not drink alcohol.", "eats:alcohol")]),
    (r"I(?:'ve| have)? " + _ADV + r"(?:avoid|stay away from|cut out|gave up|given up|eat|drink) (?P<v>.+?)" + _END,
     lambda m: _as_said("eats:{v}")(m) if not _FREQ.search(m.group("v")) else []),
    # likes, dislikes, ways of answering
    (_BE + _NEG + r"(?:an? )?(?:big |huge |massive |great |total |real |die-hard |lifelong )?"
     r"(?:fan of (?P<v>.+?)|(?P<team>.+?) fan)" + _END,
     lambda m: [] if _DEICTIC.match(m.group("v") or m.group("team")) else
     [(third_person(_clean(m.group(0))), f"opinion:{_key(_clean(m.group('v') or m.group('team')))}")]),
    (_BE + _NEG + r"(?:an? )?(?P<v>(?:morning|night|evening|early|cat|dog|people|tea|coffee|beach|mountain|city|"
     r"outdoors|indoors) person|night owl|early bird|early riser)" + _END, _as_said("trait:{v}")),
    (r"(?:I|we)(?: " + _ADV + r"(?:(?:don't|do not|no longer|never) " + _ADV + r")?(?:like|love|enjoy|prefer|adore|"
     r"hate|dislike|detest|loathe|despise|can't stand|cannot stand|can't bear|am into|am obsessed with|"
     r"am passionate about)|'m " + _ADV + r"(?:not )?(?:into|obsessed with|passionate about)) (?P<v>.+?)" + _END,
     _as_said("opinion:{v}")),
    (r"I'd (?:rather|prefer) (?P<v>.+?)" + _END, _as_said()),
    # people and pets
    (r"(?:my|our) (?P<rel>" + RELATIONS + r"|" + PETS + r")(?:'s name is| is called| is named| name is| goes by) "
     + _NAME, lambda m: _named(m.group("rel"), m.group("name"))),
    (r"(?:I|we)(?:'ve| have)? " + _ADV + r"(?:have|got) (?P<v>(?:an?|one|two|three|four|five|six|\d+) (?:\w+ )?"
     r"(?P<kind>" + RELATIONS + r"|" + PETS + r")s?)(?: (?:called|named) (?P<name>(?-i:[A-Z][\w'-]+)))?\b", _has),
    (r"(?:I|we)(?:'ve| have)? " + _ADV + r"(?:have|got) (?P<v>an? (?:[\w-]+ ){0,2}?(?P<kind>[\w-]+)) (?:called|named) "
     r"(?P<name>(?-i:[A-Z][\w'-]+))\b", _has),
    (_BE + r"(?P<v>married|engaged|divorced|widowed|single|separated)(?: to " + _NAME + r")?(?: with .+)?" + _END,
     lambda m: [(sentence(f"The user is {m.group('v').lower()}" + (f" to {m.group('name')}" if m.group("name")
                                                                    else "")), "marital")]),
    # work
    (_I + r"(?P<neg>no longer |not |don't |do not )?" + _ADV + r"(?:work|working)(?P<adv> part-time| full-time|"
     r" part time| full time| remotely| freelance)? (?:at|for) (?P<v>.+?)(?: as (?P<role>an? [\w -]+?))?" + _IN_PLACE
     + r"(?:,? (?:on|at) (?:weekends|weekdays|nights))?" + _END, _employer),
    (r"I(?:'m| am)? " + _ADV + r"(?:work|working) as (?P<v>an? [\w -]+?)" + _AT_ORG + _IN_PLACE + _END,
     _occupation("works as")),
    (r"I(?:'ve| have)? " + _ADV + r"(?:quit|left) my job (?:at|with) (?P<v>.+?)" + _END,
     _worded("The user no longer works at {v}.", "employer")),
    (r"I(?:'m| am)? " + _ADV + r"(?:work|working) in (?P<v>(?-i:[a-z])[\w -]+?)" + _END,
     _worded("The user works in {v}.", "industry")),
    (r"(?:I|we)(?:'ve| have)? " + _ADV + r"(?:joined|started (?:working )?at|started a (?:new )?job at|"
     r"got a job at) (?P<v>.+?)(?: as (?P<role>an? [\w -]+?))?" + _END, _employer),
    (r"(?:I|we)(?:'ve| have)? " + _ADV + r"(?:started|opened|founded|launched|set up) (?:my own|our own|an?) "
     r"(?P<v>(?:\w+ )?(?:business|company|practice|shop|store|restaurant|cafe|café|studio|firm|startup|agency|"
     r"clinic|bakery))\b", _worded("The user runs their own {v}.", "employer")),
    (_BE + r"(?:\w+ and )?(?P<v>retired|unemployed|self-employed|between jobs|"
     r"an? stay[- ]at[- ]home (?:mom|mum|dad|parent)|on (?:maternity|paternity|parental) leave)" + _END,
     _worded("The user is {v}.", "occupation")),
    (_BE + r"(?P<v>an? (?:[\w-]+ ){0,3}?" + OCCUPATIONS + r")" + _AT_ORG + _IN_PLACE + r"(?: for .+)?" + _END,
     _occupation("is")),
    (r"I " + _ADV + r"(?:teach|lecture in|coach|run|own|manage|study) (?P<v>(?:an? |my |the |our )?"
     r"(?!every\b|on\b|at\b)[\w' -]+?)(?: (?:at|in) (?P<org>(?:an? |the )[\w' -]+?))?" + _IN_PLACE + _END, _runs),
    (r"(?:I|we) " + _ADV + r"(?:use|code in|program in|develop in|write|work in|work with|build with|"
     r"do (?:all |most )?(?:of )?my (?:work|coding|writing|design work|designs?) (?:in|on|with)) (?P<v>.+?)" + _END,
     lambda m: _as_said("tool:{v}")(m) if _is_tool(m.group("v")) else []),
    (r"(?:I|we)(?:'ve| have)? " + _ADV + r"(?:switched|migrated|moved over|changed|converted) (?:over )?from "
     r"[\w .+#-]+? to (?P<v>.+?)" + _END, _worded("The user uses {v}.", "tool:{v}", check=_is_tool)),
    (r"I " + _ADV + r"speak (?:fluent |some |basic |decent |conversational |a little )?(?P<v>" + LANGUAGES +
     r"(?:(?:,| and| or) " + LANGUAGES + r")*)\b", _worded("The user speaks {v}.", "speaks:{v}")),
    (_BE + r"(?P<v>fluent|bilingual|trilingual) in (?P<w>" + LANGUAGES + r"(?:(?:,| and| or) " + LANGUAGES + r")*)\b",
     lambda m: [(sentence(f"The user is {m.group('v').lower()} in {m.group('w')}"), f"speaks:{m.group('w').lower()}")]),
    (r"I " + _ADV + r"play (?P<v>(?:the )?(?:\w+ )?(?:piano|guitar|violin|cello|drums|bass|flute|saxophone|trumpet|"
     r"ukulele|harp|clarinet|organ|keyboard|chess|tennis|football|soccer|basketball|golf|badminton|squash|"
     r"volleyball|hockey|cricket|rugby|baseball|padel|bridge|poker))\b", _as_said("plays:{v}")),
    (_BE + r"(?:learning|studying) (?P<v>" + LANGUAGES + r"|(?-i:[A-Z][\w+#]*))\b",
     _worded("The user is learning {v}.", "learning:{v}")),
    (r"I " + _ADV + r"work (?P<v>(?:the )?(?:night|day|early|late|evening|morning|weekend|split|double|long|12-hour|"
     r"twelve-hour) shifts?|nights|weekends|from home|remotely|part-time|full-time)\b",
     _worded("The user works {v}.", "work_pattern")),
    # places
    (_I + r"(?:live|living|lived|been living|reside|based) in " + _PLACE, _home),
    (_I + r"(?:live|living|based) (?P<v>near|outside|just outside|close to) " + _PLACE,
     _worded("The user lives {v} {place}.", "home")),
    (r"(?:I|we)(?:'ve| have)? " + _ADV + r"(?:moved|relocated|emigrated)(?: back)? (?:from [^,]+? )?to " + _PLACE,
     _home),
    (_BE + r"from " + _PLACE, _worded("The user is from {place}.", "origin")),
    (r"I (?P<v>grew up|was born|was raised) in " + _PLACE, _worded("The user {v} in {place}.", "{v}")),
    (r"(?:I|we)(?:'m|'re| am| are| will be|'ll be)? " + _ADV + r"(?:flying|travelling|traveling|going|heading|off|"
     r"driving|sailing|visiting)(?: back)?(?: to)? " + _PLACE + _WHEN, _travel("is travelling to")),
    (r"(?:I|we)(?:'ll| will) be in " + _PLACE + _WHEN, _travel("will be in")),
    # "my X is Y" for the attributes a memory keeps
    (r"my (?P<slot>favou?rite [\w ]+?|" + ATTRIBUTES + r") is (?P<v>.+?)" + _END, _attribute),
    (r"my (?P<slot>pronouns) are (?P<v>\w+/\w+(?:/\w+)?)", _attribute),
))

# ---- reading a turn --------------------------------------------------------------------------------------------
_QUESTION = re.compile(r"^\s*(?:what|how|why|where|when|who|whom|which|whose|do|does|did|can|could|would|should|will|"
                       r"is|are|am|was|were|shall|may|might|have|has|isn't|aren't|don't|doesn't)\b", re.I)
_HYPOTHETICAL = re.compile(r"^\s*(?:if|what if|suppose|supposing|imagine|let's say|say|pretend|assuming|assume|"
                           r"hypothetically|in theory|in a world|picture|when|unless|maybe|perhaps|i wish|i hope|"
                           r"i think|i guess|i suppose|i believe|i feel like|i might|i may|i could|"
                           r"i would(?! like you)|i'd (?!rather|prefer|like you))\b", re.I)
_JOKE = re.compile(r"\b(?:lol|lmao|rofl|ha(?:ha)+h?|he(?:he)+|jk|just kidding|kidding)\b|/s\b|😂|🤣|😜|😆|😝|;\)|:P\b",
                   re.I)
_REMEMBER = re.compile(r"^(?:(?:can|could|would|will) you )?(?:please )?(?:remember|note|keep in mind|bear in mind|"
                       r"don't forget|do not forget|make a note|for (?:future )?reference)(?: that)?[,:]?\s+"
                       r"(?:please )?(?!when|what|how|why|where|who|whether|if|to\b)(?P<v>.+?)[?.!\s]*$", re.I)
_LEAD = re.compile(r"^(?:(?:oh|ah|also|and|but|so|well|actually|honestly|plus|btw|by the way|fyi|anyway|anyways|"
                   r"just so you know|heads up|for context|for the record|fun fact|quick update|update|big news|"
                   r"news|as you know|yeah|yes|yep|no|nope|ok|okay|hey|hi|hello|again|these days|nowadays|currently|"
                   r"right now|at the moment|lately|recently|now|this year|ps)\b[\s,:!-]*)+", re.I)
_CLAUSE = re.compile(r"\s*[,;:()]\s*|\s+[-–—]\s+|\s+(?:but|so|because|though|although|whereas|which|who|since|until|"
                     r"when|while|whenever)\s+|\s+and\s+(?=(?:I|I'm|I've|I'd|I'll|my|we|we're|we've|our|also|please|"
                     r"so)\b)")
_STYLE = re.compile(
    r"^(?:(?:can|could|would|will) you |I'd like you to |I would like you to |I want you to )?(?:please |kindly )?"
    r"(?P<standing>(?:always|from now on|going forward|in future|in the future|by default|"
    r"never),? )?(?:please )?(?P<v>(?:answer|reply|respond|write|talk|speak|explain|keep|make|use|give|break|format|"
    r"address|avoid|stop|don't use|do not use|skip)\b.+)$", re.I)
_STANDING = re.compile(r"\b(?:always|from now on|going forward|in future|in the future|by default|never|every time|"
                       r"with me|to me)\b", re.I)
_STYLE_OBJECT = re.compile(r"^[\w']+(?: (?!it\b|this\b|that\b)\w+)?(?: me)? (?:(?:your|the) (?:answers|replies|"
                           r"responses|explanations|messages)|answers|replies|responses|explanations|things|everything|"
                           r"in (?:(?-i:[A-Z])\w+|plain|simple|short)|(?:short|brief|concise|simple|metric|imperial|"
                           r"celsius|fahrenheit|kilometres|kilometers|miles|british|american|emojis?|markdown|jargon|"
                           r"bullet)\b)", re.I)
_CONTINUATION = re.compile(r"^(?:(?P<adverb>mostly|mainly|also|usually) )?(?P<gerund>writing|using|coding|programming|"
                           r"working|building|developing|teaching|studying) ", re.I)
_GERUNDS = {"writing": "write", "using": "use", "coding": "code", "programming": "program", "working": "work",
            "building": "build", "developing": "develop", "teaching": "teach", "studying": "study"}
_PAST = re.compile(r"^(?:I|we) (?:was|were|went|had|did|got|made|took|saw|used to|would|could|should|might|will|"
                   r"\w+ed)\b|^(?:I|we)'(?:d|ll)\b", re.I)
_FIRST_PERSON = re.compile(r"^(?:I|I'm|I've|I'd|I'll|we|we're|we've|my|our)\b", re.I)
_PURPOSE = re.compile(r"\s+(?:to|so that|in order to|before my|after my)\s+[^,]*$", re.I)
_TRAILING_PLACE = re.compile(r"\bin " + _PLACE + r"$")
_APPOSITIVE = re.compile(r"\b(?:my|our) (?P<rel>" + RELATIONS + r"|" + PETS + r") " + _NAME + r"\b", re.I)
_PROJECT = re.compile(r"\b(?:project|repo|repository|codebase|build|deploy|deployment|branch|ci)\b", re.I)


_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")
_PASTED = re.compile(r"^[^:]*\b(?:summari[sz]e|translate|correct|proofread|rewrite|paraphrase|fix|check|edit|improve|"
                     r"review|format|shorten|here's|here is|this is|wrote|writes|said|says|text|email|message|essay|"
                     r"letter|post|paragraph|sentence|quote|draft|reply to)\b[^:]*:", re.I)
_LOWER_WORD = (r"(?!(?:with|for|last|next|this|in|on|at|and|but|so|because|as|since|a|an|the|my|our|every|now|"
               r"there|btw|too|to|from|near)\b)[a-z][\w'-]*")
_CUE = re.compile(r"\b(?P<cue>(?:live|living|based|grew up|born|raised|work|working) in|(?:moved|relocated|flying|"
                  r"travelling|traveling|heading) to|(?:i'm|i am) from|name is|called|named|call me|go by|"
                  r"(?:work|working) (?:at|for)|joined|job at) (?P<words>" + _LOWER_WORD + r"(?: " + _LOWER_WORD +
                  r"){0,2})\b")


def truecased(text: str) -> str:
    """An all-lowercase turn ("i moved to porto, a dog named biscuit") with "I" and the names after a cue capitalized,
    so the patterns that need a capital (names, places, employers) still read it."""
    if text != text.lower():
        return text
    text = re.sub(r"\bi(?=\b|')", "I", text)
    return _CUE.sub(lambda m: m.group("cue") + " " + m.group("words").title(), text)


def sentences(text: str) -> list[str]:
    """The turn's sentences, up to any pasted text ("summarize this: ..."), without quotations."""
    text = _QUOTED.sub(" ", truecased(text.replace("’", "'")))
    if pasted := _PASTED.match(text):
        text = text[:pasted.end()]
    return [part.strip() for part in re.split(r"(?<=[.!?])\s+|\n+", text) if part.strip()]


def statements(text: str) -> Iterator[str]:
    """The sentences worth reading: no question, hypothetical, hedge or joke (a "haha" on its own taints the
    sentence before it). A request to remember, or to answer some way from now on, is read even when it is
    phrased as a question."""
    parts = sentences(text)
    for index, part in enumerate(parts):
        following = parts[index + 1] if index + 1 < len(parts) else ""
        if _JOKE.search(part) or (_JOKE.search(following) and len(re.sub(r"\W", "", _JOKE.sub("", following))) < 3):
            continue
        if _REMEMBER.match(part) or _style(part.rstrip("?")) or not (
                part.endswith("?") or _QUESTION.match(part) or _HYPOTHETICAL.match(part)):
            yield part


def clauses(statement: str) -> Iterator[str]:
    """Each clause without its lead and filler words; a clause continuing a first-person one takes its subject
    ("I'm Farid, a pharmacist" -> "I'm a pharmacist"; "I'm a developer, mostly writing Python")."""
    previous = ""
    for raw in _CLAUSE.split(statement.rstrip(".!?")):
        clause = _FILLER_TAIL.sub("", _LEAD.sub("", raw.strip())).strip()
        if not clause:
            continue
        if re.match(r"(?:I'm|I am)\b", previous) and re.match(r"an? \w", clause):
            clause = "I'm " + clause
        elif _FIRST_PERSON.match(previous) and (continuation := _CONTINUATION.match(clause)):
            adverb = continuation.group("adverb")
            clause = " ".join(filter(None, ("I", adverb, _GERUNDS[continuation.group("gerund").lower()],
                                            clause[continuation.end():])))
        previous = clause if _FIRST_PERSON.match(clause) else previous
        yield clause


def _style(clause: str) -> Found:
    """An instruction about how the assistant should answer from now on (not a one-off request)."""
    match = _STYLE.match(clause)
    if not match or not (match.group("standing") or _STANDING.search(clause) or _STYLE_OBJECT.match(match.group("v"))):
        return []
    wanted = re.sub(r"^(?:don't|do not)\b", "not", _clean(match.group("v")), flags=re.I)
    wanted = re.sub(r"\s*\b(?:with|to|for) me\b", "", (match.group("standing") or "") + wanted[:1].lower() + wanted[1:])
    language = re.search(r"\bin " + LANGUAGES + r"\b", wanted)
    return [(third_person("the user wants you to " + wanted), "answer_language" if language else None)]


def _routine(clause: str) -> Found:
    """A first-person habit: a present-tense clause with a frequency ("every Friday", "on weekends", "at 5am")."""
    if (not re.match(r"(?:I|we)\b", clause) or _PAST.match(clause) or not _FREQ.search(clause)
            or re.search(r"\b(?:this|that|you|your)\b", clause, re.I)):
        return []
    shorter = _PURPOSE.sub("", clause)
    return [(third_person(shorter if _FREQ.search(shorter) else clause), None)]


def _in_clause(clause: str) -> Found:
    """The first rule that makes something of the clause (a work rule also yields the home it names), else a
    standing instruction; a routine the clause states replaces a fact it only extends ("plays tennis" ->
    "plays tennis every Sunday", keeping the fact's slot)."""
    found: Found = []
    for pattern, build in RULES:
        if (match := pattern.match(clause)) and (found := build(match)):
            if any(slot in ("occupation", "employer", "work_pattern", "industry") for _c, slot in found):
                if (place := _TRAILING_PLACE.search(clause)) and _is_place(place.group("place")):
                    found = found + _home(place)
            break
    found = found or _style(clause)
    for routine, _slot in _routine(clause):
        extended = [index for index, (content, _s) in enumerate(found) if routine.startswith(content[:-1] + " ")]
        if extended:
            found[extended[0]] = (routine, found[extended[0]][1])
        else:
            found.append((routine, None))
    return found


def facts_of(text: str) -> list[tuple[str, str | None, str]]:
    """(content, slot, target) of every fact a user's turn states about the user, in order, without repeats."""
    found: dict[str, tuple[str, str | None, str]] = {}
    for statement in statements(text):
        remember = _REMEMBER.match(statement)
        body = remember.group("v") if remember else statement
        before = len(found)
        said = [fact for clause in clauses(body) for fact in _in_clause(clause)]
        said += [fact for found_name in _APPOSITIVE.finditer(body)
                 for fact in _named(found_name.group("rel"), found_name.group("name"))]
        for content, slot in said:
            found.setdefault(content.casefold(), (content, slot, "user"))
        clause = _clean(_CLAUSE.split(body)[0])
        if remember and len(found) == before and len(clause.split()) > 2:  # "remember the repo deploys from main"
            found.setdefault(clause.casefold(), (third_person(clause), None,
                                                 "project" if _PROJECT.search(clause) else "memory"))
    return [fact for fact in found.values() if "[REDACTED" not in fact[0] and len(fact[0]) > 12]


class RulesExtractor:
    """Deterministic first-person patterns (see the module docstring); user turns only."""

    name, model, prompt_version = "rules", None, RULES_VERSION

    def extract(self, entries: list[dict]) -> list[Fact]:
        facts = []
        for entry in entries:
            if entry["role"] == "user":
                facts.extend(self.facts_in(entry["content"], entry["id"]))
        return facts

    @staticmethod
    def facts_in(text: str, entry_id: int) -> list[Fact]:
        return [Fact(target, content, (entry_id,), slot) for content, slot, target in facts_of(text)]
