"""SQLite `GraphStore`: the embedded workspace's graph, in plain tables of the shared file.

Why plain tables with a JSON body: the domain records (entity, relationship) are
pydantic models whose shape will grow, while the store only ever *queries* a few
columns (tenant, id, type, endpoints, blocking keys). Those columns are real,
indexed columns; everything else is the model's own JSON, so a read is a
validate-from-JSON and can never hand back a reference into the store.

Every table is keyed by `(tenant_id, ...)` first, so colliding ids across
tenants cannot cross and every index serves a tenant-scoped lookup. Table names
start with `graph_` because the workspace file is shared with the event log,
the vector store and the chunk store.

Every write method runs inside one `transaction()` (see `redstring.storage.sqlite`):
a refused batch writes nothing, and a projection can wrap several store calls
and its checkpoint in one outer transaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal
from uuid import UUID

from redstring.domain.blocking import lexicon_keys
from redstring.domain.entity import Entity
from redstring.domain.exceptions import TenantMismatchError
from redstring.domain.ids import EntityId
from redstring.domain.lexical import (
    NAME_SEPARATOR,
    LexicalCandidate,
    candidate_names,
    choose_blocks,
)
from redstring.domain.relationship import Relationship
from redstring.graph.aliases import final_aliases
from redstring.storage.sqlite import BUSY_TIMEOUT_MS, OperationalError, transaction

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from redstring.domain.ids import RelationshipId, TenantId
    from redstring.storage.sqlite import Connection

#: Ids bound per `IN (...)` list: far below SQLite's variable limit on every build.
_CHUNK = 500

#: Separates the names of one `graph_lexicon_blocks` row (`LexicalCandidate.filed_names`).
_NAME_SEPARATOR = NAME_SEPARATOR

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS graph_entities (
        tenant_id TEXT NOT NULL,
        id TEXT NOT NULL,
        entity_type TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (tenant_id, id)
    )""",
    "CREATE INDEX IF NOT EXISTS graph_entities_type ON graph_entities (tenant_id, entity_type)",
    """CREATE TABLE IF NOT EXISTS graph_blocking_keys (
        tenant_id TEXT NOT NULL,
        key TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        PRIMARY KEY (tenant_id, key, entity_id)
    ) WITHOUT ROWID""",
    # The primary key serves `(tenant_id, key)` lookups; this one serves unfiling.
    # Small rows in one clustered tree rather than a table plus its key index: a
    # consolidation unfiles the keys of every merged entity, and deleting 45k
    # entities' keys and lexicon rows took 10.1 s with row ids, 5.4 s without.
    """CREATE INDEX IF NOT EXISTS graph_blocking_keys_entity
        ON graph_blocking_keys (tenant_id, entity_id)""",
    """CREATE TABLE IF NOT EXISTS graph_aliases (
        tenant_id TEXT NOT NULL,
        alias_id TEXT NOT NULL,
        canonical_id TEXT NOT NULL,
        PRIMARY KEY (tenant_id, alias_id)
    ) WITHOUT ROWID""",
    # The lexical channel's candidate source (`lexical_candidates`): names kept apart
    # from the JSON body so a block is screened without parsing one entity.
    # One row per (key, entity) carrying the entity's type and names: a block is one
    # contiguous range of this clustered table, read without a join (a join to
    # per-entity names table per row cost ~10 ms for a 2,000-row read at 100k).
    """CREATE TABLE IF NOT EXISTS graph_lexicon_blocks (
        tenant_id TEXT NOT NULL,
        key TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        entity_type TEXT NOT NULL,
        names TEXT NOT NULL,
        PRIMARY KEY (tenant_id, key, entity_id)
    ) WITHOUT ROWID""",
    """CREATE INDEX IF NOT EXISTS graph_lexicon_blocks_entity
        ON graph_lexicon_blocks (tenant_id, entity_id)""",
    # Entities written since their keys were last filed: their blocking keys and
    # lexicon rows are filed by the next read of either (`settle_keys`), not by the
    # write. A consolidation deletes most of the records an ingest wrote, so filing
    # each record's ~3 blocking keys and ~6 lexicon rows at ingest and unfiling them
    # at its merge was most of what both cost (people-febrl 10k through the CLI: the
    # lexicon 0.43 s of a 1.7 s ingest, the blocking keys 0.26 s of what remained,
    # and ~0.5 s of consolidate between them); filed on first read, only the
    # surviving entities are, once.
    """CREATE TABLE IF NOT EXISTS graph_keys_pending (
        tenant_id TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        PRIMARY KEY (tenant_id, entity_id)
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS graph_aliases_canonical ON graph_aliases (tenant_id, canonical_id)",
    """CREATE TABLE IF NOT EXISTS graph_relationships (
        tenant_id TEXT NOT NULL,
        id TEXT NOT NULL,
        source_id TEXT NOT NULL,
        target_id TEXT NOT NULL,
        relationship_type TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (tenant_id, id)
    )""",
    """CREATE INDEX IF NOT EXISTS graph_relationships_source
        ON graph_relationships (tenant_id, source_id)""",
    """CREATE INDEX IF NOT EXISTS graph_relationships_target
        ON graph_relationships (tenant_id, target_id)""",
)


class SqliteGraphStore:
    """See `redstring.ports.GraphStore` for the contract.

    Ids are stored as canonical lowercase UUID strings, so SQLite's binary text
    order *is* "ordered by id string" and `ORDER BY id` needs no Python sort.
    """

    def __init__(self, connection: Connection) -> None:
        self._conn = connection
        self.ensure_schema()

    def ensure_schema(self) -> None:
        """Create the `graph_` tables and indexes if they are missing (idempotent).

        A file written before the lexicon (or its current block table) existed gets it
        filled from the stored entities once, here, so retrieval over an old workspace
        needs no replay."""
        with transaction(self._conn) as conn:
            had_lexicon = conn.execute(
                """SELECT 1 FROM sqlite_master
                   WHERE type = 'table' AND name = 'graph_lexicon_blocks'"""
            ).fetchone()
            for statement in _SCHEMA:
                conn.execute(statement)
            if conn.execute(
                """SELECT 1 FROM sqlite_master
                   WHERE type = 'table' AND name = 'graph_lexicon_pending'"""
            ).fetchone():
                # The queue's first name, when it held lexicon rows only: its entities'
                # blocking keys were filed on write, so refiling them is harmless.
                conn.execute(
                    "INSERT OR IGNORE INTO graph_keys_pending SELECT * FROM graph_lexicon_pending"
                )
                conn.execute("DROP TABLE graph_lexicon_pending")
            if had_lexicon is None:
                conn.execute("DROP TABLE IF EXISTS graph_lexicon_keys")
                conn.execute("DROP TABLE IF EXISTS graph_lexicon")
                by_tenant: dict[TenantId, list[Entity]] = {}
                for (body,) in conn.execute("SELECT body FROM graph_entities").fetchall():
                    entity = Entity.model_validate_json(body)
                    by_tenant.setdefault(entity.tenant_id, []).append(entity)
                for tenant_entities in by_tenant.values():
                    self._file_lexicon(tenant_entities)

    def _file_keys(self, entities: Sequence[Entity]) -> None:
        """(Re)file `entities` (distinct ids of one tenant) under their blocking keys and
        in the lexicon; the caller holds the transaction."""
        if not entities:
            return
        tenant = str(entities[0].tenant_id)
        for chunk in _chunks([str(entity.id) for entity in entities]):
            self._conn.execute(
                f"""DELETE FROM graph_blocking_keys
                    WHERE tenant_id = ? AND entity_id IN ({_marks(chunk)})""",
                (tenant, *chunk),
            )
        self._conn.executemany(
            """INSERT OR IGNORE INTO graph_blocking_keys (tenant_id, key, entity_id)
               VALUES (?, ?, ?)""",
            [(tenant, key, str(entity.id)) for entity in entities for key in entity.blocking_keys],
        )
        self._file_lexicon(entities)

    def _file_lexicon(self, entities: Sequence[Entity]) -> None:
        """(Re)file `entities` (distinct ids of one tenant) in the lexicon; the caller
        holds the transaction."""
        if not entities:
            return
        tenant = str(entities[0].tenant_id)
        for chunk in _chunks([str(entity.id) for entity in entities]):
            self._conn.execute(
                f"""DELETE FROM graph_lexicon_blocks INDEXED BY graph_lexicon_blocks_entity
                    WHERE tenant_id = ? AND entity_id IN ({_marks(chunk)})""",
                (tenant, *chunk),
            )
        self._conn.executemany(
            """INSERT OR IGNORE INTO graph_lexicon_blocks
               (tenant_id, key, entity_id, entity_type, names) VALUES (?, ?, ?, ?, ?)""",
            [
                (tenant, key, str(entity.id), entity.entity_type, names)
                for entity in entities
                for names in (_NAME_SEPARATOR.join(candidate_names(entity)),)
                for key in lexicon_keys(entity)
            ],
        )

    # -- entities ------------------------------------------------------------------

    async def upsert_entities(self, entities: Sequence[Entity], tenant_id: TenantId) -> None:
        """A few statements for the whole call, in id order (a consolidation upserts
        thousands of canonicals); an id given twice ends as its last version."""
        _check_tenant(entities, tenant_id)
        tenant = str(tenant_id)
        latest = {str(entity.id): entity for entity in entities}
        ids = sorted(latest)
        with transaction(self._conn) as conn:
            conn.executemany(
                """INSERT INTO graph_entities (tenant_id, id, entity_type, body)
                   VALUES (?, ?, ?, ?)
                   ON CONFLICT (tenant_id, id) DO UPDATE
                   SET entity_type = excluded.entity_type, body = excluded.body""",
                [
                    (
                        tenant,
                        entity_id,
                        latest[entity_id].entity_type,
                        latest[entity_id].model_dump_json(),
                    )
                    for entity_id in ids
                ],
            )
            conn.executemany(
                """INSERT OR IGNORE INTO graph_keys_pending (tenant_id, entity_id)
                   VALUES (?, ?)""",
                [(tenant, entity_id) for entity_id in ids],
            )

    async def settle_keys(self, tenant_id: TenantId) -> int:
        """File the blocking keys and lexicon rows of the tenant's entities written
        since they were last read (their earlier rows, if any, replaced); how many
        entities. Every read of either does it first; a writer calls it so that
        readers inside a snapshot, which cannot write, find nothing left to file
        (`WorkspaceService`), and a benchmark so that its first query does not pay
        for the build."""
        tenant = str(tenant_id)
        if not self._queued(tenant):
            return 0
        with transaction(self._conn) as conn:
            # Read under the write lock: ids another writer queues meanwhile wait for
            # the next read rather than being dropped unfiled.
            pending = [
                row[0]
                for row in conn.execute(
                    "SELECT entity_id FROM graph_keys_pending WHERE tenant_id = ?", (tenant,)
                )
            ]
            # A pending id no longer stored was deleted, its rows with it (`delete_entities`).
            entities = [
                Entity.model_validate_json(body)
                for chunk in _chunks(pending)
                for (body,) in conn.execute(
                    f"""SELECT body FROM graph_entities
                        WHERE tenant_id = ? AND id IN ({_marks(chunk)})""",
                    (tenant, *chunk),
                )
            ]
            self._file_keys(entities)
            conn.execute("DELETE FROM graph_keys_pending WHERE tenant_id = ?", (tenant,))
        return len(entities)

    async def _settle_for_read(self, tenant_id: TenantId) -> None:
        """`settle_keys` before a read of the keys, when this connection may write
        now: inside a caller's write transaction too (what it just wrote is found).
        While another connection holds the write lock (a consolidation commits every
        few thousand merges), or inside a read snapshot another writer has moved past
        (a served read: the service's writer settles after each write), the read does
        not wait: it reads the keys as filed, and a later read files the rest."""
        if not self._queued(str(tenant_id)):
            return  # most reads: no pragma round trip
        self._conn.execute("PRAGMA busy_timeout = 0")
        try:
            await self.settle_keys(tenant_id)
        except OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
        finally:
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def _queued(self, tenant: str) -> bool:
        """Whether any of the tenant's entities wait for their keys to be filed."""
        return (
            self._conn.execute(
                "SELECT 1 FROM graph_keys_pending WHERE tenant_id = ? LIMIT 1", (tenant,)
            ).fetchone()
            is not None
        )

    def _resolved(self, entity_id: EntityId, tenant_id: TenantId) -> EntityId:
        row = self._conn.execute(
            "SELECT canonical_id FROM graph_aliases WHERE tenant_id = ? AND alias_id = ?",
            (str(tenant_id), str(entity_id)),
        ).fetchone()
        return entity_id if row is None else EntityId(UUID(row[0]))

    async def get_entity(self, entity_id: EntityId, tenant_id: TenantId) -> Entity | None:
        row = self._conn.execute(
            "SELECT body FROM graph_entities WHERE tenant_id = ? AND id = ?",
            (str(tenant_id), str(self._resolved(entity_id, tenant_id))),
        ).fetchone()
        return None if row is None else Entity.model_validate_json(row[0])

    async def get_entities(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Entity]:
        tenant = str(tenant_id)
        canonical: dict[str, None] = {}
        for chunk in _chunks([str(entity_id) for entity_id in entity_ids]):
            aliases = dict(
                self._conn.execute(
                    f"""SELECT alias_id, canonical_id FROM graph_aliases
                        WHERE tenant_id = ? AND alias_id IN ({_marks(chunk)})""",
                    (tenant, *chunk),
                ).fetchall()
            )
            canonical.update(dict.fromkeys(aliases.get(raw, raw) for raw in chunk))
        found: list[Entity] = []
        for chunk in _chunks(list(canonical)):
            found.extend(
                Entity.model_validate_json(body)
                for (body,) in self._conn.execute(
                    f"""SELECT body FROM graph_entities
                        WHERE tenant_id = ? AND id IN ({_marks(chunk)}) ORDER BY id""",
                    (tenant, *chunk),
                )
            )
        return found

    async def find_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId
    ) -> dict[str, list[Entity]]:
        result: dict[str, list[Entity]] = {key: [] for key in keys}
        await self._settle_for_read(tenant_id)
        for chunk in _chunks(list(result)):
            rows = self._conn.execute(
                f"""SELECT k.key, e.body
                    FROM graph_blocking_keys AS k
                    JOIN graph_entities AS e ON e.tenant_id = k.tenant_id AND e.id = k.entity_id
                    WHERE k.tenant_id = ? AND k.key IN ({_marks(chunk)})
                    ORDER BY k.key, e.id""",
                (str(tenant_id), *chunk),
            )
            for key, body in rows:
                result[key].append(Entity.model_validate_json(body))
        return result

    async def lexical_candidates(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int
    ) -> list[LexicalCandidate]:
        if limit < 1 or not keys:
            return []
        await self._settle_for_read(tenant_id)
        tenant = str(tenant_id)
        unique = list(dict.fromkeys(keys))
        sizes = self._block_sizes(tenant, unique, limit + 1)
        if sizes and all(size > limit for size in sizes.values()):
            # Every block overflows: only now is the rarest one worth counting whole.
            sizes = self._block_sizes(tenant, unique, None)
        chosen = choose_blocks(sizes, limit)
        select = "SELECT entity_id, entity_type, names FROM graph_lexicon_blocks"
        if chosen.whole:
            # Deduplicated and ordered here: asked to, SQLite's planner walked the
            # tenant's whole entity index in id order instead (seconds at 100k).
            rows = [
                row
                for chunk in _chunks(chosen.whole)
                for row in self._conn.execute(
                    f"{select} WHERE tenant_id = ? AND key IN ({_marks(chunk)})",
                    (tenant, *chunk),
                )
            ]
            rows = sorted({row[0]: row for row in rows}.values())
        elif chosen.partial is not None:
            rows = self._conn.execute(
                f"{select} WHERE tenant_id = ? AND key = ? ORDER BY entity_id LIMIT ?",
                (tenant, chosen.partial, limit),
            ).fetchall()
        else:
            return []
        # Each row becomes a candidate as it is (`LexicalCandidate` is its named tuple).
        return list(map(LexicalCandidate._make, rows))

    def _block_sizes(self, tenant: str, keys: list[str], cap: int | None) -> dict[str, int]:
        """Rows filed under each of `keys`, counted up to `cap` only: past the limit a
        block is skipped whatever its size, and counting a common token's block whole
        cost more than reading the chosen ones. One statement for all the keys."""
        bounded = "" if cap is None else f" LIMIT {int(cap)}"
        count = f"""(SELECT count(*) FROM (SELECT 1 FROM graph_lexicon_blocks
                     WHERE tenant_id = ? AND key = ?{bounded}))"""
        sizes: dict[str, int] = {}
        for chunk in _chunks(keys):
            row = self._conn.execute(
                f"SELECT {', '.join([count] * len(chunk))}",
                [value for key in chunk for value in (tenant, key)],
            ).fetchone()
            sizes.update(zip(chunk, (int(size) for size in row), strict=True))
        return sizes

    async def list_entities(
        self, tenant_id: TenantId, *, entity_types: Sequence[str] | None = None
    ) -> list[Entity]:
        if entity_types is None:
            rows = self._conn.execute(
                "SELECT body FROM graph_entities WHERE tenant_id = ? ORDER BY id",
                (str(tenant_id),),
            ).fetchall()
        else:
            wanted = [t for t in dict.fromkeys(entity_types) if isinstance(t, str)]
            if not wanted:
                return []
            rows = []
            for chunk in _chunks(wanted):
                rows.extend(
                    self._conn.execute(
                        f"""SELECT body FROM graph_entities
                            WHERE tenant_id = ? AND entity_type IN ({_marks(chunk)})""",
                        (str(tenant_id), *chunk),
                    ).fetchall()
                )
        entities = [Entity.model_validate_json(body) for (body,) in rows]
        if entity_types is not None:
            entities.sort(key=lambda entity: str(entity.id))
        return entities

    async def count_entities(self, tenant_id: TenantId) -> int:
        row = self._conn.execute(
            "SELECT count(*) FROM graph_entities WHERE tenant_id = ?", (str(tenant_id),)
        ).fetchone()
        return int(row[0])

    async def delete_entities(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        tenant = str(tenant_id)
        # Sorted, so each chunk is one stretch of the id-ordered trees, not all of them.
        with transaction(self._conn) as conn:
            # A table holding no row of the tenant is not probed id by id: keys not
            # filed yet (`graph_keys_pending`) and no edges are what a consolidation
            # after an ingest finds (people-50k: 4 x 102 deletes of nothing, ~0.06 s).
            held = [
                table
                for table in ("graph_blocking_keys", "graph_lexicon_blocks", "graph_relationships")
                if conn.execute(
                    f"SELECT 1 FROM {table} WHERE tenant_id = ? LIMIT 1", (tenant,)
                ).fetchone()
            ]
            for chunk in _chunks(sorted({str(entity_id) for entity_id in entity_ids})):
                marks = _marks(chunk)
                conn.execute(
                    f"DELETE FROM graph_entities WHERE tenant_id = ? AND id IN ({marks})",
                    (tenant, *chunk),
                )
                if "graph_blocking_keys" in held:
                    conn.execute(
                        f"""DELETE FROM graph_blocking_keys
                            WHERE tenant_id = ? AND entity_id IN ({marks})""",
                        (tenant, *chunk),
                    )
                if "graph_lexicon_blocks" in held:
                    conn.execute(
                        f"""DELETE FROM graph_lexicon_blocks INDEXED BY graph_lexicon_blocks_entity
                            WHERE tenant_id = ? AND entity_id IN ({marks})""",
                        (tenant, *chunk),
                    )
                # One indexed delete per end: SQLite planned the OR as a scan of the
                # tenant's relationships.
                for end in ("source_id", "target_id") if "graph_relationships" in held else ():
                    conn.execute(
                        f"""DELETE FROM graph_relationships
                            WHERE tenant_id = ? AND {end} IN ({marks})""",
                        (tenant, *chunk),
                    )

    # -- relationships ---------------------------------------------------------------

    async def upsert_relationships(
        self, relationships: Sequence[Relationship], tenant_id: TenantId
    ) -> None:
        _check_tenant(relationships, tenant_id)
        tenant = str(tenant_id)
        with transaction(self._conn) as conn:
            conn.executemany(
                """INSERT INTO graph_relationships
                       (tenant_id, id, source_id, target_id, relationship_type, body)
                   VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT (tenant_id, id) DO UPDATE SET
                       source_id = excluded.source_id,
                       target_id = excluded.target_id,
                       relationship_type = excluded.relationship_type,
                       body = excluded.body""",
                [
                    (
                        tenant,
                        str(relationship.id),
                        str(relationship.source_id),
                        str(relationship.target_id),
                        relationship.relationship_type,
                        relationship.model_dump_json(),
                    )
                    for relationship in relationships
                ],
            )

    async def delete_relationships(
        self, relationship_ids: Sequence[RelationshipId], tenant_id: TenantId
    ) -> None:
        with transaction(self._conn) as conn:
            for chunk in _chunks([str(rid) for rid in dict.fromkeys(relationship_ids)]):
                conn.execute(
                    f"""DELETE FROM graph_relationships
                        WHERE tenant_id = ? AND id IN ({_marks(chunk)})""",
                    (str(tenant_id), *chunk),
                )

    async def relationships(self, entity_id: EntityId, tenant_id: TenantId) -> list[Relationship]:
        canonical = str(self._resolved(entity_id, tenant_id))
        # Two index lookups (source, target) rather than one OR, which SQLite may scan.
        rows = self._conn.execute(
            """SELECT body FROM graph_relationships WHERE tenant_id = ? AND source_id = ?
               UNION
               SELECT body FROM graph_relationships WHERE tenant_id = ? AND target_id = ?""",
            (str(tenant_id), canonical, str(tenant_id), canonical),
        ).fetchall()
        found = [Relationship.model_validate_json(body) for (body,) in rows]
        return sorted(found, key=lambda relationship: str(relationship.id))

    async def relationships_many(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Relationship]:
        tenant = str(tenant_id)
        asked = [str(entity_id) for entity_id in entity_ids]
        stored = self._alias_rows(tenant, asked, by="alias_id")
        canonical = list(dict.fromkeys(stored.get(raw, raw) for raw in asked))
        bodies: dict[str, str] = {}
        for chunk in _chunks(canonical):
            # One indexed lookup per end rather than one OR, which SQLite may scan.
            for end in ("source_id", "target_id"):
                bodies.update(
                    self._conn.execute(
                        f"""SELECT id, body FROM graph_relationships
                            WHERE tenant_id = ? AND {end} IN ({_marks(chunk)})""",
                        (tenant, *chunk),
                    ).fetchall()
                )
        return [Relationship.model_validate_json(bodies[rel_id]) for rel_id in sorted(bodies)]

    async def list_relationships(self, tenant_id: TenantId) -> list[Relationship]:
        return [
            Relationship.model_validate_json(body)
            for (body,) in self._conn.execute(
                "SELECT body FROM graph_relationships WHERE tenant_id = ? ORDER BY id",
                (str(tenant_id),),
            )
        ]

    async def neighbours(self, entity_id: EntityId, tenant_id: TenantId) -> list[Entity]:
        canonical = self._resolved(entity_id, tenant_id)
        other_ids = {
            relationship.target_id
            if relationship.source_id == canonical
            else relationship.source_id
            for relationship in await self.relationships(canonical, tenant_id)
        }
        found = await self.get_entities(list(other_ids), tenant_id)
        return sorted(found, key=lambda entity: str(entity.id))

    # -- aliases ---------------------------------------------------------------------

    async def set_alias(
        self, alias_id: EntityId, canonical_id: EntityId, tenant_id: TenantId
    ) -> None:
        tenant = str(tenant_id)
        with transaction(self._conn) as conn:
            target = self._resolved(canonical_id, tenant_id)
            if target == alias_id:
                raise ValueError(f"aliasing {alias_id} to itself would make a cycle")
            conn.execute(
                """INSERT INTO graph_aliases (tenant_id, alias_id, canonical_id) VALUES (?, ?, ?)
                   ON CONFLICT (tenant_id, alias_id) DO UPDATE
                   SET canonical_id = excluded.canonical_id""",
                (tenant, str(alias_id), str(target)),
            )
            # Keep chains one hop long: anything that pointed at the alias now points on.
            conn.execute(
                """UPDATE graph_aliases SET canonical_id = ?
                   WHERE tenant_id = ? AND canonical_id = ?""",
                (str(target), tenant, str(alias_id)),
            )

    async def set_aliases(
        self, aliases: Sequence[tuple[EntityId, EntityId]], tenant_id: TenantId
    ) -> None:
        # `final` maps each alias set here to its target, one hop long
        # (`graph.aliases`), so stored rows pointing at one of them are redirected
        # once at the end.
        tenant = str(tenant_id)
        pairs = [(str(a), str(c)) for a, c in aliases]
        stored = self._alias_rows(tenant, [c for _, c in pairs], by="alias_id")
        final = final_aliases(pairs, stored)
        with transaction(self._conn) as conn:
            conn.executemany(
                """INSERT INTO graph_aliases (tenant_id, alias_id, canonical_id) VALUES (?, ?, ?)
                   ON CONFLICT (tenant_id, alias_id) DO UPDATE
                   SET canonical_id = excluded.canonical_id""",
                [(tenant, alias, target) for alias, target in final.items()],
            )
            # No target is itself an alias set here, so these never touch the rows above.
            # Only rows found pointing at a new alias are updated: one indexed read per
            # chunk, where an update per alias probed the index once each and mostly
            # found nothing (people-50k: 44k aliases, none pointed at).
            pointing_at = self._alias_rows(tenant, list(final), by="canonical_id")
            conn.executemany(
                "UPDATE graph_aliases SET canonical_id = ? WHERE tenant_id = ? AND alias_id = ?",
                [(final[target], tenant, alias) for alias, target in pointing_at.items()],
            )

    def _alias_rows(
        self, tenant: str, ids: list[str], *, by: Literal["alias_id", "canonical_id"]
    ) -> dict[str, str]:
        """Stored alias -> canonical rows whose `by` column (`alias_id` or
        `canonical_id`) is one of `ids`."""
        found: dict[str, str] = {}
        for chunk in _chunks(list(dict.fromkeys(ids))):
            found.update(
                self._conn.execute(
                    f"""SELECT alias_id, canonical_id FROM graph_aliases
                        WHERE tenant_id = ? AND {by} IN ({_marks(chunk)})""",
                    (tenant, *chunk),
                ).fetchall()
            )
        return found

    async def remove_alias(self, alias_id: EntityId, tenant_id: TenantId) -> None:
        with transaction(self._conn) as conn:
            conn.execute(
                "DELETE FROM graph_aliases WHERE tenant_id = ? AND alias_id = ?",
                (str(tenant_id), str(alias_id)),
            )

    async def resolve(self, entity_id: EntityId, tenant_id: TenantId) -> EntityId:
        return self._resolved(entity_id, tenant_id)

    async def resolve_many(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> dict[EntityId, EntityId]:
        stored = self._alias_rows(
            str(tenant_id), [str(entity_id) for entity_id in entity_ids], by="alias_id"
        )
        return {
            entity_id: EntityId(UUID(stored[str(entity_id)]))
            if str(entity_id) in stored
            else entity_id
            for entity_id in entity_ids
        }

    async def delete_by_tenant(self, tenant_id: TenantId) -> None:
        with transaction(self._conn) as conn:
            for table in (
                "graph_entities",
                "graph_blocking_keys",
                "graph_aliases",
                "graph_relationships",
                "graph_lexicon_blocks",
                "graph_keys_pending",
            ):
                conn.execute(f"DELETE FROM {table} WHERE tenant_id = ?", (str(tenant_id),))


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))


def _chunks(values: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start : start + _CHUNK]


def _check_tenant(records: Sequence[Entity] | Sequence[Relationship], tenant_id: TenantId) -> None:
    """Refuse the whole call before writing anything: a partial write is the worse failure."""
    for record in records:
        if record.tenant_id != tenant_id:
            raise TenantMismatchError(
                f"record {record.id} belongs to tenant {record.tenant_id}, not {tenant_id}"
            )
