"""A benchmark record set's rows ingested as a user's CSV would be, for the tests that
resolve real-shaped records (`bench.variants`)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pytest
from bench import variants

from redstring.composition.records import RecordMapping, import_records
from redstring.composition.workspace import Workspace
from redstring.consolidation.engine import resolve_sync
from redstring.consolidation.metrics import PRF, pairwise_prf

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from bench.variants import RecordSet

    from redstring.domain.entity import Entity

#: The source every row is ingested from: a record's provenance is `SOURCE#<id>`.
SOURCE = "people.csv"

#: Marks a test module that builds the benchmark's record sets: skipped unless the
#: shared data sits beside the repository (as CI has it).
needs_shared_data = pytest.mark.skipif(
    not (variants.DATA / variants.PEOPLE_FILE).exists(),
    reason="shared/data is not beside the repo",
)


def ingested(records: RecordSet, rows: Sequence[dict[str, Any]], path: Path) -> list[Entity]:
    """`rows` (of `records`' schema) imported into a fresh workspace at `path` with
    the set's `--type/--id-column/--name-column` mapping, from `SOURCE` (a second
    system's rows from their own file, `RecordSet.sources`); its entities."""
    files: dict[str, list[dict[str, Any]]] = {}
    for row, source in zip(rows, records.sources(SOURCE, rows), strict=True):
        files.setdefault(source, []).append(row)
    with Workspace.open(path, create=True) as workspace:
        tenant = workspace.register_tenant("records")
        for source, held in files.items():
            asyncio.run(
                import_records(
                    held,
                    workspace=workspace,
                    tenant_id=tenant,
                    source_id=source,
                    mapping=RecordMapping(
                        name_field=records.name_column,
                        entity_type=records.entity_type,
                        id_field=records.id_column,
                    ),
                    observed_at=datetime(2026, 1, 1, tzinfo=UTC),
                )
            )
        return asyncio.run(workspace.graph.list_entities(tenant))


def engine_f1(records: RecordSet, path: Path) -> float:
    """Pairwise F1 of the engine's clusters on all of `records`, ingested at `path`."""
    return engine_prf(records, path).f1


def engine_prf(records: RecordSet, path: Path) -> PRF:
    """Pairwise precision, recall and F1 of the engine's clusters on all of
    `records`, ingested at `path`."""
    entities = ingested(records, records.rows, path)
    identity = {
        f"{source}#{row[records.id_column]}": gold
        for row, gold, source in zip(
            records.rows, records.gold, records.sources(SOURCE), strict=True
        )
    }
    of = {e.id: identity[p.source_id] for e in entities for p in e.provenance}
    cluster = {i: k for k, members in enumerate(resolve_sync(entities).clusters) for i in members}
    ids = list(of)
    return pairwise_prf([cluster.get(i, i) for i in ids], [of[i] for i in ids])
