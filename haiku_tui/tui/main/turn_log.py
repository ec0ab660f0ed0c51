"""The turn log and the answer cursor: a window of a long session's turns, and the keys that move through them.

Only a window of the committed turns is mounted (at most :data:`WINDOW`): moving past its top or
bottom mounts the next few and unmounts as many at the other end, so a key costs the same at 3
questions or 1000. A cancelled or failed turn is not in the committed view; it is drawn after the
committed turn before it, and when it slides out of the window it is kept as a :class:`Ghost` and
drawn again when its place comes back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from haiku_tui.tui.main.turn import Ghost, QuestionTurn
from haiku_tui.tui.main.prompt import PromptArea

if TYPE_CHECKING:
    from haiku_tui.capabilities.views import QuestionView
    from haiku_tui.sessions.workbench import ConversationView

WINDOW = 40
"""Committed turns mounted at most."""
OPENING = 8
"""Turns mounted when a session opens (its newest)."""
JUMP = 4
"""Turns mounted when the window jumps (Home, End, a question far away); more mount as the selection moves."""
STEP = 8
"""Turns mounted at a time when the selection or a scroll passes the window's edge."""
PAGE = 5
"""Answers PageUp/PageDown move the selection by."""


class TurnLog(VerticalScroll):
    """The scrolling list of turns; ``selected_index`` indexes the mounted ones."""

    HELP_TITLE = "Conversation"

    selected_index: reactive[int] = reactive(-1, init=False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(can_focus=False, **kwargs)
        self.forget_views()

    # -- the committed view and the ghosts ------------------------------------------------------------------

    def forget_views(self) -> None:
        """Another session: nothing committed, no ghosts, an empty window."""
        self._view: ConversationView | None = None
        self._views: list[QuestionView] = []
        self._index: dict[int, int] = {}
        self._ghosts: list[Ghost] = []
        self._start = self._end = 0

    def set_views(self, view: ConversationView, *, rebase: bool = False) -> None:
        """The committed view changed (a commit, a review mark): a window at the bottom takes new turns in.
        ``rebase``: the old view held the newest questions of this one (a previewed session, now loaded whole)."""
        at_end = self._end == len(self._views)
        shift = len(view.questions) - len(self._views) if rebase else 0
        self._view, self._views = view, list(view.questions)
        self._index = {q.question: i for i, q in enumerate(self._views)}
        if rebase:
            self._start, self._end = self._start + shift, self._end + shift
            for ghost in self._ghosts:
                ghost.key += shift
        elif at_end:
            self._end = len(self._views)
        else:  # committed while the window was elsewhere: it mounts again when the window reaches it
            outside = [t for t in self.turns if not self._start <= self._index.get(t.question, self._start) < self._end]  # type: ignore[arg-type]
            if outside:
                self.remove_children(outside)

    def keep_uncommitted(self, turn: QuestionTurn) -> None:
        """``turn`` was cancelled or failed: it stays after the newest committed turn, in or out of the window."""
        self._ghosts.append(turn.ghost(len(self._views)))

    @property
    def total(self) -> int:
        """Every turn of the session: committed, cancelled or failed, and the one being answered."""
        running = sum(1 for turn in self.turns if turn.state == "running" and turn.question not in self._index)
        return len(self._views) + len(self._ghosts) + running

    @property
    def turns(self) -> list[QuestionTurn]:
        return list(self.query_children(QuestionTurn))

    # -- mounting and unmounting -------------------------------------------------------------------------

    async def show_views(self, view: ConversationView) -> None:
        """Draw a reopened session: only its newest turns are mounted."""
        self.set_views(view)
        count = len(self._views)
        self._start, self._end = max(0, count - OPENING), count
        await self._mount_range(self._start, self._end)
        if self.turns:
            self.selected_index = len(self.turns) - 1
        self.scroll_end(animate=False)

    def _ghosts_at(self, key: int) -> list[Ghost]:
        return [ghost for ghost in self._ghosts if ghost.key == key and ghost.turn is None]

    async def _mount_range(self, start: int, end: int, *, before: QuestionTurn | None = None) -> int:
        """Mount committed turns ``start``…``end - 1``, each followed by its ghosts; returns how many turns."""
        welcome = self.query("#welcome")
        if welcome and start < end:
            await welcome.remove()
        ghosts = self._ghosts_at(0) if start == 0 else []
        turns = [QuestionTurn.from_ghost(g) for g in ghosts]
        for i in range(start, end):
            question = self._views[i]
            turns.append(QuestionTurn(question.prompt, number=question.number, question=question.question))
            for ghost in self._ghosts_at(i + 1):
                ghosts.append(ghost)
                turns.append(QuestionTurn.from_ghost(ghost))
        if not turns:
            return 0
        await self.mount_all(turns, before=before)
        view = self._view
        assert view is not None
        by_turn = {g.turn: g for g in ghosts}
        for turn in turns:
            if turn in by_turn:
                await turn.redraw_ghost(by_turn[turn])
            else:
                question = self._views[self._index[turn.question]]  # type: ignore[index]
                await turn.show_view(question, view.citation_ids, view.reviews.get(question.question, {}), steps=True)
        return len(turns)

    async def _unmount(self, doomed: list[QuestionTurn]) -> None:
        for ghost in self._ghosts:
            if ghost.turn in doomed:
                ghost.turn = None
        await self.remove_children(doomed)

    def _window_from(self, kept: list[QuestionTurn]) -> None:
        committed = [self._index[t.question] for t in kept if t.question in self._index]  # type: ignore[index]
        self._start, self._end = (committed[0], committed[-1] + 1) if committed else (0, 0)

    async def trim(self, *, bottom: bool) -> None:
        """Unmount committed turns beyond :data:`WINDOW` at one end (with the ghosts that follow them)."""
        turns = self.turns
        excess = sum(1 for t in turns if t.question in self._index) - WINDOW
        if excess <= 0:
            return
        doomed: list[QuestionTurn] = []
        for turn in reversed(turns) if bottom else turns:
            committed = turn.question in self._index
            if excess <= 0 and (bottom or committed):
                break
            if turn.state == "running":
                return  # never unmount the answer being written
            doomed.append(turn)
            excess -= committed
        kept = [turn for turn in turns if turn not in doomed]
        selected = turns[self.selected_index] if 0 <= self.selected_index < len(turns) else None
        await self._unmount(doomed)
        self._window_from(kept)
        if selected in kept:
            self.set_reactive(TurnLog.selected_index, kept.index(selected))

    async def extend(self, step: int) -> int:
        """Mount up to ``abs(step)`` more committed turns above (step < 0) or below; returns turns mounted."""
        turns = self.turns
        if step < 0 and self._start > 0:
            start = max(0, self._start + step)
            added = await self._mount_range(start, self._start, before=turns[0] if turns else None)
            self._start = start
            self.set_reactive(TurnLog.selected_index, self.selected_index + added)
            await self.trim(bottom=True)
            return added
        if step > 0 and self._end < len(self._views):
            end = min(len(self._views), self._end + step)
            following = next((t for t in turns if t.state == "running" and t.question not in self._index), None)
            added = await self._mount_range(self._end, end, before=following)
            self._end = end
            await self.trim(bottom=False)
            return added
        return 0

    async def jump(self, start: int) -> None:
        """Mount the window starting at committed turn ``start`` instead of the current one."""
        count = len(self._views)
        start = max(0, min(start, count - 1))
        end = min(count, start + JUMP)
        if (start, end) == (self._start, self._end):
            return
        running = [t for t in self.turns if t.state == "running" and t.question not in self._index]
        await self._unmount([t for t in self.turns if t not in running])
        self.set_reactive(TurnLog.selected_index, -1)
        self._start, self._end = start, end
        await self._mount_range(start, end, before=running[0] if running else None)

    async def to_end(self) -> None:
        """Bring the window back to the newest turns (before a new question is added)."""
        if self._end < len(self._views):
            await self.jump(len(self._views) - JUMP)

    async def reveal(self, question: int) -> QuestionTurn | None:
        """The mounted turn of ``question``, mounting a window around it when it is not."""
        index = self._index.get(question)
        if index is not None and not self._start <= index < self._end:
            await self.jump(index - JUMP // 2)
        return self.turn_for(question)

    def turn_for(self, question: int) -> QuestionTurn | None:
        """The mounted turn of ``question`` (None when it is out of the window)."""
        return next((turn for turn in self.turns if turn.question == question), None)

    def _on_scroll_up(self, event: events.ScrollUp) -> None:
        if self.scroll_y <= 0 and self._start > 0:
            self.run_worker(self._grow_up(), group="turn-window", exclusive=True)

    async def _grow_up(self) -> None:
        first = self.turns[0] if self.turns else None
        if await self.extend(-STEP) and first is not None and first.is_attached:
            self.scroll_to_widget(first, animate=False, top=True)

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
    def selected_turn(self) -> QuestionTurn | None:
        turns = self.turns
        if not turns:
            return None
        index = self.selected_index if 0 <= self.selected_index < len(turns) else len(turns) - 1
        return turns[index]

    def watch_selected_index(self, old: int, new: int) -> None:
        turns = self.turns
        for index in {old, new}:  # only the two turns that change
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
        target = current + step
        if target < 0:
            target += await self.extend(-max(STEP, -step))
        elif target >= len(turns):
            start = turns[current] if current < len(turns) else None
            await self.extend(max(STEP, step))
            turns = self.turns  # the window may have dropped turns at its top: count from where we were
            if start in turns:
                target = turns.index(start) + step
        self.selected_index = max(0, min(len(self.turns) - 1, target))

    async def action_select_first(self) -> None:
        if self._start > 0:
            await self.jump(0)
        if self.turns:
            self.selected_index = 0

    async def action_select_last(self) -> None:
        await self.to_end()
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
        Binding("pageup", f"select(-{PAGE})", f"{PAGE} answers up", id="conversation.page-up", show=False),
        Binding("pagedown", f"select({PAGE})", f"{PAGE} answers down", id="conversation.page-down", show=False),
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

    async def action_select_last(self) -> None:
        await self.log.action_select_last()
