"""PostgreSQL `GraphStore`: the scale-out workspace's graph, the SQLite store's tables on a server.

The same layout as `graph.sqlite` (queried columns are real columns, the rest is the
record's JSON body, so a read validates from JSON and never hands back a reference),
with two PostgreSQL choices:

- Ids and tenants are `uuid` columns. PostgreSQL orders `uuid` by its bytes, which
  is exactly the order of the canonical lowercase strings, so `ORDER BY id` is
  "ordered by id string" whatever the database's collation (a `text` column under
  a linguistic collation would ignore the hyphens).
- Id lists are bound as one array (`= ANY(%s)`), not chunked `IN (...)` lists.
- Rows are reached by `= ANY(array)` on an index key, never by a join or `IN
  (subquery)` the planner could turn inside out. The tenant wall's filter makes it
  estimate a tenant at a fraction of a percent of its rows, so reading a whole tenant
  and hashing it looks cheap: `get_entities` for ten ids took 120 ms at 100k entities
  that way, 0.4 ms by the array (`bench/postgres.py`).

Every call runs in `PgDatabase.transaction(tenant)`: one statement or many, it sees
one snapshot and commits whole, and the row-level-security wall limits it to the
tenant it names, on top of its own `WHERE tenant_id`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
from redstring.storage.postgres import create_tables

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from uuid import UUID

    from redstring.domain.ids import RelationshipId, TenantId
    from redstring.storage.postgres import Connection, PgDatabase

WALLED = (
    "graph_entities",
    "graph_blocking_keys",
    "graph_aliases",
    "graph_lexicon_blocks",
    "graph_relationships",
)

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS graph_entities (
        tenant_id uuid NOT NULL,
        id uuid NOT NULL,
        entity_type text NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (tenant_id, id)
    )""",
    "CREATE INDEX IF NOT EXISTS graph_entities_type ON graph_entities (tenant_id, entity_type)",
    """CREATE TABLE IF NOT EXISTS graph_blocking_keys (
        tenant_id uuid NOT NULL,
        key text NOT NULL,
        entity_id uuid NOT NULL,
        PRIMARY KEY (tenant_id, key, entity_id)
    )""",
    """CREATE INDEX IF NOT EXISTS graph_blocking_keys_entity
        ON graph_blocking_keys (tenant_id, entity_id)""",
    """CREATE TABLE IF NOT EXISTS graph_aliases (
        tenant_id uuid NOT NULL,
        alias_id uuid NOT NULL,
        canonical_id uuid NOT NULL,
        PRIMARY KEY (tenant_id, alias_id)
    )""",
    "CREATE INDEX IF NOT EXISTS graph_aliases_canonical ON graph_aliases (tenant_id, canonical_id)",
    # The lexical channel's blocks, one row per (key, entity) with its type and names,
    # so a block is screened without parsing one entity (see graph.sqlite).
    """CREATE TABLE IF NOT EXISTS graph_lexicon_blocks (
        tenant_id uuid NOT NULL,
        key text NOT NULL,
        entity_id uuid NOT NULL,
        entity_type text NOT NULL,
        names text NOT NULL,
        PRIMARY KEY (tenant_id, key, entity_id)
    )""",
    """CREATE INDEX IF NOT EXISTS graph_lexicon_blocks_entity
        ON graph_lexicon_blocks (tenant_id, entity_id)""",
    """CREATE TABLE IF NOT EXISTS graph_relationships (
        tenant_id uuid NOT NULL,
        id uuid NOT NULL,
        source_id uuid NOT NULL,
        target_id uuid NOT NULL,
        relationship_type text NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (tenant_id, id)
    )""",
    """CREATE INDEX IF NOT EXISTS graph_relationships_source
        ON graph_relationships (tenant_id, source_id)""",
    """CREATE INDEX IF NOT EXISTS graph_relationships_target
        ON graph_relationships (tenant_id, target_id)""",
)


class PostgresGraphStore:
    """See `redstring.ports.GraphStore` for the contract and the module docstring for how."""

    def __init__(self, db: PgDatabase) -> None:
        """Use `PostgresGraphStore.create`, which makes the tables first."""
        self._db = db

    @classmethod
    async def create(cls, db: PgDatabase) -> PostgresGraphStore:
        await create_tables(db, SCHEMA, WALLED)
        return cls(db)

    # -- entities ------------------------------------------------------------------

    async def upsert_entities(self, entities: Sequence[Entity], tenant_id: TenantId) -> None:
        _check_tenant(entities, tenant_id)
        if not entities:
            return
        latest = {entity.id: entity for entity in entities}
        ids = list(latest)
        async with self._db.transaction(tenant_id) as conn, conn.cursor() as cur:
            for table in ("graph_blocking_keys", "graph_lexicon_blocks"):
                await cur.execute(
                    f"DELETE FROM {table} WHERE tenant_id = %s AND entity_id = ANY(%s)",
                    (tenant_id, ids),
                )
            await cur.executemany(
                """INSERT INTO graph_entities (tenant_id, id, entity_type, body)
                   VALUES (%s, %s, %s, %s)
                   ON CONFLICT (tenant_id, id) DO UPDATE
                   SET entity_type = excluded.entity_type, body = excluded.body""",
                [(tenant_id, e.id, e.entity_type, e.model_dump_json()) for e in latest.values()],
            )
            keys = [(tenant_id, key, e.id) for e in latest.values() for key in e.blocking_keys]
            if keys:
                await cur.executemany(
                    """INSERT INTO graph_blocking_keys (tenant_id, key, entity_id)
                       VALUES (%s, %s, %s) ON CONFLICT DO NOTHING""",
                    keys,
                )
            blocks = [
                (tenant_id, key, e.id, e.entity_type, NAME_SEPARATOR.join(candidate_names(e)))
                for e in latest.values()
                for key in lexicon_keys(e)
            ]
            if blocks:
                await cur.executemany(
                    """INSERT INTO graph_lexicon_blocks
                       (tenant_id, key, entity_id, entity_type, names)
                       VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING""",
                    blocks,
                )

    async def get_entity(self, entity_id: EntityId, tenant_id: TenantId) -> Entity | None:
        async with self._db.read(tenant_id) as conn:
            row = await _one(
                conn,
                """SELECT body FROM graph_entities WHERE tenant_id = %s AND id = coalesce(
                       (SELECT canonical_id FROM graph_aliases
                        WHERE tenant_id = %s AND alias_id = %s), %s)""",
                (tenant_id, tenant_id, entity_id, entity_id),
            )
        return None if row is None else Entity.model_validate_json(row[0])

    async def get_entities(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Entity]:
        if not entity_ids:
            return []
        async with self._db.read(tenant_id) as conn:
            rows = await _all(
                conn,
                """SELECT body FROM graph_entities
                   WHERE tenant_id = %(tenant)s AND id = ANY(ARRAY(
                       SELECT coalesce(a.canonical_id, asked.id)
                       FROM unnest(%(ids)s::uuid[]) AS asked(id)
                       LEFT JOIN graph_aliases AS a
                         ON a.tenant_id = %(tenant)s AND a.alias_id = asked.id
                         AND a.alias_id = ANY(%(ids)s)))
                   ORDER BY id""",
                {"tenant": tenant_id, "ids": list(entity_ids)},
            )
        return [Entity.model_validate_json(body) for (body,) in rows]

    async def find_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId
    ) -> dict[str, list[Entity]]:
        result: dict[str, list[Entity]] = {key: [] for key in keys}
        if not result:
            return result
        async with self._db.read(tenant_id) as conn:
            rows = await _all(
                conn,
                """SELECT k.key, e.body
                   FROM graph_blocking_keys AS k
                   JOIN graph_entities AS e ON e.tenant_id = k.tenant_id AND e.id = k.entity_id
                   WHERE k.tenant_id = %s AND k.key = ANY(%s)
                   ORDER BY k.key, e.id""",
                (tenant_id, list(result)),
            )
        for key, body in rows:
            result[key].append(Entity.model_validate_json(body))
        return result

    async def lexical_candidates(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int
    ) -> list[LexicalCandidate]:
        if limit < 1 or not keys:
            return []
        unique = list(dict.fromkeys(keys))
        select = "SELECT entity_id::text, entity_type, names FROM graph_lexicon_blocks"
        async with self._db.read(tenant_id) as conn:
            sizes = await _block_sizes(conn, tenant_id, unique, limit + 1)
            if sizes and all(size > limit for size in sizes.values()):
                # Every block overflows: only now is the rarest one worth counting whole.
                sizes = await _block_sizes(conn, tenant_id, unique, None)
            chosen = choose_blocks(sizes, limit)
            if chosen.whole:
                rows = await _all(
                    conn,
                    """SELECT DISTINCT ON (entity_id) entity_id::text, entity_type, names
                        FROM graph_lexicon_blocks WHERE tenant_id = %s AND key = ANY(%s)
                        ORDER BY entity_id""",
                    (tenant_id, chosen.whole),
                )
            elif chosen.partial is not None:
                rows = await _all(
                    conn,
                    f"{select} WHERE tenant_id = %s AND key = %s ORDER BY entity_id LIMIT %s",
                    (tenant_id, chosen.partial, limit),
                )
            else:
                return []
        return list(map(LexicalCandidate._make, rows))

    async def list_entities(
        self, tenant_id: TenantId, *, entity_types: Sequence[str] | None = None
    ) -> list[Entity]:
        async with self._db.read(tenant_id) as conn:
            if entity_types is None:
                rows = await _all(
                    conn,
                    "SELECT body FROM graph_entities WHERE tenant_id = %s ORDER BY id",
                    (tenant_id,),
                )
            else:
                wanted = [t for t in dict.fromkeys(entity_types) if isinstance(t, str)]
                if not wanted:
                    return []
                rows = await _all(
                    conn,
                    """SELECT body FROM graph_entities
                       WHERE tenant_id = %s AND entity_type = ANY(%s) ORDER BY id""",
                    (tenant_id, wanted),
                )
        return [Entity.model_validate_json(body) for (body,) in rows]

    async def count_entities(self, tenant_id: TenantId) -> int:
        async with self._db.read(tenant_id) as conn:
            row = await _one(
                conn, "SELECT count(*) FROM graph_entities WHERE tenant_id = %s", (tenant_id,)
            )
        return 0 if row is None else int(row[0])

    async def delete_entities(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return
        async with self._db.transaction(tenant_id) as conn:
            await conn.execute(
                "DELETE FROM graph_entities WHERE tenant_id = %s AND id = ANY(%s)",
                (tenant_id, ids),
            )
            for table in ("graph_blocking_keys", "graph_lexicon_blocks"):
                await conn.execute(
                    f"DELETE FROM {table} WHERE tenant_id = %s AND entity_id = ANY(%s)",
                    (tenant_id, ids),
                )
            await conn.execute(
                """DELETE FROM graph_relationships WHERE tenant_id = %s
                   AND (source_id = ANY(%s) OR target_id = ANY(%s))""",
                (tenant_id, ids, ids),
            )

    # -- relationships ---------------------------------------------------------------

    async def upsert_relationships(
        self, relationships: Sequence[Relationship], tenant_id: TenantId
    ) -> None:
        _check_tenant(relationships, tenant_id)
        if not relationships:
            return
        async with self._db.transaction(tenant_id) as conn, conn.cursor() as cur:
            await cur.executemany(
                """INSERT INTO graph_relationships
                       (tenant_id, id, source_id, target_id, relationship_type, body)
                   VALUES (%s, %s, %s, %s, %s, %s)
                   ON CONFLICT (tenant_id, id) DO UPDATE SET
                       source_id = excluded.source_id,
                       target_id = excluded.target_id,
                       relationship_type = excluded.relationship_type,
                       body = excluded.body""",
                [
                    (
                        tenant_id,
                        r.id,
                        r.source_id,
                        r.target_id,
                        r.relationship_type,
                        r.model_dump_json(),
                    )
                    for r in relationships
                ],
            )

    async def delete_relationships(
        self, relationship_ids: Sequence[RelationshipId], tenant_id: TenantId
    ) -> None:
        if not relationship_ids:
            return
        async with self._db.transaction(tenant_id) as conn:
            await conn.execute(
                "DELETE FROM graph_relationships WHERE tenant_id = %s AND id = ANY(%s)",
                (tenant_id, list(relationship_ids)),
            )

    async def relationships(self, entity_id: EntityId, tenant_id: TenantId) -> list[Relationship]:
        async with self._db.read(tenant_id) as conn:
            canonical = await _resolved(conn, entity_id, tenant_id)
            rows = await _all(
                conn,
                """SELECT body FROM graph_relationships
                   WHERE tenant_id = %s AND (source_id = %s OR target_id = %s) ORDER BY id""",
                (tenant_id, canonical, canonical),
            )
        return [Relationship.model_validate_json(body) for (body,) in rows]

    async def relationships_many(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Relationship]:
        if not entity_ids:
            return []
        asked = list(dict.fromkeys(entity_ids))
        async with self._db.read(tenant_id) as conn:
            stored: dict[UUID, UUID] = dict(
                await _all(
                    conn,
                    """SELECT alias_id, canonical_id FROM graph_aliases
                       WHERE tenant_id = %s AND alias_id = ANY(%s)""",
                    (tenant_id, asked),
                )
            )
            canonical = list(dict.fromkeys(stored.get(entity_id, entity_id) for entity_id in asked))
            rows = await _all(
                conn,
                """SELECT body FROM graph_relationships
                   WHERE tenant_id = %s AND (source_id = ANY(%s) OR target_id = ANY(%s))
                   ORDER BY id""",
                (tenant_id, canonical, canonical),
            )
        return [Relationship.model_validate_json(body) for (body,) in rows]

    async def list_relationships(self, tenant_id: TenantId) -> list[Relationship]:
        async with self._db.read(tenant_id) as conn:
            rows = await _all(
                conn,
                "SELECT body FROM graph_relationships WHERE tenant_id = %s ORDER BY id",
                (tenant_id,),
            )
        return [Relationship.model_validate_json(body) for (body,) in rows]

    async def neighbours(self, entity_id: EntityId, tenant_id: TenantId) -> list[Entity]:
        # One transaction: the relationships and the entities they reach are one snapshot.
        async with self._db.read(tenant_id) as conn:
            canonical = await _resolved(conn, entity_id, tenant_id)
            rows = await _all(
                conn,
                """SELECT body FROM graph_entities WHERE tenant_id = %s AND id = ANY(ARRAY(
                       SELECT CASE WHEN r.source_id = %s THEN r.target_id ELSE r.source_id END
                       FROM graph_relationships AS r
                       WHERE r.tenant_id = %s AND (r.source_id = %s OR r.target_id = %s)))
                   ORDER BY id""",
                (tenant_id, canonical, tenant_id, canonical, canonical),
            )
        return [Entity.model_validate_json(body) for (body,) in rows]

    # -- aliases ---------------------------------------------------------------------

    async def set_alias(
        self, alias_id: EntityId, canonical_id: EntityId, tenant_id: TenantId
    ) -> None:
        await self.set_aliases([(alias_id, canonical_id)], tenant_id)

    async def set_aliases(
        self, aliases: Sequence[tuple[EntityId, EntityId]], tenant_id: TenantId
    ) -> None:
        if not aliases:
            return
        async with self._db.transaction(tenant_id) as conn:
            # `set_alias` one pair at a time, computed in memory (`graph.aliases`):
            # `final` keeps every alias set here one hop from its target.
            stored: dict[UUID, UUID] = dict(
                await _all(
                    conn,
                    """SELECT alias_id, canonical_id FROM graph_aliases
                       WHERE tenant_id = %s AND alias_id = ANY(%s)""",
                    (tenant_id, list(dict.fromkeys(c for _, c in aliases))),
                )
            )
            final = final_aliases(aliases, stored)
            async with conn.cursor() as cur:
                await cur.executemany(
                    """INSERT INTO graph_aliases (tenant_id, alias_id, canonical_id)
                       VALUES (%s, %s, %s)
                       ON CONFLICT (tenant_id, alias_id) DO UPDATE
                       SET canonical_id = excluded.canonical_id""",
                    [(tenant_id, alias, target) for alias, target in final.items()],
                )
                # No target is itself an alias set here, so these never touch the rows above.
                await cur.executemany(
                    """UPDATE graph_aliases SET canonical_id = %s
                       WHERE tenant_id = %s AND canonical_id = %s""",
                    [(target, tenant_id, alias) for alias, target in final.items()],
                )

    async def remove_alias(self, alias_id: EntityId, tenant_id: TenantId) -> None:
        async with self._db.transaction(tenant_id) as conn:
            await conn.execute(
                "DELETE FROM graph_aliases WHERE tenant_id = %s AND alias_id = %s",
                (tenant_id, alias_id),
            )

    async def resolve(self, entity_id: EntityId, tenant_id: TenantId) -> EntityId:
        async with self._db.read(tenant_id) as conn:
            return await _resolved(conn, entity_id, tenant_id)

    async def resolve_many(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> dict[EntityId, EntityId]:
        if not entity_ids:
            return {}
        async with self._db.read(tenant_id) as conn:
            stored: dict[UUID, UUID] = dict(
                await _all(
                    conn,
                    """SELECT alias_id, canonical_id FROM graph_aliases
                       WHERE tenant_id = %s AND alias_id = ANY(%s)""",
                    (tenant_id, list(dict.fromkeys(entity_ids))),
                )
            )
        return {
            entity_id: EntityId(stored[entity_id]) if entity_id in stored else entity_id
            for entity_id in entity_ids
        }

    async def delete_by_tenant(self, tenant_id: TenantId) -> None:
        async with self._db.transaction(tenant_id) as conn:
            for table in WALLED:
                await conn.execute(f"DELETE FROM {table} WHERE tenant_id = %s", (tenant_id,))


async def _resolved(conn: Connection, entity_id: EntityId, tenant_id: TenantId) -> EntityId:
    row = await _one(
        conn,
        "SELECT canonical_id FROM graph_aliases WHERE tenant_id = %s AND alias_id = %s",
        (tenant_id, entity_id),
    )
    return entity_id if row is None else EntityId(row[0])


async def _block_sizes(
    conn: Connection, tenant_id: TenantId, keys: list[str], cap: int | None
) -> dict[str, int]:
    """Rows filed under each of `keys`, counted up to `cap` only (see graph.sqlite)."""
    rows = await _all(
        conn,
        """SELECT k.key, (SELECT count(*) FROM (
               SELECT 1 FROM graph_lexicon_blocks AS b
               WHERE b.tenant_id = %s AND b.key = k.key LIMIT %s) AS capped)
           FROM unnest(%s::text[]) AS k(key)""",
        (tenant_id, cap, keys),
    )
    return {str(key): int(size) for key, size in rows}


async def _one(conn: Connection, query: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    return await (await conn.execute(query, params)).fetchone()


async def _all(
    conn: Connection, query: str, params: Sequence[Any] | Mapping[str, Any]
) -> list[tuple[Any, ...]]:
    return await (await conn.execute(query, params)).fetchall()


def _check_tenant(records: Sequence[Entity] | Sequence[Relationship], tenant_id: TenantId) -> None:
    """Refuse the whole call before writing anything: a partial write is the worse failure."""
    for record in records:
        if record.tenant_id != tenant_id:
            raise TenantMismatchError(
                f"record {record.id} belongs to tenant {record.tenant_id}, not {tenant_id}"
            )
