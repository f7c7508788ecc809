"""PostgreSQL `ChunkStore`: BM25 computed in SQL from stored term statistics.

Why not PostgreSQL's own text search ranking: `ts_rank` and `ts_rank_cd` are not
BM25. They weigh how often and how close together the query's lexemes occur in one
document (cover density, for `ts_rank_cd`), with an optional division by document
length; they carry no inverse document frequency -- a word in every chunk counts as
much as a word in one -- and no term-frequency saturation, and they read no
statistics of the other documents at all. The port promises the scores of
`redstring.domain.chunk` (FTS5's BM25 over one tenant's chunks), which a search
ranked by `ts_rank_cd` would break on every clause that compares scores. So this
store keeps the statistics BM25 needs and computes the formula itself:

- `chunk_rows`: one row per `(tenant_id, chunk_id)`: the chunk, and its `length` in
  terms (`domain.chunk.terms`, the tokenizer every adapter shares).
- `chunk_terms`: the inverted index, one row per `(tenant_id, term, chunk_id)` with
  the term's frequency in the chunk. Its primary key serves "chunks holding this term"
  and a term's document frequency is a count over one key range.

`search` is one statement: the tenant's N and average length, each query term's
document frequency and idf, and each candidate's score summed over the query terms
**in query order** (`sum(... ORDER BY position)`), with every operation in the order
`domain.chunk.bm25` does it, so the float result is the in-memory reference's to the
bit and equal scores really tie (they then break by `chunk_id` in byte order,
`COLLATE "C"`). The query never reaches SQL as syntax: it is reduced to
`domain.chunk.query_terms` and bound as an array of words.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from redstring.domain.chunk import IDF_FLOOR, K1, B, ChunkMatch, ChunkRecord, query_terms, terms
from redstring.domain.ids import EntityId
from redstring.storage.postgres import create_tables

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import TenantId
    from redstring.storage.postgres import PgDatabase

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS chunk_rows (
        tenant_id uuid NOT NULL,
        chunk_id text COLLATE "C" NOT NULL,
        source_id text NOT NULL,
        idx integer NOT NULL,
        start_ integer NOT NULL,
        end_ integer NOT NULL,
        text text NOT NULL,
        entity_ids text NOT NULL,
        length integer NOT NULL,
        PRIMARY KEY (tenant_id, chunk_id)
    )""",
    "CREATE INDEX IF NOT EXISTS chunk_rows_source ON chunk_rows (tenant_id, source_id)",
    """CREATE TABLE IF NOT EXISTS chunk_terms (
        tenant_id uuid NOT NULL,
        term text NOT NULL,
        chunk_id text COLLATE "C" NOT NULL,
        tf integer NOT NULL,
        PRIMARY KEY (tenant_id, term, chunk_id)
    )""",
    "CREATE INDEX IF NOT EXISTS chunk_terms_chunk ON chunk_terms (tenant_id, chunk_id)",
)

#: The tables `SCHEMA` makes, all carrying the tenant wall (`storage.postgres`).
WALLED = ("chunk_rows", "chunk_terms")

_COLUMNS = "r.chunk_id, r.source_id, r.idx, r.start_, r.end_, r.text, r.entity_ids"

#: BM25 as `domain.chunk.bm25` evaluates it, operation for operation (see the module).
_SEARCH = f"""
WITH q AS (
    SELECT term, position FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS q(term, position)
), stats AS (
    SELECT count(*)::float8 AS n, sum(length)::float8 / count(*)::float8 AS avgdl
    FROM chunk_rows WHERE tenant_id = %(tenant)s
), weights AS (
    SELECT q.term, q.position,
           CASE WHEN ln((stats.n - df.n + 0.5) / (df.n + 0.5)) > 0
                THEN ln((stats.n - df.n + 0.5) / (df.n + 0.5)) ELSE %(floor)s END AS w
    FROM q CROSS JOIN stats
    CROSS JOIN LATERAL (
        SELECT count(*)::float8 AS n FROM chunk_terms AS t
        WHERE t.tenant_id = %(tenant)s AND t.term = q.term
    ) AS df
    WHERE df.n > 0
), scored AS (
    SELECT t.chunk_id,
           sum(w.w * t.tf::float8 * (%(k1)s + 1.0::float8)
               / (t.tf::float8 + CASE WHEN stats.avgdl <> 0
                   THEN %(k1)s * (1.0::float8 - %(b)s + %(b)s * r.length::float8 / stats.avgdl)
                   ELSE %(k1)s END)
               ORDER BY w.position) AS score
    FROM weights AS w
    JOIN chunk_terms AS t ON t.tenant_id = %(tenant)s AND t.term = w.term
    JOIN chunk_rows AS r ON r.tenant_id = %(tenant)s AND r.chunk_id = t.chunk_id
    CROSS JOIN stats
    WHERE %(sources)s::text[] IS NULL OR r.source_id = ANY(%(sources)s::text[])
    GROUP BY t.chunk_id
)
SELECT {_COLUMNS}, s.score
FROM scored AS s JOIN chunk_rows AS r ON r.tenant_id = %(tenant)s AND r.chunk_id = s.chunk_id
ORDER BY s.score DESC, s.chunk_id
LIMIT %(k)s
"""


class PostgresChunkStore:
    """See `redstring.ports.ChunkStore` for the contract and the module docstring for how."""

    def __init__(self, db: PgDatabase) -> None:
        """Use `PostgresChunkStore.create`, which makes the tables first."""
        self._db = db

    @classmethod
    async def create(cls, db: PgDatabase) -> PostgresChunkStore:
        await create_tables(db, SCHEMA, WALLED)
        return cls(db)

    async def upsert(self, chunks: Sequence[ChunkRecord], tenant_id: TenantId) -> None:
        if not chunks:
            return
        latest = {record.chunk_id: record for record in chunks}
        ids = list(latest)
        rows: list[tuple[Any, ...]] = []
        postings: list[tuple[Any, ...]] = []
        for record in latest.values():
            words = terms(record.text)
            rows.append(
                (
                    tenant_id,
                    record.chunk_id,
                    record.source_id,
                    record.index,
                    record.start,
                    record.end,
                    record.text,
                    json.dumps([str(entity_id) for entity_id in record.entity_ids]),
                    len(words),
                )
            )
            postings.extend(
                (tenant_id, term, record.chunk_id, tf) for term, tf in Counter(words).items()
            )
        async with self._db.transaction(tenant_id) as conn, conn.cursor() as cur:
            await cur.execute(
                "DELETE FROM chunk_terms WHERE tenant_id = %s AND chunk_id = ANY(%s)",
                (tenant_id, ids),
            )
            await cur.executemany(
                """INSERT INTO chunk_rows
                   (tenant_id, chunk_id, source_id, idx, start_, end_, text, entity_ids, length)
                   VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
                   ON CONFLICT (tenant_id, chunk_id) DO UPDATE SET
                       source_id = excluded.source_id, idx = excluded.idx,
                       start_ = excluded.start_, end_ = excluded.end_, text = excluded.text,
                       entity_ids = excluded.entity_ids, length = excluded.length""",
                rows,
            )
            if postings:
                await cur.executemany(
                    "INSERT INTO chunk_terms (tenant_id, term, chunk_id, tf) "
                    "VALUES (%s, %s, %s, %s)",
                    postings,
                )

    async def search(
        self,
        query: str,
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[ChunkMatch]:
        if k < 0:
            raise ValueError(f"k must not be negative, got {k}")
        words = query_terms(query)
        if k == 0 or not words or (source_ids is not None and not source_ids):
            return []
        params: dict[str, Any] = {
            "terms": words,
            "tenant": tenant_id,
            "floor": IDF_FLOOR,
            "k1": K1,
            "b": B,
            "sources": None if source_ids is None else list(source_ids),
            "k": k,
        }
        async with self._db.read(tenant_id) as conn:
            rows = await (await conn.execute(_SEARCH, params)).fetchall()
        return [ChunkMatch(chunk=_record(row), score=float(row[7])) for row in rows]

    async def get(self, chunk_ids: Sequence[str], tenant_id: TenantId) -> list[ChunkRecord]:
        wanted = list(dict.fromkeys(chunk_ids))
        if not wanted:
            return []
        async with self._db.read(tenant_id) as conn:
            rows = await (
                await conn.execute(
                    f"SELECT {_COLUMNS} FROM chunk_rows AS r "
                    "WHERE r.tenant_id = %s AND r.chunk_id = ANY(%s)",
                    (tenant_id, wanted),
                )
            ).fetchall()
        found = {str(row[0]): _record(row) for row in rows}
        return [found[chunk_id] for chunk_id in wanted if chunk_id in found]

    async def delete(self, chunk_ids: Sequence[str], tenant_id: TenantId) -> None:
        if not chunk_ids:
            return
        async with self._db.transaction(tenant_id) as conn:
            for table in ("chunk_rows", "chunk_terms"):
                await conn.execute(
                    f"DELETE FROM {table} WHERE tenant_id = %s AND chunk_id = ANY(%s)",
                    (tenant_id, list(chunk_ids)),
                )

    async def delete_source(self, source_id: str, tenant_id: TenantId) -> None:
        async with self._db.transaction(tenant_id) as conn:
            await conn.execute(
                """DELETE FROM chunk_terms WHERE tenant_id = %s AND chunk_id IN (
                       SELECT chunk_id FROM chunk_rows WHERE tenant_id = %s AND source_id = %s)""",
                (tenant_id, tenant_id, source_id),
            )
            await conn.execute(
                "DELETE FROM chunk_rows WHERE tenant_id = %s AND source_id = %s",
                (tenant_id, source_id),
            )

    async def count(self, tenant_id: TenantId) -> int:
        async with self._db.read(tenant_id) as conn:
            row = await (
                await conn.execute(
                    "SELECT count(*) FROM chunk_rows WHERE tenant_id = %s", (tenant_id,)
                )
            ).fetchone()
        return 0 if row is None else int(row[0])

    async def delete_by_tenant(self, tenant_id: TenantId) -> None:
        async with self._db.transaction(tenant_id) as conn:
            for table in ("chunk_rows", "chunk_terms"):
                await conn.execute(f"DELETE FROM {table} WHERE tenant_id = %s", (tenant_id,))


def _record(row: Sequence[Any]) -> ChunkRecord:
    chunk_id, source_id, index, start, end, text, entity_ids = row[:7]
    return ChunkRecord(
        chunk_id=chunk_id,
        source_id=source_id,
        index=index,
        start=start,
        end=end,
        text=text,
        entity_ids=[EntityId(value) for value in json.loads(entity_ids)],
    )
