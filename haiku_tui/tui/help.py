"""F1 help for every full screen: the help modal, its rows from key bindings, and the F1 binding of a screen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

HelpSections = Sequence[tuple[str, Sequence[tuple[str, str]]]]
"""(heading, [(keys, description), …]) per section."""


def help_binding(screen_id: str) -> Binding:
    """The F1 binding of a full screen, with the footer label the main screen's has."""
    return Binding("f1", "help", "Help", id=f"{screen_id}.help", tooltip="This help: the screen's keys")


class ScreenHelp:
    """Mixin for a full screen whose ``BINDINGS`` hold :func:`help_binding`: F1 lists the screen's own keys
    under ``HELP_TITLE``, then the keys that work everywhere."""

    HELP_TITLE: ClassVar[str]

    def action_help(self) -> None:
        screen: Any = self
        sections = [
            (self.HELP_TITLE, binding_rows(type(self))),
            ("Everywhere", binding_rows(type(screen.app).BINDINGS)),
        ]
        screen.app.push_screen(HelpScreen(self.HELP_TITLE, sections))


def binding_rows(source: type | list[Binding]) -> list[tuple[str, str]]:
    """(keys, description) of bindings (a list, or those a class declares itself), for F1 help."""
    rows = []
    digits = False
    bindings = source.__dict__.get("BINDINGS", []) if isinstance(source, type) else source
    for binding in bindings:
        if not isinstance(binding, Binding):
            continue
        if binding.id and binding.id.startswith("conversation.cite-"):
            if not digits:
                digits = True
                rows.append(("1 … 9", "Jump to that citation in the evidence pane"))
            continue
        keys = " / ".join(key_label(k) for k in binding.key.split(","))
        rows.append((keys, binding.tooltip or binding.description))
    return rows


def key_label(key: str) -> str:
    """``"ctrl+t"`` → ``"Ctrl+T"``, ``"escape"`` → ``"Esc"``, ``"slash"`` → ``"/"``."""
    names = {
        "escape": "Esc",
        "enter": "Enter",
        "up": "↑",
        "down": "↓",
        "left": "←",
        "right": "→",
        "backspace": "Backspace",
        "pageup": "PageUp",
        "pagedown": "PageDown",
        "slash": "/",
    }
    parts = key.split("+")
    modifier = len(parts) > 1
    return "+".join(names.get(p, p.capitalize() if len(p) > 1 or (modifier and i) else p) for i, p in enumerate(parts))


class HelpScreen(ModalScreen[None]):
    """The keys of the focused pane, with what they do (F1 / Esc close)."""

    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close", id="help.close")]

    def __init__(self, title: str, sections: HelpSections) -> None:
        super().__init__(classes="haiku-modal")
        self.title_text = title
        self.sections = sections

    def compose(self) -> ComposeResult:
        lines: list[Any] = []
        for index, (heading, rows) in enumerate(self.sections):
            if index:
                lines.append("\n")
            lines.append((f"{heading}\n", "bold $accent underline"))
            width = max((len(k) for k, _ in rows), default=0)
            for key, description in rows:
                lines.append((f"  {key.ljust(width)}  ", "bold"))
                lines.append(f"{description}\n")
        with Vertical(classes="modal-body help-modal") as body:
            body.border_title = f"Help · {self.title_text}"
            body.border_subtitle = "Esc close"
            with VerticalScroll(can_focus=True, classes="help-scroll"):
                yield Static(Content.assemble(*lines).rstrip(), classes="help-text")

    def on_mount(self) -> None:
        self.query_one(".help-scroll").focus()

    async def action_dismiss(self, result: Any = None) -> None:
        self.dismiss(None)
