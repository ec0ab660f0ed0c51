"""Faults the app must survive: quitting mid-answer, malformed saved data."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from pathlib import Path

from tests.tui.conftest import SIZE, ask, make_app, settle, stalling_model, wait_for

import haiku_tui
from haiku_tui.cli import build_parser
from haiku_tui.sessions import SessionStore


async def test_ctrl_q_while_an_answer_is_running_exits_cleanly(small_kb, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    app = make_app(small_kb, model=stalling_model(), store=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.prompt.text = "a question that stalls"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.turn_log.turns[-1].has_answer)
        started = time.monotonic()
        await pilot.press("ctrl+q")
        await asyncio.sleep(0.2)
    assert time.monotonic() - started < 5
    assert app.return_code in (0, None)
    (summary,) = store.list()  # the new session is kept for its question, the cancelled answer is not
    saved = store.load(summary.id)
    assert saved.messages == [] and saved.state == {} and saved.draft == "a question that stalls"


async def test_a_question_quit_mid_answer_is_back_in_the_box_when_the_session_is_reopened(small_kb, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    app = make_app(small_kb, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        session_id, messages = app.session.id, len(app.session.messages)
        app.workbench.model_override = stalling_model()
        app.workbench.build_agent()
        app.main.prompt.text = "a question that stalls"
        await pilot.press("enter", "ctrl+q")  # at once: the run has not started streaming
    saved = store.load(session_id)
    assert len(saved.messages) == messages and saved.draft == "a question that stalls"

    app = make_app(small_kb, store=store, session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(app.main.turn_log.turns) == 1  # the stalled question was never committed
        assert app.main.prompt.text == "a question that stalls"
        await pilot.press("enter")  # the extractive model answers it: the draft is gone with the commit
        await settle(pilot)
        assert len(app.main.turn_log.turns) == 2 and app.main.prompt.text == ""
        await pilot.press("ctrl+q")
    saved = store.load(session_id)
    assert saved.draft == "" and len(saved.messages) > messages


async def test_a_session_with_malformed_review_marks_opens_with_a_notice(small_kb, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    app = make_app(small_kb, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        session = app.session
    session.app_data["reviews"] = {"0": "zz"}
    store.save(session)
    again = make_app(small_kb, store=store, session_id=session.id)
    async with again.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert again.session.id == session.id
        assert len(again.main.turn_log.turns) == 1 and again.main.turn_log.turns[0].state == "grounded"
        assert any("malformed review mark" in n.message for n in again._notifications)


async def test_quitting_during_an_ingest_stops_it(tmp_path, monkeypatch):
    """Quitting cancels the ingest worker; the ingest stops at the next file instead of running to the end."""
    from tests.tui.test_screens import Host, write_docs

    from haiku_tui.store import KnowledgeBase
    from haiku_tui.tui.screens.knowledge import KnowledgeScreen

    monkeypatch.chdir(tmp_path)
    returned = threading.Event()
    add = KnowledgeBase.add

    def add_and_tell(self, *args, **kwargs):
        try:
            return add(self, *args, **kwargs)
        finally:
            returned.set()

    monkeypatch.setattr(KnowledgeBase, "add", add_and_tell)
    body = "Some text about this item. " * 200
    write_docs(tmp_path / "docs", {f"doc{i:03}.md": f"# Doc {i}\n\n{body}\n" for i in range(400)})
    app = Host(KnowledgeScreen(str(tmp_path / "kb.lancedb")))
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        screen = app.screen
        screen.start_ingest(tmp_path / "docs")
        label = screen.query_one("#kb-progress-label")
        await wait_for(pilot, lambda: str(label.render())[:1] not in ("0", "I"), 60)  # a file is done
        app.workers.cancel_group(screen, "kb-ingest")  # what quitting does to every worker
        started = time.monotonic()
        await asyncio.to_thread(returned.wait, 60)
        stopped_after = time.monotonic() - started
    kb = KnowledgeBase.open(str(tmp_path / "kb.lancedb"))
    ingested = len(kb.documents())
    kb.close()
    assert ingested < 400, "the ingest ran to the end after its worker was cancelled"
    assert stopped_after < 5


class HeldStart:
    """Holds the app's start-up thread: opening the session until ``draw`` is set, building the agent until
    ``build`` is; ``building`` tells that the session is drawn (the thread draws it before it builds)."""

    def __init__(self, monkeypatch) -> None:
        from haiku_tui.sessions.workbench import Workbench

        self.draw, self.build, self.building = threading.Event(), threading.Event(), threading.Event()
        start, build = Workbench.start, Workbench.build_agent

        def held_start(bench, *args, **kwargs):
            self.draw.wait(30)
            return start(bench, *args, **kwargs)

        def held_build(bench):
            self.building.set()
            self.build.wait(30)
            return build(bench)

        monkeypatch.setattr(Workbench, "start", held_start)
        monkeypatch.setattr(Workbench, "build_agent", held_build)

    async def session_drawn(self, pilot) -> None:
        self.draw.set()
        await asyncio.to_thread(self.building.wait, 30)
        await pilot.pause()


def waiting_turn(app):
    """The one turn waiting for the agent, checked to say so."""
    turns = app.main.turn_log.turns
    assert not app.main.ready and app.main.running and turns[-1].state == "running"
    assert "waiting for the knowledge base" in turns[-1].query_one(".turn-footer").render().plain
    return turns[-1]


async def saved_session(small_kb, store: SessionStore) -> str:
    """A saved session with one answered question (the solar one); its id."""
    first = make_app(small_kb, store=store)
    async with first.run_test(size=SIZE) as pilot:
        await ask(pilot, "how do solar panels work in winter")
    return first.session.id


async def ask_while_held(app, pilot, question: str = "what is a heat pump") -> None:
    """Send ``question`` while the held start has not built the agent (or drawn the session) yet."""
    await pilot.pause()
    app.main.prompt.text = question
    await pilot.press("enter")
    await pilot.pause()


@contextlib.asynccontextmanager
async def waiting_question(small_kb, monkeypatch):
    """A new session drawn, the agent held, the solar question sent and waiting for it: ``(app, pilot, held)``."""
    held = HeldStart(monkeypatch)
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await held.session_drawn(pilot)
        await ask_while_held(app, pilot, "how do solar panels work in winter")
        waiting_turn(app)
        yield app, pilot, held


async def test_a_question_sent_before_the_agent_is_ready_waits_and_is_sent(small_kb, monkeypatch):
    async with waiting_question(small_kb, monkeypatch) as (app, pilot, held):
        held.build.set()
        await settle(pilot)
        turn = app.main.turn_log.turns[-1]
        assert turn.state == "grounded" and turn.has_answer
        assert len(app.main.turn_log.turns) == 1 and len(app.session.messages) > 0


async def test_a_waiting_question_cancelled_gives_its_number_back(small_kb, monkeypatch):
    """Esc on a question waiting for the agent: it stays, cancelled and unnumbered; the next question takes its
    number."""
    async with waiting_question(small_kb, monkeypatch) as (app, pilot, held):
        await pilot.press("escape")
        await pilot.pause()
        assert app.main.prompt.text == "how do solar panels work in winter"  # given back to edit
        held.build.set()
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        turns = app.main.turn_log.turns
        assert [(t.number, t.state) for t in turns] == [(None, "cancelled"), (1, "grounded")]


@contextlib.asynccontextmanager
async def question_before_the_session(small_kb, tmp_path, monkeypatch):
    """A saved session reopened with its drawing held, "what is a heat pump" sent and waiting:
    ``(app, pilot, held)``."""
    store = SessionStore(tmp_path / "sessions.db")
    session_id = await saved_session(small_kb, store)
    held = HeldStart(monkeypatch)
    app = make_app(small_kb, store=store, session_id=session_id)
    async with app.run_test(size=SIZE) as pilot:
        await ask_while_held(app, pilot)
        waiting_turn(app)
        yield app, pilot, held


async def test_a_question_sent_before_the_session_is_drawn_stays_after_its_turns(small_kb, tmp_path, monkeypatch):
    """The session drawn after the question was typed clears the log: the question is drawn again after the
    session's turns, numbered after them (it once vanished until the agent was ready)."""
    async with question_before_the_session(small_kb, tmp_path, monkeypatch) as (app, pilot, held):
        assert waiting_turn(app).prompt == "what is a heat pump"
        await held.session_drawn(pilot)
        turns = app.main.turn_log.turns
        assert [t.prompt for t in turns] == ["how do solar panels work in winter", "what is a heat pump"]
        assert waiting_turn(app).number == 2
        held.build.set()
        await settle(pilot)
        turns = app.main.turn_log.turns
        assert [t.number for t in turns] == [1, 2] and turns[-1].state == "grounded" and turns[-1].has_answer
        assert [q.prompt for q in app.workbench.view.questions][-1] == "what is a heat pump"


async def test_a_question_cancelled_before_the_session_is_drawn_stays_after_its_turns(small_kb, tmp_path, monkeypatch):
    """Esc on a question waiting for the agent, then the session is drawn: the cancelled turn is drawn again
    after the session's turns (it once vanished, its text back in the box), and the next question follows it."""
    async with question_before_the_session(small_kb, tmp_path, monkeypatch) as (app, pilot, held):
        await pilot.press("escape")
        await pilot.pause()
        await held.session_drawn(pilot)
        turns = app.main.turn_log.turns
        assert [(t.number, t.prompt, t.state) for t in turns][-1] == (None, "what is a heat pump", "cancelled")
        assert "back in the box" in turns[-1].query_one(".turn-footer").render().plain
        held.build.set()
        await settle(pilot)
        await pilot.press("enter")  # the question given back, sent again
        await settle(pilot)
        turns = app.main.turn_log.turns
        assert [(t.number, t.state) for t in turns][-2:] == [(None, "cancelled"), (2, "grounded")]


def zebra_kb(tmp_path) -> str:
    """A one-document knowledge base about zebras (nothing in the small KB is about them)."""
    from haiku_tui.store import KnowledgeBase

    zebra_db = str(tmp_path / "zebra.lancedb")
    doc = tmp_path / "zebra" / "zebras.md"
    doc.parent.mkdir()
    doc.write_text("# Zebras\n\n## Stripes\n\nZebra stripes confuse biting flies and help zebras stay cool.\n")
    with KnowledgeBase.open(zebra_db) as zebra:
        zebra.add([doc])
    return zebra_db


async def test_reopening_a_session_answers_from_the_kb_it_was_made_on(small_kb, tmp_path):
    """Ctrl+O on a session made on another knowledge base opens that one."""
    zebra_db = zebra_kb(tmp_path)
    store = SessionStore(tmp_path / "sessions.db")
    app = make_app(None, store=store, db=zebra_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.prompt.text = "why do zebras have stripes"
        await pilot.press("enter")
        await settle(pilot)
        zebra_session = app.session.id
        assert app.session.db == zebra_db and app.main.views[0].citations
    other = make_app(small_kb, store=store)
    async with other.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        other.main.switch_session(zebra_session)
        await settle(pilot)
        assert other.workbench.db_label() == zebra_db
        other.main.prompt.text = "what do zebra stripes confuse"
        await pilot.press("enter")
        await settle(pilot)
        cited = other.workbench.view.citations
        assert cited and all(entry["title"] == "Zebras" for entry in cited.values())
    # a session whose knowledge base is gone: said so, and the current one stays
    import shutil

    shutil.rmtree(zebra_db)
    third = make_app(small_kb, store=store)
    async with third.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        third.main.switch_session(zebra_session)
        await settle(pilot)
        assert third.session.id == zebra_session and third.workbench.db_label() == "small.lancedb"
        assert any("cannot be opened" in n.message for n in third._notifications)


async def test_the_knowledge_base_is_prepared_behind_the_first_frame(tmp_path):
    """``haiku-tui demo``: the screen paints, then the guide is ingested, then questions are answered."""
    from haiku_tui.agent import AgentConfig
    from haiku_tui.cli.app import prepare_demo
    from haiku_tui.tui.app import HaikuApp

    release = threading.Event()
    path = tmp_path / "demo.lancedb"

    def prepare():
        release.wait(30)
        prepare_demo(path, quiet=True)

    app = HaikuApp(AgentConfig(model="extractive", db=str(path)), prepare_kb=prepare)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause(0.2)
        assert app.main.prompt.is_mounted and not app.main.ready  # painted while the guide is not ready
        app.main.prompt.text = "how do I export a session"
        await pilot.press("enter")
        await pilot.press("ctrl+b")  # the knowledge-base screen waits for the guide: no second handle mid-ingest
        await pilot.pause(0.1)
        assert app.screen is app.main and any("still being opened" in n.message for n in app._notifications)
        release.set()
        await wait_for(pilot, lambda: app.main.ready, 60)
        await settle(pilot)
        assert app.main.turn_log.turns[-1].state == "grounded"
        await pilot.press("ctrl+b")
        pages = len(list((Path(haiku_tui.__file__).parent / "guide").glob("*.md")))
        await wait_for(pilot, lambda: f"{pages} documents" in str(app.screen.query_one("#kb-status").render()), 30)


async def test_the_switch_knowledge_base_dialog_names_a_command_that_exists(small_kb):
    app = make_app(small_kb)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.action_switch_kb()
        await pilot.pause()
        detail = str(app.screen.query_one("#dialog-detail").render())
    command = detail.split("`")[1].split()
    assert command[0] == "haiku-tui"
    args = build_parser().parse_args(command[1:])  # argparse exits on a command that does not exist
    assert args.command == "add"


async def test_switching_the_knowledge_base_starts_a_new_session_on_it(small_kb, tmp_path):
    zebra_db = zebra_kb(tmp_path)
    app = make_app(small_kb)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ask(pilot, "how do solar panels work in winter")
        first = app.session.id
        app.main.switch_kb(str(tmp_path / "nowhere.lancedb"))
        await settle(pilot)
        assert app.session.id == first and app.workbench.db_label() == "small.lancedb"
        assert any(n.title == "Knowledge base not switched" for n in app._notifications)
        app.main.switch_kb(zebra_db)
        await settle(pilot)
        assert app.session.id != first and app.main.turn_log.turns == []
        assert app.workbench.db_label() == zebra_db and "db /tmp/" in str(app.main.query_one("#status").render())
        app.main.prompt.text = "what do zebra stripes confuse"
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.db == zebra_db
        assert [e["title"] for e in app.workbench.view.citations.values()] == ["Zebras"]


async def test_esc_on_a_waiting_question_while_the_session_is_drawn(small_kb, tmp_path, monkeypatch):
    """Esc lands while the reopened session is being drawn (the log cleared, its turns not yet mounted): the
    question stays, cancelled, after the session's turns, its text back in the box, and the next one is sent
    (it once vanished from the log and its number was skipped)."""
    from haiku_tui.tui.main.turn_log import TurnLog

    drawing, release = threading.Event(), threading.Event()
    show_views = TurnLog.show_views

    async def held_show_views(log, view):
        drawing.set()
        await asyncio.to_thread(release.wait, 30)
        await show_views(log, view)

    monkeypatch.setattr(TurnLog, "show_views", held_show_views)
    async with question_before_the_session(small_kb, tmp_path, monkeypatch) as (app, pilot, held):
        held.draw.set()
        try:  # the log is cleared, the session's turns are not drawn yet
            await wait_for(pilot, drawing.is_set, 30)
            await pilot.press("escape")
            await pilot.pause()
        finally:
            release.set()
        await asyncio.to_thread(held.building.wait, 30)
        await pilot.pause()
        turns = app.main.turn_log.turns
        assert [(t.number, t.prompt, t.state) for t in turns] == [
            (1, "how do solar panels work in winter", "grounded"),
            (None, "what is a heat pump", "cancelled"),
        ]
        assert app.main.prompt.text == "what is a heat pump" and not app.main.running
        held.build.set()
        await settle(pilot)
        await pilot.press("enter")  # the question given back, sent again
        await settle(pilot)
        turns = app.main.turn_log.turns
        assert [(t.number, t.state) for t in turns] == [(1, "grounded"), (None, "cancelled"), (2, "grounded")]


async def test_a_sessions_draft_stays_with_it_when_another_session_is_opened(small_kb, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    first, second = await saved_session(small_kb, store), await saved_session(small_kb, store)
    session = store.load(first)
    session.draft = "the draft of the first session"
    store.save(session)
    app = make_app(small_kb, store=store, session_id=first)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main.prompt.text == "the draft of the first session"
        app.main.switch_session(second)
        await settle(pilot)
        assert app.session.id == second and app.main.prompt.text == ""  # not carried into the other session
        app.main.prompt.text = "typed in the second"
        app.main.switch_session(first)
        await settle(pilot)
        assert app.main.prompt.text == "typed in the second"  # what the user typed is never replaced
        await pilot.press("ctrl+q")
    assert store.load(first).draft == "typed in the second" and store.load(second).draft == ""


async def test_a_source_that_cannot_be_found_costs_one_line(tmp_path):
    import shutil

    from haiku_tui.store import KnowledgeBase

    zebra_db = zebra_kb(tmp_path)
    kb = KnowledgeBase.open(zebra_db)
    app = make_app(kb)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ask(pilot, "what do zebra stripes confuse")
        (entry,) = app.workbench.view.citations.values()
        shutil.rmtree(zebra_db)  # the knowledge base is gone from under the app
        app.main.open_source(entry["chunk_id"])
        await settle(pilot)
        errors = [n.message for n in app._notifications if n.severity == "error"]
        assert len(errors) == 1 and errors[0].startswith("Cannot find the source: "), errors
        assert app.is_running and app.screen is app.main
    kb.close()
