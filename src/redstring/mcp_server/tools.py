"""MCP tools over `redstring.application`: search, show, neighbours, ingest_text.

An MCP client (an LLM agent's host) spawns `redstring mcp --db FILE --tenant NAME`
and talks JSON-RPC over its stdin/stdout. The tenant is fixed at launch: whoever
can start the process can open the workspace file, so a per-call tenant would
add no protection, and a tool argument must never widen what a session can read.
Store calls run on the `WorkspaceService` threads, as in the HTTP API, so a slow
ingest does not stall the protocol loop answering searches.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from redstring.application import use_cases
from redstring.application.service import WorkspaceService
from redstring.domain.exceptions import RedstringError
from redstring.domain.retrieval import RetrievalMode

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from pathlib import Path

    from redstring.application.workspaces import Workspace
    from redstring.domain.ids import TenantId

T = TypeVar("T")

#: Largest text `ingest_text` accepts, as the HTTP API's body limit does.
MAX_TEXT_CHARS = 4 * 1024 * 1024


def build_server(service: WorkspaceService, tenant: str) -> MCPServer:
    """The MCP server for one tenant of one served workspace."""
    server: MCPServer = MCPServer(
        name="redstring",
        instructions=(
            "A knowledge graph of entities and relationships. Use `search` to find "
            "entities by free text (ranked, with per-channel scores), `show` for one "
            "entity's properties, provenance and relationships, `neighbours` for what "
            "it is connected to, and `ingest_text` to add a document."
        ),
    )
    tenant_ids: dict[str, TenantId] = {}

    async def told(
        access: Callable[[Callable[[Workspace], Awaitable[T]]], Awaitable[T]],
        use: Callable[[Workspace], Awaitable[T]],
    ) -> T:
        """A typed error reaches the agent as the tool's error text (the SDK hides
        any other exception's text as a crash)."""
        try:
            return await access(use)
        except RedstringError as exc:
            raise ToolError(str(exc)) from exc

    async def tenant_id() -> TenantId:
        if tenant not in tenant_ids:
            try:
                tenant_ids[tenant] = await service.tenant(tenant)
            except RedstringError as exc:
                raise ToolError(str(exc)) from exc
        return tenant_ids[tenant]

    @server.tool()
    async def search(query: str, k: int = 10, mode: str = "hybrid") -> dict[str, Any]:
        """Entities ranked for a free-text query; each match has fused, semantic and
        lexical scores. mode: hybrid, semantic or lexical."""
        try:
            chosen = RetrievalMode(mode)
        except ValueError as exc:
            raise ToolError(f"mode {mode!r}: use hybrid, semantic or lexical") from exc
        owner = await tenant_id()

        async def run(workspace: Workspace) -> dict[str, Any]:
            result = await use_cases.search(
                workspace, owner, query, embeddings=service.embeddings, mode=chosen, k=k
            )
            return result.model_dump(mode="json")

        return await told(service.read, run)

    @server.tool()
    async def show(entity: str) -> dict[str, Any]:
        """One entity (by id or exact name) with its properties, provenance and
        relationships."""
        owner = await tenant_id()

        async def run(workspace: Workspace) -> dict[str, Any]:
            view = await use_cases.show(workspace, owner, entity)
            return {**view.as_json(), "names": {str(k): v for k, v in view.names.items()}}

        return await told(service.read, run)

    @server.tool()
    async def neighbours(entity: str) -> dict[str, Any]:
        """The entities one relationship away from an entity (by id or exact name)."""
        owner = await tenant_id()

        async def run(workspace: Workspace) -> dict[str, Any]:
            found, near = await use_cases.neighbours(workspace, owner, entity)
            return {
                "entity": found.model_dump(mode="json"),
                "neighbours": [e.model_dump(mode="json") for e in near],
            }

        return await told(service.read, run)

    @server.tool()
    async def ingest_text(source_id: str, text: str) -> dict[str, Any]:
        """Add one document: entities and relationships are extracted offline and
        become searchable when the call returns. The same text under the same
        source_id again changes nothing."""
        if len(text) > MAX_TEXT_CHARS:
            raise ToolError(f"text over {MAX_TEXT_CHARS} characters")
        owner = await tenant_id()

        async def run(workspace: Workspace) -> dict[str, Any]:
            [row] = await use_cases.ingest_texts(
                [(source_id, text)], workspace, owner, provider=None, domain="general",
                embeddings=service.embeddings,
            )  # fmt: skip
            return use_cases.row_dicts([row])[0]

        return await told(service.write, run)

    return server


def serve_stdio(db: Path, tenant: str) -> None:
    """Serve the tools over stdin/stdout until the client closes them."""
    service = WorkspaceService(db, readers=2)
    try:
        asyncio.run(service.fill_vectors())
        build_server(service, tenant).run("stdio")
    finally:
        service.close()
