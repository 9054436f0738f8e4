
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.writing import adjudication, digest, journal, lifecycle

OP = human("op")


def say(db, identity, session, *turns, extractor=None):
    for turn in turns:
        journal.append(db, identity, session, "user", turn)
    return digest.run(db, extractor or digest.RulesExtractor())


def rows(db):
    return {r["id"]: r for r in db["memories"].rows}


def candidates(db):
    return [r["content"] for r in db["memories"].rows_where("lifecycle = 'candidate'", order_by="id")]


def test_a_rejected_fact_restated_in_a_later_session_makes_no_candidate(db, alice):
    say(db, alice, "s1", "I like pineapple pizza")
    lifecycle.reject(db, 1, OP, reason="not a real preference")
    later = Identity(user="alice", chat="chat-2")
    report = say(db, later, "s2", "I like pineapple pizza.", "I love pineapple pizzas", "I like olives")
    assert [d["action"] for d in report.decisions] == ["TOMBSTONED", "NOOP", "ADD"]
    assert report.decisions[1]["memory_id"] == 1 and "rejected memory 1" in report.decisions[1]["reason"]
    assert candidates(db) == ["The user likes olives."]  # control: a new fact still gets through
    assert db["memory_sources"].count_where("memory_id = 1") == 3  # every restatement cites the rejected row


def test_a_purged_fact_restated_makes_no_candidate_and_the_turn_is_erased(db, alice):
    say(db, alice, "s1", "My favorite band is Zorblax")
    lifecycle.purge(db, 1, OP)
    report = say(db, alice, "s2", "my favorite band is Zorblax!", "My favorite food is ramen")
    assert [d["action"] for d in report.decisions] == ["TOMBSTONED", "ADD"]
    assert candidates(db) == ["The user's favorite food is ramen."]
    assert [e["content"] for e in journal.entries(db, alice)] == ["My favorite food is ramen"]


def test_the_same_fact_again_corroborates_the_candidate(db, alice):
    say(db, alice, "s1", "I work at Initech")
    report = say(db, alice, "s2", "I work at Initech, as you know")
    assert report.decisions[0]["action"] == "UPDATE" and report.decisions[0]["memory_id"] == 1
    row = rows(db)[1]
    assert (row["corroborations"], row["version"], row["lifecycle"]) == (1, 1, "candidate")
    assert db["memory_sources"].count_where("memory_id = 1") == 2


def test_a_new_value_for_a_candidates_slot_becomes_its_next_version(db, alice):
    say(db, alice, "s1", "I live in Paris")
    say(db, alice, "s2", "I just moved to Rome")
    row = rows(db)[1]
    assert (row["content"], row["version"], row["corroborations"]) == ("The user lives in Rome.", 2, 1)
    assert [r[0] for r in db.execute("select content from memory_versions where memory_id = 1 order by version")] == [
        "The user lives in Paris.", "The user lives in Rome."]


def test_a_new_value_for_an_active_slot_is_a_superseding_candidate(db, alice):
    say(db, alice, "s1", "I live in Paris")
    lifecycle.promote(db, 1, OP)
    report = say(db, alice, "s2", "I moved to Rome")
    assert report.decisions[0]["action"] == "SUPERSEDE"
    new = rows(db)[2]
    assert (new["lifecycle"], new["supersedes"], new["decision"]) == ("candidate", 1, "SUPERSEDE")
    assert "slot 'home'" in new["decision_reason"]
    assert rows(db)[1]["lifecycle"] == "active"  # nothing changes until a person says yes
    lifecycle.promote(db, 2, OP)
    old = rows(db)[1]
    assert (old["lifecycle"], old["superseded_by"]) == ("superseded", 2)
    assert old["valid_to"] == rows(db)[2]["valid_from"]


def test_an_already_active_fact_is_a_noop(db, alice):
    lifecycle.store(db, alice, "user", "The user loves green tea.", OP)
    report = say(db, alice, "s1", "I love green tea")
    assert report.decisions[0] == {"action": "NOOP", "memory_id": 1, "reason": "already active as memory 1",
                                   "by": "rules", "entries": [1]}
    assert db["memories"].count == 1


def test_the_decision_and_reason_are_stored_with_the_candidate(db, alice):
    say(db, alice, "s1", "I prefer window seats")
    row = rows(db)[1]
    assert (row["decision"], row["decision_reason"]) == ("ADD", "no matching row in scope")
    audit = db.execute("select reason from audit_events where memory_id = 1 and action = 'extract'").fetchone()[0]
    assert audit == "digest ADD (rules): no matching row in scope"


def test_the_model_decides_when_configured(db, alice, canned):
    lifecycle.store(db, alice, "user", "The user lives in Paris.", OP)
    journal.append(db, alice, "s1", "user", "we relocated to Rome last week")
    canned.enqueue({"facts": [{"entries": [1], "target": "user", "key": "home", "content": "The user lives in Rome."}]},
                   {"decision": "SUPERSEDE", "id": 1, "reason": "moved from Paris to Rome"})
    report = digest.run(db, digest.ModelExtractor("canned"))
    assert report.decisions[0]["action"] == "SUPERSEDE" and report.decisions[0]["by"] == "model"
    assert "[1] active: The user lives in Paris." in canned.prompts[1][1]
    new = rows(db)[2]
    assert (new["supersedes"], new["decision_reason"]) == (1, "moved from Paris to Rome")


def test_a_model_decision_that_does_not_fit_is_replaced_by_the_rules(db, alice, canned):
    lifecycle.store(db, alice, "user", "The user lives in Paris.", OP)
    journal.append(db, alice, "s1", "user", "I live in Paris")
    canned.enqueue({"facts": [{"entries": [1], "target": "user", "content": "The user lives in Paris"}]},
                   {"decision": "UPDATE", "id": 1, "reason": "x"})  # UPDATE needs a candidate
    report = digest.run(db, digest.ModelExtractor("canned"))
    assert report.decisions[0]["action"] == "NOOP" and report.decisions[0]["by"] == "rules"
    assert "model proposed UPDATE 1" in report.decisions[0]["reason"]


def test_a_model_never_overrides_a_rejection(db, alice, canned):
    say(db, alice, "s1", "I like pineapple pizza")
    lifecycle.reject(db, 1, OP, reason="not wanted")
    journal.append(db, alice, "s2", "user", "pineapple pizza is the best")
    canned.enqueue({"facts": [{"entries": [2], "target": "user", "content": "The user enjoys pineapple pizza"}]},
                   {"decision": "ADD", "id": None, "reason": "new"})
    report = digest.run(db, digest.ModelExtractor("canned"))
    assert report.decisions[0]["action"] == "NOOP" and report.decisions[0]["memory_id"] == 1
    assert candidates(db) == [] and len(canned.prompts) == 1  # the model was not even asked


def test_similarity_folds_plurals_and_preference_verbs():
    assert adjudication.similarity("The user likes pineapple pizza.", "The user loves pineapple pizzas") == 1.0
    assert adjudication.similarity("The user likes pineapple pizza.", "The user hates pineapple pizza") < 0.6
    assert adjudication.similarity("The user lives in Paris.", "The user lives in Rome.") < 0.6


def test_the_model_is_never_shown_a_rejected_value(db, alice, canned):
    say(db, alice, "s1", "I love anchovy pizza")
    lifecycle.reject(db, 1, OP, reason="a joke")
    lifecycle.store(db, alice, "user", "The user likes vanilla ice cream.", OP)
    journal.append(db, alice, "s2", "user", "ice cream tonight: pistachio, my favourite")
    canned.enqueue({"facts": [{"entries": [2], "target": "user", "content": "The user likes pistachio ice cream."}]},
                   {"decision": "ADD", "id": None, "reason": "a new flavour"})
    report = digest.run(db, digest.ModelExtractor("canned"))
    decision_prompt = canned.prompts[1][1]
    assert "vanilla" in decision_prompt  # control: active neighbours are shown
    assert "anchovy" not in decision_prompt and report.decisions[0]["action"] == "ADD"


def test_an_admission_policy_plugin_keeps_facts_out_of_the_review_queue(db, alice):
    from scope_recall_engine.hookspecs import hookimpl
    from scope_recall_engine.plugins import load_plugins

    class NoHealthFacts:
        @hookimpl
        def admission_policy(self, content, target, scope_id):
            return "health data is not kept" if "allergic" in content.lower() else None

    manager = load_plugins()
    manager.register(NoHealthFacts(), name="no-health-facts")
    try:
        report = say(db, alice, "s1", "Please remember that I am allergic to penicillin", "I live in Ghent")
    finally:
        manager.unregister(name="no-health-facts")
    assert [d["action"] for d in report.decisions] == ["REFUSED", "ADD"]
    assert "health data is not kept" in report.decisions[0]["reason"]
    assert candidates(db) == ["The user lives in Ghent."]  # control: the other fact went through
