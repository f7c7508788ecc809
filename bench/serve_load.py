"""Load on `redstring serve`: concurrent clients, mixed search and ingest, over loopback.

A real uvicorn server (`redstring serve`, a subprocess) on 127.0.0.1 serves a fresh
workspace seeded with --records people records (historical_figures_50k, one per
person). Clients (asyncio tasks over httpx, in this process) loop for --seconds:
with probability --ingest-share a client posts one CoNLL04 test sentence as a new
document (`POST /v1/ingest`, a job), otherwise it searches a full name of another
record of a seeded person (`GET /v1/search`, k=10, hybrid). After the clock stops,
every ingest job is polled to its end.

The baseline is the same mix from one client for --baseline-seconds against the
same server, run first: the ratio of p50s is the cost of 50 clients sharing it.
An error is any transport failure, any status other than 200 (search) or 202
(ingest), or an ingest job that ends failed; the run exits 1 on any error.

    uv run python bench/serve_load.py                      # 50 clients, 60 s, local model
    uv run python bench/serve_load.py --embedder fake --seconds 10   # plumbing only
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import gzip
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from redstring.application import use_cases
from redstring.application.keys import create_key
from redstring.application.use_cases import RecordMapping
from redstring.application.workspaces import (
    Embedder,
    create_workspace,
    open_workspace,
    workspace_embedder,
)
from redstring.composition.build_graph import embed_missing

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data"
TENANT = "bench"


@dataclass
class Tally:
    search_ms: list[float] = field(default_factory=list)
    ingest_ms: list[float] = field(default_factory=list)
    jobs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return len(self.search_ms) + len(self.ingest_ms)


def people(limit: int) -> tuple[list[dict[str, str]], list[str]]:
    """One record per person (the first seen) to seed, and other records' names as queries."""
    seeded: dict[str, dict[str, str]] = {}
    queries: list[str] = []
    with gzip.open(DATA / "historical_figures_50k.csv.gz", "rt", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["cluster"] not in seeded:
                if len(seeded) < limit:
                    seeded[row["cluster"]] = row
            elif row["full_name"]:
                queries.append(row["full_name"])
    records = [
        {"id": r["unique_id"], "name": r["full_name"], "type": "Person", "born": r["dob"]}
        for r in seeded.values()
        if r["full_name"]
    ]
    return records, queries


def sentences() -> list[str]:
    rows = json.loads((DATA / "conll04" / "conll04_test.json").read_text(encoding="utf-8"))
    return [" ".join(row["tokens"]) for row in rows]


def seed(db: Path, embedder: Embedder, records: list[dict[str, str]]) -> str:
    create_workspace(db, embedder, TENANT)
    with open_workspace(db) as workspace:
        key = create_key(workspace, TENANT)
        tenant_id = workspace.tenant(TENANT)
        asyncio.run(
            use_cases.ingest_records(
                records, workspace, tenant_id, source_id="people.csv",
                mapping=RecordMapping(type_field="type", id_field="id"),
            )
        )  # fmt: skip
        # Records are embedded by the first search that needs them; the load is
        # measured on a workspace past that.
        embeddings = workspace_embedder(workspace)
        if embeddings is not None:
            asyncio.run(embed_missing(workspace, tenant_id, embeddings))
    return key


async def client(
    http: httpx.AsyncClient, number: int, until: float, share: float,
    queries: list[str], texts: list[str], tally: Tally, tag: str,
) -> None:  # fmt: skip
    rng = random.Random(number)
    sent = 0
    while time.monotonic() < until:
        start = time.perf_counter()
        try:
            if rng.random() < share:
                sent += 1
                body = {"documents": [{"source_id": f"{tag}-{number}-{sent}",
                                       "text": rng.choice(texts)}]}  # fmt: skip
                response = await http.post("/v1/ingest", json=body)
                (tally.ingest_ms).append((time.perf_counter() - start) * 1000)
                if response.status_code != 202:
                    tally.errors.append(f"ingest {response.status_code}: {response.text[:200]}")
                else:
                    tally.jobs.append(response.json()["id"])
            else:
                response = await http.get("/v1/search", params={"q": rng.choice(queries), "k": 10})
                tally.search_ms.append((time.perf_counter() - start) * 1000)
                if response.status_code != 200:
                    tally.errors.append(f"search {response.status_code}: {response.text[:200]}")
        except httpx.HTTPError as exc:
            tally.errors.append(f"{type(exc).__name__}: {exc}")


async def finish_jobs(http: httpx.AsyncClient, tally: Tally, timeout: float) -> list[float]:
    """Poll every job to its end; the seconds each took from queued to finished."""
    took: list[float] = []
    deadline = time.monotonic() + timeout
    pending = list(tally.jobs)
    while pending and time.monotonic() < deadline:
        still = []
        for job_id in pending:
            state = (await http.get(f"/v1/jobs/{job_id}")).json()
            if state["state"] == "failed":
                tally.errors.append(f"job failed: {state['error']}")
            elif state["state"] == "succeeded":
                created = _seconds(state["created_at"])
                took.append(_seconds(state["finished_at"]) - created)
            else:
                still.append(job_id)
        pending = still
        if pending:
            await asyncio.sleep(0.5)
    tally.errors.extend(f"job {job_id} unfinished" for job_id in pending)
    return took


def _seconds(stamp: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(stamp).timestamp()


async def run_clients(
    base: str, key: str, clients: int, seconds: float, share: float,
    queries: list[str], texts: list[str], tag: str,
) -> tuple[Tally, float, list[float]]:  # fmt: skip
    tally = Tally()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(
        base_url=base, headers={"Authorization": f"Bearer {key}"}, limits=limits, timeout=120
    ) as http:
        start = time.monotonic()
        until = start + seconds
        await asyncio.gather(
            *(client(http, n, until, share, queries, texts, tally, tag) for n in range(clients))
        )
        elapsed = time.monotonic() - start
        jobs = await finish_jobs(http, tally, timeout=600)
    return tally, elapsed, jobs


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(label: str, clients: int, tally: Tally, elapsed: float, jobs: list[float]) -> None:
    print(
        f"{label:<9} {clients:>7} {tally.requests:>8} {len(tally.errors):>6} "
        f"{tally.requests / elapsed:>8.1f} "
        f"{pct(tally.search_ms, 0.5):>8.1f} {pct(tally.search_ms, 0.99):>8.1f} "
        f"{pct(tally.ingest_ms, 0.5):>8.1f} {pct(tally.ingest_ms, 0.99):>8.1f} "
        f"{len(jobs):>5} {statistics.median(jobs) if jobs else float('nan'):>8.2f}"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--baseline-seconds", type=float, default=15)
    parser.add_argument("--ingest-share", type=float, default=0.1)
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--embedder", choices=["local", "fake"], default="local")
    args = parser.parse_args()

    records, queries = people(args.records)
    texts = sentences()
    with tempfile.TemporaryDirectory(prefix="redstring-load-") as tmp:
        db = Path(tmp) / "load.db"
        start = time.perf_counter()
        key = seed(db, Embedder(args.embedder), records)
        took = time.perf_counter() - start
        print(
            f"seeded {len(records)} people records in {took:.1f} s (embedder {args.embedder}); "
            f"{len(queries)} queries, {len(texts)} sentences"
        )
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "redstring.cli", "serve", "--db", str(db),
             "--port", str(port), "--readers", str(args.readers)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            else:
                raise SystemExit("server did not start")
            print(f"{'run':<9} {'clients':>7} {'requests':>8} {'errors':>6} {'req/s':>8} "
                  f"{'srch p50':>8} {'srch p99':>8} {'ing p50':>8} {'ing p99':>8} "
                  f"{'jobs':>5} {'job p50s':>8}   (latencies in ms)")  # fmt: skip
            base_tally, base_elapsed, base_jobs = asyncio.run(
                run_clients(base, key, 1, args.baseline_seconds, args.ingest_share,
                            queries, texts, "baseline")
            )  # fmt: skip
            report("baseline", 1, base_tally, base_elapsed, base_jobs)
            tally, elapsed, jobs = asyncio.run(
                run_clients(base, key, args.clients, args.seconds, args.ingest_share,
                            queries, texts, "load")
            )  # fmt: skip
            report("load", args.clients, tally, elapsed, jobs)
        finally:
            server.terminate()
            server.wait(timeout=60)
        ratio = pct(tally.search_ms, 0.5) / pct(base_tally.search_ms, 0.5)
        print(f"search p50 with {args.clients} clients / 1 client: {ratio:.1f}x; "
              f"throughput {tally.requests / elapsed:.1f} vs "
              f"{base_tally.requests / base_elapsed:.1f} req/s")  # fmt: skip
        for error in (base_tally.errors + tally.errors)[:10]:
            print(f"error: {error}")
        return 1 if base_tally.errors or tally.errors else 0


if __name__ == "__main__":
    sys.exit(main())
