"""The question box: a multi-line TextArea where Enter sends and Shift+Enter adds a line."""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

NEWLINE_KEYS = ("shift+enter", "alt+enter", "ctrl+j")


class PromptArea(TextArea):
    """Type a question; Enter sends it, Shift+Enter (or Alt+Enter / Ctrl+J) starts a new line."""

    BINDINGS = [
        Binding("enter", "submit", "Send", id="prompt.send", show=True),
        Binding("shift+enter", "newline", "New line", id="prompt.newline", show=False),
    ]
    """Documented here for the footer and F1 help; the keys themselves are handled in ``_on_key``."""

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
        self.post_message(self.Submitted(self, text))

    def action_newline(self) -> None:
        """Insert a line break."""
        self.insert("\n")
