"""pgvector `VectorStore`: nearest-neighbour search in PostgreSQL through an HNSW index.

Layout: `vec_entities (tenant_id, entity_id, entity_type, embedding vector(d))`, one
HNSW index on `embedding` with the inner-product operator class, and `vec_meta`
holding the dimension (a `vector(d)` column's width is fixed, so opening with
another width is refused up front with `DimensionMismatchError`).

Score: vectors are stored and queried **unit-normalised**, so the inner product is
the cosine and `score_from_cosine(-(a <#> b))` is the port's scale. A zero vector
stays zero, its inner product with anything is 0, and it scores 0.5 (cosine 0) as
the in-memory reference says, with no special case (pgvector's cosine operator
would answer NaN for it).

Filters before `k`. `search` runs with pgvector 0.8's **iterative index scan** in
`strict_order` mode: when the tenant and type filters reject the nearest rows the
index found, the scan goes on to the next ones instead of returning fewer than asked
(the classic filter-after-k defect of an HNSW index), and rows come back in exact
distance order. `min_score` is monotone in the distance, so it cuts the ordered rows
where the first one fails. Ties at the k-th score are settled as `vector.sqlite`
settles them: fetch k + 1, doubling, until the last row fetched is strictly farther
than the k-th, then order by (distance, id string). Whenever the index hands back
fewer rows than asked -- the tenant's matching rows are exhausted, or the scan hit
`hnsw.max_scan_tuples` -- the answer comes from an exact scan of the tenant's rows
instead, so a short answer is never an index artefact. The planner may also answer
any query by that exact scan (small tenants); both paths give one answer up to the
index's recall (`bench/postgres.py` measures recall@10 against the exact scan).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple
from uuid import UUID

from redstring.domain.exceptions import DimensionMismatchError, InvalidInputError
from redstring.domain.ids import EntityId
from redstring.domain.vector import VectorMatch, score_from_cosine
from redstring.storage.postgres import create_tables, create_tables_sync

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import TenantId
    from redstring.domain.vector import VectorRecord
    from redstring.storage.postgres import Connection, PgDatabase, SyncConnection

#: HNSW build parameters (pgvector's defaults, stated): links per node and build beam.
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
#: The search beam; raised to the number of rows asked for when that is larger.
EF_SEARCH = 100
#: pgvector's cap on `hnsw.ef_search`.
_MAX_EF_SEARCH = 1000


#: Planner settings that leave the HNSW index as the only cheap plan (`force_index`).
_FORCE_INDEX = "".join(
    f", set_config('{setting}', 'off', true)"
    for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort")
)


_META = "CREATE TABLE IF NOT EXISTS vec_meta (key text PRIMARY KEY, value text NOT NULL)"
_READ_DIMENSION = "SELECT value FROM vec_meta WHERE key = 'dimension'"
_WRITE_DIMENSION = "INSERT INTO vec_meta (key, value) VALUES ('dimension', %s)"

#: The tables `schema` makes that carry the tenant wall (`storage.postgres`).
WALLED = ("vec_entities",)


def schema(dimension: int) -> tuple[str, ...]:
    """The vector table of width `dimension` and its HNSW index (inner product)."""
    return (
        f"""CREATE TABLE IF NOT EXISTS vec_entities (
            tenant_id uuid NOT NULL,
            entity_id uuid NOT NULL,
            entity_type text NOT NULL,
            embedding vector({int(dimension)}) NOT NULL,
            PRIMARY KEY (tenant_id, entity_id)
        )""",
        f"""CREATE INDEX IF NOT EXISTS vec_entities_hnsw ON vec_entities
            USING hnsw (embedding vector_ip_ops)
            WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})""",
    )


def _check_dimension(dimension: int) -> None:
    if dimension < 1:
        raise InvalidInputError(f"dimension must be positive, got {dimension}")


def _needs_dimension(row: tuple[object, ...] | None, dimension: int) -> bool:
    """True when no width is recorded yet; `DimensionMismatchError` when another is."""
    if row is not None and int(str(row[0])) != dimension:
        raise DimensionMismatchError(
            int(str(row[0])), dimension, "the vector store opened on this database"
        )
    return row is None


class _Row(NamedTuple):
    entity_id: str
    entity_type: str
    distance: float


class PostgresVectorStore:
    """See `redstring.ports.VectorStore` for the contract and the module docstring for how."""

    def __init__(self, db: PgDatabase, dimension: int, *, force_index: bool = False) -> None:
        """Use `PostgresVectorStore.create`, which makes (or checks) the tables first.

        `force_index` switches the planner's sequential scans off, so even a small
        tenant is searched through the HNSW index: how the tests prove the index
        path keeps the contract (filters before k, ties) and not only the exact one.
        """
        _check_dimension(dimension)
        self._db = db
        self._dimension = dimension
        self._force_index = force_index

    @classmethod
    async def create(
        cls, db: PgDatabase, dimension: int, *, force_index: bool = False
    ) -> PostgresVectorStore:
        """Make the tables (or check them): `DimensionMismatchError` when the database
        holds vectors of another width."""
        _check_dimension(dimension)
        async with db.ddl() as conn:
            await conn.execute(_META)
            row = await (await conn.execute(_READ_DIMENSION)).fetchone()
            if _needs_dimension(row, dimension):
                await conn.execute(_WRITE_DIMENSION, (str(dimension),))
        await create_tables(db, schema(dimension), WALLED)
        return cls(db, dimension, force_index=force_index)

    @staticmethod
    def create_sync(conn: SyncConnection, dimension: int) -> None:
        """`create`'s schema work on a blocking connection (a workspace opening)."""
        _check_dimension(dimension)
        with conn.transaction():
            conn.execute(_META)
            row = conn.execute(_READ_DIMENSION).fetchone()
            if _needs_dimension(row, dimension):
                conn.execute(_WRITE_DIMENSION, (str(dimension),))
        create_tables_sync(conn, schema(dimension), WALLED)

    @property
    def dimension(self) -> int:
        return self._dimension

    async def upsert(self, records: Sequence[VectorRecord], tenant_id: TenantId) -> None:
        for record in records:
            if len(record.vector) != self._dimension:
                raise DimensionMismatchError(self._dimension, len(record.vector))
        if not records:
            return
        latest = {record.entity_id: record for record in records}
        async with self._db.transaction(tenant_id) as conn, conn.cursor() as cur:
            await cur.executemany(
                """INSERT INTO vec_entities (tenant_id, entity_id, entity_type, embedding)
                   VALUES (%s, %s, %s, %s::vector)
                   ON CONFLICT (tenant_id, entity_id) DO UPDATE
                   SET entity_type = excluded.entity_type, embedding = excluded.embedding""",
                [
                    (tenant_id, r.entity_id, r.entity_type, _literal(r.vector))
                    for r in latest.values()
                ],
            )

    async def search(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        entity_types: Sequence[str] | None = None,
        min_score: float | None = None,
    ) -> list[VectorMatch]:
        if k < 0:
            raise ValueError(f"k must not be negative, got {k}")
        if len(vector) != self._dimension:
            raise DimensionMismatchError(self._dimension, len(vector), "query vector")
        if k == 0:
            return []
        types = None if entity_types is None else [t for t in entity_types if isinstance(t, str)]
        if types is not None and not types:
            return []
        query = _literal(vector)
        async with self._db.transaction(tenant_id) as conn:
            await conn.execute(
                "SELECT set_config('hnsw.iterative_scan', 'strict_order', true)"
                + (_FORCE_INDEX if self._force_index else "")
            )
            wanted = k + 1
            while True:
                rows = await self._nearest(conn, query, tenant_id, types, wanted)
                passing = [r for r in rows if _passes(r, min_score)]
                if len(passing) < len(rows):
                    break  # ordered by distance: every later row fails min_score too
                if len(rows) < wanted:
                    # Exhausted, or the index gave up early: the exact scan decides.
                    passing = [
                        r
                        for r in await self._nearest(conn, query, tenant_id, types, k, exact=True)
                        if _passes(r, min_score)
                    ]
                    break
                if rows[-1].distance > rows[k - 1].distance:
                    break  # every row tied with the k-th is in hand
                wanted *= 2
        passing.sort(key=lambda r: (r.distance, r.entity_id))
        return [
            VectorMatch(
                entity_id=EntityId(UUID(r.entity_id)),
                score=score_from_cosine(-r.distance),
                entity_type=r.entity_type,
            )
            for r in passing[:k]
        ]

    async def _nearest(
        self,
        conn: Connection,
        query: str,
        tenant_id: TenantId,
        types: list[str] | None,
        limit: int,
        *,
        exact: bool = False,
    ) -> list[_Row]:
        """The `limit` nearest rows by distance. `exact` orders by (distance + 0, id): an
        expression the index does not match, so no plan can take its order from the
        (approximate) index; it is a scan of the tenant's rows and settles ties itself."""
        await conn.execute(
            "SELECT set_config('hnsw.ef_search', %s, true)",
            (str(min(_MAX_EF_SEARCH, max(EF_SEARCH, limit))),),
        )
        type_filter = "" if types is None else " AND entity_type = ANY(%(types)s)"
        order = "(embedding <#> %(q)s::vector) + 0, entity_id" if exact else "distance"
        cursor = await conn.execute(
            "SELECT entity_id::text, entity_type, embedding <#> %(q)s::vector AS distance "
            f"FROM vec_entities WHERE tenant_id = %(tenant)s{type_filter} "
            f"ORDER BY {order} LIMIT %(limit)s",
            {"q": query, "tenant": tenant_id, "types": types, "limit": limit},
        )
        return [_Row(str(a), str(b), float(c)) for a, b, c in await cursor.fetchall()]

    async def delete(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        if not entity_ids:
            return
        async with self._db.transaction(tenant_id) as conn:
            await conn.execute(
                "DELETE FROM vec_entities WHERE tenant_id = %s AND entity_id = ANY(%s)",
                (tenant_id, list(entity_ids)),
            )

    async def count(self, tenant_id: TenantId) -> int:
        async with self._db.read(tenant_id) as conn:
            row = await (
                await conn.execute(
                    "SELECT count(*) FROM vec_entities WHERE tenant_id = %s", (tenant_id,)
                )
            ).fetchone()
        return 0 if row is None else int(row[0])

    async def missing(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> list[EntityId]:
        wanted = list(dict.fromkeys(entity_ids))
        if not wanted:
            return []
        async with self._db.read(tenant_id) as conn:
            rows = await (
                await conn.execute(
                    "SELECT entity_id FROM vec_entities WHERE tenant_id = %s"
                    " AND entity_id = ANY(%s)",
                    (tenant_id, wanted),
                )
            ).fetchall()
        held = {EntityId(UUID(str(row[0]))) for row in rows}
        return [e for e in wanted if e not in held]

    async def prepare(self, tenant_id: TenantId) -> None:
        """Nothing to prepare: PostgreSQL keeps the HNSW index current on every write."""

    async def delete_by_tenant(self, tenant_id: TenantId) -> None:
        async with self._db.transaction(tenant_id) as conn:
            await conn.execute("DELETE FROM vec_entities WHERE tenant_id = %s", (tenant_id,))


def _passes(row: _Row, min_score: float | None) -> bool:
    return min_score is None or score_from_cosine(-row.distance) >= min_score


def _literal(vector: Sequence[float]) -> str:
    """`vector` unit-normalised (zero stays zero) in pgvector's text form."""
    norm = math.sqrt(math.fsum(x * x for x in vector))
    scale = 1.0 / norm if norm > 0.0 else 0.0
    return "[" + ",".join(repr(float(x) * scale) for x in vector) + "]"
