"""The app with a reranker: the status bar names it, and a reranker that fails is a notice while the answer comes."""

from __future__ import annotations

from haiku_tui.tui.main.status import StatusFacts, fit_status
from tests.rerank_server import serve_reranker
from tests.tui.conftest import ask, make_app
from tests.tui.test_status import FACTS


def line(width: int, **changes) -> str:
    return fit_status(StatusFacts(**{**FACTS.__dict__, **changes}), width).plain


def test_status_bar_names_the_reranker_and_it_gives_way_before_the_path():
    wide = line(200, reranker="127.0.0.1:8012")
    assert "│ rerank 127.0.0.1:8012 │ db " in wide
    narrow = line(78, reranker="127.0.0.1:8012")
    assert "rerank" not in narrow and narrow.endswith("demo.lancedb") and len(narrow) <= 78
    assert "rerank" not in line(200)


async def test_a_failing_reranker_is_a_notice_and_the_question_is_answered(small_kb):
    with serve_reranker(mode="fail") as server:
        app = make_app(small_kb, reranker=server.url)
        async with app.run_test(size=(140, 40), notifications=True) as pilot:
            await ask(pilot, "How often should I oil the bicycle chain?")
            turn = app.workbench.view.questions[-1]
            assert turn.answer and "300" in turn.answer
            notices = [n for n in app._notifications if n.title == "Reranker"]
            assert len(notices) == 1  # the run's searches all failed alike: one notice
            assert (
                notices[0].message == f"reranker {server.url}/rerank failed (HTTP 500); the search kept its own order"
            )
            assert "rerank 127.0.0.1:" in str(app.main.query_one("#status").render())
    small_kb.reranker = None  # the shared knowledge base goes back as it was
