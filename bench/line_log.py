"""Prototype for issue 13: the conversation on Textual's line API, timed against the windowed mounting.

    HAIKU_TUI_DATA_DIR=DIR python bench/line_log.py --mode line|mount --session ID

One shell for both ideas (the conversation beside a side panel, an answer-cursor line, the app's
question box), so the two differ only in the conversation widget:

- ``line``: :class:`LineLog`, a ``ScrollView`` whose ``render_line`` draws only the visible lines.
  A turn (question, tool rows, answer Markdown with citation links, badge + "cites [n]" footer) is
  rendered to Strips once per width and selection state, from the same ``QuestionView`` the app draws
  (``haiku_tui.capabilities.views``), and cached (LRU). Heights of turns not rendered yet are
  estimated from their text; a turn rendered above the view corrects the scroll offset by its error.
- ``mount``: the app's :class:`~haiku_tui.tui.main.turn_log.TurnLog` (a window of mounted
  ``QuestionTurn`` widgets) with its :class:`~haiku_tui.tui.main.answer_cursor.AnswerCursor`.

Keys as in the app: Shift+Tab → the answers, ↑/↓, PageUp/PageDown, Home/End, Esc → the question box.
``bench/bench_keys.py`` drives it in tmux (``BENCH_APP=line`` or ``mount``). What the prototype leaves
out (the cost of making it the app's conversation) is listed in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widgets import Static

from haiku_tui.tui.main.turn import BADGES
from haiku_tui.tui.text import clean, clean_line, link_citations

if TYPE_CHECKING:
    from haiku_tui.capabilities.views import QuestionView
    from haiku_tui.sessions.workbench import ConversationView

CACHED = 64
"""Rendered turns kept (per width and selection state)."""
PAGE = 5


class LineLog(ScrollView, can_focus=True):
    """Every committed turn of a session, drawn line by line; only what is on screen is rendered."""

    BINDINGS = [
        Binding("up,k", "select(-1)"),
        Binding("down,j", "select(1)"),
        Binding("pageup", f"select(-{PAGE})"),
        Binding("pagedown", f"select({PAGE})"),
        Binding("home", "select_first"),
        Binding("end", "select_last"),
        Binding("escape", "app.focus('prompt')"),
    ]
    DEFAULT_CSS = "LineLog { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }"

    selected: reactive[int] = reactive(-1, init=False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._views: list[QuestionView] = []
        self._citation_ids: dict[int, str] = {}
        self._heights: list[int] = []
        self._offsets: list[int] = [0]
        self._cache: OrderedDict[tuple[int, int, bool], list[Strip]] = OrderedDict()

    # -- data and geometry ---------------------------------------------------------------------------------

    def show_views(self, view: ConversationView) -> None:
        self._views = list(view.questions)
        self._citation_ids = view.citation_ids
        width = self._width()
        self._heights = [self._estimate(q, width) for q in self._views]
        self._cache.clear()
        self._relayout()
        self.call_after_refresh(setattr, self, "selected", len(self._views) - 1)  # once the new size applies

    def _width(self) -> int:
        return max(20, self.scrollable_content_region.width or self.size.width or 80)

    @staticmethod
    def _estimate(view: QuestionView, width: int) -> int:
        """Lines a turn takes, guessed from its text (no rendering): corrected when it is drawn."""
        text = 1 + len(view.steps) + 1 + 1  # question, rows, footer, gap
        for paragraph in view.answer.split("\n"):
            text += max(1, -(-len(paragraph) // max(1, width - 3)))
        return text

    def _relayout(self) -> None:
        self._offsets = [0, *itertools.accumulate(self._heights)]
        self.virtual_size = Size(self._width(), self._offsets[-1])

    def _turn_at(self, y: int) -> int:
        return bisect.bisect_right(self._offsets, y) - 1

    def _lines(self, index: int) -> list[Strip]:
        """The rendered lines of turn ``index`` (cached); fixes its height (and the scroll above it)."""
        width = self._width()
        key = (index, width, index == self.selected)
        lines = self._cache.get(key)
        if lines is None:
            lines = self._render_turn(self._views[index], width, key[2])
            self._cache[key] = lines
            if len(self._cache) > CACHED:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        if len(lines) != self._heights[index]:
            delta = len(lines) - self._heights[index]
            above = self._offsets[index + 1] <= self.scroll_offset.y
            self._heights[index] = len(lines)
            self._relayout()
            if above:  # keep what is on screen in place
                self.set_scroll(None, self.scroll_offset.y + delta)
        return lines

    def _render_turn(self, view: QuestionView, width: int, selected: bool) -> list[Strip]:
        inner = width - 2
        style = self.visual_style

        def strips(renderable: object) -> list[Strip]:
            visual: Visual = visualize(self, renderable, markup=False)
            return Visual.to_strips(self, visual, inner, None, style, pad=True)

        ids = self._citation_ids
        question = Content.assemble((f"Q{view.number} ", "bold $accent"), ("❯ ", "$accent"), clean(view.prompt))
        rows = [Content.assemble(("  ⌕ ", "bold"), (clean_line(step.text, 300), "")) for step in view.steps]
        source = link_citations(view.answer, lambda n: n in ids and n not in view.policy.unbacked) or "*(no answer text)*"
        label = BADGES.get(view.badge, (view.badge, ""))[0]
        cites = " ".join(f"[{n}]" for n in view.citations)
        footer = Content.assemble((f" {label} ", "bold reverse"), ("  cites " if cites else "", "dim"), (cites, "bold"))
        lines = strips(question)
        for row in rows:
            lines += strips(row)
        lines += strips(Markdown(clean(source)))
        lines += strips(footer)
        gutter = Segment("▌ " if selected else "  ", Style(color="#ffa62b" if selected else None))
        background = Style(bgcolor="#2a2a35") if selected else None
        out = [Strip([gutter, *(line.apply_style(background) if background else line)]) for line in lines]
        out.append(Strip.blank(width))
        return out

    def render_line(self, y: int) -> Strip:
        scroll_y = self.scroll_offset.y
        absolute = scroll_y + y
        if not self._views or absolute >= self._offsets[-1]:
            return Strip.blank(self.scrollable_content_region.width)
        index = self._turn_at(absolute)
        lines = self._lines(index)
        if self.scroll_offset.y != scroll_y:  # a height above was corrected: draw from the new offset
            return self.render_line(y)
        line = lines[min(len(lines) - 1, absolute - self._offsets[index])]
        return line.crop_extend(self.scroll_offset.x, self.scroll_offset.x + self.scrollable_content_region.width, None)

    # -- selection -----------------------------------------------------------------------------------------

    def watch_selected(self, old: int, new: int) -> None:
        if not 0 <= new < len(self._views):
            return
        self._lines(new)  # its exact height before scrolling to it
        self.scroll_to(y=self._offsets[new], animate=False, immediate=True)
        self.refresh()
        self.app.query_one("#cursor", Static).update(f"answer {self._views[new].number} of {len(self._views)}")

    def action_select(self, step: int) -> None:
        if self._views:
            self.selected = max(0, min(len(self._views) - 1, self.selected + step))

    def action_select_first(self) -> None:
        self.selected = 0

    def action_select_last(self) -> None:
        self.selected = len(self._views) - 1


class PrototypeApp(App):
    """The shell both conversation ideas are timed in (the app's own stylesheet)."""

    CSS_PATH = str(Path(__file__).resolve().parent.parent / "haiku_tui" / "tui" / "app.tcss")
    CSS = """
    #conversation { width: 1fr; border: round $panel-lighten-2; }
    #side { width: 56; border: round $panel-lighten-2; }
    #cursor { height: 1; padding: 0 1; }
    """
    BINDINGS = [Binding("shift+tab", "answers", priority=True), Binding("escape", "focus('prompt')")]

    def __init__(self, session_id: str, mode: str) -> None:
        super().__init__()
        self.session_id, self.mode = session_id, mode

    def compose(self) -> ComposeResult:
        from haiku_tui.tui.main.prompt import PromptArea
        from haiku_tui.tui.main.answer_cursor import AnswerCursor
        from haiku_tui.tui.main.turn_log import TurnLog

        with Horizontal():
            with Vertical(id="conversation"):
                if self.mode == "line":
                    yield LineLog(id="turns")
                    yield Static("", id="cursor")
                else:
                    yield TurnLog(id="turns")
                    yield AnswerCursor(id="answer-cursor")
                yield PromptArea(id="prompt")
            yield Static("evidence", id="side")

    def on_mount(self) -> None:
        self.load()

    @work(thread=True)
    def load(self) -> None:
        from haiku_tui.sessions import SessionStore
        from haiku_tui.sessions.workbench import conversation_view

        view, _ = conversation_view(SessionStore().load(self.session_id))
        self.call_from_thread(self.show, view)

    async def show(self, view: ConversationView) -> None:
        log = self.query_one("#turns")
        if isinstance(log, LineLog):
            log.show_views(view)
        else:
            await log.show_views(view)  # type: ignore[attr-defined]

    def action_answers(self) -> None:
        log = self.query_one("#turns")
        if isinstance(log, LineLog):
            log.focus()
        else:
            log.focus_selected()  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--session", required=True)
    parser.add_argument("--mode", choices=("line", "mount"), default="line")
    args = parser.parse_args()
    PrototypeApp(args.session, args.mode).run()


if __name__ == "__main__":
    main()
