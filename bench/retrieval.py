"""Entity retrieval quality and latency per mode, beside a rapidfuzz full scan and an
exact numpy scan run in the same process.

Quality, on two shared sets (../shared/data/): people-50k (historical_figures_50k,
`full_name`, 5,156 people) and PATSTAT (patstat_company_names, `raw_name`, 102
organisations). One record per cluster is indexed (the first by id), the others are
the queries; a hit is the indexed record of the query's cluster. k=10. With
--distractors N, people-50k is measured once more with N look-alike names indexed
beside it (a given name of one person and a surname of another, never a name of
the set): wrong answers that share the query's words, as a large register has.

Latency: one tenant of a two-tenant SQLite workspace (the second tenant holds the
same entities with other ids, so every read must filter), at each --latency-sizes.
Names are the shared sets' names, then generated variants (a given name of one person
with the surname of another, seeded). Vectors are the model's up to --embed-limit
entities; past it they are seeded perturbations of embedded ones (said in the output).
Printed per mode: p50 and p99 over --latency-queries queries, k=10 (every mode and
baseline runs on one query before the next query, in rotating order, so a burst of
load on shared cores falls on all of them alike), with the build
time and the workspace file size; then the HNSW index of the vector store (which
answers from `ANN_MIN_ROWS` vectors up): its build time (`prepare`, which the vector
projection's catch-up runs, so the first search does not pay it), that first search,
its file size, and its recall@10 against the exact numpy scan on the same query
vectors (a hit counts when its exact score reaches the exact 10th score, so ties at
rank 10 are not misses).

    uv run python bench/retrieval.py                              # everything
    uv run python bench/retrieval.py --skip-latency               # quality only
    uv run python bench/retrieval.py --skip-latency --distractors 95000  # + look-alikes
    uv run python bench/retrieval.py --skip-quality --latency-sizes 10000,100000
    uv run python bench/retrieval.py --embedder fake              # plumbing only
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import gzip
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

from redstring import Entity, RetrievalMode, Retriever, VectorRecord, normalize_name, tenant_id_for
from redstring.domain.ids import EntityId, derived_entity_id
from redstring.embeddings.fake import FakeEmbeddingProvider
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import open_connection
from redstring.vector.sqlite import ANN_MIN_ROWS, SqliteVectorStore

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import NDArray

    from redstring.domain.ids import TenantId
    from redstring.ports.embedding import EmbeddingProvider

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
PEOPLE = DATA / "historical_figures_50k.csv.gz"
PATSTAT = DATA / "patstat_company_names.csv.gz"
TENANT = tenant_id_for("bench-retrieval")
#: A second tenant filled with the same records, so every search must filter by tenant.
NOISE_TENANT = tenant_id_for("bench-retrieval-noise")
MODES = ("lexical", "semantic", "hybrid")
#: The vector store's `ann_min_rows` for this run (`--ann-min-rows`).
ANN_ROWS = [ANN_MIN_ROWS]
K = 10


@dataclass(frozen=True)
class Row:
    key: str
    cluster: str
    name: str
    entity_type: str
    properties: dict[str, str]


def _open(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        sys.exit(f"missing {path}: the evaluation data lives in ../shared/data/")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def people_rows() -> list[Row]:
    rows = [
        Row(
            r["unique_id"],
            r["cluster"],
            r["full_name"],
            "person",
            {k: r[k] for k in ("dob", "birth_place", "occupation") if r[k]},
        )
        for r in _open(PEOPLE)
        if r["full_name"].strip()
    ]
    return sorted(rows, key=lambda row: row.key)


def patstat_rows() -> list[Row]:
    rows = [
        Row(r["person_id"].zfill(9), r["cluster"], r["raw_name"], "organization", {})
        for r in _open(PATSTAT)
        if r["raw_name"].strip()
    ]
    return sorted(rows, key=lambda row: row.key)


def entity_id(row: Row) -> EntityId:
    return derived_entity_id(TENANT, row.entity_type, row.key)


def to_entity(row: Row, tenant: TenantId) -> Entity:
    return Entity(
        id=derived_entity_id(tenant, row.entity_type, row.key),
        tenant_id=tenant,
        name=row.name,
        entity_type=row.entity_type,
        properties=dict(row.properties),
    )


def make_embedder(kind: str) -> EmbeddingProvider:
    if kind == "fake":
        return FakeEmbeddingProvider(dimension=384)
    from redstring.embeddings.local import LocalEmbeddingProvider

    return LocalEmbeddingProvider()


async def build(
    rows: list[Row], vectors_of: NDArray[np.float32], dimension: int, path: Path
) -> tuple[SqliteGraphStore, SqliteVectorStore, float]:
    """A workspace file holding `rows` in TENANT and again (other ids) in NOISE_TENANT."""
    conn = open_connection(path)
    conn.execute("PRAGMA synchronous = OFF")  # a bench file, rebuilt on every run
    graph = SqliteGraphStore(conn)
    vectors = SqliteVectorStore(conn, dimension, ann_min_rows=ANN_ROWS[0])
    started = time.perf_counter()
    for start in range(0, len(rows), 5000):
        chunk = rows[start : start + 5000]
        block = vectors_of[start : start + len(chunk)].tolist()
        for tenant in (TENANT, NOISE_TENANT):
            batch = [to_entity(row, tenant) for row in chunk]
            await graph.upsert_entities(batch, tenant)
            await vectors.upsert(
                [
                    VectorRecord(entity_id=e.id, vector=v, entity_type=e.entity_type)
                    for e, v in zip(batch, block, strict=True)
                ],
                tenant,
            )
    # Keys are filed on the first read of them; filed here, the build pays for it.
    for tenant in (TENANT, NOISE_TENANT):
        await graph.settle_keys(tenant)
    return graph, vectors, time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Baselines:
    """The two scans every mode is printed beside, over the same indexed names/vectors."""

    def __init__(self, rows: list[Row], matrix: NDArray[np.float32]) -> None:
        self.names = [normalize_name(row.name) for row in rows]
        self.ids = [entity_id(row) for row in rows]
        self.matrix = matrix

    def full_scan(self, query: str) -> list[EntityId]:
        hits = process.extract(
            normalize_name(query), self.names, scorer=JaroWinkler.normalized_similarity, limit=K
        )
        return [self.ids[index] for _, _, index in hits]

    def numpy_scan(self, vector: NDArray[np.float32]) -> list[EntityId]:
        # einsum, as the store scans: BLAS threads a matrix-vector product, which on
        # shared cores waits for descheduled threads (vector/sqlite.py `_matrix_hits`).
        scores = np.einsum("ij,j->i", self.matrix, vector)
        top = np.argpartition(-scores, K)[:K] if len(scores) > K else np.arange(len(scores))
        return [self.ids[i] for i in top[np.argsort(-scores[top], kind="stable")]]


async def embed_all(embedder: EmbeddingProvider, names: list[str]) -> NDArray[np.float32]:
    out = []
    for start in range(0, len(names), 4096):
        out.extend(await embedder.embed(names[start : start + 4096]))
    return np.asarray(out, dtype=np.float32).reshape(len(names), embedder.dimension)


def look_alikes(rows: list[Row], count: int, seed: int) -> list[Row]:
    """`count` indexed names that are nobody in the set: a given name of one person
    with the surname of another (seeded), never a name any record of the set holds,
    so each is a wrong answer that shares a query's words."""
    taken = {normalize_name(row.name) for row in rows}
    given = [r.name.split()[0] for r in rows if len(r.name.split()) > 1]
    surnames = [r.name.split()[-1] for r in rows if len(r.name.split()) > 1]
    generator = random.Random(f"{seed}:look-alikes")
    out: list[Row] = []
    while len(out) < count:
        name = f"{generator.choice(given)} {generator.choice(surnames)}"
        if normalize_name(name) in taken:
            continue
        taken.add(normalize_name(name))
        out.append(Row(f"alike{len(out):08d}", f"alike{len(out)}", name, rows[0].entity_type, {}))
    return out


async def quality_set(
    label: str,
    rows: list[Row],
    args: argparse.Namespace,
    embedder: EmbeddingProvider,
    tmp: Path,
    distractors: int = 0,
) -> None:
    indexed: dict[str, Row] = {}
    for row in rows:
        indexed.setdefault(row.cluster, row)
    index_rows = list(indexed.values())
    if distractors:
        index_rows += look_alikes(rows, distractors, args.seed)
        label += f" + {distractors} look-alike names"
    queries = [row for row in rows if indexed[row.cluster].key != row.key]
    queries = random.Random(args.seed).sample(queries, min(args.queries, len(queries)))
    matrix = await embed_all(embedder, [row.name for row in index_rows])
    graph, vectors, build_s = await build(
        index_rows, matrix, embedder.dimension, tmp / f"q-{label}.db"
    )
    retriever = Retriever(embeddings=embedder, vectors=vectors, graph=graph)
    base = Baselines(index_rows, matrix)
    expected = {row.key: entity_id(indexed[row.cluster]) for row in queries}
    query_vectors = await embed_all(embedder, [row.name for row in queries])
    print(
        f"\n{label}: {len(indexed)} clusters indexed (one record each), {len(queries)} "
        f"queries from their other records (seed {args.seed}); embedder "
        f"{embedder.model_name}; built in {build_s:.1f}s; HNSW index from "
        f"{ANN_ROWS[0]} vectors"
    )

    async def run(mode: str, row: Row, index: int) -> list[EntityId]:
        if mode == "rapidfuzz full scan":
            return base.full_scan(row.name)
        if mode == "exact numpy scan":
            return base.numpy_scan(query_vectors[index])
        result = await retriever.retrieve(row.name, TENANT, k=K, mode=RetrievalMode(mode))
        return [m.entity.id for m in result.matches]

    print(f"{'mode':<22}{'recall@1':>10}{'recall@10':>11}{'MRR@10':>9}")
    for mode in (*MODES, "rapidfuzz full scan", "exact numpy scan"):
        ranks: list[int | None] = []
        for index, row in enumerate(queries):
            found = await run(mode, row, index)
            target = expected[row.key]
            ranks.append(found.index(target) + 1 if target in found else None)
        n = len(ranks)
        r1 = sum(r == 1 for r in ranks) / n
        r10 = sum(r is not None for r in ranks) / n
        mrr = sum(1 / r for r in ranks if r is not None) / n
        print(f"{mode:<22}{r1:>10.3f}{r10:>11.3f}{mrr:>9.3f}")


def latency_rows(people: list[Row], patstat: list[Row], size: int, seed: int) -> list[Row]:
    """`size` rows: the shared sets' distinct names first, then generated people."""
    seen: dict[str, Row] = {}
    for row in (*people, *patstat):
        seen.setdefault(normalize_name(row.name), row)
    rows = list(seen.values())[:size]
    given = [r.name.split()[0] for r in people if len(r.name.split()) > 1]
    surnames = [r.name.split()[-1] for r in people if len(r.name.split()) > 1]
    generator = random.Random(seed)
    index = 0
    while len(rows) < size:
        name = f"{generator.choice(given)} {generator.choice(surnames)}"
        rows.append(Row(f"gen{index:08d}", f"gen{index}", name, "person", {}))
        index += 1
    return rows


async def latency(
    args: argparse.Namespace,
    embedder: EmbeddingProvider,
    people: list[Row],
    patstat: list[Row],
    tmp: Path,
) -> None:
    print(
        f"\nlatency: k={K}, {args.latency_queries} queries per cell (people records, seed "
        f"{args.seed}), one tenant of two in one SQLite file; {os.cpu_count()} CPUs"
    )
    header = f"{'entities':>9}  {'mode':<34}{'p50 ms':>9}{'p99 ms':>9}"
    print(header)
    print("-" * len(header))
    queries = [row.name for row in random.Random(args.seed).sample(people, args.latency_queries)]
    for size in args.latency_sizes:
        await latency_size(
            args, embedder, latency_rows(people, patstat, size, args.seed), queries, tmp
        )


async def latency_size(
    args: argparse.Namespace,
    embedder: EmbeddingProvider,
    rows: list[Row],
    queries: list[str],
    tmp: Path,
) -> None:
    """One size: build the file, time every mode and baseline, print, delete the file."""
    size = len(rows)
    embedded = min(size, args.embed_limit)
    started = time.perf_counter()
    matrix = await embed_all(embedder, [row.name for row in rows[:embedded]])
    embed_s = time.perf_counter() - started
    if embedded < size:
        generator = np.random.default_rng(args.seed)
        source = matrix[generator.integers(0, embedded, size - embedded)]
        noisy = source + generator.normal(0, 0.05, source.shape).astype(np.float32)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        matrix = np.vstack([matrix, noisy.astype(np.float32)])
    path = tmp / f"latency-{size}.db"
    graph, vectors, build_s = await build(rows, matrix, embedder.dimension, path)
    retriever = Retriever(embeddings=embedder, vectors=vectors, graph=graph)
    base = Baselines(rows, matrix)
    query_vectors = await embed_all(embedder, queries)
    # Where a workspace pays the index: the vector projection's catch-up `prepare`s
    # each tenant it wrote (build_graph, ingest, replay); the first search then only
    # uses it.
    started = time.perf_counter()
    await vectors.prepare(TENANT)
    index_s = time.perf_counter() - started
    started = time.perf_counter()
    await vectors.search(query_vectors[0].tolist(), TENANT, k=K)
    first_ms = (time.perf_counter() - started) * 1000

    async def time_all(
        cells: list[tuple[str, Callable[[str], object]]],
    ) -> dict[str, list[float]]:
        """Every cell on one query, then the next query, the cells' order rotating:
        on shared cores a burst of load then falls on every cell alike, so the ratios
        between cells hold even when the absolute times do not."""
        times: dict[str, list[float]] = {label: [] for label, _ in cells}
        for index, query in enumerate(queries):
            shift = index % len(cells)
            for label, call in cells[shift:] + cells[:shift]:
                started = time.perf_counter()
                outcome = call(query)
                if asyncio.iscoroutine(outcome):
                    await outcome
                times[label].append((time.perf_counter() - started) * 1000)
        return times

    async def embed_one(query: str) -> None:
        await embedder.embed_query([query])

    async def embed_and_scan(query: str) -> None:
        [vector] = await embedder.embed_query([query])
        base.numpy_scan(np.asarray(vector, dtype=np.float32))

    cells: list[tuple[str, Callable[[str], object]]] = [
        (
            mode,
            lambda q, m=mode: retriever.retrieve(q, TENANT, k=K, mode=RetrievalMode(m)),
        )
        for mode in MODES
    ]
    cells += [
        ("rapidfuzz full scan (names in RAM)", base.full_scan),
        ("exact numpy scan + query embedding", embed_and_scan),
        ("query embedding alone", embed_one),
    ]
    for query in queries[:10]:  # warm: first calls load caches and the model's pages
        for _, call in cells:
            outcome = call(query)
            if asyncio.iscoroutine(outcome):
                await outcome
    for label, times in (await time_all(cells)).items():
        p50, p99 = statistics.median(times), percentile(times, 0.99)
        print(f"{size:>9}  {label:<34}{p50:>9.2f}{p99:>9.2f}")
    conn_size = sum(p.stat().st_size for p in tmp.iterdir() if p.name.startswith(path.name)) / 2**20
    vectors_note = (
        "all vectors from the model"
        if embedded == size
        else f"{embedded} vectors from the model, {size - embedded} seeded perturbations"
    )
    print(
        f"{'':>9}  build {build_s:.1f}s (+{embed_s:.1f}s embedding), file "
        f"{conn_size:.0f} MiB for 2 x {size} entities; {vectors_note}"
    )
    recall = 0.0
    for vector in query_vectors:
        found = await vectors.search(vector.tolist(), TENANT, k=K)
        exact = base.matrix @ vector
        tenth = float(np.sort(exact)[-min(K, len(exact))])
        score_of = dict(zip(base.ids, exact.tolist(), strict=True))
        recall += sum(score_of[m.entity_id] >= tenth - 1e-6 for m in found) / K
    index_dir = Path(f"{path}.vec")
    index_mib = (
        sum(p.stat().st_size for p in index_dir.glob("*")) / 2**20 if index_dir.exists() else 0
    )
    print(
        f"{'':>9}  vector index: built by prepare (the vector projection's catch-up) in "
        f"{index_s:.1f}s when >= {ANN_ROWS[0]} vectors; first search after it "
        f"{first_ms:.1f} ms; file {index_mib:.0f} MiB, recall@10 vs exact scan "
        f"{recall / len(query_vectors):.4f}"
    )
    for p in list(tmp.iterdir()):
        if p.name.startswith(path.name):
            shutil.rmtree(p) if p.is_dir() else p.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", choices=("local", "fake"), default="local")
    parser.add_argument("--queries", type=int, default=2000, help="quality queries per set")
    parser.add_argument("--latency-queries", type=int, default=200)
    parser.add_argument(
        "--latency-sizes",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[10_000, 100_000, 1_000_000],
    )
    parser.add_argument(
        "--embed-limit", type=int, default=100_000, help="entities embedded by the model"
    )
    parser.add_argument(
        "--distractors",
        type=int,
        default=0,
        help="also measure people-50k with this many look-alike names indexed beside it",
    )
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--ann-min-rows",
        type=int,
        default=ANN_MIN_ROWS,
        help="tenant size from which the HNSW index answers (1: always, e.g. for quality)",
    )
    args = parser.parse_args()
    ANN_ROWS[0] = args.ann_min_rows
    people, patstat = people_rows(), patstat_rows()
    embedder = make_embedder(args.embedder)
    with tempfile.TemporaryDirectory(prefix="redstring-bench-") as tmp:
        if not args.skip_quality:
            asyncio.run(quality_set("people-50k", people, args, embedder, Path(tmp)))
            asyncio.run(quality_set("PATSTAT", patstat, args, embedder, Path(tmp)))
            if args.distractors:
                asyncio.run(
                    quality_set("people-50k", people, args, embedder, Path(tmp), args.distractors)
                )
        if not args.skip_latency:
            asyncio.run(latency(args, embedder, people, patstat, Path(tmp)))


if __name__ == "__main__":
    main()
