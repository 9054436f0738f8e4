"""A realistic demo store, built only through the engine's own functions: what the console shows is real.

Three users on three platforms; explicit memories; conversations journaled (and redacted) and turned into
candidates that cite their turns; a person's decisions: a promotion, a rejection (tombstoned), an edit, an archive
and a superseded fact, each with its audit trail; and a few recalls, so the ledger shows what reached the agent.
"""

from __future__ import annotations

import os
from collections import Counter

from scope_recall_engine.reading import recall
from scope_recall_engine.truth.principals import agent, human, system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect, write
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import journal, lifecycle

OPERATOR = human("admin")
DIGEST = system("digest")
ALICE = Identity(user="alice", platform="telegram", chat="family")
BOB = Identity(user="bob", platform="cli")
CAROL = Identity(user="carol", platform="discord", chat="standup", agent="planner")

REMEMBERED = [  # what users asked the agent to keep (agent_asserted) or an operator entered (human_reviewed)
    (ALICE, "user", "Alice lives in Lisbon", None),
    (ALICE, "user", "Alice is vegetarian", None),
    (ALICE, "project", "Alice's thesis is on coastal erosion in the Algarve", None),
    (ALICE, "user", "Alice works at Acme Robotics", None),
    (BOB, "project", "The billing service deploys from the release branch every Tuesday", None),
    (BOB, "ops", "Staging database host is staging-db-2", OPERATOR),
    (BOB, "memory", "Bob wants commit messages in the imperative mood", None),
    (CAROL, "user", "Carol prefers answers as short bullet points", None),
    (CAROL, "project", "The Q3 roadmap review is on the first Monday of the month", None),
]

CONVERSATIONS = [  # (identity, session, turns, fact found in them, target, replaces an active fact?)
    (ALICE, "tg-2024-05-02", [("user", "Big news: we moved! I live in Porto now, right by the river."),
                               ("assistant", "Congratulations on the move to Porto!")],
     "Alice lives in Porto", "user", "Alice lives in Lisbon"),
    (ALICE, "tg-2024-05-02", [("user", "Please remember that I'm allergic to peanuts.")],
     "Alice is allergic to peanuts", "user", None),
    (BOB, "cli-7f3a", [("user", "remember that the on-call rotation changes on Mondays"),
                       ("user", "and my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 for the CI")],
     "Bob's on-call rotation changes on Mondays", "ops", None),
    (CAROL, "standup-12", [("user", "Call me Caz, everyone does.")],
     "Carol likes to be called Caz", "user", None),
    (CAROL, "standup-12", [("user", "ugh I hate mornings, maybe I should just quit lol")],
     "Carol wants to quit her job", "user", None),
    (CAROL, "standup-13", [("user", "The design review moved to Thursdays at 10.")],
     "The design review is on Thursdays at 10", "project", None),
    (BOB, "cli-8c01", [("user", "We switched the staging database to staging-db-3 yesterday.")],
     "Staging database host is staging-db-3", "ops", "Staging database host is staging-db-2"),
]


QUESTIONS = [  # what the agent was asked since: the recall ledger shows what reached it, and what did not
    (ALICE, "where does Alice live?"), (ALICE, "any food allergies I should know about?"),
    (BOB, "which staging database host do we use?"), (BOB, "what is the weather like?"),
    (CAROL, "how should I format my answers?"),
]


def seed(path: str | os.PathLike) -> str:
    """Create a demo store at ``path``; returns a one-line summary of what it holds."""
    db = connect(path)
    try:
        ids = {content: lifecycle.store(db, who, target, content, by or agent(who.agent)).id
               for who, target, content, by in REMEMBERED}
        for who, session, turns, fact, target, replaces in CONVERSATIONS:
            ids[fact] = _candidate(db, who, session, turns, fact, target, ids.get(replaces))
        _decide(db, ids)
        for who, query in QUESTIONS:
            recall.packet(db, View(who.accessible()), query, surface="hermes", session_key=f"demo-{who.user}")
        counts = Counter(row["lifecycle"] for row in db["memories"].rows)
    finally:
        db.close()
    return ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))


def _candidate(db, who: Identity, session: str, turns, fact: str, target: str, replaces: int | None) -> int:
    """Journal the turns, then extract the fact as a candidate citing them: one transaction for the fact."""
    entry_ids = [appended.id for appended in journal.append_many(db, who, session, turns)
                 if appended.id is not None]
    with write(db):
        result = lifecycle.extract(db, who.scope_for(target), target, fact, DIGEST, origin="digest",
                                   reason=f"stated in session {session}", supersedes=replaces)
        for entry_id in entry_ids:
            journal.link(db, result.id, db["journal_entries"].get(entry_id), None)
        journal.mark_processed(db, entry_ids, None)  # as the digest would: nothing waits for it
    return result.id


def _decide(db, ids: dict[str, int]) -> None:
    """An operator's afternoon: some yeses, a no, an edit, an archive, and a fact that changed."""
    lifecycle.promote(db, ids["Alice is allergic to peanuts"], OPERATOR, reason="confirmed with Alice")
    lifecycle.promote(db, ids["Staging database host is staging-db-3"], OPERATOR)
    lifecycle.reject(db, ids["Carol wants to quit her job"], OPERATOR, reason="venting, not a durable fact")
    lifecycle.edit(db, ids["Bob wants commit messages in the imperative mood"], OPERATOR,
                   "Bob wants commit messages in the imperative mood, under 72 characters")
    lifecycle.archive(db, ids["The Q3 roadmap review is on the first Monday of the month"], OPERATOR,
                      reason="Q3 is over")
    lifecycle.supersede(db, ids["Alice works at Acme Robotics"], OPERATOR, "Alice works at Globex since June",
                        reason="Alice changed jobs")
    lifecycle.extract(db, BOB.shared_scope, "ops", "Bob's on-call rotation changes on Mondays", DIGEST,
                      origin="digest", reason="restated in session cli-9d2e")  # corroborates the candidate
