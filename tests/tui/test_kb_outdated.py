"""The knowledge-base screen says when documents were indexed by an older haiku-tui, and R re-indexes them
there: through the ingest worker, the search answering meanwhile, a quit in the middle losing nothing."""

from __future__ import annotations

import asyncio
import threading

from textual.widgets import Input, Static

import haiku_tui.store.ingest as ingest_module
from haiku_tui.store import KnowledgeBase
from haiku_tui.store.tables import INDEX_VERSION
from haiku_tui.tui.screens import KnowledgeScreen
from tests.kb_fixture import build_small_kb, make_old
from tests.tui.conftest import wait_for
from tests.tui.test_screens import Host, settle

SIZE = (160, 30)


def old_kb(tmp_path) -> str:
    """The four-document knowledge base in the layout an older haiku-tui wrote."""
    uri = tmp_path / "kb.lancedb"
    build_small_kb(uri).close()
    make_old(uri)
    return str(uri)


def status(app) -> str:
    return str(app.screen.query_one("#kb-status", Static).render())


def versions(uri: str) -> dict[str, tuple[int, int]]:
    """Each document's title: (index version, chunks), read afresh from disk."""
    with KnowledgeBase.open(uri) as kb:
        return {d.title: (d.index_version, d.chunks) for d in kb.documents()}


async def search(app, pilot, query: str) -> None:
    """Type ``query`` into the playground and press Enter (the answer arrives in ``screen.hits``)."""
    app.screen.hits = []
    app.screen.query_one("#kb-query", Input).value = query
    app.screen.query_one("#kb-query", Input).focus()
    await pilot.press("enter")


def assert_one_generation(hits) -> None:
    assert hits, "the search gave nothing"
    texts = [h.text for h in hits]
    assert len(texts) == len(set(texts)), "a chunk is listed twice: two indexings of a document are visible"


class HeldReindex:
    """Holds the re-index after its first file is written (``reached``) until ``release`` is set; every file is
    written as it is done (one chunk flushes), so the base is half re-indexed while held."""

    def __init__(self, monkeypatch) -> None:
        self.reached, self.release = threading.Event(), threading.Event()
        self.returned = threading.Event()
        monkeypatch.setattr(ingest_module, "FLUSH_CHUNKS", 1)
        add = KnowledgeBase.add

        def held_add(kb, paths, *, on_progress=None, **kwargs):
            def progress(p):
                on_progress(p)
                if p.files_done == 1 and p.path is not None:
                    self.reached.set()
                    self.release.wait(30)

            try:
                return add(kb, paths, on_progress=progress, **kwargs)
            finally:
                self.returned.set()

        monkeypatch.setattr(KnowledgeBase, "add", held_add)


async def test_the_status_line_counts_outdated_documents_and_names_the_key(tmp_path):
    uri = old_kb(tmp_path)
    app = Host(KnowledgeScreen(uri))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert "4 documents indexed by an older haiku-tui: press R to re-index them" in status(app)
    with KnowledgeBase.open(uri) as kb:
        kb.reindex()
    app = Host(KnowledgeScreen(uri))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert status(app).startswith("4 documents") and "older" not in status(app)


async def test_r_reindexes_the_old_documents_and_the_note_goes(tmp_path):
    uri = old_kb(tmp_path)
    before = versions(uri)
    assert {v for v, _ in before.values()} == {1}
    app = Host(KnowledgeScreen(uri))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        assert "press R" in status(app)
        await pilot.press("R")
        await settle(app, pilot)
        assert app.screen.ingesting is False
        assert "older" not in status(app) and status(app).startswith("4 documents")
        receipt = [n.message for n in app._notifications if n.title == "Re-index finished"]
        assert receipt == ["0 added, 4 replaced, 0 unchanged, 0 failed"]
        assert all(d.index_version == INDEX_VERSION for d in app.screen.documents)
        await search(app, pilot, "snow on solar panels in winter")
        await settle(app, pilot)
        assert_one_generation(app.screen.hits)
        assert app.screen.hits[0].label().startswith("Solar panels")
        # once everything is current, R says so and starts nothing
        app.screen.query_one("#kb-documents").focus()
        await pilot.press("R")
        await settle(app, pilot)
        assert list(app._notifications)[-1].message == "Nothing to re-index: every document is indexed by this version."
        assert app.screen.last_report is not None and app.screen.last_report.replaced  # the receipt stays
    after = versions(uri)
    assert after == {title: (INDEX_VERSION, chunks) for title, (_, chunks) in before.items()}


async def reindex_held(app, pilot, held) -> None:
    """Press R and wait until the held re-index has written its first file."""
    await settle(app, pilot)
    await pilot.press("R")
    await asyncio.to_thread(held.reached.wait, 30)


async def test_the_search_answers_while_a_reindex_is_half_done(tmp_path, monkeypatch):
    uri = old_kb(tmp_path)
    held = HeldReindex(monkeypatch)
    app = Host(KnowledgeScreen(uri))
    async with app.run_test(size=SIZE) as pilot:
        await reindex_held(app, pilot, held)
        assert app.screen.ingesting and "Re-index" in status(app)
        assert {v for v, _ in versions(uri).values()} == {1, INDEX_VERSION}  # half re-indexed on disk
        for query in ("snow on solar panels in winter", "feed the sourdough starter", "steep green tea"):
            await search(app, pilot, query)
            await wait_for(pilot, lambda: bool(app.screen.hits))
            assert_one_generation(app.screen.hits)
        held.release.set()
        await settle(app, pilot)
        assert "older" not in status(app)


async def test_quitting_during_a_reindex_loses_nothing(tmp_path, monkeypatch):
    """Quitting cancels the ingest worker (as for an add): the re-index stops after the file it is on; every
    document keeps its chunks, re-indexed or not, and the search answers from both."""
    uri = old_kb(tmp_path)
    before = versions(uri)
    held = HeldReindex(monkeypatch)
    app = Host(KnowledgeScreen(uri))
    async with app.run_test(size=SIZE) as pilot:
        await reindex_held(app, pilot, held)
        app.workers.cancel_group(app.screen, "kb-ingest")  # what quitting does to every worker
        held.release.set()
        await asyncio.to_thread(held.returned.wait, 30)
    after = versions(uri)
    assert {t: c for t, (_, c) in after.items()} == {t: c for t, (_, c) in before.items()}
    # the first file was done when the quit came, the second under way: it stopped after that one
    assert sorted(v for v, _ in after.values()) == [1, 1, INDEX_VERSION, INDEX_VERSION]
    with KnowledgeBase.open(uri) as kb:
        for query, title in (("snow on solar panels in winter", "Solar panels"), ("steep green tea", "Tea brewing")):
            hits = kb.search(query, limit=5)
            assert_one_generation(hits)
            assert hits[0].label().startswith(title)
        assert len(kb.outdated()) == 2


async def test_a_reindex_whose_file_is_gone_says_so_and_keeps_the_note(tmp_path):
    """A document whose file was deleted cannot be re-indexed: the receipt names it, it keeps its old chunks,
    and the note still counts it."""
    uri = old_kb(tmp_path)
    (tmp_path / "kb-docs" / "tea-brewing.md").unlink()
    app = Host(KnowledgeScreen(uri))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await pilot.press("R")
        await settle(app, pilot)
        notes = list(app._notifications)
        assert [n.message for n in notes if n.title == "Re-index finished"] == [
            "0 added, 3 replaced, 0 unchanged, 1 failed"
        ]
        assert any(n.title == "Not ingested" and "tea-brewing.md" in n.message for n in notes)
        assert "1 document indexed by an older haiku-tui: press R to re-index them" in status(app)
    assert versions(uri)["Tea brewing"][0] == 1
