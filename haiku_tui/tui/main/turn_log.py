"""The turn log: a window of a long session's turns (the keys that move through them: :mod:`.answer_cursor`).

Only a window of the committed turns is shown (at most :data:`WINDOW`), with a reserve of up to
:data:`RESERVE` more mounted but hidden beyond each edge (mounted a few at a time when idle). The idle
steps also lay out (show) reserve turns one at a time until :data:`AHEAD` shown turns lie beyond the
selection on each side, keeping what is on screen where it was in the same frame (:meth:`TurnLog.arrange`),
so a key that moves the selection is a scroll, not a layout of Markdown. A key that outruns them shows
the turns it needs from the reserve itself and hides as many at the other end; the idle steps refill the
reserve and unmount what lies beyond it, so a key costs the same at 3 questions or 1000. The session's
first and last :data:`PIN` turns stay mounted too: Home and End (:meth:`TurnLog.jump`) show them and hide
the old window, which the idle steps then unmount. A cancelled or failed turn is not in the committed
view; it is drawn after the committed turn before it, and when it is unmounted it is kept as a
:class:`Ghost` and drawn again when its place comes back.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.scrollbar import ScrollBar

from haiku_tui.tui.main.answer_cursor import AnswerCursor, mark
from haiku_tui.tui.main.turn import Ghost, QuestionTurn

if TYPE_CHECKING:
    from haiku_tui.capabilities.views import QuestionView
    from haiku_tui.sessions.workbench import ConversationView

WINDOW = 40
"""Committed turns mounted at most."""
OPENING = 8
"""Turns mounted when a session opens (its newest)."""
JUMP = 4
"""Turns shown when the window jumps (Home, End, a question far away); more show as the selection moves."""
STEP = 8
"""Turns shown at a time when a scroll passes the window's top (a key shows just the turns it moves over)."""
RESERVE = 8
"""Committed turns kept mounted but hidden beyond each edge of the window: crossing the edge shows them."""
PREPARE = 2
"""Reserve turns mounted per idle step (a key pressed meanwhile waits for one step at most)."""
IDLE = 0.05
"""Seconds after a change before the next idle step."""
AHEAD = 6
"""Shown turns the idle steps keep beyond the selection on each side (from the reserve): ↑, ↓ and
PageUp/PageDown (:data:`~.answer_cursor.PAGE`) then only scroll."""
PIN = AHEAD + 1 + RESERVE
"""The session's first and last turns kept mounted once idle: all a window at either end holds then (the
selection, :data:`AHEAD` beyond it, the reserve). Home and End only show turns, and leave none to mount."""


class TurnLog(VerticalScroll):
    """The scrolling list of turns; ``selected_index`` indexes the mounted ones."""

    HELP_TITLE = "Conversation"

    selected_index: reactive[int] = reactive(-1, init=False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(can_focus=False, **kwargs)
        self._lock = asyncio.Lock()  # one change of the window at a time: keys and idle steps interleave
        self.forget_views()

    # -- the committed view and the ghosts ------------------------------------------------------------------

    def forget_views(self) -> None:
        """Another session: nothing committed, no ghosts, an empty window."""
        self._view: ConversationView | None = None
        self._views: list[QuestionView] = []
        self._index: dict[int, int] = {}
        self._ghosts: list[Ghost] = []
        self._start = self._end = 0  # the window: committed turns shown
        self._preparing = False
        self._anchor: tuple[QuestionTurn, int] | None = None  # a turn to keep in place on screen, its y before
        self._arranged: Any = None  # the last arrangement of the turns
        self._arranged_size: Any = None  # the size it was arranged in, and the terminal's then
        self._terminal: Any = None
        self._to_end = False  # the next arrangement scrolls to the end (a jump to the newest turns)

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
        else:  # committed while the window was elsewhere: hidden until the window reaches it
            selected = self.selected_turn if 0 <= self.selected_index < len(self.turns) else None
            self._sync_display()
            self._keep_selected(selected)
        self._prepare_later()

    def keep_uncommitted(self, turn: QuestionTurn) -> None:
        """``turn`` was cancelled or failed: it stays after the newest committed turn, in or out of the window.
        Its question id and number go (the next committed question takes them: the turn is not that question's)."""
        turn.question = None
        turn.unnumber()
        self._ghosts.append(turn.ghost(len(self._views)))

    @property
    def ghosts(self) -> list[Ghost]:
        """The cancelled and failed turns, oldest first."""
        return list(self._ghosts)

    @property
    def next_number(self) -> int:
        """The number of a question asked now: only committed questions take one, so the conversation, the
        panes, the keys, a reopened session and an export all count the same questions."""
        return len(self._views) + 1

    @property
    def total(self) -> int:
        """The session's numbered questions: the committed ones and the one being answered."""
        running = any(turn.state == "running" and turn.number is not None and turn.question not in self._index
                      for turn in self.turns)
        return len(self._views) + running

    @property
    def turns(self) -> list[QuestionTurn]:
        """The turns in the window (shown); the reserve beyond its edges is mounted but hidden."""
        return [turn for turn in self.mounted_turns if turn.display]

    @property
    def mounted_turns(self) -> list[QuestionTurn]:
        """Every mounted turn, in the window and beyond it (a scan of the children: a query costs 100× more)."""
        return [child for child in self.children if isinstance(child, QuestionTurn)]

    def arrange(self, size: Any, optimal: bool = False) -> Any:
        """Arrange the turns; after an idle step showed or hid turns above the screen, the scroll offset moves
        by as much as the anchored turn did, before this frame is drawn (the compositor reads the offset
        after arranging), so what is on screen stays where it was."""
        result = super().arrange(size, optimal)
        if optimal or result is self._arranged:
            return result
        previous, self._arranged = self._arranged, result
        terminal = self.app.size
        if previous is not None and terminal != self._terminal and self._was_at_end(previous):
            self._to_end = True  # the terminal was resized with the newest answer in view: it stays in view
        self._arranged_size, self._terminal = size, terminal
        if self._to_end:
            self._to_end = False
            self._scroll_now(result.spatial_map.total_region.bottom - size.height)
        elif self._anchor is not None and previous is not None:
            turn, before = self._anchor
            self._anchor = None
            after = next((p.region.y for p in result.placements if p.widget is turn), None)
            if after is not None and after != before:
                self._scroll_now(self.scroll_y + after - before)
        return result

    def _was_at_end(self, arranged: Any) -> bool:
        """Whether the screen showed the end of ``arranged`` (an arrangement at :attr:`_arranged_size`)."""
        return self.scroll_y >= arranged.spatial_map.total_region.bottom - self._arranged_size.height - 1

    def _scroll_now(self, y: float) -> None:
        """Scroll to ``y`` while arranging (as Textual's own anchoring does): this frame is drawn there."""
        y = max(0, y)
        self.set_reactive(TurnLog.scroll_y, y)
        self.set_reactive(TurnLog.scroll_target_y, y)
        self.vertical_scrollbar.set_reactive(ScrollBar.position, y)

    def _hold_in_place(self) -> None:
        """Keep the selected turn (and so the screen) where it is through the next layout."""
        turn = self.selected_turn
        arranged = self._arranged
        y = (
            None
            if turn is None or arranged is None
            else next((p.region.y for p in arranged.placements if p.widget is turn), None)
        )
        self._anchor = None if y is None else (turn, y)  # type: ignore[assignment]

    # -- mounting and unmounting -------------------------------------------------------------------------

    async def show_views(self, view: ConversationView) -> None:
        """Draw a reopened session: only its newest turns are mounted."""
        async with self._lock:
            await self._show_views(view)

    async def _show_views(self, view: ConversationView) -> None:
        self.set_views(view)
        count = len(self._views)
        self._start, self._end = max(0, count - OPENING), count
        await self._mount(range(self._start, self._end), hidden=False)
        if self.turns:
            self.selected_index = len(self.turns) - 1
        self.scroll_end(animate=False)
        self._prepare_later()

    def _ghosts_at(self, key: int) -> list[Ghost]:
        return [ghost for ghost in self._ghosts if ghost.key == key and ghost.turn is None]

    def _mounted(self) -> dict[int, QuestionTurn]:
        """The mounted committed turns (shown or hidden) by their index in the committed view."""
        index = self._index
        return {i: turn for turn in self.mounted_turns if (i := index.get(turn.question)) is not None}  # type: ignore[arg-type]

    def _kept(self, place: int) -> bool:
        """Whether committed turn ``place`` (-1: before the first) stays mounted: it is in the window or its
        reserve, or one of the :data:`PIN` first or last turns of the session (what Home and End show)."""
        place = max(place, 0)
        return self._start - RESERVE <= place < self._end + RESERVE or place < PIN or place >= len(self._views) - PIN

    def _places(self) -> list[tuple[QuestionTurn, int | None]]:
        """The mounted turns in order, each with the committed turn it is (or follows, for a ghost: -1 before
        the first); None: the turn being answered."""
        ghost_keys = {ghost.turn: ghost.key for ghost in self._ghosts if ghost.turn is not None}
        places = []
        for turn in self.mounted_turns:
            index = self._index.get(turn.question)  # type: ignore[arg-type]
            key = ghost_keys.get(turn)
            places.append((turn, index if index is not None else None if key is None else key - 1))
        return places

    async def _mount(self, indices: range | list[int], *, hidden: bool = True) -> int:
        """Mount the committed turns ``indices`` (ascending, none mounted yet), each followed by its ghosts,
        each run of consecutive ones in its place among the mounted turns; returns how many turns.
        ``hidden``: mounted as reserve beyond the window's edge (no layout change, nothing drawn)."""
        if indices and (welcome := self.query_children("#welcome")):
            await welcome.remove()
        runs: list[list[int]] = []
        for i in indices:
            if runs and runs[-1][-1] == i - 1:
                runs[-1].append(i)
            else:
                runs.append([i])
        batches: list[tuple[list[QuestionTurn], QuestionTurn | None]] = []  # all built before the first await
        for run in runs:
            batch = [QuestionTurn.from_ghost(g) for g in (self._ghosts_at(0) if run[0] == 0 else [])]
            for i in run:
                question = self._views[i]
                batch.append(QuestionTurn(question.prompt, number=question.number, question=question.question))
                batch += [QuestionTurn.from_ghost(g) for g in self._ghosts_at(i + 1)]
            following = next((t for t, place in self._places() if place is None or place >= run[-1]), None)
            batches.append((batch, following))
        turns = [turn for batch, _ in batches for turn in batch]
        for turn in turns:
            turn.display = not hidden
        for batch, following in batches:
            await self.mount_all(batch, before=following)
        if not turns:
            return 0
        view = self._view
        assert view is not None
        by_turn = {g.turn: g for g in self._ghosts if g.turn in turns}
        for turn in turns:
            if not turn.is_attached:  # removed meanwhile (another session)
                continue
            if turn in by_turn:
                await turn.redraw_ghost(by_turn[turn])
            else:
                question = self._views[self._index[turn.question]]  # type: ignore[index]
                await turn.show_view(question, view.citation_ids, view.reviews.get(question.question, {}), steps=True)
        return len(turns)

    def _missing(self, indices: range | list[int], limit: int | None = None) -> list[int]:
        """Of ``indices``, the committed turns not mounted (at most ``limit``), ascending."""
        mounted = self._mounted()
        return sorted([i for i in dict.fromkeys(indices) if i not in mounted][:limit])

    def _sync_display(self) -> int:
        """Show the turns inside the window, hide the reserve; returns how many turns were shown above the
        first one shown before (the selection's index moves by that much)."""
        added, above = 0, True
        for turn, place in self._places():
            shown = place is None or self._start <= place < self._end or (place == -1 and self._start == 0)
            if turn.display and shown:
                above = False
            elif shown:
                turn.display = True
                added += above
            elif turn.display:
                turn.display = False
        return added

    async def _unmount(self, doomed: list[QuestionTurn]) -> None:
        for ghost in self._ghosts:
            if ghost.turn in doomed:
                ghost.turn = None
        await self.remove_children(doomed)

    async def trim(self, *, bottom: bool) -> None:
        """Move the window's other end in so that it holds at most :data:`WINDOW` committed turns (the turns
        left out stay mounted, hidden, as reserve; the idle step unmounts what lies beyond it)."""
        selected = self.selected_turn if 0 <= self.selected_index < len(self.turns) else None
        if self._trim_excess(bottom=bottom):
            self._keep_selected(selected)
            self._prepare_later()

    def _trim_excess(self, *, bottom: bool) -> bool:
        """Hide the window's turns past :data:`WINDOW` at its bottom or top end; whether any were."""
        excess = self._end - self._start - WINDOW
        if excess <= 0:
            return False
        if bottom:
            self._end -= excess
        else:
            self._start += excess
        self._sync_display()
        return True

    def _keep_selected(self, selected: QuestionTurn | None) -> None:
        """Point the selection at ``selected`` again after the shown turns changed (without a redraw)."""
        turns = self.turns
        if selected in turns:
            self.set_reactive(TurnLog.selected_index, turns.index(selected))

    async def extend(self, step: int) -> int:
        """Show up to ``abs(step)`` more committed turns above (step < 0) or below (from the reserve, mounting
        what it lacks); returns the turns shown."""
        async with self._lock:
            return await self._extend(step)

    async def _extend(self, step: int) -> int:
        self._prepare_later()  # the reserve follows the window
        if step < 0 and self._start > 0:
            start = max(0, self._start + step)
            await self._mount(self._missing(range(start, self._start)))
            self._start = start
            added = self._sync_display()
            self.set_reactive(TurnLog.selected_index, self.selected_index + added)
            await self.trim(bottom=True)
            return added
        if step > 0 and self._end < len(self._views):
            end = min(len(self._views), self._end + step)
            before = len(self.turns)
            await self._mount(self._missing(range(self._end, end)))
            self._end = end
            self._sync_display()
            added = len(self.turns) - before
            await self.trim(bottom=False)
            return added
        return 0

    def _prepare_later(self) -> None:
        """After the next frame, mount the reserve and the session's ends (or unmount turns far beyond them) a
        few turns at a time."""
        if not self._preparing:
            self._preparing = True
            self.set_timer(IDLE, self._prepare)

    async def _prepare(self) -> None:
        """One idle step: one reserve turn is laid out, or the turns no longer kept are unmounted, or up to
        :data:`PREPARE` missing turns are mounted (the reserve above, below, then the session's first and last
        :data:`PIN`); another step follows while there is work left."""
        self._preparing = False
        if not self.is_attached or self._view is None:
            return
        async with self._lock:
            await self._prepare_step()

    async def _prepare_step(self) -> None:
        count = len(self._views)
        above = range(self._start - 1, max(0, self._start - RESERVE) - 1, -1)
        below = range(self._end, min(count, self._end + RESERVE))
        ends = [*range(min(PIN, count)), *range(max(0, count - PIN), count)]
        if self._lay_out_ahead():  # one turn's layout per step, before any mounting
            pass
        elif doomed := [turn for turn, place in self._places() if place is not None and not self._kept(place)]:
            await self._unmount(doomed)
        elif missing := self._missing([*above, *below, *ends], PREPARE):
            await self._mount(missing)
        else:
            return
        self._prepare_later()

    def _lay_out_ahead(self) -> bool:
        """Show one mounted reserve turn next to the window where fewer than :data:`AHEAD` shown turns lie
        beyond the selection (above first), the screen held in place; hide the far end of a window grown
        past :data:`WINDOW`. Returns whether it changed anything."""
        turns = self.turns
        if not 0 <= self.selected_index < len(turns):
            return False
        mounted = self._mounted()
        if self.selected_index < AHEAD and self._start - 1 in mounted:
            self._start -= 1
        elif len(turns) - 1 - self.selected_index < AHEAD and self._end in mounted:
            self._end += 1
        else:
            return False
        selected = self.selected_turn
        self._hold_in_place()
        self._sync_display()
        self._trim_excess(bottom=self.selected_index < len(turns) // 2)  # the end far from the selection
        self._keep_selected(selected)
        return True

    async def jump(self, start: int, *, select: int | None = None) -> None:
        """Show the window starting at committed turn ``start`` instead of the current one (mounting what of it
        is not mounted; the session's first and last turns are, once idle); ``select``: the turn of the new
        window to select (-1: its last) in the frame that shows it."""
        async with self._lock:
            await self._jump(start, select)

    async def _jump(self, start: int, select: int | None = None) -> None:
        count = len(self._views)
        start = max(0, min(start, count - 1))
        end = min(count, start + JUMP)
        if (start, end) == (self._start, self._end):
            return
        await self._mount(self._missing(range(start, end)))
        self.selected_index = -1  # the old selection loses its mark (its turn stays mounted, hidden)
        self._start, self._end = start, end
        self._sync_display()  # the new window replaces the old one in one frame (no empty log drawn between)
        if start == 0:  # Home: the top is known before the layout (a later scroll would draw a second frame)
            self.scroll_home(animate=False, immediate=True)
        elif end == count:  # End: the bottom, set when the new window is arranged
            self._to_end = True
        if select is not None and self.turns:
            self.selected_index = select % len(self.turns)
        self._prepare_later()  # the idle steps unmount the old window beyond what is kept

    async def to_end(self, *, select: int | None = None) -> None:
        """Bring the window back to the newest turns (before a new question is added)."""
        if self._end < len(self._views):
            await self.jump(len(self._views) - JUMP, select=select)

    async def reveal(self, question: int) -> QuestionTurn | None:
        """The mounted turn of ``question``, mounting a window around it when it is not."""
        index = self._index.get(question)
        if index is not None and not self._start <= index < self._end:
            await self.jump(index - JUMP // 2)
        return self.turn_for(question)

    def turn_for(self, question: int, *, hidden: bool = False) -> QuestionTurn | None:
        """The turn of ``question`` in the window (None when it is out of it); ``hidden``: or mounted beyond it."""
        turns = self.mounted_turns if hidden else self.turns
        return next((turn for turn in turns if turn.question == question), None)

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
                mark(turns[index], selected=index == new)
        if 0 <= new < len(turns):
            # a move among laid-out turns scrolls in this frame (with the new mark); after a key showed turns
            # the scroll waits for their layout
            arranged = self._arranged
            laid_out = arranged is not None and sum(isinstance(w, QuestionTurn) for w in arranged.widgets) == len(turns)
            immediate = laid_out and all(turn in arranged.widgets for turn in turns)
            self.scroll_to_widget(turns[new], animate=False, top=True, immediate=immediate)
            self.cursor.show(turns[new], self.total)
        self._prepare_later()  # lay out the turns beyond the new selection

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
        if target < 0:  # only the turns the key needs come in (from the reserve): a slide costs one turn's layout
            target += await self.extend(target)
        elif target >= len(turns):
            start = turns[current] if current < len(turns) else None
            await self.extend(target - len(turns) + 1)
            turns = self.turns  # the window may have dropped turns at its top: count from where we were
            if start in turns:
                target = turns.index(start) + step
        self.selected_index = max(0, min(len(self.turns) - 1, target))

    async def action_select_first(self) -> None:
        if self._start > 0:
            await self.jump(0, select=0)
        if self.turns:
            self.selected_index = 0

    async def action_select_last(self) -> None:
        await self.to_end(select=-1)
        if self.turns:
            self.selected_index = len(self.turns) - 1

    @on(QuestionTurn.Selected)
    def _clicked(self, event: QuestionTurn.Selected) -> None:
        self.select_turn(event.turn)
        self.call_after_refresh(self.focus_selected)
