"""The main screen: conversation, live evidence and policy log over the workbench's open session.

It owns the panes' bindings (from :mod:`haiku_tui.tui.main.actions`), their actions and message
handlers. Everything the panes show is drawn from the workbench's :class:`ConversationView`
(committed state) or, while tools run, from the run's working state. A question runs through
:class:`haiku_tui.sessions.run.QuestionRun`: the screen only draws its events (:mod:`.asking`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Header, Static
from textual.worker import Worker, WorkerState

from haiku_tui.tui.main import actions
from haiku_tui.tui.main.asking import Asking
from haiku_tui.tui.main.conversation import ConversationPane
from haiku_tui.tui.main.turn import QuestionTurn
from haiku_tui.tui.main.turn_log import TurnLog
from haiku_tui.tui.main.daily import DailyActions
from haiku_tui.tui.main.evidence import EvidencePane, PolicyLog
from haiku_tui.tui.help import HelpScreen, binding_rows
from haiku_tui.tui.main.modals import ChunkScreen, ReviewScreen
from haiku_tui.tui.main.pacing import LivePanes
from haiku_tui.tui.main.prompt import PromptArea
from haiku_tui.tui.text import clean_line

if TYPE_CHECKING:
    from haiku_tui.capabilities.views import EvidenceItem, QuestionView
    from haiku_tui.sessions.workbench import ChunkText, Workbench

class StatusBar(Static):
    """Model · last request and what compaction saved · tokens · database · filter (``status.fit_status``)."""


class MainScreen(Asking, DailyActions, Screen[None]):
    """The conversation, the live evidence pane and the policy log."""

    AUTO_FOCUS = "#prompt"
    ALLOW_IN_MAXIMIZED_VIEW = "Footer, StatusBar, Header"
    BINDINGS: ClassVar[list[Binding]] = [
        # Shown here so Quit keeps its place in the footer; the app's priority binding is what acts.
        Binding("ctrl+q", "app.quit", "Quit", id="main.quit"),
        *actions.bindings(),
    ]

    show_evidence: reactive[bool] = reactive(True, init=False)
    show_policy: reactive[bool] = reactive(True, init=False)
    running: reactive[bool] = reactive(False, init=False)

    def __init__(self, workbench: Workbench) -> None:
        super().__init__(id="main-screen")
        self.workbench = workbench
        self.ready = False
        """The session is open and the agent built (or failed to build)."""
        self.views: list[QuestionView] = []
        """What the panes show now (the committed view, or a running question's working state)."""
        self.drawing = asyncio.Lock()
        """Held while the log is cleared for a session or a question is added: Enter (this screen's queue) and
        the session's arrival or the agent's (the app's queue) interleave otherwise, and a question added as
        the session clears the log was lost (or never sent)."""
        self.live = LivePanes(
            self, lambda state: self.refresh_panes(self.workbench.live_questions(state)), wait=self.holding_frame
        )

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with Horizontal(id="main"):
            yield ConversationPane(id="conversation")
            with Vertical(id="side"):
                yield EvidencePane(id="evidence")
                yield PolicyLog(id="policy")
        yield StatusBar(id="status")
        yield Footer()

    def on_unmount(self) -> None:
        self.close_hold()  # quitting mid-question must not leave the collector switched off

    def on_mount(self) -> None:
        self.conversation.border_title = "Conversation"
        self.conversation.border_subtitle = "⏎ send · ⇧⏎ new line · Esc cancel"
        self.prompt.placeholder = "Ask a question about your documents…"
        self.update_status()

    @property
    def conversation(self) -> ConversationPane:
        return self.query_one("#conversation", ConversationPane)

    @property
    def evidence(self) -> EvidencePane:
        return self.query_one("#evidence", EvidencePane)

    @property
    def policy_log(self) -> PolicyLog:
        return self.query_one("#policy", PolicyLog)

    @property
    def prompt(self) -> PromptArea:
        return self.query_one("#prompt", PromptArea)

    @property
    def turn_log(self) -> TurnLog:
        return self.query_one("#turns", TurnLog)

    def notify_line(self, message: str | None, title: str = "", severity: str = "warning") -> None:
        if message:
            self.app.notify(message, title=title, severity=severity, timeout=10 if severity == "error" else 8)  # type: ignore[arg-type]

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """One path for the failures of the workers that only report them (``exit_on_error=False``)."""
        if event.state is WorkerState.ERROR and event.worker.group == "open-source":
            self.notify_line(f"Cannot find the source: {event.worker.error}", "", "error")

    # -- drawing -----------------------------------------------------------------------------------------------

    def refresh_panes(self, views: list[QuestionView] | None = None) -> None:
        """Redraw the evidence pane and the policy log (from the committed view unless ``views`` is given)."""
        view = self.workbench.view
        if views is None:
            self.turn_log.set_views(view)
        self.views = list(view.questions) if views is None else views
        self.evidence.show_views(self.views, view.reviews)
        self.policy_log.show_views(self.views)

    async def show_session(self) -> None:
        """Draw the committed session (or a preview of it): its newest turns (older ones mount on demand), the
        evidence, the policy log."""
        workbench = self.workbench
        session, preview = workbench.session, workbench.preview
        title = session.title if session is not None else preview.summary.title if preview else ""
        async with self.drawing:
            # cancelled while the app starts: typed in this session, they stay after its turns
            kept = [] if self.ready else self.turn_log.ghosts
            await self.conversation.clear()
            await self.turn_log.show_views(workbench.view)  # only the newest turns are mounted
            for ghost in kept:
                await self.conversation.add_turn(ghost.prompt, ghost=ghost)
            await self.redraw_waiting()
        self.refresh_panes()
        self.app.sub_title = title
        self.update_status()
        self.reset_history()

    def session_loaded(self) -> None:
        """The session whose newest answers are shown (a preview) was loaded whole: every pane takes it in."""
        self.turn_log.set_views(self.workbench.view, rebase=True)
        self.refresh_panes()
        if self.workbench.session is not None:
            self.app.sub_title = self.workbench.session.title
        self.update_status()
        self.reset_history()

    def update_status(self) -> None:
        from haiku_tui.tui.main.status import fit_status, status_facts

        bars = self.query(StatusBar)
        if not bars:  # the screen is being taken down (quit, or a test's app closing) while a worker finishes
            return
        bar = bars.first()
        watch = getattr(getattr(self.app, "folder_watch", None), "status", None)
        facts = status_facts(self.workbench, running=self.running, watch=watch)
        bar.update(fit_status(facts, self.size.width - bar.styles.gutter.width))

    def on_resize(self) -> None:
        self.update_status()

    def watch_running(self) -> None:
        self.update_status()

    # -- asking ------------------------------------------------------------------------------------------------

    @on(PromptArea.Submitted)
    async def _submitted(self, event: PromptArea.Submitted) -> None:
        if self.running:
            self.app.notify("An answer is still being written: wait, or press Esc to cancel it.", severity="warning")
            return
        if self.ready and self.workbench.agent is None:
            self.app.notify(self.workbench.model_error or "The model is not available.", severity="error")
            return
        event.prompt.clear()
        await self.ask(event.text)

    # -- layout actions ----------------------------------------------------------------------------------------

    def action_cancel(self) -> None:
        """Esc: cancel a running answer; otherwise restore a maximised pane, or go back to the question box."""
        if self.running:
            self.cancel_run()
            return
        if self.maximized is not None:
            self.minimize()
            return
        self.prompt.focus()

    def action_toggle_evidence(self) -> None:
        """Show or hide the live evidence pane."""
        self.show_evidence = not self.show_evidence

    def action_toggle_policy(self) -> None:
        """Show or hide the policy log."""
        self.show_policy = not self.show_policy

    def watch_show_evidence(self, show: bool) -> None:
        self.evidence.display = show
        self._side_visibility()

    def watch_show_policy(self, show: bool) -> None:
        self.policy_log.display = show
        self._side_visibility()

    def _side_visibility(self) -> None:
        self.query_one("#side").display = self.show_evidence or self.show_policy
        if self.focused is not None and not self.focused.display:
            self.prompt.focus()

    def _pane_of(self, widget: Any) -> Any:
        """The pane (a widget with ``help_sections``) that holds ``widget``."""
        node = widget
        while node is not None and node is not self:
            if hasattr(node, "help_sections"):
                return node
            node = node.parent
        return None

    def action_maximize_pane(self) -> None:
        """Maximise the focused pane, or restore it."""
        if self.maximized is not None:
            self.minimize()
            return
        self.maximize(self._pane_of(self.focused) or self.conversation, container=False)

    def action_focus_pane(self, name: str) -> None:
        """Focus a pane (showing it first when hidden)."""
        if self.maximized is not None:
            self.minimize()
        if name == "evidence":
            self.show_evidence = True
            self.evidence.focus()
        elif name == "policy":
            self.show_policy = True
            self.policy_log.focus()
        else:
            self.prompt.focus()

    def action_help(self) -> None:
        """F1: the keys of the focused pane, then the keys that work everywhere."""
        pane = self._pane_of(self.focused) or self.conversation
        everywhere = binding_rows(actions.bindings()) + binding_rows(type(self.app).BINDINGS)
        sections = [*pane.help_sections(), ("Everywhere", everywhere + [("Tab / Shift+Tab", "Next / previous pane")])]
        self.app.push_screen(HelpScreen(pane.HELP_TITLE, sections))

    # -- evidence, citations, chunks ------------------------------------------------------------------------------

    def action_toggle_cited(self) -> None:
        self.evidence.action_toggle_cited()

    def action_open_chunk(self) -> None:
        entry = self.evidence.highlighted_item
        if entry is None:
            self.app.notify("No evidence item is highlighted.", severity="warning")
            return
        question, item = entry
        self.open_chunk(item, question)

    @on(EvidencePane.OpenChunk)
    def _open_chunk(self, event: EvidencePane.OpenChunk) -> None:
        self.open_chunk(event.item, event.question)

    def open_chunk(self, item: EvidenceItem, question: int) -> None:
        view = self.workbench.view.question(question)
        subtitle = f"retrieved for Q{view.number}: {view.prompt}" if view else ""
        self.app.push_screen(
            ChunkScreen(item.label, item.chunk_id, self.load_neighbours, subtitle=subtitle,
                        locate=self.workbench.locate, open_source=self.open_source, cited=item.citation is not None)
        )

    def load_neighbours(self, chunk_id: str) -> list[ChunkText]:
        """The chunk and its neighbours (the chunk and review screens call it in a worker thread)."""
        return self.workbench.neighbours(chunk_id)

    @on(QuestionTurn.CitationClicked)
    def _citation_clicked(self, event: QuestionTurn.CitationClicked) -> None:
        self.turn_log.select_turn(event.turn)
        self.jump_to_citation(event.number, event.turn)

    def action_jump_citation(self, number: int) -> None:
        """Jump to citation ``[number]`` of the selected answer in the evidence pane."""
        self.jump_to_citation(number, self.turn_log.selected_turn)

    def jump_to_citation(self, number: int, turn: QuestionTurn | None) -> bool:
        chunk_id = self.workbench.view.citation_ids.get(number)
        if chunk_id is None:
            self.app.notify(f"There is no citation [{number}] in this conversation.", severity="warning")
            return False
        self.show_evidence = True
        if self.maximized is not None:
            self.minimize()
        evidence = self.evidence
        if evidence.cited_only and chunk_id not in {i.chunk_id for _, i in evidence.items.values()}:
            evidence.cited_only = False
        question = turn.question if turn is not None and turn.question is not None else -1
        if evidence.focus_item(question, chunk_id):
            evidence.focus()
            return True
        self.app.notify(f"Citation [{number}] is not in the evidence pane.", severity="warning")
        return False

    @on(PolicyLog.ShowQuestion)
    async def _show_question(self, event: PolicyLog.ShowQuestion) -> None:
        turn = await self.turn_log.reveal(event.question)
        if turn is not None:
            self.turn_log.select_turn(turn)
            self.turn_log.focus_selected()

    def action_review(self) -> None:
        """Review the citations of the selected answer (or of the highlighted evidence item's question)."""
        if self.workbench.session is None:  # shown from a preview: marks need the whole session
            self.app.notify("The session is still loading; review its citations in a moment.", severity="warning")
            return
        start_chunk, view = None, None
        if self.focused is self.evidence and self.evidence.highlighted_item is not None:
            question, item = self.evidence.highlighted_item  # its turn may be out of the log's window
            view, start_chunk = self.workbench.view.question(question), item.chunk_id
        else:
            turn = self.turn_log.selected_turn
            if turn is not None and turn.state not in ("running", "cancelled", "failed"):
                view = self.workbench.view.question(turn.question)
        if view is None:
            self.app.notify("Select a completed answer to review (↑/↓ in the conversation).", severity="warning")
            return
        items = self.workbench.review_items(view.question)
        if not items:
            self.app.notify(f"Q{view.number} cites no evidence: there is nothing to review.", severity="warning")
            return
        start = next((i for i, it in enumerate(items) if it.chunk_id == start_chunk), 0)
        question = view.question
        self.app.push_screen(
            ReviewScreen(
                question_number=view.number,
                prompt=view.prompt,
                items=items,
                marks=dict(self.workbench.view.reviews.get(question, {})),
                loader=self.load_neighbours,
                on_mark=lambda chunk_id, mark: self.set_review(question, chunk_id, mark),
                start=start,
                support=view.support,
            )
        )

    def action_wire(self) -> None:
        """The wire inspector for the selected answer: every model request it made, as sent."""
        from haiku_tui.tui.screens.wire import WireScreen

        turn = self.turn_log.selected_turn
        view = self.workbench.view.question(turn.question) if turn is not None else None
        session = self.workbench.session
        if view is None or session is None or turn.state in ("running", "cancelled", "failed"):
            self.app.notify("Select a completed answer to inspect (↑/↓ in the conversation).", severity="warning")
            return
        self.app.push_screen(
            WireScreen(
                session.state, session.messages, view.question, number=view.number, prompt=view.prompt,
                window=self.workbench.history_window, retained=self.workbench.retained_chars,
            )
        )

    def set_review(self, question: int, chunk_id: str, mark: str | None) -> None:
        """Record a review mark, redraw its turn and the evidence, and save the session in a worker."""
        self.workbench.set_review(question, chunk_id, mark)
        self.turn_log.set_views(self.workbench.view)  # turns mounted later draw the new mark
        turn = self.turn_log.turn_for(question, hidden=True)  # a hidden one is shown again as it is
        if turn is not None:
            turn.show_reviews(self.workbench.view.reviews.get(question, {}))
        self.evidence.show_views(self.views, self.workbench.view.reviews)
        self.save_session("the review mark")

    @work(thread=True, group="save", name="save the session")
    def save_session(self, what: str) -> None:
        """Save the open session off the UI thread; says so when it cannot."""
        error = self.workbench.save(what)
        if error:
            self.app.call_from_thread(self.notify_line, error, "", "error")

    # -- sessions, knowledge base, filter -----------------------------------------------------------------------

    def busy(self, what: str) -> bool:
        if self.running:
            self.app.notify(f"Wait for the answer (or press Esc) before {what}.", severity="warning")
        return self.running

    def action_filter(self) -> None:
        """Ask for a document filter; it applies to every later search of this session."""
        from haiku_tui.tui.screens.dialogs import TextInputDialog

        if self.workbench.session is None or self.busy("changing the filter"):
            return
        dialog = TextInputDialog(
            "Filter documents",
            value=self.workbench.session.document_filter or "",
            placeholder="path LIKE '%guide%'   ·   title = 'Tea brewing'",
            detail="An SQL predicate over title, path and metadata. Empty searches every document.",
            submit_label="Apply",
            allow_empty=True,
        )
        self.app.push_screen(dialog, self._filter_done)

    def _filter_done(self, value: str | None) -> None:
        if value is not None and self.workbench.session is not None:
            self.apply_filter(value)

    @work(thread=True, exclusive=True, group="filter", name="apply the filter")
    def apply_filter(self, value: str) -> None:
        """Check the predicate against the knowledge base and save it (off the UI thread)."""
        try:
            matched, error = self.workbench.set_filter(value)
        except ValueError as exc:
            self.app.call_from_thread(self.notify_line, str(exc), "Filter not applied", "error")
            return
        self.app.call_from_thread(self._filter_applied, matched, error)

    def _filter_applied(self, matched: int | None, error: str | None) -> None:
        self.notify_line(error, "", "error")
        if matched is not None:
            self.app.notify(f"Searches now look at {matched} document(s).")
        self.update_status()

    def action_sessions(self) -> None:
        """Open the sessions screen; it answers with a session id, "new", or nothing."""
        from haiku_tui.tui.screens.sessions import SessionsScreen

        if self.busy("switching sessions"):
            return
        session = self.workbench.session
        self.app.push_screen(SessionsScreen(self.workbench.store, session.id if session else None), self._sessions_done)

    def _sessions_done(self, result: str | None) -> None:
        if result and self.running:  # a run on the open session (started from the sessions screen): it is
            self.action_cancel()  # cancelled, nothing saved, before the other session opens
            self.run_worker(self._switch_after_run(result), group="session", name="open a session after the run")
            return
        self.switch_session(result or "")

    async def _switch_after_run(self, target: str) -> None:
        for worker in [w for w in self.app.workers if w.group == "agent"]:
            await worker.wait()
        self.app.notify("The running answer was cancelled (nothing was saved) to open the other session.")
        self.switch_session(target)

    @work(thread=True, exclusive=True, group="session", name="open a session")
    def switch_session(self, target: str) -> None:
        """Off the UI thread: open ``target`` (an id), ``"new"``, or ``""`` (reload the open session, which
        the sessions screen may have renamed or deleted)."""
        workbench = self.workbench
        call = self.app.call_from_thread
        if target == "new":
            workbench.new()
            call(self._session_opened, None, True)
        elif target:
            try:
                notice = workbench.open(target)
            except Exception as exc:  # the open session stays
                call(self.notify_line, clean_line(str(exc), 300), "Could not open the session", "error")
                return
            call(self.notify_line, workbench.session_kb(), "Knowledge base")  # answer from the KB it was made on
            call(self._session_opened, notice, False)
        else:
            error = workbench.reload()
            if error == "deleted":
                call(self.app.notify, "The open session was deleted; this is a new one.")
                call(self._session_opened, None, True)
            elif error:
                call(self.notify_line, error, "Could not reload the session", "error")
            elif workbench.session is not None:
                call(setattr, self.app, "sub_title", workbench.session.title)

    async def _session_opened(self, notice: str | None, focus_prompt: bool) -> None:
        self.notify_line(notice)
        await self.show_session()
        if focus_prompt:
            self.prompt.focus()

    def action_new_session(self) -> None:
        """Start a new, empty session (the current one is already saved)."""
        if not self.busy("starting a new session"):
            self.switch_session("new")

    def action_switch_kb(self) -> None:
        """Ask for another knowledge base; answers then come from it, in a new session."""
        from haiku_tui.tui.screens.dialogs import TextInputDialog

        if self.busy("switching the knowledge base"):
            return
        dialog = TextInputDialog(
            "Switch knowledge base",
            value=self.workbench.db_label(),
            placeholder="~/notes.lancedb   ·   s3://bucket/kb",
            detail="A knowledge base made with `haiku-tui --db PATH add FILES`. A new session starts on it.",
            submit_label="Switch",
        )
        self.app.push_screen(dialog, self._kb_chosen)

    def _kb_chosen(self, value: str | None) -> None:
        if value and value.strip():
            self.switch_kb(value.strip())

    @work(thread=True, exclusive=True, group="session", name="switch the knowledge base")
    def switch_kb(self, db: str) -> None:
        """Off the UI thread: open ``db`` and start a new session on it (or say why not; nothing changes)."""
        try:
            self.workbench.switch_kb(db)
        except ValueError as exc:
            self.app.call_from_thread(self.notify_line, str(exc), "Knowledge base not switched", "error")
            return
        self.app.call_from_thread(self.notify_line, self.workbench.model_error, "Model", "error")
        self.app.call_from_thread(self._session_opened, None, True)

    def action_knowledge(self) -> None:
        """Open the knowledge-base screen (documents, ingest, search playground) once the one being opened or
        prepared (``haiku-tui demo`` ingests the guide behind the first frame) is ready: the screen would
        otherwise open a second handle on it mid-ingest and list it as empty."""
        from haiku_tui.tui.screens.knowledge import KnowledgeScreen

        if not self.ready:
            self.app.notify("The knowledge base is still being opened: try again in a moment.", severity="warning")
            return
        self.app.push_screen(
            KnowledgeScreen(self.workbench.db_label(), kb=self.workbench.kb, store=self.workbench.store)
        )
