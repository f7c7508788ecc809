"""A served workspace with two tenants, each with an API key, on the fake embedder."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest

from redstring.application.keys import create_key
from redstring.application.service import WorkspaceService
from redstring.application.workspaces import Embedder, create_workspace, open_workspace
from redstring.server.app import create_app

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator
    from pathlib import Path

#: The offline extractor reads one relationship here: Charles Babbage BORN_IN London.
DOC = "Ada Lovelace worked with Charles Babbage in London. Charles Babbage was born in London.\n"
PEOPLE = [
    {"id": "1", "name": "Ada Lovelace", "type": "Person", "born": "1815"},
    {"id": "2", "name": "Ada Lovelace", "type": "Person", "born": "1815"},
    {"id": "3", "name": "Grace Hopper", "type": "Person", "born": "1906"},
]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "served.db"
    create_workspace(path, Embedder.FAKE, "acme")
    return path


@pytest.fixture
def api_keys(db: Path) -> dict[str, str]:
    with open_workspace(db) as workspace:
        return {tenant: create_key(workspace, tenant) for tenant in ("acme", "globex")}


@pytest.fixture
def service(db: Path, api_keys: dict[str, str]) -> Iterator[WorkspaceService]:
    served = WorkspaceService(db, readers=2)
    yield served
    served.close()


@pytest.fixture
async def client(service: WorkspaceService) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(service, max_body_bytes=64 * 1024)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http
    await service.drain()


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
