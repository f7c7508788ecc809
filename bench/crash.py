"""Crash harness (issue 16): kill -9 at random points of ingest and of consolidate.

Each cycle builds one SQLite workspace from a generated corpus (JSONL records with
duplicates, and text documents for the offline extractor) in a child process, kills
the child with SIGKILL at a random moment, checks the workspace, reruns the child to
completion, checks again; then does the same with `consolidate`. The child is this
script with `--child`, driving the same library calls the CLI makes; after every
commit it prints `COMMIT <stream> <version>`, so the parent knows what must survive.

After every kill and every rerun the parent checks that
- the workspace opens and its projections catch up;
- every commit the child reported is in the log (the stream is at least that long);
- the graph (entities, relationships, every alias) and the vectors equal a fresh
  replay of the log into in-memory stores;
- a rerun exits 0, every live entity has its vector, and after an ingest rerun the
  tenant's entity, relationship and vector counts equal those of an uninterrupted run
  (the baseline, run first in the same process). A consolidate rerun after some merges
  were committed may merge more than an uninterrupted run (a second uninterrupted
  `consolidate` does too: it is a fixpoint on records but not yet on text mentions,
  BACKLOG), so its ending count is tallied, not required.

    uv run python bench/crash.py                 # 100 kills (50 cycles)
    uv run python bench/crash.py --kills 10      # the CI run (tests/reliability)

It prints one line per kill and a tally; the exit status is 1 if any check failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from redstring.composition.build_graph import build_graphs
from redstring.composition.consolidation import Consolidator
from redstring.composition.records import RecordMapping, import_records, read_records
from redstring.composition.workspace import Workspace
from redstring.domain.ids import tenant_id_for
from redstring.embeddings.fake import FakeEmbeddingProvider
from redstring.events import EntitiesMerged, decode
from redstring.graph.memory import InMemoryGraphStore
from redstring.projections import (
    GraphProjection,
    InMemoryCheckpointStore,
    VectorProjection,
    replay,
)
from redstring.vector.memory import InMemoryVectorStore

if TYPE_CHECKING:
    from collections.abc import Iterator

    from redstring.ports.graph_store import GraphStore
    from redstring.ports.vector_store import VectorStore

DIMENSION = 16
TENANT = "crash"
OBSERVED_AT = datetime(2026, 1, 1, tzinfo=UTC)
GIVEN = ["Ada", "Alan", "Grace", "Mary", "Charles", "Emmy", "Kurt", "John", "Rosalind", "Marie"]
FAMILY = ["Lovelace", "Turing", "Hopper", "Somerville", "Babbage", "Noether", "Godel", "Franklin"]
CITIES = ["London", "Paris", "Berlin", "Vienna", "Boston", "Leeds"]
PHASES = ("ingest", "consolidate")


# -- the corpus -----------------------------------------------------------------------------


def typo(name: str, rng: random.Random) -> str:
    """One dropped or doubled letter: the kind of duplicate consolidation should merge."""
    i = rng.randrange(1, len(name) - 1)
    return name[:i] + name[i + 1 :] if rng.random() < 0.5 else name[:i] + name[i] + name[i:]


def write_corpus(folder: Path, *, people: int, files: int, documents: int, seed: int) -> None:
    """Records of `people` identities, most seen two or three times with typos, spread
    over `files` JSONL files; and `documents` short texts naming them."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    names = []
    for person in range(people):
        name = f"{rng.choice(GIVEN)} {rng.choice(FAMILY)} {person}"
        names.append(name)
        born, city = rng.randint(1800, 1990), rng.choice(CITIES)
        for copy in range(rng.choice((1, 2, 2, 3))):
            shown = name if copy == 0 else typo(name, rng)
            rows.append({"id": f"p{person}-{copy}", "name": shown, "born": born, "city": city})
    rng.shuffle(rows)
    for n in range(files):
        lines = [json.dumps(row) for row in rows[n::files]]
        (folder / f"records-{n:02d}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for n in range(documents):
        sentences = [
            f"{a} met {b} in {rng.choice(CITIES)}."
            for a, b in (rng.sample(names, 2) for _ in range(rng.randint(3, 8)))
        ]
        (folder / f"doc-{n:02d}.md").write_text(" ".join(sentences) + "\n", encoding="utf-8")


# -- the child ------------------------------------------------------------------------------


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def child(phase: str, db: Path, corpus: Path) -> None:
    """Ingest the corpus or consolidate the tenant, reporting each commit once it is durable.

    An append inside `Workspace.atomic()` is durable only when the outermost block
    commits, so appends are reported when that block exits without error, or -- for
    appends outside any block, durable when `append` returns -- at the next progress
    callback or when the call returns. A progress callback inside a block reports
    nothing: consolidation reports progress every 200 merges but commits every
    5,000, and a kill between the two once made the harness count rolled-back
    merges as lost commits."""
    ws = Workspace.open(db, create=True, dimension=DIMENSION)
    tenant = ws.register_tenant(TENANT)
    appended: list[tuple[str, int]] = []
    original = ws.append
    original_atomic = ws.atomic
    depth = 0
    ready = time.monotonic()  # reset at READY; commits before it are the setup's

    async def recording(stream_id: str, events: Any, *, expected_version: int) -> int:
        version = await original(stream_id, events, expected_version=expected_version)
        appended.append((stream_id, version))
        return version

    @contextmanager
    def committing(*, whole: bool = False) -> Iterator[None]:
        nonlocal depth
        depth += 1
        try:
            with original_atomic(whole=whole):
                yield
        except BaseException:
            depth -= 1
            if depth == 0:
                appended.clear()  # rolled back: nothing of it is durable
            raise
        depth -= 1
        flush()

    ws.append = recording  # type: ignore[method-assign]
    ws.atomic = committing  # type: ignore[method-assign]

    def flush(*_: object) -> None:
        if depth:
            return
        for stream_id, version in appended:
            say(f"COMMIT {stream_id} {version} {time.monotonic() - ready:.4f}")
        appended.clear()

    await ws.catch_up()
    say("READY")
    ready = time.monotonic()
    embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
    if phase == "ingest":
        mapping = RecordMapping(name_field="name", entity_type="Person", id_field="id")
        for file in sorted(corpus.glob("*.jsonl")):
            await import_records(
                read_records(file),
                workspace=ws,
                tenant_id=tenant,
                source_id=file.name,
                mapping=mapping,
                observed_at=OBSERVED_AT,
                embeddings=embeddings,
                progress=flush,
            )
            flush()
        documents = sorted(corpus.glob("*.md"))
        for first in range(0, len(documents), 2):
            await build_graphs(
                [(d.name, d.read_text(encoding="utf-8")) for d in documents[first : first + 2]],
                workspace=ws,
                tenant_id=tenant,
                embeddings=embeddings,
            )
            flush()
    else:
        await Consolidator(ws).consolidate(tenant, progress=flush)
        flush()
    ws.close()
    say("DONE")


# -- the parent -----------------------------------------------------------------------------


@dataclass
class Run:
    """One child process: what it reported before it ended."""

    commits: list[tuple[str, int]]
    #: Seconds after READY of the first and the last reported commit.
    commit_window: tuple[float, float]
    killed: bool
    finished: bool
    returncode: int
    stderr: str
    seconds: float


def run_child(phase: str, db: Path, corpus: Path, kill_after: float | None) -> Run:
    """Start the child; SIGKILL it `kill_after` seconds after READY (None: let it finish)."""
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", phase, str(db), str(corpus)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    ready = proc.stdout.readline().strip()
    started = time.monotonic()
    if ready != "READY":
        proc.kill()
        _, err = proc.communicate(timeout=30)
        return Run(
            [], (0, 0), False, False, proc.returncode, f"no READY: {ready!r} {err[-2000:]}", 0.0
        )
    killed = False
    if kill_after is not None:
        try:
            proc.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            killed = True
    out, err = proc.communicate(timeout=600)
    seconds = time.monotonic() - started
    commits, times = [], []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "COMMIT":
            commits.append((parts[1], int(parts[2])))
            times.append(float(parts[3]))
    window = (min(times), max(times)) if times else (0.0, seconds)
    finished = "DONE" in out.splitlines()
    return Run(commits, window, killed, finished, proc.returncode, err[-2000:], seconds)


async def _graph_state(graph: GraphStore, aliases: list[Any]) -> dict[str, Any]:
    tenant = tenant_id_for(TENANT)
    return {
        "entities": sorted(
            (e.model_dump(mode="json") for e in await graph.list_entities(tenant)),
            key=lambda e: e["id"],
        ),
        "relationships": sorted(
            (r.model_dump(mode="json") for r in await graph.list_relationships(tenant)),
            key=lambda r: r["id"],
        ),
        "resolve": {str(a): str(await graph.resolve(a, tenant)) for a in aliases},
    }


async def _vector_problems(live: VectorStore, fresh: InMemoryVectorStore) -> list[str]:
    """Every vector of the replay is in the live store, same type, found by itself at
    score 1 (ties: entities of one name share a fake vector), and the counts agree."""
    tenant = tenant_id_for(TENANT)
    problems = []
    expected = await fresh.count(tenant)
    actual = await live.count(tenant)
    if expected != actual:
        problems.append(f"{actual} vectors, a replay has {expected}")
    records = fresh._records  # the in-memory store's own dict: the port has no listing
    for (record_tenant, entity_id), record in records.items():
        if record_tenant != tenant:
            continue
        hits = await live.search(list(record.vector), tenant, k=50)
        if not any(
            h.entity_id == entity_id
            and h.entity_type == record.entity_type
            and abs(h.score - 1.0) < 1e-5
            for h in hits
        ):
            problems.append(f"vector of {entity_id} differs from a replay's")
    return problems


async def check(db: Path, run: Run) -> tuple[list[str], dict[str, int]]:
    """The problems found in the workspace after `run`, and its counts."""
    problems: list[str] = []
    try:
        ws = Workspace.open(db, create=False)
    except Exception as exc:  # the check is that it opens: any failure is the finding
        return [f"workspace does not open: {type(exc).__name__}: {exc}"], {}
    with ws:
        await ws.catch_up()
        tenant = tenant_id_for(TENANT)
        for stream_id, version in run.commits:
            have = await ws.log.stream_version(stream_id, tenant)
            if have < version:
                problems.append(f"lost a commit: {stream_id} at {have}, reported {version}")
        log = await ws.log.read_all()
        aliases = sorted(
            {m for r in log if isinstance(e := decode(r), EntitiesMerged) for m in e.merged_ids},
            key=str,
        )
        graph, vectors = InMemoryGraphStore(), InMemoryVectorStore(dimension=DIMENSION)
        await replay(
            ws.log,
            [
                GraphProjection(graph, ws.log, InMemoryCheckpointStore()),
                VectorProjection(vectors, ws.log, InMemoryCheckpointStore()),
            ],
        )
        if await _graph_state(ws.graph, aliases) != await _graph_state(graph, aliases):
            problems.append("the graph differs from a fresh replay of the log")
        problems += await _vector_problems(ws.vectors, vectors)
        counts = {
            "entities": await ws.graph.count_entities(tenant),
            "relationships": len(await ws.graph.list_relationships(tenant)),
            "vectors": await ws.vectors.count(tenant),
        }
    return problems, counts


@dataclass
class Tally:
    kills: Counter[str] = field(default_factory=Counter)
    finished_before_kill: Counter[str] = field(default_factory=Counter)
    commits_checked: int = 0
    #: Entity count after each consolidate rerun, against the uninterrupted run's.
    consolidate_ends: Counter[str] = field(default_factory=Counter)
    checks: int = 0
    failures: list[str] = field(default_factory=list)


def harness(kills: int, *, seed: int, people: int, out: Any = sys.stdout) -> Tally:
    """Run `kills` kills (alternately ingest and consolidate) and return the tally."""
    rng = random.Random(seed)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="redstring-crash-") as tmp:
        root = Path(tmp)
        corpus = root / "corpus"
        write_corpus(corpus, people=people, files=8, documents=6, seed=seed)
        # Baseline: uninterrupted runs, their durations (the kill window) and counts.
        clean_db = root / "clean.db"
        windows: dict[str, tuple[float, float]] = {}
        expected: dict[str, dict[str, int]] = {}
        for phase in PHASES:
            run = run_child(phase, clean_db, corpus, None)
            if run.returncode != 0:
                raise SystemExit(f"the uninterrupted {phase} failed: {run.stderr}")
            # Kills land between just before the first commit and the end of the run:
            # before that, a child has only read (consolidate plans for most of its run).
            first, last = run.commit_window
            windows[phase] = (0.8 * first, max(1.1 * first, last))
            problems, expected[phase] = asyncio.run(check(clean_db, run))
            if problems:
                raise SystemExit(f"the uninterrupted {phase} fails its own checks: {problems}")
        print(
            "baseline (uninterrupted): "
            + "; ".join(
                f"{p} commits from {windows[p][0] / 0.8:.2f} s to {windows[p][1]:.2f} s after "
                "READY -> "
                f"{expected[p]}"
                for p in PHASES
            ),
            file=out,
        )
        cycle = 0
        attempts = 0
        # `kills` counts real kills: a child that finishes before its kill moment is
        # tallied apart, and the phase's window is narrowed to end before it finished
        # (load on a shared machine moves a run's timing), with attempts bounded.
        while sum(tally.kills.values()) < kills and attempts < 3 * kills:
            cycle += 1
            db = root / f"cycle-{cycle}.db"
            for phase in PHASES:
                if sum(tally.kills.values()) >= kills or attempts >= 3 * kills:
                    break
                attempts += 1
                delay = rng.uniform(*windows[phase])
                killed = run_child(phase, db, corpus, delay)
                if killed.killed:
                    tally.kills[phase] += 1
                else:
                    tally.finished_before_kill[phase] += 1
                    low, _ = windows[phase]
                    windows[phase] = (low, max(low * 1.1, 0.9 * killed.seconds))
                problems, _ = asyncio.run(check(db, killed))
                rerun = run_child(phase, db, corpus, None)
                if rerun.returncode != 0:
                    problems.append(f"the rerun failed ({rerun.returncode}): {rerun.stderr}")
                more, counts = asyncio.run(check(db, rerun))
                problems += more
                if counts.get("vectors") != counts.get("entities"):
                    problems.append(f"after the rerun, live entities without a vector: {counts}")
                if phase == "ingest" and counts != expected[phase]:
                    problems.append(f"after the rerun {counts}, uninterrupted {expected[phase]}")
                elif phase == "consolidate":
                    # Not a fixpoint on text mentions (a second uninterrupted run merges
                    # more), so a rerun after merges were committed may end lower.
                    tally.consolidate_ends[
                        "equal" if counts == expected[phase] else f"{counts['entities']} entities"
                    ] += 1
                tally.checks += 2
                tally.commits_checked += len(killed.commits) + len(rerun.commits)
                what = "killed" if killed.killed else "finished first"
                print(
                    f"cycle {cycle:3d} {phase:<11} {what} at {delay:5.2f} s after "
                    f"{len(killed.commits):3d} commits; rerun {len(rerun.commits):3d} commits: "
                    + ("ok" if not problems else "; ".join(problems)),
                    file=out,
                    flush=True,
                )
                tally.failures += [f"cycle {cycle} {phase}: {p}" for p in problems]
    print(
        f"tally: {sum(tally.kills.values())} kills (ingest {tally.kills['ingest']}, "
        f"consolidate {tally.kills['consolidate']}), "
        f"{sum(tally.finished_before_kill.values())} runs finished before their kill, "
        f"{tally.checks} workspace checks, {tally.commits_checked} reported commits checked, "
        f"{len(tally.failures)} failures",
        file=out,
    )
    print(
        "consolidate reruns ending at the uninterrupted count "
        f"({expected['consolidate']['entities']} entities) or not: {dict(tally.consolidate_ends)}",
        file=out,
    )
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=100, help="kills (default 100)")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--people", type=int, default=150, help="identities in the corpus")
    parser.add_argument(
        "--child", nargs=3, metavar=("PHASE", "DB", "CORPUS"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.child:
        phase, db, corpus = args.child
        asyncio.run(child(phase, Path(db), Path(corpus)))
        return 0
    tally = harness(args.kills, seed=args.seed, people=args.people)
    return 1 if tally.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
