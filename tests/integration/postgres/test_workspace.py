"""A PostgreSQL workspace behind the CLI: same answers as the SQLite one, and `migrate`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from typing import TYPE_CHECKING

import pytest

from redstring.composition.workspace import Workspace, location
from redstring.domain.exceptions import WorkspaceError

if TYPE_CHECKING:
    from pathlib import Path

DEMO = resources.files("redstring.cli") / "demo"


def redstring(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "redstring.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )
    assert result.returncode == 0, result.stderr + result.stdout
    return result


def build(db: str, cwd: Path) -> None:
    redstring("init", "--db", db, "--embedder", "fake", cwd=cwd)
    redstring("ingest", str(DEMO), "--db", db, cwd=cwd)


def answers(db: str, cwd: Path) -> tuple[object, object]:
    """The ranked names, types and channel scores (to float32 precision: pgvector keeps
    vectors as float32) of one search, and the workspace's counts."""
    found = json.loads(redstring("search", "Ada Lovelace", "--json", "--db", db, cwd=cwd).stdout)
    ranked = [
        (
            m["entity"]["id"],
            m["entity"]["name"],
            m["entity"]["entity_type"],
            round(m["score"], 5),
            None if m["semantic"] is None else round(m["semantic"], 5),
            None if m["lexical"] is None else round(m["lexical"], 5),
        )
        for m in found["matches"]
    ]
    figures = json.loads(redstring("stats", "--json", "--db", db, cwd=cwd).stdout)
    assert ranked, "the demo search found nothing: the comparison would be vacuous"
    return ranked, figures


@pytest.mark.slow
def test_the_cli_on_postgres_answers_as_on_sqlite(pg_database: str, tmp_path: Path) -> None:
    """Catches an adapter that passes its suite but breaks in the wiring: a store the
    workspace does not open, a projection whose batch does not commit, settings lost."""
    build(pg_database, tmp_path)
    build(str(tmp_path / "ws.db"), tmp_path)
    assert answers(pg_database, tmp_path) == answers(str(tmp_path / "ws.db"), tmp_path)


@pytest.mark.slow
def test_migrate_copies_sqlite_to_postgres_and_back_with_equal_counts(
    pg_database: str, tmp_path: Path
) -> None:
    source = str(tmp_path / "source.db")
    build(source, tmp_path)
    redstring("migrate", source, pg_database, cwd=tmp_path)
    redstring("migrate", pg_database, str(tmp_path / "back.db"), cwd=tmp_path)
    original = answers(source, tmp_path)
    assert answers(pg_database, tmp_path) == original
    assert answers(str(tmp_path / "back.db"), tmp_path) == original


def test_migrating_into_a_workspace_that_holds_events_is_refused(
    pg_database: str, tmp_path: Path
) -> None:
    source = str(tmp_path / "source.db")
    build(source, tmp_path)
    redstring("migrate", source, pg_database, cwd=tmp_path)
    again = subprocess.run(
        [sys.executable, "-m", "redstring.cli", "migrate", source, pg_database],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert again.returncode == 1
    assert "not empty" in again.stdout + again.stderr


def test_opening_a_database_without_a_workspace_is_refused(pg_database: str) -> None:
    with pytest.raises(WorkspaceError, match="no redstring workspace"):
        Workspace.open(pg_database, create=False)


def test_a_url_folded_by_pathlib_is_restored() -> None:
    from pathlib import Path

    url = "postgresql://u:p@127.0.0.1:5432/db"
    assert location(Path(url)) == url
    assert location(url) == url
    assert location("ws.db") == Path("ws.db")


def test_a_cli_step_closes_the_pools_its_event_loop_opened(pg_database: str) -> None:
    """Catches a CLI step that leaves its PostgreSQL pool open when its `asyncio.run`
    ends: the pool's workers, caught mid-connect by the loop's shutdown, made
    `redstring search` hang once in a few runs (test_migrate_... above timed out)."""
    from redstring.cli.app import run
    from redstring.storage import postgres

    db = postgres.PgDatabase(pg_database)

    async def step() -> int:
        async with db.transaction(postgres.ALL_TENANTS) as conn:
            row = await (await conn.execute("SELECT 1")).fetchone()
        assert db in postgres._open
        return int(row[0]) if row else 0

    assert run(step()) == 1
    assert db not in postgres._open
    assert db._pool is None
