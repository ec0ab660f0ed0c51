"""Asking again search-first: what a :class:`~haiku_tui.sessions.run.QuestionRun` is given to do it, and
the gate its answer text passes through so that a tool call written as text is never shown; and the model's
context size, learned when a request did not fit, that later questions are planned to fit.

The detection itself is :mod:`haiku_tui.agent.fallback` (pure); what was learned per model and server is
:mod:`haiku_tui.agent.model_paths`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from haiku_tui.agent.fallback import Reroute
    from haiku_tui.agent.model_paths import ModelPaths


@dataclass
class Fallback:
    """How a question the tools path cannot ground is asked again search-first."""

    agent: Callable[[], Any]
    """Builds the search-first agent (called once, when a question is first sent again)."""
    label: str
    """The model and its server (``name @ url``): what is learned is kept under it."""
    searchable: Callable[[], bool] = lambda: True
    """Whether the knowledge base holds documents (asked when an answer never searched: it is then asked again)."""
    paths: ModelPaths | None = None
    """Where what was learned is kept (None: ``<data dir>/model-paths.json``)."""
    on_learned: Callable[[Reroute, bool], None] | None = field(default=None, repr=False)
    """Told each reroute and whether it is now remembered (the app switches its agent)."""

    def _paths(self) -> ModelPaths:
        self.paths = _model_paths(self.paths)
        return self.paths

    def learn(self, reroute: Reroute) -> str:
        """Record ``reroute`` for this model and server; the line that says it."""
        try:
            remembered = self._paths().learn(self.label, reroute.reason, reroute.fix).search_first
        except OSError:  # a read-only data dir: asked again all the same, not remembered
            remembered = False
        if self.on_learned is not None:
            self.on_learned(reroute, remembered)
        return reroute.line(remembered=remembered)

    def searched(self) -> None:
        """The model searched: answers that never did are no longer counted in a row."""
        paths = self._paths()
        learned = paths.learned(self.label)
        if learned is not None and learned.reason == "no-search":
            try:
                paths.forget(self.label)
            except OSError:  # not counted: nothing is lost
                pass


@dataclass
class ContextMemory:
    """The context size (tokens) of one model on one server: as the user set it, else as its server named it in
    refusing a request that did not fit, kept with what is learned about the model
    (:class:`~haiku_tui.agent.model_paths.ModelPaths`)."""

    label: str
    """The model and its server (``name @ url``)."""
    paths: ModelPaths | None = None
    """Where it is kept (None: ``<data dir>/model-paths.json``)."""
    configured: int = 0
    """The size the user set (``context_tokens`` in config.toml), which wins; 0: none set."""

    @property
    def tokens(self) -> int:
        """The context size, 0 when not known (or the file cannot be read)."""
        if self.configured:
            return self.configured
        self.paths = _model_paths(self.paths)
        try:
            return self.paths.context(self.label)
        except OSError:
            return 0

    def learn(self, tokens: int) -> None:
        """Keep ``tokens`` as the context size (a read-only data dir: not kept, nothing else is lost)."""
        self.paths = _model_paths(self.paths)
        try:
            if self.paths.context(self.label) != tokens:
                self.paths.learn_context(self.label, tokens)
        except OSError:
            pass


def _model_paths(paths: ModelPaths | None) -> ModelPaths:
    if paths is None:
        from haiku_tui.agent.model_paths import ModelPaths

        paths = ModelPaths()
    return paths


class TextGate:
    """Answer text on its way out. A part that starts like a tool call written as text is held until it is
    decided (:func:`haiku_tui.agent.fallback.text_tool_call`); with ``until_searched``, all text is held
    until the question has searched, or a tool call starts (text before a tool call is shown as before).

    Each method takes the event the text came with and returns the events that may now be shown, in order;
    :attr:`call` is the shape of a tool call written as text, once one is found.
    """

    def __init__(self, *, until_searched: bool = False) -> None:
        self.until_searched = until_searched
        self.call: str | None = None
        self._held: list[Any] = []
        self._part = ""
        self._deciding = False

    def start(self, event: Any, text: str) -> list[Any]:
        """A new text part starts (the one before it has ended)."""
        out = self.end()
        self._part, self._deciding = text, True
        return out + self._push(event)

    def delta(self, event: Any, text: str) -> list[Any]:
        if self._deciding:  # (a decided part's text is not kept: a long answer streams in O(n))
            self._part += text
        return self._push(event)

    def end(self) -> list[Any]:
        """The text part ended: a bare JSON call is decided now."""
        if self._deciding and self.call is None:
            self._decide(ended=True)
        return self._release()

    def step(self) -> list[Any]:
        """A tool call starts: what was held is shown before it (unless it was a call written as text)."""
        out = self.end()
        if self.call is not None:
            return []
        out, self._held = out + self._held, []
        return out

    def searched(self) -> list[Any]:
        """The question searched: its text streams from now on."""
        self.until_searched = False
        return self._release()

    def drop(self) -> None:
        """Forget what is held (the attempt is abandoned)."""
        self._held = []

    def _push(self, event: Any) -> list[Any]:
        self._held.append(event)
        if self._deciding and self.call is None:
            self._decide(ended=False)
        return self._release()

    def _decide(self, *, ended: bool) -> None:
        from haiku_tui.agent.fallback import text_tool_call

        verdict = text_tool_call(self._part, ended=ended)
        if verdict == "maybe":
            return
        self._deciding = False
        if verdict != "no":
            self.call = verdict

    def _release(self) -> list[Any]:
        if self._deciding or self.until_searched or self.call is not None:
            return []
        out, self._held = self._held, []
        return out
