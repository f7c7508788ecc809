"""The CLI benchmark reads each record's entity back from a real `export`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench import cli_resolution
from bench.variants import RecordSet

REDSTRING = str(Path(sys.executable).parent / "redstring")


def test_exported_labels_find_each_record_by_its_id_and_follow_merges(tmp_path: Path) -> None:
    """Catches labels read by row number instead of the id column, or records of a
    merged entity read as singletons: a real `redstring export` names every record
    by its id (three entities), and an entity holding two records' provenance (as a
    merge leaves it) labels both alike."""
    rows = [
        {"rid": "a7", "name": "Ada Lovelace"},
        {"rid": "b3", "name": "Ada King"},
        {"rid": "c1", "name": "Charles Babbage"},
    ]
    records = RecordSet("t", "Person", "rid", "name", rows, ["x", "x", "y"])
    (tmp_path / cli_resolution.SOURCE).write_text(
        "rid,name\n" + "".join(f"{r['rid']},{r['name']}\n" for r in rows), encoding="utf-8"
    )
    db = ["--db", str(tmp_path / "w.db")]
    for command in (
        ["init", "--embedder", "none"],
        ["ingest", cli_resolution.SOURCE, "--type", "Person", "--id-column", "rid"],
        ["export", "out.jsonl"],
    ):
        subprocess.run([REDSTRING, *command, *db], cwd=tmp_path, check=True, capture_output=True)
    export = tmp_path / "out.jsonl"
    labels = cli_resolution.exported_labels(export, records)
    assert len(set(labels)) == 3
    assert not any(label.startswith("r") for label in labels)

    by_name = {
        e["name"]: e
        for e in map(json.loads, export.read_text(encoding="utf-8").splitlines())
        if e.get("kind") == "entity"
    }
    ada = by_name["Ada Lovelace"]
    ada["provenance"] += by_name["Ada King"]["provenance"]
    export.write_text(f"{json.dumps(ada)}\n{json.dumps(by_name['Charles Babbage'])}\n")
    merged = cli_resolution.exported_labels(export, records)
    assert merged[0] == merged[1] == ada["id"] != merged[2]
