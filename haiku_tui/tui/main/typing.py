"""Typing always types: what a pane that has the focus (the answers, the evidence pane, the policy log) does
with printable keys and pastes that are not meant for it.

A pane's one-letter keys (``r`` review, ``y`` copy, ``c`` cited only, ``j``/``k``…) act only on a key pressed
alone. A character that is not one of them, a paste, or a key that arrives together with others (typed or
pasted faster than anyone presses a key alone) starts a question: it and every key of the same burst go to
the question box in order. The pane keeps the focus until the burst is over (:data:`QUIET`), so the keys
already on their way to it are inserted in order, then the question box takes the focus.
"""

from __future__ import annotations

from typing import Any

from textual import events

from haiku_tui.tui.textual_private import printable_keys_waiting

QUIET = 0.25
"""Seconds after a burst's last key (by when it was read) before the question box takes the focus; a key read
within this time of the one before it continues the burst."""


class TypesIntoPrompt:
    """Mixin for a focusable pane: printable keys and pastes not meant for it go to the question box."""

    _typed_at: float | None = None  # when the burst's last key was read
    _quiet: Any = None

    def on_key(self, event: events.Key) -> None:
        if self._typed_at is not None and event.time - self._typed_at > QUIET:
            self._burst_over()
        bursting = self._typed_at is not None
        if not (event.is_printable and event.character):
            if bursting:  # Enter, Backspace… ending a burst: the question box takes the focus and the key
                event.stop()
                event.prevent_default()
                prompt = self._burst_over()
                prompt.post_message(events.Key(event.key, event.character))
            return
        if not bursting and event.key in self.app.active_bindings and not self._keys_waiting():  # type: ignore[attr-defined]
            return  # a key pressed alone: its action
        event.stop()
        event.prevent_default()
        self._type(event.character, event.time)

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        self._type(event.text, event.time)

    def _type(self, text: str, at: float) -> None:
        from haiku_tui.tui.main.prompt import PromptArea

        self.screen.query_one(PromptArea).insert(text)  # type: ignore[attr-defined]
        self._typed_at = at
        if self._quiet is not None:
            self._quiet.stop()
        self._quiet = self.set_timer(QUIET, self._burst_over, name="typing burst")  # type: ignore[attr-defined]

    def _burst_over(self) -> Any:
        """The burst is over: the question box takes the focus (now, so the next key goes there); returns it."""
        from haiku_tui.tui.main.prompt import PromptArea

        if self._quiet is not None:
            self._quiet.stop()
        self._typed_at = self._quiet = None
        prompt = self.screen.query_one(PromptArea)  # type: ignore[attr-defined]
        if self.screen.focused is self:  # type: ignore[attr-defined]
            self.screen.set_focus(prompt)  # type: ignore[attr-defined]
        return prompt

    def _keys_waiting(self) -> bool:
        """Whether printable keys wait right behind this one (sent together: a burst, a paste without bracketed
        paste): read in the pending messages of the pane and of the app."""
        return printable_keys_waiting(self, self.app)  # type: ignore[attr-defined]
