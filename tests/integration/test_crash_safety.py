"""SIGKILL a writer at random moments; nothing committed is lost, nothing half-written shows.

What it catches: an append that is not one transaction (a partial batch visible
after a kill), a commit reported before it is durable, a projection whose store
writes and checkpoint are not atomic (the stores then differ from a replay), and
a workspace that cannot be reopened after a crash.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from redstring.composition.workspace import Workspace
from redstring.events import decode
from redstring.events.merge import EntitiesMerged, MergeUndone
from redstring.graph.memory import InMemoryGraphStore
from redstring.projections import GraphProjection, InMemoryCheckpointStore, replay

WRITER = Path(__file__).with_name("crash_writer.py")
TENANT_TEXT = "00000000-0000-4000-8000-0000000000c1"
ROUNDS = 8


def run_and_kill(path: Path, round_no: int, rng: random.Random) -> list[tuple[str, int]]:
    """Start the writer, let it work for a random moment after it is ready, SIGKILL it."""
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), str(path), str(round_no)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    ready = proc.stdout.readline()
    if ready.strip() != "READY":
        proc.kill()
        _, err = proc.communicate(timeout=10)
        pytest.fail(f"writer did not start: {ready!r} {err[-2000:]}")
    time.sleep(rng.uniform(0.05, 0.8))
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == -signal.SIGKILL, err[-2000:]
    commits = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "COMMIT":
            commits.append((parts[1], int(parts[2])))
    return commits


async def graph_dump(graph: Any, tenant: Any) -> tuple[list[Any], list[Any]]:
    return (
        [e.model_dump(mode="json") for e in await graph.list_entities(tenant)],
        [r.model_dump(mode="json") for r in await graph.list_relationships(tenant)],
    )


@pytest.mark.slow
async def test_sigkilled_writers_lose_no_commit_and_show_no_partial_append(
    tmp_path: Path,
) -> None:
    path = tmp_path / "crash.db"
    rng = random.Random(20240601)
    reported: list[tuple[str, int]] = []
    started = time.monotonic()
    for round_no in range(ROUNDS):
        reported += run_and_kill(path, round_no, rng)
        if time.monotonic() - started > 25:
            break
    assert reported, "the writer never committed anything; the test proved nothing"

    with Workspace.open(path, create=False) as ws:
        everything = await ws.log.read_all()
        per_stream = Counter(e.stream_id for e in everything)
        tenant = everything[0].tenant_id
        assert str(tenant) == TENANT_TEXT

        # Durability: every reported commit is there, at the reported stream length.
        for stream_id, length in reported:
            assert per_stream[stream_id] >= length, f"lost committed {stream_id}"

        # Atomicity: a document append is k DocumentExtracted + 1 EntitiesEmbedded, with k
        # written into each; a stream holding any other number is a partial append.
        for stream_id, count in per_stream.items():
            events = await ws.log.read_stream(stream_id, tenant)
            assert [e.version for e in events] == list(range(1, count + 1))
            if stream_id.startswith("doc:"):
                k = int(events[0].payload["content_hash"].split("-")[-1])  # type: ignore[union-attr]
                assert count == k + 1, f"partial append visible in {stream_id}"
            else:
                kinds = [type(decode(e)) for e in events]
                assert kinds in ([EntitiesMerged], [EntitiesMerged, MergeUndone])

        # Projections after the crashes equal a replay from the log alone.
        await ws.catch_up()
        live = await graph_dump(ws.graph, tenant)
        fresh = InMemoryGraphStore()
        await replay(ws.log, [GraphProjection(fresh, ws.log, InMemoryCheckpointStore())])
        assert await graph_dump(fresh, tenant) == live
        vectors_before = await ws.vectors.count(tenant)
        await ws.replay()
        assert await graph_dump(ws.graph, tenant) == live
        assert await ws.vectors.count(tenant) == vectors_before
    assert time.monotonic() - started < 60
