"""The HTTP API against the real app (httpx over ASGI) and once over a real uvicorn."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import httpx

from redstring.application.keys import KEY_PREFIX
from tests.service.conftest import DOC, PEOPLE, auth

if TYPE_CHECKING:
    from pathlib import Path

    from redstring.application.service import WorkspaceService

PROBLEM = "application/problem+json"


async def finished(client: httpx.AsyncClient, service: WorkspaceService, response: httpx.Response,
                   key: str) -> dict[str, Any]:  # fmt: skip
    assert response.status_code == 202, response.text
    location = response.headers["location"]
    await service.drain()
    status = await client.get(location, headers=auth(key))
    assert status.status_code == 200, status.text
    job: dict[str, Any] = status.json()
    return job


async def ingest_corpus(client: httpx.AsyncClient, service: WorkspaceService, key: str) -> Any:
    body = {
        "documents": [{"source_id": "notes.md", "text": DOC}],
        "records": [{"source_id": "people.csv", "rows": PEOPLE, "id_field": "id"}],
    }
    job = await finished(client, service, await client.post("/v1/ingest", json=body,
                                                            headers=auth(key)), key)  # fmt: skip
    assert job["state"] == "succeeded", job
    return job


async def test_a_request_without_a_key_is_401_problem_json(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/search", params={"q": "Ada"})
    assert response.status_code == 401
    assert response.headers["content-type"] == PROBLEM
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["status"] == 401


async def test_an_unknown_key_is_401(client: httpx.AsyncClient) -> None:
    response = await client.get(
        "/v1/search", params={"q": "Ada"}, headers=auth(KEY_PREFIX + "forged")
    )
    assert response.status_code == 401
    assert response.json()["detail"] == "unknown API key"


async def test_ingest_is_a_job_with_progress_then_search_ranks_with_channel_scores(
    client: httpx.AsyncClient, service: WorkspaceService, api_keys: dict[str, str]
) -> None:
    key = api_keys["acme"]
    job = await ingest_corpus(client, service, key)
    assert job["kind"] == "ingest"
    assert job["progress"]["done"] == job["progress"]["total"] == 2
    assert {row["file"] for row in job["result"]} == {"notes.md", "people.csv"}
    found = await client.get("/v1/search", params={"q": "Ada Lovelace", "k": 3}, headers=auth(key))
    assert found.status_code == 200, found.text
    top = found.json()["matches"][0]
    assert top["entity"]["name"] == "Ada Lovelace"
    assert top["lexical"] == 1.0
    assert top["semantic"] is not None


async def test_the_tenant_comes_from_the_key_and_other_tenants_entities_are_404(
    client: httpx.AsyncClient, service: WorkspaceService, api_keys: dict[str, str]
) -> None:
    await ingest_corpus(client, service, api_keys["acme"])
    found = await client.get("/v1/search", params={"q": "Charles Babbage"},
                             headers=auth(api_keys["acme"]))  # fmt: skip
    entity_id = found.json()["matches"][0]["entity"]["id"]
    mine = await client.get(f"/v1/entities/{entity_id}", headers=auth(api_keys["acme"]))
    assert mine.status_code == 200
    assert mine.json()["entity"]["name"] == "Charles Babbage"
    assert mine.json()["relationships"]
    theirs = await client.get(f"/v1/entities/{entity_id}", headers=auth(api_keys["globex"]))
    assert theirs.status_code == 404
    assert theirs.headers["content-type"] == PROBLEM
    assert theirs.json()["type"].endswith("/NotFoundError")
    near = await client.get(
        f"/v1/entities/{entity_id}/neighbours", headers=auth(api_keys["globex"])
    )
    assert near.status_code == 404
    empty = await client.get("/v1/search", params={"q": "Charles Babbage"},
                             headers=auth(api_keys["globex"]))  # fmt: skip
    assert empty.json()["matches"] == []


async def test_neighbours_by_name(
    client: httpx.AsyncClient, service: WorkspaceService, api_keys: dict[str, str]
) -> None:
    key = api_keys["acme"]
    await ingest_corpus(client, service, key)
    near = await client.get("/v1/entities/Charles Babbage/neighbours", headers=auth(key))
    assert near.status_code == 200, near.text
    names = {e["name"] for e in near.json()["neighbours"]}
    assert names == {"London"}


async def test_consolidate_then_undo_the_merge_then_undo_again_is_409(
    client: httpx.AsyncClient, service: WorkspaceService, api_keys: dict[str, str]
) -> None:
    key = api_keys["acme"]
    await ingest_corpus(client, service, key)
    job = await finished(client, service, await client.post("/v1/consolidate",
                                                            headers=auth(key)), key)  # fmt: skip
    assert job["state"] == "succeeded", job
    [merge_id, *_] = job["result"]["merge_ids"]
    other = await client.post(f"/v1/merges/{merge_id}/undo", headers=auth(api_keys["globex"]))
    assert other.status_code == 404
    undone = await client.post(f"/v1/merges/{merge_id}/undo", headers=auth(key))
    assert undone.status_code == 200, undone.text
    assert undone.json() == {"undone": merge_id}
    again = await client.post(f"/v1/merges/{merge_id}/undo", headers=auth(key))
    assert again.status_code == 409
    assert again.json()["type"].endswith("/ConcurrencyError")
    bad = await client.post("/v1/merges/not-an-id/undo", headers=auth(key))
    assert bad.status_code == 422


async def test_a_job_is_invisible_to_another_tenant(
    client: httpx.AsyncClient, service: WorkspaceService, api_keys: dict[str, str]
) -> None:
    body = {"documents": [{"source_id": "a.md", "text": DOC}]}
    response = await client.post("/v1/ingest", json=body, headers=auth(api_keys["acme"]))
    await service.drain()
    theirs = await client.get(response.headers["location"], headers=auth(api_keys["globex"]))
    assert theirs.status_code == 404


async def test_a_failing_job_reports_its_typed_error(
    client: httpx.AsyncClient, service: WorkspaceService, api_keys: dict[str, str]
) -> None:
    key = api_keys["acme"]
    body = {"records": [{"source_id": "bad.csv", "rows": [{"name": "x"}], "name_field": "nope"}]}
    job = await finished(client, service, await client.post("/v1/ingest", json=body,
                                                            headers=auth(key)), key)  # fmt: skip
    assert job["state"] == "failed"
    assert job["error_type"] == "InvalidInputError"
    assert "nope" in job["error"]


async def test_bodies_over_the_limit_are_413_declared_or_streamed(
    client: httpx.AsyncClient, api_keys: dict[str, str]
) -> None:
    big = {"documents": [{"source_id": "big.md", "text": "x" * 70_000}]}
    declared = await client.post("/v1/ingest", json=big, headers=auth(api_keys["acme"]))
    assert declared.status_code == 413
    assert declared.headers["content-type"] == PROBLEM

    async def chunks() -> Any:
        payload = json.dumps(big).encode()
        for start in range(0, len(payload), 8192):
            yield payload[start : start + 8192]

    streamed = await client.post(
        "/v1/ingest",
        content=chunks(),
        headers={**auth(api_keys["acme"]), "content-type": "application/json"},
    )
    assert streamed.status_code == 413


async def test_a_malformed_request_is_422_problem_json(
    client: httpx.AsyncClient, api_keys: dict[str, str]
) -> None:
    key = api_keys["acme"]
    no_query = await client.get("/v1/search", headers=auth(key))
    assert no_query.status_code == 422
    assert no_query.headers["content-type"] == PROBLEM
    assert no_query.json()["errors"][0]["loc"] == ["query", "q"]
    nothing = await client.post("/v1/ingest", json={}, headers=auth(key))
    assert nothing.status_code == 422
    assert "nothing to ingest" in nothing.json()["detail"]


async def test_export_stats_health_and_docs(
    client: httpx.AsyncClient, service: WorkspaceService, api_keys: dict[str, str]
) -> None:
    key = api_keys["acme"]
    await ingest_corpus(client, service, key)
    stats = (await client.get("/v1/stats", headers=auth(key))).json()
    assert stats["tenant"] == "acme"
    assert "tenants" not in stats
    lines = (await client.get("/v1/export", headers=auth(key))).text.splitlines()
    assert sum(json.loads(line)["kind"] == "entity" for line in lines) == stats["entities"]
    graphml = await client.get("/v1/export", params={"format": "graphml"}, headers=auth(key))
    assert "<graphml" in graphml.text
    health = await client.get("/health")
    assert health.json()["status"] == "ok"
    assert health.json()["log_position"] > 0
    assert (await client.get("/docs")).status_code == 200
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert {"/v1/search", "/v1/ingest", "/v1/jobs/{job_id}", "/v1/consolidate"} <= set(paths)


def test_keys_are_stored_hashed_and_created_by_the_cli(tmp_path: Path) -> None:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    run = [sys.executable, "-m", "redstring.cli"]
    init = subprocess.run([*run, "init", "--embedder", "fake"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert init.returncode == 0, init.stderr
    made = subprocess.run([*run, "keys", "create", "--tenant", "acme"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith(KEY_PREFIX)
    stored = (tmp_path / "redstring.db").read_bytes()
    for side in (tmp_path / "redstring.db-wal",):
        stored += side.read_bytes() if side.exists() else b""
    assert key.encode() not in stored


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_redstring_serve_answers_on_loopback(db: Path, api_keys: dict[str, str]) -> None:
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "redstring.cli", "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"{base}/health", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        assert health.status_code == 200
        key = api_keys["acme"]
        body = {"documents": [{"source_id": "notes.md", "text": DOC}]}
        job = httpx.post(f"{base}/v1/ingest", json=body, headers=auth(key), timeout=30)
        assert job.status_code == 202
        for _ in range(300):
            state = httpx.get(f"{base}{job.headers['location']}", headers=auth(key)).json()
            if state["state"] in ("succeeded", "failed"):
                break
            time.sleep(0.1)
        assert state["state"] == "succeeded", state
        found = httpx.get(f"{base}/v1/search", params={"q": "Ada Lovelace"}, headers=auth(key))
        assert found.json()["matches"][0]["entity"]["name"] == "Ada Lovelace"
    finally:
        server.terminate()
        server.wait(timeout=30)
