"""The private parts of Textual the app reads (``haiku_tui.tui.textual_private``) are still there and mean the
same: a Textual release that changes them fails here, not silently in the app."""

from __future__ import annotations

from textual import events
from textual.widget import Widget

from haiku_tui.tui.textual_private import printable_keys_waiting


def test_printable_keys_waiting_sees_keys_queued_behind_the_one_handled():
    pane, other = Widget(), Widget()
    assert not printable_keys_waiting(pane, other)
    pane.post_message(events.Key("enter", None))
    assert not printable_keys_waiting(pane, other)  # not printable
    other.post_message(events.Key("a", "a"))
    assert printable_keys_waiting(pane, other) and not printable_keys_waiting(pane)
