"""The crash harness (bench/crash.py), short: 10 kills of ingest and consolidate in CI.

The harness's own checks are tested first on a workspace tampered with by hand, so a
clean tally means the checks ran and could have failed.
"""

from __future__ import annotations

import asyncio
import io
import sqlite3
from typing import TYPE_CHECKING

import pytest
from bench.crash import Run, check, harness, run_child, write_corpus

if TYPE_CHECKING:
    from pathlib import Path


def test_the_crash_checks_see_a_lost_commit_and_a_store_that_differs_from_a_replay(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    write_corpus(corpus, people=20, files=2, documents=1, seed=1)
    db = tmp_path / "w.db"
    run = run_child("ingest", db, corpus, None)
    assert run.returncode == 0, run.stderr
    assert run.finished
    assert run.commits
    problems, counts = asyncio.run(check(db, run))
    assert problems == []
    assert counts["entities"] > 0

    claimed = Run([*run.commits, ("records:nowhere", 3)], (0, 0), False, True, 0, "", 0.0)
    problems, _ = asyncio.run(check(db, claimed))
    assert any(p.startswith("lost a commit: records:nowhere") for p in problems)

    with sqlite3.connect(db) as conn:
        conn.execute(
            "DELETE FROM graph_entities WHERE rowid IN (SELECT min(rowid) FROM graph_entities)"
        )
    problems, _ = asyncio.run(check(db, run))
    assert "the graph differs from a fresh replay of the log" in problems


@pytest.mark.slow
def test_ten_kills_of_ingest_and_consolidate_lose_no_commit_and_rerun_to_a_clean_result() -> None:
    out = io.StringIO()
    tally = harness(10, seed=16, people=60, out=out)
    assert not tally.failures, out.getvalue()
    assert sum(tally.kills.values()) >= 6, out.getvalue()  # most attempts land mid-run
    assert tally.kills["consolidate"] >= 2, out.getvalue()
    assert tally.commits_checked > 0
