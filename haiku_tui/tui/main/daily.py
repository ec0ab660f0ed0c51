"""The main screen's everyday actions: question history, regenerate, edit and resend, switch the
model, copy an answer or a citation, and a failed question coming back into the box.

``DailyActions`` is a part of the main screen (typed against :class:`~.host.MainHost`): its keys are in the
command registry (:mod:`haiku_tui.tui.main.actions`); the Textual-free work is in the workbench, the text it
copies in :mod:`haiku_tui.tui.main.sources`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work

from haiku_tui.sessions.history import PromptHistory
from haiku_tui.tui.main.sources import answer_markdown, citation_text, location_text
from haiku_tui.tui.text import clean

if TYPE_CHECKING:
    from haiku_tui.tui.main.host import MainHost
    from haiku_tui.tui.main.turn import QuestionTurn


class DailyActions:
    """History, regenerate, edit and resend, model switch and copy for the main screen."""

    _restored_draft = ""
    """The session's draft as put back in the box (it stays that session's)."""

    # -- a question that did not complete comes back ------------------------------------------------------------

    def restore_question(self: MainHost, prompt: str, error: str | None = None) -> str:
        """A question that was cancelled or failed goes back into an empty question box; the badge's detail."""
        box = self.prompt
        back = not box.text.strip()
        if back:
            box.text = prompt
            box.move_cursor(box.document.end)
        parts = [error] if error else []
        if "nothing was saved" not in (error or ""):  # agent errors often say so already
            parts.append("nothing was saved")
        if back:
            parts.append("the question is back in the box")
        return " · ".join(parts)

    def keep_draft(self: MainHost) -> None:
        """Quitting: the question being answered (a run that ends with the app commits nothing) and what the box
        holds become the session's draft, back in the box when the session is opened again."""
        asked = self.asked if self.running else ""
        draft = "\n\n".join(text for text in (asked.strip(), self.prompt.text.strip()) if text)
        self.workbench.keep_draft(draft)  # a store that cannot be written keeps nothing: the app is closing

    # -- history --------------------------------------------------------------------------------------------------

    def reset_history(self: MainHost) -> None:
        """↑ in the empty question box: this session's questions now, other sessions' once read (in a worker);
        an empty box takes the session's draft (and leaves it, untouched, to that session when another opens)."""
        self.prompt.questions = PromptHistory(q.prompt for q in self.workbench.view.questions)
        session, box = self.workbench.session, self.prompt
        if self._restored_draft and box.text == self._restored_draft:
            box.text = ""
        self._restored_draft = ""
        if session is not None and session.draft and not box.text.strip():
            box.text = self._restored_draft = clean(session.draft)
            box.move_cursor(box.document.end)
        self.load_history()

    @work(thread=True, exclusive=True, group="history", name="read earlier questions")
    def load_history(self: MainHost) -> None:
        try:
            others = self.workbench.earlier_prompts()
        except Exception:  # history is a convenience: a damaged store only loses recall
            return
        self.app.call_from_thread(self._history_loaded, others)

    def _history_loaded(self: MainHost, others: list[str]) -> None:
        history = self.prompt.questions
        if history is not None and history.recalling:
            return  # the user is walking the history: do not pull it away
        self.prompt.questions = PromptHistory([q.prompt for q in self.workbench.view.questions], others)

    # -- regenerate, edit and resend --------------------------------------------------------------------------

    def _selected_turn(self: MainHost, what: str) -> QuestionTurn | None:
        turn = self.turn_log.selected_turn
        if turn is None:
            self.app.notify(f"Select a question to {what} (Shift+Tab, then ↑/↓).", severity="warning")
        return turn

    async def action_regenerate(self: MainHost) -> None:
        """Ask the selected question again as a new turn; its earlier answer stays in the session."""
        turn = self._selected_turn("regenerate")
        if turn is None or self.busy("regenerating an answer"):
            return
        if self.prompt.questions is not None:
            self.prompt.questions.add(turn.prompt)
        await self.ask(turn.prompt)

    def action_edit_question(self: MainHost) -> None:
        """Put the selected question into the question box to edit and send again."""
        turn = self._selected_turn("edit")
        if turn is None:
            return
        box = self.prompt
        box.text = turn.prompt
        box.move_cursor(box.document.end)
        box.focus()

    # -- model ------------------------------------------------------------------------------------------------------

    def action_switch_model(self: MainHost) -> None:
        """Ask for a model: a Pydantic AI model string, optionally followed by a server's base URL."""
        from haiku_tui.agent import model_label
        from haiku_tui.tui.screens.dialogs import TextInputDialog

        if self.busy("switching the model"):
            return
        config = self.workbench.config
        current = " ".join(filter(None, [config.model or "extractive", config.base_url]))
        dialog = TextInputDialog(
            "Switch model",
            value=current,
            placeholder="openai:gpt-5   ·   anthropic:claude-sonnet-5-5   ·   llama3.2 http://localhost:11434/v1",
            detail=f"Now: {model_label(config.model, config.base_url)}. Any Pydantic AI model string, or a model "
            "name and a server's base URL (OpenAI-compatible). It is checked before use and kept with this session.",
            submit_label="Switch",
        )
        self.app.push_screen(dialog, self._model_chosen)

    def _model_chosen(self: MainHost, value: str | None) -> None:
        parts = (value or "").split()
        if not parts:
            return
        if len(parts) > 2:
            self.notify_line("Type a model name and, optionally, one base URL.", "Model not switched", "error")
            return
        self.switch_model(parts[0], parts[1] if len(parts) == 2 else None)

    @work(thread=True, exclusive=True, group="model", name="switch the model")
    def switch_model(self: MainHost, name: str, base_url: str | None) -> None:
        """Off the UI thread: validate and build the model, record it in the session, save."""
        from haiku_tui.agent import ModelConfigError, model_label

        call = self.app.call_from_thread
        try:
            error = self.workbench.set_model(name, base_url)
        except ModelConfigError as exc:
            call(self.notify_line, str(exc), "Model not switched", "error")
            return
        if error:
            call(self.notify_line, error, "Model not switched", "error")
            return
        call(self.update_status)
        call(self.app.notify, f"Answers now come from {model_label(name, base_url)}.", title="Model")
        if self.workbench.session is not None and self.workbench.session.messages:
            save_error = self.workbench.save("the model choice")
            if save_error:
                call(self.notify_line, save_error, "", "error")

    def action_toggle_search_first(self: MainHost) -> None:
        """Search-first from now on, or back to tools (and forget that this model was answered search-first)."""
        if self.busy("switching how questions reach the model"):
            return
        self.switch_path(not self.workbench.search_first())

    @work(thread=True, exclusive=True, group="model", name="switch the path")
    def switch_path(self: MainHost, on: bool) -> None:
        """Off the UI thread: rebuild the agent on the other path."""
        call = self.app.call_from_thread
        error = self.workbench.set_search_first(on)
        if error:
            call(self.notify_line, error, "Path not switched", "error")
            return
        call(self.update_status)
        said = (
            "Questions are now asked search-first: haiku-tui searches, the model gets the numbered passages."
            if on else "Questions now reach the model with tools (search-first again only if it cannot use them)."
        )
        call(self.app.notify, said, title="Search-first" if on else "Tools")

    # -- copy ---------------------------------------------------------------------------------------------------------

    def action_copy(self: MainHost) -> None:
        """Copy the highlighted citation (evidence pane) or the selected answer with its sources (OSC 52)."""
        from haiku_tui.capabilities.views import citations_by_number

        session = self.workbench.session
        citations = citations_by_number(session.state) if session is not None else {}
        if self.focused is self.evidence and self.evidence.highlighted_item is not None:
            _, item = self.evidence.highlighted_item
            entry = next(((n, e) for n, e in citations.items() if e.get("chunk_id") == item.chunk_id), None)
            if entry is None:  # retrieved but never cited: its label and what the pane shows of it
                entry = (0, {"title": item.title, "headings": item.headings, "pages": item.pages,
                             "path": item.path, "text": item.snippet})
            number, data = entry
            text = citation_text(number, data)
            what = f"citation [{number}]" if number else "the evidence item"
        else:
            turn = self.turn_log.selected_turn
            view = self.workbench.view.question(turn.question) if turn is not None else None
            if view is None:
                self.app.notify("Select a completed answer (or an evidence item) to copy.", severity="warning")
                return
            text = answer_markdown(view, citations)
            what = f"answer {view.number}" + (f" with {len(view.citations)} source(s)" if view.citations else "")
        self.copy_text(text, what)

    def copy_text(self: MainHost, text: str, what: str) -> None:
        """Put ``text`` on the clipboard (OSC 52: works over SSH and tmux) and say what was copied."""
        self.app.copy_to_clipboard(text)
        self.app.notify(f"Copied {what} ({len(text)} characters).", title="Clipboard")

    # -- open the source -----------------------------------------------------------------------------------------

    def action_open_source(self: MainHost) -> None:
        """Open the highlighted evidence item's source file at its line (or a PDF at its page)."""
        entry = self.evidence.highlighted_item
        if entry is None:
            self.app.notify("Highlight a citation or evidence item (F3) to open its source.", severity="warning")
            return
        self.open_source(entry[1].chunk_id)

    @work(thread=True, exclusive=True, group="open-source", name="locate the source", exit_on_error=False)
    def open_source(self: MainHost, chunk_id: str) -> None:
        """Find where the chunk starts (off the UI thread), then open it there (a failure: one line, by the
        screen's worker handler)."""
        self.app.call_from_thread(self._open_at, self.workbench.locate(chunk_id))

    def _open_at(self: MainHost, where: Any) -> None:
        import os
        import subprocess

        from haiku_tui.tui.opener import open_command
        from haiku_tui.tui.text import clean_line

        if where is None or not where.exists:
            path = f" ({clean_line(where.path, 200)})" if where is not None else ""
            self.notify_line(f"The source file is not on this computer{path}.", "Open source", "warning")
            return
        argv, in_terminal = open_command(where, os.environ)
        try:
            if in_terminal:
                with self.app.suspend():
                    subprocess.run(argv, check=False)
            else:
                subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
        except Exception as exc:  # no editor, no opener, or no terminal to suspend
            self.notify_line(f"Cannot run {argv[0]}: {clean_line(str(exc), 200)}; set $EDITOR.", "Open source", "error")
            return
        self.app.notify(f"Opened {clean_line(location_text(where), 200)}.", title="Open source")
