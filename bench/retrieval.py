"""Entity retrieval quality and latency on real people data, per mode, beside a
rapidfuzz full-scan baseline run in the same process.

Data: ../shared/data/historical_figures_50k.csv.gz (50,578 records of 5,156 people,
with typos, nicknames and dropped titles). Quality: one record per person is
indexed (the first by unique_id), the others are queries; a hit is the indexed
record of the query's person. Latency: all records indexed as entities (sizes from
--latency-sizes), k=10, measured per query.

    uv run python bench/retrieval.py                     # local MiniLM embedder
    uv run python bench/retrieval.py --embedder fake     # plumbing only, no semantics
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import gzip
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

from redstring import Entity, RetrievalMode, Retriever, VectorRecord, normalize_name, tenant_id_for
from redstring.domain.ids import EntityId, derived_entity_id
from redstring.embeddings.fake import FakeEmbeddingProvider
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import open_connection
from redstring.vector.sqlite import SqliteVectorStore

if TYPE_CHECKING:
    from redstring.ports.embedding import EmbeddingProvider

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
PEOPLE = DATA / "historical_figures_50k.csv.gz"
TENANT = tenant_id_for("bench-retrieval")
#: A second tenant filled with the same records, so every search must filter by tenant.
NOISE_TENANT = tenant_id_for("bench-retrieval-noise")


@dataclass(frozen=True)
class Row:
    unique_id: str
    cluster: str
    name: str
    dob: str
    birth_place: str
    occupation: str


def load_rows() -> list[Row]:
    if not PEOPLE.exists():
        sys.exit(f"missing {PEOPLE}: the evaluation data lives in ../shared/data/")
    with gzip.open(PEOPLE, "rt", encoding="utf-8") as handle:
        rows = [
            Row(
                r["unique_id"],
                r["cluster"],
                r["full_name"],
                r["dob"],
                r["birth_place"],
                r["occupation"],
            )
            for r in csv.DictReader(handle)
            if r["full_name"].strip()
        ]
    return sorted(rows, key=lambda row: row.unique_id)


def to_entity(row: Row, tenant: object = TENANT) -> Entity:
    return Entity(
        id=derived_entity_id(TENANT, "person", row.unique_id),
        tenant_id=tenant,  # type: ignore[arg-type]
        name=row.name,
        entity_type="person",
        properties={
            k: v
            for k, v in (
                ("dob", row.dob),
                ("birth_place", row.birth_place),
                ("occupation", row.occupation),
            )
            if v
        },
    )


def make_embedder(kind: str) -> EmbeddingProvider:
    if kind == "fake":
        return FakeEmbeddingProvider(dimension=384)
    from redstring.embeddings.local import LocalEmbeddingProvider

    return LocalEmbeddingProvider()


async def build(
    rows: list[Row], embedder: EmbeddingProvider, workdir: Path, label: str
) -> tuple[Retriever, float]:
    """A SQLite graph + sqlite-vec store holding `rows` (and a noise tenant's copy)."""
    conn = open_connection(workdir / f"{label}.db")
    graph, vectors = SqliteGraphStore(conn), SqliteVectorStore(conn, embedder.dimension)
    started = time.perf_counter()
    for start in range(0, len(rows), 2000):
        chunk = rows[start : start + 2000]
        embedded = await embedder.embed([row.name for row in chunk])
        for tenant in (TENANT, NOISE_TENANT):
            batch = [to_entity(row, tenant) for row in chunk]
            await graph.upsert_entities(batch, tenant)  # type: ignore[arg-type]
            await vectors.upsert(
                [
                    VectorRecord(entity_id=e.id, vector=v, entity_type=e.entity_type)
                    for e, v in zip(batch, embedded, strict=True)
                ],
                tenant,  # type: ignore[arg-type]
            )
    return Retriever(
        embeddings=embedder, vectors=vectors, graph=graph
    ), time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def quality(
    args: argparse.Namespace, rows: list[Row], embedder: EmbeddingProvider, workdir: Path
) -> None:
    indexed: dict[str, Row] = {}
    for row in rows:
        indexed.setdefault(row.cluster, row)
    index_rows = list(indexed.values())
    queries = [row for row in rows if indexed[row.cluster].unique_id != row.unique_id]
    queries = random.Random(args.seed).sample(queries, min(args.queries, len(queries)))
    retriever, build_s = await build(index_rows, embedder, workdir, "quality")
    expected = {
        row.unique_id: derived_entity_id(TENANT, "person", indexed[row.cluster].unique_id)
        for row in queries
    }
    print(
        f"quality: {len(index_rows)} people indexed (one record each), "
        f"{len(queries)} queries from their other records (seed {args.seed}); "
        f"embedder {embedder.model_name}; index built in {build_s:.1f}s"
    )

    names = [normalize_name(row.name) for row in index_rows]
    ids = [derived_entity_id(TENANT, "person", row.unique_id) for row in index_rows]

    def baseline(query: str) -> list[EntityId]:
        hits = process.extract(
            normalize_name(query), names, scorer=JaroWinkler.normalized_similarity, limit=10
        )
        return [ids[index] for _, _, index in hits]

    table = []
    for label in ("lexical", "semantic", "hybrid", "rapidfuzz full scan"):
        ranks: list[int | None] = []
        latencies: list[float] = []
        for row in queries:
            started = time.perf_counter()
            if label == "rapidfuzz full scan":
                found = baseline(row.name)
            else:
                result = await retriever.retrieve(row.name, TENANT, k=10, mode=RetrievalMode(label))
                found = [m.entity.id for m in result.matches]
            latencies.append((time.perf_counter() - started) * 1000)
            target = expected[row.unique_id]
            ranks.append(found.index(target) + 1 if target in found else None)
        n = len(ranks)
        table.append(
            (
                label,
                sum(r == 1 for r in ranks) / n,
                sum(r is not None for r in ranks) / n,
                sum(1 / r for r in ranks if r is not None) / n,
                statistics.median(latencies),
                percentile(latencies, 0.99),
            )
        )
    print(f"{'mode':<22}{'recall@1':>10}{'recall@10':>11}{'MRR@10':>9}{'p50 ms':>9}{'p99 ms':>9}")
    for label, r1, r10, mrr, p50, p99 in table:
        print(f"{label:<22}{r1:>10.3f}{r10:>11.3f}{mrr:>9.3f}{p50:>9.2f}{p99:>9.2f}")


async def latency(
    args: argparse.Namespace, rows: list[Row], embedder: EmbeddingProvider, workdir: Path
) -> None:
    print(f"\nlatency: k=10, {args.latency_queries} queries per cell, one tenant among two")
    print(f"{'entities':>9}  {'mode':<22}{'p50 ms':>9}{'p99 ms':>9}")
    for size in args.latency_sizes:
        subset = rows[:size]
        retriever, build_s = await build(subset, embedder, workdir, f"latency{size}")
        names = [normalize_name(row.name) for row in subset]
        queries = random.Random(args.seed).sample(rows, args.latency_queries)
        for label in ("lexical", "semantic", "hybrid", "rapidfuzz full scan"):
            latencies = []
            for row in queries:
                started = time.perf_counter()
                if label == "rapidfuzz full scan":
                    process.extract(
                        normalize_name(row.name),
                        names,
                        scorer=JaroWinkler.normalized_similarity,
                        limit=10,
                    )
                else:
                    await retriever.retrieve(row.name, TENANT, k=10, mode=RetrievalMode(label))
                latencies.append((time.perf_counter() - started) * 1000)
            print(
                f"{len(subset):>9}  {label:<22}{statistics.median(latencies):>9.2f}"
                f"{percentile(latencies, 0.99):>9.2f}"
            )
        print(f"{'':>9}  (built in {build_s:.1f}s including embedding)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", choices=("local", "fake"), default="local")
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--latency-queries", type=int, default=200)
    parser.add_argument(
        "--latency-sizes", type=lambda s: [int(x) for x in s.split(",")], default=[10_000, 50_578]
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rows = load_rows()
    embedder = make_embedder(args.embedder)
    with tempfile.TemporaryDirectory(prefix="redstring-bench-") as tmp:
        asyncio.run(quality(args, rows, embedder, Path(tmp)))
        asyncio.run(latency(args, rows, embedder, Path(tmp)))


if __name__ == "__main__":
    main()
