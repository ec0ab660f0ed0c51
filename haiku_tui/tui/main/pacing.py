"""How a running question reaches the screen: one frame for Enter → first words, panes a moment later.

Every repaint of the main screen lays out and paints the conversation and both side panes (tens of
milliseconds), and the run shares the event loop with it. Drawing each tool step as its own frame
and redrawing the panes after each step put several of those frames before the answer's first
words. So, while a question runs:

- :class:`FrameHold` holds the app's repaints from Enter until the answer's first text is in its
  turn (at most :data:`HOLD` seconds): the question, its tool rows and those words come in one
  frame. A slow model's steps still show after :data:`HOLD`. The garbage collector waits until
  that frame is painted (a full pass over the app's objects takes 40–300 ms), and so does what can
  be drawn a frame later (the status bar's "answering…": that frame then repaints only the
  conversation's column, not the full width down to the status bar); the loop then stands aside for
  :data:`HANDOFF` so that the output thread writes that frame to the terminal at once.
- :class:`LivePanes` redraws the evidence pane and the policy log from the run's working state
  :data:`LIVE_DELAY` seconds after a step (later steps join that redraw) and not before the first
  words are painted, so a fast run writes its answer first.
- :class:`PacedStream` appends the answer's later text once per painted frame, all that arrived meanwhile:
  every append lays out and wraps the answer's last paragraph again, so one append per fragment made a
  200 KB answer cost the square of its length (85 s to appear); the text comes at the terminal's pace.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer
    from textual.widget import Widget
    from textual.widgets import Markdown

HOLD = 0.2
"""Seconds a question's first frame waits for its answer's first text at most."""
HANDOFF = 0.001
"""Seconds the loop stands aside once the first frame is queued, so that Textual's output thread writes it at
once: otherwise it waits for the interpreter lock while the loop draws the rest of the stream (up to the 5 ms
switch interval per handoff). Measured in tmux, p50: queued → write finished 19–23 ms without, 2–3 ms with;
queued → the words on the pane 8 → 5–7 ms."""
PAINT_WAIT = 0.5
"""Seconds an append waits for its frame at most (a screen that is not repainting: a dialog over it)."""
LIVE_DELAY = 0.1
"""Seconds after a finished tool step that the panes redraw from the run's state (later steps join it)."""


class FrameHold:
    """Repaints held until :meth:`release` (the first text is in place) or :data:`HOLD` seconds pass;
    the garbage collector until that frame is painted."""

    def __init__(
        self, app: App[Any], wake: Widget, limit: float | None = None, *, then: Callable[[], None] | None = None
    ) -> None:
        """``wake``: a widget laid out again on release, which resumes the screen's updates; ``limit``:
        :data:`HOLD` unless given; ``then``: called once the held frame is painted (what may wait one frame)."""
        self._wake = wake
        self._app = app
        self._then = then
        self.painted = False
        """The held frame (with the first words, or after :data:`HOLD`) is painted."""
        self._gc = gc.isenabled()
        gc.disable()
        self._batch: contextlib.ExitStack | None = contextlib.ExitStack()
        self._batch.enter_context(app.batch_update())
        self._timer: Timer | None = app.set_timer(HOLD if limit is None else limit, self.release, name="first frame")

    def release(self) -> None:
        """Let the screen repaint (idempotent); the collector and the panes resume once it has."""
        batch, self._batch = self._batch, None
        if batch is None:
            return
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        batch.close()
        self._wake.refresh(layout=True)
        self._wake.call_after_refresh(self._painted)
        # in case the screen does not repaint (a dialog over it, the turn removed): the app's timer outlives both
        self._app.set_timer(1.0, self._painted)

    def close(self) -> None:
        """Release now and give the collector back at once (the screen is going away: no frame will come)."""
        self._then = None
        self.release()
        self._painted(handoff=False)

    def _painted(self, handoff: bool = True) -> None:
        """The first frame is painted (queued for the output thread)."""
        if not self.painted:
            self.painted = True
            if handoff:
                time.sleep(HANDOFF)
            if self._gc:
                gc.enable()
            if self._then is not None:
                self._then()


class LivePanes:
    """Draws the panes from a running question's newest working state, :data:`LIVE_DELAY` after a step."""

    def __init__(
        self, owner: Widget, draw: Callable[[dict[str, Any]], None], wait: Callable[[], bool], delay: float = LIVE_DELAY
    ) -> None:
        """``draw(state)`` redraws the panes; while ``wait()`` is true (the first frame is held) they wait."""
        self._owner = owner
        self._draw = draw
        self._wait = wait
        self._delay = delay
        self._state: dict[str, Any] | None = None
        self._timer: Timer | None = None

    def step(self, state: dict[str, Any]) -> None:
        """A tool step finished with ``state``: draw it soon (with any later step's state instead)."""
        self._state = state
        if self._timer is None:
            self._timer = self._owner.set_timer(self._delay, self._fire, name="live panes")

    def _fire(self) -> None:
        if self._wait():
            self._timer = self._owner.set_timer(self._delay, self._fire, name="live panes")
            return
        state, self._state, self._timer = self._state, None, None
        if state is not None:
            self._draw(state)

    def flush(self) -> None:
        """The run ended: a pending redraw is drawn now (the commit's redraw then starts from the panes as
        every run leaves them, however fast it was)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        state, self._state = self._state, None
        if state is not None:
            self._draw(state)


class PacedStream:
    """Streamed Markdown appended to ``markdown`` once per painted frame: each append takes all the text that
    came while the one before was laid out and painted, and the loop then stays free for as long again, so
    keys (Esc) act at once however long the answer grows."""

    def __init__(self, markdown: Markdown) -> None:
        self._markdown = markdown
        self._pending: list[str] = []
        self._wake = asyncio.Event()
        self._stopped = False
        self._task = asyncio.create_task(self._run(), name="paced answer")
        self.appends = 0
        """Appends made (each one a layout of the answer's last block)."""

    def write(self, fragment: str) -> None:
        """Queue ``fragment``; it is on screen by the next append."""
        if fragment:
            self._pending.append(fragment)
            self._wake.set()

    async def _run(self) -> None:
        # ends on the flag, not only on cancel: Python 3.11's wait_for can swallow a cancel that lands as its
        # awaitable finishes, and a loop that then waits for more text would hang the run that stops it
        while not self._stopped:
            await self._wake.wait()
            if self._stopped:
                return
            started = time.monotonic()
            await self._append()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(PAINT_WAIT):
                    await self._markdown.wait_for_refresh()
            if not self._stopped:
                await asyncio.sleep(time.monotonic() - started)

    async def _append(self) -> None:
        text = "".join(self._pending)
        self._pending.clear()
        self._wake.clear()
        if text:
            self.appends += 1
            await self._markdown.append(text)

    async def stop(self) -> None:
        """Stop pacing; the text still queued is appended now."""
        self._stopped = True
        self._wake.set()
        self._task.cancel()
        await asyncio.wait([self._task])  # its end, not its cancel: a cancel of the caller's own still stops the caller
        if not self._task.cancelled():
            self._task.result()
        if self._markdown.is_attached:
            await self._append()
