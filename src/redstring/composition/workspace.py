"""The embedded workspace: event log, graph, vectors, chunks and projections in ONE SQLite file.

The file is marked as redstring's twice over: `PRAGMA application_id` (in the
SQLite header, so `file(1)`-style tools and a stray `open` of some other app's
database can tell at once) and a `redstring_meta` table holding the schema
version. Opening refuses, with a `WorkspaceError` that says why, a file that is
not SQLite, a SQLite file of another application, or one written by a newer
redstring -- guessing at any of those risks writing into data we do not
understand. Everything in the file is reachable from one connection, which is
what lets a projection commit store writes and its checkpoint together.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Self

from redstring.chunks.memory import InMemoryChunkStore
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.domain.exceptions import InvalidInputError, NotFoundError, WorkspaceError
from redstring.domain.ids import tenant_id_for
from redstring.eventlog.memory import InMemoryEventLog
from redstring.eventlog.sqlite import SqliteEventLog
from redstring.graph.memory import InMemoryGraphStore
from redstring.graph.sqlite import SqliteGraphStore
from redstring.projections.base import FreshEvents
from redstring.projections.checkpoints import InMemoryCheckpointStore, SqliteCheckpointStore
from redstring.projections.chunks import ChunkProjection
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import replay
from redstring.projections.vector import VectorProjection
from redstring.storage.sqlite import (
    DatabaseError,
    OperationalError,
    open_connection,
    read_transaction,
    transaction,
)
from redstring.vector.memory import InMemoryVectorStore
from redstring.vector.sqlite import SqliteVectorStore

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from types import TracebackType

    from redstring.domain.ids import TenantId
    from redstring.events.base import DomainEvent
    from redstring.ports.chunk_store import ChunkStore
    from redstring.ports.event_log import EventLog
    from redstring.ports.graph_store import GraphStore
    from redstring.ports.vector_store import VectorStore
    from redstring.projections.base import Projection
    from redstring.projections.checkpoints import CheckpointStore
    from redstring.storage.sqlite import Connection

#: Bumped whenever the file's tables change shape; `open` migrates older files and
#: refuses newer ones.
SCHEMA_VERSION = 1
#: "RSTR" in ASCII: the SQLite header field that says this file is redstring's.
APPLICATION_ID = 0x52535452
#: all-MiniLM-L6-v2, the default local embedding model.
DEFAULT_DIMENSION = 384
DEFAULT_PATH = "./redstring.db"


@dataclass
class Workspace:
    """Everything one embedded redstring needs, wired together.

    Ingestion appends events (`append`); readers see them after `catch_up()`.
    """

    log: EventLog
    graph: GraphStore
    vectors: VectorStore
    checkpoints: CheckpointStore
    graph_projection: GraphProjection
    vector_projection: VectorProjection
    chunks: ChunkStore
    chunk_projection: ChunkProjection
    path: Path | None = None
    _conn: Connection | None = field(default=None, repr=False)
    #: Settings of a memory workspace (a file keeps them in `redstring_meta`).
    _settings: dict[str, str] = field(default_factory=dict, repr=False)
    #: Events appended here and not yet folded by every projection (`FreshEvents`).
    _fresh: FreshEvents = field(default_factory=FreshEvents, repr=False)

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """Everything written inside commits together or not at all (one SQLite
        transaction, one sync to disk instead of one per append). A memory workspace
        has nothing to commit."""
        if self._conn is None:
            yield
            return
        try:
            with transaction(self._conn):
                yield
        except BaseException:
            # Rolled back: the versions of its appends will name other events.
            self._fresh.clear()
            raise

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one committed state (one read transaction), however many
        statements they take; a concurrent writer lands before or after, never between.
        A memory workspace is only ever read between awaits of one event loop."""
        if self._conn is None:
            yield
            return
        with read_transaction(self._conn):
            yield

    def setting(self, key: str) -> str | None:
        """A workspace-wide setting (e.g. the embedding model it was built with)."""
        if self._conn is None:
            return self._settings.get(key)
        row = self._conn.execute(
            "SELECT value FROM redstring_meta WHERE key = ?", (f"setting:{key}",)
        ).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        if self._conn is None:
            self._settings[key] = value
            return
        with transaction(self._conn):
            self._conn.execute(
                "INSERT INTO redstring_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (f"setting:{key}", value),
            )

    def tenant_names(self) -> list[str]:
        """Names registered with `register_tenant`, sorted."""
        if self._conn is None:
            return sorted(
                k.removeprefix("tenant:") for k in self._settings if k.startswith("tenant:")
            )
        rows = self._conn.execute(
            "SELECT key FROM redstring_meta WHERE key LIKE 'setting:tenant:%' ORDER BY key"
        ).fetchall()
        return [str(row[0]).removeprefix("setting:tenant:") for row in rows]

    def register_tenant(self, name: str) -> TenantId:
        """Give a human-readable tenant name its id (stable: `tenant_id_for`)."""
        if not name.strip():
            raise InvalidInputError("a tenant name must not be blank")
        _check_tenant_name(name)
        tenant = tenant_id_for(name)
        self.set_setting(f"tenant:{name}", str(tenant))
        return tenant

    def tenant(self, name: str) -> TenantId:
        """The id of a registered tenant; `NotFoundError` naming the known ones otherwise."""
        _check_tenant_name(name)
        if self.setting(f"tenant:{name}") is None:
            known = ", ".join(self.tenant_names()) or "none yet"
            raise NotFoundError(f"unknown tenant {name!r} (known: {known})")
        return tenant_id_for(name)

    @classmethod
    def open(
        cls,
        path: str | Path = DEFAULT_PATH,
        *,
        create: bool = True,
        dimension: int | None = None,
        embedding_model: str | None = None,
    ) -> Workspace:
        """Open (or, with `create`, make) the workspace file at `path`.

        `dimension` is the vector width; a new file defaults to
        `DEFAULT_DIMENSION` and an existing file keeps the one it was made with
        (a different explicit value is refused by the vector store).
        `embedding_model` restricts the vector projection to one model's events.
        """
        file = Path(path)
        if file.is_dir():
            raise WorkspaceError(f"{file} is a directory, not a redstring workspace file")
        if not file.exists() and not create:
            raise WorkspaceError(f"no redstring workspace at {file} (pass create=True to make one)")
        try:
            conn = open_connection(file)
        except DatabaseError as exc:
            raise WorkspaceError(
                f"{file} is not a redstring workspace: not a SQLite database ({exc})"
            ) from exc
        try:
            stored_dimension = _prepare(conn, file, create=create, dimension=dimension)
            graph = SqliteGraphStore(conn)
            vectors = SqliteVectorStore(conn, stored_dimension)
            log = SqliteEventLog(conn)
            checkpoints = SqliteCheckpointStore(conn)
            chunks = SqliteChunkStore(conn)
        except BaseException:
            conn.close()
            raise
        return cls._wire(log, graph, vectors, chunks, checkpoints, embedding_model, file, conn)

    @classmethod
    def memory(
        cls, *, dimension: int = DEFAULT_DIMENSION, embedding_model: str | None = None
    ) -> Workspace:
        """A workspace of in-memory adapters, for tests: same wiring, nothing on disk."""
        return cls._wire(
            InMemoryEventLog(),
            InMemoryGraphStore(),
            InMemoryVectorStore(dimension=dimension),
            InMemoryChunkStore(),
            InMemoryCheckpointStore(),
            embedding_model,
            None,
            None,
        )

    @classmethod
    def _wire(
        cls,
        log: EventLog,
        graph: GraphStore,
        vectors: VectorStore,
        chunks: ChunkStore,
        checkpoints: CheckpointStore,
        embedding_model: str | None,
        path: Path | None,
        conn: Connection | None,
    ) -> Workspace:
        fresh = FreshEvents()
        return cls(
            log=log,
            graph=graph,
            vectors=vectors,
            checkpoints=checkpoints,
            graph_projection=GraphProjection(graph, log, checkpoints, fresh=fresh),
            vector_projection=VectorProjection(
                vectors, log, checkpoints, model=embedding_model, fresh=fresh
            ),
            chunks=chunks,
            chunk_projection=ChunkProjection(chunks, log, checkpoints),
            path=path,
            _conn=conn,
            _fresh=fresh,
        )

    @property
    def projections(self) -> list[Projection]:
        return [self.graph_projection, self.vector_projection, self.chunk_projection]

    async def append(
        self, stream_id: str, events: Sequence[DomainEvent], *, expected_version: int
    ) -> int:
        """Append typed events of one tenant to `stream_id`; return the stream's new version."""
        tenants = {event.tenant_id for event in events}
        if len(tenants) > 1:
            raise InvalidInputError(f"one append must belong to one tenant, got {len(tenants)}")
        if not tenants:
            raise InvalidInputError("an append needs at least one event (it names the tenant)")
        version = await self.log.append(
            stream_id,
            [event.to_new_event() for event in events],
            tenant_id=tenants.pop(),
            expected_version=expected_version,
        )
        self._fresh.add(stream_id, expected_version + 1, events)
        return version

    async def catch_up(self) -> None:
        """Fold everything appended since the last catch-up into every store."""
        try:
            for projection in self.projections:
                await projection.catch_up()
        finally:
            self._fresh.clear()

    async def replay(self) -> None:
        """Rebuild every store from the log alone (no model calls)."""
        await replay(self.log, self.projections)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _check_tenant_name(name: str) -> None:
    """A name with a lone surrogate (from JSON escapes or undecodable argv bytes) has no
    UTF-8 form to key the tenant by or to store."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"tenant name {name!r} is not valid Unicode") from exc


def _prepare(conn: Connection, file: Path, *, create: bool, dimension: int | None) -> int:
    """Check the file is ours and current, initializing an empty one; return its dimension.

    Runs in one write transaction, so two processes creating the same new file
    cannot both initialize it.
    """
    with transaction(conn):
        application_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if application_id == 0 and tables == 0:
            if not create:
                raise WorkspaceError(f"{file} is an empty database, not a redstring workspace")
            width = DEFAULT_DIMENSION if dimension is None else dimension
            if width < 1:
                raise InvalidInputError(f"dimension must be positive, got {width}")
            conn.execute("CREATE TABLE redstring_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.executemany(
                "INSERT INTO redstring_meta (key, value) VALUES (?, ?)",
                [
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("vector_dimension", str(width)),
                    ("created_at", datetime.now(UTC).isoformat()),
                ],
            )
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            return width
        if application_id != APPLICATION_ID:
            raise WorkspaceError(
                f"{file} is a SQLite database of another application "
                f"(application_id {application_id:#x}), not a redstring workspace"
            )
        try:
            meta = dict(conn.execute("SELECT key, value FROM redstring_meta").fetchall())
        except OperationalError as exc:
            raise WorkspaceError(f"{file} is marked as redstring's but has no metadata") from exc
        version = int(meta.get("schema_version", "0"))
        if version > SCHEMA_VERSION:
            raise WorkspaceError(
                f"{file} was written by a newer redstring (workspace schema {version}; this "
                f"version reads up to {SCHEMA_VERSION}); upgrade redstring to open it"
            )
        if version < 1 or "vector_dimension" not in meta:
            raise WorkspaceError(f"{file} has incomplete redstring metadata: {sorted(meta)}")
        stored = int(meta["vector_dimension"])
        return stored if dimension is None else dimension
