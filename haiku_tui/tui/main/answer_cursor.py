"""The answer cursor: the focus target that carries the answers' keys, and the mark of the selected answer.

The turns themselves never take the focus (:class:`AnswerCursor`), and the selected one is marked with
inline styles (:func:`mark`), so moving between answers restyles only the two turns whose selection
changes. The turns and the selection are the :class:`~haiku_tui.tui.main.turn_log.TurnLog`'s: the cursor
asks for a move with messages (:class:`AnswerCursor.Select`, :class:`AnswerCursor.Focused`) its pane routes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from textual.binding import Binding
from textual.color import Color
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from haiku_tui.tui.main.typing import TypesIntoPrompt

if TYPE_CHECKING:
    from haiku_tui.tui.main.turn import QuestionTurn

PAGE = 5
"""Answers PageUp/PageDown move the selection by."""


def mark(turn: QuestionTurn, *, selected: bool, active: bool = False) -> None:
    """Mark the selected answer (a bar on its left, in the accent colour and on a tinted background while
    the answer cursor has the focus) with inline styles: a class would re-match the stylesheet over the
    turn's whole subtree (every Markdown block) on each move, ~20 ms of a key's 50 at 1000 questions."""
    variables = turn.app.theme_variables
    if selected:
        turn.styles.border_left = (
            "thick",
            Color.parse(variables.get("accent" if active else "panel-lighten-2", "white")),
        )
    else:
        turn.styles.clear_rule("border_left")
    tinted = selected and active
    if tinted != turn.styles.inline.has_rule("background"):
        if tinted:
            turn.styles.background = Color.parse(variables.get("accent", "white")).with_alpha(0.06)
        else:
            turn.styles.clear_rule("background")
        for widget in turn.walk_children():  # their cached styles hold the background they are drawn on
            widget.notify_style_update()
            widget.refresh()


class AnswerCursor(TypesIntoPrompt, Static):
    """The focus target of the answers: one line below the log, carrying their keys.

    The turns themselves never take the focus, so moving between answers restyles only the two
    turns whose selection changes (a focused turn would restyle its whole answer on every move). A character
    typed or pasted here goes to the question box (:class:`~haiku_tui.tui.main.typing.TypesIntoPrompt`).
    """

    HELP_TITLE = "Conversation"

    BINDINGS = [
        Binding("up,k", "select(-1)", "Previous answer", id="conversation.previous"),
        Binding("down,j", "select(1)", "Next answer", id="conversation.next"),
        Binding("pageup", f"select(-{PAGE})", f"{PAGE} answers up", id="conversation.page-up", show=False),
        Binding("pagedown", f"select({PAGE})", f"{PAGE} answers down", id="conversation.page-down", show=False),
        Binding("home", "select_first", "First answer", id="conversation.first", show=False),
        Binding("end", "select_last", "Last answer", id="conversation.last", show=False),
        Binding("r", "screen.review", "Review citations", id="conversation.review"),
        Binding("w", "screen.wire", "Inspect requests", id="conversation.wire"),
        *[
            Binding(
                str(n), f"screen.jump_citation({n})", f"Jump to citation {n}", id=f"conversation.cite-{n}", show=False
            )
            for n in range(1, 10)
        ],
    ]

    class Select(Message):
        """A key asked for another answer: ``to`` answers on (back when negative), or the first or last."""

        def __init__(self, to: int | Literal["first", "last"]) -> None:
            super().__init__()
            self.to = to

    class Focused(Message):
        """The cursor took the focus: the selected answer (the last when none is) should be shown on it."""

        def __init__(self, cursor: AnswerCursor) -> None:
            super().__init__()
            self.cursor = cursor

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.can_focus = True
        self._turn: QuestionTurn | None = None

    def show(self, turn: QuestionTurn, total: int, *, active: bool | None = None) -> None:
        """Name the selected answer; while the cursor is focused, that answer is marked active."""
        if self._turn is not None and self._turn is not turn:
            mark(self._turn, selected=self._turn.selected)
        self._turn = turn
        mark(turn, selected=turn.selected, active=self.has_focus if active is None else active)
        numbered = turn.number is not None
        where = f"answer {turn.number} of {total}" if numbered else f"a {turn.state} question (not numbered)"
        self.update(
            Content.assemble(
                (where, "bold $accent"),
                ("  ↑↓ select · r review · w wire · 1–9 citation · Esc question box", "$text-muted"),
            ),
            layout=False,  # one line whatever it says: a layout here would arrange the whole screen on every key
        )

    def on_focus(self) -> None:
        self.post_message(self.Focused(self))

    def on_blur(self) -> None:
        if self._turn is not None:
            mark(self._turn, selected=self._turn.selected)

    def action_select(self, step: int) -> None:
        self.post_message(self.Select(step))

    def action_select_first(self) -> None:
        self.post_message(self.Select("first"))

    def action_select_last(self) -> None:
        self.post_message(self.Select("last"))
