"""The app with the models people run locally, against the loopback server: a server that refuses tools, a tool
call written as text and a model that never searches are answered grounded, search-first, said in one line and
remembered; F9 switches the path; the status bar shows it. Nothing of a failed first attempt is ever shown."""

from __future__ import annotations

import pytest

from haiku_tui.tui.main.status import StatusFacts, fit_status
from haiku_tui.tui.main.turn import QuestionTurn
from tests.model_server import ANNOUNCEMENT, IMITATION, NOWHERE_ANSWER
from tests.tui.conftest import SIZE, ask, settle
from tests.tui.test_status import FACTS

QUESTION = "How long should I steep green tea?"


def local_app(kb, server, **config):
    from haiku_tui.agent import AgentConfig
    from haiku_tui.tui.app import HaikuApp

    return HaikuApp(AgentConfig(model="qwen2.5:0.5b", base_url=server.base_url, db="small.lancedb", **config), kb=kb)


def status(app) -> str:
    return str(app.main.query_one("#status").render())


@pytest.fixture
def written(monkeypatch):
    """Every piece of answer text any turn was given to show, in order."""
    pieces: list[str] = []
    write = QuestionTurn.write

    async def recording(self, fragment: str) -> None:
        pieces.append(fragment)
        await write(self, fragment)

    monkeypatch.setattr(QuestionTurn, "write", recording)
    return pieces


@pytest.mark.parametrize("mode", ["refuse-ollama", "text-call", "text-json", "imitate", "announce", "no-tools"])
async def test_a_model_the_tools_path_cannot_ground_is_answered_grounded(model_server, small_kb, written, mode):
    model_server.mode = mode
    model_server.delay = 0.005  # streamed a piece at a time, as a real model does
    app = local_app(small_kb, model_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ask(pilot, QUESTION)
        turn = app.main.turn_log.turns[-1]
        assert turn.state == "grounded" and turn.number == 1
        shown = "".join(written)
        for never in ("<tool_call>", '"arguments"', IMITATION[:15], ANNOUNCEMENT[:20], NOWHERE_ANSWER[:20]):
            assert never not in shown
        assert 'The documents say: "Green tea should be brewed' in shown
        said = [n.message for n in app._notifications if n.title == "Asked again search-first"]
        assert len(said) == 1 and "asked again search-first" in said[0]
        remembered = mode != "no-tools"  # an answer that never searched is remembered the second time
        assert app.main.workbench.path_text().startswith("search-first (") is remembered
        assert ("│ search-first" in status(app)) is remembered and ("│ tools │" in status(app)) is not remembered
        assert [m for m in app.session.messages if "load_capability" in repr(m)] == []

        model_server.requests.clear()
        await ask(pilot, "How much water does a sourdough starter need?")
        assert app.main.turn_log.turns[-1].number == 2
        assert bool(model_server.requests[0].body.get("tools")) is not remembered


async def test_a_stray_marker_on_a_grounded_answer_is_named_in_its_badge(model_server, small_kb):
    """The answer is grounded by its first marker; the second marks a sentence its passage does not hold, and the
    badge says so after the grounding."""
    model_server.mode = "stray"
    app = local_app(small_kb, model_server, search_first=True)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, QUESTION)
        turn = app.main.turn_log.turns[-1]
        assert turn.state == "grounded"
        assert "[2] backs none of the answer's sentences · cites [1]" in str(turn.query_one(".turn-footer").render())


async def test_f9_switches_to_search_first_and_back_to_tools(model_server, small_kb):
    app = local_app(small_kb, model_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert "│ tools │" in status(app)
        await pilot.press("f9")
        await settle(pilot)
        assert "│ search-first │" in status(app)
        await ask(pilot, QUESTION)
        assert app.main.turn_log.turns[-1].state == "grounded"
        assert not model_server.requests[0].body.get("tools")
        await pilot.press("f9")
        await settle(pilot)
        assert "│ tools │" in status(app)
        await ask(pilot, QUESTION)
        assert model_server.requests[-1].body.get("tools")


async def test_f9_forgets_a_remembered_path(model_server, small_kb):
    model_server.mode = "refuse-vllm"
    app = local_app(small_kb, model_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ask(pilot, QUESTION)
        assert app.main.workbench.path_text() == "search-first (the server refuses tools; remembered)"
        assert "│ search-first" in status(app)
        await pilot.press("f9")  # the user restarted vLLM with --enable-auto-tool-choice
        await settle(pilot)
        assert "│ tools │" in status(app)
    again = local_app(small_kb, model_server)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "│ tools │" in status(again)


async def test_the_extractive_model_shows_no_path(small_kb):
    from tests.tui.conftest import make_app

    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "tools" not in status(app) and "search-first" not in status(app)


def test_the_path_gives_way_to_its_short_form_then_goes():
    path = "search-first (the server refuses tools; remembered)"
    wide = fit_status(StatusFacts(**{**FACTS.__dict__, "path": path}), 200).plain
    assert wide.startswith(f"extractive (retrieval-only) │ {path} │ ")
    narrow = fit_status(StatusFacts(**{**FACTS.__dict__, "path": path}), 100).plain
    assert "│ search-first │" in narrow and len(narrow) <= 100
    for width in range(64, 201):
        assert len(fit_status(StatusFacts(**{**FACTS.__dict__, "path": path}), width).plain) <= width


async def test_f8_sends_the_model_name_to_the_server_as_typed(model_server, small_kb):
    from textual.widgets import Input

    from tests.tui.conftest import make_app

    name = "hf.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M"
    app = make_app(small_kb)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("f8")
        await settle(pilot)
        app.screen.query_one("#dialog-input", Input).value = f"{name} {model_server.base_url}"
        await pilot.press("enter")
        await settle(pilot)
        await ask(pilot, QUESTION)
        assert app.main.turn_log.turns[-1].state == "grounded"
    assert {r.body["model"] for r in model_server.requests} == {name}


async def test_a_session_that_outgrows_the_context_goes_on_with_fewer_questions(model_server, small_kb):
    """The request that does not fit is asked again with about a quarter of the earlier questions: a notice row in the
    turn, one notification, and a grounded answer."""
    import json

    app = local_app(small_kb, model_server)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        for question in (QUESTION, "How much water does a sourdough starter need?", "Can I steep green tea twice?"):
            await ask(pilot, question)
        model_server.context = max(len(json.dumps(r.body["messages"])) // 4 for r in model_server.requests) + 10
        await ask(pilot, "How long should I steep black tea?")
        turn = app.main.turn_log.turns[-1]
        assert turn.state == "grounded" and turn.number == 4
        said = [n.message for n in app._notifications if n.title == "The model's context is full"]
        assert len(said) == 1 and "asked again with the last 1 of the 3 earlier questions" in said[0]
        notices = [row.text for row in turn.rows if row.kind == "notice"]
        assert notices == [said[0] + "."] and turn.rows[1].kind != "notice"  # then the question's own steps
