"""The entity index: what the rules find, that it follows every write in the same transaction, that doctor finds
drift and --repair mends it, that a plugin can add an extractor, and that reads obey the visibility predicate."""

import json

import pytest
from click.testing import CliRunner
from console_kit import console_for, logged_in

from scope_recall_engine import doctor
from scope_recall_engine.cli.main import cli
from scope_recall_engine.errors import InvalidInput, Tombstoned
from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.plugins import load_plugins
from scope_recall_engine.reading import entities as read
from scope_recall_engine.truth import entities
from scope_recall_engine.truth.entity_rules import rules
from scope_recall_engine.truth.principals import human, system
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle, transfer

ME = human("tester")


@pytest.mark.parametrize("text, expected", [
    ("My sister Ana lives in Porto", {("Ana", "person"), ("Porto", "place")}),
    ("our dog Rex hates the vet", {("Rex", "pet")}),
    ("Bob works at Acme Corp with @jsmith", {("Bob", "other"), ("Acme Corp", "organisation"),
                                              ("@jsmith", "person")}),
    ("The routing service is written in Python", {("Python", "tool")}),
    ("I use Docker for the Atlas project", {("Docker", "tool"), ("Atlas", "project")}),
    ("Alice plays the cello", {("Alice", "other")}),
    ("Please remember that the user likes tea. Thanks!", set()),  # common words, even capitalised, are no names
    ("write to bob@example.com on Monday", set()),  # an e-mail address is no handle, a weekday no name
])
def test_rules_find_names_with_their_kind(text, expected):
    assert {(name, kind) for name, kind, _ in entities.extract(text)} == expected


def test_rules_alone_list_each_context_in_which_a_name_appears():
    assert ("Ana", "person") in rules("my sister Ana") and ("Ana", "other") in rules("my sister Ana")


def entity_check(db):
    return next(check for check in doctor.run(db) if check.name == "entity_index")


def links(db) -> set[tuple]:
    return set(db.execute("select l.memory_id, e.key, l.kind from memory_entities l "
                          "join entities e on e.id = l.entity_id").fetchall())


def test_index_follows_store_edit_supersede_import_and_purge_in_the_same_transaction(db, alice):
    first = lifecycle.store(db, alice, "user", "My sister Ana lives in Porto", ME).id
    assert links(db) == {(first, "ana", "person"), (first, "porto", "place")}
    lifecycle.edit(db, first, ME, "My sister Ana lives in Lisbon")
    assert links(db) == {(first, "ana", "person"), (first, "lisbon", "place")}
    assert db.execute("select key from entities order by key").fetchall() == [("ana",), ("lisbon",)]  # Porto gone
    newer = lifecycle.supersede(db, first, ME, "My sister Ana lives in Braga")
    imported = transfer.import_records(db, alice, [{"line": 1, "content": "our cat Miso sleeps a lot",
                                                    "target": "user"}])["ids"][0]
    assert (newer["id"], "braga", "place") in links(db) and (imported, "miso", "pet") in links(db)
    lifecycle.reject(db, imported, ME, reason="not ours")
    with pytest.raises(Tombstoned):  # a refused write leaves no link behind
        lifecycle.store(db, alice, "user", "our cat Miso sleeps a lot", ME)
    assert [row for row in links(db) if row[1] == "miso"] == [(imported, "miso", "pet")]
    for memory_id in (first, newer["id"]):
        lifecycle.purge(db, memory_id, ME, reason="erase")
    assert {row[0] for row in links(db)} == {imported}
    assert not db.execute("select 1 from entities where key in ('ana', 'braga', 'lisbon')").fetchall()
    assert entity_check(db).ok


def test_doctor_reports_drift_and_repair_rebuilds_it(db, alice):
    kept = lifecycle.store(db, alice, "user", "Ana works at Acme", ME).id
    assert entity_check(db).ok and "2 links to 2 entities" in entity_check(db).detail
    db.execute("delete from memory_entities where memory_id = ?", [kept])
    db.execute("insert into entities (key) values ('ghost')")
    db.conn.commit()
    check = entity_check(db)
    assert not check.ok and "2 links missing" in check.detail and "3 entities nothing links to" in check.detail
    assert check.repair == "scope-recall doctor --repair"
    assert "entities" in doctor.repair(db)
    assert entity_check(db).ok and links(db) == {(kept, "ana", "other"), (kept, "acme", "organisation")}


class BetterExtractor:
    @hookimpl
    def extract_entities(self, text):
        return [("Project Zephyr", "project")] if "zephyr" in text.lower() else []


def test_a_plugin_adds_an_extractor_and_the_rules_still_count(db, alice):
    plugins = load_plugins()
    plugins.register(BetterExtractor(), name="better-extractor")
    try:
        memory = lifecycle.store(db, alice, "project", "the zephyr launch moved, ask Ana", ME).id
    finally:
        plugins.unregister(name="better-extractor")
    assert links(db) == {(memory, "project zephyr", "project"), (memory, "ana", "other")}
    assert not entity_check(db).ok  # without the plugin the index no longer matches: doctor says so


def test_reads_show_only_active_rows_of_the_view(db, alice, bob):
    view = View(alice.accessible())
    active = lifecycle.store(db, alice, "user", "My sister Ana lives in Porto", ME).id
    archived = lifecycle.store(db, alice, "user", "Ana used to live in Faro", ME).id
    lifecycle.archive(db, archived, ME)
    lifecycle.extract(db, alice.shared_scope, "user", "Ana moved to Braga", system("digest"), origin="digest")
    lifecycle.store(db, bob, "user", "Bob's friend Ana lives in Oslo", ME)
    probed = read.probe(db, view, "ANA")
    assert [m["id"] for m in probed["memories"]] == [active] and probed["total"] == 1  # positive control
    assert read.related(db, view, "ana")["related"] == [{"entity": "Porto", "kind": "place", "memories": 1}]
    names = {entry["entity"] for entry in read.listing(db, view)}
    assert names == {"Ana", "Porto"}  # not Faro (archived), Braga (candidate) or Oslo (bob's)
    assert read.probe(db, View(bob.accessible()), "Porto")["memories"] == []
    with pytest.raises(InvalidInput):
        read.probe(db, view, " @ ")


def test_cli_entities_list_probe_related(db_path, alice):
    runner = CliRunner()
    base = ["--db", str(db_path)]
    for text in ("My sister Ana lives in Porto", "Ana works at Acme in Porto"):
        assert runner.invoke(cli, [*base, "store", "--user", "alice", "--target", "user", text]).exit_code == 0
    listed = runner.invoke(cli, [*base, "entities", "list", "--user", "alice", "--json"])
    assert json.loads(listed.output)[:2] == [{"entity": "Ana", "kind": "person", "memories": 2},
                                             {"entity": "Porto", "kind": "place", "memories": 2}]
    probed = runner.invoke(cli, [*base, "entities", "probe", "--user", "alice", "porto"])
    assert probed.exit_code == 0 and probed.output.splitlines() == [
        "[2] user: Ana works at Acme in Porto", "[1] user: My sister Ana lives in Porto"]
    related = runner.invoke(cli, [*base, "entities", "related", "--user", "alice", "Acme"])
    assert related.output.splitlines() == ["Ana (person): 1 memories", "Porto (place): 1 memories"]
    assert runner.invoke(cli, [*base, "entities", "probe", "--user", "bob", "porto"]).output == \
        "no memory mentions porto\n"
    bad = runner.invoke(cli, [*base, "entities", "probe", "--user", "alice", "!!"])
    assert bad.exit_code == 1 and bad.output.count("\n") == 1 and "Traceback" not in bad.output


@pytest.mark.asyncio
async def test_console_facets_memories_by_entity(db, db_path, alice):
    lifecycle.store(db, alice, "user", "My sister Ana lives in Porto", ME)
    lifecycle.store(db, alice, "user", "Ana works at Acme", ME)
    db.conn.commit()
    datasette = await console_for(db_path)
    try:
        browser = await logged_in(datasette, "viewer")
        page = await browser.get("/memory/entity_mentions?_facet=entity&entity=Ana")
        assert page.status_code == 200
        assert "My sister Ana lives in Porto" in page.text and "Ana works at Acme" in page.text
        assert "Entities" in (await browser.get("/")).text  # the menu links the facet page
        anonymous = await datasette.client.get("/memory/entity_mentions")
        assert anonymous.status_code in (302, 403) and "Porto" not in anonymous.text
    finally:
        datasette.get_database("memory").close()
