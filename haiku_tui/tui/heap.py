"""The garbage collector in a long session: what the app holds is frozen whenever the UI goes idle.

A full collection walks every object not frozen. Frozen once at start-up only, the heap would soon hold the
tens of thousands of objects of the turns mounted since, and every key risks a 70–160 ms full collection
through them. :func:`settle`, called when the UI has nothing left to do, collects what was made since the last settle
and freezes what of it lives (5–50 ms at 1000 questions), so the collections a key sets off walk only what
was made after.

Freezing keeps garbage: a frozen turn unmounted later is a reference cycle (widgets and their parents point
at each other) that no collection frees while it is frozen. So once the frozen heap has grown by
:data:`GROWTH` objects since the last full collection (turns mounted since, most of them unmounted again),
a full collection follows (:func:`collect`: one pause of a few hundred ms) once the UI has been idle for
:data:`QUIET` seconds (:class:`Settler`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.timer import Timer
    from textual.widget import Widget

GROWTH = 500_000
"""Objects settles may freeze between full collections: ~25 answers walked at a reading pace, of which
(measured, bench/RESULTS) under a tenth are garbage by the next full collection."""
QUIET = 1.0
"""Seconds the UI stays idle before a full collection that is due runs (a key meanwhile puts it off; past
twice :data:`GROWTH` it runs at the next settle, quiet or not)."""

_frozen: int | None = None
"""Objects frozen by settles since the last full collection (None before the first settle)."""


def collect() -> None:
    """Collect everything, what was frozen included, then freeze what is alive."""
    global _frozen
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _frozen = 0


def settle() -> bool:
    """The UI is idle: collect what was made since the last settle (frozen objects are not walked) and
    freeze what of it is alive. Nothing while the collector is disabled (a held first frame). The first
    settle only freezes (what the app made while starting is left to the collection that ends its start).
    Returns whether a full collection is due (:data:`GROWTH` objects frozen since the last one)."""
    global _frozen
    if not gc.isenabled():
        return False
    if _frozen is None:
        _frozen = 0
    else:
        gc.collect()
        _frozen += len(gc.get_objects())  # what is not frozen yet
        if _frozen > 2 * GROWTH:
            collect()
            return False
    gc.freeze()
    return _frozen > GROWTH


class Settler:
    """Settles the heap whenever ``owner`` has nothing left to do and ``allowed()`` (no answer is on its way);
    a full collection that is due follows once it has stayed so for :data:`QUIET` seconds."""

    def __init__(self, owner: Widget, allowed: Callable[[], bool]) -> None:
        self._owner = owner
        self._allowed = allowed
        self._timer: Timer | None = None

    def busy(self) -> None:
        """The owner has work again: a full collection waiting for quiet waits for the next quiet moment."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def idle(self) -> None:
        """The owner has nothing left to do."""
        self.busy()
        if self._allowed() and settle():
            self._timer = self._owner.set_timer(QUIET, self._quiet, name="heap")

    def _quiet(self) -> None:
        self._timer = None
        if self._allowed() and gc.isenabled():
            collect()
