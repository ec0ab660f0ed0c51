"""Small shared modals: a one-line text input and a yes/no confirmation.

Every piece of text a caller passes in (a session title, a document path, a chunk) is shown as plain
text with its controls made visible (:func:`~haiku_tui.tui.text.clean`): labels are built from
``rich.text.Text`` objects, never parsed as markup.
"""

from __future__ import annotations

import os
from datetime import datetime, UTC
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from haiku_tui.tui.text import clean, clean_line

DIALOG_CSS = """
.dialog {
    width: 70;
    max-width: 90%;
    height: auto;
    padding: 1 2;
    border: round $primary;
    background: $surface;
}
.dialog-title { text-style: bold; margin-bottom: 1; }
.dialog-detail { color: $text-muted; margin-bottom: 1; }
.dialog-buttons { height: auto; align-horizontal: right; margin-top: 1; }
.dialog-buttons Button { margin-left: 1; }
"""


class TextInputDialog(ModalScreen[str | None]):
    """Ask for one line of text. Enter submits (dismisses with the stripped text), Esc cancels (None).

    An empty answer is refused with a hint unless ``allow_empty`` is true.
    """

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    TextInputDialog { align: center middle; }
    TextInputDialog #dialog-input { margin-bottom: 0; }
    TextInputDialog #dialog-hint { color: $error; height: auto; }
    """
    )
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="dialog.cancel", tooltip="Close without changing anything"),
    ]
    AUTO_FOCUS = "#dialog-input"

    def __init__(
        self,
        title: str,
        *,
        value: str = "",
        placeholder: str = "",
        detail: str | None = None,
        submit_label: str = "OK",
        allow_empty: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._title = title
        self._value = value
        self._placeholder = placeholder
        self._detail = detail
        self._submit_label = submit_label
        self._allow_empty = allow_empty

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="dialog"):
            yield Static(Text(clean_line(self._title)), classes="dialog-title", id="dialog-title")
            if self._detail:
                yield Static(Text(clean(self._detail)), classes="dialog-detail", id="dialog-detail")
            yield Input(
                value=clean_line(self._value), placeholder=self._placeholder, id="dialog-input", select_on_focus=False
            )
            yield Static("", id="dialog-hint")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="dialog-cancel")
                yield Button(self._submit_label, variant="primary", id="dialog-ok")

    def _submit(self) -> None:
        value = self.query_one("#dialog-input", Input).value.strip()
        if not value and not self._allow_empty:
            self.query_one("#dialog-hint", Static).update(Text("Type something, or press Esc to cancel."))
            return
        self.dismiss(value)

    @on(Input.Submitted, "#dialog-input")
    def _on_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    @on(Button.Pressed, "#dialog-ok")
    def _on_ok(self, event: Button.Pressed) -> None:
        event.stop()
        self._submit()

    @on(Button.Pressed, "#dialog-cancel")
    def _on_cancel_button(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDialog(ModalScreen[bool]):
    """Ask a yes/no question. ``y`` / the confirm button → True; ``n``, Esc or Cancel → False."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    ConfirmDialog { align: center middle; }
    """
    )
    BINDINGS = [
        Binding("y", "confirm", "Yes", id="dialog.confirm", tooltip="Confirm"),
        Binding("n", "cancel", "No", id="dialog.no", tooltip="Cancel"),
        Binding("escape", "cancel", "Cancel", id="dialog.cancel", tooltip="Close without changing anything"),
    ]
    AUTO_FOCUS = "#dialog-cancel"

    def __init__(
        self,
        question: str,
        *,
        detail: str | None = None,
        confirm_label: str = "Delete",
        danger: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._question = question
        self._detail = detail
        self._confirm_label = confirm_label
        self._danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="dialog"):
            yield Static(Text(clean_line(self._question)), classes="dialog-title", id="dialog-title")
            if self._detail:
                yield Static(Text(clean(self._detail)), classes="dialog-detail", id="dialog-detail")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (n)", id="dialog-cancel")
                yield Button(
                    f"{self._confirm_label} (y)",
                    variant="error" if self._danger else "primary",
                    id="dialog-confirm",
                )

    @on(Button.Pressed, "#dialog-confirm")
    def _on_confirm_button(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(True)

    @on(Button.Pressed, "#dialog-cancel")
    def _on_cancel_button(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(False)

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


class TextViewDialog(ModalScreen[None]):
    """Show a block of (untrusted) text, scrollable; Esc or Enter closes."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    TextViewDialog { align: center middle; }
    TextViewDialog .dialog { width: 90%; height: 80%; }
    TextViewDialog #dialog-body { height: 1fr; }
    """
    )
    BINDINGS = [
        Binding("escape", "close", "Close", id="dialog.close", tooltip="Close"),
        Binding("enter", "close", "Close", id="dialog.close_enter", show=False, tooltip="Close"),
    ]

    def __init__(self, title: str, body: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._title = title
        self._body = body

    def compose(self) -> ComposeResult:
        from textual.containers import VerticalScroll

        with Vertical(classes="dialog", id="dialog"):
            yield Static(Text(clean_line(self._title)), classes="dialog-title", id="dialog-title")
            with VerticalScroll(id="dialog-body"):
                yield Static(Text(clean(self._body)), id="dialog-text")

    def action_close(self) -> None:
        self.dismiss(None)


# -- small shared formatting helpers ---------------------------------------------------------------------


def display_path(path: str | os.PathLike[str] | None) -> str:
    """A path as a user wants to read it, on one line with its controls made visible: relative to the
    working directory when inside it, else with the home directory as ``~``; URIs (``s3://…``) as they are."""
    if path is None:
        return ""
    return clean_line(_relative(str(path)))


def path_cell(path: str, width: int) -> str:
    """:func:`display_path` in ``width`` characters: a longer one loses its start, not its file name."""
    shown = display_path(path)
    return shown if len(shown) <= width else "…" + shown[len(shown) - width + 1 :]


def _relative(text: str) -> str:
    if "://" in text:
        return text
    try:
        p = Path(text)
        if p.is_absolute():
            cwd = Path.cwd()
            if p == cwd:
                return "."
            if p.is_relative_to(cwd):
                return str(p.relative_to(cwd))
            home = Path.home()
            if p.is_relative_to(home) and home != Path("/"):
                return "~/" + str(p.relative_to(home))
    except (OSError, ValueError):
        pass
    return text


def local_time(value: datetime | str | None) -> str:
    """``YYYY-MM-DD HH:MM`` in the local time zone (naive datetimes and ``…Z`` strings are UTC)."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value[:16]
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone().strftime("%Y-%m-%d %H:%M")


def error_line(exc: BaseException | str) -> str:
    """An error (or message) on one line, controls made visible; its type when it says nothing."""
    return clean_line(str(exc).strip() or (type(exc).__name__ if isinstance(exc, BaseException) else ""))
