"""The haiku-tui app: conversation, live evidence and policy log over a saved session.

``HaikuApp(agent_config, *, store=None, session_id=None, kb=None)``. Everything the panes show
is drawn from :func:`haiku_tui.capabilities.views.question_views`: live from the run's working
``deps.state`` while tools run, and from the committed session state afterwards. A run works on
a copy of the session state; only a completed run is committed (conversation + state together)
and saved, so Esc (cancel) or a failure leaves the session exactly as it was.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Footer, Header, Static

from haiku_tui import locations
from haiku_tui.tui.main.commands import HaikuCommands
from haiku_tui.tui.main.conversation import AnswerCursor, ConversationPane, Turn, TurnLog
from haiku_tui.tui.main.evidence import EvidencePane, PolicyLog
from haiku_tui.tui.main.modals import ChunkScreen, ChunkText, HelpScreen, ReviewItem, ReviewScreen
from haiku_tui.tui.main.prompt import PromptArea
from haiku_tui.tui.text import CitationStream, compact_number, one_line

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from haiku_tui.agent import AgentConfig
    from haiku_tui.capabilities.views import QuestionView
    from haiku_tui.sessions import Session, SessionStore
    from haiku_tui.store import KnowledgeBase

MAIN_ONLY_ACTIONS = frozenset(
    {
        "toggle_evidence",
        "toggle_policy",
        "maximize_pane",
        "focus_pane",
        "review",
        "jump_citation",
        "toggle_cited",
        "open_chunk",
        "sessions",
        "knowledge",
        "new_session",
        "help",
        "cancel",
    }
)


"""Model requests one question may make (the conversation's earlier usage is not counted)."""


DRAWN_AT_ONCE = 12
"""Turns of a reopened session drawn before it is shown; older ones are drawn just after."""


class StatusBar(Static):
    """Model · database · document filter · size of the last request and what compaction saved."""


class HaikuApp(App[None]):
    """The haiku-tui main screen."""

    CSS_PATH = "app.tcss"
    TITLE = "haiku-tui"
    AUTO_FOCUS = "#prompt"
    ESCAPE_TO_MINIMIZE = False
    ALLOW_IN_MAXIMIZED_VIEW = "Footer, StatusBar, Header"
    COMMANDS = App.COMMANDS | {HaikuCommands}
    HELP_TITLE = "Everywhere"
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (100, "-wide")]

    BINDINGS: ClassVar[list[Binding]] = [
        Binding("f1", "help", "Help", id="app.help", tooltip="Help for the focused pane"),
        Binding("escape", "cancel", "Cancel / back", id="app.cancel", show=False, tooltip="Cancel the running answer; else restore a maximised pane; else back to the question box"),
        Binding("f2", "focus_pane('conversation')", "Conversation", id="app.focus-conversation", show=False, tooltip="Focus the question box"),
        Binding("f3", "focus_pane('evidence')", "Evidence", id="app.focus-evidence", show=False, tooltip="Focus the evidence pane"),
        Binding("f4", "focus_pane('policy')", "Policy", id="app.focus-policy", show=False, tooltip="Focus the policy log"),
        Binding("ctrl+t", "toggle_evidence", "Evidence pane", id="app.toggle-evidence", tooltip="Show / hide the evidence pane"),
        Binding("ctrl+l", "toggle_policy", "Policy log", id="app.toggle-policy", tooltip="Show / hide the policy log"),
        Binding("ctrl+f", "maximize_pane", "Maximise", id="app.maximize", tooltip="Maximise the focused pane / restore the layout"),
        Binding("ctrl+o", "sessions", "Sessions", id="app.sessions", tooltip="Open, search, rename, delete and export sessions"),
        Binding("ctrl+n", "new_session", "New session", id="app.new-session", show=False, tooltip="Start a new, empty session"),
        Binding("ctrl+b", "knowledge", "Knowledge base", id="app.knowledge", show=False, tooltip="Documents, ingest and the search playground"),
        Binding("ctrl+g", "filter", "Filter documents", id="app.filter", show=False, tooltip="Search only documents matching an SQL filter"),
        Binding("ctrl+p", "command_palette", "Commands", id="app.command-palette", show=False, tooltip="Every command, searchable"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
    ]

    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("Help for the focused pane", "F1 · the keys of the focused pane", "help"),
        ("Cancel the running answer", "Esc · nothing is saved for a cancelled run", "cancel"),
        ("Focus the conversation", "F2 · the question box and the answers", "focus_pane('conversation')"),
        ("Focus the evidence pane", "F3 · every retrieved chunk, grouped by question", "focus_pane('evidence')"),
        ("Focus the policy log", "F4 · grounding per question", "focus_pane('policy')"),
        ("Show / hide the evidence pane", "Ctrl+T", "toggle_evidence"),
        ("Show / hide the policy log", "Ctrl+L", "toggle_policy"),
        ("Maximise / restore the focused pane", "Ctrl+F", "maximize_pane"),
        ("Evidence: all chunks / cited only", "c in the evidence pane", "toggle_cited"),
        ("Open the highlighted chunk with its neighbours", "Enter in the evidence pane", "open_chunk"),
        ("Review the selected answer's citations", "r on an answer · s / x / u mark each source", "review"),
        ("Sessions…", "Ctrl+O · open, search, rename, delete, export", "sessions"),
        ("New session", "Ctrl+N · start an empty conversation", "new_session"),
        ("Knowledge base…", "Ctrl+B · documents, ingest, search playground", "knowledge"),
        ("Filter documents…", "Ctrl+G · e.g. path LIKE '%guide%' (empty clears it)", "filter"),
        ("Quit", "Ctrl+Q", "quit"),
    ]

    show_evidence: reactive[bool] = reactive(True, init=False)
    show_policy: reactive[bool] = reactive(True, init=False)
    running: reactive[bool] = reactive(False, init=False)

    def __init__(
        self,
        agent_config: AgentConfig | None = None,
        *,
        store: SessionStore | None = None,
        session_id: str | None = None,
        kb: KnowledgeBase | None = None,
        model: Model | None = None,
    ) -> None:
        """``store`` defaults to ``SessionStore()`` at ``<data dir>/sessions.db``; ``session_id`` (an id or
        unique prefix) opens a saved session, otherwise a new one starts; ``kb`` is an open knowledge base
        (otherwise ``agent_config.db`` is opened in a worker); ``model`` overrides the configured model
        (a test double or a script)."""
        super().__init__()
        if agent_config is None:
            from haiku_tui.agent import AgentConfig

            agent_config = AgentConfig()
        self.agent_config = agent_config
        self.store: SessionStore | None = store
        self.session_id = session_id
        self.kb: KnowledgeBase | None = kb
        self._owns_kb = kb is None
        self.model_override = model
        self.session: Session | None = None
        self.agent: Any = None
        self.views: list[QuestionView] = []
        self.kb_error: str | None = None
        self.last_error: str | None = None
        self._question_run: Any = None
        self._cancel_requested = False
        self._kb_ready = False

    # -- layout ----------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with Horizontal(id="main"):
            yield ConversationPane(id="conversation")
            with Vertical(id="side"):
                yield EvidencePane(id="evidence")
                yield PolicyLog(id="policy")
        yield StatusBar(id="status")
        yield Footer()

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

    # -- start-up ----------------------------------------------------------------------------------------------

    async def on_mount(self) -> None:
        self._load_theme()
        self.theme_changed_signal.subscribe(self, self._save_theme)
        self.conversation.border_title = "Conversation"
        self.conversation.border_subtitle = "⏎ send · ⇧⏎ new line · Esc cancel"
        self.prompt.placeholder = "Ask a question about your documents…"
        self.update_status()
        self.start_backend()  # the first frame paints now; sessions, the agent and the KB load behind it

    async def _start_session(self) -> None:
        try:
            self._open_session()
        except Exception as exc:  # a bad --session must not leave a blank screen
            self.notify(one_line(str(exc), 300), title="Could not open the session", severity="error", timeout=10)
            self.session_id = None
            self._open_session()
        await self.show_session()
        self.update_status()

    def _open_session(self) -> None:
        from haiku_tui.agent import model_label  # noqa: F401 - fail early if the agent layer is missing
        from haiku_tui.sessions import SessionStore

        if self.store is None:
            self.store = SessionStore()
        if self.session_id:
            self.session = self.store.load(self.session_id)
        else:
            self.session = self.store.new(model=self.agent_config.model or "extractive", db=self._db_label())
        self.sub_title = self.session.title

    def _db_label(self) -> str:
        """The knowledge base as the user named it (``--db``), else where it is."""
        if self.agent_config.db:
            return str(self.agent_config.db)
        if self.kb is not None and getattr(self.kb, "uri", None):
            return str(self.kb.uri)
        return locations.resolve_db(None)

    @work(thread=True, exclusive=True, group="kb", name="start")
    def start_backend(self) -> None:
        """Off the UI thread: import the heavy layers, open the session, open the KB, build the agent."""
        import pydantic_ai  # noqa: F401 - imported here so the UI thread never waits for it

        import haiku_tui.capabilities.views  # noqa: F401
        import haiku_tui.sessions.model  # noqa: F401

        self.call_from_thread(self._start_session)
        error = None
        if self.kb is None:
            from haiku_tui.store import KnowledgeBase

            try:
                self.kb = KnowledgeBase.open(locations.resolve_db(self.agent_config.db), create=False)
                self._owns_kb = True
            except Exception as exc:
                error = one_line(str(exc), 300)
        self.call_from_thread(self._kb_opened, error)

    def _kb_opened(self, error: str | None) -> None:
        self.kb_error = error
        self._kb_ready = True
        if error:
            self.notify(error, title="Knowledge base", severity="warning", timeout=8)
        try:
            self.agent = self.make_agent()
        except Exception as exc:
            from haiku_tui.agent import describe_error

            self.last_error = describe_error(exc)
            self.notify(self.last_error, title="Model", severity="error", timeout=10)
        self.update_status()

    def make_agent(self) -> Any:
        """The agent for this app (override or pass ``model=`` to script it)."""
        import pydantic_ai

        from haiku_tui.agent import build_agent

        pydantic_ai.BANNER_ENABLED = False  # the first-run banner would print over the screen
        return build_agent(self.agent_config, kb=self.kb, model=self.model_override)

    async def on_unmount(self) -> None:
        if self._owns_kb and self.kb is not None:
            try:
                self.kb.close()
            except Exception:
                pass

    # -- settings (theme) -----------------------------------------------------------------------------------

    def _settings(self) -> dict[str, Any]:
        try:
            data = json.loads(Path(locations.settings_path()).read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _load_theme(self) -> None:
        theme = self._settings().get("theme")
        if isinstance(theme, str) and theme in self.available_themes:
            self.theme = theme

    def _save_theme(self, theme: Any) -> None:
        self.conversation._sync_focus(force=True)
        settings = self._settings()
        settings["theme"] = getattr(theme, "name", str(theme))
        try:
            path = Path(locations.settings_path())
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(settings, indent=2), encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            self.notify(f"could not save settings: {exc}", severity="warning")

    # -- drawing from the views -------------------------------------------------------------------------------

    def compute_views(self, state: dict[str, Any] | None = None, messages: list[Any] | None = None) -> list[QuestionView]:
        from haiku_tui.capabilities.views import question_views

        assert self.session is not None
        state = self.session.state if state is None else state
        messages = self.session.messages if messages is None else messages
        return question_views(state, messages, compaction=self.agent_config.compaction)

    @staticmethod
    def citation_ids(state: dict[str, Any]) -> dict[int, str]:
        """Citation number → chunk id, across every evidence namespace."""
        from haiku_tui.capabilities import ledger

        return {
            entry["index"]: cid
            for namespace in ledger.evidence_namespaces(state).values()
            for cid, entry in namespace["citation_index"].items()
        }

    def reviews(self) -> dict[str, dict[str, str]]:
        """``app_data["reviews"]``: question (as a string) → chunk id → mark."""
        reviews = self.session.app_data.get("reviews") if self.session else None
        return reviews if isinstance(reviews, dict) else {}

    def refresh_panes(self, views: list[QuestionView] | None = None) -> None:
        self.views = self.compute_views() if views is None else views
        self.evidence.show_views(self.views, self.reviews())
        self.policy_log.show_views(self.views)

    async def show_session(self) -> None:
        """Draw the whole committed session: every turn from the views, the evidence and the policy log."""
        assert self.session is not None
        await self.conversation.clear()
        state = self.session.state
        self.views = self.compute_views(state)
        ids = self.citation_ids(state)
        reviews = self.reviews()
        log = self.turn_log
        if self.views:
            welcome = log.query("#welcome")
            if welcome:
                await welcome.remove()
            turns = [Turn(view.prompt, number=view.number, question=view.question) for view in self.views]
            await log.mount_all(turns)
            pairs = list(zip(turns, self.views, strict=True))
            for turn, view in pairs[-DRAWN_AT_ONCE:]:
                await turn.show_view(view, ids, reviews.get(str(view.question), {}), steps=True)
            log.selected_index = len(turns) - 1
            log.scroll_end(animate=False)
            if len(pairs) > DRAWN_AT_ONCE:
                log.anchor()  # older turns fill in above without moving the view
                self.draw_older_turns(pairs[:-DRAWN_AT_ONCE], ids, reviews)
        self.refresh_panes(self.views)
        self.sub_title = self.session.title

    @work(exclusive=True, group="draw-turns", name="draw older turns")
    async def draw_older_turns(
        self, pairs: list[tuple[Turn, QuestionView]], ids: Any, reviews: dict[str, dict[str, str]]
    ) -> None:
        """Draw a reopened session's older turns, newest first, a few at a time (the app stays responsive)."""
        for turn, view in reversed(pairs):
            if not turn.is_attached:
                return  # another session was opened meanwhile
            await turn.show_view(view, ids, reviews.get(str(view.question), {}), steps=True)
            await asyncio.sleep(0)

    def update_status(self) -> None:
        from haiku_tui.agent import model_label

        parts: list[Any] = [("model ", "$text-muted"), (model_label(self.agent_config.model, self.agent_config.base_url), "bold")]
        db = self._db_label()
        parts += [("  │  db ", "$text-muted"), (one_line(db, 60), "")]
        if self.kb_error:
            parts.append((" (unavailable)", "$warning"))
        state = self.session.state if self.session else {}
        flt = self.session.document_filter if self.session else None
        parts += [("  │  filter ", "$text-muted"), (one_line(flt, 40) if flt else "none", "")]
        if self.session and self.session.messages and self.views:
            from haiku_tui.capabilities.views import request_size

            compacted, full = request_size(state, self.session.messages)
            saved = full - compacted
            parts += [("  │  last request ", "$text-muted"), (f"{compact_number(compacted)} chars", "bold")]
            if saved > 0 and full:
                parts.append((f" (compaction saved {compact_number(saved)}, {saved * 100 // full}%)", "$success"))
            elif not self.agent_config.compaction:
                parts.append((" (compaction off)", "$text-muted"))
        if self.running:
            parts += [("  │  ", "$text-muted"), ("answering… Esc cancels", "bold $warning")]
        self.query_one(StatusBar).update(Content.assemble(*parts))

    def watch_running(self) -> None:
        self.update_status()

    # -- asking ------------------------------------------------------------------------------------------------

    @on(PromptArea.Submitted)
    async def _submitted(self, event: PromptArea.Submitted) -> None:
        if self.running:
            self.notify("An answer is still being written: wait, or press Esc to cancel it.", severity="warning")
            return
        if self.agent is None:
            if not self._kb_ready:
                self.notify("Still opening the knowledge base…", severity="information")
            else:
                self.notify(self.last_error or "The model is not available.", severity="error")
            return
        event.prompt.clear()
        await self.ask(event.text)

    async def ask(self, prompt: str) -> None:
        """Ask a question (what Enter in the question box does)."""
        self.running = True
        self._cancel_requested = False
        turn = await self.conversation.add_turn(prompt)
        self.run_worker(self._run(prompt, turn), group="agent", exclusive=True, name="answer")

    async def _run(self, prompt: str, turn: Turn) -> None:
        from haiku_tui.sessions.run import Finished, QuestionRun, StepFinished, StepStarted, TextDelta, TextStarted

        session = self.session
        assert session is not None
        run = self._question_run = QuestionRun(
            self.agent, session, prompt, store=self.store, model=self.agent_config.model or "extractive", db=self._db_label()
        )
        if self._cancel_requested:
            run.cancel()
        turn.question = run.question
        citations = CitationStream(lambda n: n in self.citation_ids(run.deps.state))
        rows: dict[str, Any] = {}
        finished = Finished("cancelled")
        try:
            async for event in run:
                match event:
                    case TextStarted(text):
                        await turn.begin_text()
                        await turn.write(citations.feed(text))
                    case TextDelta(text):
                        await turn.write(citations.feed(text))
                    case StepStarted(call_id, step):
                        await turn.write(citations.flush())
                        rows[call_id] = await turn.add_step(step.kind, step.text, running=True)
                    case StepFinished(call_id, step, state):
                        row = rows.pop(call_id, None) or await turn.add_step(step.kind, step.text)
                        row.set_text(step.text, kind=step.kind, failed=step.failed)
                        if call_id:
                            self.refresh_panes(self.compute_views(state))
                    case Finished():
                        finished = event
        finally:
            self._question_run = None
            await turn.write(citations.flush())
            await turn.end_stream()
            for row in rows.values():
                row.set_text(f"{row.text} (interrupted)", failed=True)
            self.running = False
        if finished.outcome == "completed":
            state = session.state
            self.views = self.compute_views(state)
            view = next((v for v in self.views if v.question == turn.question), None)
            if view is not None:
                await turn.show_view(view, self.citation_ids(state), self.reviews().get(str(view.question), {}))
            else:  # a run the evidence capability never saw (should not happen): show the text as is
                turn.set_badge("missing")
            self.sub_title = session.title
            self.refresh_panes(self.views)
        else:
            self.last_error = finished.error or self.last_error
            badge = finished.outcome
            detail = "cancelled: nothing was saved" if badge == "cancelled" else f"{self.last_error} · nothing was saved"
            if not turn.has_answer:
                await turn.answer.update("*(no answer)*")
            turn.set_badge(badge, detail)
            if badge == "failed":
                self.notify(self.last_error or "the run failed", title="Answer failed", severity="error", timeout=10)
            self.refresh_panes()
        self.update_status()

    # -- actions ----------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in MAIN_ONLY_ACTIONS and len(self.screen_stack) > 1:
            return False
        return True

    def action_cancel(self) -> None:
        """Esc: cancel a running answer; otherwise restore a maximised pane, or go back to the question box."""
        if self.running:
            self._cancel_requested = True
            if self._question_run is not None:
                self._question_run.cancel()
            return
        if self.screen.maximized is not None:
            self.screen.minimize()
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
        side = self.query_one("#side")
        side.display = self.show_evidence or self.show_policy
        focused = self.focused
        if focused is not None and not focused.display:
            self.prompt.focus()

    def _pane_of(self, widget: Any) -> Any:
        node = widget
        while node is not None:
            if isinstance(node, (ConversationPane, EvidencePane, PolicyLog)):
                return node
            node = node.parent
        return None

    def action_maximize_pane(self) -> None:
        """Maximise the focused pane, or restore it."""
        if self.screen.maximized is not None:
            self.screen.minimize()
            return
        pane = self._pane_of(self.focused) or self.conversation
        self.screen.maximize(pane, container=False)

    def action_focus_pane(self, name: str) -> None:
        """Focus a pane (showing it first when hidden)."""
        if self.screen.maximized is not None:
            self.screen.minimize()
        if name == "evidence":
            self.show_evidence = True
            self.evidence.focus()
        elif name == "policy":
            self.show_policy = True
            self.policy_log.focus()
        else:
            self.prompt.focus()

    def action_toggle_cited(self) -> None:
        self.evidence.action_toggle_cited()

    def action_open_chunk(self) -> None:
        entry = self.evidence.highlighted_item
        if entry is None:
            self.notify("No evidence item is highlighted.", severity="warning")
            return
        question, item = entry
        self.open_chunk(item.chunk_id, item.label, question)

    @on(EvidencePane.OpenChunk)
    def _open_chunk(self, event: EvidencePane.OpenChunk) -> None:
        self.open_chunk(event.item.chunk_id, event.item.label, event.question)

    def open_chunk(self, chunk_id: str, label: str, question: int | None = None) -> None:
        view = next((v for v in self.views if v.question == question), None)
        subtitle = f"retrieved for Q{view.number}: {view.prompt}" if view else ""
        self.push_screen(ChunkScreen(label, chunk_id, self.load_neighbours, subtitle=subtitle))

    def load_neighbours(self, chunk_id: str) -> list[ChunkText]:
        """The chunk and its neighbours from the knowledge base; the stored citation text as a fallback."""
        if self.kb is not None:
            try:
                records = self.kb.neighbours(chunk_id, radius=1)
            except Exception:
                records = []
            if records:
                return [ChunkText(r.chunk_id, r.label(), r.text, r.order) for r in records]
        from haiku_tui.capabilities import ledger

        entry = ledger.citation_for(self.session.state if self.session else {}, chunk_id)
        if entry is not None:
            label = " › ".join([entry.get("title", ""), *entry.get("headings", [])])
            return [ChunkText(chunk_id, label + " (stored copy)", entry.get("text", ""))]
        for view in self.views:
            for item in view.items:
                if item.chunk_id == chunk_id:
                    return [ChunkText(chunk_id, item.label + " (snippet only)", item.snippet)]
        return []

    @on(Turn.CitationClicked)
    def _citation_clicked(self, event: Turn.CitationClicked) -> None:
        self.turn_log.select_turn(event.turn)
        self.jump_to_citation(event.number, event.turn)

    def action_jump_citation(self, number: int) -> None:
        """Jump to citation ``[number]`` of the selected answer in the evidence pane."""
        self.jump_to_citation(number, self.turn_log.selected_turn)

    def jump_to_citation(self, number: int, turn: Turn | None) -> bool:
        chunk_id = self.citation_ids(self.session.state if self.session else {}).get(number)
        if chunk_id is None:
            self.notify(f"There is no citation [{number}] in this conversation.", severity="warning")
            return False
        self.show_evidence = True
        if self.screen.maximized is not None:
            self.screen.minimize()
        evidence = self.evidence
        if evidence.cited_only and chunk_id not in {i.chunk_id for _, i in evidence.items.values()}:
            evidence.cited_only = False
        question = turn.question if turn is not None and turn.question is not None else -1
        if evidence.focus_item(question, chunk_id):
            evidence.focus()
            return True
        self.notify(f"Citation [{number}] is not in the evidence pane.", severity="warning")
        return False

    @on(PolicyLog.ShowQuestion)
    def _show_question(self, event: PolicyLog.ShowQuestion) -> None:
        turn = self.conversation.turn_for(event.question)
        if turn is not None:
            self.turn_log.select_turn(turn)
            self.turn_log.focus_selected()

    def action_review(self) -> None:
        """Review the citations of the selected answer (or of the highlighted evidence item's question)."""
        start_chunk = None
        turn = self.turn_log.selected_turn
        if self.focused is self.evidence and self.evidence.highlighted_item is not None:
            question, item = self.evidence.highlighted_item
            turn = self.conversation.turn_for(question) or turn
            start_chunk = item.chunk_id
        view = next((v for v in self.views if turn is not None and v.question == turn.question), None)
        if turn is None or view is None or turn.state in ("running", "cancelled", "failed"):
            self.notify("Select a completed answer to review (↑/↓ in the conversation).", severity="warning")
            return
        ids = self.citation_ids(self.session.state)  # type: ignore[union-attr]
        labels = {i.chunk_id: i.label for i in view.items}
        items = []
        for number in view.citations:
            chunk_id = ids.get(number)
            if chunk_id is None:
                continue
            label = labels.get(chunk_id)
            if label is None:
                from haiku_tui.capabilities import ledger

                entry = ledger.citation_for(self.session.state, chunk_id) or {}  # type: ignore[union-attr]
                label = " › ".join([entry.get("title", "?"), *entry.get("headings", [])])
            items.append(ReviewItem(number, chunk_id, label))
        if not items:
            self.notify(f"Q{view.number} cites no evidence: there is nothing to review.", severity="warning")
            return
        start = next((i for i, it in enumerate(items) if it.chunk_id == start_chunk), 0)
        question = view.question

        def on_mark(chunk_id: str, mark: str | None) -> None:
            self.set_review(question, chunk_id, mark)

        self.push_screen(
            ReviewScreen(
                question_number=view.number,
                prompt=view.prompt,
                items=items,
                marks=dict(self.reviews().get(str(question), {})),
                loader=self.load_neighbours,
                on_mark=on_mark,
                start=start,
            )
        )

    def notify(self, message: str, *, markup: bool = False, **kwargs: Any) -> None:  # type: ignore[override]
        """Notifications carry model, document and error text: never read them as markup."""
        super().notify(message, markup=markup, **kwargs)

    def save_session(self, what: str) -> bool:
        """Save the open session outside a run (a review mark, a filter); says so when it cannot."""
        assert self.session is not None and self.store is not None
        try:
            self.store.save(self.session)
        except Exception as exc:  # noqa: BLE001 - stale, corrupt or a full disk: one line, nothing lost in memory
            self.notify(f"could not save {what}: {one_line(str(exc), 200)}", severity="error")
            return False
        return True

    def set_review(self, question: int, chunk_id: str, mark: str | None) -> None:
        """Record a review mark in ``app_data["reviews"][str(question)][chunk_id]`` and save the session."""
        assert self.session is not None and self.store is not None
        self.session.set_review(question, chunk_id, mark)
        self.save_session("the review mark")
        turn = self.conversation.turn_for(question)
        if turn is not None:
            turn.show_reviews(self.reviews().get(str(question), {}))
        self.evidence.show_views(self.views, self.reviews())

    # -- help and other screens ----------------------------------------------------------------------------------

    def action_help(self) -> None:
        """F1: the keys of the focused pane."""
        pane = self._pane_of(self.focused)
        sections: list[tuple[str, list[tuple[str, str]]]] = []
        if isinstance(pane, ConversationPane) or pane is None:
            title = "Conversation"
            sections.append(("Question box", _binding_rows(PromptArea)))
            sections.append(("Answers (Shift+Tab from the question box, or click)", _binding_rows(AnswerCursor)))
        elif isinstance(pane, EvidencePane):
            title = "Live evidence"
            rows = [("↑ ↓", "Move between chunks")] + _binding_rows(EvidencePane)
            sections.append(("Evidence pane", rows))
            sections.append(
                (
                    "Statuses",
                    [
                        ("cited", "cited by this question's answer"),
                        ("retained", "cited earlier: later requests still carry it in full"),
                        ("receipt", "earlier and uncited: later requests carry only a receipt"),
                        ("current", "retrieved for this question, not cited"),
                    ],
                )
            )
        else:
            title = "Policy log"
            sections.append(("Policy log", [("↑ ↓", "Move between questions")] + _binding_rows(PolicyLog)))
        sections.append(("Everywhere", _binding_rows(HaikuApp) + [("Tab / Shift+Tab", "Next / previous pane")]))
        self.push_screen(HelpScreen(title, sections))

    def action_filter(self) -> None:
        """Ask for a document filter; it applies to every later search of this session."""
        from haiku_tui.tui.screens.dialogs import TextInputDialog

        if self.session is None or self.running:
            self.notify("Wait for the answer (or press Esc) before changing the filter.", severity="warning")
            return
        dialog = TextInputDialog(
            "Filter documents",
            value=self.session.document_filter or "",
            placeholder="path LIKE '%guide%'   ·   title = 'Tea brewing'",
            detail="An SQL predicate over title, path and metadata. Empty searches every document.",
            submit_label="Apply",
            allow_empty=True,
        )
        self.push_screen(dialog, self._filter_done)

    def _filter_done(self, value: str | None) -> None:
        if value is None or self.session is None:
            return
        value = value.strip() or None
        if value and self.kb is not None:
            try:
                matched = len(self.kb.filter_document_ids(value))
            except Exception as exc:  # noqa: BLE001 - the store says what is wrong with the predicate
                self.notify(one_line(str(exc), 300), title="Filter not applied", severity="error")
                return
            self.notify(f"Searches now look at {matched} document(s).")
        self.session.set_document_filter(value)
        if self.session.messages:
            self.save_session("the filter")
        self.update_status()

    def action_sessions(self) -> None:
        """Open the sessions screen; it answers with a session id, "new", or nothing."""
        try:
            from haiku_tui.tui.screens.sessions import SessionsScreen
        except ImportError:
            self.notify("The sessions screen is not available.", severity="error")
            return
        if self.running:
            self.notify("Wait for the answer (or press Esc) before switching sessions.", severity="warning")
            return
        self.push_screen(SessionsScreen(self.store, self.session.id if self.session else None), self._sessions_done)

    async def _sessions_done(self, result: str | None) -> None:
        if not result:
            # the session may have been renamed or deleted over there
            if self.session is not None and self.store is not None and self.session.revision:
                from haiku_tui.sessions import SessionNotFound

                try:
                    fresh = self.store.load(self.session.id)
                except SessionNotFound:
                    self.notify("The open session was deleted; this is a new one.")
                    await self.action_new_session()
                    return
                except Exception as exc:  # noqa: BLE001
                    self.notify(one_line(str(exc), 300), title="Could not reload the session", severity="error")
                    return
                self.session = fresh
                self.sub_title = fresh.title
            return
        if result == "new":
            await self.action_new_session()
            return
        try:
            self.session = self.store.load(result)  # type: ignore[union-attr]
        except Exception as exc:  # noqa: BLE001
            self.notify(one_line(str(exc), 300), title="Could not open the session", severity="error")
            return
        self.session_id = self.session.id
        await self.show_session()
        self.update_status()

    async def action_new_session(self) -> None:
        """Start a new, empty session (the current one is already saved)."""
        if self.running:
            self.notify("Wait for the answer (or press Esc) before starting a new session.", severity="warning")
            return
        self.session_id = None
        self._open_session()
        await self.show_session()
        self.update_status()
        self.prompt.focus()

    def action_knowledge(self) -> None:
        """Open the knowledge-base screen (documents, ingest, search playground)."""
        try:
            from haiku_tui.tui.screens.knowledge import KnowledgeScreen
        except ImportError:
            self.notify("The knowledge-base screen is not available.", severity="error")
            return
        self.push_screen(KnowledgeScreen(self._db_label(), kb=self.kb))

    def palette_commands(self) -> list[tuple[str, str, str]]:
        return list(self.PALETTE)


def _binding_rows(cls: type) -> list[tuple[str, str]]:
    """(keys, description) for the bindings a class declares itself."""
    rows = []
    digits = False
    for binding in cls.__dict__.get("BINDINGS", []):
        if not isinstance(binding, Binding):
            continue
        if binding.id and binding.id.startswith("conversation.cite-"):
            if not digits:
                digits = True
                rows.append(("1 … 9", "Jump to that citation in the evidence pane"))
            continue
        keys = " / ".join(_key_label(k) for k in binding.key.split(","))
        rows.append((keys, binding.tooltip or binding.description))
    return rows


def _key_label(key: str) -> str:
    names = {"escape": "Esc", "enter": "Enter", "up": "↑", "down": "↓", "left": "←", "right": "→", "backspace": "Backspace"}
    parts = key.split("+")
    modifier = len(parts) > 1
    return "+".join(names.get(p, p.capitalize() if len(p) > 1 or (modifier and i) else p) for i, p in enumerate(parts))
