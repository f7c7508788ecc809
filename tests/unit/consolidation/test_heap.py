"""The collector kept to a consolidation's own objects (`consolidation.heap`)."""

from __future__ import annotations

import gc

from redstring.consolidation.engine import resolve_sync
from redstring.consolidation.heap import run_heap


def test_a_run_freezes_what_exists_and_gives_it_back() -> None:
    """Catches objects left frozen after a run (never collected again) and a run
    that freezes nothing (each full collection walking the whole process)."""
    held = [[k] for k in range(1000)]
    assert gc.get_freeze_count() == 0
    with run_heap():
        assert gc.get_freeze_count() >= len(held)
    assert gc.get_freeze_count() == 0


def test_objects_frozen_by_others_stay_frozen() -> None:
    """Catches a run unfreezing what a server froze before forking its workers."""
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        with run_heap():
            pass
        resolve_sync([])
        assert gc.get_freeze_count() == before
    finally:
        gc.unfreeze()
