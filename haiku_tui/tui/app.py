"""The haiku-tui app: start-up, settings, the command palette and quitting.

``HaikuApp(agent_config, *, store=None, session_id=None, kb=None, model=None)``. Its default screen
is the :class:`~haiku_tui.tui.main.screen.MainScreen` (the panes, their keys and actions); what
the screens read and change is the Textual-free :class:`~haiku_tui.sessions.workbench.Workbench`.
The first frame paints before the heavy layers load: the session, the knowledge base and the
agent open in a worker behind it.
"""

from __future__ import annotations

import dataclasses
import gc
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.content import Content

from haiku_tui.tui.main import actions
from haiku_tui.tui.main.commands import HaikuCommands
from haiku_tui.tui.main.screen import MainScreen
from haiku_tui.tui.settings import load_theme, save_theme
from haiku_tui.tui.text import clean, clean_line

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from haiku_tui.agent import AgentConfig
    from haiku_tui.sessions import Session, SessionStore
    from haiku_tui.sessions.workbench import Workbench
    from haiku_tui.store import KnowledgeBase
    from haiku_tui.tui.watching import FolderWatch


class HaikuApp(App[None]):
    """The haiku-tui app (the main screen does the work)."""

    CSS_PATH = "app.tcss"
    TITLE = "haiku-tui"
    ESCAPE_TO_MINIMIZE = False
    COMMANDS = App.COMMANDS | {HaikuCommands}
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (100, "-wide")]

    BINDINGS: ClassVar[list[Binding]] = [
        Binding(
            "ctrl+p",
            "command_palette",
            "Commands",
            id="app.command-palette",
            show=False,
            tooltip="Every command, searchable",
        ),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
    ]

    def __init__(
        self,
        agent_config: AgentConfig | None = None,
        *,
        store: SessionStore | None = None,
        session_id: str | None = None,
        kb: KnowledgeBase | None = None,
        model: Model | None = None,
        prepare_kb: Callable[[], Any] | None = None,
        watch: list[str] | None = None,
        keep_model: bool = False,
    ) -> None:
        """``store`` defaults to ``SessionStore()`` at ``<data dir>/sessions.db``; ``session_id`` (an id or
        unique prefix) opens a saved session, otherwise a new one starts; ``kb`` is an open knowledge base
        (otherwise ``agent_config.db`` is opened in a worker, after ``prepare_kb()`` when given);
        ``model`` overrides the configured model (a test double or a script); ``watch`` folders keep the
        knowledge base in step while the app runs (:mod:`haiku_tui.tui.watching`); ``keep_model``: the
        model was chosen on the command line, so the session opened at start keeps it (otherwise a reopened
        session answers with the model it was saved with)."""
        super().__init__()
        from haiku_tui.sessions.workbench import Workbench

        if agent_config is None:
            from haiku_tui.agent import AgentConfig

            agent_config = AgentConfig()
        if agent_config.reranker:  # a failed rerank is a notice; the search keeps its own order
            agent_config = dataclasses.replace(agent_config, on_reranker_fault=self._reranker_fault)
        self.workbench: Workbench = Workbench(agent_config, store=store, kb=kb, model=model, prepare_kb=prepare_kb)
        self.session_id = session_id
        self.keep_model = keep_model
        self.main = MainScreen(self.workbench)
        self.watch_paths = list(watch or [])
        self.folder_watch: FolderWatch | None = None
        self._reranker_notice: tuple[str, float] = ("", 0.0)

    def _reranker_fault(self, line: str) -> None:
        """Called from the search's thread: one notice per distinct line a minute (a question searches several
        times)."""
        now = time.monotonic()
        if self._reranker_notice[0] != line or now - self._reranker_notice[1] > 60:
            self._reranker_notice = (line, now)
            self.notify(clean_line(line, 300), title="Reranker", severity="warning", markup=False)

    def get_default_screen(self) -> MainScreen:
        return self.main

    @property
    def session(self) -> Session | None:
        """The open session."""
        return self.workbench.session

    # -- start-up ----------------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        theme = load_theme(self.available_themes)
        if theme:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, self._save_theme)
        # the first frame paints now; sessions, the agent and the KB load behind it
        self.call_after_refresh(self.start_backend)

    @work(thread=True, exclusive=True, group="kb", name="start")
    def start_backend(self) -> None:
        """Off the UI thread: import the heavy layers, open the session, open the KB, build the agent."""
        import pydantic_ai  # noqa: F401 - imported here so the UI thread never waits for it

        import haiku_tui.capabilities.views  # noqa: F401

        workbench = self.workbench
        try:
            notice = workbench.start(self.session_id, keep_model=self.keep_model, preview=True)
        except Exception as exc:  # e.g. the sessions database cannot be opened
            self.call_from_thread(
                self.notify, clean_line(str(exc), 300), title="Sessions", severity="error", timeout=10
            )
            return
        self.call_from_thread(self._session_ready, notice)
        if workbench.preview is not None:  # its newest answers are on screen: now the whole session
            previewed = workbench.preview.summary.id
            notice = workbench.finish_start()
            same = workbench.session is not None and workbench.session.id == previewed
            self.call_from_thread(self._session_loaded, notice, same)
        kb_error = workbench.open_kb()
        model_error = workbench.build_agent()
        # What was loaded lives on: full collections stop walking it (~300 ms each at 1000 questions). One
        # collection first, with what an earlier start froze, so that garbage is not kept for good.
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.call_from_thread(self._backend_ready, kb_error, model_error)

    async def _session_ready(self, notice: str | None) -> None:
        if notice:
            self.notify(notice, title="Session", severity="warning", timeout=10)
        await self.main.show_session()

    async def _session_loaded(self, notice: str | None, same: bool) -> None:
        if notice:
            self.notify(notice, title="Session", severity="warning", timeout=10)
        if same:
            self.main.session_loaded()
        else:  # it could not be loaded whole: a new session
            await self.main.show_session()

    async def _backend_ready(self, kb_error: str | None, model_error: str | None) -> None:
        if self.workbench.settings_error:
            self.notify(self.workbench.settings_error, title="Settings", severity="warning", timeout=10)
        if kb_error:
            self.notify(kb_error, title="Knowledge base", severity="warning", timeout=8)
        if model_error:
            self.notify(model_error, title="Model", severity="error", timeout=10)
        await self.main.backend_ready()
        if self.watch_paths:
            self.watch_folders(self.watch_paths)

    async def action_quit(self) -> None:
        """Ctrl+Q: quit; a question still being answered is kept as the session's draft."""
        if self.main.is_mounted:
            self.main.keep_draft()
        await super().action_quit()

    async def on_unmount(self) -> None:
        if self.folder_watch is not None:  # quitting: the watch thread ends now, not after its next sync
            self.folder_watch.stop()
        self.workbench.close()

    # -- watching folders ----------------------------------------------------------------------------------------

    def watch_folders(self, paths: list[str]) -> None:
        """Keep the open knowledge base in step with ``paths`` (replacing a running watch); ``[]`` stops it."""
        from pathlib import Path

        from haiku_tui import locations
        from haiku_tui.tui.watching import FolderWatch

        if self.folder_watch is not None:
            self.folder_watch.stop()
            self.folder_watch = None
        folders = [Path(p).expanduser() for p in paths]
        missing = [str(p) for p in folders if not p.exists()]
        if missing:
            self.notify(f"Cannot watch {missing[0]}: no such file or folder.", title="Watch", severity="error")
        elif folders:
            workbench = self.workbench
            db = locations.resolve_db(workbench.config.db)
            self.folder_watch = FolderWatch(self, folders, kb=workbench.kb, db=db)
            self.folder_watch.start()
        self.watch_paths = [str(p) for p in folders] if not missing else []
        if self.main.is_mounted:
            self.main.update_status()

    def action_watch_folders(self) -> None:
        """Ask which folders to watch (the palette's "Watch folders…"); empty stops watching."""
        import shlex

        from haiku_tui.tui.screens.dialogs import TextInputDialog

        def chosen(value: str | None) -> None:
            if value is None:
                return
            try:
                paths = shlex.split(value)
            except ValueError as exc:
                self.notify(
                    f"Cannot read those paths: {exc}; quote a path with spaces.", title="Watch", severity="error"
                )
                return
            self.watch_folders(paths)

        self.push_screen(
            TextInputDialog(
                "Watch folders",
                value=" ".join(shlex.quote(p) for p in self.watch_paths),
                placeholder="~/notes docs   (empty stops watching)",
                detail="New, changed, moved and deleted files are synced into the knowledge base while the app runs.",
                submit_label="Watch",
                allow_empty=True,
            ),
            chosen,
        )

    # -- settings, palette, notifications ---------------------------------------------------------------------

    def _save_theme(self, theme: Any) -> None:
        if self.main.is_mounted:
            self.main.conversation.sync_focus(force=True)
        error = save_theme(getattr(theme, "name", str(theme)))
        if error:
            self.notify(error, severity="warning")

    def palette_commands(self) -> list[tuple[str, str, str]]:
        return actions.palette()

    def _handle_exception(self, error: Exception) -> None:
        """An uncaught exception: Textual's handling (exit status 1, a test sees the error), but the terminal
        gets one line naming the crash log instead of a traceback with locals."""
        from rich.text import Text

        from haiku_tui.tui.crash import crash_line, write_crash_log
        from haiku_tui.tui.textual_private import replace_exit_output

        line = crash_line(error, write_crash_log(error))
        super()._handle_exception(error)
        replace_exit_output(self, [Text(line, style="bold red")])

    def notify(self, message: str, *, title: str = "", markup: bool = False, **kwargs: Any) -> None:  # type: ignore[override]
        """Every toast: its text and title carry model, document, server and error text, so controls are
        made visible (:func:`~haiku_tui.tui.text.clean`) and neither is ever read as markup."""
        super().notify(clean(message), title=clean_line(title), markup=False, **kwargs)

    def format_title(self, title: str, sub_title: str) -> Content:
        """The header of every screen: a session title (e.g. from an import) or a path shown inert."""
        return super().format_title(clean_line(title), clean_line(sub_title))
