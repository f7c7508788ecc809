"""The cyclic garbage collector kept to what a consolidation allocates.

A run allocates millions of short-lived objects (levels of pairs, sets of members,
merged entities, events), so CPython's collector runs often, and each full pass
walks every object the process holds: in a server or a notebook that holds other
data, most of them are not the run's (voters, in a process holding four other record
sets: 1.79 s against 1.41 s). `gc.freeze` before the run moves what already exists
out of the collector's sight; the run's own objects are collected as ever, and the
frozen ones are looked at again when the run ends.

Within the run the youngest generation is collected every `RUN_GC_THRESHOLD`
allocations rather than CPython's 700: the run's objects are few cycles and many
survivors (records read, columns, pairs, merged entities), which each young pass
only moves on and each older pass walks again. people-50k: 2013 passes took 1.6 s
of a 13.2 s consolidate, 11 passes 0.26 s; people-export-10k 0.20 s -> 0.02 s.
Refcounting still frees everything that is not a cycle at once.

A run drops its data (records read, pairs, the plan) before it ends: once the
threshold is back at 700, the next young pass walks whatever the run left alive,
which no young pass had walked yet (people-50k: a 0.31 s pass of the collector as
`consolidate` returned, for objects freed a moment later).
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator


#: Allocations between two collections of the youngest generation during a run.
RUN_GC_THRESHOLD = 100_000


class _Runs:
    """The runs under way in this process (nested, or on a server's threads at once):
    the first to start freezes what exists, unless some is frozen already (a server
    that froze its own before forking: theirs stay so), and raises the threshold; the
    last to end unfreezes what it froze and restores the threshold it found, whatever
    order they end in."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0
        self._froze = False
        # Filled in place: replacing it would free an object a server may have frozen.
        self._found: list[int] = []

    def enter(self) -> None:
        with self._lock:
            if not self._active:
                self._found[:] = gc.get_threshold()
                gc.set_threshold(max(self._found[0], RUN_GC_THRESHOLD), *self._found[1:])
                self._froze = not gc.get_freeze_count()
                if self._froze:
                    gc.freeze()
            self._active += 1

    def owns_freeze(self) -> bool:
        with self._lock:
            return self._active > 0 and self._froze

    def leave(self) -> None:
        with self._lock:
            self._active -= 1
            if not self._active:
                if self._froze:
                    gc.unfreeze()
                gc.set_threshold(*self._found)


_RUNS = _Runs()


@contextmanager
def run_heap() -> Iterator[None]:
    """Freeze the objects alive now and collect the youngest generation every
    `RUN_GC_THRESHOLD` allocations, for the block (`_Runs`)."""
    _RUNS.enter()
    try:
        yield
    finally:
        _RUNS.leave()


@contextmanager
def kept_to_the_end() -> Iterator[None]:
    """For a block of a run that makes what the run keeps to its end (the records it
    reads): no collection during the block, and what exists after it frozen with the
    rest, so no young pass walks it (people-50k: six passes, 0.15 s, over 50k records
    read; each pass only moved them on). Only where the run froze at its start, so
    its end unfreezes them; elsewhere the block runs as it is."""
    if not _RUNS.owns_freeze():
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
