"""The HTTP API: FastAPI routes over `redstring.application`, one use case each.

- The tenant comes from the API key only (`Authorization: Bearer KEY` or
  `X-API-Key: KEY`), never from a path, a query or a body: a request cannot name
  another tenant. No key or an unknown key is 401.
- Another tenant's entity, merge or job is 404, exactly like one that does not
  exist, so ids do not leak what another tenant holds.
- Every error is `application/problem+json` (RFC 9457) with the typed error's name
  in `type` and its message in `detail`.
- Request bodies above `max_body_bytes` are refused with 413 before they are read
  whole (a `Content-Length` that says so, or a streamed body that grows past it).
- Store calls never run on the event loop: reads go to the service's reader
  threads, writes to its one writer thread; ingest and consolidation run as
  background jobs whose status resource reports progress.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import asdict
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, JsonValue
from starlette.exceptions import HTTPException as StarletteHTTPException

from redstring.application import keys, use_cases
from redstring.application.use_cases import ExportFormat, RecordMapping
from redstring.application.workspaces import make_llm
from redstring.domain.exceptions import (
    ConcurrencyError,
    InvalidInputError,
    LlmError,
    NotFoundError,
    RedstringError,
    WorkspaceError,
)
from redstring.domain.retrieval import RetrievalMode

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from redstring.application.service import Job, WorkspaceService
    from redstring.application.workspaces import Workspace
    from redstring.domain.ids import TenantId

#: Largest request body accepted: a batch of documents, not a corpus dump.
MAX_BODY_BYTES = 8 * 1024 * 1024
#: The explorer page and its vendored scripts (`scripts/build_explorer.py`).
STATIC = Path(__file__).parent / "static"
#: Longest accepted free-text query.
MAX_QUERY_CHARS = 1000
PROBLEM = "application/problem+json"


class Tenant(BaseModel):
    name: str
    id: str

    def tenant_id(self) -> TenantId:
        from uuid import UUID

        from redstring.domain.ids import TenantId

        return TenantId(UUID(self.id))


class DocumentIn(BaseModel):
    source_id: str = Field(min_length=1, max_length=500, description="Names the document.")
    text: str = Field(min_length=1)


class RecordsIn(BaseModel):
    source_id: str = Field(min_length=1, max_length=500)
    rows: list[dict[str, JsonValue]] = Field(min_length=1)
    name_field: str | None = None
    type_field: str | None = Field(default=None, description="Default 'type' unless entity_type.")
    entity_type: str | None = None
    id_field: str | None = None


class IngestIn(BaseModel):
    documents: list[DocumentIn] = Field(default_factory=list)
    records: list[RecordsIn] = Field(default_factory=list)
    llm: bool = Field(default=False, description="Extract with the configured LLM endpoint.")
    domain: str = "general"


class ConsolidateIn(BaseModel):
    entity_types: list[str] | None = None
    fields: dict[str, str] = Field(default_factory=dict, description="Property name -> kind.")


def problem(status: int, kind: str, detail: str, **extra: Any) -> JSONResponse:
    body = {
        "type": f"https://redstring.dev/problems/{kind}",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        **extra,
    }
    return JSONResponse(body, status_code=status, media_type=PROBLEM)


def status_of(exc: RedstringError) -> int:
    """The HTTP status of a typed error: the one mapping every route shares."""
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, InvalidInputError):
        return 422
    if isinstance(exc, ConcurrencyError):
        return 409
    if isinstance(exc, LlmError):
        return 502
    if isinstance(exc, WorkspaceError):
        return 503
    return 400


class BodyLimit:
    """ASGI middleware: 413 for a body over `limit` bytes, declared or streamed."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await problem(413, "too-large", self._detail())(scope, receive, send)
            return
        seen = 0
        exceeded = False

        async def counted() -> Message:
            nonlocal seen, exceeded
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                # The app turns this into its own error response; `sending` swaps
                # that for the 413 (a framework may catch any error from `receive`).
                exceeded = True
                raise _TooLargeError
            return message

        refused = problem(413, "too-large", self._detail())

        async def sending(message: Message) -> None:
            if not exceeded:
                await send(message)
            elif message["type"] == "http.response.start":
                await send(
                    {
                        "type": "http.response.start",
                        "status": 413,
                        "headers": refused.raw_headers,
                    }
                )
                await send({"type": "http.response.body", "body": refused.body})

        try:
            await self.app(scope, counted, sending)
        except _TooLargeError:
            await refused(scope, receive, send)

    def _detail(self) -> str:
        return f"request body over {self.limit} bytes"


class _TooLargeError(Exception):
    pass


async def tenant_of(
    request: Request,
    authorization: Annotated[str | None, Header()] = None,
    x_api_key: Annotated[str | None, Header()] = None,
) -> Tenant:
    """The caller's tenant, from its API key alone."""
    key = x_api_key
    if key is None and authorization is not None:
        scheme, _, token = authorization.partition(" ")
        key = token.strip() if scheme.lower() == "bearer" else None
    if not key:
        raise StarletteHTTPException(
            401, "an API key is required (Authorization: Bearer KEY)",
            headers={"WWW-Authenticate": "Bearer"},
        )  # fmt: skip
    service: WorkspaceService = request.app.state.service
    known_keys: dict[str, Tenant] = request.app.state.known_keys
    cached = known_keys.get(key)
    if cached is not None:
        return cached

    async def look_up(workspace: Workspace) -> Tenant | None:
        name = keys.tenant_for_key(workspace, key)
        return None if name is None else Tenant(name=name, id=str(workspace.tenant(name)))

    found = await service.read(look_up)
    if found is None:
        raise StarletteHTTPException(401, "unknown API key", headers={"WWW-Authenticate": "Bearer"})
    known_keys[key] = found
    return found


Caller = Annotated[Tenant, Depends(tenant_of)]


def create_app(service: WorkspaceService, *, max_body_bytes: int = MAX_BODY_BYTES) -> FastAPI:
    """The API over one served workspace."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await service.fill_vectors()
        yield
        await service.drain()
        service.close()

    api = FastAPI(
        lifespan=lifespan,
        title="redstring",
        summary="A tenant-scoped knowledge graph: ingest, consolidate, search.",
        version="1",
    )
    api.add_middleware(BodyLimit, limit=max_body_bytes)
    api.state.service = service
    #: key -> tenant, for keys already seen (a key maps to one tenant for good).
    api.state.known_keys = {}

    @api.exception_handler(RedstringError)
    async def typed_error(request: Request, exc: RedstringError) -> JSONResponse:
        return problem(status_of(exc), type(exc).__name__, str(exc))

    @api.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()]
        return problem(422, "InvalidRequest", "the request does not fit the API", errors=errors)

    @api.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        response = problem(exc.status_code, "http", str(exc.detail))
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    api.mount("/explorer/static", StaticFiles(directory=STATIC), name="explorer-static")

    @api.get("/explorer", tags=["service"], include_in_schema=False)
    async def explorer() -> FileResponse:
        """The graph explorer page (it asks for an API key; the page itself is public)."""
        return FileResponse(STATIC / "explorer.html")

    @api.get("/health", tags=["service"])
    async def health() -> dict[str, Any]:
        """The workspace answers a read; no key needed."""

        async def position(workspace: Workspace) -> int:
            return await workspace.log.last_position()

        return {"status": "ok", "log_position": await service.read(position)}

    @api.get("/v1/search", tags=["read"])
    async def search(
        caller: Caller,
        q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_CHARS)],
        k: Annotated[int, Query(ge=1, le=100)] = 10,
        mode: RetrievalMode = RetrievalMode.HYBRID,
        entity_type: Annotated[list[str] | None, Query(alias="type")] = None,
    ) -> dict[str, Any]:
        """Ranked entities with each channel's score (fused, semantic, lexical)."""
        tenant_id = caller.tenant_id()

        async def run(workspace: Workspace) -> dict[str, Any]:
            result = await use_cases.search(
                workspace, tenant_id, q, embeddings=service.embeddings, mode=mode, k=k,
                entity_types=entity_type,
            )  # fmt: skip
            return result.model_dump(mode="json")

        return await service.read(run)

    @api.get("/v1/entities/{entity}", tags=["read"])
    async def show(caller: Caller, entity: str) -> dict[str, Any]:
        """One entity (by id, aliases resolved, or exact name) and its relationships."""
        tenant_id = caller.tenant_id()

        async def run(workspace: Workspace) -> dict[str, Any]:
            view = await use_cases.show(workspace, tenant_id, entity)
            merges = await use_cases.merges_of(workspace, tenant_id, view.entity.id)
            return {
                **view.as_json(),
                "names": {str(k): v for k, v in view.names.items()},
                "merges": [asdict(merge) for merge in merges],
            }

        return await service.read(run)

    @api.get("/v1/entities/{entity}/neighbours", tags=["read"])
    async def neighbours(caller: Caller, entity: str) -> dict[str, Any]:
        """The entity and the entities one relationship away."""
        tenant_id = caller.tenant_id()

        async def run(workspace: Workspace) -> dict[str, Any]:
            found, near = await use_cases.neighbours(workspace, tenant_id, entity)
            return {
                "entity": found.model_dump(mode="json"),
                "neighbours": [e.model_dump(mode="json") for e in near],
            }

        return await service.read(run)

    @api.get("/v1/stats", tags=["read"])
    async def stats(caller: Caller) -> dict[str, Any]:
        tenant_id = caller.tenant_id()

        async def run(workspace: Workspace) -> dict[str, Any]:
            figures = await use_cases.stats(workspace, tenant_id, caller.name)
            figures.pop("tenants")  # other tenants' names are not this caller's business
            return figures

        return await service.read(run)

    @api.get("/v1/export", tags=["read"])
    async def export(caller: Caller, format: ExportFormat = ExportFormat.JSONL) -> Response:
        """The tenant's entities and relationships as JSON lines or GraphML."""
        tenant_id = caller.tenant_id()

        async def run(workspace: Workspace) -> bytes:
            return (await use_cases.export(workspace, tenant_id)).render(format)

        media = "application/x-ndjson" if format is ExportFormat.JSONL else "application/xml"
        return Response(await service.read(run), media_type=media)

    def accepted(job: Job) -> JSONResponse:
        return JSONResponse(
            job.as_json(), status_code=202, headers={"Location": f"/v1/jobs/{job.id}"}
        )

    @api.post("/v1/ingest", status_code=202, tags=["write"])
    async def ingest(caller: Caller, body: IngestIn) -> JSONResponse:
        """Queue documents (extracted) and record sets (mapped directly) as one job."""
        if not body.documents and not body.records:
            raise InvalidInputError("nothing to ingest: give documents or records")
        mappings = [
            RecordMapping(
                name_field=r.name_field,
                type_field=None if r.entity_type else (r.type_field or "type"),
                entity_type=r.entity_type,
                id_field=r.id_field,
            )
            for r in body.records
        ]
        provider = make_llm() if body.llm else None
        tenant_id = caller.tenant_id()
        total = len(body.documents) + len(body.records)

        async def run(workspace: Workspace, job: Job) -> Any:
            rows = []
            for done, (records, mapping) in enumerate(zip(body.records, mappings, strict=True)):
                job.progress(done, total, f"ingesting {records.source_id}")
                rows.append(
                    await use_cases.ingest_records(
                        records.rows, workspace, tenant_id, source_id=records.source_id,
                        mapping=mapping,
                    )
                )  # fmt: skip
            offset = len(rows)

            def progress(done: int, _total: int, stage: str) -> None:
                job.progress(offset + done, total, stage)

            rows += await use_cases.ingest_texts(
                [(d.source_id, d.text) for d in body.documents], workspace, tenant_id,
                provider=provider, domain=body.domain, embeddings=service.embeddings,
                progress=progress,
            )  # fmt: skip
            # A served workspace is searched next: its records get their vectors in
            # this write, so searches stay reads.
            job.progress(total, total, "embedding records")
            await use_cases.fill_vectors(workspace, tenant_id, service.embeddings)
            job.progress(total, total, "done")
            return use_cases.row_dicts(rows)

        return accepted(service.submit("ingest", caller.name, run))

    @api.post("/v1/consolidate", status_code=202, tags=["write"])
    async def consolidate(caller: Caller, body: ConsolidateIn | None = None) -> JSONResponse:
        """Queue a consolidation (duplicate entities merged, reversibly) as a job."""
        request = body or ConsolidateIn()
        tenant_id = caller.tenant_id()

        async def run(workspace: Workspace, job: Job) -> Any:
            job.progress(0, 1, "consolidating")
            report = await use_cases.consolidate(
                workspace, tenant_id, entity_types=request.entity_types,
                overrides=request.fields,
            )  # fmt: skip
            job.progress(1, 1, "done")
            return use_cases.report_dict(report)

        return accepted(service.submit("consolidate", caller.name, run))

    @api.get("/v1/jobs/{job_id}", tags=["write"])
    async def job_status(caller: Caller, job_id: str) -> dict[str, Any]:
        """A job's state, progress, and its result or typed error once finished."""
        return service.job(job_id, caller.name).as_json()

    @api.post("/v1/merges/{merge_id}/undo", tags=["write"])
    async def undo(caller: Caller, merge_id: str) -> dict[str, Any]:
        """Reverse one merge exactly (newer merges of the same entities first)."""
        use_cases.parse_merge_id(merge_id)
        tenant_id = caller.tenant_id()

        async def run(workspace: Workspace) -> str:
            return str(await use_cases.undo_merge(workspace, tenant_id, merge_id))

        return {"undone": await service.write(run)}

    return api


def serve(db: Path, *, host: str, port: int, readers: int) -> None:
    """Run the API on `host:port` until interrupted (uvicorn, one process)."""
    import uvicorn

    from redstring.application.service import WorkspaceService

    uvicorn.run(create_app(WorkspaceService(db, readers=readers)), host=host, port=port)
