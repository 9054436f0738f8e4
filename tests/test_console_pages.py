"""The pages an operator works in all day: the dashboard, readable tables, the queue's paging, history diffs."""

import html
import re

import pytest
import pytest_asyncio
from console_kit import console_for, logged_in

from datasette_plugins.demo import seed
from scope_recall_engine import overview
from scope_recall_engine.truth.principals import human, system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect
from scope_recall_engine.writing import lifecycle, review_queue

ALICE = Identity(user="alice", platform="telegram", chat="family")
OP = human("admin")


@pytest_asyncio.fixture
async def demo(tmp_path):
    """A console on the demo store: every kind of row an operator meets."""
    path = tmp_path / "demo.sqlite3"
    seed(path)
    datasette = await console_for(path)
    yield datasette
    datasette.get_database("memory").close()


@pytest_asyncio.fixture
async def ds(db_path, db):
    datasette = await console_for(db_path)
    yield datasette
    datasette.get_database("memory").close()


def candidates(db, n: int) -> list[int]:
    ids = [lifecycle.extract(db, ALICE.shared_scope, "user", f"Alice owns record number {i}", system("digest"),
                             origin="digest").id for i in range(n)]
    db.conn.commit()
    return ids


@pytest.mark.asyncio
async def test_the_dashboard_shows_what_waits_what_was_decided_and_what_keeps_up(demo):
    viewer = await logged_in(demo, "viewer")
    page = await viewer.get("/")
    assert page.status_code == 200
    text = page.text
    waiting = text[text.index('id="waiting"'):text.index('id="decisions"')]
    assert '<p class="big attention">4</p>' in waiting and "Alice lives in Porto" in waiting
    assert 'href="/-/scope-recall/review"' in waiting  # the queue is one click from the landing page
    decisions = text[text.index('id="decisions"'):text.index('id="memories"')]
    assert decisions.count("<rect") >= 2 and "promoted 2" in decisions and "rejected 1" in decisions
    memories = text[text.index('id="memories"'):text.index('id="recall"')]
    assert '<p class="big">17</p>' in memories
    assert 'href="/memory/memories?lifecycle=candidate">candidate</a> 4' in memories
    recall = text[text.index('id="recall"'):text.index('id="digest"')]
    ledger = overview.overview(connect(demo.get_database("memory").path))  # what the demo's recalls wrote
    active = ledger.recalled + ledger.never_recalled
    assert re.search(rf'<p class="big">{ledger.recalled} <span class="meta">of {active} active', recall)
    misses = sum(day["misses"] for day in ledger.recalls)
    found = sum(day["recalls"] for day in ledger.recalls) - misses
    assert f"recalls that found something {found}" in recall and f"that found nothing {misses}" in recall
    assert active == 9 and ledger.recalled >= 1 and found >= 1 and misses >= 1  # the demo shows both kinds
    assert '<p class="big ok">0</p>' in text[text.index('id="digest"'):text.index('id="vectors"')]
    queued = connect(demo.get_database("memory").path)["vector_outbox"].count  # what the demo's recalls left
    assert f"{queued} memories queued for indexing" in text[text.index('id="vectors"'):]


@pytest.mark.asyncio
async def test_the_memories_table_reads_content_first_with_internals_one_click_away(demo):
    viewer = await logged_in(demo, "viewer")
    page = (await viewer.get("/memory/memories")).text
    headers = re.findall(r'<th [^>]*data-column="(\w+)"', page)
    assert headers[:2] == ["id", "content"] and "content_hash" not in headers and "scope_key" not in headers
    more = html.unescape(re.search(r'href="([^"]+)">Show all columns', page).group(1))
    everything = (await viewer.get(more)).text
    all_headers = re.findall(r'<th [^>]*data-column="(\w+)"', everything)
    assert all_headers[:2] == ["id", "content"] and {"content_hash", "scope_key", "generation"} <= set(all_headers)
    assert "🔒" not in page  # Debian's Chromium draws the padlock emoji as a missing-glyph box


@pytest.mark.asyncio
async def test_search_finds_memories_by_their_words(demo):
    viewer = await logged_in(demo, "viewer")
    found = (await viewer.get("/memory/memories.json?_search=allergic&_shape=array")).json()
    assert [row["content"] for row in found] == ["Alice is allergic to peanuts"]
    everything = (await viewer.get("/memory/memories.json?_shape=array&_size=100")).json()
    assert len(everything) == 17  # control: without a search, all rows
    assert 'id="_search"' in (await viewer.get("/memory/memories")).text


@pytest.mark.asyncio
async def test_times_show_to_the_minute_with_utc_on_hover(demo, tmp_path):
    viewer = await logged_in(demo, "viewer")
    page = (await viewer.get("/memory/audit_events")).text
    stamp = re.search(r'<time datetime="([^"]+)" title="([^"]+) UTC">([^<]+) UTC</time>', page)
    assert stamp, page[:2000]
    assert stamp.group(1).endswith("+00:00") and len(stamp.group(3)) == 16  # "2026-05-02 14:03", no microseconds
    assert (await viewer.get("/-/scope-recall/static/console.js")).text.count("toLocaleString") == 1


@pytest.mark.asyncio
async def test_audit_rows_link_to_their_memory_and_its_history(demo):
    viewer = await logged_in(demo, "viewer")
    page = (await viewer.get("/memory/audit_events?action=reject")).text
    [(row, memory_id, history)] = re.findall(
        r'<a href="(/memory/memories/(\d+))">#\d+</a> <a class="history-link" href="([^"]+)">history</a>', page)
    assert history == f"/-/scope-recall/memories/{memory_id}/history"
    assert (await viewer.get(history)).status_code == 200 and (await viewer.get(row)).status_code == 200


@pytest.mark.asyncio
async def test_tombstones_show_the_operator_s_reason_for_rejects_and_purges(ds, db):
    rejected = lifecycle.extract(db, ALICE.shared_scope, "user", "Alice hates cats", system("digest"),
                                 origin="digest").id
    purged = lifecycle.store(db, ALICE, "user", "Alice is vegetarian", OP).id
    db.conn.commit()
    admin = await logged_in(ds, "admin")
    await admin.post(f"/-/scope-recall/memories/{rejected}/reject", {"reason": "she loves cats", "confirm": "yes"})
    await admin.post(f"/-/scope-recall/memories/{purged}/purge", {"reason": "asked to forget", "confirm": "yes"})
    page = (await admin.get("/memory/tombstones")).text
    headers = re.findall(r'<th [^>]*data-column="(\w+)"', page)
    assert headers.index("note") < headers.index("principal") and "content_hash" not in headers
    assert "she loves cats" in page and "asked to forget" in page
    row_page = (await admin.get(f"/memory/memories/{rejected}")).text
    assert re.search(r'class="decision">Rejected by human:admin\s.*?: she loves cats', row_page, re.S)


@pytest.mark.asyncio
async def test_a_candidate_s_page_shows_evidence_and_what_it_would_replace(demo):
    admin = await logged_in(demo, "admin")
    porto = (await admin.get("/memory/memories.json?content=Alice+lives+in+Porto&_shape=array")).json()[0]
    page = (await admin.get(f"/memory/memories/{porto['id']}")).text
    panel = page[page.index('id="scope-recall-actions"'):page.index("</section>")]
    assert f'would replace\n       <a href="/memory/memories/{porto["supersedes"]}">' in panel
    assert "Big news: we moved! I live in Porto now" in panel and "Nearest active memories" in panel


@pytest.mark.asyncio
async def test_history_shows_a_word_diff_per_edit_and_links_the_successor(ds, db):
    memory = lifecycle.store(db, ALICE, "user", "Alice wants commit messages in the imperative mood", OP).id
    db.conn.commit()
    admin = await logged_in(ds, "admin")
    await admin.post(f"/-/scope-recall/memories/{memory}/edit",
                     {"content": "Alice wants commit messages in the imperative mood, under 72 characters"})
    done = await admin.post(f"/-/scope-recall/memories/{memory}/supersede", {"content": "Alice wants short commits"})
    successor = int(done.headers["location"].rsplit("/", 1)[1])
    page = (await admin.get(f"/-/scope-recall/memories/{memory}/history")).text
    assert "<ins>, under 72 characters</ins>" in page and "<del>" not in page  # the words that changed, only
    assert "text changed, still active" in page and "active → active" not in page
    assert f'class="successor">#{successor}</a>' in page
    assert page.count(f'href="/memory/memories/{successor}"') >= 2  # from the header and the supersede event
    first = (await admin.get(f"/-/scope-recall/memories/{successor}/history")).text
    assert f"Replaces <a href=\"/memory/memories/{memory}\">" in first and "<ins>" not in first


@pytest.mark.asyncio
async def test_the_queue_pages_oldest_first_with_previous_next_and_numbers(ds, db):
    size = review_queue.PAGE_SIZE
    waiting = candidates(db, 2 * size + 3)
    viewer = await logged_in(ds, "viewer")
    shown = lambda page: [int(i) for i in re.findall(r'id="candidate-(\d+)"', page)]
    link = lambda page, cls: html.unescape(re.search(rf'href="([^"]+)" class="{cls}"', page).group(1))
    first = (await viewer.get("/-/scope-recall/review")).text
    assert shown(first) == waiting[:size] and f"Candidates 1–{size} of {len(waiting)}." in first
    assert "scope-recall-previous" not in first and re.search(r"Page <strong>1</strong> <a [^>]*>2</a> <a", first)
    second = (await viewer.get(link(first, "scope-recall-next"))).text
    assert shown(second) == waiting[size:2 * size] and "<strong>2</strong>" in second
    third_url = html.unescape(re.search(r'<a href="([^"]+)">3</a>', second).group(1))
    third = (await viewer.get(third_url)).text
    assert shown(third) == waiting[2 * size:] and "scope-recall-next" not in third
    back = (await viewer.get(link(third, "scope-recall-previous"))).text
    assert shown(back) == waiting[size:2 * size]
    for memory_id in waiting[:size]:  # the operator decides the whole first page: nobody unseen is skipped
        lifecycle.promote(db, memory_id, OP)
    assert shown((await viewer.get(link(first, "scope-recall-next"))).text) == waiting[size:2 * size]


@pytest.mark.asyncio
async def test_the_queue_offers_select_all_and_documents_its_keys(ds, db):
    candidates(db, 3)
    admin = (await (await logged_in(ds, "admin")).get("/-/scope-recall/review")).text
    assert 'data-select-all="batch"' in admin and admin.count('name="ids"') == 3
    assert re.search(r"<kbd>j</kbd>/<kbd>k</kbd>.*<kbd>p</kbd> promote.*<kbd>r</kbd> reject", admin, re.S)
    assert admin.count('data-action="reject"') == 3 and "Reject…" in admin  # reject asks first
    viewer = (await (await logged_in(ds, "viewer")).get("/-/scope-recall/review")).text
    assert "data-select-all" not in viewer and "<kbd>" not in viewer  # nothing to decide, nothing to explain


@pytest.mark.asyncio
async def test_an_already_purged_memory_offers_no_purge(ds, db):
    memory = lifecycle.store(db, ALICE, "user", "Alice is vegetarian", OP).id
    other = lifecycle.store(db, ALICE, "user", "Alice is tall", OP).id
    lifecycle.purge(db, memory, OP)
    admin = await logged_in(ds, "admin")
    page = await admin.get(f"/-/scope-recall/memories/{memory}/purge")
    assert page.status_code == 409 and "nothing to purge" in page.text and 'name="confirm"' not in page.text
    row = (await admin.get(f"/memory/memories/{memory}")).text
    assert 'data-action="purge"' not in row and "(content purged)" in row
    live = await admin.get(f"/-/scope-recall/memories/{other}/purge")  # control: a live memory can be purged
    assert live.status_code == 200 and 'name="confirm" value="yes"' in live.text
