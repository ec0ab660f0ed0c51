"""One turn of the conversation: its question, tool rows, streamed answer with citation links, badge.

Answers stream through :class:`~haiku_tui.tui.main.pacing.PacedStream` and every piece of document or model text goes
through :mod:`haiku_tui.tui.text` before it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual import on
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Markdown, Static

from haiku_tui.tui.main.pacing import PacedStream
from haiku_tui.tui.text import clean, link_citations, clean_line, parse_cite_href

if TYPE_CHECKING:
    from haiku_tui.capabilities.views import QuestionView

STEP_ICONS = {
    "load": "⚙",
    "search": "⌕",
    "cite": "❝",
    "redirect": "↺",
    "notice": "!",
    "tool": "⚙",
}

BADGES = {
    "grounded": ("✓ grounded", "answer is grounded in cited evidence"),
    "ungrounded": ("○ ungrounded", "the answer declared that no evidence supports it"),
    "missing": ("? missing", "the answer never declared its grounding"),
    "violation": ("✗ violation", "the citation policy recorded a violation"),
    "cancelled": ("■ cancelled", "the run was cancelled; nothing was saved"),
    "failed": ("✗ failed", "the run failed; nothing was saved"),
    "running": ("… answering", "the answer is being written"),
}

BADGE_STYLES = {
    "grounded": "bold $text on $success 70%",
    "ungrounded": "bold $text on $warning 60%",
    "missing": "bold $text on $warning 35%",
    "violation": "bold $text on $error 80%",
    "cancelled": "bold $text on $panel-lighten-2",
    "failed": "bold $text on $error 60%",
    "running": "bold $text on $primary 40%",
}

MARK_SYMBOLS = {"supports": ("✓", "$success"), "does_not_support": ("✗", "$error"), "unsure": ("?", "$warning")}
"""How each review mark (``haiku_tui.sessions.model.ReviewMark``) is drawn: symbol and colour."""


@dataclass
class ToolRow:
    """One compact row per tool call: running, then what it did (drawn by the turn's steps widget)."""

    kind: str
    text: str
    running: bool = False
    failed: bool = False
    turn: QuestionTurn | None = field(default=None, repr=False, compare=False)

    def set_text(self, text: str, *, kind: str | None = None, running: bool = False, failed: bool = False) -> None:
        self.text, self.running, self.failed = text, running, failed
        self.kind = kind or self.kind
        if self.turn is not None:
            self.turn.draw_steps()

    def content(self) -> Content:
        icon = STEP_ICONS.get(self.kind, "⚙")
        style = (
            "$error"
            if self.failed
            else "$warning"
            if self.running
            else "bold $accent"
            if self.kind == "redirect"
            else ""
        )
        return Content.assemble(
            (f"{icon} ", "bold"), (clean_line(self.text, 300) + (" …" if self.running else ""), style)
        )


@dataclass
class Ghost:
    """A cancelled or failed turn while it is not mounted (it slid out of the window): what redraws it.

    ``key`` is how many committed questions come before it (it is drawn after the last of them). It has no
    number: only committed questions are numbered (the next one takes the number this one showed while it ran)."""

    key: int
    prompt: str
    state: str
    answer: str
    info: Content
    rows: list[tuple[str, str, bool]]
    turn: QuestionTurn | None = field(default=None, repr=False, compare=False)


class AnswerMarkdown(Markdown):
    """An answer rendered as Markdown; ``[n]`` markers are links with the private ``cite:`` scheme."""

    def __init__(self, markdown: str = "", **kwargs: Any) -> None:
        super().__init__(markdown, open_links=False, **kwargs)


class QuestionTurn(Vertical):
    """One question with its tool rows, answer and footer (badge, citations, review marks)."""

    selected: reactive[bool] = reactive(False)
    """Drawn by ``turn_log.mark`` (turns never take the focus: the answer cursor does)."""

    class Selected(Message):
        """The turn was clicked."""

        def __init__(self, turn: QuestionTurn) -> None:
            super().__init__()
            self.turn = turn

    class CitationClicked(Message):
        """A ``[n]`` link in this turn's answer was clicked."""

        def __init__(self, turn: QuestionTurn, number: int) -> None:
            super().__init__()
            self.turn = turn
            self.number = number

    def __init__(self, prompt: str, *, number: int | None, question: int | None = None) -> None:
        super().__init__(classes="turn")
        self.prompt = prompt
        self.number = number
        self.question = question
        self.citations: tuple[int, ...] = ()
        self.citation_ids: dict[int, str] = {}
        self.state = "running"
        self._stream: PacedStream | None = None
        self._answer_text = ""
        self._steps_since_text = False
        self.rows: list[ToolRow] = []
        self._badge: Content = Content("")
        self._noted = False
        self._info: Content = Content("")

    def compose(self):
        yield Static(self._heading(), classes="question")
        steps = Static(classes="steps")
        steps.display = False
        yield steps
        yield AnswerMarkdown(classes="answer")
        yield Static(classes="turn-footer")

    def _heading(self) -> Content:
        """``Q3 ❯ the question``; a cancelled or failed question has no number (``– ❯``)."""
        number = (f"Q{self.number} ", "bold $accent") if self.number is not None else ("– ", "$text-muted")
        return Content.assemble(number, ("❯ ", "$accent"), clean(self.prompt))

    def unnumber(self) -> None:
        """The question did not complete: it gives its number back (the next question that completes takes it)."""
        self.number = None
        if self.is_attached and (heading := self.query(".question")):
            heading.first(Static).update(self._heading())

    # -- pieces --------------------------------------------------------------------------------------------

    @property
    def answer(self) -> AnswerMarkdown:
        return self.query_one(".answer", AnswerMarkdown)

    def draw_steps(self) -> None:
        steps = self.query_one(".steps", Static)
        steps.display = bool(self.rows)
        steps.update(Content("\n").join(row.content() for row in self.rows))

    def _draw_footer(self) -> None:
        between = " · " if self._noted and self._info.plain else " "  # the badge's note is not read into "cites …"
        self.query_one(".turn-footer", Static).update(Content.assemble(self._badge, between, self._info))

    def on_mount(self) -> None:
        if self.query(".turn-footer"):  # not when the window dropped the turn again before it mounted
            self.set_badge(self.state)

    def on_click(self) -> None:
        self.post_message(self.Selected(self))

    @on(Markdown.LinkClicked)
    def _link(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        number = parse_cite_href(event.href)
        if number is not None:
            self.post_message(self.CitationClicked(self, number))

    async def add_step(self, kind: str, text: str, *, running: bool = False) -> ToolRow:
        """Add a tool row (shown above the answer) and return it."""
        row = ToolRow(kind, text, running=running, turn=self)
        self.rows.append(row)
        self.draw_steps()
        self._steps_since_text = True
        return row

    def set_badge(self, badge: str, detail: str = "", *, note: str = "", grounding: str = "") -> None:
        """Show a grounding badge (grounded / ungrounded / missing / violation) or a run state;
        ``note`` (e.g. ``[3] unbacked``) is added to it in the error colour, ``grounding`` (why the answer is
        not grounded, or what haiku-tui attributed it to) after it."""
        self.state = badge
        label, tooltip = BADGES.get(badge, (badge, ""))
        self._badge = Content.styled(f" {label} ", BADGE_STYLES.get(badge, "reverse"))
        if note:
            self._badge = Content.assemble(self._badge, (f" {note} ", "bold $text on $error 80%"))
            tooltip += "; markers with no citation behind them"
        self._noted = bool(grounding)
        if grounding:
            self._badge = Content.assemble(self._badge, (f" {clean_line(grounding, 120)}", "italic $warning"))
        footer = self.query_one(".turn-footer", Static)
        footer.tooltip = tooltip
        if detail:
            self._info = Content.styled(clean_line(detail, 400), "$text-muted")
        self._draw_footer()

    def set_info(self, content: Content) -> None:
        self._info = content
        self._draw_footer()

    # -- streaming -----------------------------------------------------------------------------------------

    async def write(self, fragment: str) -> None:
        """Append streamed Markdown (already converted by ``CitationStream``)."""
        if not fragment:
            return
        self._answer_text += fragment
        if self._stream is None:  # the first words are in place when this returns (the next frame shows them)
            await self.answer.append(fragment)
            self._stream = PacedStream(self.answer)
            return
        self._stream.write(fragment)

    async def begin_text(self) -> None:
        """A new text part starts: a text written before later tool calls is superseded, so clear it."""
        if self._answer_text and self._steps_since_text:
            await self.end_stream()
            self._answer_text = ""
            await self.answer.update("")
        self._steps_since_text = False

    async def end_stream(self) -> None:
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()

    @property
    def has_answer(self) -> bool:
        return bool(self._answer_text.strip())

    # -- out of the window and back --------------------------------------------------------------------------

    def ghost(self, key: int) -> Ghost:
        """What redraws this (cancelled or failed) turn after it was unmounted."""
        rows = [(row.kind, row.text, row.failed) for row in self.rows]
        return Ghost(key, self.prompt, self.state, self._answer_text, self._info, rows, turn=self)

    @classmethod
    def from_ghost(cls, ghost: Ghost) -> QuestionTurn:
        turn = cls(ghost.prompt, number=None)
        turn.state, turn._info = ghost.state, ghost.info
        turn.rows = [ToolRow(kind, text, failed=failed, turn=turn) for kind, text, failed in ghost.rows]
        ghost.turn = turn
        return turn

    async def redraw_ghost(self, ghost: Ghost) -> None:
        """Draw a remounted cancelled or failed turn as it was."""
        self._answer_text = ghost.answer
        await self.answer.update(ghost.answer if ghost.answer.strip() else "*(no answer)*")
        self.draw_steps()
        self.set_badge(ghost.state)

    # -- final state from the views --------------------------------------------------------------------------

    async def show_view(
        self,
        view: QuestionView,
        citation_ids: dict[int, str],
        reviews: dict[str, str] | None = None,
        *,
        steps: bool = False,
    ) -> None:
        """Draw the committed state of this question (answer, badge, citations, optionally tool rows)."""
        await self.end_stream()
        self.question = view.question
        self.citations = view.citations
        self.citation_ids = citation_ids
        if steps:
            self.rows = [ToolRow(step.kind, step.text, failed=step.failed, turn=self) for step in view.steps]
            self.draw_steps()

        def valid(number: int) -> bool:  # an unbacked [n] is not a link
            return number in citation_ids and number not in view.policy.unbacked

        source = link_citations(view.answer, valid) if view.answer.strip() else "*(no answer text)*"
        self._answer_text = view.answer
        await self.answer.update(source)
        self.set_badge(
            view.badge,
            note=view.badge_note,
            grounding=view.grounding_note or " · ".join(filter(None, (view.attribution_note, view.unconfirmed_note))),
        )
        self.show_reviews(reviews or {})

    def show_reviews(self, reviews: dict[str, str]) -> None:
        """The footer: citation numbers, each with its review mark when reviewed."""
        parts: list[Any] = []
        if self.citations:
            parts.append(("cites ", "$text-muted"))
            for number in self.citations:
                chunk_id = self.citation_ids.get(number, "")
                mark = reviews.get(chunk_id)
                parts.append((f"[{number}]", "bold"))
                if mark in MARK_SYMBOLS:
                    symbol, style = MARK_SYMBOLS[mark]
                    parts.append((symbol, f"bold {style}"))
                parts.append(" ")
            parts.append(("· 1–9 jump · r review", "$text-muted"))
        self.set_info(Content.assemble(*parts))
