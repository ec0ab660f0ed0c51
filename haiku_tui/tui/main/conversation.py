"""The conversation pane: the turn log (:mod:`.turn_log`) above the question box; it routes the answer
cursor's moves (:mod:`.answer_cursor`) to the log."""

from __future__ import annotations

from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from haiku_tui.tui.main.answer_cursor import AnswerCursor
from haiku_tui.tui.main.prompt import PromptArea
from haiku_tui.tui.main.turn import Ghost, QuestionTurn
from haiku_tui.tui.main.turn_log import TurnLog


class ConversationPane(Vertical):
    """The conversation pane: the turn log above the question box."""

    ALLOW_MAXIMIZE = True
    HELP_TITLE = "Conversation"

    def on_descendant_focus(self) -> None:
        self._show_focus(True)

    def on_descendant_blur(self) -> None:
        self.call_after_refresh(self.sync_focus)

    def sync_focus(self, *, force: bool = False) -> None:
        focused = self.screen.focused if self.is_attached else None
        self._show_focus(focused is not None and self in focused.ancestors, force=force)

    _inside: bool | None = None

    def _show_focus(self, inside: bool, *, force: bool = False) -> None:
        # Inline styles, not a :focus-within rule: that would restyle every turn on each focus change;
        # and only when it changes, since each border change lays the pane out again.
        if inside == self._inside and not force:
            return
        self._inside = inside
        variables = self.app.theme_variables
        colour = variables.get("accent" if inside else "panel-lighten-2", "white")
        self.styles.border = ("round", colour)
        if inside:
            self.styles.border_title_color = variables.get("accent", "white")
        else:
            self.styles.clear_rule("border_title_color")

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """F1 help: the question box's and the answers' keys."""
        from haiku_tui.tui.help import binding_rows

        return [
            ("Question box", binding_rows(PromptArea)),
            ("Answers (Shift+Tab from the question box, or click)", binding_rows(AnswerCursor)),
        ]

    def compose(self):
        with TurnLog(id="turns"):
            yield Static(WELCOME, id="welcome")
        yield AnswerCursor(id="answer-cursor")
        yield PromptArea(id="prompt")

    @property
    def log(self) -> TurnLog:
        return self.query_one(TurnLog)

    async def on_answer_cursor_select(self, message: AnswerCursor.Select) -> None:
        message.stop()
        log = self.log
        if message.to == "first":
            await log.action_select_first()
        elif message.to == "last":
            await log.action_select_last()
        else:
            await log.action_select(message.to)

    def on_answer_cursor_focused(self, message: AnswerCursor.Focused) -> None:
        message.stop()
        log = self.log
        turn = log.selected_turn
        if turn is None:
            return
        if not turn.selected:
            log.select_turn(turn)
        message.cursor.show(turn, log.total)  # marked active while the cursor still has the focus

    async def add_turn(
        self, prompt: str, *, question: int | None = None, scroll: bool = True, ghost: Ghost | None = None
    ) -> QuestionTurn:
        """Add a turn last (numbered after the committed turns); ``ghost``: a cancelled or failed turn drawn again
        as it was (with no number)."""
        log = self.log
        welcome = log.query_children("#welcome")  # not a walk of every mounted turn
        if welcome:
            await welcome.remove()
        await log.to_end()
        await log.trim(bottom=False)  # a long live session keeps a window too
        if ghost is None:
            turn = QuestionTurn(prompt, number=log.next_number, question=question)
        else:
            turn = QuestionTurn.from_ghost(ghost)
        await log.mount(turn)
        if ghost is not None:
            await turn.redraw_ghost(ghost)
            log.keep_uncommitted(turn)
        log.selected_index = len(log.turns) - 1
        if scroll:
            log.scroll_end(animate=False)
        return turn

    async def clear(self) -> None:
        log = self.log
        await log.remove_children()
        log.selected_index = -1
        log.forget_views()
        await log.mount(Static(WELCOME, id="welcome"))


WELCOME = Content.assemble(
    ("Ask a question about your documents.\n\n", "bold"),
    ("Enter", "bold $accent"),
    " sends · ",
    ("Shift+Enter", "bold $accent"),
    " new line · ",
    ("Esc", "bold $accent"),
    " cancels a running answer\n",
    ("Tab", "bold $accent"),
    " moves between panes · ",
    ("F1", "bold $accent"),
    " help · ",
    ("Ctrl+P", "bold $accent"),
    " every command",
)
