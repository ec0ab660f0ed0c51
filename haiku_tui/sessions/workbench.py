"""The workbench: the open session, its store, the knowledge base and the agent, without Textual.

Screens ask it for what they show and for what they change (open, new, filter, review marks,
a chunk's neighbours, the items to review, switching knowledge base) and run the calls that
touch a database in worker threads. What the panes draw is :attr:`Workbench.view`, a
:class:`ConversationView` computed once per load or commit, never per redraw.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from haiku_tui import locations
from haiku_tui.text import one_line

from .view import ConversationView, commit_view, conversation_view, peek_view

if TYPE_CHECKING:
    from haiku_tui.store.locate import SourceLocation
    from haiku_tui.agent import AgentConfig
    from haiku_tui.capabilities.views import QuestionView
    from haiku_tui.store import KnowledgeBase

    from haiku_tui.agent.model_paths import Learned, ModelPaths

    from .fallback import ContextMemory, Fallback
    from .model import Session
    from .run import QuestionRun
    from .store import SessionPeek, SessionStore


@dataclass(frozen=True)
class ChunkText:
    """A chunk as a viewer shows it (from the knowledge base, or the copy stored with a citation)."""

    chunk_id: str
    label: str
    text: str
    order: int | None = None


@dataclass(frozen=True)
class ReviewItem:
    """One citation of an answer to review."""

    number: int
    chunk_id: str
    label: str


PEEK_RUNS = 8
"""Runs read first when a saved session opens at start-up: their answers show while the rest loads."""


def _settings() -> tuple[int, int, int, str | None]:
    """Earlier questions a run is given, the cited text its requests keep in full and the model's context size
    (config.toml ``history_window``, ``retained_chars``, ``context_tokens``), and the line naming a bad setting (its
    default is then used; ``search_first_passages`` is read where the agent is built)."""
    from haiku_tui.agent import config

    values, errors = [], []
    for read, default in (
        (config.history_window, config.HISTORY_WINDOW),
        (config.retained_chars, config.RETAINED_CHARS),
        (config.context_tokens, 0),
        (config.search_first_passages, config.SEARCH_FIRST_PASSAGES),
    ):
        try:
            values.append(read())
        except Exception as exc:  # ModelConfigError: one line naming the fix
            values.append(default)
            errors.append(f"{one_line(str(exc), 300)} (using {default})")
    return values[0], values[1], values[2], "; ".join(errors) or None


LIVE_REBUILT = 13
"""Questions whose views a running step rebuilds: the running one and the newest the evidence pane lists."""


class Workbench:
    """Holds the session, the session store, the knowledge base and the agent for the screens."""

    def __init__(
        self,
        config: AgentConfig,
        *,
        store: SessionStore | None = None,
        kb: KnowledgeBase | None = None,
        model: Any = None,
        prepare_kb: Callable[[], Any] | None = None,
    ) -> None:
        """``store`` defaults to ``SessionStore()``; ``kb`` an open knowledge base (else ``config.db`` is
        opened by :meth:`open_kb`, after ``prepare_kb()`` when given, e.g. ingesting the demo guide);
        ``model`` overrides the configured model (a test double or script)."""
        self.config = config
        self.store = store
        self.kb = kb
        self._owns_kb = kb is None
        self.model_override = model
        self.prepare_kb = prepare_kb
        self.session: Session | None = None
        self.preview: SessionPeek | None = None
        """A session being opened at start-up: its newest runs, shown until :meth:`finish_start` loads it."""
        self._preview_keep_model = False
        self.agent: Any = None
        self.view = ConversationView()
        self._view_of: tuple[Any, ...] | None = None
        """What :attr:`view` was computed from (the session object and settings): a commit updates it."""
        self.kb_error: str | None = None
        self.model_error: str | None = None
        self._save_lock = threading.Lock()
        self.history_window, self.retained_chars, self.context_tokens, self.settings_error = _settings()
        self.learned: Learned | None = None
        """What was learned about the model in use (read when the agent is built): it may answer search-first."""
        self._paths: ModelPaths | None = None

    # -- start-up -----------------------------------------------------------------------------------------

    def start(self, session_id: str | None = None, *, keep_model: bool = False, preview: bool = False) -> str | None:
        """Open ``session_id``, else a new session; when it cannot be opened, a new one and the reason.
        ``keep_model``: the model was chosen on the command line, so it wins over the session's.

        ``preview``: read only the state and newest runs of ``session_id`` (:attr:`preview`, shown by
        :attr:`view`) and leave :attr:`session` unset; :meth:`finish_start` then loads it whole."""
        if session_id and preview:
            try:
                self.preview = self._store().peek(session_id, runs=PEEK_RUNS)
                self.view = peek_view(self.preview, compaction=self.config.compaction)
                self._preview_keep_model = keep_model
                return None
            except Exception:  # the whole load below says what is wrong, or opens what peek could not
                self.preview = None
        if session_id:
            try:
                return self.open(session_id, keep_model=keep_model)
            except Exception as exc:  # a bad --session must not leave the app without a session
                self.new()
                return one_line(str(exc), 300)
        self.new()
        return None

    def finish_start(self) -> str | None:
        """Load the session :meth:`start` previewed, whole (it becomes :attr:`session`); when it cannot be
        loaded, a new session and the reason. Nothing to do without a preview."""
        preview = self.preview
        if preview is None:
            return None
        try:
            return self.start(preview.summary.id, keep_model=self._preview_keep_model)
        finally:
            self.preview = None

    def open(self, session_id: str, *, keep_model: bool = False) -> str | None:
        """Open a saved session (id or unique prefix); raises when it cannot be (the open one stays).

        It answers with the model it was saved with (unless ``keep_model``). Returns a notice about
        data that was ignored (malformed review marks) or a saved model that cannot be used, if any.
        """
        session = self._store().load(session_id)
        self.session = session
        notices = [self.refresh(), None if keep_model else self.session_model()]
        return "; ".join(n for n in notices if n) or None

    def session_model(self) -> str | None:
        """Answer with the model the open session was saved with, when it is another one; when it cannot
        be used the current model stays and the returned line says so."""
        wanted = self.session.model if self.session is not None else None
        current = self.config.model or "extractive"
        if not wanted or wanted == current or self.model_override is not None:
            return None
        from haiku_tui.agent import resolve_model

        try:
            resolve_model(wanted, self.config.base_url)
        except Exception as exc:  # ModelConfigError: unknown provider, missing key…
            reason = one_line(str(exc), 200)
            return (
                f"this session was answered by {wanted}, which cannot be used here ({reason}); "
                f"answering with {current}"
            )
        previous = self.config
        self.config = dataclasses.replace(self.config, model=wanted)
        if self.agent is None:
            return None  # built with the session's model when the app's start-up builds it
        error = self.build_agent()
        if error:
            self.config = previous
            self.build_agent()
            return (
                f"this session was answered by {wanted}, which cannot be used here ({error}); answering with {current}"
            )
        return None

    def new(self) -> None:
        """Start a new, empty session (saved with its first answer)."""
        self.session = self._store().new(model=self.config.model or "extractive", db=self.db_label())
        self.refresh()

    def _store(self) -> SessionStore:
        if self.store is None:
            from .store import SessionStore

            self.store = SessionStore()
        return self.store

    def open_kb(self) -> str | None:
        """Open the knowledge base (when none was given): the open session's, else the configured one.

        Returns the error line when it cannot be opened (or a notice that the session's is gone).
        """
        if self.kb is None:
            if self.prepare_kb is not None:
                try:
                    self.prepare_kb()
                except Exception as exc:  # then opening it says what is missing
                    self.kb_error = one_line(str(exc), 300)
            notice = self.session_kb()
            if self.kb is not None:
                return notice
            from haiku_tui.store import KnowledgeBase

            try:
                self.kb = KnowledgeBase.open(locations.resolve_db(self.config.db), create=False)
                self._owns_kb = True
            except Exception as exc:  # missing, empty or another embedder: one line
                self.kb_error = one_line(str(exc), 300)
            return notice or self.kb_error
        return self.kb_error

    def session_kb(self) -> str | None:
        """Open the knowledge base the open session was made on, when it is not the open one.

        The agent is rebuilt over it. When it cannot be opened the current one stays, and the
        returned line says so.
        """
        db = self.session.db if self.session is not None else None
        if not db or (self.kb is not None and locations.resolve_db(db) == locations.resolve_db(self.db_label())):
            return None
        from haiku_tui.store import KnowledgeBase

        try:
            kb = KnowledgeBase.open(db, create=False)
        except Exception as exc:  # moved, deleted or another embedder
            if self.kb is None:
                return f"this session's knowledge base {db} cannot be opened ({one_line(str(exc), 200)})"
            return (
                f"this session was made on {db}, which cannot be opened ({one_line(str(exc), 200)}); "
                f"answers come from {self.db_label()}"
            )
        self._use_kb(kb, db, rebuild=self.kb is not None)
        return None

    def switch_kb(self, db: str) -> None:
        """Open the knowledge base ``db`` and start a new session on it (the open one is already saved).

        Raises ``ValueError`` with one line when it cannot be opened; then nothing changes.
        """
        from haiku_tui.store import KnowledgeBase

        try:
            kb = KnowledgeBase.open(db, create=False)
        except Exception as exc:  # missing, empty or another embedder
            raise ValueError(one_line(str(exc), 300)) from None
        self._use_kb(kb, db, rebuild=True)
        self.new()

    def _use_kb(self, kb: KnowledgeBase, db: str, *, rebuild: bool) -> None:
        self.close()
        self.kb, self._owns_kb, self.kb_error = kb, True, None
        self.config = dataclasses.replace(self.config, db=db)
        if rebuild:
            self.build_agent()

    def build_agent(self) -> str | None:
        """Build the agent over the knowledge base, on the path in use (:meth:`search_first`); the error line when
        the model cannot be used."""
        import pydantic_ai

        from haiku_tui.agent import build_agent, describe_error

        pydantic_ai.BANNER_ENABLED = False  # the first-run banner would print over the screen
        self.learned = self._learned()
        try:
            config = dataclasses.replace(self.config, search_first=self.search_first())
            self.agent = build_agent(config, kb=self.kb, model=self.model_override)
            self.model_error = None
        except Exception as exc:
            self.agent = None
            self.model_error = describe_error(exc)
        return self.model_error

    # -- the path: tools or search-first ------------------------------------------------------------------

    def model_key(self) -> str:
        """The model and its server, as what is learned about them is kept."""
        from haiku_tui.agent import model_label

        return model_label(self.config.model or "extractive", self.config.base_url)

    def _learnable(self) -> bool:
        """The path is chosen automatically for a real model (the extractive model and test doubles search)."""
        from haiku_tui.agent import is_extractive

        return self.config.search_first is None and self.model_override is None and not is_extractive(self.config.model)

    def _learned(self) -> Learned | None:
        if not self._learnable():
            return None
        if self._paths is None:
            from haiku_tui.agent.model_paths import ModelPaths

            self._paths = ModelPaths()
        learned = self._paths.learned(self.model_key())
        if self._paths.problem and self._paths.problem not in (self.settings_error or ""):
            self.settings_error = "; ".join(filter(None, [self.settings_error, self._paths.problem]))
        return learned

    def search_first(self) -> bool:
        """True when questions are asked search-first: chosen, or learned for this model and server."""
        if self.config.search_first is not None:
            return self.config.search_first
        return self.learned is not None and self.learned.search_first

    def path_text(self) -> str:
        """The path in use, as the status bar says it (``tools``, ``search-first (…; remembered)``)."""
        from haiku_tui.agent.model_paths import path_text

        return path_text(self.config.search_first, self.learned)

    def set_search_first(self, on: bool) -> str | None:
        """The app's switch: search-first from now on, or back to tools (what was learned about this model is
        forgotten, so its next question tries tools again). The error line when the agent cannot be built."""
        if not on and self._paths is not None and self._learnable():
            try:
                self._paths.forget(self.model_key())
            except OSError as exc:
                return f"could not forget this model's path: {one_line(str(exc), 200)}"
        self.config = dataclasses.replace(self.config, search_first=True if on else None)
        return self.build_agent()

    def fallback(self) -> Fallback | None:
        """How a question is asked again search-first when the tools path cannot ground it (None: it is not)."""
        if not self._learnable() or self.search_first():
            return None
        from .fallback import Fallback

        return Fallback(
            agent=self._search_first_agent, label=self.model_key(), searchable=self._holds_documents,
            paths=self._paths, on_learned=self._path_learned,
        )

    def context_memory(self) -> ContextMemory | None:
        """The model's context size as its server gave it, for a real model (None: the extractive model, a double)."""
        from haiku_tui.agent import is_extractive

        if self.model_override is not None or is_extractive(self.config.model):
            return None
        from .fallback import ContextMemory

        return ContextMemory(self.model_key(), self._paths, self.context_tokens)

    def _search_first_agent(self) -> Any:
        from haiku_tui.agent import build_agent

        agent = build_agent(dataclasses.replace(self.config, search_first=True), kb=self.kb, model=self.model_override)
        if self.search_first():  # remembered: the next questions are asked search-first at once
            self.agent = agent
        return agent

    def _path_learned(self, reroute: Any, remembered: bool) -> None:
        if self._paths is not None:
            self.learned = self._paths.learned(self.model_key())

    def _holds_documents(self) -> bool:
        return self.kb is not None and self.kb.holds_documents()

    def close(self) -> None:
        if self._owns_kb and self.kb is not None:
            try:
                self.kb.close()
            except Exception:  # closing on the way out must not fail the exit
                pass

    def db_label(self) -> str:
        """The knowledge base as the user named it (``--db``), else where it is."""
        if self.config.db:
            return str(self.config.db)
        if self.kb is not None and getattr(self.kb, "uri", None):
            return str(self.kb.uri)
        return locations.resolve_db(None)

    # -- the conversation view -----------------------------------------------------------------------------------

    def refresh(self) -> str | None:
        """Recompute :attr:`view` from the committed session (after a load or a commit): after a commit of the
        session the view was made from, only what the commit can change (:func:`view.commit_view`)."""
        assert self.session is not None
        settings = {
            "compaction": self.config.compaction,
            "window": self.history_window,
            "retained": self.retained_chars,
        }
        key = (self.session, *settings.values())  # the session object itself: a reopened one is another
        if self._view_of == key:
            self.view, notice = commit_view(self.view, self.session, **settings)
        else:
            self.view, notice = conversation_view(self.session, **settings)
        self._view_of = key
        return notice

    def live_questions(self, state: dict[str, Any]) -> list[QuestionView]:
        """Question views of a running question's working state (what the panes show while tools run).

        Only the newest :data:`LIVE_REBUILT` are rebuilt from it; older ones are the committed views (a
        step costs the same at question 1000 as at 3, and the commit redraws everything exactly)."""
        from haiku_tui.capabilities.views import question_views

        assert self.session is not None
        session = self.session
        live = question_views(
            state, session.conversation.messages, compaction=self.config.compaction, last=LIVE_REBUILT,
            offset=session.first_message, retained_chars=self.retained_chars,
        )
        first = live[0].question if live else None
        return [v for v in self.view.questions if first is not None and v.question < first] + live

    # -- asking -------------------------------------------------------------------------------------------

    def ask(self, prompt: str) -> QuestionRun:
        """The run of ``prompt`` in the open session; it commits and saves only when it completes."""
        from .run import QuestionRun

        assert self.session is not None and self.agent is not None
        self.session.draft = ""  # sent: saved with the run's answer; a cancelled run leaves it in the box
        return QuestionRun(
            self.agent,
            self.session,
            prompt,
            store=self.store,
            model=self.config.model or "extractive",
            db=self.db_label(),
            window=self.history_window,
            retained=self.retained_chars,
            fallback=self.fallback(),
            search_first=self.search_first(),
            context=self.context_memory(),
        )

    # -- everyday: model switch, history -------------------------------------------------------------------

    def set_model(self, name: str, base_url: str | None = None) -> str | None:
        """Answer with another model from now on: checked first (``ModelConfigError``, one line, and nothing
        changes), then built and recorded in the session. Returns the error line when it cannot be built."""
        from haiku_tui.agent import resolve_model

        name, base_url = name.strip(), (base_url or "").strip() or None
        resolve_model(name, base_url)
        previous = (self.config, self.model_override, self.agent)
        self.config = dataclasses.replace(self.config, model=name, base_url=base_url)
        self.model_override = None
        error = self.build_agent()
        if error:
            self.config, self.model_override, self.agent = previous
            return error
        if self.session is not None:
            self.session.model = name
        return None

    def locate(self, chunk_id: str) -> SourceLocation | None:
        """Where a chunk starts in its source file (line or page), or None when the knowledge base lacks it."""
        from haiku_tui.store.locate import chunk_location

        if self.kb is None:
            return None
        record = self.kb.get_chunks([chunk_id]).get(chunk_id)
        return chunk_location(record) if record is not None else None

    def earlier_prompts(self, sessions: int = 20) -> list[str]:
        """The questions of the ``sessions`` most recently updated other sessions, oldest first (for ↑)."""
        return self._store().recent_prompts(sessions=sessions, exclude=self.session.id if self.session else None)

    # -- changes outside a run -----------------------------------------------------------------------------

    def keep_draft(self, text: str) -> str | None:
        """Keep ``text`` as the session's draft, saved at once (the app quits): it is in the question box when
        the session is opened again. A new session is saved for it only when there is a draft to keep."""
        session = self.session
        text = text.strip()
        if session is None or (session.draft == text and not session.dirty) or not (text or session.revision):
            return None
        session.draft = text
        return self.save("the question being asked")

    def save(self, what: str) -> str | None:
        """Save the open session; the error line (naming ``what`` was not saved) when that fails."""
        assert self.session is not None and self.store is not None
        try:
            with self._save_lock:  # saves run in worker threads: one at a time
                self.store.save(self.session)
        except Exception as exc:  # stale, corrupt or a full disk: nothing lost in memory
            return f"could not save {what}: {one_line(str(exc), 200)}"
        return None

    def set_filter(self, value: str | None) -> tuple[int | None, str | None]:
        """Restrict later searches to documents matching ``value`` (empty clears it) and save.

        Returns (documents matched, or None when not counted; the error line when saving failed).
        Raises ``ValueError`` with one line when the store refuses the predicate (nothing changes).
        """
        assert self.session is not None
        value = (value or "").strip() or None
        matched = None
        if value and self.kb is not None:
            try:
                matched = len(self.kb.filter_document_ids(value))
            except Exception as exc:  # the store says what is wrong with the predicate
                raise ValueError(one_line(str(exc), 300)) from None
        self.session.set_document_filter(value)
        error = self.save("the filter") if self.session.messages else None
        return matched, error

    def set_review(self, question: int, chunk_id: str, mark: str | None) -> None:
        """Record a review mark (None clears it) in the session and the view; :meth:`save` keeps it."""
        assert self.session is not None
        self.session.set_review(question, chunk_id, mark)
        self.view = dataclasses.replace(self.view, reviews=self.session.review_marks()[0])

    def reload(self) -> str | None:
        """Reload the open session after the sessions screen may have renamed or deleted it.

        Returns ``"deleted"`` when it is gone (a new one is then open), or an error line.
        """
        from .errors import SessionNotFound

        assert self.session is not None and self.store is not None
        if not self.session.revision:
            return None
        try:
            self.session = self.store.load(self.session.id)
        except SessionNotFound:
            self.new()
            return "deleted"
        except Exception as exc:
            return one_line(str(exc), 300)
        self.refresh()
        return None

    # -- reading ------------------------------------------------------------------------------------------

    def neighbours(self, chunk_id: str) -> list[ChunkText]:
        """The chunk and its neighbours from the knowledge base; else the copy stored with its citation."""
        if self.kb is not None:
            try:
                records = self.kb.neighbours(chunk_id, radius=1)
            except Exception:  # the stored copy below still shows the chunk
                records = []
            if records:
                return [ChunkText(r.chunk_id, r.label(), r.text, r.order) for r in records]
        for entry in self.view.citations.values():
            if entry["chunk_id"] == chunk_id:
                return [ChunkText(chunk_id, self.view.label(chunk_id) + " (stored copy)", entry.get("text", ""))]
        for view in self.view.questions:
            for item in view.items:
                if item.chunk_id == chunk_id:
                    return [ChunkText(chunk_id, item.label + " (snippet only)", item.snippet)]
        return []

    def review_items(self, question: int) -> list[ReviewItem]:
        """The citations of ``question``'s answer, in number order."""
        view = self.view.question(question)
        if view is None:
            return []
        ids = self.view.citation_ids
        return [ReviewItem(n, ids[n], self.view.label(ids[n])) for n in view.citations if n in ids]
