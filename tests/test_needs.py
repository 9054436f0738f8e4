import numpy as np
import pytest

from scope_recall_engine.companion import embedders, needs, reference, resting, vectors
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle

E5 = embedders.E5_MODEL_ID


def _link(request: str, memory: str) -> float:
    sides, every_request = needs.prototypes(E5).sides, needs.prototypes(E5).every_request
    asked = needs.place(_asked(request)[0], sides, every_request)
    return float(needs.memory_kinds(_told(memory), sides)[0] @ asked.kinds)


def _told(memory: str) -> np.ndarray:
    model = embedders.get_model(E5)
    return reference.unit_rows(np.asarray(embedders.embed_passages(model, [memory]), np.float32))


@pytest.mark.parametrize(("request_text", "needed", "not_needed"), [
    ("can you suggest a pudding for Sunday lunch?", "She has type 2 diabetes, managed with diet.",
     "Her manager is Priya Natarajan."),
    ("draft a note to my boss asking for Friday off", "Her manager is Priya Natarajan.",
     "She has type 2 diabetes, managed with diet."),
    ("make me a study schedule for finals week", "She studies best between 6 and 9 am.",
     "Her cat is a ginger tabby called Mole."),
])
def test_a_request_is_linked_to_the_kind_of_fact_it_needs_more_than_to_another(request_text, needed, not_needed):
    assert _link(request_text, needed) > 1.5 * _link(request_text, not_needed)


def _asked(request: str) -> np.ndarray:
    model = embedders.get_model(E5)
    return reference.unit_rows(np.asarray([embedders.embed_query(model, request)], np.float32))


def test_the_kinds_of_a_text_are_shares_that_sum_to_one():
    sides, population = needs.prototypes(E5).sides, needs.prototypes(E5).reference_kinds
    assert sides.requests.shape == sides.memories.shape == (len(needs.NEEDS), 384)
    assert sides.general.shape == (len(needs.GENERAL), 384)
    kinds = len(needs.EXAMPLES["kinds"])
    assert population.shape == (4000, kinds)  # placed by the examples, one column per kind of them
    assert np.allclose(population.sum(axis=1), 1.0)
    asked = needs.place(_asked("what should I cook tonight?")[0], sides, needs.prototypes(E5).every_request)
    assert asked.kinds.shape == (kinds,)


@pytest.mark.parametrize(("text", "asked"), [
    ("Can you plan a dinner for eight this Saturday, Thai-ish?", True),
    ("Allergic to prawns and crab.", False),
    ("Her doctor wants her on a low-fat diet.", False),
])
def test_examples_place_by_food_what_one_description_per_kind_placed_elsewhere(text, asked):
    """One sentence per side put this dinner plan among scheduling and these food facts among medical ones (control:
    it still does); the examples put all three with food."""
    sides, kinds = needs.prototypes(E5).sides, list(needs.EXAMPLES["kinds"])
    vector = _asked(text) if asked else _told(text)
    by_examples = (needs.place(vector[0], sides, needs.prototypes(E5).every_request).kinds if asked
                   else needs.memory_kinds(vector, sides)[0])
    described = needs.kinds(vector, sides.requests if asked else sides.memories)[0]
    assert kinds[int(by_examples.argmax())] == "food"
    assert needs.NEEDS[int(described.argmax())] != needs.NEEDS[0]


def test_a_text_is_close_to_a_kind_by_its_nearest_examples():
    """A text that is one of a kind's examples is closest to that kind, and falls in it more than in all others."""
    sides, kinds = needs.prototypes(E5).sides, list(needs.EXAMPLES["kinds"])
    told = _told(needs.EXAMPLES["kinds"]["pets"]["memories"][0])
    assert needs.closeness(told, sides.memory_examples, "memories")[0].argmax() == kinds.index("pets")
    assert needs.memory_kinds(told, sides)[0, kinds.index("pets")] > 0.5


SAM = ["Sam's manager is Olga Petrova.", "Sam has coeliac disease.", "Plays five-a-side football on Thursdays.",
       "Lives in Leeds with two flatmates.", "His sister Beth is a vet in York.", "He is saving up for a motorbike.",
       "Prefers answers without emoji.", "Sam tore a hamstring last spring.", "Sam works night shifts at a bakery.",
       "Has a rescue greyhound called Dot.", "Takes sertraline every morning."]


@pytest.mark.parametrize(("resting_on_the_user", "general"), [
    ("suggest something quick for dinner", "what's the capital of Australia?"),
    ("stretches for a 10 hour shift", "write a haiku about autumn"),
    ("text to the boss, need friday off", "how do I reverse a list in python?"),
])
def test_a_request_that_rests_on_the_user_falls_among_the_kinds_of_need_more_than_a_general_one(
        resting_on_the_user, general):
    prototypes = needs.prototypes(E5)

    def share(message: str) -> float:
        return needs.place(_asked(message)[0], prototypes.sides, prototypes.every_request).personal

    assert share(resting_on_the_user) >= retrieval.PERSONAL_SHARE > share(general)


def test_a_memory_that_resembles_every_request_is_more_of_a_hub_than_a_specific_fact():
    model = embedders.get_model(E5)
    style, fact = reference.unit_rows(np.asarray(embedders.embed_passages(
        model, ["Wants replies short. No waffle, no emojis.", "Has a border collie called Bran with arthritic hips."]),
        np.float32))
    every_request = needs.prototypes(E5).every_request
    assert needs.hubness(style, every_request) > needs.hubness(fact, every_request)


def test_hubness_brings_the_manager_above_memories_that_resemble_every_request(db, monkeypatch):
    """"text to the boss. need friday off" needs the manager's name; memories about shifts and how to reply sit near
    every request and out-rank it until their hubness is taken off (control: without it they do)."""
    who = Identity(user="doug", chat="chat-1")
    texts = ["Works four days on, three off; shifts start at 4:30am.", "Wants replies short. No waffle, no emojis.",
             "Keeps his driving hours and tacho notes in a LibreOffice Calc spreadsheet.",
             "His transport manager at Highland Haulage is Craig Munro.",
             "Drives a 2016 Skoda Octavia estate (diesel) when off work."]
    ids = [lifecycle.store(db, who, "memory", text, human("tester")).id for text in texts]
    vectors.drain(db)
    view, message = View(who.accessible()), "text to the boss. need friday off"
    assert [hit.id for hit in retrieval.search(db, view, message, 1, abstain=False)] == [ids[3]]
    monkeypatch.setattr(retrieval, "HUBNESS_WEIGHT", 0.0)
    assert [hit.id for hit in retrieval.search(db, view, message, 1, abstain=False)] != [ids[3]]


def test_the_link_through_needs_brings_what_the_user_can_spend_into_cheap_plans(db, monkeypatch):
    """Nothing in "cheap things to do" says "saving up"; the link through needs ranks that memory higher than the
    vector and words alone do (control: without the link it ranks lower). The bearing probe, which lifts it too, is
    off on both sides."""
    monkeypatch.setattr(retrieval, "BEARING_WEIGHT", 0.0)
    who = Identity(user="sam", chat="chat-1")
    ids = [lifecycle.store(db, who, "memory", text, human("tester")).id for text in SAM]
    vectors.drain(db)
    view, message, saving = View(who.accessible()), "find me cheap things to do this weekend", ids[5]

    def place() -> int:
        return [hit.id for hit in retrieval.search(db, view, message, len(SAM), abstain=False)].index(saving)

    linked = place()
    assert linked < 3
    monkeypatch.setattr(retrieval, "NEEDS_WEIGHT", 0.0)
    assert place() > linked


def test_sides_missing_corrupt_or_stale_are_embedded_again_and_kept(tmp_path):
    kept = tmp_path / f"needs-{embedders.HASH_MODEL_ID}.npz"
    kept.write_bytes(b"not a numpy file")
    sides = needs._sides(embedders.HASH_MODEL_ID, tmp_path)
    assert sides.requests.shape[0] == sides.memories.shape[0] == len(needs.NEEDS)
    assert sides.general.shape[0] == len(needs.GENERAL)
    with np.load(kept) as stored:  # written anew, with the descriptions it was made from
        assert list(stored["texts"]) == list(needs._texts())  # the descriptions, then the examples
        assert list(stored["texts"])[:len(needs.NEEDS) * 2] == [text for need in needs.NEEDS for text in need]
        assert np.allclose(stored["requests"], sides.requests)
    np.savez(kept, texts=np.array(["an older description"]), requests=sides.requests[:1],
             memories=sides.memories[:1], general=sides.general[:1])
    assert needs._sides(embedders.HASH_MODEL_ID, tmp_path).requests.shape[0] == len(needs.NEEDS)  # stale: again


def test_doctor_reports_shipped_kinds_of_need_that_are_corrupt(db, tmp_path, monkeypatch):
    from scope_recall_engine import doctor

    def reference_check():
        [check] = [c for c in doctor.run(db) if c.name == "recall_reference"]
        return check

    assert reference_check().ok  # control: the shipped file holds these descriptions
    corrupt = tmp_path / "needs.npz"
    corrupt.write_bytes(b"\x00" * 64)
    monkeypatch.setattr(needs, "shipped", lambda model_id: corrupt)
    check = reference_check()
    assert not check.ok and "kinds of need" in check.detail and "reinstall" in check.repair


def test_a_memory_near_every_request_is_not_recalled_for_a_general_question_on_meaning_alone(db, monkeypatch):
    """"keep answers short, I read everything on my phone while holding a baby" sits near every request, toddler
    questions included: its hubness comes off the meaning-alone margin, so a general question about toddlers recalls
    nothing (control: without it, it recalls that memory), while a lookup in the same store still answers. The
    question also asks why, which the world answers (``intent.explains``): that rule is set aside here."""
    monkeypatch.setattr(retrieval, "explains", lambda message: False)
    monkeypatch.setattr(retrieval, "world_answers", lambda message: False)
    who = Identity(user="priya", chat="chat-1")
    texts = ['"pls keep answers short, I read everything on my phone one-handed while holding a baby"',  # her words
             "Her manager is Hannah Liu.", "They have an elderly tabby cat named Pickle.",
             "Meera has a peanut and egg allergy.", "Priya grows chillies and herbs in pots."]
    ids = [lifecycle.store(db, who, "memory", text, human("tester")).id for text in texts]
    vectors.drain(db)
    view = View(who.accessible())
    general = "why do toddlers say no to literally everything, is it a developmental thing"
    assert [hit.id for hit in retrieval.search(db, view, "what's my cat called again?", 1)] == [ids[2]]
    assert retrieval.search(db, view, general).hits == []
    monkeypatch.setattr(retrieval, "HUBNESS_WEIGHT", 0.0)
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # nor the probe, sure of it too
    assert [hit.id for hit in retrieval.search(db, view, general)] == [ids[0]]


def test_a_message_whose_words_speak_of_the_user_needs_less_of_its_meaning_among_the_kinds_of_need(db, monkeypatch):
    """"any album recommendations for a rainy day?" falls a little under PERSONAL_SHARE among the kinds of need; its
    words ask for a recommendation, so the lower share is enough for the context floor and her taste in music is
    recalled (control: without the lower share for such words, and the rules deciding alone, it is not), while
    "what's the capital of Australia?" recalls nothing."""
    who = Identity(user="niamh", chat="chat-1")
    texts = ["Niamh loves old soul and Motown records.", "Her ward manager is Deborah Okafor.",
             "She is coeliac: no wheat, barley or rye.", "Her sister Aoife is getting married on 14 June in Galway."]
    ids = [lifecycle.store(db, who, "memory", text, human("tester")).id for text in texts]
    vectors.drain(db)
    view = View(who.accessible())
    message = "any album recommendations for a rainy day?"
    prototypes = needs.prototypes(E5)
    share = needs.place(_asked(message)[0], prototypes.sides, prototypes.every_request).personal
    assert retrieval.PERSONAL_SHARE_WORDED <= share < retrieval.PERSONAL_SHARE
    assert ids[0] in [hit.id for hit in retrieval.search(db, view, message, 3)]
    assert retrieval.search(db, view, "what's the capital of Australia?").hits == []
    monkeypatch.setattr(retrieval, "PERSONAL_SHARE_WORDED", retrieval.PERSONAL_SHARE)
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # the rules alone decide
    assert ids[0] not in [hit.id for hit in retrieval.search(db, view, message, 3)]
