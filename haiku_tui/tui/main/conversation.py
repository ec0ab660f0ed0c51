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
    from haiku_tui.sessions.workbench import ConversationView

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


WINDOW = 40
"""Committed turns mounted at most: a long session mounts a window of its turns, never all of them."""
OPENING = 8
"""Turns mounted when a session opens (its newest)."""
STEP = 8
"""Turns mounted at a time when the selection or a scroll passes the window's edge."""


class TurnLog(VerticalScroll):
    """The scrolling list of turns; up/down select an answer, 1–9 jump to its citations.

    Only a window of a long session's committed turns is mounted (at most :data:`WINDOW`); moving
    past its top or bottom mounts the next few and unmounts as many at the other end, so each key
    costs the same at 3 questions or 1000. ``selected_index`` indexes the mounted turns.
    """

    HELP_TITLE = "Conversation"

    selected_index: reactive[int] = reactive(-1, init=False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(can_focus=False, **kwargs)
        self._view: ConversationView | None = None
        self._views: list[QuestionView] = []
        self._index: dict[int, int] = {}
        self._anchors: dict[QuestionTurn, int] = {}
        self._start = self._end = 0

    # -- the window ----------------------------------------------------------------------------------------
    # Committed turns are mounted only inside the window [_start, _end). A turn that is not committed
    # (running, cancelled, failed) stays mounted for good, anchored after the committed turns it followed,
    # and is hidden while its anchor is outside the window, so it never vanishes when the window slides.

    @property
    def total(self) -> int:
        """Every turn of the session: committed ones (mounted or not) and live, cancelled or failed ones."""
        return len(self._views) + sum(1 for turn in self._all() if turn.question not in self._index)

    def _all(self) -> list[QuestionTurn]:
        return list(self.query_children(QuestionTurn))

    def _key(self, turn: QuestionTurn) -> float:
        """Where a turn belongs: committed turn i at i, an uncommitted one just before the turn it preceded."""
        index = self._index.get(turn.question)  # type: ignore[arg-type]
        return index if index is not None else self._anchors.get(turn, len(self._views)) - 0.5

    def _show_uncommitted(self) -> None:
        for turn in self._all():
            if turn.question not in self._index:
                anchor = self._anchors.get(turn, len(self._views))
                turn.display = self._start <= anchor <= self._end

    def anchor(self, turn: QuestionTurn) -> None:
        """A new live turn comes after every committed turn there is now."""
        self._anchors[turn] = len(self._views)

    def set_views(self, view: ConversationView, *, rebase: bool = False) -> None:
        """The committed view changed (a run committed): a window at the bottom takes the new turns in.
        ``rebase``: the old view was the newest questions of this one (a session previewed, then loaded)."""
        at_end = self._end == len(self._views)
        shift = len(view.questions) - len(self._views) if rebase else 0
        self._view, self._views = view, list(view.questions)
        self._index = {q.question: i for i, q in enumerate(self._views)}
        self._anchors = {t: a + shift for t, a in self._anchors.items() if t.is_attached and t.question not in self._index}
        if rebase:
            self._start, self._end = self._start + shift, self._end + shift
        elif at_end:
            self._end = len(self._views)
        else:  # a turn committed while the window was elsewhere: it mounts again when the window reaches it
            outside = [t for t in self._all() if not self._start <= self._index.get(t.question, self._start) < self._end]  # type: ignore[arg-type]
            if outside:
                self.remove_children(outside)

    def forget_views(self) -> None:
        self._view, self._views, self._index, self._anchors = None, [], {}, {}
        self._start = self._end = 0

    async def show_views(self, view: ConversationView) -> None:
        """Draw a reopened session: mount and draw only its newest turns."""
        self.set_views(view)
        count = len(self._views)
        self._start, self._end = max(0, count - OPENING), count
        await self._mount_range(self._start, self._end)
        if self.turns:
            self.selected_index = len(self.turns) - 1
        self.scroll_end(animate=False)

    async def _mount_range(self, start: int, end: int) -> list[QuestionTurn]:
        """Mount and draw committed turns ``start``…``end - 1``, each in its place among the mounted ones."""
        view = self._view
        if view is None or start >= end:
            return []
        welcome = self.query("#welcome")
        if welcome:
            await welcome.remove()
        mounted = [(self._key(turn), turn) for turn in self._all()]
        batch: list[QuestionTurn] = []
        added: list[QuestionTurn] = []
        before: QuestionTurn | None = None
        for index in range(start, end + 1):
            follower = next((turn for key, turn in mounted if key > index), None) if index < end else object()
            if batch and (follower is not before or index == end):
                await self.mount_all(batch, before=before)
                added += batch
                batch = []
            if index < end:
                question = self._views[index]
                batch.append(QuestionTurn(question.prompt, number=question.number, question=question.question))
                before = follower  # type: ignore[assignment]
        for turn in added:
            question = self._views[self._index[turn.question]]  # type: ignore[index]
            await turn.show_view(question, view.citation_ids, view.reviews.get(question.question, {}), steps=True)
        self._show_uncommitted()
        return added

    def _chosen(self) -> QuestionTurn | None:
        turns = self.turns
        return turns[self.selected_index] if 0 <= self.selected_index < len(turns) else None

    def _keep_selection(self, selected: QuestionTurn | None) -> None:
        turns = self.turns
        self.set_reactive(TurnLog.selected_index, turns.index(selected) if selected in turns else -1)

    async def trim(self, *, bottom: bool) -> None:
        """Unmount committed turns beyond :data:`WINDOW` at one end (never the answer being written)."""
        committed = [turn for turn in self._all() if turn.question in self._index]
        excess = len(committed) - WINDOW
        if excess <= 0:
            return
        doomed = committed[-excess:] if bottom else committed[:excess]
        selected = self._chosen()
        await self.remove_children(doomed)
        kept = [self._index[t.question] for t in committed if t not in doomed]  # type: ignore[index]
        self._start, self._end = kept[0], kept[-1] + 1
        self._show_uncommitted()
        self._keep_selection(selected)

    async def extend(self, step: int) -> int:
        """Mount up to ``abs(step)`` more turns above (step < 0) or below; return how many were mounted."""
        selected = self._chosen()
        if step < 0 and self._start > 0:
            start = max(0, self._start + step)
            added = await self._mount_range(start, self._start)
            self._start = start
            self._show_uncommitted()
            self._keep_selection(selected)
            await self.trim(bottom=True)
            return len(added)
        if step > 0 and self._end < len(self._views):
            end = min(len(self._views), self._end + step)
            added = await self._mount_range(self._end, end)
            self._end = end
            self._show_uncommitted()
            self._keep_selection(selected)
            await self.trim(bottom=False)
            return len(added)
        return 0

    async def jump(self, start: int) -> None:
        """Mount the window starting at committed turn ``start`` instead of the current one."""
        count = len(self._views)
        start = max(0, min(start, count - OPENING))
        end = min(count, start + OPENING)
        if (start, end) == (self._start, self._end):
            return
        self.set_reactive(TurnLog.selected_index, -1)
        for turn in self._all():
            turn.selected = False
        await self.remove_children([turn for turn in self._all() if turn.question in self._index])
        self._start, self._end = start, end
        await self._mount_range(start, end)

    async def to_end(self) -> None:
        """Bring the window back to the newest turns (before a new question is added)."""
        if self._end < len(self._views):
            await self.jump(len(self._views) - OPENING)

    # -- selection -----------------------------------------------------------------------------------------

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
        """The turns on screen (an uncommitted turn outside the window is mounted but hidden)."""
        return [turn for turn in self.query_children(QuestionTurn) if turn.display]

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
            self.cursor.show(turns[new], self.total)

    def select_turn(self, turn: QuestionTurn) -> None:
        turns = self.turns
        if turn in turns:
            self.selected_index = turns.index(turn)

    async def action_select(self, step: int) -> None:
        turns = self.turns
        if not turns:
            return
        current = self.selected_index if 0 <= self.selected_index < len(turns) else len(turns)
        if not 0 <= current + step < len(turns):
            await self.extend(STEP if step > 0 else -STEP)
            turns = self.turns
            selected = self._chosen()
            current = turns.index(selected) if selected is not None else len(turns)
        self.selected_index = max(0, min(len(turns) - 1, current + step))

    async def action_page(self, direction: int) -> None:
        """Move the selection by a screenful of answers (the window slides like for ↑/↓)."""
        top = self.scroll_y
        bottom = top + self.scrollable_content_region.height
        shown = sum(1 for turn in self.turns if turn.virtual_region.y < bottom and turn.virtual_region.bottom > top)
        await self.action_select(direction * max(1, shown - 1))

    async def action_select_first(self) -> None:
        if self._start > 0:
            await self.jump(0)
        if self.turns:
            self.selected_index = 0

    async def action_select_last(self) -> None:
        await self.to_end()
        if self.turns:
            self.selected_index = len(self.turns) - 1

    async def reveal(self, question: int) -> QuestionTurn | None:
        """The mounted turn of ``question``, mounting a window around it when it is not."""
        index = self._index.get(question)
        if index is not None and not self._start <= index < self._end:
            await self.jump(index - OPENING // 2)
        return next((turn for turn in self.turns if turn.question == question), None)

    def _on_scroll_up(self, event: events.ScrollUp) -> None:
        if self.scroll_y <= 0 and self._start > 0:
            self.run_worker(self._grow_up(), group="turn-window", exclusive=True)

    async def _grow_up(self) -> None:
        first = self.turns[0] if self.turns else None
        if await self.extend(-STEP) and first is not None and first.is_attached:
            self.scroll_to_widget(first, animate=False, top=True)

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
        Binding("pageup", "page(-1)", "Answers a page up", id="conversation.page-up", show=False),
        Binding("pagedown", "page(1)", "Answers a page down", id="conversation.page-down", show=False),
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
        self.show(turn, log.total, active=True)

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

    async def action_select(self, step: int) -> None:
        await self.log.action_select(step)

    async def action_select_first(self) -> None:
        await self.log.action_select_first()

    async def action_page(self, direction: int) -> None:
        await self.log.action_page(direction)

    async def action_select_last(self) -> None:
        await self.log.action_select_last()


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
        await log.to_end()
        await log.trim(bottom=False)  # a long live session keeps a window too
        turn = QuestionTurn(prompt, number=log.total + 1, question=question)
        log.anchor(turn)
        await log.mount(turn)
        log.selected_index = len(log.turns) - 1
        if scroll:
            log.scroll_end(animate=False)
        return turn

    async def clear(self) -> None:
        log = self.log
        await log.remove_children()
        log.selected_index = -1
        log.forget_views()
        await log.mount(Static(WELCOME, id="welcome"))

    def turn_for(self, question: int) -> QuestionTurn | None:
        """The mounted turn of ``question`` (None when it is outside the window: ``TurnLog.reveal`` mounts it)."""
        return next((turn for turn in self.log.turns if turn.question == question), None)


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
