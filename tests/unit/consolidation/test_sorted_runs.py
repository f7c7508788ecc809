"""`sorted_runs`: a stable order and distinct keys, found by one sort of keys packed with
their positions."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from redstring.consolidation.sorted_runs import SortedRuns, first_and_inverse, stable_order


@pytest.mark.parametrize("high", [1, 3, 1_000, 10**9, 2**45, 2**62])
def test_distinct_keys_are_found_as_unique_finds_them(high: int) -> None:
    """Catches the packed sort answering otherwise than `np.unique`: a later
    occurrence of a key taken for its first (a comparison would fill a value pair's
    level from another row; the clustering would let a score override a fixed
    verdict), distinct numbers out of key order, or keys too wide to pack with their
    positions packed anyway (they overflow; `2**45` and `2**62` take unique's way)."""
    rng = np.random.default_rng(high % 97)
    for count in (0, 1, 2, 17, 4_000):
        drawn = rng.integers(0, high + 1, count).astype(np.int64)
        # Drawn, and sorted: keys already in order (the clustering's candidate
        # pairs) take a shortcut, which must hold only where no key repeats.
        for keys in (drawn, np.sort(drawn), np.unique(drawn)):
            _check_distinct(keys)


def _check_distinct(keys: npt.NDArray[np.int64]) -> None:
    first, inverse = first_and_inverse(keys)
    if len(keys):
        _, expected_first, expected_inverse = np.unique(
            keys, return_index=True, return_inverse=True
        )
    else:
        expected_first = expected_inverse = np.zeros(0, dtype=np.int64)
    assert first.tolist() == expected_first.tolist()
    assert inverse.tolist() == expected_inverse.ravel().tolist()


@pytest.mark.parametrize("high", [0, 5, 10**6, 2**62])
def test_keys_are_ordered_as_a_stable_sort_orders_them(high: int) -> None:
    """Catches ties (a block's members, most of a rule's keys) ordered otherwise
    than by position: blocks' sorted neighbourhoods, whose names tie, would pair
    other members."""
    rng = np.random.default_rng(high % 89)
    for count in (0, 1, 3, 5_000):
        keys = rng.integers(0, high + 1, count).astype(np.int64)
        assert stable_order(keys).tolist() == np.argsort(keys, kind="stable").tolist()


def test_sorted_runs_find_every_key_added_in_any_order() -> None:
    """Catches a batch taken as sorted when it is not (its keys then sit out of
    order in their run, and a binary search misses them): keys added in batches
    increasing, decreasing and shuffled are all found with their values, and no
    other key is."""
    rng = np.random.default_rng(3)
    keys = rng.permutation(np.arange(0, 30_000, 3, dtype=np.int64))
    runs: SortedRuns[np.float64] = SortedRuns(np.float64)
    added = np.zeros(0, dtype=np.int64)
    for k, batch in enumerate(np.array_split(keys, 7)):
        if k % 3 == 1:
            batch = np.sort(batch)
        elif k % 3 == 2:
            batch = np.sort(batch)[::-1]
        runs.add(batch, batch / 3.0)
        added = np.concatenate([added, batch])
        asked = np.arange(-3, 30_003, dtype=np.int64)
        values, known = runs.lookup(asked)
        assert known.tolist() == np.isin(asked, added).tolist()
        assert np.array_equal(values[known], asked[known] / 3.0)
