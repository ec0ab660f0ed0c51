"""A model caught in a loop: its answer repeats the same few characters with no end.

Small local models do it ("\\"\\"\\"\\"…", one sentence again and again), and a local server may let them go on
until the context is full (llama.cpp's and Ollama's default generation has no cap): minutes of tokens on a CPU, all
of them the same. :class:`LoopWatch` reads the answer as it streams and says when its last :data:`RUN` characters
are one unit of at most :data:`MAX_UNIT` characters repeated; the run is then stopped with :func:`loop_error`.
Pure; a check every :data:`CHECK_EVERY` characters compares a few hundred short slices.
"""

from __future__ import annotations

from haiku_tui.text import printable_line

RUN = 400
"""Characters of repetition that make a loop: a unit of 200 repeated three times, or of 2 two hundred times."""
MAX_UNIT = 200
"""The longest repeated unit looked for (a sentence said again and again)."""
CHECK_EVERY = 100
"""New characters between two checks."""


class LoopWatch:
    """Fed an answer's text as it streams (:meth:`add`); :attr:`unit` is the repeated unit once it loops."""

    def __init__(self) -> None:
        self.tail = ""
        self.unit: str | None = None
        self._since = 0

    def add(self, text: str) -> str | None:
        """Read ``text``, the next piece of the answer; the repeated unit when the answer now loops, else None."""
        if self.unit is not None or not text:
            return self.unit
        self.tail = (self.tail + text)[-(RUN + MAX_UNIT) :]
        self._since += len(text)
        if self._since >= CHECK_EVERY:
            self._since = 0
            self.unit = repeated_unit(self.tail)
        return self.unit


def repeated_unit(text: str) -> str | None:
    """The shortest unit whose repetition makes up the last :data:`RUN` characters of ``text`` (and one unit more),
    else None."""
    end = text[-RUN:]
    if len(end) < RUN:
        return None
    for period in range(1, min(MAX_UNIT, len(text) - RUN) + 1):
        if text[-RUN - period : -period] == end:
            return text[-period:]
    return None


def loop_error(unit: str) -> str:
    """The line a run stopped in a loop ends with."""
    shown = printable_line(unit, 40) or repr(unit)
    return (
        f"stopped: the model kept writing “{shown}” over and over; nothing was saved. Ask again, or use a larger "
        "model (small local models loop like this)"
    )
