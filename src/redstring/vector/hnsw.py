"""The approximate index of `SqliteVectorStore`: one usearch HNSW graph per tenant.

It is a projection of the store's own tables (which are a projection of the log), so
it is rebuilt from them with zero model calls and may be deleted at any time. This
module only holds the index files and the index objects; *when* an index is trusted,
caught up or rebuilt is decided by the store (`redstring.vector.sqlite`).

- Keys are the store's `vec_entities` rowids (stable for an entity while it exists).
- The graph holds the unit vectors in float32 under the inner-product metric, so the
  distance it returns (1 - cosine) *is* the exact score's input: no re-rank read.
  Zero vectors are never added (they have no direction; the store scores them 0.5).
- A file is `<workspace>.vec/<tenant>.<generation>.usearch`, the generation being the
  tenant's `vec_generations` value the index is equal to. A process opens a current
  file as a read-only memory map (`view`), which costs milliseconds at 100k.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np
    from numpy.typing import NDArray
    from usearch.index import Index

#: Graph degree and build-time beam. 32/64 measured recall@10 0.95-0.99 against the
#: exact scan on real name embeddings at 100k (`bench/vector_search.py --real`);
#: degree 16 lost recall on the many near-duplicate names.
CONNECTIVITY = 32
EXPANSION_ADD = 64
#: Search beam (usearch widens it to the number of candidates asked for).
EXPANSION_SEARCH = 64


def new_index(dimension: int) -> Index:
    from usearch.index import Index  # imported at first use: most commands never need it

    return Index(
        ndim=dimension,
        metric="ip",
        dtype="f32",
        connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD,
        expansion_search=EXPANSION_SEARCH,
    )


def file_for(directory: Path, tenant: str, generation: int) -> Path:
    return directory / f"{tenant}.{generation}.usearch"


def open_file(directory: Path, tenant: str, generation: int, *, writable: bool) -> Index | None:
    """The saved index of `tenant` at `generation`, or `None` when there is no such
    file or it cannot be read (it is then rebuilt: the file is only a cache)."""
    path = file_for(directory, tenant, generation)
    if not path.exists():
        return None
    try:
        from usearch.index import Index

        return Index.restore(str(path), view=not writable)
    except (RuntimeError, ValueError, OSError):
        return None


def save(index: Index, directory: Path, tenant: str, generation: int) -> None:
    """Write atomically (temporary file, then rename), then drop the tenant's older files.

    A process still reading an older file through a memory map keeps its mapping."""
    directory.mkdir(parents=True, exist_ok=True)
    target = file_for(directory, tenant, generation)
    partial = target.with_suffix(f".{os.getpid()}.partial")
    index.save(str(partial))
    os.replace(partial, target)
    for old in directory.glob(f"{tenant}.*.usearch"):
        if old != target:
            with contextlib.suppress(FileNotFoundError):
                old.unlink()


def drop_files(directory: Path, tenant: str) -> None:
    for old in directory.glob(f"{tenant}.*.usearch"):
        with contextlib.suppress(FileNotFoundError):
            old.unlink()


def apply(
    index: Index, keys: NDArray[np.uint64], unit: NDArray[np.float32], live: NDArray[np.bool_]
) -> None:
    """Replace the rows `keys` (in order; the last change of a key wins): each is
    removed, then added back with its vector when `live` (a non-zero stored vector)."""
    import numpy as np

    latest: dict[int, int] = {int(key): row for row, key in enumerate(keys)}
    changed = np.fromiter(latest, dtype=np.uint64, count=len(latest))
    present = changed[np.asarray(index.contains(changed), dtype=np.bool_).reshape(-1)]
    if len(present):
        index.remove(present)
    rows = np.fromiter(latest.values(), dtype=np.int64, count=len(latest))
    rows = rows[live[rows]]
    if len(rows):
        index.add(keys[rows], unit[rows])
