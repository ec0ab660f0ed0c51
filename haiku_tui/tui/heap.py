"""The garbage collector in a long session: what the app holds is frozen whenever the UI goes idle.

A full collection walks every object not frozen. Frozen once at start-up only, the heap would soon hold the
tens of thousands of objects of the turns mounted since, and every key risks a 70–160 ms full collection
through them. :func:`settle`, called when the UI has nothing left to do, freezes what is alive then (~1 ms),
so the collections a key sets off walk only what was made after.

Freezing keeps garbage: a frozen turn unmounted later is a reference cycle (widgets and their parents point
at each other) that no collection frees while it is frozen. So once the frozen heap has grown by
:data:`GROWTH` objects since the last full collection (turns mounted since, most of them unmounted again),
the next settle is a full one instead (:func:`collect`: one pause of a few hundred ms, while idle).
"""

from __future__ import annotations

import gc

GROWTH = 2_000_000
"""Objects settles may freeze between full collections: ~100 answers walked at a reading pace, of which
(measured, bench/RESULTS) a few per cent are garbage by the next full collection, ~25 MB at most."""

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
    freeze what of it is alive, or collect everything once settles have frozen :data:`GROWTH` objects since
    the last full collection. Nothing while the collector is disabled (a held first frame). The first settle
    only freezes (what the app made while starting is left to the collection that ends its start). Returns
    whether it collected everything."""
    global _frozen
    if not gc.isenabled():
        return False
    if _frozen is None:
        _frozen = 0
    else:
        gc.collect()
        _frozen += len(gc.get_objects())  # what is not frozen yet
        if _frozen > GROWTH:
            collect()
            return True
    gc.freeze()
    return False
