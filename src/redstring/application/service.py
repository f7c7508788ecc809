"""One workspace file served to concurrent callers without blocking their event loop.

The SQLite adapters make synchronous calls inside `async def`: right for the CLI
(one connection, one caller), wrong for a server whose event loop would stall on
every query. A `WorkspaceService` therefore runs each use case on a worker thread
with that thread's own connection:

- **one writer**: every write (ingest, consolidate, undo, key creation) runs on a
  single thread, in arrival order. SQLite allows one writer per file anyway; one
  thread makes it a queue instead of `database is locked` retries, and the
  projections' in-process state stays owned by one connection.
- **concurrent readers**: a pool of threads, each with its own connection (WAL lets
  readers run beside the writer). Each read use case runs inside one read
  transaction (`Workspace.snapshot`), so a read of several statements sees one
  committed state.

A worker thread drives the use case's coroutine with its own short event loop
(`asyncio.run`); the caller's loop only awaits the thread's future. Connections are
made by the thread that uses them (SQLite's thread check) and closed when their
thread exits.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

from redstring.application import use_cases
from redstring.application.workspaces import open_workspace, workspace_embedder
from redstring.domain.exceptions import NotFoundError, RedstringError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from pathlib import Path

    from redstring.application.workspaces import Workspace
    from redstring.domain.ids import TenantId
    from redstring.ports.embedding import EmbeddingProvider

T = TypeVar("T")

#: Reader threads per served workspace: enough to overlap reads with the writer and
#: with each other on a small machine; each holds one connection and its caches.
DEFAULT_READERS = 4
#: Finished jobs kept for their status resource; the oldest go first.
MAX_FINISHED_JOBS = 1000


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


@dataclass
class Job:
    """A write running in the background (an ingest, a consolidation): its status
    resource. `done`/`total` count the job's own units (documents for an ingest)."""

    id: str
    kind: str
    tenant: str
    state: JobState = JobState.QUEUED
    done: int = 0
    total: int = 0
    stage: str = ""
    result: Any = None
    error: str | None = None
    error_type: str | None = None
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    finished_at: datetime | None = None

    def progress(self, done: int, total: int, stage: str) -> None:
        self.done, self.total, self.stage = done, total, stage

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "state": self.state.value,
            "progress": {"done": self.done, "total": self.total, "stage": self.stage},
            "result": self.result,
            "error": self.error,
            "error_type": self.error_type,
            "created_at": self.created_at.isoformat(),
            "finished_at": None if self.finished_at is None else self.finished_at.isoformat(),
        }


class WorkspaceService:
    """A workspace file opened for a server: one writer thread, `readers` reader threads."""

    def __init__(self, db: Path, *, readers: int = DEFAULT_READERS) -> None:
        if readers < 1:
            raise ValueError(f"readers must be at least 1, got {readers}")
        self.db = db
        # Opened once here: a missing or foreign file fails at start, not per request,
        # and the embedding model is loaded once for every thread (its session is
        # thread-safe), not once per call.
        with open_workspace(db) as workspace:
            self.embeddings: EmbeddingProvider | None = workspace_embedder(workspace)
        self._local = threading.local()
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="redstring-writer")
        self._readers = ThreadPoolExecutor(readers, thread_name_prefix="redstring-reader")
        self._jobs: dict[str, Job] = {}
        self._background: set[asyncio.Task[None]] = set()

    def _workspace(self) -> Workspace:
        """This worker thread's own connection to the file."""
        workspace: Workspace | None = getattr(self._local, "workspace", None)
        if workspace is None:
            workspace = open_workspace(self.db)
            self._local.workspace = workspace
        return workspace

    def _read_here(self, use: Callable[[Workspace], Awaitable[T]]) -> T:
        workspace = self._workspace()
        with workspace.snapshot():
            return asyncio.run(_awaited(use(workspace)))

    def _write_here(self, use: Callable[[Workspace], Awaitable[T]]) -> T:
        workspace = self._workspace()

        async def written() -> T:
            try:
                return await use(workspace)
            finally:
                # Readers search inside a snapshot and cannot file the graph's keys
                # themselves; a write that failed half-way may have queued some too.
                await workspace.settle_keys()

        return asyncio.run(written())

    async def read(self, use: Callable[[Workspace], Awaitable[T]]) -> T:
        """Run a read-only use case on a reader thread, inside one read transaction."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._readers, self._read_here, use)

    async def write(self, use: Callable[[Workspace], Awaitable[T]]) -> T:
        """Run a use case that writes on the writer thread, after the writes before it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._writer, self._write_here, use)

    async def fill_vectors(self) -> int:
        """Embed every tenant's live entities that have no vector yet (records
        ingested by the CLI are embedded by their first search), before serving:
        searches run on reader threads and never write. A write even without a model:
        the writer then files the keys the CLI left to the first read (ADR 0019)."""
        embeddings = self.embeddings

        async def fill(workspace: Workspace) -> int:
            done = 0
            for name in workspace.tenant_names() if embeddings is not None else []:
                done += await use_cases.fill_vectors(workspace, workspace.tenant(name), embeddings)
            return done

        return await self.write(fill)

    async def tenant(self, name: str) -> TenantId:
        """The id of a registered tenant (`NotFoundError` otherwise)."""

        async def find(workspace: Workspace) -> TenantId:
            return workspace.tenant(name)

        return await self.read(find)

    # -- background jobs --------------------------------------------------------------

    def submit(
        self,
        kind: str,
        tenant: str,
        use: Callable[[Workspace, Job], Awaitable[Any]],
    ) -> Job:
        """Queue a write as a job; its status is `job(id, tenant)` until it is evicted.

        The job's coroutine gets the job to report progress on; what it returns (JSON
        data) becomes the job's result, a `RedstringError` its typed error.
        """
        job = Job(id=str(uuid.uuid4()), kind=kind, tenant=tenant)
        self._jobs[job.id] = job
        self._evict()

        async def run() -> None:
            job.state = JobState.RUNNING

            async def with_job(workspace: Workspace) -> Any:
                return await use(workspace, job)

            try:
                job.result = await self.write(with_job)
                job.state = JobState.SUCCEEDED
            except RedstringError as exc:
                job.error, job.error_type = str(exc), type(exc).__name__
                job.state = JobState.FAILED
            except Exception as exc:  # a job must end in a state, whatever broke
                job.error, job.error_type = f"internal error: {exc}", type(exc).__name__
                job.state = JobState.FAILED
            finally:
                job.finished_at = datetime.now(UTC)

        task = asyncio.get_running_loop().create_task(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return job

    def job(self, job_id: str, tenant: str) -> Job:
        """A job of `tenant`; another tenant's job is not found, like an unknown one."""
        job = self._jobs.get(job_id)
        if job is None or job.tenant != tenant:
            raise NotFoundError(f"no job {job_id} for this tenant")
        return job

    async def drain(self) -> None:
        """Wait for every queued job to finish (tests, shutdown)."""
        while self._background:
            await asyncio.gather(*list(self._background))

    def _evict(self) -> None:
        finished = sorted(
            (j for j in self._jobs.values() if j.finished_at is not None),
            key=lambda j: j.created_at,
        )
        for old in finished[: max(0, len(finished) - MAX_FINISHED_JOBS)]:
            del self._jobs[old.id]

    def close(self) -> None:
        """Stop the threads (after the work queued on them); their connections close
        with them."""
        self._writer.shutdown(wait=True)
        self._readers.shutdown(wait=True)


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable
