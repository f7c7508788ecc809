"""The collector kept to a consolidation's own objects (`consolidation.heap`)."""

from __future__ import annotations

import gc

from redstring.consolidation.engine import resolve_sync
from redstring.consolidation.heap import RUN_GC_THRESHOLD, kept_to_the_end, run_heap


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


def test_a_run_collects_its_young_objects_less_often_and_restores_the_thresholds() -> None:
    """Catches a run left at CPython's 700 allocations per young pass (people-50k:
    1.6 s of collecting), a nested run lowering an outer one's threshold, and
    thresholds not given back (a server's collector changed for good)."""
    saved = gc.get_threshold()
    gc.set_threshold(700, 9, 8)
    try:
        with run_heap():
            assert gc.get_threshold() == (RUN_GC_THRESHOLD, 9, 8)
            with run_heap():
                assert gc.get_threshold() == (RUN_GC_THRESHOLD, 9, 8)
            assert gc.get_threshold() == (RUN_GC_THRESHOLD, 9, 8)
        assert gc.get_threshold() == (700, 9, 8)
        gc.set_threshold(10 * RUN_GC_THRESHOLD, 9, 8)
        with run_heap():
            assert gc.get_threshold() == (10 * RUN_GC_THRESHOLD, 9, 8)
    finally:
        gc.set_threshold(*saved)


def test_runs_that_overlap_on_threads_give_back_the_thresholds_they_found() -> None:
    """Catches each run restoring what it saw at its start: a server's two runs on two
    threads, the first ending first, left the process at the raised threshold."""
    saved = gc.get_threshold()
    gc.set_threshold(700, 9, 8)
    try:
        first, second = run_heap(), run_heap()
        first.__enter__()
        second.__enter__()
        first.__exit__(None, None, None)
        assert gc.get_threshold() == (RUN_GC_THRESHOLD, 9, 8)
        second.__exit__(None, None, None)
        assert gc.get_threshold() == (700, 9, 8)
    finally:
        gc.set_threshold(*saved)


def test_what_a_run_reads_to_keep_is_frozen_until_the_run_ends() -> None:
    """Catches the records a run reads walked by young passes while it lasts (the
    block neither pausing collection nor freezing them), left frozen after the run,
    collection left off after the block, and a freeze outside a run (never undone)."""
    assert gc.isenabled()
    with kept_to_the_end():
        assert gc.isenabled()
        outside = [[k] for k in range(1000)]
    assert gc.get_freeze_count() == 0
    with run_heap():
        frozen = gc.get_freeze_count()
        with kept_to_the_end():
            assert not gc.isenabled()
            read = [[k] for k in range(1000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen + len(read)
    assert gc.get_freeze_count() == 0
    gc.disable()
    try:
        with run_heap(), kept_to_the_end():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    del outside
