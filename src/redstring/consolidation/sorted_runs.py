"""Values by integer key, gathered over many calls and looked up in bulk.

The clustering remembers the pairs it scored on demand (`clustering._KnownScores`)
and each field the value pairs it compared (`comparisons.FieldColumn.memo`): both add a
batch at a time and ask thousands of keys at once, which a dict would answer one
Python lookup each. Kept as sorted runs merged like a binary counter -- a run joins
the one before it once it holds half as many keys -- so there are O(log n) runs, a
lookup is one binary search per run, and each key is re-sorted O(log n) times.

Beside it, a stable order and the distinct keys of an int64 array by one sort of each
key packed with its position (`stable_order`, `first_and_inverse`): what `np.unique`
and a stable argsort answer, several times faster, for the comparisons' value pairs,
the blocking's keys and the clustering's known pairs; and every pair within
groups of sorted members (`pairs_within`), for the blocking and the clustering.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterator

    import numpy.typing as npt

V = TypeVar("V", bound=np.generic)


class SortedRuns(Generic[V]):
    """Keys (int64) to values of one dtype; a key is added at most once."""

    def __init__(self, dtype: type[V]) -> None:
        self._dtype = dtype
        self._runs: list[tuple[npt.NDArray[np.int64], npt.NDArray[V]]] = []

    def __iter__(self) -> Iterator[tuple[npt.NDArray[np.int64], npt.NDArray[V]]]:
        """The runs, each (sorted keys, their values)."""
        return iter(self._runs)

    def add(self, keys: npt.NDArray[np.int64], values: npt.NDArray[V]) -> None:
        """Add `keys` (distinct, none added before) with their `values`."""
        if not len(keys):
            return
        values = np.asarray(values, dtype=self._dtype)
        if not _increasing(keys):
            order = np.argsort(keys)  # distinct keys: any sort orders them alike
            keys, values = keys[order], values[order]
        self._runs.append((keys, values))
        while len(self._runs) > 1 and 2 * len(self._runs[-1][0]) >= len(self._runs[-2][0]):
            (k1, v1), (k2, v2) = self._runs[-2], self._runs[-1]
            merged, values_ = np.concatenate([k1, k2]), np.concatenate([v1, v2])
            order = np.argsort(merged, kind="stable")  # two sorted runs: a linear merge
            self._runs[-2:] = [(merged[order], values_[order])]

    def lookup(self, keys: npt.NDArray[np.int64]) -> tuple[npt.NDArray[V], npt.NDArray[np.bool_]]:
        """(values, known) of each of `keys`; values are meaningful where known."""
        values: npt.NDArray[V] = np.zeros(len(keys), dtype=self._dtype)
        hit = np.zeros(len(keys), dtype=bool)
        open_rows = np.arange(len(keys))
        for run_keys, run_values in self._runs:
            if not len(open_rows):
                break
            asked = keys[open_rows]
            pos = np.minimum(np.searchsorted(run_keys, asked), len(run_keys) - 1)
            found = run_keys[pos] == asked
            values[open_rows[found]] = run_values[pos[found]]
            hit[open_rows[found]] = True
            open_rows = open_rows[~found]
        return values, hit


def _increasing(keys: npt.NDArray[np.int64]) -> bool:
    """Whether `keys` are in strictly increasing order: one pass, where sorting the
    clustering's ~2M candidate pairs, which come in pair order, cost ~0.1 s."""
    return bool((keys[1:] > keys[:-1]).all())


def _packed_sort(
    keys: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """(keys sorted, their positions) with ties in position order -- a stable argsort
    -- by one sort of each key packed with its position into an int64, which numpy
    sorts several times faster than it argsorts stably (50k keys: 3.0 -> 0.3 ms;
    2M: 0.25 -> 0.06 s). None where a key is negative or too wide to share 63 bits
    with its position."""
    count = len(keys)
    bits = max(count - 1, 1).bit_length()
    if not count or int(keys.min()) < 0 or int(keys.max()) >= 1 << (63 - bits):
        return None
    packed = np.sort((keys.astype(np.int64) << bits) | np.arange(count, dtype=np.int64))
    return packed >> bits, packed & ((1 << bits) - 1)


def stable_order(keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """`np.argsort(keys, kind="stable")`, by `_packed_sort` where it can."""
    packed = _packed_sort(keys)
    if packed is None:
        return np.argsort(keys, kind="stable").astype(np.int64)
    return packed[1]


def first_and_inverse(
    keys: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """`np.unique(keys, return_index=True, return_inverse=True)` less the values:
    each distinct key's first position (in key order) and each key's distinct number,
    by `_packed_sort` where it can (a comparison's 2M value-pair keys 0.25 -> 0.06 s)."""
    if _increasing(keys):
        every = np.arange(len(keys), dtype=np.int64)
        return every, every.copy()
    if len(keys) and int(keys.min()) >= 0 and int(keys.max()) < len(keys):
        return _dense_first_and_inverse(keys)
    packed = _packed_sort(keys)
    if packed is None:
        if not len(keys):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        return first.astype(np.int64), inverse.ravel().astype(np.int64)
    ordered, positions = packed
    starts = np.empty(len(keys), dtype=bool)
    starts[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    inverse = np.empty(len(keys), dtype=np.int64)
    inverse[positions] = np.cumsum(starts) - 1
    return positions[starts], inverse


def _dense_first_and_inverse(
    keys: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """`first_and_inverse` of keys in 0..len(keys)-1, by tables indexed by key and
    no sort: a field of few values (a sex, a trade) pairs its values in few ways, and
    the value pairs of 2M candidates were sorted to find them (50 -> 8 ms)."""
    limit = int(keys.max()) + 1
    first_at = np.full(limit, len(keys), dtype=np.int64)
    np.minimum.at(first_at, keys, np.arange(len(keys), dtype=np.int64))
    distinct = np.flatnonzero(first_at < len(keys))
    number = np.empty(limit, dtype=np.int64)
    number[distinct] = np.arange(len(distinct), dtype=np.int64)
    return first_at[distinct], number[keys]


@functools.cache
def _triangle(size: int) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """`np.triu_indices(size, k=1)` as bytes, kept: blocks have at most a few hundred
    members, and building the indices anew for each block size of each rule cost
    as much as writing the pairs (people-50k: ~5 ms a rule, ~70 rules)."""
    a, b = np.triu_indices(size, k=1)
    kind = np.uint8 if size <= 256 else np.uint16
    a, b = a.astype(kind), b.astype(kind)
    a.flags.writeable = b.flags.writeable = False  # shared by every caller
    return a, b


def pairs_within(
    order: npt.NDArray[np.int64],
    starts: npt.NDArray[np.int64],
    sizes: npt.NDArray[np.int64],
    max_block: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Every pair inside each block of 2..`max_block` members (`order[start:start+size]`),
    block by block in the upper-triangle order, as (left, right): one numpy pass per
    block size, not one per block (people-50k has ~260k blocks). The rule choice's
    blocks, and the clustering's small components (`clustering._complete`)."""
    small = (sizes > 1) & (sizes <= max_block)
    block_starts, block_sizes = starts[small], sizes[small]
    counts = block_sizes * (block_sizes - 1) // 2
    offsets = np.cumsum(counts) - counts
    left = np.empty(int(counts.sum()), dtype=np.int64)
    right = np.empty(len(left), dtype=np.int64)
    for size in np.unique(block_sizes).tolist():
        chosen = block_sizes == size
        members = order[block_starts[chosen][:, None] + np.arange(size)]
        a, b = _triangle(size)
        at = (offsets[chosen][:, None] + np.arange(len(a))).ravel()
        left[at] = members[:, a].ravel()
        right[at] = members[:, b].ravel()
    return left, right
