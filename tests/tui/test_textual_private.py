"""The private parts of Textual the app reads (``haiku_tui.tui.textual_private``) are still there and mean the
same: a Textual release that changes them fails here, not silently in the app."""

from __future__ import annotations

import pytest
from textual import events
from textual.widget import Widget

from haiku_tui.tui.textual_private import drop_last_option, printable_keys_waiting, replace_exit_output


def test_printable_keys_waiting_sees_keys_queued_behind_the_one_handled():
    pane, other = Widget(), Widget()
    assert not printable_keys_waiting(pane, other)
    pane.post_message(events.Key("enter", None))
    assert not printable_keys_waiting(pane, other)  # not printable
    other.post_message(events.Key("a", "a"))
    assert printable_keys_waiting(pane, other) and not printable_keys_waiting(pane)


async def test_drop_last_option_removes_it_as_remove_option_would():
    from textual.app import App, ComposeResult
    from textual.widgets import OptionList
    from textual.widgets.option_list import Option, OptionDoesNotExist

    class Lines(App[None]):
        def compose(self) -> ComposeResult:
            yield OptionList(*(Option(f"line {n}", id=f"p{n}") for n in range(3)))

    app = Lines()
    async with app.run_test(size=(40, 10)) as pilot:
        options = app.query_one(OptionList)
        await pilot.pause()
        drop_last_option(options)
        options.add_option(Option("line 2 again", id="p3"))
        await pilot.pause()
        assert options.option_count == 3
        assert [options.get_option_at_index(i).id for i in range(3)] == ["p0", "p1", "p3"]
        assert options.get_option_index("p3") == 2
        with pytest.raises(OptionDoesNotExist):  # nor found by its id
            options.get_option("p2")
        assert "line 2 again" in "".join(strip.text for strip in options.render_lines(options.region.reset_offset))


def test_replace_exit_output_is_what_the_app_prints_as_it_exits():
    from io import StringIO

    from rich.console import Console
    from rich.text import Text
    from textual.app import App

    app = App()
    out = StringIO()
    app.error_console = Console(file=out, width=80)
    app._exit_renderables.append(Text("a traceback with locals"))  # what Textual gathered
    replace_exit_output(app, [Text("one line")])
    app._print_error_renderables()  # Textual prints them so as the app exits
    assert out.getvalue() == "one line\n"
