"""The one place the app reads a private part of Textual (no public API offers it); ``tests/tui/
test_textual_private.py`` fails loudly when a Textual release changes it."""

from __future__ import annotations

from typing import Any

from textual import events


def printable_keys_waiting(*pumps: Any) -> bool:
    """Whether a printable key waits, not yet handled, in the message queue of any of ``pumps`` (an app, a
    widget): Textual offers no look-ahead at keys sent together (a burst, a paste without bracketed paste)."""
    for pump in pumps:
        pending = pump._message_queue.values
        if any(isinstance(message, events.Key) and message.is_printable for message in pending):
            return True
    return False
