"""sqlite-vec `SqliteVectorStore` against an exact numpy scan, in the same process.

One workspace file holds several tenants; the measured tenant holds `size` random unit
vectors (seeded, so every run sees the same data), the others a quarter of that each,
so the partition key has real neighbours to skip. For each size it prints:

- insertion throughput of `SqliteVectorStore.upsert` (batches of `--batch`), measured
  tenant only, vectors per second;
- k=10 search latency p50/p99 in ms through the public `search` (so it includes the
  adapter's Python, pydantic results and the tie over-fetch), and a numpy float32
  matrix-vector scan over the same tenant's unit vectors;
- the same with `entity_types=[one type]` (numpy scans that type's rows, pre-gathered);
- recall@10 of sqlite-vec against the exact scan. vec0 is brute force, so anything
  below 1.0 means a real defect (or a float32 near-tie at rank 10, which the
  `ties` column counts: queries whose 10th and 11th exact scores differ by < 1e-6).

Usage: uv run python bench/vector_search.py [--sizes 10000,100000] [--queries 100]
"""

from __future__ import annotations

import os

# One BLAS thread, set before numpy loads: sqlite-vec scans on one core, and on a shared
# machine a threaded BLAS spends more time waking threads than multiplying at these sizes.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from uuid import UUID

import numpy as np
import numpy.typing as npt

from redstring.domain.ids import EntityId, TenantId
from redstring.domain.vector import VectorRecord
from redstring.storage.sqlite import open_connection
from redstring.vector.sqlite import SqliteVectorStore

TYPES = ("person", "organization", "place", "product")
K = 10

Matrix = npt.NDArray[np.float32]


def unit_rows(rng: np.random.Generator, count: int, dimension: int) -> Matrix:
    rows = rng.standard_normal((count, dimension)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def entity_id(tenant_index: int, row: int) -> EntityId:
    return EntityId(UUID(int=(tenant_index << 64) | row))


async def load(
    store: SqliteVectorStore,
    tenant: TenantId,
    tenant_index: int,
    vectors: Matrix,
    types: npt.NDArray[np.int64],
    batch: int,
) -> float:
    """Upsert every row; return seconds spent inside `upsert` (record building excluded)."""
    spent = 0.0
    for start in range(0, len(vectors), batch):
        records = [
            VectorRecord(
                entity_id=entity_id(tenant_index, row),
                vector=vectors[row].tolist(),
                entity_type=TYPES[int(types[row])],
            )
            for row in range(start, min(start + batch, len(vectors)))
        ]
        began = time.perf_counter()
        await store.upsert(records, tenant)
        spent += time.perf_counter() - began
    return spent


def exact_top(matrix: Matrix, query: Matrix, k: int) -> tuple[npt.NDArray[np.intp], float]:
    """Indices of the k best rows by cosine, best first; and the k-th minus (k+1)-th gap."""
    scores = matrix @ query
    top = np.argpartition(-scores, k)[: k + 1]
    top = top[np.argsort(-scores[top], kind="stable")]
    return top[:k], float(scores[top[k - 1]] - scores[top[k]])


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


async def measure(size: int, args: argparse.Namespace, workdir: Path) -> dict[str, float]:
    rng = np.random.default_rng(args.seed + size)
    conn = open_connection(workdir / f"bench-{size}.db")
    store = SqliteVectorStore(conn, args.dim)
    tenants = [TenantId(UUID(int=index + 1)) for index in range(args.tenants)]

    for index, tenant in enumerate(tenants[1:], start=1):
        count = size // 4
        await load(
            store,
            tenant,
            index,
            unit_rows(rng, count, args.dim),
            rng.integers(0, len(TYPES), count),
            args.batch,
        )
    vectors = unit_rows(rng, size, args.dim)
    types = rng.integers(0, len(TYPES), size)
    insert_s = await load(store, tenants[0], 0, vectors, types, args.batch)

    queries = unit_rows(rng, args.queries, args.dim)
    filtered_rows = np.flatnonzero(types == 0)
    filtered_matrix = np.ascontiguousarray(vectors[filtered_rows])
    times: dict[str, list[float]] = {"vec": [], "np": [], "vec_f": [], "np_f": []}
    recall: list[float] = []
    recall_f: list[float] = []
    ties = 0

    for query in queries:
        as_list = query.tolist()
        began = time.perf_counter()
        found = await store.search(as_list, tenants[0], k=K)
        times["vec"].append(time.perf_counter() - began)
        began = time.perf_counter()
        exact, gap = exact_top(vectors, query, K)
        times["np"].append(time.perf_counter() - began)
        expected = {entity_id(0, int(row)) for row in exact}
        recall.append(len(expected & {m.entity_id for m in found}) / K)
        ties += gap < 1e-6

        began = time.perf_counter()
        found_f = await store.search(as_list, tenants[0], k=K, entity_types=[TYPES[0]])
        times["vec_f"].append(time.perf_counter() - began)
        began = time.perf_counter()
        exact_f, _ = exact_top(filtered_matrix, query, K)
        times["np_f"].append(time.perf_counter() - began)
        expected_f = {entity_id(0, int(filtered_rows[row])) for row in exact_f}
        recall_f.append(len(expected_f & {m.entity_id for m in found_f}) / K)
        assert all(m.entity_type == TYPES[0] for m in found_f)

    conn.close()
    ms = {key: [t * 1000 for t in values] for key, values in times.items()}
    return {
        "rows_in_file": size + (args.tenants - 1) * (size // 4),
        "insert_per_s": size / insert_s,
        **{f"{key}_p50": percentile(values, 50) for key, values in ms.items()},
        **{f"{key}_p99": percentile(values, 99) for key, values in ms.items()},
        "recall": statistics.fmean(recall),
        "recall_f": statistics.fmean(recall_f),
        "ties": ties,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="measured-tenant sizes")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--tenants", type=int, default=4)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]

    results = []
    with tempfile.TemporaryDirectory(prefix="redstring-bench-") as tmp:
        for size in sizes:
            results.append((size, asyncio.run(measure(size, args, Path(tmp)))))

    print(
        f"dim={args.dim} k={K} tenants={args.tenants} queries={args.queries} "
        f"types={len(TYPES)} (filter = 1 type, ~1/{len(TYPES)} of rows); latency in ms"
    )
    header = (
        f"{'size':>7} {'rows/file':>9} {'insert/s':>9} | "
        f"{'vec p50':>8} {'vec p99':>8} {'np p50':>7} {'np p99':>7} | "
        f"{'vecF p50':>8} {'vecF p99':>8} {'npF p50':>7} {'npF p99':>7} | "
        f"{'recall':>6} {'recallF':>7} {'ties':>4}"
    )
    print(header)
    print("-" * len(header))
    for size, r in results:
        print(
            f"{size:>7} {int(r['rows_in_file']):>9} {r['insert_per_s']:>9.0f} | "
            f"{r['vec_p50']:>8.2f} {r['vec_p99']:>8.2f} {r['np_p50']:>7.2f} {r['np_p99']:>7.2f} | "
            f"{r['vec_f_p50']:>8.2f} {r['vec_f_p99']:>8.2f} "
            f"{r['np_f_p50']:>7.2f} {r['np_f_p99']:>7.2f} | "
            f"{r['recall']:>6.3f} {r['recall_f']:>7.3f} {int(r['ties']):>4}"
        )


if __name__ == "__main__":
    main()
