"""The PostgreSQL workspace beside the SQLite default, in one run: ingest with 1, 2 and 4
writer processes, hybrid retrieval p50/p99 at one tenant size, pgvector HNSW recall@10.

Ingest: each writer process opens the workspace and ingests `--docs` documents into
ONE tenant, as `redstring ingest` does: per document, one append of a
`DocumentExtracted` (5 people, generated names) and its `EntitiesEmbedded` (fake
384-d vectors), and a projection catch-up every 10 documents and at the end. Printed:
wall time until every writer is done and every event folded, documents/s, and a check
that the log holds every document once. SQLite lets one writer in at a time
(`BEGIN IMMEDIATE`); PostgreSQL serialises appends too (ADR 0016), but the folds and
everything else run side by side.

Retrieval: one tenant of `--size` entities beside a second tenant holding the same
names under other ids (every read must filter), as bench/retrieval.py builds it:
shared-set names then generated ones, vectors from the local model for the first
`--embed-limit` names and seeded perturbations of them for the rest. The PostgreSQL
stores are loaded with the HNSW index dropped and rebuilt after the load (a bulk-load
choice of this script; a workspace keeps it current on every write). Hybrid retrieval
(`Retriever`, k=10) is timed per query on both, rotating which goes first. Recall@10
of each store's vector search against an exact numpy scan of the tenant (a hit counts
when its exact score reaches the exact 10th). Each retriever's embedder and stores are
wrapped in timers, so a table of calls per query and p50 ms per call shows where a
hybrid query's time goes. `--keep NAME` loads once and reuses the stores afterwards.

    REDSTRING_TEST_PG_URL=$(bash .ci/postgres.sh) uv run python bench/postgres.py
    uv run python bench/postgres.py --size 100000 --writers 1,2,4 --docs 200
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

import numpy as np
import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval import (
    ANN_ROWS,
    NOISE_TENANT,
    TENANT,
    K,
    embed_all,
    latency_rows,
    make_embedder,
    patstat_rows,
    people_rows,
    percentile,
    to_entity,
)

from redstring import RetrievalMode, Retriever, VectorRecord
from redstring.composition.workspace import Workspace
from redstring.domain.entity import Entity
from redstring.domain.ids import derived_entity_id
from redstring.domain.provenance import Provenance
from redstring.events import (
    ChunkStats,
    DocumentExtracted,
    EmbeddedEntity,
    EntitiesEmbedded,
    document_stream,
)
from redstring.graph.postgres import PostgresGraphStore
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.postgres import PgDatabase
from redstring.storage.sqlite import open_connection
from redstring.vector.postgres import HNSW_EF_CONSTRUCTION, HNSW_M, PostgresVectorStore
from redstring.vector.sqlite import SqliteVectorStore

ROOT = Path(__file__).resolve().parents[1]
PER_DOC = 5
DIMENSION = 384
FOLD_EVERY = 10


# -- ingest ---------------------------------------------------------------------------


def _document(
    writer: int, n: int, rng: random.Random
) -> list[DocumentExtracted | EntitiesEmbedded]:
    source = f"w{writer}-d{n}"
    entities = [
        Entity(
            id=derived_entity_id(TENANT, "person", f"{writer}-{n}-{j}"),
            tenant_id=TENANT,
            name=f"Person {rng.randrange(10**6)} {rng.choice('ABCDEFGH')}",
            entity_type="person",
            provenance=[
                Provenance(observed_at=datetime.now(UTC), method="bench", source_id=source)
            ],
        )
        for j in range(PER_DOC)
    ]
    return [
        DocumentExtracted(
            tenant_id=TENANT,
            source_id=source,
            content_hash=source,
            model="bench",
            entities=entities,
            chunks=ChunkStats(chunk_count=1, char_count=1),
        ),
        EntitiesEmbedded(
            tenant_id=TENANT,
            model="fake",
            dimension=DIMENSION,
            vectors=[
                EmbeddedEntity(
                    entity_id=e.id,
                    entity_type="person",
                    vector=[rng.gauss(0, 1) for _ in range(DIMENSION)],
                )
                for e in entities
            ],
        ),
    ]


async def _write(where: str, writer: int, docs: int) -> None:
    rng = random.Random(writer)
    workspace = Workspace.open(where, dimension=DIMENSION)
    for n in range(docs):
        await workspace.append(
            document_stream(TENANT, f"w{writer}-d{n}"),
            _document(writer, n, rng),
            expected_version=0,
        )
        if n % FOLD_EVERY == FOLD_EVERY - 1:
            await workspace.catch_up()
    await workspace.catch_up()
    workspace.close()


def ingest(label: str, make: object, writers: int, docs: int) -> tuple[float, int]:
    """Wall seconds for `writers` processes to ingest `docs` documents each; documents
    found in the log afterwards."""
    where = make() if callable(make) else str(make)
    Workspace.open(where, dimension=DIMENSION).close()
    started = time.perf_counter()
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "_writer", where, str(w), str(docs)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )
        for w in range(writers)
    ]
    codes = [p.wait() for p in procs]
    seconds = time.perf_counter() - started
    if any(codes):
        sys.exit(f"{label}: a writer failed ({codes})")
    workspace = Workspace.open(where)
    found = len(asyncio.run(workspace.log.read_type("DocumentExtracted", TENANT)))
    entities = asyncio.run(workspace.graph.count_entities(TENANT))
    workspace.close()
    if entities != found * PER_DOC:
        sys.exit(f"{label}: {entities} entities for {found} documents")
    return seconds, found


# -- retrieval ------------------------------------------------------------------------


class Calls:
    """Wall milliseconds of each call a retriever makes on its collaborators, keyed
    `collaborator.method`: where a hybrid query's time goes."""

    def __init__(self) -> None:
        self.times: defaultdict[str, list[float]] = defaultdict(list)

    def wrap(self, inner: Any, label: str) -> Any:
        return _Timed(inner, label, self.times)


class _Timed:
    def __init__(self, inner: Any, label: str, times: defaultdict[str, list[float]]) -> None:
        self._inner, self._label, self._times = inner, label, times

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._inner, name)
        if not inspect.iscoroutinefunction(found):
            return found

        async def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await found(*args, **kwargs)
            finally:
                self._times[f"{self._label}.{name}"].append((time.perf_counter() - started) * 1000)

        return timed


#: Entities per tenant in one load step (one graph upsert and one vector upsert each).
LOAD_CHUNK = 5000


async def load_postgres(
    url: str, rows: list, matrix: np.ndarray, work_mem: str = "512MB"
) -> tuple[PgDatabase, float]:
    db = PgDatabase(url, max_size=4)
    graph = await PostgresGraphStore.create(db)
    vectors = await PostgresVectorStore.create(db, DIMENSION)
    if await graph.count_entities(TENANT) == len(rows) == await vectors.count(NOISE_TENANT):
        print(f"  postgres: reusing the 2 x {len(rows)} entities of the kept database")
        return db, 0.0
    # Chunks go in a fixed order, both tenants each, with ids and vectors derived from
    # the seed: a load that was stopped resumes at the last chunk both tenants hold
    # whole (upserts make the partial one idempotent).
    done = min(
        [await graph.count_entities(t) for t in (TENANT, NOISE_TENANT)]
        + [await vectors.count(t) for t in (TENANT, NOISE_TENANT)]
    )
    resume = done // LOAD_CHUNK * LOAD_CHUNK
    if resume:
        print(f"  postgres: resuming a stopped load at row {resume} of {len(rows)}")
    started = time.perf_counter()
    async with db.transaction("*") as conn:
        await conn.execute("DROP INDEX IF EXISTS vec_entities_hnsw")
    for start in range(resume, len(rows), LOAD_CHUNK):
        chunk = rows[start : start + LOAD_CHUNK]
        block = matrix[start : start + len(chunk)].tolist()
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
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    async with db.transaction("*") as conn:
        # The HNSW graph is built far faster when it fits in memory: ~195 MB at
        # 2 x 100k vectors, about ten times that at 2 x 1M.
        await conn.execute(f"SET LOCAL maintenance_work_mem = '{work_mem}'")
        await conn.execute(
            f"CREATE INDEX vec_entities_hnsw ON vec_entities USING hnsw "
            f"(embedding vector_ip_ops) WITH (m = {HNSW_M}, ef_construction = "
            f"{HNSW_EF_CONSTRUCTION})"
        )
        await conn.execute("ANALYZE vec_entities")
        await conn.execute("ANALYZE graph_lexicon_blocks")
    print(
        f"  postgres: loaded 2 x {len(rows) - resume} entities in {load_s:.1f}s, "
        f"HNSW built in {time.perf_counter() - started:.1f}s"
    )
    return db, load_s


async def retrieval(url: str, args: argparse.Namespace, tmp: Path) -> None:
    from retrieval import build

    embedder = make_embedder(args.embedder)
    people, patstat = people_rows(), patstat_rows()
    rows = latency_rows(people, patstat, args.size, args.seed)
    embedded = min(args.size, args.embed_limit)
    matrix = await embed_all(embedder, [row.name for row in rows[:embedded]])
    if embedded < args.size:
        generator = np.random.default_rng(args.seed)
        source = matrix[generator.integers(0, embedded, args.size - embedded)]
        noisy = source + generator.normal(0, 0.05, source.shape).astype(np.float32)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        matrix = np.vstack([matrix, noisy.astype(np.float32)])
    db, _ = await load_postgres(url, rows, matrix, args.maintenance_work_mem)
    pg_vectors = PostgresVectorStore(db, DIMENSION)
    pg_calls = Calls()
    pg = Retriever(
        embeddings=pg_calls.wrap(embedder, "embed"),
        vectors=pg_calls.wrap(pg_vectors, "vectors"),
        graph=pg_calls.wrap(PostgresGraphStore(db), "graph"),
    )
    path = Path(tempfile.gettempdir(), f"{args.keep}.db") if args.keep else tmp / "bench.db"
    if path.exists():
        conn = open_connection(path)
        graph = SqliteGraphStore(conn)
        vectors = SqliteVectorStore(conn, DIMENSION, ann_min_rows=ANN_ROWS[0])
        print(f"  sqlite: reusing {path}")
    else:
        graph, vectors, build_s = await build(rows, matrix, DIMENSION, path)
        started = time.perf_counter()
        await vectors.prepare(TENANT)
        print(
            f"  sqlite: loaded 2 x {len(rows)} entities in {build_s:.1f}s, "
            f"usearch index by prepare in {time.perf_counter() - started:.1f}s"
        )
    lite_calls = Calls()
    lite = Retriever(
        embeddings=lite_calls.wrap(embedder, "embed"),
        vectors=lite_calls.wrap(vectors, "vectors"),
        graph=lite_calls.wrap(graph, "graph"),
    )
    queries = [row.name for row in random.Random(args.seed).sample(people, args.queries)]
    cells = [("postgres hybrid", pg), ("sqlite hybrid", lite)]
    for query in queries[:10]:
        for _, retriever in cells:
            await retriever.retrieve(query, TENANT, k=K, mode=RetrievalMode.HYBRID)
    pg_calls.times.clear()
    lite_calls.times.clear()
    times: dict[str, list[float]] = {label: [] for label, _ in cells}
    for index, query in enumerate(queries):
        for label, retriever in cells[index % 2 :] + cells[: index % 2]:
            started = time.perf_counter()
            await retriever.retrieve(query, TENANT, k=K, mode=RetrievalMode.HYBRID)
            times[label].append((time.perf_counter() - started) * 1000)
    print(
        f"\nhybrid retrieval, k={K}, {len(queries)} queries, tenant of {args.size} "
        f"(+{args.size} in a second tenant); {embedded} vectors from the {args.embedder} "
        f"model, the rest seeded perturbations"
    )
    print(f"  {'store':<18}{'p50 ms':>9}{'p99 ms':>9}")
    for label, values in times.items():
        print(f"  {label:<18}{statistics.median(values):>9.2f}{percentile(values, 0.99):>9.2f}")
    ratio = statistics.median(times["postgres hybrid"]) / statistics.median(times["sqlite hybrid"])
    print(f"  postgres / sqlite p50: {ratio:.2f}")
    print("\n  where the time goes: calls per query, p50 ms per call (the channels overlap)")
    print(f"  {'call':<28}{'postgres':>18}{'sqlite':>18}")
    for call in sorted(set(pg_calls.times) | set(lite_calls.times)):
        cells_text = [
            f"{len(c.times[call]) / len(queries):>6.1f} x {statistics.median(c.times[call]):>7.2f}"
            if c.times[call]
            else f"{'-':>18}"
            for c in (pg_calls, lite_calls)
        ]
        print(f"  {call:<28}" + "".join(f"{text:>18}" for text in cells_text))
    ids = [derived_entity_id(TENANT, row.entity_type, row.key) for row in rows]
    query_vectors = await embed_all(embedder, queries)
    for label, store in (("postgres HNSW", pg_vectors), ("sqlite usearch", vectors)):
        recall = 0.0
        for vector in query_vectors:
            found = await store.search(vector.tolist(), TENANT, k=K)
            exact = matrix @ vector
            tenth = float(np.sort(exact)[-K])
            score_of = dict(zip(ids, exact.tolist(), strict=True))
            recall += sum(score_of[m.entity_id] >= tenth - 1e-6 for m in found) / K
        print(f"  {label:<18} recall@10 vs exact scan {recall / len(query_vectors):.4f}")
    await db.close()


# -- main -----------------------------------------------------------------------------


def fresh_database(url: str, names: list[str]) -> str:
    name = f"bench_{uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    names.append(name)
    return url.rsplit("/", 1)[0] + "/" + name


def kept_database(url: str, name: str) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return url.rsplit("/", 1)[0] + "/" + name


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_writer":
        asyncio.run(_write(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("REDSTRING_TEST_PG_URL"))
    parser.add_argument("--writers", default="1,2,4")
    parser.add_argument("--docs", type=int, default=200, help="documents per writer")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--embed-limit", type=int, default=5000)
    parser.add_argument("--embedder", choices=("local", "fake"), default="local")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--maintenance-work-mem",
        default="512MB",
        help="PostgreSQL memory for the HNSW build (e.g. 4GB for --size 1000000)",
    )
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--skip-retrieval", action="store_true")
    parser.add_argument(
        "--keep",
        metavar="NAME",
        help="load the retrieval stores into database NAME and $TMPDIR/NAME.db and keep "
        "them (a later run with the same NAME and --size reuses them instead of loading)",
    )
    args = parser.parse_args()
    if not args.url:
        sys.exit("no server: pass --url or set REDSTRING_TEST_PG_URL (bash .ci/postgres.sh)")
    created: list[str] = []
    print(f"bench/postgres.py, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            if not args.skip_ingest:
                print(
                    f"\ningest: one tenant, {args.docs} documents per writer, {PER_DOC} "
                    f"entities + {PER_DOC} vectors each, catch-up every {FOLD_EVERY}"
                )
                print(f"  {'writers':>7}  {'store':<9}{'seconds':>9}{'docs/s':>9}{'docs':>7}")
                for writers in [int(w) for w in args.writers.split(",")]:
                    for label, make in (
                        ("postgres", lambda: fresh_database(args.url, created)),
                        ("sqlite", Path(tmp) / f"ingest-{writers}.db"),
                    ):
                        seconds, found = ingest(label, make, writers, args.docs)
                        print(
                            f"  {writers:>7}  {label:<9}{seconds:>9.1f}"
                            f"{found / seconds:>9.1f}{found:>7}"
                        )
            if not args.skip_retrieval:
                print(f"\nretrieval: building 2 x {args.size} entities on each store")
                url = (
                    kept_database(args.url, args.keep)
                    if args.keep
                    else fresh_database(args.url, created)
                )
                asyncio.run(retrieval(url, args, Path(tmp)))
    finally:
        with psycopg.connect(args.url, autocommit=True) as conn:
            for name in created:
                conn.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )


if __name__ == "__main__":
    main()
