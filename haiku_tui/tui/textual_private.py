"""The one place the app reads or writes a private part of Textual (no public API offers them); ``tests/tui/
test_textual_private.py`` fails loudly when a Textual release changes them."""

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


def drop_last_option(option_list: Any) -> None:
    """Remove an ``OptionList``'s last option keeping the line cache of the others (``remove_option`` re-measures
    them all)."""
    index = len(option_list._options) - 1
    option = option_list._options.pop()
    option_list._option_to_index.pop(option, None)
    if option.id is not None:
        option_list._id_to_option.pop(option.id, None)
    cache = option_list._line_cache
    if index in cache.index_to_line:
        del cache.lines[cache.index_to_line.pop(index) :]
        cache.heights.pop(index, None)
    option_list._option_render_cache.clear()
    option_list.refresh()


def replace_exit_output(app: Any, renderables: list[Any]) -> None:
    """What ``app`` prints on the terminal as it exits, in place of what Textual gathered (a crash's traceback)."""
    app._exit_renderables[:] = renderables
