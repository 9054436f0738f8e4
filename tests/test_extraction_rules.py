"""The offline rules extractor on sentences that are not in the eval fixture: what people say about themselves
becomes a third-person candidate; questions, hypotheticals, jokes, hedges, other people's opinions and one-off
requests yield nothing."""

import pytest

from scope_recall_engine.truth.principals import human
from scope_recall_engine.writing import digest, journal, lifecycle
from scope_recall_engine.writing.extraction_rules import RulesExtractor, conjugate, facts_of, third_person


def contents(text):
    return [content for content, _slot, _target in facts_of(text)]


@pytest.mark.parametrize("text, expected", [
    # health and diet
    ("I'm allergic to cats and dogs.", ["The user is allergic to cats.", "The user is allergic to dogs."]),
    ("I am severely allergic to bee stings.", ["The user is allergic to bee stings."]),
    ("I have a peanut allergy and I'm lactose intolerant.",
     ["The user is allergic to peanut.", "The user is lactose intolerant."]),
    ("I can't have dairy.", ["The user cannot have dairy."]),
    ("Dairy upsets my stomach", ["The user cannot have dairy."]),
    ("I have celiac disease.", ["The user has celiac disease."]),
    ("I'm a type 2 diabetic.", ["The user is type 2 diabetic."]),
    ("I take blood pressure medication.", ["The user takes blood pressure medication."]),
    ("I'm on antidepressants.", ["The user takes antidepressants."]),
    ("I don't eat meat.", ["The user does not eat meat."]),
    ("I don't drink.", ["The user does not drink alcohol."]),
    ("I've been vegan for 5 years.", ["The user is vegan."]),
    ("I went vegan last year.", ["The user is vegan."]),
    ("I'm vegetarian but I eat fish.", ["The user is vegetarian.", "The user eats fish."]),
    ("I keep kosher.", ["The user keeps kosher."]),
    ("I'm no longer allergic to penicillin.", ["The user is not allergic to penicillin."]),
    # likes, dislikes, how to answer
    ("I love Italian food.", ["The user loves Italian food."]),
    ("I'm not a big fan of sushi.", ["The user is not a big fan of sushi."]),
    ("I prefer tea over coffee.", ["The user prefers tea over coffee."]),
    ("Can you always reply in bullet points?", ["The user wants the assistant to always reply in bullet points."]),
    ("Use Celsius please.", ["The user wants the assistant to use Celsius."]),
    ("Please don't use emojis.", ["The user wants the assistant to not use emojis."]),
    ("I'd like you to always answer in English.", ["The user wants the assistant to always answer in English."]),
    ("From now on, call me Liz.", ["The user wants to be called Liz."]),
    # people and pets
    ("My wife is called Maria.", ["The user's wife is called Maria."]),
    ("My son Jake is 8.", ["The user's son is called Jake."]),
    ("I have three kids.", ["The user has three kids."]),
    ("My dog's name is Max.", ["The user has a dog called Max."]),
    ("I'm married with two kids.", ["The user is married."]),
    ("My pronouns are she/her.", ["The user's pronouns are she/her."]),
    # work
    ("I work at Google as a software engineer.",
     ["The user works at Google.", "The user works as a software engineer."]),
    ("I'm a software engineer at Google.", ["The user is a software engineer.", "The user works at Google."]),
    ("I'm a nurse practitioner.", ["The user is a nurse practitioner."]),
    ("I'm a student at UCLA.", ["The user is a student at UCLA."]),
    ("I work in finance.", ["The user works in finance."]),
    ("I quit my job at Amazon.", ["The user no longer works at Amazon."]),
    ("I speak fluent Spanish.", ["The user speaks Spanish."]),
    ("I'm fluent in Japanese.", ["The user is fluent in Japanese."]),
    # places and routines
    ("I'm based in NYC.", ["The user lives in NYC."]),
    ("I live near Boston.", ["The user lives near Boston."]),
    ("I'm from Brazil originally.", ["The user is from Brazil."]),
    ("We moved from Boston to Denver in March.", ["The user lives in Denver."]),
    ("I'm heading to Paris next week.", ["The user is travelling to Paris next week."]),
    ("We're going to Italy this summer.", ["The user is travelling to Italy this summer."]),
    ("I have therapy on Thursdays.", ["The user has therapy on Thursdays."]),
    ("I usually wake up around 6.", ["The user usually wakes up around 6."]),
    ("I play tennis every Sunday.", ["The user plays tennis every Sunday."]),
    # explicit requests to remember
    ("Note: my cat is diabetic.", ["The user's cat is diabetic."]),
    ("Could you remember that I'm allergic to kiwi?", ["The user is allergic to kiwi."]),
    # typed in lowercase, as people chat
    ("i moved to london last year for work", ["The user lives in London."]),
    ("my name is sarah", ["The user's name is Sarah."]),
    ("we've got a golden retriever named biscuit", ["The user has a golden retriever called Biscuit."]),
    ("hey so i just started a new job at shopify, i'm a frontend dev there",
     ["The user works at Shopify.", "The user is a frontend dev."]),
    ("I'm Canadian but I've lived in Germany for ten years.", ["The user is Canadian.", "The user lives in Germany."]),
    ("I've been diagnosed with ADHD recently.", ["The user has ADHD."]),
])
def test_first_person_statements_become_candidates(text, expected):
    assert contents(text) == expected


@pytest.mark.parametrize("text", [
    "I'm allergic to Mondays lol", "I'm going to make pasta tonight.", "I'm going to Target later",
    "I love this!", "I like that idea", "I like how you explained it", "I prefer the second option",
    "I need a vacation", "I want to learn Python", "I have a meeting at 3pm", "I'm thinking of moving to Berlin",
    "I might be allergic to cats", "I think I'm lactose intolerant", "I used to be vegetarian",
    "When I lived in Paris I loved croissants", "My friend is a vegan", "My mom loves gardening",
    "I'm a bit confused", "I'm a huge fan of your work", "I'm in London this week", "I have two questions",
    "I don't have time for this", "I use this app every day", "Remember when we talked about the budget?",
    "Remember to buy milk", "Don't forget my birthday!", "Should I move to Berlin?",
    "My husband is allergic to shrimp.", "My boss says I'm a workaholic.", "Would you recommend being vegan?",
    "If I were vegan I'd miss cheese.", "Write a story about a dog named Rex.", "Can you make it shorter?",
    "Explain what HbA1c measures.", "My password is [REDACTED:password]", "Imagine I lived in Rome.",
    "my sister thinks i should move to paris", "I prefer not to say.", "I'd love to visit Japan someday.",
    "Please summarize this: I live in Paris and I work as a chef.",
    "Here's what my friend wrote: I'm allergic to bees.",
    'Translate "I am a vegan doctor" into French.', "I wish I lived by the sea.", "I'm considering going vegan.",
])
def test_questions_hypotheticals_jokes_and_other_people_yield_nothing(text):
    assert contents(text) == []
    assert contents("I live in Oslo.") == ["The user lives in Oslo."]  # control: the same reader, a statement


def test_third_person_conjugates_the_verb_and_the_pronouns():
    assert [conjugate(verb) for verb in ("go", "study", "watch", "play", "have", "do", "can", "used")] == [
        "goes", "studies", "watches", "plays", "has", "does", "can", "used"]
    assert third_person("I really love my dog") == "The user loves the user's dog."
    assert third_person("I don't eat pork") == "The user does not eat pork."
    assert third_person("I'm no longer working at Acme") == "The user is no longer working at Acme."
    assert third_person("we usually walk our dog every morning") == (
        "The user usually walks the user's dog every morning.")


def test_single_valued_and_per_thing_slots():
    slots = {content: slot for content, slot, _target in facts_of(
        "I live in Porto. I'm vegan. I'm allergic to peanuts. I hate coffee. I work at Acme as a nurse.")}
    assert slots == {"The user lives in Porto.": "home", "The user is vegan.": "diet",
                     "The user is allergic to peanuts.": "allergy:peanuts", "The user hates coffee.": "opinion:coffee",
                     "The user works at Acme.": "employer", "The user works as a nurse.": "occupation"}
    assert facts_of("I'm not allergic to peanuts anymore")[0][1] == "allergy:peanuts"  # the same thing, denied


def test_a_change_of_a_fact_supersedes_the_active_memory(db, alice):
    for turn in ("I'm vegetarian.", "I love coffee.", "I'm allergic to peanuts."):
        journal.append(db, alice, "s1", "user", turn)
    digest.run(db, RulesExtractor())
    for memory in db["memories"].rows:
        lifecycle.promote(db, memory["id"], human("op"))
    for turn in ("I'm not vegetarian anymore.", "I don't like coffee anymore.", "I'm also allergic to shellfish."):
        journal.append(db, alice, "s2", "user", turn)
    report = digest.run(db, RulesExtractor())
    assert [d["action"] for d in report.decisions] == ["SUPERSEDE", "SUPERSEDE", "ADD"]  # a new allergy is added
    assert [r["content"] for r in db["memories"].rows_where("lifecycle = 'candidate'", order_by="id")] == [
        "The user is not vegetarian.", "The user does not like coffee.", "The user is allergic to shellfish."]


def test_only_user_turns_are_read():
    entries = [{"id": 1, "role": "assistant", "content": "I'm allergic to nothing, and I love helping."},
               {"id": 2, "role": "user", "content": "I'm allergic to kiwi."}]
    assert [(f.content, f.entry_ids) for f in RulesExtractor().extract(entries)] == [
        ("The user is allergic to kiwi.", (2,))]
