"""A model caught in a loop: its answer repeats the same few characters with no end.

Small local models do it ("\\"\\"\\"\\"…", one sentence or one paragraph again and again), and a local server may
let them go on until the context is full (llama.cpp's and Ollama's default generation has no cap): minutes of tokens
on a CPU, all of them the same. :class:`LoopWatch` reads the answer as it streams and says when its last :data:`RUN`
characters are one unit of at most :data:`MAX_UNIT` characters repeated (a longer unit: three times); the run is
then stopped with :func:`loop_error`.
Pure; a check every :data:`CHECK_EVERY` characters looks for the answer's last few characters earlier in it.
"""

from __future__ import annotations

from haiku_tui.text import printable_line

RUN = 400
"""Characters of repetition that make a loop: a unit of 200 repeated three times, or of 2 two hundred times."""
MAX_UNIT = 1000
"""The longest repeated unit looked for (a paragraph said again and again); a unit over RUN / 2 characters must
be there three times (a paragraph restated once is no loop)."""
KEY = 32
"""The answer's last characters, looked for earlier in it: where they occur again is a period to check."""
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
        self.tail = (self.tail + text)[-3 * MAX_UNIT :]
        self._since += len(text)
        if self._since >= CHECK_EVERY:
            self._since = 0
            self.unit = repeated_unit(self.tail)
        return self.unit


def repeated_unit(text: str) -> str | None:
    """The shortest unit whose repetition makes up the end of ``text``, else None: the last :data:`RUN` characters
    and one unit more, or three units where a unit is longer than half of :data:`RUN`."""
    n = len(text)
    if n < RUN:
        return None
    key, end = text[-KEY:], n - KEY
    lowest = max(0, end - MAX_UNIT)
    at = text.rfind(key, lowest, n - 1)  # the nearest earlier occurrence gives the shortest period
    while at != -1:
        period = end - at
        span = max(RUN, 2 * period)
        if span + period <= n and text[n - span - period : n - period] == text[n - span :]:
            return text[n - period :]
        at = text.rfind(key, lowest, at + KEY - 1)
    return None


def loop_error(unit: str) -> str:
    """The line a run stopped in a loop ends with."""
    shown = printable_line(unit, 40) or repr(unit)
    return (
        f"stopped: the model kept writing “{shown}” over and over; nothing was saved. Ask again, or use a larger "
        "model (small local models loop like this)"
    )
