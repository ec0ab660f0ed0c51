"""The one registry of the main screen's commands: it feeds the key bindings, the palette and F1 help."""

from __future__ import annotations

import re
from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class Command:
    """A main-screen action: in the palette always, bound to ``key`` when it has one."""

    action: str
    title: str
    """Palette title."""
    hint: str
    """Palette help (with the key)."""
    key: str | None = None
    description: str = ""
    """Footer label of the binding."""
    tooltip: str = ""
    """F1 help text of the binding."""
    show: bool = False

    def binding(self) -> Binding:
        assert self.key is not None
        name = re.sub(r"[^a-z]+", "-", self.action.replace("focus_pane", "focus")).strip("-")
        return Binding(
            self.key,
            self.action,
            self.description or self.title,
            id=f"main.{name}",
            show=self.show,
            tooltip=self.tooltip,
        )


COMMANDS: tuple[Command, ...] = (
    Command(
        "help",
        "Help for the focused pane",
        "F1 · the keys of the focused pane",
        "f1",
        "Help",
        "Help for the focused pane",
        show=True,
    ),
    Command(
        "cancel",
        "Cancel the running answer",
        "Esc · nothing is saved for a cancelled run",
        "escape",
        "Cancel / back",
        "Cancel the running answer; else restore a maximised pane; else back to the question box",
    ),
    Command(
        "focus_pane('conversation')",
        "Focus the conversation",
        "F2 · the question box and the answers",
        "f2",
        "Conversation",
        "Focus the question box",
    ),
    Command(
        "focus_pane('evidence')",
        "Focus the evidence pane",
        "F3 · every retrieved chunk, grouped by question",
        "f3",
        "Evidence",
        "Focus the evidence pane",
    ),
    Command(
        "focus_pane('policy')",
        "Focus the policy log",
        "F4 · grounding per question",
        "f4",
        "Policy",
        "Focus the policy log",
    ),
    Command(
        "toggle_evidence",
        "Show / hide the evidence pane",
        "Ctrl+T",
        "ctrl+t",
        "Evidence pane",
        "Show / hide the evidence pane",
        show=True,
    ),
    Command(
        "toggle_policy",
        "Show / hide the policy log",
        "Ctrl+L",
        "ctrl+l",
        "Policy log",
        "Show / hide the policy log",
        show=True,
    ),
    Command(
        "maximize_pane",
        "Maximise / restore the focused pane",
        "Ctrl+F",
        "ctrl+f",
        "Maximise",
        "Maximise the focused pane / restore the layout",
        show=True,
    ),
    Command("toggle_cited", "Evidence: all chunks / cited only", "c in the evidence pane"),
    Command("open_chunk", "Open the highlighted chunk with its neighbours", "Enter in the evidence pane"),
    Command("review", "Review the selected answer's citations", "r on an answer · s / x / u mark each source"),
    Command("wire", "Inspect the selected answer's model requests", "w on an answer · what the model was sent"),
    Command(
        "copy",
        "Copy the selected answer / citation",
        "y · the answer with its sources, or the highlighted evidence item",
        "y",
        "Copy",
        "Copy the selected answer with its sources, or the highlighted citation (OSC 52: works over SSH and tmux)",
    ),
    Command(
        "open_source",
        "Open the highlighted citation's source",
        "o · $EDITOR at the line, a PDF at its page",
        "o",
        "Open source",
        "Open the highlighted evidence item's file at its place ($EDITOR at the line, a PDF at its page)",
    ),
    Command(
        "regenerate",
        "Regenerate the selected answer",
        "Ctrl+R · asks the question again; the earlier answer stays",
        "ctrl+r",
        "Regenerate",
        "Ask the selected question again as a new turn (the earlier answer stays in the session)",
    ),
    Command(
        "edit_question",
        "Edit and resend the selected question",
        "F5 · puts the question into the question box",
        "f5",
        "Edit question",
        "Put the selected question into the question box to edit and send again",
    ),
    Command(
        "switch_model",
        "Switch model…",
        "F8 · any Pydantic AI model string or a base URL; kept with the session",
        "f8",
        "Model",
        "Switch the model (checked before use, remembered with the session, shown in the status bar)",
    ),
    Command(
        "toggle_search_first",
        "Search-first on / off",
        "F9 · haiku-tui searches first and gives the model the passages (no tools); off: tools",
        "f9",
        "Search-first",
        "Search first and give the model the numbered passages (no tools), or back to tools (shown in the status bar)",
    ),
    Command(
        "sessions",
        "Sessions…",
        "Ctrl+O · open, search, rename, delete, export",
        "ctrl+o",
        "Sessions",
        "Open, search, rename, delete and export sessions",
        show=True,
    ),
    Command(
        "new_session",
        "New session",
        "Ctrl+N · start an empty conversation",
        "ctrl+n",
        "New session",
        "Start a new, empty session",
    ),
    Command("switch_kb", "Switch knowledge base…", "a path or URI · starts a new session on it"),
    Command(
        "knowledge",
        "Knowledge base…",
        "Ctrl+B · documents, ingest, search playground",
        "ctrl+b",
        "Knowledge base",
        "Documents, ingest and the search playground",
    ),
    Command("app.watch_folders", "Watch folders…", "keep the knowledge base in step with folders while the app runs"),
    Command(
        "filter",
        "Filter documents…",
        "Ctrl+G · e.g. path LIKE '%guide%' (empty clears it)",
        "ctrl+g",
        "Filter documents",
        "Search only documents matching an SQL filter",
    ),
    Command("app.quit", "Quit", "Ctrl+Q"),
)


def bindings() -> list[Binding]:
    """The main screen's bindings, in registry order."""
    return [c.binding() for c in COMMANDS if c.key]


def palette() -> list[tuple[str, str, str]]:
    """(title, help, action) of every command, for the command palette."""
    return [(c.title, c.hint, c.action) for c in COMMANDS]
