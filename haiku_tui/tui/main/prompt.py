"""The question box: a multi-line TextArea where Enter sends, Shift+Enter adds a line and ↑/↓ in an
empty box walk earlier questions (:class:`haiku_tui.sessions.history.PromptHistory`)."""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from haiku_tui.sessions.history import PromptHistory

NEWLINE_KEYS = ("shift+enter", "alt+enter", "ctrl+j")


class PromptArea(TextArea):
    """Type a question; Enter sends it, Shift+Enter (or Alt+Enter / Ctrl+J) starts a new line."""

    BINDINGS = [
        Binding("enter", "submit", "Send", id="prompt.send", show=True),
        Binding("shift+enter", "newline", "New line", id="prompt.newline", show=False),
        Binding("up", "older", "Earlier question (in an empty box)", id="prompt.older", show=False),
        Binding("down", "newer", "Later question, then back to the draft", id="prompt.newer", show=False),
    ]
    """Enter and Shift+Enter are documented here for the footer and F1 help and handled in ``_on_key``."""

    HELP_TITLE = "Question box"

    class Submitted(Message):
        """The user sent a question."""

        def __init__(self, prompt: PromptArea, text: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text

        @property
        def control(self) -> PromptArea:
            return self.prompt

    def __init__(self, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)
        self.questions: PromptHistory | None = None
        """Set by the screen: this session's questions, then other sessions'."""

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.action_submit()
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.action_newline()
            return
        await super()._on_key(event)

    def action_submit(self) -> None:
        """Send the question (blank input is ignored)."""
        text = self.text.strip()
        if not text:
            return
        if self.questions is not None:
            self.questions.add(text)
        self.post_message(self.Submitted(self, text))

    def action_newline(self) -> None:
        """Insert a line break."""
        self.insert("\n")

    def action_older(self) -> None:
        """↑: the previous question in an empty box (or while recalling), else the line above."""
        if not self._older():
            self.action_cursor_up()

    def action_newer(self) -> None:
        """↓: the next question while recalling (past the newest, the draft), else the line below."""
        if not self._newer():
            self.action_cursor_down()

    def _older(self) -> bool:
        history = self.questions
        if history is None or self.cursor_location[0] != 0 or (self.text.strip() and not history.recalling):
            return False
        entry = history.older(self.text)
        if entry is not None:
            self._show(entry)
        return True

    def _newer(self) -> bool:
        history = self.questions
        if history is None or not history.recalling or self.cursor_location[0] != self.document.line_count - 1:
            return False
        entry = history.newer()
        if entry is not None:
            self._show(entry)
        return True

    def _show(self, text: str) -> None:
        self.text = text
        self.move_cursor(self.document.end)
