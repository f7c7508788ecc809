"""The MCP server end to end: the SDK's own stdio client spawns `redstring mcp`."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.service.conftest import DOC

if TYPE_CHECKING:
    from pathlib import Path


def _server(db: Path, tenant: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "redstring.cli", "mcp", "--db", str(db), "--tenant", tenant],
        env={**os.environ, "NO_COLOR": "1"},
    )


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


async def test_the_tools_ingest_search_show_and_walk_over_stdio(db: Path) -> None:
    async with (
        stdio_client(_server(db, "acme")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert tools == {"search", "show", "neighbours", "ingest_text"}
        row = _data(await session.call_tool("ingest_text", {"source_id": "notes.md", "text": DOC}))
        assert row["status"] == "ok"
        assert row["relationships"] == 1
        found = _data(await session.call_tool("search", {"query": "Charles Babbage", "k": 3}))
        top = found["matches"][0]
        assert top["entity"]["name"] == "Charles Babbage"
        assert top["lexical"] == 1.0
        shown = _data(await session.call_tool("show", {"entity": top["entity"]["id"]}))
        assert shown["relationships"][0]["relationship_type"] == "BORN_IN"
        near = _data(await session.call_tool("neighbours", {"entity": "Charles Babbage"}))
        assert [e["name"] for e in near["neighbours"]] == ["London"]
        missing = await session.call_tool("show", {"entity": "Nobody Atall"})
        assert missing.is_error
        assert "no entity named 'Nobody Atall'" in missing.content[0].text


async def test_a_session_reads_only_its_launch_tenant(db: Path) -> None:
    async with (
        stdio_client(_server(db, "acme")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        _data(await session.call_tool("ingest_text", {"source_id": "notes.md", "text": DOC}))
        found = _data(await session.call_tool("search", {"query": "Charles Babbage"}))
        entity_id = found["matches"][0]["entity"]["id"]
    from redstring.application.keys import create_key
    from redstring.application.workspaces import open_workspace

    with open_workspace(db) as workspace:
        create_key(workspace, "globex")  # registers the second tenant
    async with (
        stdio_client(_server(db, "globex")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        assert (
            _data(await session.call_tool("search", {"query": "Charles Babbage"}))["matches"] == []
        )
        other = await session.call_tool("show", {"entity": entity_id})
        assert other.is_error
        assert "no entity with id" in other.content[0].text
