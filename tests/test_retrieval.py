import json
import re
import shutil

import pytest
from click.testing import CliRunner

from scope_recall_engine import config
from scope_recall_engine.cli.main import cli
from scope_recall_engine.companion import dense, embedders, reference, resting, vectors
from scope_recall_engine.reading import intent, retrieval
from scope_recall_engine.reading.glosses import gloss, in_arabizi, question_languages, written_in
from scope_recall_engine.truth import vocabulary
from scope_recall_engine.truth.principals import agent, human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle

ME = human("tester")
SHIPPED_REFERENCE = reference.DATA  # before any test points it elsewhere
FACTS = {
    "food": "Alice's favourite food is sushi, especially salmon nigiri",
    "tea": "Alice drinks green tea every morning before work",
    "postgres": "The staging server runs PostgreSQL 16 on port 5432",
    "car": "Alice drives a blue Volvo XC40 bought in 2022",
    "zh": "爱丽丝住在上海，在一家银行工作",
}


def _fill(db, identity, facts=FACTS, drain=True, target="memory"):
    ids = {key: lifecycle.store(db, identity, target, text, ME).id for key, text in facts.items()}
    if drain:
        vectors.drain(db)
    return ids


def _ids(result):
    return [hit.id for hit in result]


def _persona(db, fixture, key):
    """One persona of a personal fixture, stored and indexed: its stored ids by key, and the view of its user."""
    from scope_recall_bench import eval_personal, fit_resting

    [persona] = [p for p in eval_personal.read_fixture(fit_resting.FIXTURES / fixture) if p["key"] == key]
    [stored] = eval_personal.load(db, [persona])
    vectors.drain(db)
    return stored.ids, View(stored.identity.accessible())


@pytest.fixture
def hashed(db, db_path):
    config.save(db_path, config.Config(embedding_model=embedders.HASH_MODEL_ID))
    return db


def test_exact_id_lane_only_inside_the_view(db, alice, bob):
    ids = _fill(db, alice, drain=False)
    mine = View(alice.accessible())
    assert _ids(retrieval.search(db, mine, f"#{ids['car']}"))[:1] == [ids["car"]]
    assert _ids(retrieval.search(db, mine, f"memory {ids['car']}"))[:1] == [ids["car"]]
    assert retrieval.search(db, View(bob.accessible()), f"#{ids['car']}").hits == []


def test_bm25_lane_and_fts_syntax_is_inert(db, alice):
    ids = _fill(db, alice, drain=False)
    view = View(alice.accessible())
    assert _ids(retrieval.search(db, view, "green tea", use_vectors=False))[:1] == [ids["tea"]]
    for hostile in ('NEAR("a" b) OR *', "tea* AND NOT", '"unbalanced', "content: ^tea", "'; DROP TABLE memories; --"):
        retrieval.search(db, view, hostile, use_vectors=False)  # never an FTS syntax error
    assert db["memories"].count == len(FACTS)


def test_trigram_lane_finds_substrings_bm25_misses(db, alice):
    ids = _fill(db, alice, drain=False)
    view = View(alice.accessible())
    assert retrieval.lexical(db, view, "postgres") == []  # the word lane alone: no token "postgres"
    assert _ids(retrieval.search(db, view, "postgres", use_vectors=False))[:1] == [ids["postgres"]]


@pytest.mark.parametrize("query", ["上海", "银行", "爱丽丝住在哪里"])
def test_cjk_lane_finds_chinese_including_two_character_queries(db, alice, query):
    ids = _fill(db, alice, drain=False)
    assert _ids(retrieval.search(db, View(alice.accessible()), query, use_vectors=False))[:1] == [ids["zh"]]


def test_vector_lane_ranks_a_paraphrase_with_no_shared_word_first(db, alice):
    ids = _fill(db, alice)
    view = View(alice.accessible())
    query = "which dish does Alice enjoy most"  # shares only the name, which most rows hold
    assert retrieval.search(db, view, query, use_vectors=False, abstain=False).hits == []
    result = retrieval.search(db, view, query, abstain=False)
    assert result.lanes["vector"] == "ok" and not result.degraded
    assert _ids(result)[:1] == [ids["food"]]
    # with abstention on too: a question about what Alice likes to eat rests on her (food, needs.py) ...
    assert _ids(retrieval.search(db, view, query))[:1] == [ids["food"]]
    # ... a general question about dishes does not: meaning alone must stand clear of every reference sentence
    assert retrieval.search(db, view, "which dish is Japan most famous for?").hits == []
    assert _ids(retrieval.search(db, view, "what is Alice's favourite food"))[:1] == [ids["food"]]


def test_vector_lane_scope_isolation(hashed, alice, bob):
    text = "the launch code is stored in the blue binder"
    mine = lifecycle.store(hashed, alice, "memory", text, ME).id
    theirs = lifecycle.store(hashed, bob, "memory", text, ME).id
    vectors.drain(hashed)
    lane, status = dense.lane(hashed, View(alice.accessible()), text)
    assert status == "ok" and set(lane.hits) == {mine}  # positive control: the same text is found in-scope
    lane, _ = dense.lane(hashed, View(bob.accessible()), text)
    assert set(lane.hits) == {theirs}


def test_tampered_hash_never_reaches_results_and_marks_repair(hashed, alice):
    ids = _fill(hashed, alice)
    view = View(alice.accessible())
    lane, _ = dense.lane(hashed, view, FACTS["tea"])
    assert ids["tea"] in lane.hits  # positive control before tampering
    vectors._table(hashed).update(where=f"id = {ids['tea']}", values={"content_hash": "0" * 64})
    lane, _ = dense.lane(hashed, view, FACTS["tea"])
    assert ids["tea"] not in lane.hits and ids["food"] in lane.hits
    assert vectors.check(hashed).repairs == 1
    vectors.drain(hashed)  # the repair mark queued the id: the drainer rewrites it from truth
    assert vectors.check(hashed).ok and ids["tea"] in dense.lane(hashed, view, FACTS["tea"])[0].hits


def test_rows_a_view_may_not_see_are_not_mistaken_for_a_broken_companion(hashed, alice):
    ids = _fill(hashed, alice)  # stored by a person (human_reviewed) ...
    asserted = lifecycle.store(hashed, alice, "memory", "alice drinks green tea with mint", agent("a")).id
    vectors.drain(hashed)  # ... and one by the agent, which a trusted-only view does not see
    trusted = View(alice.accessible(), trusted_only=True)
    lane, _ = dense.lane(hashed, trusted, FACTS["tea"])
    assert ids["tea"] in lane.hits and asserted not in lane.hits
    assert vectors.check(hashed).repairs == 0 and vectors.pending(hashed) == 0
    # control on the same surface: a companion row that really disagrees with truth is still flagged
    vectors._table(hashed).update(where=f"id = {asserted}", values={"content_hash": "0" * 64})
    dense.lane(hashed, trusted, FACTS["tea"])
    assert vectors.check(hashed).repairs == 1


def test_companion_row_pointed_at_another_scope_is_dropped(hashed, alice, bob):
    _fill(hashed, alice)
    secret = lifecycle.store(hashed, bob, "memory", "bob's locker combination is 31-7-22", ME).id
    vectors.drain(hashed)
    vectors._table(hashed).update(where=f"id = {secret}", values={"scope_id": alice.shared_scope})
    result = retrieval.search(hashed, View(alice.accessible()), "locker combination 31-7-22")
    assert secret not in _ids(result)
    assert secret not in dense.lane(hashed, View(alice.accessible()), "locker combination")[0].hits
    assert vectors.check(hashed).repairs >= 1
    assert _ids(retrieval.search(hashed, View(bob.accessible()), "locker combination"))[:1] == [secret]


def test_abstention_real_matches_come_back_unrelated_queries_get_nothing(db, alice):
    ids = _fill(db, alice)
    view = View(alice.accessible())
    assert _ids(retrieval.search(db, view, "what car does Alice drive"))[:1] == [ids["car"]]
    for query in ("asdkjh qwpoeiru zxmv", "What is the capital of France?", "what is Alice's phone number",
                  "今天天气怎么样", "x7f9k2m"):
        result = retrieval.search(db, view, query)
        assert result.hits == [] and result.miss_reason in ("abstained", "no_match"), query


@pytest.mark.parametrize("query", ["ok", "thanks!", "👍", "🎉🎉", "the", "what is it", "   ", ""])
def test_gate_stops_trivial_queries_before_any_lane(db, alice, query):
    _fill(db, alice, {"ok": "ok thanks the emoji 👍 note"}, drain=False)
    result = retrieval.search(db, View(alice.accessible()), query)
    assert (result.hits, result.miss_reason, result.lanes) == ([], "gated", {})
    assert retrieval.search(db, View(alice.accessible()), "emoji note", use_vectors=False).hits  # control


def test_broken_companion_degrades_to_lexical(db, alice, monkeypatch):
    ids = _fill(db, alice)
    view = View(alice.accessible())
    assert not retrieval.search(db, view, "green tea").degraded  # control: healthy
    for path in (vectors.index_dir(db) / "memories.lance" / "data").iterdir():
        path.write_bytes(b"not a lance file")
    # a process that already holds the scope's vectors keeps using its (valid) copy; a new process must load
    monkeypatch.setattr(vectors, "_SCOPES", type(vectors._SCOPES)())
    monkeypatch.setattr(vectors, "_OPEN", {})
    result = retrieval.search(db, view, "green tea")
    assert result.degraded and result.lanes["vector"] != "ok"
    assert _ids(result)[:1] == [ids["tea"]]


def test_slow_vector_lane_degrades_within_budget(db, alice):
    ids = _fill(db, alice)
    result = retrieval.search(db, View(alice.accessible()), "green tea", budget=0.000001)
    assert result.degraded and result.lanes["vector"].startswith("timed out")
    assert _ids(result)[:1] == [ids["tea"]]


def test_a_search_finds_by_meaning_what_was_just_stored(db, alice):
    """Read-your-writes: no `index drain` between store and search; the search embeds the waiting rows."""
    ids = _fill(db, alice, drain=False)
    assert db["vector_outbox"].count == len(FACTS)
    result = retrieval.search(db, View(alice.accessible()), "green tea")
    assert not result.degraded and result.lanes["vector"] == "ok" and _ids(result)[:1] == [ids["tea"]]
    assert db["vector_outbox"].count == 0


def test_a_bulk_backlog_is_left_to_the_drainer_and_said(db, alice):
    many = {f"fact{n}": f"Alice noted fact number {n} about her garden" for n in range(dense.CATCH_UP_ROWS + 4)}
    _fill(db, alice, many, drain=False)
    result = retrieval.search(db, View(alice.accessible()), "garden")
    assert "index drain" in result.lanes["vector"] and result.hits  # the lane ran on what it could embed
    assert db["vector_outbox"].count == 4


def test_a_broken_companion_is_degraded_not_fatal(db, alice):
    ids = _fill(db, alice)
    shutil.rmtree(vectors.index_dir(db) / f"{vectors.TABLE}.lance")  # the companion lost, truth intact
    result = retrieval.search(db, View(alice.accessible()), "green tea")
    assert result.degraded and result.lanes["vector"] != "ok" and _ids(result)[:1] == [ids["tea"]]


def test_hundred_kilobyte_query_is_truncated_not_fatal(db, alice):
    ids = _fill(db, alice)
    result = retrieval.search(db, View(alice.accessible()), "green tea " * 10_000)
    assert _ids(result)[:1] == [ids["tea"]]


def test_cli_search_json_keeps_its_fields(db_path, alice):
    runner = CliRunner()
    runner.invoke(cli, ["--db", str(db_path), "store", "--user", "alice", "--target", "memory", FACTS["tea"]])
    out = runner.invoke(cli, ["--db", str(db_path), "search", "--user", "alice", "--json", "green tea"])
    hits = json.loads(out.stdout)
    assert out.exit_code == 0 and hits[0]["content"] == FACTS["tea"]
    assert {"id", "content", "target", "score"} <= set(hits[0])
    assert 0.0 <= hits[0]["score"] <= 1.0  # the relevance, not fusion internals
    assert "degraded" not in out.stderr  # the search embedded the new row itself
    shutil.rmtree(db_path.parent / f"{db_path.stem}.vectors" / f"{vectors.TABLE}.lance")
    out = runner.invoke(cli, ["--db", str(db_path), "search", "--user", "alice", "--json", "green tea"])
    assert json.loads(out.stdout)[0]["content"] == FACTS["tea"] and "degraded: lexical lanes only" in out.stderr


def test_cli_index_commands(db_path, alice):
    runner = CliRunner()
    base = ["--db", str(db_path)]
    runner.invoke(cli, [*base, "store", "--user", "alice", "--target", "memory", FACTS["tea"]])
    assert runner.invoke(cli, [*base, "index", "check", "--json"]).exit_code == 1  # not drained yet
    drained = runner.invoke(cli, [*base, "index", "drain", "--json"])
    assert drained.exit_code == 0 and json.loads(drained.output.splitlines()[-1])["upserted"] == 1
    checked = runner.invoke(cli, [*base, "index", "check", "--json"])
    assert checked.exit_code == 0 and json.loads(checked.output)["ok"]
    rebuilt = runner.invoke(cli, [*base, "index", "rebuild", "--json"])
    assert rebuilt.exit_code == 0 and json.loads(rebuilt.output.splitlines()[-1])["rebuilt"]


def test_optimizing_the_text_indexes_merges_their_segments_and_search_still_finds(db, alice):
    from scope_recall_engine.truth.store import TEXT_INDEXES, optimize_text_indexes

    for n in range(30):  # each transaction leaves its own segment
        lifecycle.store(db, alice, "memory", f"Alice's locker number {n} is by the gym door", ME)
    segments = lambda: db.execute("select count(*) from memories_fts_data where id > 10").fetchone()[0]  # noqa: E731
    before = segments()
    assert set(optimize_text_indexes(db)) == set(TEXT_INDEXES) and segments() < before
    assert len(retrieval.search(db, View(alice.accessible()), "locker gym", use_vectors=False).hits) == 10


def test_a_plugin_lane_adds_candidates_but_never_past_the_visibility_predicate(db, alice, bob):
    from scope_recall_engine.hookspecs import hookimpl
    from scope_recall_engine.plugins import load_plugins
    from scope_recall_engine.truth.principals import human
    from scope_recall_engine.writing import lifecycle

    mine = lifecycle.store(db, alice, "user", "Alice's locker is number 4417", human("t")).id
    theirs = lifecycle.store(db, bob, "user", "Bob's locker is number 9120", human("t")).id
    archived = lifecycle.store(db, alice, "user", "Alice's old locker was 1200", human("t")).id
    lifecycle.archive(db, archived, human("t"))

    class EveryRow:  # a careless lane: names every memory, whoever it belongs to
        @hookimpl
        def register_recall_lanes(self, register):
            register("everything", lambda db, view, query, limit: [(mine, 1.0), (theirs, 1.0), (archived, 1.0)])

    manager = load_plugins()
    manager.register(EveryRow(), name="every-row")
    try:
        result = retrieval.search(db, View(alice.accessible()), "cabinet", use_vectors=False, abstain=False)
    finally:
        manager.unregister(name="every-row")
    assert result.lanes["plugin:everything"] == "ok"
    # only the plugin lane matched "cabinet": it found alice's row; bob's and the archived row never count
    assert [hit.id for hit in result.hits] == [mine]
    assert retrieval.search(db, View(alice.accessible()), "cabinet", use_vectors=False, abstain=False).hits == []


@pytest.fixture
def without_reference(monkeypatch, tmp_path):
    """The shipped reference missing (a broken install): every cache of it emptied first, and again after."""
    from scope_recall_engine.companion import reference

    def forget():
        reference.zipf.cache_clear()
        reference.language_zipf.cache_clear()
        reference._signs.cache_clear()
        reference.coined_words.cache_clear()
        reference.population.cache_clear()
        reference._SPACES.clear()

    forget()
    monkeypatch.setattr(reference, "DATA", tmp_path / "nowhere")
    yield
    monkeypatch.undo()
    forget()


def test_a_missing_reference_degrades_to_words_and_doctor_names_it(db, alice, without_reference):
    from scope_recall_engine import doctor

    ids = _fill(db, alice)
    result = retrieval.search(db, View(alice.accessible()), "green tea")
    assert result.degraded and "reference" in result.lanes and _ids(result)[:1] == [ids["tea"]]
    assert retrieval.search(db, View(alice.accessible()), "capital of Australia").hits == []
    [check] = [c for c in doctor.run(db) if c.name == "recall_reference"]
    assert not check.ok and "reinstall" in check.repair


def test_a_corrupt_language_table_degrades_to_english_weights_and_doctor_names_it(db, alice, without_reference,
                                                                                 tmp_path, monkeypatch):
    """A Spanish message over a broken Spanish table is weighed as English (the result says so, and its telling
    word holds less of it) and still ranks its memory first; control: over the intact copy it is weighed in
    Spanish, not degraded, and recalls the memory."""
    from scope_recall_engine import doctor

    intact = tmp_path / "reference"
    shutil.copytree(SHIPPED_REFERENCE, intact)
    monkeypatch.setattr(reference, "DATA", intact)
    ids = _fill(db, alice, drain=False)
    view, message = View(alice.accessible()), "que auto tengo? el volvo de la casa"
    fine = retrieval.search(db, view, message, 3, use_vectors=False)
    assert fine.language == "es" and not fine.degraded and _ids(fine)[:1] == [ids["car"]]
    (intact / "zipf-es.tsv").write_text("que\tmany\n", encoding="utf-8")
    reference.language_zipf.cache_clear()
    reference._signs.cache_clear()
    broken = retrieval.search(db, view, message, 3, use_vectors=False, abstain=False)
    assert broken.degraded and "zipf-es" in broken.lanes["languages"] and _ids(broken)[:1] == [ids["car"]]
    assert broken.language is None and broken.candidates[0].lexical_own < fine.candidates[0].lexical_own
    [check] = [c for c in doctor.run(db) if c.name == "recall_reference"]
    assert not check.ok and "zipf-es" in check.detail


def test_doctor_finds_the_shipped_reference(db):
    from scope_recall_engine import doctor

    [check] = [c for c in doctor.run(db) if c.name == "recall_reference"]
    assert check.ok and "4000 reference sentences" in check.detail


@pytest.mark.parametrize(("message", "asks"), [
    ("suggest something quick for dinner", True), ("should I run a hilly trail this weekend?", True),
    ("draft a note to my boss", True), ("any book recommendations?", True), ("I\u2019m exhausted", True),
    ("what's the capital of Australia?", False), ("explain how binary search works", False),
    ("how do I bake sourdough bread", False), ("tell me a joke", False), ("who painted the Mona Lisa?", False),
    ("make me a study schedule for finals week", True), ("what treats are safe to give the dog?", True),
    ("find me cheap things to do this weekend", True), ("write me a haiku about autumn", False),
    ("explain recursion like I'm five", False), ("I feel like I'm coming down with something, advice?", True),
    ("I can never remember: is it affect or effect here?", False), ("I'm curious, how far is the moon?", False),
    ("I can never remember my dentist's name", True), ("I was wondering what I should cook tonight", True),
    ("I'm bored, tell me a riddle", False), ("I'm so bored, what should I do this weekend?", True),
    ("Going up Benbaun on Sunday if the weather holds. Would it be wise do you think", True),
    ("is the night bus worth it or a good idea at all", True),
    ("something good to watch tonight after close, so tired of news", True),
    ("write short birthday msg for my sister in korean", True), ("write a python function to sort a list", False),
    ("put together a short notice for the members about the bus cuts", True), ("any recs for a quiet pub", True),
    ("write a regex that matches an email address", False),
    ("when should you use an en dash instead of an em dash?", False), ("how often should one descale a kettle", False),
    ("Ayra wants to watch cartoons the whole evening, how do i handle it without a meltdown", True),
    ("leo was up at 2 again. how do I break this without the whole house waking up", True),
    ("back is killing me. ok to take aleve", True), ("bom says thunderstorm tmrw arvo. still ok to bike?", True),
    ("any good walks round here sunday for the dog", True), ("looking for a dance class near me, weekends only", True),
    ("what's the ok sign in sign language?", False), ("how do bats find food at night?", False),
    ("gece de çalışsam mı diyorum, para lazım", True), ("özel ders mi alsak dershane mi", True),  # Turkish "should
    ("bu akşam ne yesem", True), ("dün akşam ne yedik", False),  # I", "should we"; not "what did we eat"
])
def test_intent_tells_a_request_for_the_users_context_from_a_general_question(message, asks):
    assert intent.asks_for_context(message) is asks
    assert not (asks and intent.about_the_world(message))


@pytest.mark.parametrize(("message", "owned"), [
    ("email my thesis advisor", {"thesis", "advisor"}), ("Our landlord\u2019s number?", {"landlord"}),
    ("what does Ines play?", set()), ("my", set()),
])
def test_the_words_after_my_or_our_are_what_the_user_calls_their_own(message, owned):
    assert intent.owned_words(message) == owned


MENTOR = {"mentor": "Her mentor is Dr. Ade Bello.", "poster": "She is presenting a poster at a conference in Lisbon.",
          "cards": "She writes thank-you cards by hand.",
          "wedding": "Her invitations for the wedding went out in May.",
          "italian": "She is learning Italian with a weekly tutor.", "cat": "She has a cat called Miso."}


def test_what_the_user_calls_their_own_weighs_more_than_the_rest_of_the_message(db, alice, monkeypatch):
    """"my mentor" names whom the card is for: the memory that says who that is ranks above one that shares the
    message's other words ("conference"); weighed like any other word, and without the link through needs and the
    bearing probe (which lift a mentor too), it ranks below it (control)."""
    ids = _fill(db, alice, MENTOR)
    view, message = View(alice.accessible()), "write a thank-you card to my mentor for the conference invitation"
    ranked = _ids(retrieval.search(db, view, message))
    assert ranked.index(ids["mentor"]) < ranked.index(ids["poster"]) and ids["mentor"] in ranked[:3]
    monkeypatch.setattr(retrieval, "OWNED_WEIGHT", 1.0)
    monkeypatch.setattr(retrieval, "NEEDS_WEIGHT", 0.0)
    monkeypatch.setattr(retrieval, "BEARING_WEIGHT", 0.0)
    ranked = _ids(retrieval.search(db, view, message))
    assert ranked.index(ids["mentor"]) > ranked.index(ids["poster"])


@pytest.mark.parametrize(("message", "frame"), [
    ("how does a heat pump work?", {"work"}), ("Explain how a transistor works", {"works"}),
    ("when do I work this week?", set()), ("how does work look next week?", set()),
    ("show how merge sort works step by step", {"works"}), ("how many nights do I work?", set()),
    ("how does my heat pump work?", {"work"}),
])
def test_the_work_of_how_does_it_work_frames_the_question(message, frame):
    assert intent.frame_words(message) == frame


def test_how_something_works_is_a_general_question_not_one_about_where_the_user_works(db, alice, monkeypatch):
    """A store where the user's job is a memory: "how do magnets work?" gets nothing, while asking when they work
    recalls it (control); with "works" counted as a word of the question, the job is recalled (the rule matters)."""
    ids = _fill(db, alice, {"shifts": "Works rotating 12-hour shifts, usually three nights in a row.",
                            "cats": "Her sister Ana has two cats."})
    view = View(alice.accessible())
    for question in ("how do magnets work?", "how does a heat pump work?", "explain how a transistor works",
                     "show how merge sort works step by step"):
        assert retrieval.search(db, view, question).hits == []
    assert _ids(retrieval.search(db, view, "when do I work this week?")) == [ids["shifts"]]
    monkeypatch.setattr(retrieval, "frame_words", lambda message: set())  # "works" is less common than "work"
    monkeypatch.setattr(retrieval, "GENERAL_SHARE", 0.0)  # ... and here no word in passing
    monkeypatch.setattr(retrieval, "FAR_MEANING", float("-inf"))  # ... however far its meaning
    monkeypatch.setattr(retrieval, "explains", lambda message: False)  # ... nor an explanation the world gives
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # nor the probe, sure of it too
    assert _ids(retrieval.search(db, view, "explain how a transistor works")) == [ids["shifts"]]


@pytest.mark.parametrize(("message", "is_general"), [
    ("how long do cats live?", True), ("who painted the Mona Lisa?", True),
    ("what's the best way for me to get to the airport?", False), ("where do I live?", False),
    ("suggest a film", False), ("whats the tallest lighthouse in the US", True),
    ("can you find us a table for four", False),
])
def test_a_general_question_says_nothing_of_the_user(message, is_general):
    assert intent.general(message) is is_general


HABITS = {"flat": "Lives in Campo de Ourique, in a third-floor flat.", "coffee": "Likes her coffee black.",
          "clarinet": "Plays the clarinet in the municipal band.", "editor": "Uses Neovim and Rust at work."}


def test_a_general_question_sharing_only_a_common_word_with_a_memory_recalls_nothing(db, bob, monkeypatch):
    """"live", "like", "play" are among the language's commonest words: a question that says nothing of the user
    does not recall a memory for holding one. Asked about the user by name, the same memories are found (control);
    with every question taken as one about the user (the resting probe set aside too), the common word alone recalls
    them (the rule matters)."""
    ids = _fill(db, bob, HABITS)
    view = View(bob.accessible())
    for question in ("how long do cats live?", "what do pandas like to eat?", "how do you play chess?"):
        assert retrieval.search(db, view, question).hits == []
    assert _ids(retrieval.search(db, view, "where does Bob live?"))[:1] == [ids["flat"]]
    assert _ids(retrieval.search(db, view, "what does Bob play?"))[:1] == [ids["clarinet"]]
    monkeypatch.setattr(retrieval, "about_the_world", lambda message: False)
    monkeypatch.setattr(retrieval, "PERSONAL_SHARE", 0.0)
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # the rules alone decide
    assert ids["flat"] in _ids(retrieval.search(db, view, "how long do cats live?"))


def test_a_request_for_the_users_context_is_answered_on_weaker_evidence_a_general_question_is_not(db, alice):
    ids = _fill(db, alice)
    view = View(alice.accessible())
    asked = retrieval.search(db, view, "suggest something quick for dinner tonight")
    assert _ids(asked)[:1] == [ids["food"]] and retrieval.CONTEXT_FLOOR <= asked[0].score < retrieval.FLOOR
    # the same words without the request still rest on her (food, needs.py); a question about pandas does not
    assert _ids(retrieval.search(db, view, "quick dinner tonight"))[:1] == [ids["food"]]
    assert retrieval.search(db, view, "what do pandas like to eat?").hits == []
    for question in ("what's the capital of Australia?", "explain how photosynthesis works"):
        assert retrieval.search(db, view, question).hits == [], question


def test_latent_terms_lift_a_memory_its_vector_alone_ranks_too_low(db, monkeypatch):
    """"antibiotics" shares no word with "allergic to penicillin"; the latent terms bring it up at least three
    places (the link through needs and the bearing probe, which lift it too, are off on both sides)."""
    ids, view = _persona(db, "personal.json", "p1")  # 22 rows: more than a search catches up by itself
    message = "I've got a sinus infection and the doctor wants to give me antibiotics, anything I should tell her?"
    wanted = ids["p1.m05"]  # allergic to penicillin
    monkeypatch.setattr(retrieval, "NEEDS_WEIGHT", 0.0)
    monkeypatch.setattr(retrieval, "BEARING_WEIGHT", 0.0)

    def place() -> int:
        return _ids(retrieval.search(db, view, message, 22, abstain=False)).index(wanted)

    with_terms = place()
    monkeypatch.setattr(retrieval, "TERMS_WEIGHT", 0.0)
    assert with_terms < 3 and place() >= with_terms + 3


def test_a_lane_over_its_budget_is_interrupted_and_the_connection_works_after(db):
    heavy = "with recursive n(i) as (select 1 union all select i + 1 from n where i < 50000000) select count(*) from n"
    assert retrieval.within(db, 0.01, lambda: db.execute(heavy).fetchone()) is None
    assert retrieval.within(db, 1.0, lambda: db.execute("select 41 + 1").fetchone()[0]) == 42  # control
    assert db.execute("select count(*) from memories").fetchone()[0] == 0  # no handler left behind


@pytest.mark.parametrize("user, query, said", [
    ("jiwoo", "Where does Ji-woo's family live?", "Where does the user's family live?"),
    ("mara.silva", "what does Mara Silva play?", "what does the user play?"),
    ("ines", "Which instrument does Ines play?", "Which instrument does the user play?"),
    ("lindiwe.dube", "where does Lindiwe live?", "where does the user live?"),
])
def test_a_name_the_user_id_spells_as_one_word_is_said_as_the_user(db, user, query, said):
    from scope_recall_engine.truth.scope import Identity

    who = Identity(user=user, chat="chat-1")
    lifecycle.store(db, who, "memory", "Her parents run a small bakery in Daegu.", ME)
    counts = dict.fromkeys(retrieval.query_terms(query, content_only=True), 0)
    names, common = retrieval.user_names_in(db, View(who.accessible()), query, counts, 1)
    assert said in retrieval.wordings(query, names, common)
    other = Identity(user="carol", chat="chat-1")  # control: a name that is not this user's stays as typed
    names, common = retrieval.user_names_in(db, View(other.accessible()), query, counts, 1)
    assert retrieval.wordings(query, names, common) == [query]


def test_a_large_scope_counts_its_words_over_its_newest_rows(db, alice, monkeypatch):
    """Word shares are estimated over a bounded window, so they cost the same in any scope size."""
    old = [lifecycle.store(db, alice, "memory", f"Alice tried the old espresso machine, take {n}", ME).id
           for n in range(8)]
    new = [lifecycle.store(db, alice, "memory", f"Alice tried the new kettle, take {n}", ME).id for n in range(4)]
    view = View(alice.accessible())
    since, size = retrieval.word_window(db, view)  # control: a small view is counted whole
    assert (since, size) == (0, 12)
    assert retrieval.document_counts(db, view, ["espresso", "kettle", "alice"], since) == {
        "espresso": 8, "kettle": 4, "alice": 12}
    monkeypatch.setattr(retrieval, "DF_CAP", 6)
    since, size = retrieval.word_window(db, view)
    assert since == (old + new)[-6] and size == 6
    assert retrieval.document_counts(db, view, ["espresso", "kettle", "alice"], since) == {
        "espresso": 2, "kettle": 4, "alice": 6}


def test_a_memory_sharing_only_a_common_word_with_a_general_question_is_not_recalled(db, monkeypatch):
    """"works" in "explain how binary search works" is little of the question: the shift memory needs the meaning
    floor then, as if it shared nothing; asked about, it is recalled on the words it shares (control). The rule
    itself: a memory between the two floors is admitted for a strong share, and for a weak one only without it."""
    ids, view = _persona(db, "personal.json", "p1")
    shifts = ids["p1.m04"]  # "Works rotating 12-hour shifts ..."
    question = "explain how binary search works, with a Python example"
    assert retrieval.search(db, view, question).hits == []
    assert shifts in _ids(retrieval.search(db, view, "how long are Mara's shifts?"))
    between = (retrieval.SHARED_WORDS_FLOOR + retrieval.FLOOR) / 2
    weak, strong = (retrieval.Candidate(None, lexical_own=share, relevance=between)
                    for share in (retrieval.WEAK_SHARE / 2, retrieval.WEAK_SHARE * 2))
    assert retrieval.admissible(strong) and not retrieval.admissible(weak)
    monkeypatch.setattr(retrieval, "WEAK_SHARE", 0.0)  # without the rule the weak share lets it through
    assert retrieval.admissible(weak)


def test_a_memory_ranked_above_a_recalled_one_is_recalled_for_a_message_resting_on_the_user():
    """Abstention decides whether a message that rests on the user gets anything, the ranking what: a memory
    ranked above an admitted one within the packet comes first, though its own relevance is under the floor.
    Controls: a general question keeps only what it admits, a recall below the packet pulls nothing up, the world's
    question gets nothing, and explain says why the first was recalled."""
    from scope_recall_engine.reading import explain

    floor = retrieval.CONTEXT_FLOOR
    below, above = (retrieval.Candidate(None, relevance=relevance) for relevance in (floor - 0.1, floor + 0.05))
    assert retrieval.recalled([below, above], floor) == [below, above]
    assert retrieval.recalled([below, above]) == []  # no context: the meaning floor, which neither clears
    assert retrieval.recalled([below, above], floor, world=True) == []
    deep = [retrieval.Candidate(None, relevance=floor - 0.1) for _ in range(retrieval.ABOVE_RECALLED)]
    assert retrieval.recalled(deep + [above], floor) == [above]
    shared = retrieval.Candidate(None, lexical_own=1.0, relevance=retrieval.SHARED_WORDS_FLOOR)
    assert retrieval.recalled([below, shared]) == [shared]  # words admit it, but only context pulls rows up
    assert "ranked above a recalled memory" in explain.why(below, True, floor)
    assert "ranked above" not in explain.why(above, True, floor)


def test_a_name_the_memories_give_the_user_is_said_as_the_user(db):
    """A numeric user id names no one; "The user is Tomasz Nowak, ..." does, so "where does Tomasz live?" asks
    about the user, and the memory that says where they live (without the name) is found."""
    from scope_recall_engine.truth.scope import Identity

    who = Identity(user="5812093347", chat="chat-1")
    texts = ["The user is Tomasz Nowak, a long-haul truck driver.", "Lives in Steinbach, Manitoba with his wife.",
             "Tomasz's daughter Maja is 2.", "Tomasz is saving for a house down payment.",
             "His dispatcher is called Darlene Fehr."]
    ids = [lifecycle.store(db, who, "memory", text, ME).id for text in texts]
    vectors.drain(db)
    assert retrieval.self_names(db, View(who.accessible())) == {"tomasz"}  # not the dispatcher
    assert _ids(retrieval.search(db, View(who.accessible()), "Where does Tomasz live?", 1)) == [ids[1]]
    other = Identity(user="5812093348", chat="chat-1")  # control: another user's memories name someone else
    for text in ("The user is Ewa Nowak, a nurse.", "The user is Polish, from Gdansk."):  # a nationality names no one
        lifecycle.store(db, other, "memory", text, ME)
    assert retrieval.self_names(db, View(other.accessible())) == {"ewa"}


def test_a_substring_counts_inside_a_coined_word_not_inside_another_word():
    """"postgres" is part of "PostgreSQL" (a name the language does not know); "list" is no part of "listen"."""
    from scope_recall_engine.companion import reference

    assert reference.coverage(("The team runs PostgreSQL 15",), {"postgres": 1.0}) == 1.0
    assert reference.coverage(("I listen to audiobooks on long hauls",), {"list": 1.0}) == 0.0
    assert reference.coverage(("She keeps a reading list",), {"list": 1.0}) == 1.0  # control: the word itself
    assert reference.coverage(("just finished the Stormlight Archive",), {"light": 1.0}) == 0.0  # a known word
    assert reference.coverage(("just finished the Stormlight Archive",), {"sa": 1.0}) == 1.0  # control: its initials


def test_a_lookup_that_names_the_user_rests_on_their_life(db, monkeypatch):
    """"how much does Rosa still owe?" names the user: it looks a particular of her life up, so it has the floor of
    a message that rests on the user, and the loan she is paying off is recalled though it shares no word with the
    question. Control: read as a lookup of no one's, the same question recalls nothing."""
    rosa = Identity(user="8801234", chat="c1")
    ids = _fill(db, rosa, dict(enumerate([
        "The user is Rosa Lima, a florist in Porto.", "Paying off the 9,000 euros left on her delivery van by March.",
        "Her partner Inês is a nurse at Santo António.", "Prefers short answers, no long paragraphs.",
        "Allergic to lilies' pollen; wears a mask when unpacking them.",
        "Her mother Graça lives in Braga and turns 70 in June.", "Opens the shop at 7am, closed on Mondays.",
        "Rosa cycles to the market on Saturdays."])))
    view, question = View(rosa.accessible()), "how much does Rosa still owe?"
    found = retrieval.search(db, view, question, 3)
    assert found.rests_on_user and _ids(found)[:1] == [ids[1]]
    monkeypatch.setattr(retrieval, "looks_up", lambda message: False)
    assert retrieval.search(db, view, question, 3).hits == []


def test_a_short_form_counts_as_the_compound_or_name_it_shortens():
    """"van" is the head of "campervan" (a compound the language does not list), "lc" and "mri" are a name's
    initials; "pet" of "carpet" and "hole" of "keyhole" (words of their own), "light" of "Stormlight" (a name) and a
    head written in a name ("Campervan Club") are not."""
    from scope_recall_engine.companion import reference

    assert reference.coverage(("Saving for a campervan: 9,000 pounds so far",), {"van": 1.0}) == 1.0
    assert reference.coverage(("Saving for two campervans",), {"van": 1.0}) == 1.0
    assert reference.coverage(("Does LeetCode daily; at 312 solved",), {"lc": 1.0}) == 1.0
    assert reference.coverage(("She works at Manchester Royal Infirmary",), {"mri": 1.0}) == 1.0
    assert reference.coverage(("Follows Inverness Caledonian Thistle",), {"ict": 1.0}) == 1.0  # within a longer run
    assert reference.coverage(("A new carpet in the hall",), {"pet": 1.0}) == 0.0
    assert reference.coverage(("Had keyhole surgery on his knee",), {"hole": 1.0}) == 0.0
    assert reference.coverage(("Joined the Campervan Club",), {"van": 1.0}) == 0.0
    assert reference.coverage(("Does leetcode daily",), {"lc": 1.0}) == 0.0  # no name in it, so no initials


def test_a_question_in_short_forms_is_answered_and_a_general_question_is_not(db):
    """The user types "van" for the campervan they save for and "lc" for LeetCode: each is answered. Control: the
    same store recalls nothing for general questions whose word is the head of a listed compound ("light" of
    "headlight", "hole" of "keyhole")."""
    from scope_recall_engine.truth.scope import Identity

    who = Identity(user="doug", chat="chat-1")
    facts = {"van": "Saving for a campervan: about 9,000 pounds put aside towards a 20,000 pound target.",
             "lc": "Does LeetCode daily; at 312 solved and aiming for 500 before placements.",
             "eyes": "Wears varifocals and oncoming headlight glare at night bothers him a lot.",
             "knee": "Had keyhole surgery on his right knee in 2022; kneeling hurts.",
             "tea": "Drinks builder's tea with two sugars."}
    ids = _fill(db, who, facts)
    view = View(who.accessible())
    assert _ids(retrieval.search(db, view, "van fund. how far off", 3))[:1] == [ids["van"]]
    assert ids["lc"] in _ids(retrieval.search(db, view, "how many lc problems had i done", 3))
    for question in ("what is the speed of light?", "what is a black hole?"):
        assert _ids(retrieval.search(db, view, question, 3)) == [], question


def test_a_message_in_another_language_is_weighed_in_it():
    """Two or more of a language's common words name the message's other language ("cuanto llevo ahorrado pa
    berlin"); English, and a single foreign name, name none. In it, its common words weigh little and the telling
    word holds more of the message; an English message's weights do not change."""
    from scope_recall_engine.companion import reference

    spanish = ["controller", "tengo", "pibe", "casa", "musica", "pregunta", "venderme", "cable"]
    assert reference.spoken(spanish) == "es"
    assert reference.spoken(["qual", "era", "nome", "moinho", "again"]) == "pt"
    assert reference.spoken(["dinner", "ideas", "friday", "vegetarian"]) is None
    assert reference.spoken(["festa", "tomorrow", "school"]) is None  # one sign is a name or a loan word
    short = "wanneer is fenna jarig"  # ... unless it opens the question
    terms = retrieval.query_terms(short, content_only=True)
    assert reference.spoken(terms) is None and reference.spoken(terms, question_languages(short)) == "nl"
    assert question_languages("when is fenna's birthday") == () and "es" in question_languages("¿Cuándo es?")
    closing = "vize randevum ne zamandı"  # ... or closes it, as Turkish does
    terms = retrieval.query_terms(closing, content_only=True)
    assert reference.spoken(terms) is None and reference.spoken(terms, question_languages(closing)) == "tr"
    assert gloss(closing, "tr") == "vize randevum when again"  # "when was it": asks to be reminded
    assert intent.asks_about_user(gloss(closing, "tr")) and not intent.asks_about_user(gloss("ne zaman?", "tr"))
    for message, language in (("si vendo 140 bocadillos a 6,50€ y 90 bravas a 4€, cuánto es en total?", "es"),
                              ("rechne mal 17,5 % von 2.340", "de")):  # as many signs of French, of Slovak:
        assert reference.spoken(retrieval.query_terms(message, content_only=True)) == language  # its other words
    english, weighed = reference.weights(spanish, {}, 20), reference.weights(spanish, {}, 20, "es")
    assert weighed["tengo"] < english["tengo"] / 2 and weighed["controller"] == english["controller"]
    share = lambda weights: weights["controller"] / sum(weights.values())  # noqa: E731
    assert share(weighed) > 1.3 * share(english)
    words = ["dinner", "ideas", "friday"]
    assert reference.weights(words, {}, 20, reference.spoken(words)) == reference.weights(words, {}, 20)


@pytest.mark.parametrize(("message", "is_english"), [
    ("pune traffic today I swear. 50 min stuck near the chowk", True),
    ("lmao customer asked me to fix her microwave", True),
    ("shoe size yangu ni ngapi, nimesahau lol", False), ("wanneer is fenna jarig", False), ("🙂", False),
])
def test_words_that_show_no_other_language_are_english_only_when_english_knows_most_of_them(message, is_english):
    """A language without a table (Swahili) or too few of a language's signs (a short Dutch question) shows no
    language to ``spoken``; only when English knows most of the words is the message read as English."""
    terms = retrieval.query_terms(message)
    assert reference.spoken(terms) is None and reference.english(terms) is is_english


def test_a_word_of_the_messages_language_is_no_typo(db, alice):
    """"hermano" is Spanish, not a mistyped "herman": a Spanish message about the user's brother does not reach the
    memory about Herman on that word; control: in an English message the same word is read as the typo it is."""
    herman = _fill(db, alice, {"herman": "Herman fixes Alice's bike on Sundays."}, drain=False)["herman"]
    view = View(alice.accessible())
    spanish = retrieval.search(db, view, "mi hermano me pregunta si estudiar sonido", 3, use_vectors=False,
                               abstain=False)
    english = retrieval.search(db, view, "what does hermano do?", 3, use_vectors=False, abstain=False)
    assert spanish.language == "es" and herman not in [c.row.id for c in spanish.candidates]
    assert english.language is None and _ids(english)[:1] == [herman]


def test_a_mistyped_word_is_read_as_the_word_it_meant():
    """One edit after the first letter, to the language's most frequent known word; a known word, its plural, a
    short clipping, a name near no word and a first letter are kept as typed."""
    from scope_recall_engine.companion import reference

    assert [reference.spelled(typed) for typed in ("dauhgter", "anniversery", "alergy", "febuary", "commmute")] == [
        "daughter", "anniversary", "allergy", "february", "commute"]
    for kept in ("daughter", "beagles", "tmrw", "xiomara", "nessie", "levothyroxine", "große"):
        assert reference.spelled(kept) is None, kept


def test_a_question_with_a_typo_finds_the_memory_by_its_word(db, alice, monkeypatch):
    """On words alone (lexical-only), "anniversery" finds the anniversary; control: without the reading of
    typos it finds nothing, while the word spelled right does."""
    from scope_recall_engine.companion import reference

    ids = _fill(db, alice, {"wedding": "Their wedding anniversary is on 22 September.",
                            "dog": "Has a border collie called Bran."}, drain=False)
    view = View(alice.accessible())
    typed = "when is our anniversery?"
    assert _ids(retrieval.search(db, view, typed, 3, use_vectors=False)) == [ids["wedding"]]
    monkeypatch.setattr(reference, "spelled", lambda term, language=None: None)
    assert _ids(retrieval.search(db, view, typed, 3, use_vectors=False)) == []
    assert _ids(retrieval.search(db, view, "when is our anniversary?", 3, use_vectors=False)) == [ids["wedding"]]


def test_the_vector_lane_embeds_the_message_as_meant(db, alice, monkeypatch):
    """A typo is read as the word it meant in the message the vector lane embeds too (the typo's tokens mean little
    to the embedder); a message spelled right, and a name the store holds, are embedded as typed."""
    _fill(db, alice, {"kirsty": "Daughter Kirsty (26) lives in Edinburgh."}, drain=False)
    embedded, start = [], dense.start
    monkeypatch.setattr(dense, "start", lambda db, view, queries, *args, **kwargs: embedded.append(queries)
                        or start(db, view, queries, *args, **kwargs))
    view = View(alice.accessible())
    for typed in ("How old is my dauhgter?", "How old is my daughter?", "Where does Kirsty live?"):
        retrieval.search(db, view, typed, 3)
    assert embedded == [["How old is my daughter?"], ["How old is my daughter?"], ["Where does Kirsty live?"]]


def test_a_coding_question_does_not_recall_a_memory_for_a_word_inside_another(db, alice):
    listen = lifecycle.store(db, alice, "memory", "I listen to fantasy audiobooks on long hauls", ME).id
    lifecycle.store(db, alice, "memory", "Alice drinks green tea every morning", ME)
    vectors.drain(db)
    view = View(alice.accessible())
    assert _ids(retrieval.search(db, view, "how do i reverse a list in python", 3)) == []
    assert _ids(retrieval.search(db, view, "what do I listen to on long drives?", 3))[:1] == [listen]  # control


def test_a_word_for_the_same_role_counts_as_the_messages_word(db, alice, monkeypatch, request):
    """"my boss" is the memory's "manager", "my family" its "parents": the memory is found, and holds the message's
    word; with the table emptied it holds none of it (control: the word evidence is the table's)."""
    from scope_recall_engine.companion import reference

    assert reference.coverage(("Her manager is Priya Natarajan.",), {"boss": 1.0}) == 1.0
    assert reference.coverage(("Her manager is Priya Natarajan.",), {"cook": 1.0}) == 0.0
    assert reference.coverage(("Her transport manager is Craig Munro.",), {"gaffer": 1.0}) == 1.0
    assert reference.coverage(("The autumn semester starts on 2 September.",), {"sems": 1.0}) == 1.0  # clipped
    assert reference.coverage(("The autumn semester starts on 2 September.",), {"seminar": 1.0}) == 0.0
    ids = _fill(db, alice, {"manager": "Alice's manager is Priya Natarajan.", "tea": "Alice drinks green tea.",
                            "dorm": "Alice lives in a dorm in Sinchon.",
                            "parents": "Her parents run a small bakery in Daegu."})
    view = View(alice.accessible())
    assert _ids(retrieval.search(db, view, "what's my boss called again?", 1)) == [ids["manager"]]
    assert _ids(retrieval.search(db, view, "where does my family live?", 3))[:1] == [ids["parents"]]

    def boss_share() -> float:
        found = retrieval.search(db, view, "what's my boss called again?", abstain=False).candidates
        return next((c.lexical_own for c in found if c.row.id == ids["manager"]), 0.0)

    assert boss_share() > 0
    monkeypatch.setattr(reference, "SAME_ROLE", {})
    reference.form_stems.cache_clear()
    request.addfinalizer(reference.form_stems.cache_clear)  # the table comes back after the test: so do its stems
    assert boss_share() == 0


def test_a_word_in_passing_of_a_general_question_recalls_nothing_a_lookup_does(db, bob, monkeypatch):
    """"Berlin" is a word in passing of "which architect designed the glass dome on the Reichstag in Berlin?": the
    memory that shares it is not recalled; a lookup of two words ("berlin startup") recalls it (control), and so
    does the question without the rule (it matters), or its cousin for a part of the words far on meaning."""
    job = lifecycle.store(db, bob, "memory", "Bob is a backend engineer at a fintech startup in Berlin.", ME).id
    lifecycle.store(db, bob, "memory", "Bob drinks oat-milk flat whites, two a day at most.", ME)
    vectors.drain(db)
    view, question = View(bob.accessible()), "which architect designed the glass dome on the reichstag in berlin?"
    assert not intent.explains(question)
    assert _ids(retrieval.search(db, view, question)) == []
    assert _ids(retrieval.search(db, view, "berlin startup"))[:1] == [job]
    monkeypatch.setattr(retrieval, "GENERAL_SHARE", 0.0)
    monkeypatch.setattr(retrieval, "FAR_MEANING", float("-inf"))
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # nor the probe, sure of it too
    assert _ids(retrieval.search(db, view, question)) == [job]


@pytest.mark.parametrize(("message", "vents"), [
    ("Isla screamed from 5 til 7 and I cried in the shower. not asking anything just needed to tell someone", True),
    ("aaj ka din bekaar tha yaar. lab viva mein roast kar diya. bas vent karna tha", True),
    ("im so tired of being the only adult in this family. thats it thats the message", True),
    ("3 meetings back to back and NONE had an agenda. ok venting over", True),
    ("got ghosted after a final round AGAIN. not even a rejection email. whatever man", True),
    ("prod down. 3rd time this wk. ugh", True), ("Brutal day, lost half the catch. Anyway.", True),
    ("why does the sky go pink at sunset anyway", False), ("knee still sore, doing the 10k anyway", False),
    ("whatever you think is fine, what should I cook tonight", False),
    ("Rough night. Not after advice, just needed to type it somewhere.", True),
    ("heute war einfach ein scheißdienst. will nur kurz dampf ablassen, brauch keine tipps", True),
    ("not asking for advice but what do you think of my plan?", False),
    ("ok venting over. anything good to watch tonight?", False), ("the bathroom vent rattles, how do I fix it", False),
    ("tax season is eating me alive. 62 hour week. that's it, that's the message", True),
    ("I just want to say I got through the whole day without crying and I'm weirdly proud", True),
    ("I just want to say no to my boss without burning the bridge", False),
])
def test_a_message_that_says_it_asks_for_nothing_is_venting(message, vents):
    """Saying it asks for nothing ("not asking anything", "bas vent karna tha") is no request ("anything" would be
    one), nor is a closing word that waves it all off ("whatever man", "ugh"); a message that also asks something
    is not venting, nor is "anyway" that carries on with a plan."""
    assert intent.vents(message) is vents


@pytest.mark.parametrize(("message", "thanks"), [
    ("Cheers for the help earlier, that letter was spot on.", True),
    ("jazakallah khair, the letter to the city council worked 🙏", True),
    ("Thanks o, the youth loved the icebreaker game you suggested.", True),
    ("Waheguru ji, thank you for help yesterday 🙏", True), ("thanks! can you make it shorter?", False),
    ("whats cheers in japanese", False), ("translate 'thank you for your patience' to french", False),
    ("Thank you, that's lovely, you've been a great help.", True), ("thanks, that was a big help", True),
    ("thanks! big help. now can you help me with the next one?", False),
])
def test_a_message_that_only_thanks_asks_nothing(message, thanks):
    """Thanks asks nothing ("help" in "thank you for help yesterday" is no request, nor is "the game you suggested"
    or "a great help"), unless something else in the message does."""
    assert intent.thanks(message) is thanks


@pytest.mark.parametrize(("message", "asks"), [
    ("来週の火曜、朝から打ち合わせ入りそう…おばあちゃんどうしよ", True), ("手首もつかな…なんか対策ある？", True),
    ("간단한거 추천 좀", True), ("周末去哪玩好？推荐一下", True), ("富士山の高さは何メートル？", False),
    ("오늘 날씨 좋다", False),
])
def test_asking_what_to_do_or_for_a_recommendation_is_read_in_unspaced_scripts(message, asks):
    """Japanese "どうしよ" (what should I do), "対策" (ways to cope), Korean "추천" and Chinese "推荐" (recommend) ask
    for advice resting on the user's situation; a fact asked in the same scripts does not."""
    assert intent.asks_for_context(gloss(message, None)) is asks


def test_thanks_and_a_definition_read_in_filipino_and_polish():
    """Glossed: "salamat pre! laking tulong talaga" (thanks, a big help) only thanks, while "tulungan mo ako" (help
    me) asks, and "nga" asks again; Polish "co dokładnie znaczy ..." asks what a term means, "co mam kupić na
    obiad?" does not."""
    assert intent.thanks(gloss("salamat pre! laking tulong talaga 🙏", "fil"))
    recalled = gloss("kelan nga bday ni Jaycee?", "fil")  # "nga" in a question: when was it again
    assert intent.asks_about_user(recalled) and not intent.asks_about_user(recalled, again=False)
    assert not intent.asks_about_user(gloss("kelan bday ni Jaycee?", "fil"))
    assert not intent.thanks(gloss("salamat! tulungan mo ako sa sulat kay boss", "fil"))
    assert intent.explains(gloss("co dokladnie znaczy 'snagging list'? main contractor ciagle gada", "pl"))
    assert intent.explains(gloss("wytlumacz prosto roznice miedzy RCBO a RCD", "pl"))
    assert not intent.explains(gloss("co mam kupic na obiad?", "pl"))


def test_a_turkish_question_particle_ukrainian_and_clipped_portuguese_are_read():
    """Turkish asks with a particle as often as with a question mark ("bu akşam maç var mı" : is there a match
    tonight?); Ukrainian "нагадай коли в мене ..." asks to be reminded when the user has something, "яка різниця
    між ..." for a difference the world tells; chats clip Portuguese "quando" to "qdo". Controls: the same words
    without the particle ask nothing, and unglossed none of them is read."""
    asks = "bu akşam maç var mı, nerden izlerim"
    assert intent.asks_anything(gloss(asks, "tr")) and not intent.asks_anything(asks)
    assert not intent.asks_anything(gloss("bu akşam maç var, evde izliyorum", "tr"))
    remind = "нагадай коли в мене JLPT і на який рівень я записався"
    assert intent.asks_about_user(gloss(remind, "uk")) and not intent.asks_about_user(remind)
    assert intent.explains(gloss("яка різниця між FixedUpdate і Update? поясни як джуну", "uk"))
    clipped = "qdo é o niver do rafa??"
    assert intent.looks_up(gloss(clipped, "pt")) and not intent.looks_up(clipped)


def test_hebrew_and_greek_are_read_glossed():
    """Hebrew "תזכיר לי מתי ..." asks to be reminded of something of the user's, "מה ההבדל בין ..." for a
    difference the world tells; Greek "ποια είναι η πρωτεύουσα ..." asks for a capital. Unglossed, none is read."""
    remind = "תזכיר לי מתי יום ההולדת של עומר"
    assert intent.asks_about_user(gloss(remind, "he")) and not intent.asks_about_user(remind)
    difference = "מה ההבדל בין smoke test ל-sanity test?"
    assert intent.explains(gloss(difference, "he")) and not intent.explains(difference)
    capital = "ποια είναι η πρωτεύουσα της Αυστραλίας;"
    assert intent.explains(gloss(capital, "el")) and not intent.explains(capital)


def test_korean_is_read_for_who_speaks_and_what_it_asks():
    """Korean "나 올해 연차 몇 개 남았지?" (how many days of leave do I have left this year?) speaks of the user and,
    by its ending "았지?", asks to be reminded; "가방 하나 질러도 될까" (should I splurge on a bag?) asks whether to do
    something. As typed, the English rules read neither as the user's; "오늘 날씨 좋다" (nice weather today), glossed,
    reads as neither (control)."""
    leave, splurge = "나 올해 연차 몇 개 남았지?", "이번 달 성과급 들어오면 가방 하나 질러도 될까"
    assert intent.asks_for_context(gloss(leave, None)) and not intent.asks_for_context(leave)
    assert intent.asks_about_user(gloss(leave, None))
    assert intent.asks_for_context(gloss(splurge, None)) and not intent.asks_for_context(splurge)
    weather = gloss("오늘 날씨 좋다", None)
    assert not (intent.asks_for_context(weather) or intent.asks_about_user(weather))


def test_french_qui_after_a_word_is_the_relative_that_and_asks_nothing():
    """"un passager qui m'a insultée, je suis crevée" vents: its "qui" follows a word, so it is "that", not "who";
    "qui a fait le musée des Confluences ?" still asks, and "je fais quoi là" asks what to do."""
    assert not intent.asks_anything(gloss("journée de fou, un passager qui m'a insultée, je suis crevée", "fr"))
    assert intent.asks_anything(gloss("qui a fait le musée des Confluences", "fr"))
    assert intent.asks_for_context(gloss("j'ai un mal de crâne qui monte depuis hier, je fais quoi là", "fr"))


def test_thanks_recalls_nothing_a_request_on_the_same_matter_does(db):
    """"Cheers for the help earlier, that letter was spot on." speaks of the council letter, but what it thanks for
    is done: nothing is recalled; control: asking for the next letter recalls the dispute with the council."""
    callum = Identity(user="callum", chat="c1")
    ids = _fill(db, callum, SAVER | {
        "council": "Callum is appealing Glasgow City Council's refusal of his blue badge renewal.",
        "ms": "Callum has relapsing-remitting MS and gets Ocrevus infusions every six months."})
    view = View(callum.accessible())
    thanked = retrieval.search(db, view, "Cheers for the help earlier, that letter to the council was spot on.")
    assert thanked.small_talk and thanked.hits == []
    asked = retrieval.search(db, view, "help me write a follow-up letter to the council about the blue badge")
    assert _ids(asked)[:1] == [ids["council"]]


@pytest.mark.parametrize("venting", ["Isla screamed from 5 til 7 and I cried in the shower. not asking anything "
                                     "just needed to tell someone",
                                     "Isla screamed from 5 til 7 and I cried in the shower. ugh."])
def test_venting_that_says_it_asks_for_nothing_recalls_nothing_a_need_in_the_same_words_does(db, venting):
    """The crying baby is in her memories, and the message opens with her name, but it says it asks for nothing, or
    waves it off: nothing is recalled; control: the same evening, asked about, recalls the reflux."""
    becca = Identity(user="becca", chat="c1")
    ids = _fill(db, becca, SAVER | {"reflux": "My daughter Isla, 8 weeks old, has silent reflux and cries most "
                                              "evenings."})
    view = View(becca.accessible())
    venting = retrieval.search(db, view, venting)
    assert venting.small_talk and venting.hits == []
    asked = retrieval.search(db, view, "Isla screamed from 5 til 7 again, what can I try for her?")
    assert _ids(asked)[:1] == [ids["reflux"]]


def test_chit_chat_in_the_first_person_recalls_nothing_a_need_without_my_does(db, monkeypatch):
    """"my friend says tomatoes are fruit, is that true?" speaks of the user but checks a claim about the world, so
    nothing of theirs is recalled, while "what stretches help after a twelve-hour service?" says neither I nor my
    and recalls the back pain (control: it falls among the kinds of need). With every message taken as resting on
    the user, none as about the world and the resting probe set aside, the chit-chat recalls something again (the
    rules matter)."""
    ids, view = _persona(db, "personal.json", "p5")
    chit_chat = "my friend says tomatoes are fruit, is that true?"
    assert intent.asks_for_context(chit_chat)  # by its words it would ask for the user's context
    assert retrieval.search(db, view, chit_chat).hits == []
    stretches = "what stretches help after a twelve-hour service?"
    assert not intent.asks_for_context(stretches)
    assert ids["p5.m21"] in _ids(retrieval.search(db, view, stretches, 3))
    monkeypatch.setattr(retrieval, "PERSONAL_SHARE", 0.0)
    monkeypatch.setattr(retrieval, "about_the_world", lambda message: False)
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # the rules alone decide
    assert retrieval.search(db, view, chit_chat).hits != []


@pytest.mark.parametrize(("message", "about_user"), [
    ("which instrument do I play again?", True), ("what's my dispatcher's name?", True),
    ("remind me when the exams start", True), ("my friend says tomatoes are fruit, is that true?", False),
    ("how do I make a sourdough starter?", False), ("I'm bored, tell me a joke", False),
    ("what strength is my thyroid tablet?", True), ("how old is my daughter now?", True),
    ("whats my mentor's name, blanked", True), ("the monthly spending figure I gave you?", True),
    ("my son asked why the sky is blue, how do I explain it?", False),
    ("what year did erik and I get married? ruth is doing a family timeline", True),
    ("how much r we each putting into the deposit pot pm?", True), ("how do cats and dogs get along?", False),
    ("A dreich day once again. One does tire of it.", False), ("whats my boss called again, the new one", True),
    ("my shoe size?", True),
    ("our wifi password??", True), ("my knee hurts when i run on hills, should i stop?", False),
    ("gomi no hi... plastic wa nanyoubi dakke", True), ("kihon jouhou no shiken itsu dakke? I forgot the date", True),
    ("Yanis il est là quels jours déjà ?", True),  # a French question that ends "déjà ?": again
    ("j'ai déjà payé le loyer", False),  # "déjà" that ends no question is "already"
    ("人間ドックって何日だっけ", True), ("ケンタと介護費いくらずつ出してるんやったっけ", True),  # recollective endings
    ("엄마 생신 며칠이었더라", True), ("민호 전역 언제였지", True), ("오늘 진짜 최악이었어", False),
    ("도윤 태권도 몇 시였지? 화목 맞나?", True),  # ... asked, then more said
    ("德语 B1 是哪天考来着? 突然慌了", True), ("德语 B1 考试难吗?", False),  # Chinese "来着": what was it again
    ("o DAS vence que dia msm?", True), ("quantos seguidores o insta da van tinha mesmo?", True),  # Portuguese
    ("é o mesmo preço?", False),  # "mesmo" that ends a question asks again; "o mesmo" is "the same"
    ("how many miles my truck got on it i forgot", True), ("i forgot my umbrella at the gym lol", False),  # forgot
    # what it asks, not a thing
    ("kaskoyu hangi şirketten yaptırmıştık", True), ("hangi sigorta şirketi daha ucuz", False),  # Turkish "we had"
    ("kuyumcuya ne sıklıkla sipariş veriyodum ben", True), ("kuyumcular ne sıklıkla sipariş verir", False),  # "I was"
    ("cuántos temporeros habíamos calculado pa la vendimia?", True), ("había vida en marte?", False),  # Spanish and
    ("quanto eu já tinha guardado pra viagem?", True), ("quanto custa uma passagem?", False),  # Portuguese "we had"
])
def test_a_question_about_what_the_user_has_said_is_a_lookup_in_their_life(message, about_user):
    assert intent.asks_about_user(message) is about_user


@pytest.mark.parametrize("message", ["人間ドックって何日だっけ", "엄마 생신 며칠이었더라",
                                     "whats the dogs names again", "how many miles my truck got on it i forgot"])
def test_a_recollective_ending_asks_again_which_the_probe_may_still_read_as_the_worlds(message):
    """Japanese "っけ" and Korean "더라" ask to be reminded, as a bare "again" does, of the world's answer too
    ("富士山の高さって何メートルだったっけ"): the resting probe may overrule them, as it may "again"; "did we"
    (Turkish "yaptırmıştık") it may not."""
    assert intent.asks_about_user(message) and not intent.asks_about_user(message, again=False)
    assert intent.asks_about_user("kaskoyu hangi şirketten yaptırmıştık", again=False)


@pytest.mark.parametrize(("message", "looks_up"), [
    ("when is Ana's recital?", True), ("What did Caroline paint last summer?", True),
    ("how many CE hours am I still short?", True), ("whats my dispatcher's name", True),
    ("remind me when the exams start", True), ("what should I cook tonight?", False),
    ("what do you suggest for a rainy Sunday?", False), ("where to eat near the station", False),
    ("give me a high protein dinner", False), ("plan a day trip for Javi's birthday", False),
])
def test_a_question_for_a_particular_fact_looks_it_up(message, looks_up):
    assert intent.looks_up(message) is looks_up


@pytest.mark.parametrize(("message", "speaks"), [
    ("when's my forklift cert valid until?", True), ("how old were we when we moved?", True),
    ("remind me when the exams start", True), ("what's the name of that chiro I go to", True),
    ("what time does it get dark in dublin in december?", False),
    ("What's the IRS standard mileage rate for 2024 business travel?", False), ("how old is the US?", False),
    ("when did mamma say she's coming down?", True), ("gift ideas for Dad?", True),  # their own, as they call them
    ("a card for a colleague whose dad passed", False), ("when did Tom's mum say she's coming?", False),
])
def test_a_lookup_that_speaks_of_the_user_is_told_from_one_of_the_world(message, speaks):
    assert intent.speaks_of_user(message) is speaks


def test_the_first_memory_near_a_question_the_probe_leans_to_is_recalled_on_meaning(db, monkeypatch):
    """The rules do not read "ana wasalt le level eh fel German?" (which German level have I reached?) as the user's,
    and its nearest memory, her level, falls short of MEANING_MARGIN; the resting probe leans to the user, so the
    first-ranked memory needs FIRST_MARGIN only and is recalled. Controls: with the probe's lean not counted it is
    not; an unrelated message of the same persona's recalls nothing either way."""
    ids, view = _persona(db, "personal_unseen_124.json", "p500")
    level, message = ids["p500.m11"], "ana wasalt le level eh fel German? 3ashan a7gez el exam"
    assert _ids(retrieval.search(db, view, message, 3))[:1] == [level]
    assert retrieval.search(db, view, "ezay a3mel pasta carbonara?", 3).hits == []
    monkeypatch.setattr(retrieval, "FIRST_LEANS", 1.1)
    assert retrieval.search(db, view, message, 3).hits == []


def test_only_the_first_ranked_memory_gets_the_leaning_margin():
    """``first_on_meaning``: within FIRST_MARGIN (short of MEANING_MARGIN) the first-ranked memory is kept where the
    probe leans to the user; the same numbers ranked second are not, nor below FIRST_MARGIN, nor for a question
    the world answers, nor without the lean; explain names the margin."""
    from scope_recall_engine.reading import explain

    def near(beyond):
        return retrieval.Candidate(None, relevance=1.0, beyond=beyond)

    first, second = near(retrieval.FIRST_MARGIN + 0.1), near(retrieval.FIRST_MARGIN + 0.1)
    assert retrieval.recalled([first, second], leans=True) == [first]
    assert retrieval.recalled([first, second]) == []
    assert retrieval.recalled([near(retrieval.FIRST_MARGIN - 0.1), second], leans=True) == []
    assert retrieval.recalled([first, second], world=True, leans=True) == []
    assert "as the first ranked" in explain.why(first, True, None, False, False, False, False, True)


def test_a_parent_called_as_the_user_calls_them_is_the_users_own(db, monkeypatch):
    """"when did mamma say she's coming down?" asks after Oskar's mother as "my mum" would, and recalls her visit;
    control: read as a question about someone else's mother, it recalls nothing."""
    oskar = Identity(user="oskar", chat="c1")
    ids = _fill(db, oskar, {
        "visit": "His mother, Birgitta, lives in Umeå and is visiting 20–27 June, over midsummer.",
        "leave": "Oskar is on parental leave from 1 September.",
        "stroller": "He bought a used Thule running stroller; the brakes need adjusting.",
        "floorball": "He used to play floorball twice a week and wants to get back to it.",
        "work": "Oskar works as a structural engineer in Gothenburg."})
    view, message = View(oskar.accessible()), "when did mamma say she's coming down? måste boka bord för midsommar"
    assert _ids(retrieval.search(db, view, message))[:1] == [ids["visit"]]
    monkeypatch.setattr(intent, "_OWN", re.compile(intent._OWN.pattern.split("|" + intent._FAMILY)[0], re.IGNORECASE))
    monkeypatch.setattr(retrieval, "FIRST_LEANS", 1.1)  # nor does the probe's lean recall it on meaning
    assert retrieval.search(db, view, message).hits == []


def test_a_lookup_ranks_without_the_strong_link_that_a_request_gets(db, alice, monkeypatch):
    """The link through needs weighs NEEDS_WEIGHT for a request and LOOKUP_NEEDS_WEIGHT for a lookup: raising the
    first reorders a request's memories (control) and leaves a lookup's evidence as it was."""
    ids = _fill(db, alice, MENTOR)
    view, lookup, request = View(alice.accessible()), "who is my mentor again?", "ideas for my evenings this week"

    def evidence(message: str) -> dict[int, float]:
        return {c.row.id: round(c.evidence, 6) for c in retrieval.search(db, view, message, abstain=False).candidates}

    before = evidence(lookup), evidence(request)
    assert ids["mentor"] == max(before[0], key=before[0].get)
    monkeypatch.setattr(retrieval, "NEEDS_WEIGHT", 10.0)
    assert evidence(lookup) == before[0]
    assert evidence(request) != before[1]


@pytest.mark.parametrize(("message", "about_the_world"), [
    ("what do pandas like to eat?", True), ("how do I bake sourdough bread?", True),
    ("why are golden retrievers so prone to hip dysplasia?", True),
    ("my friend says tomatoes are fruit, is that true?", True), ("me and sneha are arguing, settle it", True),
    ("my doctor says I should avoid grapefruit, is that right?", False), ("takeaway tonight. chippy or indian?", False),
    ("why does my back hurt after runs?", False), ("how do i set up a video call with my son", False),
    ("I need another word for annoyed", True), ("i need a synonym for 'overwhelmed'", True),
    ("useful phrases to learn before my trip", False),
    ("My friend say autumn eggplant not give to wife. Old saying. It is true?", True),
    ("Neighbour claims the Great Wall is visible from space. True?", True),
    ("nanay says her sugar is 220 this morning before eating, she already took her meds. what she should do", False),
    ("I'm on my break and a bit bored. Could you tell me a clean joke?", True),
    ("I read that cats can't taste sweet things. true?", True),
    ("I heard babies are born without kneecaps, true?", True),
    ("I can never remember: is it affect or effect here?", True), ("should I say 'fewer' or 'less'?", True),
    ("Is it 'different from' or 'different than'? My tuition boy wrote 'than'", True),
    ("is it the 3rd or the 4th I pick up the keys?", False),
    ("is it safe to run with a cold?", False),
    ("I'm pretty sure the Yukon River empties into the Bering Sea, right?", True),
    ("I'm pretty sure my physio is on Friday, right?", False),
    ("whats normal range of potassium for adult, mind blank lol", True),
    ("coworker says residents shouldn't have grapefruit juice with their meds, totoo ba?", True),
    ("My neighbour maintains that one must never put a hot dinner in the fridge; is there any truth in that?", True),
    ("True that NL has more bikes than people?", True),
    ("my passenger said you can't get sunburnt thru a car window, is that cap?", True),
    ("Pa asked if Parkinson's is hereditary. Is it?", True),
    ("my wife asked if we can afford a new car. can we?", False),
    ("My eldest has a birthday. Help me write a warm message, with a small joke about his hours.", False),
    ("big wasp nest in the woolshed wall. how do I get rid of it", False),  # what happened, then "how do I"
    ("how do I get rid of a wasp nest?", True),
    ("homie's bachelor party in vegas next month, how do i survive that weekend lol", False),  # pointing at it
    ("how do i stay sharp for a 1am deploy tonight", False), ("how do i cook chicken thighs", True),
])
def test_a_question_about_the_world_on_a_users_topic_is_told_from_one_about_their_life(message, about_the_world):
    assert intent.about_the_world(message) is about_the_world


@pytest.mark.parametrize(("message", "world"), [
    ("why do cows have four stomachs", True), ("How long koi can live? Longest in world?", True),
    ("What's the difference between a registrar and a bursar at a university?", True),
    ("tell me a joke about photographers", True), ("how do you say thank you in japanese?", True),
    ("how does compound interest work with monthly deposits?", True),
    ("When does mating kick off this year?", False), ("what does thabo do for work? someone at choir asked", False),
    ("whats the name of the plumber with the cheapest quote", False), ("how old is Ari now?", False),
    ("van fund. how far off", False), ("when is the twins' birthday?", False),
    ("how do I get the dog to settle when the baby is screaming", False), ("how do magnets work?", True),
    ("Who wrote Bodas de sangre?", True), ("how many hours of daylight does Whitehorse get in December", True),
    ("What's the normal adult reference range for serum potassium?", True),
    ("if i avg $14 a ride how many rides do i need to make $400", False),
    ("15% of 340?", True), ("17 x 23", True), ("how many ounces in a pound?", True),
    ("whats an 18% tip on $64.50", True), ("got 5,000 bonus from hospital!! what is best to do with it", False),
    ("I'd love a short poem about the sea", True), ("write a poem about my wife for our anniversary", False),
    ("what year did the berlin wall fall?", True), ("what's the tallest mountain in africa?", True),
    ("my friend says tomatoes are fruit, is that true?", True), ("When did Orla move to Cork?", False),
    ("When is it I'm seeing the hearing folk, and is it Broadford or Portree?", False),
    ("Please compose a short verse on the theme of gratitude.", True), ("write a rap about pizza", True),
    ("write a song about my dog for her birthday", False), ("Kindly correct this sentence: 'it's merits'", True),
    ("can you proofread this paragraph?", True), ("the cake costs $68, with 15% off how much is it?", True),
    ("what causes the northern lights?", True), ("what causes my headaches?", False),
    ("What is 15 percent of 3 460 kronor?", True), ("is it actually true you shouldn't wake a sleepwalker?", True),
    ("How many acres is a hectare, the Department has everything in hectares now", True),
    ("how many rides is a good day", False),
    ("How long does a ewe take to grow back a fleece? Mattie says a full year and I say less", True),
    ("do dogs get snow blindness", True), ("can cats eat tuna?", True), ("does Carlos eat meat?", False),
    ("how hot does a propane forge actually get", True), ("how old is the dog now?", False),
    ("Kotlin: `let` vs `also`, when to use which?", True), ("LDL goal, ACC 2018 vs ESC 2019, quick", True),
    ("how much we got saved vs the goal", False), ("my time vs the club record?", False),
    ("Regex that matches a hex colour, JavaScript", True), ("Is there research on vibrotactile music? Cite two", True),
    ('"Do dogs get snow blindness?"', True), ('"True that cats can\'t taste sweet?"', True),
    ('"do I need a coat tonight?"', False),  # opening with a quote mark, as a pasted question does
    ("Who designed the Forth Bridge?", True), ("what's the state bird of Minnesota", True),
    ("who is the state rep for our district", False), ("who win naadam wrestling 2019", True),
    ("How many people live in Canada?", True), ("what is biggest container ship in the world now", True),
    ("Who actually wrote the Skye Boat Song?", True), ("who made the booking for friday?", False),
    ("how many calories in a pint of guinness roughly", True), ("how many calories do I need a day", False),
    ("what actually causes seasonal affective disorder", True), ("what really causes my back to flare up?", False),
    ("What is the origin of the name Andalusia?", True), ("where does the word 'quarantine' come from", True),
    ("what's the origin of my surname, Okafor?", False), ("Who illustrated The Gruffalo?", True),
    ("when should you use a semicolon instead of a comma?", True), ("how often should one water a cactus", True),
    ("what do you think I should cook tonight?", False), ("when should I book Bryn's jabs?", False),
    ("who was the architect of the Sydney Opera House?", True), ("who's the author of Dune", True),
    ("who's the author of my book club's pick?", False),
    ("tell me a joke about cats", True), ("got any welder jokes", True), ("give me a riddle", True),
    ("any tips for getting school uniform on the cheap before august? prices are a joke", False),
    ("the bus is late again, what a joke", False), ("my textbook's definition reads like a riddle", False),
])
def test_a_question_the_world_answers_is_told_from_a_particular_of_the_users_life(message, world):
    assert intent.explains(message) is world


@pytest.mark.parametrize(("message", "asks"), [
    ("ugh its sooo cold today i cant feel my hands", False), ("long day man. 11 hours, done", False),
    ("I confess I am rather weary this afternoon.", False), ("Grand morning here, sun on the ridge for once", False),
    ("knee is swollen after rehearsal, what can i take for it", True), ("breakfast at 4am. quick?", True),
    ("van fund. how far off", True), ("Grandsons' ages again.", True), ("Can you plan a dinner", True),
    ("gift ideas for Lena", True), ("need a drink recipe for the party", True),
    ("something good to watch tonight after close, so tired of news", True),
    ("weekend away w the fam, somewhere the dog's welcome, under 2hrs drive", True),
    ("lol long day, purifier broke down again, hands smell like diesel fr", False),
    ("ugh what a day. 12 hrs on my feet", False), ("what a mess, where do I start?", True),
    ("LEEDS LOST AGAIN. 3-0 at home. I give up with them", False), ("give me a quick pasta recipe", True),
    ("whens kaylas bday", True), ("whats my goal weight i told u", True), ("wat days do i get mateo", True),
    ("fix this: 'the glacier have retreat 300 meter'", True), ("quiz me on conductor colour codes", True),
    ("rusty threw up twice today is that bad", True), ("the fix is in, they fired the coach", False),
    ("lmao customer today asked if i could fix her microwave while i was there", False),
    ("boss asked if i can pick up 3 extra shifts this fortnight, should i say yes", True),
    ("Monday. Coffee machine's broken. Send help.", False),
])
def test_a_message_asks_something_by_a_question_or_a_request_in_any_shape(message, asks):
    assert intent.asks_anything(message) is asks


@pytest.mark.parametrize(("message", "context", "world"), [
    ("mi hermano me pregunta si estudiar sonido o ir a la facu, q le digo", True, False),
    ("cuanto es 18% de 45000", False, True), ("por que el cafe se pone amargo si lo dejas en la jarra", False, True),
    ("combien font 1 250 $ divisé par 8 ?", False, True), ("quem ganhou a copa de 2002 no Brasil?", False, True),
    ("quero fazer moqueca no domingo, me dá umas dicas", True, False),
    ("was soll ich meiner Mutter zum Geburtstag schenken, hast du Ideen?", True, False),
    ("kal 50 kg maida ki delivery aa rahi hai, unload kaise karu safely?", True, False),
    ("sourdough starter mein bubbles kyun nahi aa rahe? room temp 24 degree hai", False, True),
    ("colleague bol raha VLOOKUP INDEX MATCH se faster hai. sach?", False, True),
    ("longest run ab tak kitna kiya tha? bhool gaya", True, False),
    ("wat moet ik kopen voor mijn moeder haar verjaardag?", True, False),
    ("sabi ng katrabaho ko masama daw sa puso ang night shift, totoo ba yun?", True, True),
    ("Porque é que os gatos dormem tanto durante o dia?", False, True),
    ("kenapa roti sourdough bisa asam kalau didiamkan lama?", False, True),
    ("saya mau masak buat ibu saya, ada ide?", True, False), ("neden kediler bu kadar çok uyuyor?", False, True),
    ("annem için doğum günü hediyesi önerir misin?", True, False), ("dlaczego koty tyle śpią w dzień?", False, True),
    ("co mam ugotować dla mojej mamy na urodziny?", True, False),
    ("wie lange hält sich gekochter Reis im Kühlschrank?", False, True),
    ("de dónde viene la costumbre de comer uvas en año nuevo?", False, True),
    ("почему кошки так много спят днём?", False, True), ("посоветуй фильм для моей мамы на выходные", True, False),
    ("tại sao bánh mì bị xẹp sau khi nướng?", False, True), ("gợi ý món ăn tối cho con của tôi", True, False),
])
def test_a_message_in_another_language_is_read_for_what_it_asks(message, context, world):
    """Glossed in English for intent, a Spanish, Portuguese, French, German, Dutch, Filipino, Hinglish, Indonesian,
    Turkish, Polish, Russian or Vietnamese message asks
    for the user's context, or for what the world knows (a claim passed on), as its English would; control: as
    typed, the English rules see neither."""
    from scope_recall_engine.reading.glosses import gloss

    asked = gloss(message, reference.spoken(retrieval.query_terms(message)))
    assert (intent.asks_for_context(asked), intent.explains(asked)) == (context, world)
    assert (intent.asks_for_context(message), intent.explains(message)) == (False, False)
    assert gloss("what should I cook for my sister?", None) == "what should I cook for my sister?"


@pytest.mark.parametrize(("message", "in_general"), [
    ("ideas generales para calmar a un curso después del recreo?", True), ("ideas para el cumple de mi hija", False),
    ("wie lange braucht Beton im Allgemeinen zum Aushärten?", True), ("cách chọn kem chống nắng nói chung?", True),
    ("em geral, quanto tempo dura uma bateria de carro?", True), ("em geral eu durmo mal, alguma dica?", False),
])
def test_a_message_that_says_it_asks_in_general_is_the_worlds_in_another_language(message, in_general):
    """"in general" said in Spanish, German, Vietnamese or Portuguese is read as in English: the world answers,
    unless the message speaks of the user ("em geral eu durmo mal" says "I"); control: as typed, no rule sees it."""
    from scope_recall_engine.reading.glosses import gloss

    asked = gloss(message, reference.spoken(retrieval.query_terms(message)))
    assert intent.world_answers(asked) is in_general
    assert not intent.world_answers(message)


@pytest.mark.parametrize("message", [
    "hoeveel procent zet ik ook alweer apart voor de belasting?", "wie hieß der Kinderarzt von Lena nochmal?",
    "anong oras nga ulit yung PTC ni Pia?",
])
def test_again_said_in_another_language_asks_after_what_the_user_told(message):
    """"ook alweer", "nochmal" and "ulit" are the "again" of "what's my ... again?": glossed, the message asks
    about the user; control: as typed, the English rules do not see it."""
    from scope_recall_engine.reading.glosses import gloss

    assert intent.asks_about_user(gloss(message, reference.spoken(retrieval.query_terms(message))))
    assert not intent.asks_about_user(message)


@pytest.mark.parametrize(("message", "reading"), [
    ("qué diferencia hay entre aceite de oliva virgen extra y virgen a secas?", "difference between"),
    ("lahore ki Badshahi masjid kis ne banwayi thi aur kab?", "who"),
    ("bhai mera G2 test kab hai aur kaunse centre pe??", "which"),
    ("Diya ka school pickup kitne baje hai?", "what time"),
])
def test_question_words_of_spanish_and_hindi_are_read(message, reading):
    """"diferencia hay entre", "kis ne", "kaunse", "kitne baje": glossed as the English intent's rules know."""
    language = reference.spoken(retrieval.query_terms(message, content_only=True), question_languages(message))
    assert reading in gloss(message, language) and reading not in message


SAVER = {"berlin": "She's saving in dollars for a trip to Berlin next September; she has US$1,800 of US$3,500.",
         "coffee": "Vale is head barista at Café Lunfardo and dials in the espresso every morning.",
         "cat": "Yerba, the 3-year-old cat, eats Royal Canin Urinary S/O."}


def test_a_comparison_of_something_of_the_users_recalls_it_one_of_two_things_the_world_knows_does_not(db):
    """"how much we got saved vs the goal" weighs their own savings: they are recalled; "arabica vs robusta, what's
    the actual difference" weighs two things the world tells apart, nothing of theirs, in the same store."""
    vale = Identity(user="vale", chat="c1")
    ids = _fill(db, vale, SAVER | {"deposit": "They have $14,500 saved; the goal is $25,000 for the house deposit."})
    view = View(vale.accessible())
    assert _ids(retrieval.search(db, view, "how much we got saved vs the goal"))[:1] == [ids["deposit"]]
    beans = retrieval.search(db, view, "arabica vs robusta, what's the actual difference")
    assert beans.asks_the_world and beans.hits == []


def test_a_short_question_opening_with_a_question_word_of_its_language_is_answered(db):
    """"wanneer is fenna jarig" holds one word that shows Dutch, too few to name a language, but it opens the
    question: read as Dutch it asks when, and the birthdays are recalled; control: in the same store, the Dutch
    small talk "pff wat een lange dag" recalls nothing."""
    anouk = Identity(user="anouk", chat="c1")
    ids = _fill(db, anouk, SAVER | {"birthdays": "Eva's birthday is 17 August; Fenna's birthday is 2 December."})
    view = View(anouk.accessible())
    asked = retrieval.search(db, view, "wanneer is fenna jarig")
    assert asked.language == "nl" and _ids(asked)[:1] == [ids["birthdays"]]
    assert retrieval.search(db, view, "pff wat een lange dag, ik ben kapot").hits == []


@pytest.mark.parametrize(("message", "spelled"), [
    ("whats my herd no. filling out a form", "whats my herd number. filling out a form"),
    ("acc nr pls", "acc number pls"), ("Flight No. again?", "Flight number. again?"),
    ("very hard to say no. tips?", "very hard to say no. tips?"), ("the bus no longer runs", "the bus no longer runs"),
])
def test_no_after_a_thing_that_carries_a_number_is_number(message, spelled):
    assert vocabulary.spelled_out(message) == spelled


def test_a_number_asked_for_as_no_is_recalled_first(db, monkeypatch):
    """"whats my herd no." asks after the herd number, which ranks first among the farm's memories; control: with
    the shorthand read as typed, "no" is a stop word and the herd number is not first."""
    donncha = Identity(user="donncha", chat="c1")
    ids = _fill(db, donncha, {
        "farm": "Donncha runs a 112-cow spring-calving dairy herd on the home farm near Mallow.",
        "app": "The user keeps herd records in the Herdwatch app and has Moocall sensors on the heifers.",
        "milk": "I supply all my milk to Dairygold.", "number": "The user's herd number is Y1472086.",
        "test": "The herd TB test is booked for 14 March, with the reading on 17 March."})
    view, message = View(donncha.accessible()), "whats my herd no. filling out a form for the mart"
    assert _ids(retrieval.search(db, view, message))[:1] == [ids["number"]]
    monkeypatch.setattr(retrieval, "spelled_out", lambda text: text)
    assert _ids(retrieval.search(db, view, message))[:1] != [ids["number"]]


def test_someone_named_in_a_list_after_a_relation_is_someone_of_the_users(db, monkeypatch):
    """"their two boys, Owen (14) and Rhys (10)" names Rhys as one of Gareth's, so "Rhys's school trip moved from
    Tuesday to Thursday at short notice, how to explain it to him" rests on him (explaining something to him is a
    talk to have, not an explanation of the world) and recalls that change is hard for him; control: read without
    the list, Rhys is no one of Gareth's and nothing is recalled."""
    assert retrieval._kin_in("his wife Sian and their two boys, Owen (14) and Rhys (10).") >= {"Sian", "Owen", "Rhys"}
    assert {"Pistache", "Yerba"} <= retrieval._kin_in("their beagle, Pistache, and their tabby cat Yerba")  # a breed
    assert {"Youssef", "Malak"} <= retrieval._kin_in("They have two children: Youssef (9) and Malak (5).")
    assert {"Aoife", "Seán"} <= retrieval._kin_in("His kids are Aoife (9) and Seán (6); both attend St Finbarr's.")
    gareth = Identity(user="gareth", chat="c1")
    ids = _fill(db, gareth, SAVER | {
        "family": "Gareth lives in Horsforth with his wife Sian and their two boys, Owen (14) and Rhys (10).",
        "rhys": "Rhys is autistic and finds sudden changes of plan hard; the family uses a planner on the fridge.",
        "rugby": "Owen plays rugby for Horsforth juniors on Sunday mornings.",
        "pressure": "Gareth has high blood pressure and takes amlodipine 5 mg every morning.",
        "trains": "Gareth drives Class 158 and 195 units for Northern out of Leeds.",
        "sian": "Sian works as a pharmacist in Headingley.", "mum": "Gareth's mum lives in Pontypridd.",
        "football": "Gareth supports Leeds United and has a season ticket."})
    view = View(gareth.accessible())
    message = "Rhys's school trip moved from Tuesday to Thursday at short notice, how to explain it to him"
    assert ids["rhys"] in _ids(retrieval.search(db, view, message))[:3]
    monkeypatch.setattr(retrieval, "_KIN_LISTED", re.compile("(?!)"))
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # the rules alone decide
    assert retrieval.search(db, view, message).hits == []


def test_french_on_is_we_and_comment_on_dit_asks_about_words(db):
    """Spoken French says "on" for "we": "combien on avait mis de côté pour les travaux ?" asks after the couple's own
    savings, which are recalled; "comment on dit « bon rétablissement » en anglais ?" asks how to say it, and nothing
    of theirs is recalled, in the same store."""
    monique = Identity(user="monique", chat="c1")
    ids = _fill(db, monique, {
        "savings": "Monique's pension is about 2 100 € a month; they've set aside 10 000 € for home adaptations.",
        "flat": "They live on the 3rd floor with a lift; they want to replace the bathtub with a walk-in shower.",
        "choir": "Monique chante dans une chorale le jeudi après-midi.",
        "meds": "Bernard prend du Modopar quatre fois par jour."})
    view = View(monique.accessible())
    asked = retrieval.search(db, view, "combien on avait mis de côté pour les travaux ?")
    assert asked.language == "fr" and _ids(asked)[:1] == [ids["savings"]]
    words = retrieval.search(db, view, "Comment on dit « bon rétablissement » en anglais ?")
    assert words.asks_the_world and words.hits == []


def test_an_article_that_opens_many_memories_is_no_name_in_their_language(db):
    """Giuseppe's Italian memories often open with "Il" (as his name opens others): read as Italian, "il" is one of
    its commonest words, not a name of his, so "Chi ha vinto il Giro d'Italia quest'anno?" asks who won, of the
    world, and recalls nothing; control: "Quando ho l'operazione all'occhio?" recalls the cataract operation."""
    giuseppe = Identity(user="giuseppe", chat="c1")
    ids = _fill(db, giuseppe, {
        "son": "Il figlio Andrea vive a Londra con la compagna Priya.",
        "lunch": "Il primo venerdì del mese pranza con gli ex colleghi alla Trattoria da Gianni.",
        "pressure": "Ha la pressione alta, prende il ramipril e il medico gli ha detto di ridurre il sale.",
        "eye": "Ha l'operazione di cataratta all'occhio sinistro il 22 ottobre al Sant'Orsola.",
        "football": "È abbonato al Bologna FC, settore Distinti.",
        "volunteer": "Giuseppe fa volontariato con Auser: il lunedì accompagna anziani alle visite mediche."})
    view, question = View(giuseppe.accessible()), "Chi ha vinto il Giro d'Italia quest'anno?"
    since, size = retrieval.word_window(db, view)
    counts = retrieval.document_counts(db, view, ["il", "giro"], since)
    assert retrieval.user_names_in(db, view, question, counts, size, "it") == (set(), False)
    assert retrieval.user_names_in(db, view, question, counts, size) == ({"il"}, True)  # read as English
    assert retrieval.search(db, view, question).hits == []
    assert _ids(retrieval.search(db, view, "Quando ho l'operazione all'occhio?"))[:1] == [ids["eye"]]


def test_a_spanish_lookup_recalls_and_a_spanish_question_about_the_world_does_not(db):
    """"cuanto llevo ahorrado pa berlin?? te lo habia dicho" is a lookup in her life: the Berlin savings come first;
    "por que el cafe se pone amargo..." is asked of the world, and "hola, cómo va" of the assistant: nothing of hers
    is recalled, in the same store."""
    vale = Identity(user="vale", chat="c1")
    ids = _fill(db, vale, SAVER)
    view = View(vale.accessible())
    assert _ids(retrieval.search(db, view, "cuanto llevo ahorrado pa berlin?? te lo habia dicho"))[:1] == [
        ids["berlin"]]
    why = retrieval.search(db, view, "por que el cafe se pone amargo si lo dejas mucho en la jarra")
    assert why.asks_the_world and why.hits == []
    sore = gloss("me mata el pie otra vez después del doble turno, qué hago hoy en la noche", "es")
    assert intent.asks_anything(sore) and intent.asks_for_context(sore)  # "qué hago": what should I do
    greeting = retrieval.search(db, view, "hola, cómo va")  # after the assistant: glossed, its "cómo" is "how"
    assert greeting.language == "es" and greeting.asks_the_world and greeting.hits == []


@pytest.mark.parametrize(("message", "language", "read"), [
    ("hva er etternavnet til Jógvan igjen?", "nb", asks_about := intent.asks_about_user),  # what ... again?
    ("hvornår er min tandlægetid igen?", "da", asks_about),
    ("vad är skillnaden mellan ränta och amortering?", "sv", intent.world_answers),  # the difference between
    ("pfff wat een week. ben kapot. maar hij lachte de hele ochtend naar me dus ja 🥲", "nl", intent.vents),  # "what
    # a week", "so yeah": exclaimed and waved off, nothing asked
    ("a q kilometraje me toca el cambio de aceite?", "es", intent.asks_for_context),  # "me toca": I am due
    ("mach mir bitte Lernkarten zu Antikoagulanzien", "de", intent.asks_anything),  # "mach mir": make me
    ("lớp IELTS thi ngày mấy nhỉ? quên mất tiêu", "vi", intent.asks_for_context),  # "ngày mấy": what day; "quên
    # mất": I forgot
])
def test_more_languages_are_read_for_what_they_ask(message, language, read):
    """Norwegian, Danish and Swedish are glossed, and more of Dutch, Spanish and Vietnamese: each message reads as
    what it asks only glossed, not as typed."""
    words = retrieval.query_terms(message, content_only=True)
    assert reference.spoken(words, question_languages(message)) == language
    assert read(gloss(message, language)) and not read(message)


@pytest.mark.parametrize(("message", "read"), [
    ("امتى معاد الدكتور بتاعي؟ نسيت", intent.asks_about_user),  # when is my doctor's appointment? I forgot
    ("ايه الفرق بين الزبدة والسمن؟", intent.world_answers),  # the difference between butter and ghee?
    ("عايزة اعمل عشا لجوزي النهاردة، اقترحلي حاجة", intent.asks_for_context),  # I want to cook dinner for my husband
    # tonight, suggest something
    ("بدي هدية لأمي بعيد ميلادها، شو بتقترح؟", intent.asks_for_context),  # I want a gift for my mother's birthday
])
def test_arabic_is_named_by_its_letters_and_read_for_what_it_asks(message, read):
    """Arabic is named by its letters (``written_in``), where a dialect's words are too few signs of the written
    language ("بدي", "عايزة" and "امتى" are none). Glossed, each message reads as what it asks; as typed, the
    English rules do not read it."""
    assert written_in(message) == "ar"
    assert read(gloss(message, "ar")) and not read(message)


@pytest.mark.parametrize("message", ["what does حبيبي mean in English?", "این کتاب را کجا بخرم؟"])
def test_a_quoted_word_or_persian_names_no_arabic(message):
    """Controls for ``written_in``: a word quoted in an English message, and Persian (its own letters); the same
    word asked about in Arabic names Arabic (control)."""
    assert written_in(message) is None
    assert written_in("حبيبي يعني ايه؟") == "ar"


HODA = {"job": "Hoda is a pharmacist at a pharmacy in Nasr City, Cairo.",
        "circle": "Her turn to collect from the gam3eya (savings circle) with her colleagues comes in March.",
        "son": "Her son Omar is 7 and plays football at the club on Fridays.",
        "mother": "Her mother has high blood pressure and takes Concor.",
        "car": "She drives a 2018 Hyundai Elantra; its licence must be renewed in May.",
        "rent": "Her rent is 6,000 EGP, due on the 1st of each month.",
        "sister": "Her sister Nour lives in Kuwait.", "salary": "She earns about 9,000 EGP a month.",
        "anniversary": "Her wedding anniversary with Karim is on 12 June.",
        "coffee": "She drinks a latte every morning before her shift.",
        "gym": "She goes to a women's gym in Heliopolis three times a week.",
        "food": "Her favourite food is koshari from Abou Tarek."}


@pytest.mark.parametrize(("message", "arabizi"), [
    ("howa dor el gam3eya bta3i emta? nasya 5ales", True), ("ch7al kankhelles 3la l kera dyali? nsit", True),
    ("chou el far2 bayn el latte w el cappuccino? el barista 3am yes2alne", True),
    ("woke up at 3am for the 2nd time, 5kg down", False), ("kira2 jam berapa ya, apa2 aja boleh", False),
    ("CO2 and SGLT2 inhibitors", False), ("3bd/2ba ranch with a pool", False)])
def test_arabic_in_latin_letters_is_told_by_its_digits(message, arabizi):
    """Arabizi writes the letters Latin lacks as digits inside its words: two such words (or its glossary's, "far2
    bayn") tell it. A time, an ordinal, a measure, an acronym or Indonesian's doubled word ("kira2") does not."""
    assert in_arabizi(message) is arabizi


def test_arabic_in_latin_letters_that_says_it_does_not_remember_asks_to_be_reminded():
    """"el doctor bta3i esmo eh? msh fakra 5ales" (what's my doctor's name? I don't remember at all) asks to be
    reminded, as "i don't remember" does in English; as typed, the rules do not read it."""
    forgot = "el doctor bta3i esmo eh? msh fakra 5ales"
    assert intent.asks_about_user(gloss(forgot, None)) and not intent.asks_about_user(forgot)


def test_arabic_in_latin_letters_is_read_for_what_it_asks(db, monkeypatch):
    """Hoda writes Egyptian and Levantine Arabic in Latin letters. "howa dor el gam3eya bta3i emta? nasya 5ales"
    (when is my turn in the savings circle? I totally forgot) and "2addesh el rent taba3i? nseet" (how much is my
    rent? I forgot) look up what she told; "chou el far2 bayn el latte w el cappuccino? el barista 3am yes2alne"
    (what's the difference between a latte and a cappuccino? the barista keeps asking me) is asked of the world,
    though she drinks a latte every morning. Unglossed, the lookups recall nothing and the world's question recalls
    her latte."""
    from scope_recall_engine.reading import glosses

    hoda = Identity(user="hoda", chat="c1")
    ids, view = _fill(db, hoda, HODA), View(hoda.accessible())
    lookups = {"howa dor el gam3eya bta3i emta? nasya 5ales": "circle", "2addesh el rent taba3i? nseet": "rent"}
    world = "chou el far2 bayn el latte w el cappuccino? el barista 3am yes2alne"
    for lookup, wanted in lookups.items():
        assert _ids(retrieval.search(db, view, lookup))[:1] == [ids[wanted]]
    assert retrieval.search(db, view, world).hits == []
    monkeypatch.setattr(glosses, "in_arabizi", lambda message: False)
    assert all(retrieval.search(db, view, lookup).hits == [] for lookup in lookups)
    assert _ids(retrieval.search(db, view, world)) == [ids["coffee"]]


@pytest.mark.parametrize(("glossed", "asks"), [
    ("el Aufenthaltstitel my when? I want etaakkad", True), ("when I have egzamin z systemow?", True),
    ("I want know the capital of france what?", False), ("why my pain est plus acide ?", False),
    ("my mama when? no", True), ("when the final? I have exam", False)])  # one question, its words together
def test_a_glossed_question_after_something_of_the_users_is_read_in_any_word_order(glossed, asks):
    assert intent.asks_after_own(glossed) is asks


def test_a_lookup_in_arabic_word_order_rests_on_the_user(db, monkeypatch):
    """"ana 3andy theory fel Zamalek ayam eh?" (which days do I have theory in Zamalek?) puts its question word
    last, as Arabic does: glossed, "I I have theory fel Zamalek ayam what?", it asks after what Hoda told, and the
    days she teaches there are recalled; control: read in English's order only, it recalls nothing."""
    hoda = Identity(user="hoda", chat="c1")
    ids = _fill(db, hoda, HODA | {"theory": "She also teaches music theory at a school in Zamalek on Mondays."})
    view, message = View(hoda.accessible()), "ana 3andy theory fel Zamalek ayam eh? 3ayza a7gez ma3ad doctor"
    assert _ids(retrieval.search(db, view, message))[:1] == [ids["theory"]]
    monkeypatch.setattr(retrieval, "FIRST_LEANS", 1.1)  # nor the probe's lean alone
    monkeypatch.setattr(retrieval, "asks_after_own", lambda glossed: False)
    assert retrieval.search(db, view, message).hits == []


@pytest.mark.parametrize(("user", "language", "facts", "lookup", "wanted", "world"), [
    ("eirik", "nb", {"partner": "His shift partner on the feed barge is Jógvan Joensen.",
                     "farm": "He works at a salmon farm on Eysturoy, a 7-on/7-off rotation from 06:30.",
                     "kid": "His daughter Ingrid is 6 and starts school in August."},
     "hva er etternavnet til Jógvan igjen?", "partner", "hva er forskjellen mellom åpne merder og lukkede anlegg?"),
    ("nermeen", "ar", {"doctor": "Her doctor's appointment with Dr. Samir is on Sunday at 6 pm.",
                       "coffee": "She has a latte every morning before her shift at the pharmacy.",
                       "son": "Her son Yassin is 6 and starts school in September."},
     "امتى معادي مع دكتور Samir؟ نسيت", "doctor", "ايه الفرق بين اللاتيه والكابتشينو؟"),
])
def test_a_lookup_in_another_language_recalls_and_its_question_about_the_world_does_not(db, user, language, facts,
                                                                                          lookup, wanted, world):
    """"hva er etternavnet til Jógvan igjen?" (what is Jógvan's surname again?) looks up his shift partner, and
    "امتى معادي مع دكتور Samir؟ نسيت" (when is my appointment with doctor Samir? I forgot) her appointment; "hva er
    forskjellen mellom åpne merder og lukkede anlegg?" (the difference between open pens and closed farms) and
    "ايه الفرق بين اللاتيه والكابتشينو؟" (the difference between a latte and a cappuccino) are asked of the world,
    though he works on a salmon farm and she drinks one every morning: nothing of theirs is recalled, in the same
    store."""
    someone = Identity(user=user, chat="c1")
    ids = _fill(db, someone, facts)
    view = View(someone.accessible())
    found = retrieval.search(db, view, lookup)
    assert found.language == language and found.rests_on_user and _ids(found)[:1] == [ids[wanted]]
    asked = retrieval.search(db, view, world)
    assert asked.language == language and asked.asks_the_world and asked.hits == []


def test_a_japanese_question_about_the_world_recalls_nothing_and_a_japanese_lookup_does(db, monkeypatch):
    """"なんで柴犬は頑固な性格が多いの？" (why are Shiba Inus so often stubborn?) and "柴犬と秋田犬の違いって何？" (the
    difference between a Shiba and an Akita) are asked of the world: nothing of Yui's is recalled, though her dog is
    a Shiba. "ハナのアレルギー何だっけ" (what is Hana's allergy again?) recalls the dog (control), and without the
    gloss of the words that say what a question asks, the world's questions recall her dog too."""
    from scope_recall_engine.reading import glosses

    yui = Identity(user="yui", chat="c1")
    ids = _fill(db, yui, {"dog": "柴犬のハナは5歳で、鶏肉アレルギーがある。",
                          "tennis": "毎週土曜の朝にテニスをしている。", "job": "横浜の病院で看護師として働いている。"})
    view, asked = View(yui.accessible()), ("なんで柴犬は頑固な性格が多いの？", "柴犬と秋田犬の違いって何？")
    for question in asked:
        found = retrieval.search(db, view, question)
        assert found.asks_the_world and found.hits == [], question
    assert _ids(retrieval.search(db, view, "ハナのアレルギー何だっけ"))[:1] == [ids["dog"]]
    monkeypatch.setattr(glosses, "_UNSPACED", {})
    monkeypatch.setattr(glosses, "_WRITTEN_UNSPACED", re.compile("(?!)"))
    for question in asked:
        assert ids["dog"] in _ids(retrieval.search(db, view, question)), question


def test_one_word_of_a_general_questions_phrase_in_another_sense_recalls_nothing(db, monkeypatch):
    """"what is the speed of light?" shares "light" with "wants something light for studying", and "what is a black
    hole?" shares "black" with "black coffee": a part of the question's telling words, in a memory far from it on
    meaning, is a word in passing; nothing is recalled. A lookup in the same store is answered, and with the rule
    set aside the laptop memory is recalled for the speed of light (control)."""
    neha = Identity(user="neha", chat="c1")
    ids = _fill(db, neha, {"laptop": "Her laptop is dying; she wants something light for studying on the go.",
                           "coffee": "Neha is lactose intolerant, so she takes oat milk or black coffee.",
                           "shift": "Neha works night shifts in the ICU, 8pm to 8am."})
    view = View(neha.accessible())
    assert retrieval.search(db, view, "what is the speed of light?").hits == []
    assert retrieval.search(db, view, "what is a black hole?").hits == []
    assert _ids(retrieval.search(db, view, "which laptop should I get for studying?"))[:1] == [ids["laptop"]]
    monkeypatch.setattr(retrieval, "FAR_MEANING", float("-inf"))
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # nor the probe, sure of it too
    assert ids["laptop"] in _ids(retrieval.search(db, view, "what is the speed of light?"))


def test_a_sum_with_its_numbers_given_recalls_nothing_even_when_it_speaks_of_the_user(db, monkeypatch):
    """"What is 15 percent of 3 460 kronor? My calculator has gone missing again." speaks of the user, yet the sum
    needs nothing of theirs: nothing is recalled; "how much was the quote for the new sails?" is answered in the same
    store, and with the rule set aside the sum recalls the quote (control)."""
    henrik = Identity(user="henrik", chat="c1")
    ids = _fill(db, henrik, {"sails": "Svala needs a new mainsail and jib. Jönsson in Ellös quoted 28,000 SEK.",
                             "ferry": "Henrik was a ferry captain on the Gothenburg to Frederikshavn line."})
    view, total = View(henrik.accessible()), "What is 15 percent of 3 460 kronor? My calculator has gone missing again."
    found = retrieval.search(db, view, total)
    assert found.asks_the_world and found.hits == []
    assert _ids(retrieval.search(db, view, "how much was the quote for the new sails?"))[:1] == [ids["sails"]]
    words = "if the sails are 28 000 SEK and the yard takes 3 200 for fitting, how much all in with 25% moms?"
    assert retrieval.search(db, view, words).hits == []  # set out in words: every number is given
    monkeypatch.setattr(retrieval, "world_answers", lambda message: False)
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # nor the probe, sure of it too
    assert ids["sails"] in _ids(retrieval.search(db, view, total))


@pytest.mark.parametrize(("message", "answers"), [
    ("why does coffee make u pee so much. asking for myself at 3am", True),
    ("Why must insulin stay in the fridge? A customer asked me and I want a simple way to explain it", True),
    ("why does my knee click when I squat?", False), ("why do I always wake up at 4am?", False),
    ("why is she so tired lately", False), ("What is 15 percent of 3 460 kronor? My calculator died.", True),
    ("Why are flowers important to Melanie?", False), ("Why did Caroline choose the adoption agency?", False),
    ("what's 15% of my salary?", False), ("hows your day goin partner", True), ("how are you?", True),
    ("how's your memory of my diet?", False), ("what was my physio's name?", False),
    ("I need a more elegant phrase than 'very tired' for a letter I am writing to a friend.", True),
    ("Translate 'thank you for your patience' to French, we have a customer from Lyon", True),
    ("what should I write to my landlord about the boiler?", False),
    ("convert -35C to F pls, my cousin doesn't believe how cold it is here", True),
    ("how many fluid ounces in a cup?", True), ("hola, cómo va", True), ("ça va?", True),
    ("hola, como va el perro de mi hermana", False),
    ("How does one say 'thank you for volunteering' in Polish? We have a new helper from Gdańsk.", True),
    ("how to say 'barrel' and 'cellar' in French?", True), ("how do u say hand me the grinder in spanish", True),
    ("what's 'bread' in czech", True), ("how do you say in spanish that my son is allergic", False),
    ("how do I say no to my boss in a nice way", False), ("what is the weather in Polish cities", False),
    ("21.1 km at 5:40 pace = total time?", True), ("x = 5 but my loop never ends, why?", False),
    ("4 rangers for 21 days, each one 2 litres water a day. how many litres?", True),
    ("how much was the MP2 contribution monthly? 1k or 1.5k", False),
    ("B12: 2 a day, 3 boxes of 60, how many days?", True),
    ("R249.99 x 3 plus R89.50, what's the total", True), ("what's my bib number for the 10k on 12/5?", False),
    ("how much have I saved of the 3 goals, 500 for the trip, 200 for the bike", False),
    ("how is the Notarzt system in Austria different from how paramedics work in the UK or US?", True),
    ("how is my diet different from keto?", False), ("127 x 45 how much", True),
    ("where does a big food bank like gleaners even get all its food from? always wondered", True),
    ("How did the Eisteddfod start? I have always wondered how old it is.", True),
    ("I'm curious how much I've saved", False),
    ("How many days between 15 July and 8 September", True), ("how many days until my birthday", False),
    ("1 USD to rupiah roughly how much now", True), ("I need 200 dollars to pay rent, any ideas", False),
    ("whit's 12.5 hours times 3 plus a 7.5 hour bank shift", True), ("I have 3 kids plus 2 dogs, suggest a car", False),
    ("Kindly correct the grammar: 'Myself Rajendra, I am writing to inform you'", True),
    ("how you say shrimp in spanish, got some new boys at the dock", True),
    ("whats 'hwaiting' in real english? my students are confused", True),
    ("is förskola 'preschool' or 'kindergarten' in english", True),
    ("how you say in spanish that my son is sick", False),
    ("remind me the difference between a stage 2 and stage 3 pressure injury", True),
    ("colleague dey ask me: wetin be the difference between type 1 and type 2 diabetes?", True),
    ("whats the time difference between cork and new york", True),
    ("what's the difference between my two quotes from the roofers?", False),
    ("difference between the plan I'm on and the new one?", False),
    ("whats the diff between tapioca pearls n popping boba", True), ("diff between my two quotes?", False),
    ("what is 8.5 km in miles", True), ("convert 180 lbs to kg please", True),
    ("i have 2 days in l.a. what to do", False), ("I ran 10 km in 50 minutes, good pace?", False),
    ("in general, is a will still valid if the person married after signing it?", True),
    ("for skewed order values, median or mean? general rule", True),
    ("is a standing desk worth it for a small team? general opinion", True),
    ("in general I try to eat less meat, dinner ideas?", False),
    ("asking for a friend: do hamsters need a companion?", True),
    ("whats the swedish word for sensory overload, the official one?", True),
    ("How do I say 'could we extend the deadline' politely in a Korean email?", True),
    ("how do I say sorry to my sister in a nice way", False),
    ("generally speaking, is my pension enough at 60?", False),
    ("how long should a cover letter be these days, generally", True),
    ("how do I calm a class after recess? general tips", True), ("I generally eat late, quick dinner?", False),
])
def test_the_world_answers_some_questions_however_much_they_speak_of_the_user(message, answers):
    assert intent.world_answers(message) is answers


BROTHER = {"brother": "Flying to Jamaica in February for his brother Errol's 70th birthday in Mandeville.",
           "allotment": "I have an allotment in Coombe and go most mornings - callaloo, scotch bonnet, runner beans.",
           "records": "Collects reggae and lovers rock vinyl, around 600 records.",
           "gout": "Gets gout in his right big toe. GP said cut back on red meat, shellfish and stout."}


def test_a_speech_or_a_message_to_write_rests_on_whom_it_is_for(db, monkeypatch):
    """"Help me write a likkle speech fi mi bredda's big birthday" says neither "my" nor "brother", and the kinds of
    need do not place it among requests for the user's context; a speech to write still rests on whom it is for, so
    the brother's birthday is recalled. Set the rule aside (control, same store) and the message abstains. The
    resting probe is set aside on both sides (it is sure of this message since it was fitted on 41 files)."""
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # the rules alone decide
    desmond = Identity(user="desmond", chat="c1")
    ids = _fill(db, desmond, BROTHER, target="user")  # facts about him, not notes on how to help
    view, speech = View(desmond.accessible()), "Help me write a likkle speech fi mi bredda's big birthday."
    found = retrieval.search(db, view, speech)
    assert found.rests_on_user and ids["brother"] in _ids(found)
    monkeypatch.setattr(retrieval, "writes_to_someone", lambda message: False)
    assert ids["brother"] not in _ids(retrieval.search(db, view, speech))


def test_a_link_through_needs_that_places_the_message_nowhere_does_not_reorder_the_ranking(db, monkeypatch):
    """"buy new collar for Bông, pink or red cuter?" falls in no kind of need in particular, so every memory's link
    to it is about 1/13 and the reference's links spread by thousandths; counted in that spread, a thousandth
    became 2 to 3 sd and a salon's rent out-ranked the dog the message names. With the spread counted as at least
    NEEDS_SPREAD the dog comes first; control, same store: with no such floor it falls to fourth (the bearing probe
    and the words measured against what the store holds, which lift the dog too, are off on both sides)."""
    ids, view = _persona(db, "personal_unseen_12.json", "p49")
    monkeypatch.setattr(retrieval, "BEARING_WEIGHT", 0.0)
    monkeypatch.setattr(retrieval, "held_share", lambda weights, counts: 1.0)
    collar = "buy new collar for Bông, pink or red cuter?"
    assert _ids(retrieval.search(db, view, collar, 3))[:1] == [ids["p49.m22"]]
    monkeypatch.setattr(retrieval, "NEEDS_SPREAD", 0.0)
    assert ids["p49.m22"] not in _ids(retrieval.search(db, view, collar, 3))


@pytest.mark.parametrize(("fixture", "key", "message", "wanted"), [
    ("personal_unseen_2", "p9", "team dinner friday at a sushi place, what should i order?", "p9.m02"),
    ("personal_unseen", "p8", "suggest a nice pudding i can make for sunday lunch", "p8.m10"),
])
def test_the_bearing_probe_ranks_first_the_memory_a_request_rests_on(db, monkeypatch, fixture, key, message, wanted):
    """The shellfish allergy for a sushi dinner, type 2 diabetes for a pudding: the learned bearing
    (``companion/bearing.py``) puts the memory the message needs first, well ahead of the next; control, same store:
    without it (weight 0) the wanted one is still among the three but no longer clearly first (at most a tie's
    width ahead, which a dependency's rounding can turn), so abstention is not what moved."""
    ids, view = _persona(db, f"{fixture}.json", key)

    def lead() -> float:  # the wanted memory's evidence over the best other candidate's
        found = retrieval.search(db, view, message, 3)
        assert ids[wanted] in _ids(found)
        ranked = {c.row.id: c.evidence for c in found.candidates}
        return ranked.pop(ids[wanted]) - max(ranked.values())

    with_bearing = lead()
    monkeypatch.setattr(retrieval, "BEARING_WEIGHT", 0.0)
    assert with_bearing > 1.0 and lead() < 0.1


CHAT_WITH_NATE = {
    "ask": "Joanna: Yum! Got any favorite flavors for dairy-free desserts?",
    "answer": "Nate: Coconut milk ice cream is my favorite, and I also love a dairy-free chocolate mousse.",
    "recipe": "Joanna: Here's another recipe I like, a blueberry dessert with a gluten-free crust.",
    "praise": "Nate: Wow, you're so talented at making dairy-free desserts!",
    "must": "Joanna: Dairy-free is a must for me, especially for desserts.",
    "games": "Nate: Playing video games and watching movies are my main hobbies.",
}


def test_a_lookup_naming_the_user_is_ranked_without_the_bearing_probe(db, monkeypatch):
    """"What are Nate's favorite desserts?" over a store of Joanna and Nate's chat names one of its speakers, as
    LoCoMo's questions do: it looks up what he said, not a need of the kind users write of themselves, which is what
    the bearing probe learnt, and the probe lifted every line about desserts above Nate's answer. Ranked on words and
    meaning, the answer is among the first three; control, same store: with the probe in its ranking it falls below."""
    chat = Identity(user="joanna-and-nate", chat="c1")
    ids = _fill(db, chat, CHAT_WITH_NATE)
    view, question = View(chat.accessible()), "What are Nate's favorite desserts?"
    assert ids["answer"] in _ids(retrieval.search(db, view, question, 3, abstain=False))
    score = retrieval._score
    monkeypatch.setattr(retrieval, "_score", lambda *args, **options: score(*args, **{**options, "bearing": True}))
    assert ids["answer"] not in _ids(retrieval.search(db, view, question, 3, abstain=False))


def test_a_memory_holding_the_only_word_the_store_knows_leads_however_long_the_message(db, monkeypatch):
    """"whats the name of my physio again? need to send her a email": "physio" is the one word any of the user's
    memories holds, a fifth of the message's weight; measured against the words some memory holds, the physio's
    memory comes first. Control, same store: measured against the whole message it falls behind memories that
    share no word with it. The bearing probe, which lifts it too, is set aside on both sides."""
    ids, view = _persona(db, "personal_unseen_2.json", "p9")
    monkeypatch.setattr(retrieval, "BEARING_WEIGHT", 0.0)
    message = "whats the name of my physio again? need to send her a email"
    assert _ids(retrieval.search(db, view, message, 3))[:1] == [ids["p9.m04"]]
    monkeypatch.setattr(retrieval, "held_share", lambda weights, counts: 1.0)
    assert _ids(retrieval.search(db, view, message, 3))[:1] != [ids["p9.m04"]]


CLEANER = {"latex": "Allergic to latex - hands swell and itch. Must use nitrile gloves only.",
           "job": "Works as a cleaner at Oakwood Lodge care home in Didsbury.",
           "back": "I have a bad lower back from the mop buckets. No lifting over 10 kg."}


def test_the_resting_probe_sure_a_message_rests_on_nothing_of_the_users_overrules_the_rules(db, monkeypatch):
    """A cleaner asking why bleach must not be mixed with other sprays wants what the world knows, yet the rules
    read "my colleague say" and a cleaning topic as resting on her and recalled her latex allergy; the probe
    (``companion/resting.py``) is sure it does not, so nothing is recalled, while a request of hers in the same
    store still recalls the allergy. Set the probe aside (control) and the rules recall it again."""
    mihaela = Identity(user="mihaela", chat="c1")
    ids = _fill(db, mihaela, CLEANER)
    view = View(mihaela.accessible())
    claim = "my colleague say never mix bleach with other cleaning spray. why is dangerous?"
    found = retrieval.search(db, view, claim)
    assert not found.rests_on_user and found.hits == []
    assert ids["latex"] in _ids(retrieval.search(db, view, "what gloves should I buy for work?"))
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)
    assert ids["latex"] in _ids(retrieval.search(db, view, claim))


def _probe_says(monkeypatch, probability: float) -> None:
    """The resting probe gives every message this probability of resting on the user."""
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: probability)


RUNNER = {"marathon": "Tomasz runs marathons; his best is 3:12 in Berlin.",
          "job": "Tomasz works as a tram driver in Kraków.",
          "daughter": "His daughter Ola is 7 and allergic to peanuts."}


def test_a_message_the_resting_probe_finds_resting_on_nothing_of_the_users_is_the_worlds(db, monkeypatch):
    """"what is the world record for the marathon" shares its topic with his marathon best, and the words lanes
    recall it; the probe puts it below RESTS_NONE, so the world answers and nothing is recalled. At the same
    probability a lookup in his life ("what's my marathon best again?") is still his (the probe does not overrule
    what the user asks of themselves); control: with the probe just above RESTS_NONE the record question recalls
    the marathon memory again."""
    tomasz = Identity(user="tomasz", chat="c1")
    ids = _fill(db, tomasz, RUNNER)
    view, record = View(tomasz.accessible()), "what is the world record for the marathon"
    _probe_says(monkeypatch, retrieval.RESTS_NONE - 0.05)
    found = retrieval.search(db, view, record)
    assert found.asks_the_world and found.hits == []
    assert _ids(retrieval.search(db, view, "what's my marathon best again?"))[:1] == [ids["marathon"]]
    _probe_says(monkeypatch, retrieval.RESTS_NONE + 0.05)
    assert ids["marathon"] in _ids(retrieval.search(db, view, record))


COMMUTER = {"commute": "Meenal drives to the district office in Shivajinagar every weekday, about 40 minutes.",
            "thyroid": "Takes levothyroxine 50 mcg every morning before breakfast.",
            "exam": "Studying for the UGC-NET exam in June."}


def test_a_message_that_asks_nothing_and_rests_on_nothing_of_the_users_is_small_talk(db, monkeypatch):
    """"pune traffic today I swear. 50 min stuck near the office" asks nothing, and the probe finds it unlikely to
    rest on her (below RESTS_UNLIKELY): nothing is recalled, though it names her commute, nor with "traffic AGAIN";
    at the same probability a question in the same words ("... any faster route?") or one about her ("how long is
    my drive ... again?") still recalls it, and so does the complaint when the probe finds it likely (control)."""
    meenal = Identity(user="meenal", chat="c1")
    ids = _fill(db, meenal, COMMUTER)
    view, moan = View(meenal.accessible()), "pune traffic today I swear. 50 min stuck on the drive to the office"
    monkeypatch.setattr(retrieval, "WANTED_FLOOR", 0.0)  # the probe's reading of small talk alone, not its gate
    _probe_says(monkeypatch, retrieval.RESTS_UNLIKELY - 0.05)
    for complaint in (moan, moan.replace("traffic", "traffic AGAIN")):  # a bare "again": the day repeats itself
        found = retrieval.search(db, view, complaint, budget=30.0)  # the lane's reading, however busy the machine
        assert found.small_talk and found.hits == [], complaint
    assert ids["commute"] in _ids(retrieval.search(db, view, moan + ". any faster route to the office?"))
    assert ids["commute"] in _ids(retrieval.search(db, view, "how long is my drive to the office again?"))
    _probe_says(monkeypatch, retrieval.RESTS_UNLIKELY + 0.05)
    assert ids["commute"] in _ids(retrieval.search(db, view, moan))


WEDDING = {"trip": "Away in Lisbon for a conference from July 25 to August 2.",
           "dress": "Getting married on 20 September; Rosa is altering the dress.",
           "cat": "Her cat Miso is 4."}


def test_the_resting_probe_sure_a_message_rests_on_the_user_recalls_what_the_rules_left(db, monkeypatch):
    """"Rosa can do the final fitting either July 29 or Aug 9. which one" says neither I nor my, and the rules
    abstain; the probe is sure it rests on her (her dates decide it), so the trip is recalled. Control: with the
    probe set aside, nothing is."""
    lucia = Identity(user="lucia", chat="c1")
    ids = _fill(db, lucia, WEDDING)
    view, choice = View(lucia.accessible()), "Rosa can do the final fitting either July 29 or Aug 9. which one"
    found = retrieval.search(db, view, choice)
    assert found.rests_on_user and ids["trip"] in _ids(found)
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)
    assert retrieval.search(db, view, choice).hits == []


CHILLY = {"gloves": "Kiara's hands go numb in the cold: she has Raynaud's.",
          "city": "Kiara lives in Melbourne, in a share house in Brunswick.",
          "study": "She studies game design at RMIT."}


def test_small_talk_that_asks_nothing_recalls_nothing_whatever_it_mentions(db, monkeypatch):
    """"ugh its sooo cold in melb today i cant feel my hands" falls nearest small talk and asks nothing: nothing is
    recalled, though it names her city and her hands; a question in the same words ("... what should I wear?")
    still recalls (control), and so does the same small talk when the rule is set aside."""
    kiara = Identity(user="kiara", chat="c1")
    ids = _fill(db, kiara, CHILLY)
    view, chat = View(kiara.accessible()), "ugh its sooo cold in melb today i cant feel my hands"
    found = retrieval.search(db, view, chat)
    assert found.small_talk and found.hits == []
    asked = retrieval.search(db, view, chat + ", what should I wear to uni?")
    assert not asked.small_talk and ids["gloves"] in _ids(asked)
    monkeypatch.setattr(retrieval, "asks_anything", lambda message: True)
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # nor the probe, sure of it too
    assert retrieval.search(db, view, chat).hits != []


def test_a_user_who_says_they_are_only_venting_gets_nothing_recalled(db, monkeypatch):
    """"data team standup was a mess, no agenda at all. rant over" asks nothing and says so: nothing of hers is
    recalled, though it names her team and her dislike; the same words with a question ("... any tips?") still
    recall (control), and so does the rant when the rule is set aside."""
    ines = Identity(user="ines", chat="c1")
    ids = _fill(db, ines, {"meetings": "Ines runs the Monday planning meeting for the data team; she hates meetings "
                                       "without an agenda.",
                           "city": "Ines lives in Porto.", "cat": "Her cat is called Miso."})
    view, vent = View(ines.accessible()), "data team standup was a mess, no agenda at all"
    venting = retrieval.search(db, view, vent + ". rant over")
    assert venting.small_talk and venting.hits == []
    asked = retrieval.search(db, view, vent + ". any tips for my planning meeting?")
    assert not asked.small_talk and ids["meetings"] in _ids(asked)
    assert intent.vents("just venting, ignore me") and not intent.vents("just venting, any tips for a boss like this?")
    monkeypatch.setattr(retrieval, "vents", lambda message: False)
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # nor the probe, sure of it too
    assert ids["meetings"] in _ids(retrieval.search(db, view, vent + ". rant over"))


FARM = {"herd": "Tane milks about 420 cows (mostly Friesian-Jersey crossbreds) through a 40-bale rotary shed.",
        "dogs": "Farm dogs: Bess (huntaway, 9) and Tui (heading dog, 3).",
        "mating": "Mating starts on 20 October this year, with AI for the first five weeks.",
        "coriander": "\"Don't send me anything with coriander in it, tastes like soap to me.\""}


def test_a_general_question_on_the_users_topic_that_the_world_answers_recalls_nothing(db, monkeypatch):
    """A dairy farmer asking "why do cows have four stomachs" wants what the world knows: nothing of theirs is
    recalled, while "how many cows do I milk?" and "when does mating kick off?" (particulars of their life, in the
    same store) are answered; with the rule set aside, the herd memory clears the meaning-alone margin (it
    matters)."""
    tane = Identity(user="7391046628", platform="telegram", chat="7391046628")
    ids = _fill(db, tane, FARM)
    view, why = View(tane.accessible()), "why do cows have four stomachs"
    assert retrieval.search(db, view, why).hits == []
    assert _ids(retrieval.search(db, view, "how many cows do I milk?"))[:1] == [ids["herd"]]
    assert _ids(retrieval.search(db, view, "When does mating kick off this year?"))[:1] == [ids["mating"]]
    monkeypatch.setattr(retrieval, "explains", lambda message: False)
    monkeypatch.setattr(retrieval, "world_answers", lambda message: False)
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)  # nor the probe, sure of it too
    assert _ids(retrieval.search(db, view, why)) == [ids["herd"]]


NURSE = {"wound": "Huong dresses a client's stage 2 pressure injury on the left heel every Tuesday and Friday.",
         "latex": "She is allergic to latex and can only use nitrile gloves.",
         "car": "Huong drives a white 2017 Mazda 3 between client visits."}


def test_the_difference_between_two_things_of_the_world_recalls_nothing_whoever_asks(db, monkeypatch):
    """A home-care nurse asking "remind me the difference between a stage 2 and stage 3 pressure injury" wants the
    definitions, though "remind me" speaks of her and a memory shares the words: nothing is recalled, while "remind
    me what I'm allergic to" (same store) is answered; with the rule set aside, the wound memory is recalled."""
    huong = Identity(user="+61433820517", platform="signal", chat="+61433820517")
    ids = _fill(db, huong, NURSE)
    view, compares = View(huong.accessible()), "remind me the difference between a stage 2 and stage 3 pressure injury"
    assert retrieval.search(db, view, compares).hits == []
    assert _ids(retrieval.search(db, view, "remind me what I'm allergic to"))[:1] == [ids["latex"]]
    monkeypatch.setattr(retrieval, "world_answers", lambda message: False)
    assert _ids(retrieval.search(db, view, compares))[:1] == [ids["wound"]]


def test_a_common_word_or_a_language_that_opens_the_users_memories_names_no_one(db):
    """"One can of beer on Saturdays" and "English class on Tuesdays" do not make "one" or "English" the user's
    name (a name is said as "the user" and lifts the question out of the general ones), while "Kenji", which opens
    most of his memories, still is (control, same store)."""
    kenji = Identity(user="kenji-osaka", chat="c1")
    _fill(db, kenji, {"beer": "One can of beer on Saturdays only.", "tea": "One cup of green tea after lunch.",
                      "class": "English conversation class every Tuesday at 10:00.",
                      "diary": "Keeps an English diary: three sentences every night.",
                      "age": "Kenji is 68 and retired in 2022.", "walk": "Kenji walks along the river every morning.",
                      "koi": "Kenji keeps 7 koi in a pond in the back garden."}, drain=False)
    view = View(kenji.accessible())

    def names(query):
        since, size = retrieval.word_window(db, view)
        counts = retrieval.document_counts(db, view, retrieval.query_terms(query, content_only=True), since)
        return retrieval.user_names_in(db, view, query, counts, size)[0]

    assert names("Tell me one joke. Easy English please.") == set()
    assert names("where does Kenji walk every morning?") == {"kenji"}


GIGS = {"shellfish": "He is allergic to shrimp and other shellfish.",
        "shifts": "He works four tens, 6am to 4:30pm Monday through Thursday.",
        "weight": "He is trying to put on weight: 152 lb now, 170 is the goal.",
        "band": "He plays keys in a covers band that does hotel gigs.",
        "daughter": "His daughter Kezia is 9 and takes piano lessons."}


def test_where_the_probe_is_sure_a_message_rests_on_the_user_the_floor_is_lower(db, monkeypatch):
    """"help me make a cheap meal plan for the week" rests on the user beyond the probe's doubt; the shellfish
    allergy it needs sits between SURE_CONTEXT_FLOOR and CONTEXT_FLOOR, and is recalled; "what's the capital of
    Australia?" still recalls nothing. Control: with the floor of an unsure message, the plan recalls nothing."""
    who = Identity(user="everton", chat="c1")
    ids = _fill(db, who, GIGS)
    view, plan = View(who.accessible()), "help me make a cheap meal plan for the week"
    found = retrieval.search(db, view, plan, 3)
    assert found.rests_on_user and found.context_floor == retrieval.SURE_CONTEXT_FLOOR
    [allergy] = [hit for hit in found if hit.id == ids["shellfish"]]
    assert retrieval.SURE_CONTEXT_FLOOR <= allergy.score < retrieval.CONTEXT_FLOOR
    assert retrieval.search(db, view, "what's the capital of Australia?").hits == []
    monkeypatch.setattr(retrieval, "SURE_CONTEXT_FLOOR", retrieval.CONTEXT_FLOOR)
    assert retrieval.search(db, view, plan, 3).hits == []


def test_to_overrule_words_that_read_a_question_about_the_world_the_probe_must_be_surer(db, monkeypatch):
    """"how do I make a sourdough starter?" reads as a question about how a thing is done; a probe at 0.92 (sure
    enough to lower the floor of a request) does not make it rest on the user, so the units the user asked for
    stay out of it. Controls in the same store at the same probability: the meal plan rests on the user and recalls
    the allergy; with RESTS_OVERRULES at RESTS_LIKELY the sourdough question would recall a memory."""
    who = Identity(user="everton", chat="c1")
    ids = _fill(db, who, {**GIGS, "units": "Use US units and Fahrenheit."})
    view, starter = View(who.accessible()), "how do I make a sourdough starter?"
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: 0.92)
    assert intent.about_the_world(starter)
    found = retrieval.search(db, view, starter, 3)
    assert not found.rests_on_user and found.hits == []
    plan = retrieval.search(db, view, "help me make a cheap meal plan for the week", 3)
    assert plan.context_floor == retrieval.SURE_CONTEXT_FLOOR and ids["shellfish"] in _ids(plan)
    monkeypatch.setattr(retrieval, "RESTS_OVERRULES", retrieval.RESTS_LIKELY)
    assert retrieval.search(db, view, starter, 3).hits != []


KIN = {"pigeon": "Gethin's best bird is a blue bar hen called Seren; she won the Bourges race in 2023.",
       "swim": "His niece Ffion swims for the county on Thursday evenings.",
       "loft": "He keeps 40 racing pigeons in a loft behind the house in Pontypridd.",
       "knee": "He had his left knee replaced in January.",
       "shift": "Works nights at the Royal Mail sorting office in Cardiff.",
       "choir": "Sings bass in the Treorchy Male Choir on Mondays."}


def test_looking_up_someone_the_memories_name_rests_on_the_user(db, monkeypatch):
    """A lookup of a particular of someone the memories name as the user's (a bird "called Seren", "his niece
    Ffion") rests on the user as one of their own does. Control, same store: without that reading it abstains; a
    question whose looked-up sentence names none of them recalls nothing."""
    who = Identity(user="gethin", chat="c1")
    ids = _fill(db, who, KIN)
    view = View(who.accessible())
    message, wanted = "which race did Seren win? cant remember if it was 22 or 23", ids["pigeon"]
    found = retrieval.search(db, view, message, 3)
    assert found.rests_on_user and wanted in _ids(found)
    assert retrieval.search(db, view, "Who was the first woman in space? Ffion asked me at tea and I had no "
                            "idea").hits == []
    monkeypatch.setattr(retrieval, "FIRST_LEANS", 1.1)  # nor the probe's lean alone
    monkeypatch.setattr(retrieval, "kin_named", lambda db, view, query, counts: set())
    monkeypatch.setattr(intent, "_FORGOT", re.compile("(?!)"))
    assert wanted not in _ids(retrieval.search(db, view, message, 3))


def test_a_question_of_someone_of_theirs_rests_on_the_user_in_any_wording(db, monkeypatch):
    """A question about someone the memories name as the user's rests on them in words intent does not read as a
    lookup (here Welsh: "which race did Seren win?"). Controls, same store: without that reading it abstains, and a
    message that asks nothing of her recalls nothing."""
    who = Identity(user="gethin", chat="c1")
    ids = _fill(db, who, KIN)
    view = View(who.accessible())
    message, wanted = "Seren ennill pa ras? 22 neu 23?", ids["pigeon"]
    assert not intent.looks_up(message)
    found = retrieval.search(db, view, message, 3)
    assert found.rests_on_user and wanted in _ids(found)
    assert retrieval.search(db, view, "long day at the loft with Seren and the young birds").hits == []
    monkeypatch.setattr(retrieval, "kin_named", lambda db, view, query, counts: set())
    monkeypatch.setattr(intent, "_FORGOT", re.compile("(?!)"))
    assert wanted not in _ids(retrieval.search(db, view, message, 3))


PET = {"cat": "Jess has a ginger cat called Pumpkin.",
       "ella": "Her stepdaughter Ella is 13 and stays with them every second week.",
       "gp": "Her GP is Dr. Nguyen at the Paddington clinic.",
       "design": "She works part-time from home in Brisbane as a graphic designer.",
       "heat": "Heat makes her symptoms much worse, so she stays inside in the middle of the day."}


def test_a_report_that_opens_with_someone_of_theirs_rests_on_the_user(db, monkeypatch):
    """"pumpkin's been chucking up hairballs heaps this week" asks nothing in words, yet it is about the user's cat
    (a name as common as a word, written as a possessive): it rests on the user and recalls the cat. Controls, same
    store: a report that only mentions someone of theirs in passing is small talk and recalls nothing, and without
    reading the name the report recalls nothing either."""
    who = Identity(user="jess", chat="c1")
    ids = _fill(db, who, PET)
    view = View(who.accessible())
    report = "pumpkin's been chucking up hairballs heaps this week"
    assert retrieval.kin_named(db, view, report, {"pumpkin": 1}) == {"pumpkin"}
    found = retrieval.search(db, view, report, 3)
    assert found.rests_on_user and _ids(found)[:1] == [ids["cat"]]
    assert retrieval.search(db, view, "had a lovely walk by the river with ella today").hits == []
    monkeypatch.setattr(retrieval, "kin_named", lambda db, view, query, counts: set())
    assert retrieval.search(db, view, report, 3).hits == []


def test_kin_named_finds_possessives_given_names_and_relations_not_places(db):
    who = Identity(user="gethin", chat="c1")
    _fill(db, who, KIN, drain=False)
    view = View(who.accessible())
    words = ("gethin", "seren", "ffion", "pontypridd", "treorchy", "cardiff")
    counts = dict.fromkeys(words, 1)
    assert retrieval.kin_named(db, view, " ".join(words), counts) == {"gethin", "seren", "ffion"}
    assert retrieval.kin_named(db, view, "Who won? Seren said", counts) == set()  # after the asking sentence
    assert retrieval.kin_named(db, view, "how's the loft", {"loft": 1}) == set()  # a common word, not a name


def test_someone_a_memory_names_by_their_role_is_someone_of_the_users(db, monkeypatch):
    """"Her manager is Fernanda; the monthly KPI report is due ..." names Fernanda as one of the user's, as "her
    sister Ana" would: "qdo vence o relatório de KPI pra fernanda? esqueci total" (when is the KPI report for
    Fernanda due? I forgot) looks up a particular of someone of hers and recalls it. Controls: read without that
    (nor the answer she forgot, which asks to be reminded too),
    nothing is recalled; a title is not the name ("His GP is Dr. Gokhale"), nor is a nationality ("Her husband is
    Irish")."""
    assert retrieval._kin_in("His GP is Dr. Gokhale; his physio, Anjali, sees him on Mondays.") >= {"Gokhale", "Anjali"}
    assert "Dr" not in retrieval._kin_in("His doctor is Dr. Gokhale.")
    ids, view = _persona(db, "personal_unseen_133.json", "p536")
    message, wanted = "qdo vence o relatório de KPI pra fernanda? esqueci total", ids["p536.m10"]
    assert retrieval.kin_named(db, view, message, {"fernanda": 1}) == {"fernanda"}
    found = retrieval.search(db, view, message, 3)
    assert found.rests_on_user and _ids(found)[:1] == [wanted]
    lifecycle.store(db, Identity(user="solene", chat="c1"), "user", "Her husband is Irish.", human("t"))
    assert retrieval.kin_named(db, View(Identity(user="solene", chat="c1").accessible()), "best irish stew?",
                               {"irish": 1}) == set()
    monkeypatch.setattr(retrieval, "kin_named", lambda db, view, query, counts: set())
    monkeypatch.setattr(intent, "_FORGOT", re.compile("(?!)"))
    assert wanted not in _ids(retrieval.search(db, view, message, 3))


NIGHT_NURSE = {"sertraline": "Dana takes sertraline 50 mg daily.",
               "born": "Her son Milo was born at 31 weeks in August 2025.",
               "ped": "Milo's pediatrician is Dr. Okafor in Midtown.",
               "reflux": "Milo has reflux and has to stay upright for 20 minutes after feeds.",
               "house": "They live in a house in Riverside.",
               "job": "Dana is an ER nurse on twelve-hour night shifts."}


def _first_unwanted(db, view, message: str):
    """The first candidate of a message that rests on the user and recalls nothing, asserting why: it clears the
    message's floor but is unlikely wanted (WANTED_FLOOR)."""
    found = retrieval.search(db, view, message)
    assert found.rests_on_user and found.hits == []
    first = found.candidates[0]
    assert first.relevance >= found.context_floor and first.wanted < retrieval.WANTED_FLOOR
    return first


def test_a_memory_the_message_does_not_want_is_not_recalled_though_it_clears_the_floor(db, monkeypatch):
    """A tailor's "how to stop chiffon from slipping when I dey cut am" rests on her by its words, and a memory of
    her trade clears the floor of such a message; but the resting probe only half believes the message (held at 0.75
    here, above RESTS_DOUBTED: the shipped probe doubts it, which alone would keep her trade out), and the bearing
    probe finds no memory it wants, so their chance of its being wanted stays under WANTED_FLOOR and nothing is
    recalled. Controls in the same store: a request for one of her people recalls that memory, explain gives the
    chance, and with no floor on it the chiffon question would recall her trade."""
    from scope_recall_engine.reading import explain

    fitted = resting.probability
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: max(0.75, fitted(model_id, vector)))
    ids, view = _persona(db, "personal_unseen_113.json", "p456")
    chiffon = "how to stop chiffon from slipping when I dey cut am"
    trade = _first_unwanted(db, view, chiffon)
    assert explain.explain(db, view, chiffon)["candidates"][0]["wanted"] == pytest.approx(trade.wanted, abs=1e-3)
    blessing = "what can I do for Blessing? she don almost finish with me, I wan make am special"
    assert ids["p456.m02"] in _ids(retrieval.search(db, view, blessing))
    monkeypatch.setattr(retrieval, "WANTED_FLOOR", 0.0)
    assert trade.row.id in _ids(retrieval.search(db, view, chiffon))


def test_a_message_the_probe_alone_rests_on_the_user_is_held_to_the_chance_of_being_wanted(db, monkeypatch):
    """"December mein Goa mein sunset kitne baje hota hai?" (what time is sunset in Goa in December?) rests on the
    Morjim shack owner only because the resting probe leans to her (RESTS_LEANS): her words alone do not.
    Her memories clear that message's floor, but none is likely wanted (WANTED_FLOOR), so nothing is recalled:
    the bearing of each memory is weighed however the message came to rest on the user. Controls, same store: her
    request for a plan for the monsoon still recalls her income, and with no floor on the chance the sunset
    recalls her memories."""
    ids, view = _persona(db, "personal_unseen_136.json", "p548")
    sunset = "December mein Goa mein sunset kitne baje hota hai?"
    _first_unwanted(db, view, sunset)
    plan = retrieval.search(db, view, "monsoon aa raha hai, June se income ka kya plan karu? thoda hisaab bana de")
    assert {ids["p548.m08"], ids["p548.m07"]} & set(_ids(plan)[:3])
    monkeypatch.setattr(retrieval, "WANTED_FLOOR", 0.0)
    assert retrieval.search(db, view, sunset).hits != []
    monkeypatch.setattr(retrieval, "RESTS_LEANS", 1.0)  # the probe overrules nothing: the words alone
    assert not retrieval.search(db, view, sunset).rests_on_user


@pytest.mark.parametrize(("message", "posts"), [
    ("write me an IG caption for the new stock that just landed", True), ("인스타 caption 좀 써줘", True),
    ("ek Instagram post likh do on desk posture", True), ("help me write a short fb post for the family group", True),
    ("write a letter to the council about the bins", False), ("post office opening hours on saturday?", False),
])
def test_a_caption_or_a_social_networks_post_is_told_in_any_language(message, posts):
    assert intent.posts_online(message) is posts


def test_a_caption_the_user_asks_for_is_not_held_to_the_probes_doubt(db, monkeypatch):
    """"aaj ke special ka ek insta caption likh de baba" (write an insta caption for today's special) rests on the
    shack owner by its words, but the probes doubt it and find none of her memories likely wanted: a post shows the
    user's own life, so they are not weighed and her shack is recalled. Controls, same store: without that reading it
    recalls nothing, and a question of the world that names a social network recalls nothing either way."""
    ids, view = _persona(db, "personal_unseen_136.json", "p548")
    caption, myth = "aaj ke special ka ek insta caption likh de baba", "is hyperfocus real or just a tiktok myth?"
    assert ids["p548.m21"] in _ids(retrieval.search(db, view, caption))[:3]
    assert retrieval.search(db, view, myth).hits == []
    monkeypatch.setattr(retrieval, "posts_online", lambda message: False)
    assert retrieval.search(db, view, caption).hits == []
    assert retrieval.search(db, view, myth).hits == []


def test_a_message_the_probe_leans_to_the_user_on_is_no_small_talk_though_the_rules_read_no_question(db, monkeypatch):
    """"papa ji di appointment kehde hospital ch hundi aa" (which hospital is dad's appointment at? in Punjabi) asks
    nothing the rules can read, and the small-talk probe takes it for chat; but the resting probe leans to the
    trucker (RESTS_LEANS or more), so it is no small talk and his father's appointment is recalled. Controls, same
    store: "aj bahut thak gaya yaar, ik raat ch 3 trucks breakdown" (worn out, three breakdowns in a night) is
    small talk the probe does not lean on, and recalls nothing; with the probe held to overrule nothing, the
    appointment question is small talk again."""
    ids, view = _persona(db, "personal_unseen_123.json", "p496")
    appointment = "papa ji di appointment kehde hospital ch hundi aa"
    found = retrieval.search(db, view, appointment)
    assert not found.small_talk and ids["p496.m09"] in _ids(found)[:3]
    tired = retrieval.search(db, view, "aj bahut thak gaya yaar, ik raat ch 3 trucks breakdown 😤")
    assert tired.small_talk and tired.hits == []
    monkeypatch.setattr(retrieval, "RESTS_LEANS", 1.0)
    assert retrieval.search(db, view, appointment).small_talk


def test_a_lookup_of_a_stated_fact_is_not_held_to_the_chance_of_being_wanted(db):
    """"whats the name of that chiro i go to in red deer" looks a stated fact up: its words and meaning find it,
    and the bearing probe, which learnt the needs of requests, is not asked (its chance would be under the floor).
    Control in the same store: a request for advice is held to it."""
    ids, view = _persona(db, "personal_unseen_122.json", "p489")
    chiro = retrieval.search(db, view, "whats the name of that chiro i go to in red deer")
    assert chiro.rests_on_user and _ids(chiro)[:1] == [ids["p489.m10"]]
    assert all(candidate.wanted is None for candidate in chiro.candidates)
    advice = retrieval.search(db, view, "my back is killing me after 11 hours in the cab, any stretches?")
    assert advice.rests_on_user and advice.candidates[0].wanted is not None


def test_where_the_rules_cannot_read_a_message_a_probe_that_leans_to_the_user_decides(db, monkeypatch):
    """"meen el supervisor bta3 el grad project? 3ayez ab3atlo mail" (Egyptian Arabic in Latin letters: who is the
    supervisor of my graduation project?), read as typed (``glosses.in_arabizi`` off), is in words the rules cannot
    read; the resting probe leans to the user (RESTS_LEANS or more), so the message rests on him and his supervisor
    is recalled. With the probe held to overrule nothing it is not, and in the same store a question of his field
    recalls nothing."""
    from scope_recall_engine.reading import glosses

    monkeypatch.setattr(glosses, "in_arabizi", lambda message: False)
    monkeypatch.setattr(retrieval, "PERSONAL_SHARE", 0.7)  # its kinds of need sit at 0.65, PERSONAL_SHARE, on one
    # machine just above and on another just below: the probe alone decides here
    ids, view = _persona(db, "personal_unseen_124.json", "p500")
    supervisor = "meen el supervisor bta3 el grad project? 3ayez ab3atlo mail"
    found = retrieval.search(db, view, supervisor)
    assert found.rests_on_user and _ids(found)[:1] == [ids["p500.m03"]]
    assert retrieval.search(db, view, "how do i calculate the moment of inertia of a hollow shaft?").hits == []
    monkeypatch.setattr(retrieval, "FIRST_LEANS", 1.1)  # nor the probe's lean alone
    monkeypatch.setattr(retrieval, "RESTS_LEANS", 1.0)
    assert retrieval.search(db, view, supervisor).hits == []


def test_a_lookup_that_says_nothing_of_the_user_recalls_only_what_it_likely_wants(db, monkeypatch):
    """"what time does the warehouse shift change happen in most irish DCs?" looks a fact up, as "when's my forklift
    cert valid until?" does, but says nothing of the user: the world answers it, and her warehouse job, her night
    shifts and her manager are no memory it likely wants (WANTED_FLOOR), so nothing is recalled. Her own lookup still
    finds her licence in the same store; read as a lookup of hers, the question about shifts recalls her memories."""
    ids, view = _persona(db, "personal_unseen_128.json", "p514")
    shifts = "what time does the warehouse shift change happen in most irish DCs?"
    assert retrieval.search(db, view, shifts).hits == []
    assert _ids(retrieval.search(db, view, "when's my forklift cert valid until? agency asking"))[:1] == [
        ids["p514.m07"]]
    monkeypatch.setattr(retrieval, "speaks_of_user", lambda message: True)
    assert retrieval.search(db, view, shifts).hits != []


def test_an_unspaced_message_with_numbers_in_every_word_is_still_read_by_the_probes(db):
    """"今月ゴルフ2回行ったら足りるかな。プレー代1回1万2千円くらい" (will my money last two rounds of golf this
    month?) is two unspaced clauses, each a "word" with a number in it: it is still a message of words, so the resting
    probe reads it and his monthly allowance is recalled. A question of his trade in the same store recalls nothing."""
    ids, view = _persona(db, "personal_unseen_125.json", "p501")
    golf = "今月ゴルフ2回行ったら足りるかな。プレー代1回1万2千円くらい"
    assert not any(word.isalpha() for word in retrieval.query_terms(golf, content_only=True))
    found = retrieval.search(db, view, golf)
    assert found.rests_on_user and ids["p501.m13"] in _ids(found)[:3]
    assert retrieval.search(db, view, "円安って商社の利益にどう影響するの？").hits == []


def test_a_memory_recalled_on_meaning_alone_is_recalled_for_a_message_resting_on_the_user_too(db, monkeypatch):
    """"can u write a one pager on flossing i can hand out to patients" rests on the hygienist, and her note that
    handouts should be written at a Year 6 reading level lies far beyond every reference sentence in meaning: it
    would be recalled for a message that did not rest on her at all, so it is recalled for this one however unlikely
    the probes find it wanted. The lower floor of a message resting on the user is never stricter than the meaning
    rule. Controls, same store: a question the world answers recalls nothing, and without the meaning rule the note
    is not recalled. Shared words do not count so: a memory sharing words with such a message, too near the
    reference in meaning, stays unwanted."""
    ids, view = _persona(db, "personal_unseen_120.json", "p482")
    handout, note = "can u write a one pager on flossing i can hand out to patients", ids["p482.m18"]
    monkeypatch.setattr(retrieval, "WANTED_FLOOR", 1.0)  # no memory is likely enough wanted
    found = retrieval.search(db, view, handout)
    assert found.rests_on_user and _ids(found)[:1] == [note]
    assert retrieval.search(db, view, "when does daylight saving end in vic this year").hits == []
    unwanted = dict(relevance=1.0, wanted=0.5)
    far, near = (retrieval.Candidate(None, beyond=beyond, **unwanted) for beyond in (retrieval.MEANING_MARGIN, 0.0))
    worded = retrieval.Candidate(None, lexical_own=1.0, beyond=0.0, **unwanted)
    floor = retrieval.CONTEXT_FLOOR
    assert retrieval.admission(far, floor)[0] == "meaning" and retrieval.admissible(far, floor)
    assert not retrieval.admissible(near, floor) and not retrieval.admissible(worded, floor)
    monkeypatch.setattr(retrieval, "MEANING_MARGIN", float("inf"))
    assert note not in _ids(retrieval.search(db, view, handout))


def test_a_request_to_make_something_recalls_a_note_on_how_to_help(db, monkeypatch):
    """"yo can u write a simple object pool for bullets? GC spikes killing me" asks for code: the note "Prefers code
    examples in C#." tells how to write it, whatever the code is about, so it needs only CONTEXT_FLOOR though the
    message does not rest on the user; a question of how a thing is made asks for nothing made. Controls, same
    store: a question the world answers recalls nothing, and read as no request to make anything, the note is not
    recalled."""
    ids, view = _persona(db, "personal_unseen_133.json", "p534")
    pool, note = "yo can u write a simple object pool for bullets? GC spikes killing me", ids["p534.m19"]
    assert intent.asks_to_make(pool) and intent.asks_to_make("help me write a speech opener, funny but not cringe")
    assert not intent.asks_to_make("figma: how do i make a component with variants")  # how it is done
    assert not intent.asks_to_make("148 tins, three a parcel: how many parcels can we make?")
    found = retrieval.search(db, view, pool)
    assert found.makes and not found.rests_on_user and note in _ids(found)
    assert retrieval.search(db, view, "how does A* pathfinding work, briefly? and why is it better than "
                            "Dijkstra").hits == []
    monkeypatch.setattr(retrieval, "asks_to_make", lambda message: False)
    assert note not in _ids(retrieval.search(db, view, pool))


def test_where_the_probe_doubts_a_message_rests_on_the_user_a_memory_far_in_meaning_is_not_recalled(db, monkeypatch):
    """"max tylenol per day for adults is 4g or 3g now?" reads by its words as resting on her (it speaks of what
    people say to her), and a probe that doubts it (0.6: below RESTS_DOUBTED, above RESTS_UNLIKELY; the shipped
    probe reads it lower still): her sertraline, relevant among a person's memories yet far from the question in
    meaning, is not recalled. Her own dose and her son's spitting up are (control), and without the margin the
    sertraline is recalled for the tylenol question too."""
    from scope_recall_engine.reading import explain

    dana = Identity(user="dana", chat="c1")
    ids = _fill(db, dana, NIGHT_NURSE)
    view = View(dana.accessible())
    fitted = resting.probability
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: max(0.6, fitted(model_id, vector)))
    monkeypatch.setattr(retrieval, "WANTED_FLOOR", 0.0)  # the doubt alone, not the gate of what is wanted
    tylenol = "max tylenol per day for adults is 4g or 3g now? ppl keep sayin diff things"
    doubted = retrieval.search(db, view, tylenol)
    assert doubted.rests_on_user and doubted.doubted and doubted.hits == []
    assert explain.explain(db, view, tylenol)["doubted"]
    assert _ids(retrieval.search(db, view, "what dose of sertraline am i on again?"))[:1] == [ids["sertraline"]]
    spits = retrieval.search(db, view, "he spits up like half the bottle evry time. anythin else to try b4 i call")
    assert not spits.doubted and ids["reflux"] in _ids(spits)
    monkeypatch.setattr(retrieval, "DOUBTED_MARGIN", float("-inf"))
    assert ids["sertraline"] in _ids(retrieval.search(db, view, tylenol))


def test_a_scratch_note_is_judged_on_its_words_where_the_probe_doubts_the_message(db, alice, monkeypatch):
    """A doubted reading is checked on meaning, and a scratch note has no vector: "flight prices Lisbon", which the
    probe doubts rests on Alice, recalls "Scratch note: compare flight prices to Lisbon for the offsite" on its
    words, as any message would. Controls, same store and same doubt: her memories, embedded, are still held to the
    margin on meaning, and a question about the world recalls nothing."""
    ids = _fill(db, alice)
    note = lifecycle.store(db, alice, "general", "Scratch note: compare flight prices to Lisbon for the offsite", ME).id
    view = View(alice.accessible())
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: 0.6)  # below RESTS_DOUBTED
    flights = retrieval.search(db, view, "flight prices Lisbon")
    assert flights.rests_on_user and flights.doubted and note in _ids(flights)[:3]
    rules = {c.row.id: retrieval.admission(c, *flights.abstention) for c in flights.candidates}
    assert rules[note][0] == "words"
    assert rules[ids["car"]] == ("context", retrieval.CONTEXT_FLOOR, retrieval.DOUBTED_MARGIN)
    assert retrieval.search(db, view, "What is the capital of France?").hits == []


def test_without_the_vector_lane_a_lookup_of_what_the_user_said_still_rests_on_them(db):
    """On a cold start the vector lane may not answer in time: "what's Bryn's surname again?" still looks up what
    the user said and recalls it on its words; a general question sharing a word ("shift") still gets nothing."""
    dana = Identity(user="dana", chat="c1")
    facts = {"partner": "Her shift partner on nights is Bryn Joensen.",
             "reflux": "Milo has reflux and has to stay upright for 20 minutes after feeds."}
    ids = _fill(db, dana, facts, drain=False)
    view = View(dana.accessible())
    lookup = retrieval.search(db, view, "what's Bryn's surname again?", use_vectors=False)
    assert lookup.rests_on_user and _ids(lookup) == [ids["partner"]]
    assert _ids(retrieval.search(db, view, "how long is a night shift in most hospitals?", use_vectors=False)) == []


VET = {"biscuit": "Her retired greyhound Biscuit is 9, has hip arthritis and is on meloxicam.",
       "weight": "Biscuit weighed 31 kg at his last weigh-in.",
       "budgies": "She has two rescue budgies, Kev and Sheila.",
       "job": "Tegan is a small-animal vet at a clinic in Maylands, Perth.", "surf": "Tegan surfs at Trigg Beach.",
       "asthma": "Tegan has asthma and uses a Symbicort inhaler.", "mum": "Tegan's mum Karen lives in Bunbury.",
       "exam": "Tegan is sitting her membership exam in late June."}


def test_a_question_shaped_as_the_worlds_asked_of_someone_of_the_users_rests_on_them(db, monkeypatch):
    """"how heavy was biscuit at his last weigh in?" has the shape of a question the world answers ("how heavy was
    the Titanic?"), but it is asked of Biscuit, her greyhound: his weigh-in is recalled. Controls: the same shape
    asked of no one of hers recalls nothing, nor does the message itself when Biscuit is not known as one of hers;
    a name that is only part of the world's question ("the Labrador Current") or whom it is for ("a joke for trev")
    does not make it theirs."""
    tegan = Identity(user="tegan", chat="c1")
    ids = _fill(db, tegan, VET)
    view, message = View(tegan.accessible()), "how heavy was biscuit at his last weigh in?"
    assert intent.explains(message) and retrieval.asked_of({"biscuit"}, message)
    assert not retrieval.asked_of({"labrador"}, "how does the Labrador Current affect water temperatures?")
    assert not retrieval.asked_of({"trev"}, "tell me a dad joke for trev, he's been telling the same 3")
    assert ids["weight"] in _ids(retrieval.search(db, view, message))[:3]
    assert retrieval.search(db, view, "how heavy was the heaviest greyhound ever recorded?").hits == []
    monkeypatch.setattr(retrieval, "kin_named", lambda *args: set())
    monkeypatch.setattr(retrieval, "user_names_in", lambda *args: (set(), False))
    unknown = retrieval.search(db, view, message)
    assert unknown.asks_the_world and unknown.hits == []


def test_a_lookup_of_a_word_or_two_is_not_the_resting_probes_to_overrule(db, monkeypatch):
    """The resting probe learnt from messages, not keywords: "peanut allergy" typed alone is read as the rules read
    it (resting on her) even where the probe reads it as resting on no one, and finds her allergy; a message the
    probe reads the same way (control) gets nothing."""
    ines = Identity(user="ines", chat="c1")
    ids = _fill(db, ines, {"allergy": "Ines has a severe peanut allergy and carries an EpiPen.",
                           "city": "Ines lives in Porto.", "cat": "Her cat is called Miso.",
                           "work": "Ines is a data analyst at a bank.", "run": "Ines runs 10k on Sundays."})
    view = View(ines.accessible())
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: None)
    assert retrieval.search(db, view, "peanut allergy").rests_on_user
    monkeypatch.setattr(resting, "probability", lambda model_id, vector: 0.01)
    looked_up = retrieval.search(db, view, "peanut allergy")
    assert looked_up.rests_on_user and _ids(looked_up)[:1] == [ids["allergy"]]
    message = "how common is a peanut allergy in adults these days?"
    found = retrieval.search(db, view, message)
    assert found.asks_the_world and found.hits == []


DAI = {  # a beekeeper and school caretaker, with his family
    "wife": "He lives in a farmhouse outside Llangadog with his wife Siân, a district nurse.",
    "exams": "His daughter Megan (16) is sitting her GCSEs this summer; her first exam is on 15 May.",
    "osian": "His son Osian (14) plays for Llandeilo RFC under-15s; training is Tuesday and Thursday at 6 pm.",
    "back": "He has a bulging disc at L4/L5; his physio told him not to lift more than about 15 kg on his own.",
    "honey": "He sells honey at Llandeilo farmers' market on the first Saturday of the month.",
    "steps": "Prefers short numbered steps he can follow in the shed or at the hives.",
    "megan": "Megan has been vegetarian since last year.",
    "sting": "Siân is allergic to bee stings and carries an EpiPen, so she keeps well away from the hives.",
    "hives": "He keeps 8 beehives: 5 at home and 3 at an out-apiary near Myddfai.",
    "mam": "His mam Glenys, 78, lives on her own in Lampeter; he visits her every Sunday afternoon.",
    "loan": "He still owes £2,300 on the loan for his Ford Transit Connect."}


def _recalls_only_before(monkeypatch, db, view, message, owner, name, before):
    """The message recalls nothing now, and something with ``owner.name`` as it was (``before``): the rule matters."""
    assert retrieval.search(db, view, message).hits == []
    monkeypatch.setattr(owner, name, before)
    assert retrieval.search(db, view, message).hits != []


def test_how_long_do_i_is_the_probes_to_read_as_a_question_of_the_world_or_of_the_users(db, monkeypatch):
    """"how long do I boil eggs for deviled eggs" measures how a thing is done, and recalls nothing of a user with
    type 2 diabetes; "how much do i have saved for the house rn", put the same way, recalls her savings (control).
    Read as a question about the user by its "do I" alone, as before, the eggs recalled her health."""
    bea = Identity(user="bea", chat="c1")
    ids = _fill(db, bea, {
        "diabetes": "She has type 2 diabetes, takes metformin, and checks her blood sugar before Sunday service.",
        "penicillin": "She is allergic to penicillin.", "choir": "Choir rehearsal is Thursdays 7-9pm.",
        "house": "She has saved $18,400 toward a house deposit; the goal is $30,000.",
        "sister": "Her sister Dolores lives in Tulsa."})
    view = View(bea.accessible())
    assert _ids(retrieval.search(db, view, "how much do i have saved for the house rn"))[:1] == [ids["house"]]
    _recalls_only_before(monkeypatch, db, view, "how long do I boil eggs for deviled eggs", intent, "_HOW_LONG_DO_I",
                         re.compile("(?!)"))


def test_a_question_passed_on_by_someone_of_the_users_is_the_probes_to_read(db, monkeypatch):
    """"how do i get candle wax out of a carpet, megan had candles going in her room and knocked one over" names
    Megan, one of Dai's, but asks nothing of her: the resting probe reads it as no one's, and nothing is recalled.
    A question of hers, "megan's been off her food all week, what should I do?", recalls her (control); with
    everyone of the user's named counted as asked after, as before, the wax recalled his family."""
    dai = Identity(user="dai", chat="c1")
    ids = _fill(db, dai, DAI)
    view = View(dai.accessible())
    assert ids["megan"] in _ids(retrieval.search(db, view, "megan's been off her food all week, what should I do?"))[:3]
    wax = "how do i get candle wax out of a carpet, megan had candles going in her room and knocked one over"
    _recalls_only_before(monkeypatch, db, view, wax, retrieval, "asked_after", lambda kin, query: True)


def test_a_measure_the_user_asks_is_held_to_the_chance_of_being_wanted(db, monkeypatch):
    """"how long do i leave the silicone round the bath to dry before the kids can use the shower" looks a measure up
    in the world as often as in the user's life: held to the chance of being wanted, it recalls nothing of Dai's;
    "how much do i still owe on the van loan" recalls the loan (control). Exempt like any lookup that speaks of the
    user, as before, the silicone recalled his family."""
    dai = Identity(user="dai", chat="c1")
    ids = _fill(db, dai, DAI)
    view = View(dai.accessible())
    assert _ids(retrieval.search(db, view, "how much do i still owe on the van loan"))[:1] == [ids["loan"]]
    silicone = "how long do i leave the silicone round the bath to dry before the kids can use the shower"
    _recalls_only_before(monkeypatch, db, view, silicone, retrieval, "measures", lambda message: False)


def test_someone_of_the_users_named_in_many_of_few_memories_is_not_the_user(db, monkeypatch):
    """In eight memories, two name "My daughter Megan": a quarter of the store, yet she is someone of Dai's, not
    whom the memories are about, so "megan knocked a candle over" names no one of his to look up, and the wax
    recalls nothing, while "when does megan start sixth form?" finds her (control). Taken for the user's own name,
    as before, the wax recalled his memories."""
    assert retrieval._kin_in("Alice's car is a red Volvo.", possessives=False) == set()  # the user's own, as often
    dai = Identity(user="dai", chat="c1")
    ids = _fill(db, dai, {key: DAI[key] for key in ("wife", "osian", "back", "honey", "sting", "hives")} | {
        "sixth": "My daughter Megan is 16 and starts sixth form in September.", "megan": DAI["megan"]})
    view = View(dai.accessible())
    assert _ids(retrieval.search(db, view, "when does megan start sixth form?"))[:1] == [ids["sixth"]]
    wax = "how do i get candle wax out of a carpet, megan knocked a candle over in her room"
    _recalls_only_before(monkeypatch, db, view, wax, retrieval, "_is_kin", lambda term, texts: False)



def test_a_fact_to_keep_recalls_only_the_memory_it_updates(db, monkeypatch):
    """"note that Omar's football moved to Saturdays" tells the assistant something to keep: the memory it updates
    (Omar plays on Fridays) is recalled, not the rest of Hoda's life; "please remember my dentist appointment is on the
    14th" updates nothing she told, and recalls nothing. "remember when my rent is due?" asks (control). Read as a
    message resting on her, as before, the note recalled her mother's pills and her gym too."""
    assert intent.keeps("Please remember: my mother takes Concor") and intent.keeps("keep in mind i'm vegan now")
    assert not (intent.keeps("remember what my sister's name is") or intent.keeps("do you remember my rent?"))
    hoda = Identity(user="hoda", chat="c1")
    ids, view = _fill(db, hoda, HODA), View(hoda.accessible())
    assert _ids(retrieval.search(db, view, "remember when my rent is due?"))[:1] == [ids["rent"]]
    football = "note that Omar's football moved to Saturdays"
    assert _ids(retrieval.search(db, view, football)) == [ids["son"]]
    dentist = "please remember my dentist appointment is on the 14th"
    _recalls_only_before(monkeypatch, db, view, dentist, retrieval, "keeps", lambda message: False)
    assert len(retrieval.search(db, view, football).hits) > 1


MEI = {"son": "Her son Ethan is 8 and in Primary 2.", "tuition": "Ethan has Chinese tuition on Wednesdays.",
       "eczema": "Ethan has eczema that flares up in the heat.", "birthday": "Ethan's birthday is on 3 September.",
       "husband": "Her husband Wei Ming works night shifts at the airport.",
       "job": "Mei works as a nurse at a polyclinic in Bedok.",
       "car": "They do not own a car and take the MRT everywhere."}


def test_a_question_someone_else_asked_of_the_world_recalls_nothing(db, monkeypatch):
    """"one of the nurses asked me why polyclinics close at 1pm on saturdays, i had no idea" passes on the world's
    question, though Mei says she was asked and works at a polyclinic: nothing is recalled. A question passed on
    that asks what she told ("my new colleague asked which polyclinic i work at, bedok or tampines?") finds her job
    (control); read as before, the nurses' question recalled it too."""
    mei = Identity(user="mei", chat="c1")
    ids, view = _fill(db, mei, MEI), View(mei.accessible())
    found = retrieval.search(db, view, "my new colleague asked which polyclinic i work at, bedok or tampines?")
    assert _ids(found)[:1] == [ids["job"]]
    passed = "one of the nurses asked me why polyclinics close at 1pm on saturdays, i had no idea"
    _recalls_only_before(monkeypatch, db, view, passed, retrieval, "passes_on", lambda message: False)


def test_someone_of_the_users_named_as_asking_is_not_asked_after(db, monkeypatch):
    """"ethan asking when the berlin wall fell, 1989 right?" names Ethan as the one asking, not what is asked: his
    tuition and his eczema are no answer. Asked after ("ethan asking what day his tuition is"), they are (control);
    with Ethan taken for what is asked, as before, every memory of his was recalled."""
    mei = Identity(user="mei", chat="c1")
    ids, view = _fill(db, mei, MEI), View(mei.accessible())
    assert _ids(retrieval.search(db, view, "ethan asking what day his tuition is"))[:1] == [ids["tuition"]]
    wall = "ethan asking when the berlin wall fell, 1989 right?"
    assert {ids["tuition"], ids["eczema"]}.isdisjoint(_ids(retrieval.search(db, view, wall)))
    monkeypatch.setattr(retrieval, "asks_it", lambda name, query: False)
    assert {ids["tuition"], ids["eczema"]} <= set(_ids(retrieval.search(db, view, wall)))
