"""What a request needs to know about its user: an indirect link between a message and a memory, through the kind
of personal fact the message depends on.

A recipe, a run or a note to the boss rests on facts that share neither words nor much meaning with the message:
"suggest a pudding" needs "type 2 diabetes", "draft a note to my boss" needs "Daniel's manager is Priya". A small
embedder keeps such pairs apart, yet it places "pudding" firmly among requests about food and "diabetes" firmly
among facts about what someone can eat. Each kind of need below is described twice, as the requests that have it
and as the memories that answer it; a message falls among the request sides and a memory among the memory sides
(a softmax over the kinds), and their link is how much they fall in the same kind. Recall scores the reference
population the same way, so a link counts only as far as it beats typical memories (``reading/retrieval.py``).

One sentence per side places a text poorly: e5's cosines to the nine descriptions differ by hundredths, so "plan a
dinner for eight" fell only a quarter among requests about food and "She is allergic to shellfish" mostly among
medical facts. The link therefore places texts by examples (``reference/needs-examples.json``: a dozen or so
requests and memories of each kind, none any user's): a text's closeness to a kind is its mean cosine to that kind's
EXAMPLES_NEAREST nearest examples, and a softmax over those places it.

Most of what people ask an assistant rests on none of this: trivia, how things work, code, words, sums, jokes and
poems (``GENERAL``). How much a message falls among the kinds of need rather than among those
(``place``'s ``personal``) tells a request that rests on the user's life ("what stretches help after a twelve-hour
shift?") from chit-chat said in the first person ("my friend says tomatoes are fruit, is that true?").

A memory that resembles requests of every kind ("Wants replies short, no waffle") sits near every message and
would rank high for all of them: for a message that rests on the user and names no one, its ``hubness`` (how close
it comes to the nearest of all these requests) is taken off its similarity to the message, for memories and
reference sentences alike.

How much a message rests on the user is measured both ways, on the descriptions and on the examples (general
requests have examples too), and the two shares are averaged: either alone misplaces messages the other places.

The descriptions and examples are embedded once per embedding model: shipped for the default model
(``reference/needs-<model>.npz``, written by ``_sides(model, reference.DATA)`` when they change), else embedded on
first use and kept beside the companion; a file that is missing, corrupt or stale is embedded again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from scope_recall_engine.companion import reference

if TYPE_CHECKING:
    import numpy as np

# (what a request that has this need is about, what a memory that answers it says), one per kind of need
NEEDS = (
    ("food: meals, cooking, recipes, restaurants, snacks, desserts, what to eat or drink",
     "dietary restrictions and food allergies: what the user eats or avoids, vegetarian, vegan, diabetes, "
     "lactose intolerance, cutting sugar"),
    ("exercise and physical activity: sport, running, hiking, stretching, walking, lifting",
     "injuries, surgery, chronic pain and physical limitations of the user's body"),
    ("spending money: buying, shopping, prices, cheap or expensive things, paying for outings",
     "the user's budget, savings, income and what they can afford"),
    ("scheduling: a timetable, planning the week, when to do something, a study plan, appointments",
     "the user's routine and schedule: work shifts, when they are free or busy, sleep, best time of day"),
    ("work matters: emails to the boss, asking for time off, swapping shifts, meetings with colleagues",
     "the user's job, employer, manager and colleagues"),
    ("family: relatives, visiting family, gifts for relatives, calling home",
     "the user's family: parents, children, siblings and partner, and where they live"),
    ("health: medicine, symptoms, painkillers, supplements, seeing a doctor",
     "the user's medical conditions, medications, drug allergies and doctor"),
    ("pets and animals: dog or cat food, treats, walks, the vet",
     "the user's pets: their names, breeds, age and health"),
    ("travel and trips: getting somewhere, commuting, journeys, holidays",
     "how the user gets around: car, driving, public transport, motion sickness"),
)
# requests that rest on nothing about the user, whoever asks them
GENERAL = (
    "facts about the world: history, geography, famous people, dates, trivia and quiz questions",
    "science and how things work: physics, chemistry, biology, space, nature, wild animals",
    "programming and computers: code, syntax, algorithms, software tools",
    "language: words, spelling, grammar, synonyms, rhymes, translations",
    "maths: arithmetic, percentages, unit conversions, formulas",
    "creative writing and fun: jokes, riddles, poems, stories, fun facts",
    "culture and games: books, films, music, art, sports history, rules of games",
)
SHARPNESS = 50.0  # softmax over the kinds' cosines: e5's cosines differ by hundredths between kinds
LINK_SHARPNESS = 30.0  # ... over the kinds placed by examples, for the link: a text may fall in two kinds
EXAMPLES_NEAREST = 3  # a text's closeness to a kind: its mean cosine to that kind's 3 nearest examples
HUB_NEAREST = 5  # hubness: the mean cosine of a memory to the nearest 5 of the 16 requests described here
EXAMPLES = json.loads((reference.DATA / "needs-examples.json").read_text(encoding="utf-8"))


class Sides(NamedTuple):
    """The descriptions as unit vectors, one row each: the kinds' request and memory sides, the general requests;
    then the examples, one row each, in the order of ``_examples`` (kind by kind)."""

    requests: "np.ndarray"
    memories: "np.ndarray"
    general: "np.ndarray"
    request_examples: "np.ndarray"
    memory_examples: "np.ndarray"
    general_examples: "np.ndarray"


def _examples(side: str) -> list[list[str]]:
    """The examples of one side ("requests", "memories" or "general"), one list per kind (or general request)."""
    if side == "general":
        return list(EXAMPLES["general"].values())
    return [kind[side] for kind in EXAMPLES["kinds"].values()]


def _every_example(side: str) -> list[str]:
    """The examples of one side, kind after kind: the rows of ``Sides``' example matrices."""
    return [text for kind in _examples(side) for text in kind]


class Prototypes(NamedTuple):
    sides: Sides
    every_request: "np.ndarray"  # the kinds' request sides, then the general requests: 16 rows
    reference_kinds: "np.ndarray"  # each reference sentence's kinds, placed by examples (``memory_kinds``)
    reference_hubness: "np.ndarray"  # each reference sentence's ``hubness``


_PROTOTYPES: dict[str, Prototypes] = {}


def prototypes(model_id: str, cache_dir: Path | None = None) -> Prototypes:
    """The sides and what the reference population makes of them, for a model, once per process."""
    import numpy as np

    if model_id not in _PROTOTYPES:
        sides, population = _sides(model_id, cache_dir), reference.space(model_id, cache_dir).alone
        every_request = np.vstack([sides.requests, sides.general])
        _PROTOTYPES[model_id] = Prototypes(sides, every_request, memory_kinds(population, sides),
                                           hubness(population, every_request))
    return _PROTOTYPES[model_id]


def _sides(model_id: str, cache_dir: Path | None) -> Sides:
    """Shipped for the default model, kept in ``cache_dir`` for any other, embedded when neither holds these
    descriptions."""
    import numpy as np

    for path in (shipped(model_id), cache_dir / f"needs-{model_id}.npz" if cache_dir else None):
        if (found := _stored(path)) is not None:
            return found
    sides = _embedded(model_id)
    if cache_dir is not None:
        np.savez(cache_dir / f"needs-{model_id}.npz", texts=_texts(), **sides._asdict())
    return sides


def shipped(model_id: str) -> Path:
    return reference.DATA / f"needs-{model_id}.npz"


def _texts() -> "np.ndarray":
    import numpy as np

    examples = [text for side in ("requests", "memories", "general") for text in _every_example(side)]
    return np.array([text for need in NEEDS for text in need] + list(GENERAL) + examples)


def _stored(path: Path | None) -> Sides | None:
    """The sides from a file made from these very descriptions; None when it is missing, corrupt or stale."""
    import numpy as np

    try:
        with np.load(path) as stored:
            return Sides(*(stored[side] for side in Sides._fields)) if np.array_equal(stored["texts"], _texts()) \
                else None
    except (TypeError, OSError, ValueError, KeyError):
        return None


def shipped_ok(model_id: str) -> bool | None:
    """Whether the shipped sides hold these descriptions (None: none ship for this model): for ``doctor``."""
    return _stored(shipped(model_id)) is not None if shipped(model_id).exists() else None


def _embedded(model_id: str) -> Sides:
    import numpy as np

    from scope_recall_engine.companion import embedders

    model = embedders.get_model(model_id)

    def asked(texts) -> "np.ndarray":
        return reference.unit_rows(np.asarray([embedders.embed_query(model, text) for text in texts], np.float32))

    def told(texts) -> "np.ndarray":
        return reference.unit_rows(np.asarray(embedders.embed_passages(model, list(texts)), np.float32))

    return Sides(asked(request for request, _ in NEEDS), told(memory for _, memory in NEEDS), asked(GENERAL),
                 asked(_every_example("requests")), told(_every_example("memories")), asked(_every_example("general")))


def kinds(vectors: "np.ndarray", sides: "np.ndarray") -> "np.ndarray":
    """How much each vector (rows, unit length) falls in each kind of need: rows x kinds, each row summing to 1."""
    return _softmax(SHARPNESS * (vectors @ sides.T))


def _softmax(logits: "np.ndarray") -> "np.ndarray":
    import numpy as np

    weights = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)


def closeness(vectors: "np.ndarray", examples: "np.ndarray", side: str) -> "np.ndarray":
    """Each vector's (rows, unit length) closeness to each kind of a side: its mean cosine to the kind's
    EXAMPLES_NEAREST nearest examples (rows x kinds)."""
    import numpy as np

    cosines, start, columns = vectors @ examples.T, 0, []
    for kind in _examples(side):
        nearest = np.sort(cosines[:, start:start + len(kind)], axis=-1)[:, -EXAMPLES_NEAREST:]
        columns.append(nearest.mean(axis=-1))
        start += len(kind)
    return np.stack(columns, axis=-1)


def memory_kinds(vectors: "np.ndarray", sides: Sides) -> "np.ndarray":
    """How much each memory (rows, unit length) falls in each kind of need, placed by the memories' examples."""
    return _softmax(LINK_SHARPNESS * closeness(vectors, sides.memory_examples, "memories"))


class Placement(NamedTuple):
    """Where a query falls, from one pass over the examples."""

    kinds: "np.ndarray"  # how much it falls in each kind of need, placed by the requests' examples (for the link)
    personal: float  # how much it falls among the kinds of need rather than among the general requests
    small_talk: bool  # whether it falls nearer the examples of small talk than any other kind of request


def place(query: "np.ndarray", sides: Sides, every_request: "np.ndarray") -> Placement:
    """A query (unit vector) among the kinds of need and general requests. Its share among the kinds of need is the
    mean of that share among the descriptions and among the examples; it is small talk ("ugh mondays", "long week")
    when the examples of small talk are the nearest of all."""
    import numpy as np

    requests = closeness(query[None, :], sides.request_examples, "requests")[0]
    close = np.concatenate([requests, closeness(query[None, :], sides.general_examples, "general")[0]])
    described = kinds(query[None, :], every_request)[0, :len(NEEDS)].sum()
    exemplified = _softmax(SHARPNESS * close)[:len(requests)].sum()
    small_talk = int(close.argmax()) == len(requests) + list(EXAMPLES["general"]).index("smalltalk")
    return Placement(_softmax(LINK_SHARPNESS * requests), float(described + exemplified) / 2, small_talk)


def hubness(vectors: "np.ndarray", every_request: "np.ndarray") -> "np.ndarray":
    """How close each vector (rows, unit length) comes to requests in general: its mean cosine to the HUB_NEAREST
    nearest of the kinds' request sides and the general requests."""
    import numpy as np

    return np.sort(vectors @ every_request.T, axis=-1)[..., -HUB_NEAREST:].mean(axis=-1)
