"""SQLite FTS5 `ChunkStore`: BM25 over each tenant's own chunks, inside the workspace file.

Layout (sharing the file with the other stores):

- `chunk_rows`: one row per `(tenant_id, chunk_id)`, holding the chunk, its
  document offsets and the entity ids that point into it. Its integer rowid
  addresses the chunk in the full-text index.
- `chunk_fts_<tenant hex>`: one FTS5 table **per tenant**, an external-content
  index over `chunk_rows.text`. Per tenant because FTS5's `bm25()` reads its
  statistics (row count, document frequencies, average length) from the whole
  table it ranks: one shared table would let a tenant's text move another's
  scores, and the port promises it never does. The tokenizer is `unicode61
  remove_diacritics 2`, which `domain.chunk.terms` reproduces.

External content means the index stores no text of its own, so replacing or
deleting a chunk first tells FTS5 the **old** text (`'delete'` command) and then
indexes the new; `_forget` is the one place that does it.

The query string never reaches FTS5 as syntax: it is reduced to
`domain.chunk.query_terms`, each term is double-quoted (a term holds only letters
and digits, never a quote), and the terms are joined with `OR`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from redstring.domain.chunk import ChunkMatch, ChunkRecord, query_terms
from redstring.domain.ids import EntityId
from redstring.storage.sqlite import transaction

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import TenantId
    from redstring.storage.sqlite import Connection

#: Ids bound per `IN (...)` list: far below SQLite's variable limit on every build.
_BATCH = 500

_COLUMNS = "chunk_id, source_id, idx, start, end_, text, entity_ids"


def _table(tenant_id: TenantId) -> str:
    """The tenant's FTS5 table: a uuid's hex digits are safe in an identifier."""
    return f"chunk_fts_{tenant_id.hex}"


def _record(row: Sequence[object]) -> ChunkRecord:
    chunk_id, source_id, index, start, end, text, entity_ids = row[:7]
    return ChunkRecord(
        chunk_id=str(chunk_id),
        source_id=str(source_id),
        index=int(str(index)),
        start=int(str(start)),
        end=int(str(end)),
        text=str(text),
        entity_ids=[EntityId(value) for value in json.loads(str(entity_ids))],
    )


def _values(record: ChunkRecord) -> tuple[str, str, int, int, int, str, str]:
    return (
        record.chunk_id,
        record.source_id,
        record.index,
        record.start,
        record.end,
        record.text,
        json.dumps([str(entity_id) for entity_id in record.entity_ids]),
    )


class SqliteChunkStore:
    """See `redstring.ports.ChunkStore` for the contract, and the module for the layout."""

    def __init__(self, connection: Connection) -> None:
        self._conn = connection
        #: Tenants whose FTS5 table was seen committed (so it needs no lookup).
        self._indexed: set[TenantId] = set()
        with transaction(connection):
            connection.execute(
                "CREATE TABLE IF NOT EXISTS chunk_rows ("
                "rowid INTEGER PRIMARY KEY, tenant_id TEXT NOT NULL, chunk_id TEXT NOT NULL, "
                "source_id TEXT NOT NULL, idx INTEGER NOT NULL, start INTEGER NOT NULL, "
                "end_ INTEGER NOT NULL, text TEXT NOT NULL, entity_ids TEXT NOT NULL, "
                "UNIQUE (tenant_id, chunk_id))"
            )
            connection.execute(
                "CREATE INDEX IF NOT EXISTS chunk_rows_source ON chunk_rows (tenant_id, source_id)"
            )

    def _index_exists(self, tenant_id: TenantId) -> bool:
        if tenant_id in self._indexed:
            return True
        row = self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (_table(tenant_id),)
        ).fetchone()
        if row is not None and not self._conn.in_transaction:
            self._indexed.add(tenant_id)
        return row is not None

    def _ensure_index(self, tenant_id: TenantId) -> str:
        table = _table(tenant_id)
        if not self._index_exists(tenant_id):
            # Not cached: the enclosing transaction may still roll the table back.
            self._conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5(text, "
                "content='chunk_rows', content_rowid='rowid', "
                "tokenize='unicode61 remove_diacritics 2')"
            )
        return table

    async def upsert(self, chunks: Sequence[ChunkRecord], tenant_id: TenantId) -> None:
        if not chunks:
            return
        latest = {record.chunk_id: record for record in chunks}
        with transaction(self._conn):
            table = self._ensure_index(tenant_id)
            stored = self._rows(list(latest), tenant_id)
            for chunk_id, record in latest.items():
                values = _values(record)
                old = stored.get(chunk_id)
                if old is not None:
                    if tuple(old[1:]) == values:
                        continue  # the same chunk again: nothing to write
                    self._forget(table, old)
                    self._conn.execute(
                        "UPDATE chunk_rows SET source_id = ?, idx = ?, start = ?, end_ = ?, "
                        "text = ?, entity_ids = ? WHERE rowid = ?",
                        (*values[1:], old[0]),
                    )
                    rowid = int(str(old[0]))
                else:
                    cursor = self._conn.execute(
                        f"INSERT INTO chunk_rows (tenant_id, {_COLUMNS}) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (str(tenant_id), *values),
                    )
                    rowid = int(cursor.lastrowid or 0)
                self._conn.execute(
                    f"INSERT INTO {table} (rowid, text) VALUES (?, ?)", (rowid, record.text)
                )

    def _forget(self, table: str, row: Sequence[object]) -> None:
        """Take a row's old text out of the index (external content: FTS5 must be told)."""
        self._conn.execute(
            f"INSERT INTO {table} ({table}, rowid, text) VALUES ('delete', ?, ?)",
            (row[0], row[6]),
        )

    def _rows(self, chunk_ids: Sequence[str], tenant_id: TenantId) -> dict[str, tuple[object, ...]]:
        """Stored rows `(rowid, chunk_id, ..., entity_ids)` by chunk id."""
        found: dict[str, tuple[object, ...]] = {}
        for first in range(0, len(chunk_ids), _BATCH):
            batch = list(chunk_ids[first : first + _BATCH])
            marks = ", ".join("?" * len(batch))
            for row in self._conn.execute(
                f"SELECT rowid, {_COLUMNS} FROM chunk_rows "
                f"WHERE tenant_id = ? AND chunk_id IN ({marks})",
                (str(tenant_id), *batch),
            ):
                found[str(row[1])] = tuple(row)
        return found

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
        if not self._index_exists(tenant_id):
            return []
        table = _table(tenant_id)
        expression = " OR ".join(f'"{word}"' for word in words)
        where = ""
        parameters: list[object] = [expression]
        if source_ids is not None:
            wanted = list(dict.fromkeys(source_ids))
            where = (
                " AND rowid IN (SELECT rowid FROM chunk_rows WHERE tenant_id = ? "
                f"AND source_id IN ({', '.join('?' * len(wanted))}))"
            )
            parameters.extend([str(tenant_id), *wanted])
        # Rank inside FTS5 alone (rowid and score), then read the few rows kept: joining
        # every match to its row before the sort cost 4x at 100k chunks. Rows tied with
        # the k-th score must all be in hand to order them by chunk id, so the fetch
        # grows until the last row fetched scores strictly below the k-th.
        limit = k + 1
        while True:
            ranked = self._conn.execute(
                f"SELECT rowid, -bm25({table}) AS score FROM {table} "
                f"WHERE {table} MATCH ?{where} ORDER BY score DESC LIMIT ?",
                [*parameters, limit],
            ).fetchall()
            if len(ranked) < limit or ranked[-1][1] < ranked[k - 1][1]:
                break
            limit *= 2
        scores = {int(rowid): float(score) for rowid, score in ranked}
        rows: list[tuple[object, ...]] = []
        for first in range(0, len(ranked), _BATCH):
            batch = list(scores)[first : first + _BATCH]
            rows.extend(
                tuple(row)
                for row in self._conn.execute(
                    f"SELECT rowid, {_COLUMNS} FROM chunk_rows "
                    f"WHERE rowid IN ({', '.join('?' * len(batch))})",
                    batch,
                )
            )
        rows.sort(key=lambda row: (-scores[int(str(row[0]))], str(row[1])))
        return [
            ChunkMatch(chunk=_record(row[1:]), score=max(0.0, scores[int(str(row[0]))]))
            for row in rows[:k]
        ]

    async def get(self, chunk_ids: Sequence[str], tenant_id: TenantId) -> list[ChunkRecord]:
        wanted = list(dict.fromkeys(chunk_ids))
        rows = self._rows(wanted, tenant_id)
        return [_record(rows[chunk_id][1:]) for chunk_id in wanted if chunk_id in rows]

    async def delete(self, chunk_ids: Sequence[str], tenant_id: TenantId) -> None:
        if not chunk_ids or not self._index_exists(tenant_id):
            return
        with transaction(self._conn):
            table = _table(tenant_id)
            for row in self._rows(list(dict.fromkeys(chunk_ids)), tenant_id).values():
                self._forget(table, row)
                self._conn.execute("DELETE FROM chunk_rows WHERE rowid = ?", (row[0],))

    async def delete_source(self, source_id: str, tenant_id: TenantId) -> None:
        ids = [
            str(row[0])
            for row in self._conn.execute(
                "SELECT chunk_id FROM chunk_rows WHERE tenant_id = ? AND source_id = ?",
                (str(tenant_id), source_id),
            )
        ]
        await self.delete(ids, tenant_id)

    async def count(self, tenant_id: TenantId) -> int:
        row = self._conn.execute(
            "SELECT count(*) FROM chunk_rows WHERE tenant_id = ?", (str(tenant_id),)
        ).fetchone()
        return int(row[0])

    async def delete_by_tenant(self, tenant_id: TenantId) -> None:
        with transaction(self._conn):
            self._conn.execute(f"DROP TABLE IF EXISTS {_table(tenant_id)}")
            self._conn.execute("DELETE FROM chunk_rows WHERE tenant_id = ?", (str(tenant_id),))
        self._indexed.discard(tenant_id)
