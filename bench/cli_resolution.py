"""Resolution as a new user runs it: the CLI's commands, each a fresh process, timed
on the wall clock beside Splink run from a fresh process too (issue 17).

    uv run python bench/cli_resolution.py                       # default sets
    uv run python bench/cli_resolution.py --sets people-export:10000 listings

`bench/resolution.py` times the library calls inside one process, without the
local embedding model (records are embedded at ingest for search) and without
Python's start-up; a user typing `redstring ingest` and `redstring consolidate`
pays both, so does anyone timing the tool from outside. This benchmark runs

    redstring init; redstring ingest records.csv --type T --id-column ID
    --name-column NAME; redstring consolidate; redstring export out.jsonl

with the workspace's default settings (the local embedding model included), scores
the exported entities (each record's entity from its provenance) against the gold
identities, and runs Splink as `bench/resolution.py` configures it, in a child
process started from nothing: its wall time less the time that child spent
building the set from the shared data (which a user's script would not do).
No labels are used by either system.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from resolution import SOURCE, write_csv
from variants import RecordSet, build

from redstring.consolidation.metrics import pairwise_prf

DEFAULT_SETS = [
    "people-export:1000",
    "people-export:5000",
    "people-export:10000",
    "people-registry:10000",
    "people-parts:10000",
    "restaurants",
    "listings",
]
SEED = 17
STEPS = ("init", "ingest", "consolidate", "export")


def load(spec: str) -> RecordSet:
    """`name` or `name:size` (whole clusters sampled, as `resolution.py` does)."""
    name, _, size = spec.partition(":")
    records = build(name, SEED)
    return records.sample_clusters(int(size), SEED) if size else records


def run_cli(records: RecordSet, workdir: Path) -> tuple[dict[str, float], float]:
    """Seconds per command and the pairwise F1 of the exported entities."""
    redstring = Path(sys.executable).parent / "redstring"
    write_csv(records, workdir / SOURCE)
    env = dict(os.environ, REDSTRING_DB=str(workdir / "w.db"))
    ingest = ["ingest", SOURCE, "--type", records.entity_type, "--id-column", records.id_column]
    if records.name_column is not None:
        ingest += ["--name-column", records.name_column]
    commands = {
        "init": ["init"],
        "ingest": ingest,
        "consolidate": ["consolidate"],
        "export": ["export", "out.jsonl"],
    }
    seconds = {}
    for step in STEPS:
        start = time.perf_counter()
        subprocess.run(
            [str(redstring), *commands[step]],
            cwd=workdir,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        seconds[step] = time.perf_counter() - start
    predicted = exported_labels(workdir / "out.jsonl", records)
    return seconds, pairwise_prf(predicted, records.gold).f1


def exported_labels(export: Path, records: RecordSet) -> list[str]:
    """Each record's entity id in an `export` JSONL, found by its provenance
    (`records.csv#<id>`); a record no entity names is its own singleton."""
    entity_of: dict[str, str] = {}
    for line in export.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item.get("kind") != "entity":
            continue
        for source in item["provenance"]:
            entity_of[source["source_id"]] = item["id"]
    keys = [f"{SOURCE}#{row[records.id_column]}" for row in records.rows]
    return [entity_of.get(key, f"r{i}") for i, key in enumerate(keys)]


_SPLINK_CHILD = """
import sys, time
started = time.perf_counter()
sys.path.insert(0, {bench!r})
from cli_resolution import load
records = load({spec!r})
built = time.perf_counter() - started
from resolution import run_splink
row = run_splink(records)
print(built, row.f1)
"""


def run_splink_fresh(spec: str) -> tuple[float, float]:
    """Splink's wall time from a fresh interpreter (less the set's building) and F1."""
    code = _SPLINK_CHILD.format(bench=str(Path(__file__).resolve().parent), spec=spec)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    built, f1 = (float(x) for x in done.stdout.split()[-2:])
    return wall - built, f1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", nargs="+", default=DEFAULT_SETS)
    args = parser.parse_args(argv)
    print(
        f"{'set':<22}{'records':>8}  {'init':>6}{'ingest':>8}{'consol.':>8}{'export':>8}"
        f"{'total':>8}{'F1':>8}  |  {'Splink s':>9}{'F1':>8}  {'total/Splink':>12}"
    )
    for spec in args.sets:
        records = load(spec)
        with tempfile.TemporaryDirectory() as tmp:
            seconds, f1 = run_cli(records, Path(tmp))
        splink_seconds, splink_f1 = run_splink_fresh(spec)
        total = sum(seconds.values())
        print(
            f"{spec:<22}{len(records.rows):>8}  "
            + "".join(f"{seconds[s]:>{6 if s == 'init' else 8}.2f}" for s in STEPS)
            + f"{total:>8.2f}{f1:>8.4f}  |  {splink_seconds:>9.2f}{splink_f1:>8.4f}"
            f"  {total / splink_seconds:>11.2f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
