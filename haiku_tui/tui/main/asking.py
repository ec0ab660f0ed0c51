"""Asking a question and drawing its run: a part of the main screen (typed against :class:`~.host.MainHost`).

A question runs through :class:`haiku_tui.sessions.run.QuestionRun`; this draws its events into the
question's turn (answer text through ``CitationStream``, tool rows), the live panes from its working
state (:class:`~haiku_tui.tui.main.pacing.LivePanes`) and, once it ends, the committed view. Enter →
first words is one frame (:class:`~haiku_tui.tui.main.pacing.FrameHold`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from haiku_tui.sessions.run import Finished, Rerouted, StepFinished, StepStarted, TextDelta, TextStarted
from haiku_tui.tui.main.pacing import FrameHold
from haiku_tui.tui.text import CitationStream

if TYPE_CHECKING:
    from haiku_tui.sessions.run import QuestionRun
    from haiku_tui.tui.main.host import MainHost
    from haiku_tui.tui.main.turn import QuestionTurn


class Asking:
    """Ask, wait for the backend, run, show the outcome (each method's ``self`` is the main screen)."""

    asked = ""
    """The question asked last (while ``running``, the one being answered or waiting)."""
    _question_run: QuestionRun | None = None
    _cancel_requested = False
    _waiting: tuple[str, QuestionTurn] | None = None
    """A question sent before the agent was ready, and its turn."""
    _hold: FrameHold | None = None

    async def ask(self: MainHost, prompt: str) -> None:
        """Ask a question (what Enter in the question box does); before the agent is ready it waits for it."""
        self.asked = prompt
        async with self.drawing:
            self._cancel_requested = False
            if not self.ready:
                self.running = True
                await self.show_waiting(prompt)
                return
            # the question, its tool rows and the answer's first words come in one frame
            self._hold = FrameHold(self.app, self.turn_log, then=self.update_status)
            # the status bar says "answering…" in the next frame: that first frame draws the conversation's column only
            self.set_reactive(type(self).running, True)  # type: ignore[attr-defined]
            # the run scrolls the log itself (it follows the answer, or ends at it), whatever the first frame holds
            turn = await self.conversation.add_turn(prompt, scroll=False)
        self.run_worker(self._run(prompt, turn), group="agent", exclusive=True, name="answer")

    async def show_waiting(self: MainHost, prompt: str) -> None:
        """Add the turn of a question that waits for the agent, last in the log (also when the session drawn
        after it was typed cleared the log: the question stays on screen and keeps its place after the
        session's turns). Called holding ``drawing``."""
        turn = await self.conversation.add_turn(prompt)
        turn.set_badge("running", "waiting for the knowledge base and the model to load; it is sent then")
        self._waiting = (prompt, turn)

    async def cancel_waiting(self: MainHost) -> None:
        """Esc on a question not sent yet. Taken under ``drawing``: a session being drawn replaces the
        question's turn (Esc on the old one crashed, and the question vanished); a question sent meanwhile is
        cancelled by its run (``_cancel_requested``)."""
        async with self.drawing:
            if self._waiting is None:
                return
            _, turn = self._waiting
            self._waiting = None
            self.running = False
            turn.set_badge("cancelled", self.restore_question(turn.prompt))
            self.turn_log.keep_uncommitted(turn)  # counted: the next question is numbered after it

    def cancel_run(self: MainHost) -> None:
        """Esc while ``running``: cancel the run, or the question waiting for the agent."""
        self._cancel_requested = True
        if self._question_run is not None:
            self._question_run.cancel()
        else:  # waiting for the agent, or being added: cancelled once the log is not being drawn
            self.run_worker(self.cancel_waiting(), group="cancel", name="cancel the waiting question")

    async def redraw_waiting(self: MainHost) -> None:
        """A question typed before the session was drawn is drawn again, after it. Called holding ``drawing``."""
        if self._waiting is not None:
            await self.show_waiting(self._waiting[0])

    def holding_frame(self: MainHost) -> bool:
        """The first frame of a question is held back (the live panes wait for it)."""
        return self._hold is not None and not self._hold.painted

    def close_hold(self: MainHost) -> None:
        """The screen goes: a held frame must not leave the collector switched off."""
        if self._hold is not None:
            self._hold.close()

    async def backend_ready(self: MainHost) -> None:
        """The agent is built (or failed to build): send a question that was waiting for it."""
        async with self.drawing:  # a question being added now is sent, not left waiting
            self.ready = True
            waiting, self._waiting = self._waiting, None
        self.update_status()
        if self.workbench.agent is not None and (self.workbench.config.model or "extractive") == "extractive":
            self.run_worker(_warm_extractive, thread=True, group="warm", name="warm up the extractive model")
        if waiting is None:
            return
        prompt, turn = waiting
        if self.workbench.agent is None:
            self.running = False
            await self._show_outcome(
                turn, Finished("failed", self.workbench.model_error or "the model is not available")
            )
            return
        self.run_worker(self._run(prompt, turn), group="agent", exclusive=True, name="answer")

    async def _run(self: MainHost, prompt: str, turn: QuestionTurn) -> None:
        try:
            await self._answer(prompt, turn)
        finally:
            self._release_frames()

    async def _answer(self: MainHost, prompt: str, turn: QuestionTurn) -> None:
        workbench = self.workbench
        run = self._question_run = workbench.ask(prompt)
        if self._cancel_requested:
            run.cancel()
        turn.question = run.question
        citations = CitationStream(lambda n: n in _numbers(run.deps.state))
        rows: dict[str, Any] = {}
        finished = Finished("cancelled")
        log = self.turn_log
        follow = log.max_scroll_y > 0  # the answer stays in view as it grows, until the user scrolls away
        if follow:  # (a log shorter than its pane is anchored once the answer outgrows it, below)
            log.anchor()
        try:
            async for event in run:
                match event:
                    case TextStarted(text):
                        await turn.begin_text()
                        await turn.write(citations.feed(text))
                        self._release_frames(turn)
                    case TextDelta(text):
                        await turn.write(citations.feed(text))
                        self._release_frames(turn)
                    case StepStarted(call_id, step):
                        await turn.write(citations.flush())
                        rows[call_id] = await turn.add_step(step.kind, step.text, running=True)
                    case StepFinished(call_id, step, state):
                        row = rows.pop(call_id, None) or await turn.add_step(step.kind, step.text)
                        row.set_text(step.text, kind=step.kind, failed=step.failed)
                        if call_id:
                            self.live.step(state)
                    case Rerouted(line, search_first):  # asked again: its text supersedes any shown before
                        await turn.write(citations.flush())
                        from haiku_tui.capabilities.views import reroute_step

                        step = reroute_step(line)
                        await turn.add_step(step.kind, step.text)
                        title = "Asked again search-first" if search_first else "The model's context is full"
                        self.notify_line(line[:1].upper() + line[1:], title)
                        self.update_status()  # the path learned for this model
                    case Finished():
                        finished = event
                if not follow and log.max_scroll_y > 0 and not log.scroll_y:
                    # the answer outgrew a log that was shorter than its pane (the session's first question): it
                    # follows from now on (it showed its top until it ended). Not anchored before: Textual scrolls
                    # an anchored log shorter than its pane above its top (a negative scroll_y)
                    follow = True
                    log.anchor()
        finally:
            self._question_run = None
            self._release_frames()
            if self.is_attached and turn.is_attached:
                await turn.write(citations.flush())
                await turn.end_stream()
                for row in rows.values():
                    row.set_text(f"{row.text} (interrupted)", failed=True)
            if self.is_attached:
                self.running = False
        if not turn.is_attached:  # another session is drawn: this run's turn is gone
            self.update_status()
            return
        await self._show_outcome(turn, finished)
        if follow:  # released once the outcome is laid out: that frame ends at it (the badge, the text a stopped
            log.call_after_refresh(self._stop_following)  # stream appended last), not where the answer was
        else:  # once the final answer is laid out
            log.call_after_refresh(log.scroll_end, animate=False)

    def _stop_following(self: MainHost) -> None:
        """The run's outcome is laid out: the log stops following the answer (unless the next question runs)."""
        if not self.running:
            self.turn_log.anchor(False)

    def _release_frames(self: MainHost, turn: QuestionTurn | None = None) -> None:
        """Let the screen repaint: the run ended, or ``turn`` shows the answer's first text."""
        if self._hold is not None and (turn is None or turn.has_answer):
            self._hold.release()

    async def _show_outcome(self: MainHost, turn: QuestionTurn, finished: Finished) -> None:
        workbench = self.workbench
        self.live.flush()
        if finished.outcome == "completed":
            self.notify_line(workbench.refresh())
            view = workbench.view
            question = view.question(turn.question)
            if question is not None:
                await turn.show_view(question, view.citation_ids, view.reviews.get(question.question, {}))
            else:  # a run the evidence capability never saw (should not happen): show the text as is
                turn.set_badge("missing")
            self.app.sub_title = workbench.session.title if workbench.session else ""
        else:
            badge = finished.outcome
            if not turn.has_answer:
                await turn.answer.update("*(no answer)*")
            turn.set_badge(badge, self.restore_question(turn.prompt, finished.error if badge == "failed" else None))
            self.turn_log.keep_uncommitted(turn)  # it stays in the log, in or out of the window
            if badge == "failed":
                self.notify_line(finished.error or "the run failed", "Answer failed", "error")
        self.refresh_panes()
        self.update_status()


def _warm_extractive() -> None:
    """Load the offline embedder the extractive model quotes with, so that the first question does not wait
    for it (~0.4 s); when it cannot be loaded, that question says why."""
    from haiku_tui.store.offline_embedder import embed_texts

    try:
        embed_texts(["warm up"])
    except Exception:  # reported by the first question that needs it
        pass


def _numbers(state: dict[str, Any]) -> set[int]:
    from haiku_tui.capabilities.views import citations_by_number

    return set(citations_by_number(state))
