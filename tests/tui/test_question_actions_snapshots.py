"""SVG snapshots of the everyday question actions: history recall, the model picker, the copy toast."""

from __future__ import annotations

from tests.tui.conftest import ask, make_app, settle
from tests.tui.test_main_snapshots import SOLAR, TEA, answer_solar, open_chunk, snap


def test_history_recall(snap_compare, small_kb):
    """Two answered questions, then ↑ ↑ in the empty question box: the box holds the first question
    ("how do solar panels work in winter") again, ready to edit or send."""

    async def run(pilot):
        await ask(pilot, SOLAR)
        await ask(pilot, TEA)
        await pilot.press("up", "up")

    assert snap(snap_compare, make_app(small_kb), run)


def test_model_picker(snap_compare, small_kb):
    """F8: the "Switch model" dialog over the main screen, prefilled with "extractive", saying what is in
    use now ("extractive (retrieval-only)") and that a model string or a name and base URL is accepted."""

    async def run(pilot):
        await pilot.press("f8")

    assert snap(snap_compare, make_app(small_kb), run)


def test_copy_toast(snap_compare, small_kb):
    """An answer selected (Shift+Tab) and y pressed: a "Clipboard" toast says "Copied answer 1 with 1
    source(s) (N characters)."."""

    async def run(pilot):
        await ask(pilot, SOLAR)
        await pilot.press("shift+tab", "y")

    assert snap(snap_compare, make_app(small_kb), run)


def test_main_screen_80x24(snap_compare, small_kb):
    """80×24 after one answer: the panes stack (conversation above, evidence and policy log below); the
    question box, the status bar and the footer stay visible."""

    assert snap(snap_compare, make_app(small_kb), answer_solar, size=(80, 24))


def test_main_screen_200x60(snap_compare, small_kb):
    """200×60 after one answer: conversation on the left, evidence and policy log side by side on the right."""

    assert snap(snap_compare, make_app(small_kb), answer_solar, size=(200, 60))


def test_review_80x24(snap_compare, small_kb):
    """The citation review at 80×24: the question, the first cited chunk among its neighbours (scrolling),
    the mark keys and the summary line all fit inside the terminal."""

    assert snap(snap_compare, make_app(small_kb), on_the_answer("r"), size=(80, 24))


def test_help_80x24(snap_compare, small_kb):
    """F1 at 80×24: the help for the question box, scrolling inside the dialog; "Esc close" visible."""

    async def run(pilot):
        await pilot.press("f1")
        await settle(pilot)

    assert snap(snap_compare, make_app(small_kb), run, size=(80, 24))


def test_chunk_viewer_80x24(snap_compare, small_kb):
    """Enter on the cited evidence item at 80×24: the "Source" dialog with the chunk between its
    neighbours, its path under the title (fixed: "docs/solar-panels.md:18"), the keys in the border."""

    assert snap(snap_compare, make_app(small_kb), open_chunk, size=(80, 24))


def test_wire_inspector_80x24(snap_compare, small_kb):
    """w on the answer at 80×24: the wire inspector's title, the bar per question and the requests list
    with their labelled parts, scrolling inside the terminal."""

    assert snap(snap_compare, make_app(small_kb), on_the_answer("w"), size=(80, 24))


def on_the_answer(key: str):
    """A run: answer SOLAR, select the answer, press ``key``."""

    async def run(pilot):
        await ask(pilot, SOLAR)
        pilot.app.main.turn_log.focus_selected()
        await pilot.press(key)
        await settle(pilot)

    return run
