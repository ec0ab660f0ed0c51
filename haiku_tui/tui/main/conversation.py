"""The conversation pane: questions, tool rows, streamed answers with citation links, badges.

Turns are mounted one at a time (never rebuilt as a whole), answers stream through
``Markdown.get_stream`` and every piece of document or model text goes through
:mod:`haiku_tui.tui.text` before it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Markdown, Static

from haiku_tui.tui.main.prompt import PromptArea
from haiku_tui.tui.text import clean, link_citations, clean_line, parse_cite_href

if TYPE_CHECKING:
    from textual.widgets._markdown import MarkdownStream

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
        style = "$error" if self.failed else "$warning" if self.running else "bold $accent" if self.kind == "redirect" else ""
        return Content.assemble((f"{icon} ", "bold"), (clean_line(self.text, 300) + (" …" if self.running else ""), style))


class AnswerMarkdown(Markdown):
    """An answer rendered as Markdown; ``[n]`` markers are links with the private ``cite:`` scheme."""

    def __init__(self, markdown: str = "", **kwargs: Any) -> None:
        super().__init__(markdown, open_links=False, **kwargs)


class QuestionTurn(Vertical):
    """One question with its tool rows, answer and footer (badge, citations, review marks)."""

    selected: reactive[bool] = reactive(False)

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

    def __init__(self, prompt: str, *, number: int, question: int | None = None) -> None:
        super().__init__(classes="turn")
        self.prompt = prompt
        self.number = number
        self.question = question
        self.citations: tuple[int, ...] = ()
        self.citation_ids: dict[int, str] = {}
        self.state = "running"
        self._stream: MarkdownStream | None = None
        self._answer_text = ""
        self._steps_since_text = False
        self.rows: list[ToolRow] = []
        self._badge: Content = Content("")
        self._info: Content = Content("")

    def compose(self):
        yield Static(
            Content.assemble((f"Q{self.number} ", "bold $accent"), ("❯ ", "$accent"), clean(self.prompt)),
            classes="question",
        )
        steps = Static(classes="steps")
        steps.display = False
        yield steps
        yield AnswerMarkdown(classes="answer")
        yield Static(classes="turn-footer")

    # -- pieces --------------------------------------------------------------------------------------------

    @property
    def answer(self) -> AnswerMarkdown:
        return self.query_one(".answer", AnswerMarkdown)

    def draw_steps(self) -> None:
        steps = self.query_one(".steps", Static)
        steps.display = bool(self.rows)
        steps.update(Content("\n").join(row.content() for row in self.rows))

    def _draw_footer(self) -> None:
        self.query_one(".turn-footer", Static).update(Content.assemble(self._badge, " ", self._info))

    def on_mount(self) -> None:
        self.set_badge(self.state)

    def on_click(self) -> None:
        self.post_message(self.Selected(self))

    def watch_selected(self, selected: bool) -> None:
        # Turns never take the focus (the answer cursor does): selecting restyles just these two turns.
        self.set_class(selected, "-selected")

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

    def set_badge(self, badge: str, detail: str = "", *, note: str = "") -> None:
        """Show a grounding badge (grounded / ungrounded / missing / violation) or a run state;
        ``note`` (e.g. ``[3] unbacked``) is added to it in the error colour."""
        self.state = badge
        label, tooltip = BADGES.get(badge, (badge, ""))
        self._badge = Content.styled(f" {label} ", BADGE_STYLES.get(badge, "reverse"))
        if note:
            self._badge = Content.assemble(self._badge, (f" {note} ", "bold $text on $error 80%"))
            tooltip += "; markers with no citation behind them"
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
        if self._stream is None:
            self._stream = Markdown.get_stream(self.answer)
        self._answer_text += fragment
        await self._stream.write(fragment)

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
        self.set_badge(view.badge, note=view.badge_note)
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


class TurnLog(VerticalScroll):
    """The scrolling list of turns; up/down select an answer, 1–9 jump to its citations."""

    HELP_TITLE = "Conversation"

    selected_index: reactive[int] = reactive(-1, init=False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(can_focus=False, **kwargs)

    def focus_selected(self) -> bool:
        """Select an answer (the last one when none is) and give the answer cursor the focus."""
        turn = self.selected_turn
        if turn is None:
            return False
        if not turn.selected:
            self.select_turn(turn)
        self.cursor.focus()
        return True

    @property
    def cursor(self) -> AnswerCursor:
        return self.screen.query_one(AnswerCursor)

    @property
    def turns(self) -> list[QuestionTurn]:
        return list(self.query_children(QuestionTurn))

    @property
    def selected_turn(self) -> QuestionTurn | None:
        turns = self.turns
        if not turns:
            return None
        index = self.selected_index if 0 <= self.selected_index < len(turns) else len(turns) - 1
        return turns[index]

    def watch_selected_index(self, old: int, new: int) -> None:
        turns = self.turns
        for index in {old, new}:  # only the two turns that change (long sessions stay fast)
            if 0 <= index < len(turns):
                turns[index].selected = index == new
        if 0 <= new < len(turns):
            self.scroll_to_widget(turns[new], animate=False, top=True)
            self.cursor.show(turns[new], len(turns))

    def select_turn(self, turn: QuestionTurn) -> None:
        turns = self.turns
        if turn in turns:
            self.selected_index = turns.index(turn)

    def action_select(self, step: int) -> None:
        turns = self.turns
        if not turns:
            return
        current = self.selected_index if 0 <= self.selected_index < len(turns) else len(turns)
        self.selected_index = max(0, min(len(turns) - 1, current + step))

    def action_select_first(self) -> None:
        if self.turns:
            self.selected_index = 0

    def action_select_last(self) -> None:
        if self.turns:
            self.selected_index = len(self.turns) - 1

    @on(QuestionTurn.Selected)
    def _clicked(self, event: QuestionTurn.Selected) -> None:
        self.select_turn(event.turn)
        self.call_after_refresh(self.focus_selected)


class AnswerCursor(Static):
    """The focus target of the answers: one line below the log, carrying their keys.

    The turns themselves never take the focus, so moving between answers restyles only the two
    turns whose selection changes (a focused turn would restyle its whole answer on every move).
    """

    HELP_TITLE = "Conversation"

    BINDINGS = [
        Binding("up,k", "select(-1)", "Previous answer", id="conversation.previous"),
        Binding("down,j", "select(1)", "Next answer", id="conversation.next"),
        Binding("home", "select_first", "First answer", id="conversation.first", show=False),
        Binding("end", "select_last", "Last answer", id="conversation.last", show=False),
        Binding("r", "screen.review", "Review citations", id="conversation.review"),
        Binding("w", "screen.wire", "Inspect requests", id="conversation.wire"),
        *[
            Binding(str(n), f"screen.jump_citation({n})", f"Jump to citation {n}", id=f"conversation.cite-{n}", show=False)
            for n in range(1, 10)
        ],
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.can_focus = True
        self._turn: QuestionTurn | None = None

    @property
    def log(self) -> TurnLog:
        return self.screen.query_one(TurnLog)

    def show(self, turn: QuestionTurn, total: int, *, active: bool | None = None) -> None:
        """Name the selected answer; while the cursor is focused, that answer is marked active."""
        if self._turn is not None and self._turn is not turn:
            self._turn.remove_class("-active")
        self._turn = turn
        turn.set_class(self.has_focus if active is None else active, "-active")
        self.update(
            Content.assemble(
                (f"answer {turn.number} of {total}", "bold $accent"),
                ("  ↑↓ select · r review · w wire · 1–9 citation · Esc question box", "$text-muted"),
            )
        )

    def on_focus(self) -> None:
        log = self.log
        turn = log.selected_turn
        if turn is None:
            return
        if not turn.selected:
            log.select_turn(turn)
        self.show(turn, len(log.turns), active=True)

    def on_blur(self) -> None:
        if self._turn is not None:
            self._turn.remove_class("-active")

    def on_key(self, event: events.Key) -> None:
        """A character that is not one of the answers' keys starts a new question in the question box."""
        if event.is_printable and event.character and event.key not in self.app.active_bindings:
            event.stop()
            event.prevent_default()
            prompt = self.screen.query_one(PromptArea)
            prompt.focus()
            prompt.insert(event.character)

    def action_select(self, step: int) -> None:
        self.log.action_select(step)

    def action_select_first(self) -> None:
        self.log.action_select_first()

    def action_select_last(self) -> None:
        self.log.action_select_last()


class ConversationPane(Vertical):
    """The conversation pane: the turn log above the question box."""

    ALLOW_MAXIMIZE = True
    HELP_TITLE = "Conversation"

    def on_descendant_focus(self) -> None:
        self._show_focus(True)

    def on_descendant_blur(self) -> None:
        self.call_after_refresh(self._sync_focus)

    def _sync_focus(self, *, force: bool = False) -> None:
        focused = self.screen.focused if self.is_attached else None
        self._show_focus(focused is not None and self in focused.ancestors, force=force)

    _inside: bool | None = None

    def _show_focus(self, inside: bool, *, force: bool = False) -> None:
        # Inline styles, not a :focus-within rule: that would restyle every turn on each focus change;
        # and only when it changes, since each border change lays the pane out again.
        if inside == self._inside and not force:
            return
        self._inside = inside
        variables = self.app.theme_variables
        colour = variables.get("accent" if inside else "panel-lighten-2", "white")
        self.styles.border = ("round", colour)
        if inside:
            self.styles.border_title_color = variables.get("accent", "white")
        else:
            self.styles.clear_rule("border_title_color")

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """F1 help: the question box's and the answers' keys."""
        from haiku_tui.tui.main.actions import binding_rows

        return [
            ("Question box", binding_rows(PromptArea)),
            ("Answers (Shift+Tab from the question box, or click)", binding_rows(AnswerCursor)),
        ]

    def compose(self):
        with TurnLog(id="turns"):
            yield Static(WELCOME, id="welcome")
        yield AnswerCursor(id="answer-cursor")
        yield PromptArea(id="prompt")

    @property
    def log(self) -> TurnLog:
        return self.query_one(TurnLog)

    async def add_turn(self, prompt: str, *, question: int | None = None, scroll: bool = True) -> QuestionTurn:
        log = self.log
        welcome = log.query("#welcome")
        if welcome:
            await welcome.remove()
        turn = QuestionTurn(prompt, number=len(log.turns) + 1, question=question)
        await log.mount(turn)
        log.selected_index = len(log.turns) - 1
        if scroll:
            log.scroll_end(animate=False)
        return turn

    async def clear(self) -> None:
        log = self.log
        await log.remove_children()
        log.selected_index = -1
        await log.mount(Static(WELCOME, id="welcome"))

    def turn_for(self, question: int) -> QuestionTurn | None:
        for turn in self.log.turns:
            if turn.question == question:
                return turn
        return None


WELCOME = Content.assemble(
    ("Ask a question about your documents.\n\n", "bold"),
    ("Enter", "bold $accent"),
    " sends · ",
    ("Shift+Enter", "bold $accent"),
    " new line · ",
    ("Esc", "bold $accent"),
    " cancels a running answer\n",
    ("Tab", "bold $accent"),
    " moves between panes · ",
    ("F1", "bold $accent"),
    " help · ",
    ("Ctrl+P", "bold $accent"),
    " every command",
)
