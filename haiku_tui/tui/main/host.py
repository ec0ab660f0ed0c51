"""The main screen as its parts see it: what :class:`~haiku_tui.tui.main.asking.Asking` and
:class:`~haiku_tui.tui.main.daily.DailyActions` may use of the screen that mixes them in.

Their methods are typed ``self: MainHost``, so they do not import the screen back (``tests/test_layers.py``
counts annotation-only imports). What a part keeps for itself (its state, its helpers) is private to its module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import asyncio

    from textual.app import App
    from textual.widget import Widget

    from haiku_tui.capabilities.views import QuestionView
    from haiku_tui.sessions.workbench import Workbench
    from haiku_tui.tui.main.conversation import ConversationPane
    from haiku_tui.tui.main.evidence import EvidencePane
    from haiku_tui.tui.main.pacing import LivePanes
    from haiku_tui.tui.main.prompt import PromptArea
    from haiku_tui.tui.main.turn_log import TurnLog


class MainHost(Protocol):
    """The main screen's panes, workbench and state, and the screen methods its parts call."""

    workbench: Workbench
    ready: bool
    """The session is open and the agent built (or failed to build)."""
    running: bool
    """A question is being answered (or waits for the agent)."""
    asked: str
    """The question asked last (``Asking``)."""
    drawing: asyncio.Lock
    """Held while the log is cleared for a session or a question is added."""
    live: LivePanes
    """The side panes drawn from a running question's working state."""

    @property
    def app(self) -> App[Any]: ...

    @property
    def is_attached(self) -> bool: ...

    @property
    def focused(self) -> Widget | None: ...

    @property
    def conversation(self) -> ConversationPane: ...

    @property
    def evidence(self) -> EvidencePane: ...

    @property
    def prompt(self) -> PromptArea: ...

    @property
    def turn_log(self) -> TurnLog: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

    def set_reactive(self, reactive: Any, value: Any) -> None: ...

    def update_status(self) -> None: ...

    def notify_line(self, message: str | None, title: str = "", severity: str = "warning") -> None: ...

    def refresh_panes(self, views: list[QuestionView] | None = None) -> None: ...

    def busy(self, what: str) -> bool: ...

    async def ask(self, prompt: str) -> None: ...

    async def show_waiting(self, prompt: str) -> None: ...

    def restore_question(self, prompt: str, error: str | None = None) -> str: ...
