"""Hostile text on every surface of the app — screens, tables, header, toasts, dialogs.

The shared strings of ``tests/hostile.py`` go in where untrusted text really comes from: document
titles and text in a knowledge base, session titles and models in the sessions store (as an import
would write them), a model that fails with a hostile error. What is asserted is what the terminal
would be sent — the text of every segment the screen renders — has no active control, and that
markup is shown literally.
"""

from __future__ import annotations


import pytest
from rich.text import Text
from textual.widgets import DataTable, OptionList

from haiku_tui.sessions import SessionStore
from haiku_tui.text import control_pictures
from haiku_tui.tui.screens import ConfirmDialog, KnowledgeScreen, SessionsScreen, TextViewDialog
from haiku_tui.tui.text import clean, clean_line
from tests.hostile import HOSTILE, MARKUP, active_controls
from tests.tui.conftest import SIZE, make_app, settle
from tests.tui.test_screens import add_session

EVERYTHING = " | ".join(HOSTILE.values())


def screen_text(app) -> str:
    """The text of every segment of the current screen (what the terminal would be sent, minus styles)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def assert_inert(app) -> str:
    text = screen_text(app)
    assert active_controls(text) == [], f"active controls reach the terminal on {type(app.screen).__name__}"
    return text


@pytest.fixture(scope="module")
def hostile_kb(tmp_path_factory):
    """A knowledge base with one document per hostile string, in its title, a heading and its text."""
    from haiku_tui.store import KnowledgeBase

    root = tmp_path_factory.mktemp("hostile-tui")
    docs = root / "docs"
    docs.mkdir()
    for name, value in HOSTILE.items():
        (docs / f"{name}.md").write_text(
            f"# T {value} end\n\n## H {value}\n\nHostile tea text about {value} and more tea.\n", encoding="utf-8"
        )
    kb = KnowledgeBase.open(str(root / "kb.lancedb"))
    assert not kb.add([docs]).failed
    yield kb
    kb.close()


@pytest.fixture
def hostile_store(tmp_path):
    """A sessions store whose sessions carry hostile titles and model names (as an import could)."""
    store = SessionStore(tmp_path / "sessions.db")
    for i, value in enumerate(HOSTILE.values()):
        add_session(
            store, f"{i:04x}" + "e" * 8, f"S {value} end", updated=f"2026-03-{10 + i:02d}T09:30:00.000000Z",
            model=f"m{value}", turns=[(f"Q {value}", f"A {value}")],
        )
    yield store
    store.close()


def test_clean_is_the_one_sanitiser_and_leaves_nothing_active():
    for value in HOSTILE.values():
        assert clean(value) == control_pictures(value)
        assert active_controls(clean(value)) == [] and active_controls(clean_line(value)) == []
    assert clean(HOSTILE["markup"]) == HOSTILE["markup"]  # markup is text, not stripped


async def test_knowledge_screen_table_search_and_dialogs_are_inert(hostile_kb):
    app = make_app(hostile_kb)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.main.action_knowledge()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, KnowledgeScreen)
        table = screen.query_one("#kb-documents", DataTable)
        assert table.row_count == len(HOSTILE)
        titles = {table.get_row_at(i)[0].plain for i in range(table.row_count)}
        assert {f"T {HOSTILE[name]} end" for name in MARKUP} <= titles  # markup literally
        assert "T ␛]2;PWNED␇ end" in titles  # escapes visible, inert
        text = assert_inert(app)
        assert "[@click=app.quit]quit[/]" in text

        await pilot.press("slash", *"hostile tea", "enter")
        await settle(pilot)
        results = screen.query_one("#kb-results", OptionList)
        assert results.option_count == len(HOSTILE)
        prompts = [results.get_option_at_index(i).prompt.plain for i in range(results.option_count)]
        assert any("H [bold]x[/]" in p and "about [bold]x[/] and" in p for p in prompts)
        assert_inert(app)

        results.focus()
        await pilot.press("enter")  # the full chunk
        await pilot.pause()
        assert isinstance(app.screen, TextViewDialog)
        assert_inert(app)
        await pilot.press("escape")
        await pilot.pause()

        table.focus()
        await pilot.press("d")  # delete asks, naming the document
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        assert_inert(app)
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running  # [@click=app.quit] in a title did nothing


async def test_header_and_sessions_screen_show_hostile_titles_inert(hostile_kb, hostile_store):
    last = hostile_store.list()[0]
    app = make_app(hostile_kb, store=hostile_store, session_id=last.id)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert app.sub_title == last.title and active_controls(last.title)  # the title itself is hostile
        header = assert_inert(app).splitlines()[0]
        assert "S " in header and "end" in header

        await pilot.press("ctrl+o")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        table = screen.query_one("#sessions-table", DataTable)
        assert table.row_count == len(HOSTILE)
        cells = [table.get_row_at(i)[1] for i in range(table.row_count)]
        assert all(isinstance(c, Text) and not active_controls(c.plain) for c in cells)
        assert any(c.plain == f"S {HOSTILE['click-markup']} end" for c in cells)
        assert_inert(app)

        await pilot.press("f2")  # rename: the old title in the input box
        await pilot.pause()
        assert_inert(app)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("f8")  # delete: the title in the question
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        assert_inert(app)
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running


async def test_every_toast_and_its_title_are_inert(hostile_kb):
    app = make_app(hostile_kb)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.notify(EVERYTHING, title=EVERYTHING, severity="error")
        app.main.notify(EVERYTHING, title="from a widget", markup=True)  # a widget asking for markup gets none
        await pilot.pause()
        messages = [(n.title, n.message) for n in app._notifications]
        assert all(not active_controls(t) and not active_controls(m) for t, m in messages)
        assert all("[bold]x[/]" in m for _, m in messages)  # literally
        assert_inert(app)


async def test_answer_failed_toast_with_a_hostile_server_error_is_inert(hostile_kb):
    from pydantic_ai.models.function import FunctionModel

    async def failing(messages, info):
        raise RuntimeError(f"server error body: {EVERYTHING}")
        yield ""  # pragma: no cover - makes this an async generator

    app = make_app(hostile_kb, model=FunctionModel(stream_function=failing, model_name="hostile"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.main.prompt.text = "anything"
        await pilot.press("enter")
        await settle(pilot)
        failed = [n for n in app._notifications if n.title == "Answer failed"]
        assert failed, [n.message for n in app._notifications]
        assert not active_controls(failed[0].message)
        assert_inert(app)
