"""SVG snapshots of the main screen's states (pytest-textual-snapshot).

Deterministic: fixed terminal size, the extractive model or a FunctionModel script over the
same small knowledge base, cursor blink off, no clock, a fixed database label. Regenerate with
``pytest --snapshot-update tests/tui/test_main_snapshots.py`` and look at the SVGs.
"""

from __future__ import annotations

from tests.tui.conftest import SIZE, ask, make_app, policy_model, settle, stalling_model, wait_for
from textual.widgets import Markdown


async def no_blink(pilot) -> None:
    """Cursor blink off everywhere (a blinking cursor makes snapshots flaky)."""
    await pilot.pause()
    for screen in pilot.app.screen_stack:
        for widget in screen.query("Input, TextArea"):
            widget.cursor_blink = False
    await pilot.pause()


def snap(snap_compare, app, run_before=None, size=SIZE) -> bool:
    async def before(pilot):
        await settle(pilot)
        if run_before is not None:
            await run_before(pilot)
        await settle(pilot)
        await no_blink(pilot)

    return snap_compare(app, run_before=before, terminal_size=size)


SOLAR = "how do solar panels work in winter"
TEA = "how long should green tea steep"


def test_empty_session(snap_compare, small_kb):
    """A new session: welcome text with the main keys in the conversation pane, the question box
    focused, "No evidence yet" in the evidence pane, "No questions yet" in the policy log, and the
    status bar showing "extractive (retrieval-only)" and "db small.lancedb" (no filter set, none shown)."""
    assert snap(snap_compare, make_app(small_kb))


def test_answer_with_evidence(snap_compare, small_kb):
    """One answered question: Q1 with three tool rows (loaded, searched “…” → 5 results, cited [1]),
    the answer with an underlined [1] link and a green "✓ grounded" badge; the evidence pane lists five
    chunks with rank and score, the first marked "cited" with [1], the others "current"; the policy log
    says enforced / declared grounded; the status bar shows the last request size."""

    async def run(pilot):
        await ask(pilot, SOLAR)

    assert snap(snap_compare, make_app(small_kb), run)


def test_cited_only(snap_compare, small_kb):
    """The evidence pane toggled to "cited only" (title says so): only the [1] chunk is listed and the
    question header says "1 shown"."""

    async def run(pilot):
        await ask(pilot, SOLAR)
        pilot.app.main.evidence.focus()
        await pilot.press("c")

    assert snap(snap_compare, make_app(small_kb), run)


def test_retained_and_receipted_after_two_questions(snap_compare, small_kb):
    """Two questions: Q2 (newest) is listed first with its cited [2] chunk; under Q1 the earlier cited
    chunk is "retained" (still sent in full) and the uncited ones are "receipt" (dimmed); the status bar
    shows what compaction saved."""

    async def run(pilot):
        await ask(pilot, SOLAR)
        await ask(pilot, TEA)

    assert snap(snap_compare, make_app(small_kb), run)


def test_policy_redirect(snap_compare, small_kb):
    """A model that answered without citing and was redirected: a "↺ citation policy: asked to declare
    …" row between the tool rows, the repeated answer grounded, and the policy log line "redirect: asked
    … outcome: redirected"."""

    async def run(pilot):
        await ask(pilot, "do solar panels work in winter")
        pilot.app.main.policy_log.focus()

    assert snap(snap_compare, make_app(small_kb, model=policy_model(obey_redirect=True)), run)


def test_policy_violation(snap_compare, small_kb):
    """A model that ignored the redirect: the answer carries a red "✗ violation" badge followed by "not grounded:
    the model searched your documents but cited nothing", and the policy log line ends with "✗ VIOLATION: answered
    without declaring its grounding" and the same not-grounded line."""

    async def run(pilot):
        await ask(pilot, "do solar panels work in winter")
        pilot.app.main.policy_log.focus()

    assert snap(snap_compare, make_app(small_kb, model=policy_model(obey_redirect=False)), run)


def test_conversation_maximised(snap_compare, small_kb):
    """Ctrl+F with the question box focused: the conversation pane fills the screen; the status bar and
    footer stay."""

    async def run(pilot):
        await ask(pilot, SOLAR)
        await pilot.press("ctrl+f")

    assert snap(snap_compare, make_app(small_kb), run)


def test_evidence_maximised(snap_compare, small_kb):
    """F3 then Ctrl+F: the evidence pane fills the screen with every chunk readable at full width."""

    async def run(pilot):
        await ask(pilot, SOLAR)
        await pilot.press("f3", "ctrl+f")

    assert snap(snap_compare, make_app(small_kb), run)


def test_side_panes_hidden(snap_compare, small_kb):
    """Ctrl+T and Ctrl+L: evidence pane and policy log hidden, the conversation uses the full width."""

    async def run(pilot):
        await ask(pilot, SOLAR)
        await pilot.press("ctrl+t", "ctrl+l")

    assert snap(snap_compare, make_app(small_kb), run)


def test_chunk_modal(snap_compare, small_kb):
    """Enter on the cited evidence item: a "Source" modal with the chunk highlighted ("▶ cited chunk",
    accent bar) between its neighbouring chunks of the same document; under the title the file and line
    it starts at ("docs/solar-panels.md:18", fixed here: the fixture lives in a temporary folder); the
    border says "y copy · o open source"."""

    assert snap(snap_compare, make_app(small_kb), open_chunk)


async def open_chunk(pilot) -> None:
    """Answer SOLAR, then Enter on its cited evidence item (the source location fixed)."""
    from haiku_tui.store.locate import SourceLocation

    await ask(pilot, SOLAR)
    pilot.app.workbench.locate = lambda chunk_id: SourceLocation("docs/solar-panels.md", line=18)
    pilot.app.main.evidence.focus()
    await pilot.press("enter")
    await settle(pilot)


def test_review_with_marks(snap_compare, small_kb):
    """Review mode on an answer with several citations: the first marked "✓ supports", the second
    "✗ does not support" and shown now, with its source chunk among its neighbours and the summary line
    listing every citation's mark."""

    async def run(pilot):
        await ask(pilot, "what flour and starter make sourdough bread")
        pilot.app.main.turn_log.focus_selected()
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("s", "n")
        await settle(pilot)
        await pilot.press("x")

    assert snap(snap_compare, make_app(small_kb), run)


def test_review_marks_in_conversation(snap_compare, small_kb):
    """After a review: the answer's footer shows each citation with its mark (✓ / ✗) and the evidence
    pane shows the marks next to the cited chunks."""

    async def run(pilot):
        await ask(pilot, "what flour and starter make sourdough bread")
        pilot.app.main.turn_log.focus_selected()
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("s", "n")
        await settle(pilot)
        await pilot.press("x", "escape")

    assert snap(snap_compare, make_app(small_kb), run)


def test_help_modal(snap_compare, small_kb):
    """F1 in the question box: a help modal listing the question box keys, the answer keys (↑/↓, 1 … 9,
    r) and the global keys, each with its description."""

    async def run(pilot):
        await pilot.press("f1")

    assert snap(snap_compare, make_app(small_kb), run)


def test_help_modal_evidence(snap_compare, small_kb):
    """F1 in the evidence pane: its keys (c, Enter, r) and what the four statuses mean."""

    async def run(pilot):
        await pilot.press("f3", "f1")

    assert snap(snap_compare, make_app(small_kb), run)


def test_command_palette(snap_compare, small_kb):
    """Ctrl+P, typing "pane": the palette lists the app's pane commands with their keys as help."""

    async def run(pilot):
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"pane")
        await pilot.pause(0.5)

    assert snap(snap_compare, make_app(small_kb), run)


def test_cancelled_run(snap_compare, small_kb):
    """Esc while an answer streams: the partial answer stays with a "■ cancelled" badge and "nothing was
    saved · the question is back in the box" (the word cancelled once); the question box holds the question
    again; no evidence, an empty policy log (nothing was committed)."""

    async def run(pilot):
        app = pilot.app
        app.main.prompt.text = "a question that stalls"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.turn_log.turns and app.main.turn_log.turns[-1].has_answer)
        await pilot.press("escape")
        await settle(pilot)

    assert snap(snap_compare, make_app(small_kb, model=stalling_model()), run)


def test_markup_injection_shown_literally(snap_compare, injection_kb):
    """A document containing "[bold]loud[/bold]", "[@click=app.quit]" and a red terminal escape: the
    answer and the evidence pane show the brackets literally (no bold, no link) and the escape as "␛[31m"
    (no red text)."""

    async def run(pilot):
        await ask(pilot, "what do hostile chunks write")

    assert snap(snap_compare, make_app(injection_kb), run)


def test_narrow_terminal(snap_compare, small_kb):
    """80×30: the panes stack vertically (conversation above, evidence and policy log below)."""

    assert snap(snap_compare, make_app(small_kb), answer_solar, size=(80, 30))


async def answer_solar(pilot) -> None:
    """Ask SOLAR and wait for its answer."""
    await ask(pilot, SOLAR)


def test_citation_jump(snap_compare, small_kb):
    """Clicking the [1] link: the evidence pane is focused with the cited chunk highlighted."""

    async def run(pilot):
        await ask(pilot, SOLAR)
        turn = pilot.app.main.turn_log.turns[0]
        turn.answer.post_message(Markdown.LinkClicked(turn.answer, "cite:1"))

    assert snap(snap_compare, make_app(small_kb), run)


def test_reopened_session(snap_compare, small_kb, tmp_path):
    """A saved two-question session reopened: both turns with tool rows, answers and badges, the second
    selected; evidence and policy log as they were."""
    from haiku_tui.agent import AgentConfig, build_agent
    from haiku_tui.sessions import SessionStore

    store = SessionStore()
    session = store.new(model="extractive", db="small.lancedb")
    agent = build_agent(AgentConfig(), kb=small_kb)
    import asyncio

    async def build():
        for question in (SOLAR, TEA):
            deps = session.deps()
            result = await agent.run(question, deps=deps, conversation=session.conversation)
            session.commit_run(result, deps.state)

    asyncio.run(build())
    store.save(session)
    assert snap(snap_compare, make_app(small_kb, session_id=session.id, store=store))
