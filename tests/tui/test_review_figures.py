"""The knowledge-base screen's reviewed-citation figures: shown from the last run, rerun on one key in a worker."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai import Conversation
from textual.app import App

from haiku_tui.sessions import Session, SessionStore
from haiku_tui.tui.screens import KnowledgeScreen
from haiku_tui.tui.screens.review_figures import ReviewFigures
from tests.kb_fixture import build_small_kb
from tests.tui.conftest import f1_help


class Host(App):
    def __init__(self, screen) -> None:
        super().__init__()
        self.screen_under_test = screen

    def on_mount(self) -> None:
        self.push_screen(self.screen_under_test)


def reviewed(store: SessionStore, kb_path: str, question: str, hit, mark: str = "supports") -> None:
    """A session on ``kb_path`` whose question 0 cited ``hit``, the citation marked ``mark``."""
    entry = {"index": 1, "chunk_id": hit.chunk_id, "document_id": hit.document_id, "title": hit.title, "path": hit.path,
             "headings": list(hit.headings), "pages": [], "text": hit.text, "capability": "rag"}
    state = {
        "rag": {
            "citation_index": {hit.chunk_id: entry},
            "document_filter": None,
            "question": 0,
            "in_progress": False,
            "questions": [
                {
                    "question": 0,
                    "prompt": question,
                    "searches": [],
                    "evidence_epoch": 1,
                    "declaration": {"epoch": 2, "chunk_ids": [hit.chunk_id]},
                    "requests": 2,
                }
            ],
        }
    }
    session = Session(id=f"s-{abs(hash(question)) % 10**8}", conversation=Conversation(messages=[]), state=state,
                      title=question, model="extractive", db=kb_path)
    session.set_review(0, hit.chunk_id, mark)
    store.write_payload(session.to_payload(), expected_revision=0, touch=True)


def figures_line(app: App) -> str:
    return str(app.screen.query_one(ReviewFigures).render())


async def settle(app: App, pilot) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_e_reruns_the_reviewed_citations_and_the_figures_stay(tmp_path):
    kb_path = str((tmp_path / "kb.lancedb").resolve())
    kb = build_small_kb(kb_path)
    store = SessionStore(tmp_path / "sessions.db")
    tea = kb.search("green tea temperature", limit=1)[0]
    chain = kb.search("oil the bicycle chain", limit=1)[0]
    reviewed(store, kb_path, "What temperature for green tea?", tea)
    reviewed(store, kb_path, "Which bread flour has the most protein?", chain)  # marked supported, but not its source
    reviewed(store, kb_path, "How often should the chain be oiled?", chain, mark="does_not_support")
    kb.close()

    app = Host(KnowledgeScreen(kb_path, store=store))
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(app, pilot)
        assert figures_line(app) == "Reviewed citations: not measured yet — e measures them"
        await f1_help(pilot, "Rerun the questions whose citations you marked as supported")
        await pilot.press("e")
        await settle(app, pilot)
        line = figures_line(app)
        assert line.startswith("Reviewed citations: 2 · recall@5 0.500 · MRR@10 0.500 · "
                               "1 no longer find their source in the top 5 · "), line
        assert line.endswith("— e reruns")
        assert any("2 reviewed citation(s) measured" in (n.title or "") for n in app._notifications)

    again = Host(KnowledgeScreen(kb_path, store=store))  # the next visit shows the kept figures without a rerun
    async with again.run_test(size=(120, 30)) as pilot:
        await settle(again, pilot)
        assert figures_line(again) == line
    store.close()


async def test_e_without_reviews_says_how_to_make_them(tmp_path):
    kb_path = str((tmp_path / "kb.lancedb").resolve())
    build_small_kb(kb_path).close()
    store = SessionStore(tmp_path / "sessions.db")
    app = Host(KnowledgeScreen(kb_path, store=store))
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        assert figures_line(app).startswith("Reviewed citations: not measured yet")
        assert any(
            "No citation on this knowledge base is marked as supported yet" in n.message for n in app._notifications
        )
        assert Path(tmp_path / "review-evaluations.json").exists() is False
    store.close()


async def test_an_unreadable_sessions_store_costs_the_figures_line_only(tmp_path):
    from haiku_tui import locations

    kb_path = str((tmp_path / "kb.lancedb").resolve())
    build_small_kb(kb_path).close()
    locations.sessions_db_path().write_bytes(b"not a database " * 100)
    app = Host(KnowledgeScreen(kb_path))  # no store given: the figures open the default one
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await settle(app, pilot)
        assert figures_line(app).startswith("Reviewed citations: ")
        assert "is not a usable sessions database" in figures_line(app)
        await pilot.press("e")
        await settle(app, pilot)
        assert figures_line(app) == "Reviewed citations: not measured yet — e measures them"
        errors = [n.message for n in app._notifications if n.severity == "error"]
        assert len(errors) == 1 and errors[0].startswith("Cannot measure the reviewed citations: ")
        assert "is not a usable sessions database" in errors[0]
        assert "documents" in str(app.screen.query_one("#kb-status").render())  # the screen stays usable
