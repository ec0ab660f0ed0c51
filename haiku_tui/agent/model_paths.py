"""Which way each model is asked (tools or search-first): the user's choice, and what haiku-tui learned.

The choice (:func:`search_first_choice`): ``--search-first`` / ``--tools``, else ``HAIKU_TUI_SEARCH_FIRST``
(``1`` / ``0``), else ``search_first = true | false`` in ``<data dir>/config.toml``, else automatic (None):
tools, and search-first for a model that cannot be grounded with them (:mod:`haiku_tui.agent.fallback`).

What was learned is kept per model and server in ``<data dir>/model-paths.json`` (written atomically), so the
next question does not pay for a refused request again: a server's refusal or a tool call written as text at
once, an answer that never searched once it happened twice in a row. ``--tools`` (or the app's path switch)
forgets it; an explicit choice overrides it. The model's context size, once its server named it in refusing a
request that did not fit, is kept there too, whatever the path (``sessions.fallback.ContextMemory``). A corrupt
file is said in one line and ignored.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SEARCH_FIRST_ENV = "HAIKU_TUI_SEARCH_FIRST"
PATHS_FILE = "model-paths.json"
REWRITTEN = "it is rewritten when a model's path is next learned"
STRIKES = 2
"""Answers in a row that never searched before a model is remembered as search-first."""


def search_first_choice(flag: bool | None = None) -> bool | None:
    """``flag`` (``--search-first`` True, ``--tools`` False), else ``$HAIKU_TUI_SEARCH_FIRST``, else
    ``search_first`` of ``<data dir>/config.toml``, else None (automatic). A bad value is a ModelConfigError."""
    from haiku_tui.agent.models import ModelConfigError, config_path, read_config

    if flag is not None:
        return flag
    env = os.environ.get(SEARCH_FIRST_ENV, "").strip().lower()
    if env:
        if env in ("1", "true", "yes", "on"):
            return True
        if env in ("0", "false", "no", "off"):
            return False
        raise ModelConfigError(f"{SEARCH_FIRST_ENV} must be 1 (search-first) or 0 (tools), not {env[:20]!r}")
    value = read_config().get("search_first")
    if value is not None and not isinstance(value, bool):
        raise ModelConfigError(f"{config_path()}: 'search_first' must be true or false, e.g. search_first = true")
    return value


@dataclass(frozen=True)
class Learned:
    """What was learned about one model on one server."""

    reason: str
    """A :data:`haiku_tui.agent.fallback.REASONS` key."""
    fix: str = ""
    strikes: int = 0
    """Answers in a row that never searched (``no-search`` is remembered at :data:`STRIKES`)."""

    @property
    def search_first(self) -> bool:
        return self.reason != "no-search" or self.strikes >= STRIKES


def path_text(choice: bool | None, learned: Learned | None) -> str:
    """The path in use, as ``info`` and the status bar say it: ``tools``, ``search-first`` (chosen) or
    ``search-first (the server refuses tools; remembered)``."""
    from haiku_tui.agent.fallback import REASONS

    if choice is not None:
        return "search-first" if choice else "tools"
    if learned is not None and learned.search_first:
        return f"search-first ({REASONS.get(learned.reason, learned.reason)}; remembered)"
    return "tools"


class ModelPaths:
    """``<data dir>/model-paths.json``: what was learned, by model label (``name @ server``)."""

    def __init__(self, path: Path | None = None) -> None:
        if path is None:
            from haiku_tui.locations import data_dir

            path = data_dir(create=False) / PATHS_FILE
        self.path = path
        self.problem: str | None = None
        """The one line saying the file could not be read (it is then ignored, and rewritten on the next change)."""

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            self.problem = f"ignored {self.path}: {type(exc).__name__} ({REWRITTEN})"
            return {}
        models = data.get("models") if isinstance(data, dict) else None
        if not isinstance(models, dict):
            self.problem = f"ignored {self.path}: not a model-paths file ({REWRITTEN})"
            return {}
        return models

    def learned(self, label: str) -> Learned | None:
        """What was learned about the model labelled ``label``, if anything."""
        entry = self._read().get(label)
        if not isinstance(entry, dict) or not isinstance(entry.get("reason"), str):
            return None
        strikes = entry.get("strikes", 0)
        return Learned(entry["reason"], str(entry.get("fix", "")), strikes if isinstance(strikes, int) else 0)

    def learn(self, label: str, reason: str, fix: str = "") -> Learned:
        """Record that ``label`` was asked again search-first for ``reason``; what is now known about it."""
        previous = self.learned(label)
        strikes = (previous.strikes if previous and previous.reason == "no-search" else 0) + 1
        learned = Learned(reason, fix, strikes if reason == "no-search" else 0)
        self._change(label, {**self._entry(label), "reason": reason, "fix": fix, "strikes": learned.strikes})
        return learned

    def forget(self, label: str) -> bool:
        """Forget the path learned for ``label`` (its context size stays); True when there was one."""
        entry = self._entry(label)
        if "reason" not in entry:
            return False
        kept = {key: value for key, value in entry.items() if key == "context"}
        self._change(label, kept or None)
        return True

    def context(self, label: str) -> int:
        """The context size in tokens ``label``'s server gave when a request did not fit (0: not known)."""
        tokens = self._entry(label).get("context")
        return tokens if isinstance(tokens, int) and tokens > 0 else 0

    def learn_context(self, label: str, tokens: int) -> None:
        """Record ``label``'s context size (tokens), as its server said it."""
        self._change(label, {**self._entry(label), "context": tokens})

    def _entry(self, label: str) -> dict[str, Any]:
        entry = self._read().get(label)
        return dict(entry) if isinstance(entry, dict) else {}

    def _change(self, label: str, entry: dict[str, Any] | None) -> None:
        models = self._read()
        if entry is None:
            models.pop(label, None)
        else:
            models[label] = entry
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"models": models}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(temporary, self.path)
