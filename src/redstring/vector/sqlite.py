"""sqlite-vec `VectorStore`: exact nearest-neighbour search inside the workspace file.

Layout (every table prefixed `vec_`, sharing the file with the other stores):

- `vec_meta`: the store's dimension. A vec0 column's width is fixed when the
  table is created, so opening the file with another width is refused up front
  (`DimensionMismatchError`) instead of failing on the first insert.
- `vec_entities`: `(tenant_id, entity_id) -> rowid`. vec0 rows are addressed by
  an integer rowid; this table is what makes an upsert *replace* the row of the
  same tenant and entity, and lets ids collide across tenants.
- `vec_vectors`: the vec0 virtual table, with `tenant_id` as its **partition
  key** (a search only ever scans its own tenant's shard) and `entity_type` as a
  **metadata column**, so `entity_type IN (...)` is applied inside the KNN scan,
  before `k` -- never by truncating to k and then filtering.

Score: vectors are stored and queried **unit-normalised** and compared with
vec0's default L2 distance, mapped through `score_from_l2_of_unit_vectors`.
Why not `distance_metric=cosine`: vec0 answers NULL for a zero vector under
cosine, and a NULL among the distances has no place in a best-first order. A
zero vector stays zero when normalised and is flagged in `vec_entities`, so its
score is set to 0.5 (cosine 0, as the in-memory reference says); see `_hit`.

`min_score` is applied after the KNN but is still "before k": vec0 returns rows
in ascending distance and the score is monotone in distance, so the first row
whose distance already implies a failing score proves every later row fails
too (a stored zero vector scores *below* what its distance implies, hence
`_Hit.bound`). What can be cut short is a **tie** at the k-th score: vec0
orders equal distances arbitrarily, so `search` over-fetches -- starting at
k + 1 and doubling -- until the last row fetched is bound strictly below the
k-th passing score (or the shard is exhausted, or the last row's bound fails
`min_score`). Only then is every row tied with the k-th in hand to be ordered
by id string. vec0 caps `k` at `_VEC0_MAX_K`; past it, an exact brute-force
scan of the tenant's shard (`vec_distance_l2` over every row) takes over.

**Approximate search** (`redstring.vector.hnsw`): a tenant of at least `ann_min_rows`
vectors is searched through an HNSW index kept beside the workspace file, a
projection of these tables stamped with the tenant's generation. `vec_ann` says
which tenants have one (and at which generation it was last saved); while a tenant
has one, every write also appends what it changed to `vec_ann_changes` (the unit
vector, or NULL for a removal), so a stale index -- this process's or a saved file
-- is caught up from those rows instead of rebuilt. The index answers only when its
answer is certain to be well formed: at least `k` candidates pass the filters
(type, `min_score`) among the over-fetched ones, the k-th does not tie with the
last fetched, and the k-th scores above 0.5 (where stored zero vectors, which the
index does not hold, would rank). Otherwise the exact paths above answer. So
filters still apply before `k`; what is approximate is only *which* near rows the
graph visits (recall@10 against the exact scan: `bench/vector_search.py`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple
from uuid import UUID

from redstring.domain.exceptions import DimensionMismatchError, InvalidInputError
from redstring.domain.ids import EntityId
from redstring.domain.vector import VectorMatch, score_from_l2_of_unit_vectors
from redstring.storage.sqlite import transaction
from redstring.vector import hnsw

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    from numpy.typing import NDArray
    from usearch.index import Index

    from redstring.domain.ids import TenantId
    from redstring.domain.vector import VectorRecord
    from redstring.storage.sqlite import Connection

#: The largest `k` a vec0 KNN query accepts (sqlite-vec 0.1.x).
_VEC0_MAX_K = 4096

#: Ids bound per `IN (...)` list: far below SQLite's variable limit on every build.
_CHUNK = 500

#: Searches of one tenant (since its last change) after which its vectors are held in
#: memory and scanned with numpy. A one-shot CLI search never pays the load (about a
#: second per 100k vectors); a long-lived process does from its second search on, and
#: then answers in ~1/6 of vec0's time at 100k (`bench/retrieval.py`).
MEMORY_AFTER = 2

#: Vectors in a tenant from which searches go through its HNSW index. Below it the
#: exact scans answer in a few milliseconds and an index is not worth its build.
ANN_MIN_ROWS = 20_000

#: Candidates asked of the index per search, at least (and at least 4k).
ANN_FETCH = 40


class _Matrix(NamedTuple):
    """One tenant's vectors as held in memory, valid while `generation` is current."""

    generation: int
    ids: list[str]
    #: Index into `type_names` per row; a type filter is one integer `isin`.
    type_codes: NDArray[np.int32]
    type_names: list[str]
    zero: NDArray[np.bool_]
    unit: NDArray[np.float32]


class _Ann(NamedTuple):
    """One tenant's HNSW index as held by this process, equal to the store at `generation`."""

    generation: int
    graph: Index
    #: Whether `graph` is a read-only memory map of a saved file (caught up by loading).
    view: bool


class _Hit(NamedTuple):
    entity_id: str
    entity_type: str
    #: The score on the port's scale.
    score: float
    #: The most any row at this distance or farther can score: what stopping decisions
    #: use. Equal to `score` except for a stored zero vector (see `_hit`).
    bound: float


class SqliteVectorStore:
    """See `redstring.ports.VectorStore` for the contract, and the module for the layout."""

    def __init__(
        self,
        connection: Connection,
        dimension: int,
        *,
        memory_after: int | None = MEMORY_AFTER,
        ann_min_rows: int | None = ANN_MIN_ROWS,
        ann_dir: Path | None = None,
    ) -> None:
        """`memory_after`: searches of a tenant before its vectors are held in memory
        (`None`: never; see `MEMORY_AFTER`). Both paths are exact and give one answer.

        `ann_min_rows`: tenant size from which the HNSW index answers (`None`: never).
        `ann_dir`: where index files live; by default `<workspace file>.vec/`, and for
        a database without a file the indexes are held in memory only."""
        if dimension < 1:
            raise InvalidInputError(f"dimension must be positive, got {dimension}")
        self._conn = connection
        self._dimension = dimension
        self._memory_after = memory_after
        self._ann_min_rows = ann_min_rows
        self._ann_dir = ann_dir if ann_dir is not None else _beside(connection)
        self._anns: dict[str, _Ann] = {}
        #: tenant -> (generation, non-zero vectors at it): the size check per search.
        self._sizes: dict[str, tuple[int, int]] = {}
        self._matrices: dict[str, _Matrix] = {}
        #: tenant -> (generation seen, searches at that generation)
        self._searches: dict[str, tuple[int, int]] = {}
        self.ensure_schema()

    @property
    def dimension(self) -> int:
        return self._dimension

    def ensure_schema(self) -> None:
        """Create the `vec_` tables if missing; refuse a file made for another dimension."""
        with transaction(self._conn) as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS vec_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            row = conn.execute("SELECT value FROM vec_meta WHERE key = 'dimension'").fetchone()
            if row is not None and int(row[0]) != self._dimension:
                # Reads "the vector store opened on this file has dimension 768, expected 384".
                raise DimensionMismatchError(
                    int(row[0]), self._dimension, "the vector store opened on this file"
                )
            if row is None:
                conn.execute(
                    "INSERT INTO vec_meta (key, value) VALUES ('dimension', ?)",
                    (str(self._dimension),),
                )
            conn.execute(
                """CREATE TABLE IF NOT EXISTS vec_entities (
                    rowid INTEGER PRIMARY KEY,
                    tenant_id TEXT NOT NULL,
                    entity_id TEXT NOT NULL,
                    zero INTEGER NOT NULL,
                    entity_type TEXT,
                    UNIQUE (tenant_id, entity_id)
                )"""
            )
            # The type beside the id: an index hit is named by one indexed read here,
            # where vec0 answers a read by rowid with a scan.
            columns = {row[1] for row in conn.execute("PRAGMA table_info(vec_entities)")}
            backfill = "entity_type" not in columns
            if backfill:
                conn.execute("ALTER TABLE vec_entities ADD COLUMN entity_type TEXT")
            conn.execute(
                """CREATE TABLE IF NOT EXISTS vec_ann (
                    tenant_id TEXT PRIMARY KEY,
                    generation INTEGER NOT NULL
                )"""
            )
            conn.execute(
                """CREATE TABLE IF NOT EXISTS vec_ann_changes (
                    tenant_id TEXT NOT NULL,
                    generation INTEGER NOT NULL,
                    key INTEGER NOT NULL,
                    unit BLOB
                )"""
            )
            conn.execute(
                """CREATE INDEX IF NOT EXISTS vec_ann_changes_tenant
                   ON vec_ann_changes (tenant_id, generation)"""
            )
            # Bumped by every write of a tenant, in the write's transaction: how a
            # matrix held in memory (by this or another process) knows it is stale.
            conn.execute(
                """CREATE TABLE IF NOT EXISTS vec_generations (
                    tenant_id TEXT PRIMARY KEY,
                    generation INTEGER NOT NULL
                )"""
            )
            conn.execute(
                f"""CREATE VIRTUAL TABLE IF NOT EXISTS vec_vectors USING vec0(
                    tenant_id TEXT PARTITION KEY,
                    entity_type TEXT,
                    embedding FLOAT[{self._dimension}]
                )"""
            )
            if backfill:
                conn.executemany(
                    "UPDATE vec_entities SET entity_type = ? WHERE rowid = ?",
                    [
                        (entity_type, rowid)
                        for rowid, entity_type in conn.execute(
                            "SELECT rowid, entity_type FROM vec_vectors"
                        )
                    ],
                )

    def _unit_rows(
        self, vectors: Sequence[Sequence[float]], what: str
    ) -> tuple[list[bytes], list[int]]:
        """Unit-normalised little-endian float32 blobs, as vec0 stores them, and a zero
        flag per row: a zero vector stays zero and the flag lets `_hit` score it right.

        One numpy pass over the whole batch: per-row conversion was half the cost of
        an upsert. Refuses a wrong length or a NaN/infinite component (whose distance
        would be NULL in every later search) before anything is written.
        """
        import numpy as np

        for vector in vectors:
            if len(vector) != self._dimension:
                raise DimensionMismatchError(self._dimension, len(vector), what)
        if not vectors:
            return [], []
        matrix = np.asarray(vectors, dtype=np.float64).reshape(len(vectors), self._dimension)
        if not np.all(np.isfinite(matrix)):
            raise InvalidInputError(f"a {what} holds a NaN or infinite component")
        norms = np.linalg.norm(matrix, axis=1)
        zero = norms == 0.0
        matrix /= np.where(zero, 1.0, norms)[:, None]
        unit = matrix.astype("<f4")
        return [row.tobytes() for row in unit], [int(flag) for flag in zero]

    async def upsert(self, records: Sequence[VectorRecord], tenant_id: TenantId) -> None:
        # Every record is validated before the first write; the last record of an entity
        # wins, as it would in one-by-one upserts.
        blobs, zeros = self._unit_rows([record.vector for record in records], "vector")
        latest = {str(record.entity_id): index for index, record in enumerate(records)}
        ids = list(latest)
        tenant = str(tenant_id)
        with transaction(self._conn) as conn:
            generation = self._bump(tenant)
            # vec0 cannot move a row between partitions by UPDATE: replace rows whole.
            replaced = self._rowids(ids, tenant)
            conn.executemany(
                "DELETE FROM vec_vectors WHERE rowid = ?", [(r,) for r in replaced.values()]
            )
            conn.executemany(
                """INSERT INTO vec_entities (tenant_id, entity_id, zero, entity_type)
                   VALUES (?, ?, ?, ?)
                   ON CONFLICT (tenant_id, entity_id) DO UPDATE
                   SET zero = excluded.zero, entity_type = excluded.entity_type""",
                [
                    (
                        tenant,
                        entity_id,
                        zeros[latest[entity_id]],
                        records[latest[entity_id]].entity_type,
                    )
                    for entity_id in ids
                ],
            )
            rowids = self._rowids(ids, tenant)
            self._note_changes(
                tenant,
                generation,
                [
                    (
                        rowids[entity_id],
                        None if zeros[latest[entity_id]] else blobs[latest[entity_id]],
                    )
                    for entity_id in ids
                ],
            )
            conn.executemany(
                """INSERT INTO vec_vectors (rowid, tenant_id, entity_type, embedding)
                   VALUES (?, ?, ?, ?)""",
                [
                    (
                        rowids[entity_id],
                        tenant,
                        records[latest[entity_id]].entity_type,
                        blobs[latest[entity_id]],
                    )
                    for entity_id in ids
                ],
            )

    def _rowids(self, entity_ids: list[str], tenant: str) -> dict[str, int]:
        """`entity_id -> rowid` for those of `entity_ids` the tenant has."""
        found: dict[str, int] = {}
        for start in range(0, len(entity_ids), _CHUNK):
            chunk = entity_ids[start : start + _CHUNK]
            found.update(
                self._conn.execute(
                    f"""SELECT entity_id, rowid FROM vec_entities
                        WHERE tenant_id = ? AND entity_id IN ({_marks(chunk)})""",
                    (tenant, *chunk),
                ).fetchall()
            )
        return found

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
        [query], [zero_query] = self._unit_rows([vector], "query vector")
        if k == 0:
            return []
        types: list[str] | None = None
        if entity_types is not None:
            types = [t for t in dict.fromkeys(entity_types) if isinstance(t, str)]
            if not types:
                return []
        floor = -math.inf if min_score is None else min_score

        tenant = str(tenant_id)
        approximate = None if zero_query else self._ann_hits(query, tenant, k, types, floor)
        if approximate is not None:
            hits = approximate
        elif (matrix := self._matrix(tenant)) is not None:
            hits = _matrix_hits(matrix, query, zero_query, k, types, floor)
        else:
            hits = self._knn_until_settled(query, tenant, k, types, floor, zero_query)
        passing = [hit for hit in hits if hit.score >= floor]
        passing.sort(key=lambda hit: (-hit.score, hit.entity_id))
        return [
            VectorMatch(
                entity_id=EntityId(UUID(hit.entity_id)),
                score=hit.score,
                entity_type=hit.entity_type,
            )
            for hit in passing[:k]
        ]

    def _bump(self, tenant: str) -> int:
        """Advance the tenant's generation and return it; the caller holds the write
        transaction."""
        self._conn.execute(
            """INSERT INTO vec_generations (tenant_id, generation) VALUES (?, 1)
               ON CONFLICT (tenant_id) DO UPDATE SET generation = generation + 1""",
            (tenant,),
        )
        return self._generation(tenant)

    def _generation(self, tenant: str) -> int:
        row = self._conn.execute(
            "SELECT generation FROM vec_generations WHERE tenant_id = ?", (tenant,)
        ).fetchone()
        return 0 if row is None else int(row[0])

    def _note_changes(
        self, tenant: str, generation: int, changes: list[tuple[int, bytes | None]]
    ) -> None:
        """Record what a write changed, for the tenant's index to catch up from -- only
        while the tenant has one (`vec_ann`). `None` removes the key from the index."""
        if not changes:
            return
        if self._conn.execute("SELECT 1 FROM vec_ann WHERE tenant_id = ?", (tenant,)).fetchone():
            self._conn.executemany(
                """INSERT INTO vec_ann_changes (tenant_id, generation, key, unit)
                   VALUES (?, ?, ?, ?)""",
                [(tenant, generation, key, unit) for key, unit in changes],
            )

    def _matrix(self, tenant: str) -> _Matrix | None:
        """The tenant's vectors in memory when they are current and searched often
        enough to pay for loading (`memory_after`), else `None` (vec0 answers)."""
        import numpy as np

        if self._memory_after is None:
            return None
        generation = self._generation(tenant)
        held = self._matrices.get(tenant)
        if held is not None and held.generation == generation:
            return held
        self._matrices.pop(tenant, None)
        seen, searches = self._searches.get(tenant, (generation, 0))
        searches = searches + 1 if seen == generation else 1
        self._searches[tenant] = (generation, searches)
        if searches <= self._memory_after:
            return None
        rows = self._conn.execute(
            """SELECT e.entity_id, v.entity_type, v.embedding, e.zero
               FROM vec_vectors AS v JOIN vec_entities AS e ON e.rowid = v.rowid
               WHERE v.tenant_id = ?""",
            (tenant,),
        ).fetchall()
        names: dict[str, int] = {}
        codes = [names.setdefault(entity_type, len(names)) for _, entity_type, _, _ in rows]
        unit = np.frombuffer(b"".join(blob for _, _, blob, _ in rows), dtype="<f4")
        matrix = _Matrix(
            generation=generation,
            ids=[entity_id for entity_id, _, _, _ in rows],
            type_codes=np.asarray(codes, dtype=np.int32),
            type_names=list(names),
            zero=np.asarray([bool(zero) for _, _, _, zero in rows], dtype=np.bool_),
            unit=unit.reshape(len(rows), self._dimension).astype(np.float32),
        )
        self._matrices[tenant] = matrix
        return matrix

    def _ann_hits(
        self, query: bytes, tenant: str, k: int, types: list[str] | None, floor: float
    ) -> list[_Hit] | None:
        """The top `k` through the tenant's index, or `None` when the exact paths must
        answer (no index for a tenant this small, or an answer the index cannot settle:
        see the module doc)."""
        import numpy as np

        index = self._ann_index(tenant)
        if index is None:
            return None
        fetch = max(4 * k, ANN_FETCH)
        found = index.search(np.frombuffer(query, dtype="<f4"), fetch)
        keys = [int(key) for key in found.keys]
        if not keys:
            return None
        distances = np.asarray(found.distances, dtype=np.float64)
        scores = np.clip((2.0 - distances) / 2.0, 0.0, 1.0)
        named: dict[int, tuple[str, str]] = {}
        for start in range(0, len(keys), _CHUNK):
            chunk = keys[start : start + _CHUNK]
            for rowid, entity_id, entity_type in self._conn.execute(
                f"""SELECT rowid, entity_id, entity_type FROM vec_entities
                    WHERE rowid IN ({_marks(chunk)})""",
                chunk,
            ):
                named[int(rowid)] = (entity_id, entity_type)
        passing = [
            _Hit(*named[key], float(score), float(score))
            for key, score in zip(keys, scores, strict=True)
            if key in named and score >= floor and (types is None or named[key][1] in types)
        ]
        if len(passing) < k:
            return None
        kth = sorted((hit.score for hit in passing), reverse=True)[k - 1]
        if kth <= 0.5 or (len(keys) == fetch and float(scores.min()) >= kth):
            return None
        return [hit for hit in passing if hit.score >= kth]

    def _ann_index(self, tenant: str) -> Index | None:
        """The tenant's index, current: held, opened from its file, caught up from
        `vec_ann_changes`, or built from the stored vectors -- or `None` when the tenant
        is below `ann_min_rows`."""
        import numpy as np

        if self._ann_min_rows is None:
            return None
        generation = self._generation(tenant)
        held = self._anns.get(tenant)
        if held is not None and held.generation == generation:
            return held.graph
        if self._size(tenant, generation) < self._ann_min_rows:
            return None
        row = self._conn.execute(
            "SELECT generation FROM vec_ann WHERE tenant_id = ?", (tenant,)
        ).fetchone()
        if row is None:
            return self._build_ann(tenant)
        saved = int(row[0])
        if held is None or held.generation < saved:
            # A newer saved file, or none held: changes older than the file are pruned.
            if self._ann_dir is None:
                return self._build_ann(tenant)
            writable = saved != generation
            index = hnsw.open_file(self._ann_dir, tenant, saved, writable=writable)
            if index is None:
                return self._build_ann(tenant)
            held = _Ann(saved, index, view=not writable)
            if saved == generation:
                self._anns[tenant] = held
                return index
        index = held.graph
        if held.view and self._ann_dir is not None:
            reopened = hnsw.open_file(self._ann_dir, tenant, held.generation, writable=True)
            if reopened is None:
                return self._build_ann(tenant)
            index = reopened
        changes = self._conn.execute(
            """SELECT key, unit FROM vec_ann_changes
               WHERE tenant_id = ? AND generation > ? ORDER BY generation, rowid""",
            (tenant, held.generation),
        ).fetchall()
        if changes:
            keys = np.asarray([key for key, _ in changes], dtype=np.uint64)
            live = np.asarray([unit is not None for _, unit in changes], dtype=np.bool_)
            unit = np.zeros((len(changes), self._dimension), dtype=np.float32)
            for row_index, (_, blob) in enumerate(changes):
                if blob is not None:
                    unit[row_index] = np.frombuffer(blob, dtype="<f4")
            hnsw.apply(index, keys, unit, live)
        self._save_ann(tenant, index, generation)
        return index

    def _size(self, tenant: str, generation: int) -> int:
        """Non-zero vectors of the tenant, counted once per generation."""
        known = self._sizes.get(tenant)
        if known is not None and known[0] == generation:
            return known[1]
        row = self._conn.execute(
            "SELECT count(*) FROM vec_entities WHERE tenant_id = ? AND zero = 0", (tenant,)
        ).fetchone()
        self._sizes[tenant] = (generation, int(row[0]))
        return int(row[0])

    def _build_ann(self, tenant: str) -> Index:
        """Build the tenant's index from its stored vectors. Reading them, and starting
        `vec_ann_changes`, happen in one write transaction: no write can fall between
        what the index holds and what is recorded after it."""
        import numpy as np

        with transaction(self._conn) as conn:
            generation = self._generation(tenant)
            rows = conn.execute(
                """SELECT e.rowid, v.embedding
                   FROM vec_vectors AS v JOIN vec_entities AS e ON e.rowid = v.rowid
                   WHERE v.tenant_id = ? AND e.zero = 0""",
                (tenant,),
            ).fetchall()
            conn.execute(
                """INSERT INTO vec_ann (tenant_id, generation) VALUES (?, ?)
                   ON CONFLICT (tenant_id) DO UPDATE SET generation = excluded.generation""",
                (tenant, generation),
            )
            conn.execute("DELETE FROM vec_ann_changes WHERE tenant_id = ?", (tenant,))
        index = hnsw.new_index(self._dimension)
        if rows:
            keys = np.asarray([rowid for rowid, _ in rows], dtype=np.uint64)
            unit = np.frombuffer(b"".join(blob for _, blob in rows), dtype="<f4")
            index.add(keys, unit.reshape(len(rows), self._dimension))
        self._save_ann(tenant, index, generation)
        return index

    def _save_ann(self, tenant: str, index: Index, generation: int) -> None:
        """Hold the index as current at `generation`; with a directory, save it there
        and prune the changes it already holds."""
        self._anns[tenant] = _Ann(generation, index, view=False)
        if self._ann_dir is None:
            return
        hnsw.save(index, self._ann_dir, tenant, generation)
        with transaction(self._conn) as conn:
            conn.execute(
                "UPDATE vec_ann SET generation = max(generation, ?) WHERE tenant_id = ?",
                (generation, tenant),
            )
            conn.execute(
                "DELETE FROM vec_ann_changes WHERE tenant_id = ? AND generation <= ?",
                (tenant, generation),
            )

    def _knn_until_settled(
        self,
        query: bytes,
        tenant: str,
        k: int,
        types: list[str] | None,
        floor: float,
        zero_query: int,
    ) -> list[_Hit]:
        """Fetch best-first until no unseen row can enter the top k (see the module doc)."""
        fetch = k + 1
        while fetch <= _VEC0_MAX_K:
            hits = self._knn(query, tenant, fetch, types, zero_query)
            if len(hits) < fetch:  # the shard (after the type filter) is exhausted
                return hits
            last = hits[-1].bound
            if last < floor:  # every later row scores lower still
                return hits
            passing = sorted((hit.score for hit in hits if hit.score >= floor), reverse=True)
            if len(passing) >= k and last < passing[k - 1]:
                return hits
            if fetch == _VEC0_MAX_K:
                break
            fetch = min(fetch * 2, _VEC0_MAX_K)
        return self._scan(query, tenant, types, zero_query)

    def _knn(
        self, query: bytes, tenant: str, fetch: int, types: list[str] | None, zero_query: int
    ) -> list[_Hit]:
        type_clause = "" if types is None else f"AND entity_type IN ({_marks(types)})"
        rows = self._conn.execute(
            f"""WITH knn AS (
                    SELECT rowid, entity_type, distance FROM vec_vectors
                    WHERE embedding MATCH ? AND k = ? AND tenant_id = ? {type_clause}
                )
                SELECT e.entity_id, knn.entity_type, knn.distance, e.zero
                FROM knn JOIN vec_entities AS e ON e.rowid = knn.rowid
                ORDER BY knn.distance""",
            (query, fetch, tenant, *(types or ())),
        ).fetchall()
        return [_hit(row, zero_query) for row in rows]

    def _scan(
        self, query: bytes, tenant: str, types: list[str] | None, zero_query: int
    ) -> list[_Hit]:
        """Exact brute force over the tenant's shard, for answers wider than vec0's k cap."""
        type_clause = "" if types is None else f"AND v.entity_type IN ({_marks(types)})"
        rows = self._conn.execute(
            f"""SELECT e.entity_id, v.entity_type, vec_distance_l2(v.embedding, ?), e.zero
                FROM vec_vectors AS v JOIN vec_entities AS e ON e.rowid = v.rowid
                WHERE v.tenant_id = ? {type_clause}""",
            (query, tenant, *(types or ())),
        ).fetchall()
        return [_hit(row, zero_query) for row in rows]

    async def delete(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        with transaction(self._conn) as conn:
            generation = self._bump(str(tenant_id))
            # A tenant without vectors (a workspace with no embedder) has no row to look
            # up: people-50k's merges asked after 44k ids in 100 reads, ~0.05 s for none.
            if not conn.execute(
                "SELECT 1 FROM vec_entities WHERE tenant_id = ? LIMIT 1", (str(tenant_id),)
            ).fetchone():
                return
            rowids = self._rowids([str(entity_id) for entity_id in entity_ids], str(tenant_id))
            self._note_changes(
                str(tenant_id), generation, [(rowid, None) for rowid in rowids.values()]
            )
            conn.executemany(
                "DELETE FROM vec_vectors WHERE rowid = ?", [(r,) for r in rowids.values()]
            )
            conn.executemany(
                "DELETE FROM vec_entities WHERE rowid = ?", [(r,) for r in rowids.values()]
            )

    async def count(self, tenant_id: TenantId) -> int:
        row = self._conn.execute(
            "SELECT count(*) FROM vec_entities WHERE tenant_id = ?", (str(tenant_id),)
        ).fetchone()
        return int(row[0])

    async def missing(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> list[EntityId]:
        wanted = list(dict.fromkeys(entity_ids))
        held = self._rowids([str(e) for e in wanted], str(tenant_id))
        return [e for e in wanted if str(e) not in held]

    async def prepare(self, tenant_id: TenantId) -> None:
        """Build, open or catch up the tenant's HNSW index now (when the tenant is at
        least `ann_min_rows`), rather than in its first search: 36-94 s at 100k."""
        self._ann_index(str(tenant_id))

    async def delete_by_tenant(self, tenant_id: TenantId) -> None:
        with transaction(self._conn) as conn:
            self._bump(str(tenant_id))
            rowids = conn.execute(
                "SELECT rowid FROM vec_entities WHERE tenant_id = ?", (str(tenant_id),)
            ).fetchall()
            conn.executemany("DELETE FROM vec_vectors WHERE rowid = ?", rowids)
            conn.execute("DELETE FROM vec_entities WHERE tenant_id = ?", (str(tenant_id),))
            # The index goes with the vectors; a later search of a grown tenant rebuilds it.
            conn.execute("DELETE FROM vec_ann WHERE tenant_id = ?", (str(tenant_id),))
            conn.execute("DELETE FROM vec_ann_changes WHERE tenant_id = ?", (str(tenant_id),))
        self._anns.pop(str(tenant_id), None)
        if self._ann_dir is not None:
            hnsw.drop_files(self._ann_dir, str(tenant_id))


def _hit(row: tuple[str, str, float, int], zero_query: int) -> _Hit:
    """A zero vector is orthogonal to everything (cosine 0, score 0.5), as in the reference
    adapter. L2 says otherwise: a stored zero vector lies at distance 1 from a unit query,
    which reads as cosine 0.5, so its score is overridden -- and since that true score is
    *below* what its distance implies, the distance-implied `bound` is kept for deciding
    when no unseen row can still enter the top k. A zero query scores 0.5 everywhere."""
    entity_id, entity_type, distance, zero_row = row
    if zero_query:
        return _Hit(entity_id, entity_type, 0.5, 0.5)
    bound = score_from_l2_of_unit_vectors(distance)
    return _Hit(entity_id, entity_type, 0.5 if zero_row else bound, bound)


def _matrix_hits(
    matrix: _Matrix, query: bytes, zero_query: int, k: int, types: list[str] | None, floor: float
) -> list[_Hit]:
    """Exact scan of a tenant held in memory, filters before `k`: every row scoring at
    least the k-th passing score is returned (ties included), for `search` to order
    by id string. Scores follow the vec0 path's rules (`_hit`): a stored zero vector,
    or a zero query, scores 0.5."""
    import numpy as np

    if zero_query:
        scores = np.full(len(matrix.ids), 0.5)
    else:
        # einsum, not `@`: BLAS threads a matrix-vector product this size, and on busy
        # cores each call then waits for a descheduled thread (10k x 384 measured a
        # ~21 ms median against einsum's ~1.5 ms with two other jobs running).
        cosine = np.einsum("ij,j->i", matrix.unit, np.frombuffer(query, dtype="<f4"))
        scores = np.clip((1.0 + cosine.astype(np.float64)) / 2.0, 0.0, 1.0)
        scores[matrix.zero] = 0.5
    passing = scores >= floor
    if types is not None:
        wanted = [code for code, name in enumerate(matrix.type_names) if name in types]
        passing &= np.isin(matrix.type_codes, wanted)
    rows = np.flatnonzero(passing)
    if len(rows) > k:
        kth = -np.partition(-scores[rows], k - 1)[k - 1]
        rows = rows[scores[rows] >= kth]
    return [
        _Hit(
            matrix.ids[i],
            matrix.type_names[matrix.type_codes[i]],
            float(scores[i]),
            float(scores[i]),
        )
        for i in rows
    ]


def _beside(connection: Connection) -> Path | None:
    """`<file>.vec` beside the connection's main database file; `None` without a file."""
    for _, name, file in connection.execute("PRAGMA database_list"):
        if name == "main" and file:
            return Path(f"{file}.vec")
    return None


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))
