"""Structured records (CSV rows, JSON objects) straight into the graph, no extraction.

Each record becomes one entity: its name from a named field (or, in a file with
no name column, from its given-, middle- and family-name columns), its type from a
field or a fixed type, every other non-empty field a property. The entity id is
derived from the source and the record's own id field (or its row number), *not*
from its name: two records called "John Smith" may be two people, and deciding
that is consolidation's job, with its measured thresholds, not an accident of
id derivation. Re-importing the same file therefore upserts the same entities.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast
from uuid import uuid5

from redstring.consolidation.heap import run_heap
from redstring.consolidation.kinds import column_words, name_part
from redstring.domain.entity import Entity, key_name, named_by_key
from redstring.domain.exceptions import InvalidInputError, UnreadableFileError
from redstring.domain.ids import EntityId
from redstring.domain.json_text import JsonTextError, parse_json
from redstring.domain.provenance import Provenance
from redstring.events.ingest import RecordsImported
from redstring.events.streams import records_stream

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence
    from datetime import datetime
    from pathlib import Path

    from pydantic import JsonValue

    from redstring.composition.build_graph import VectorCache
    from redstring.composition.workspace import Workspace
    from redstring.domain.ids import TenantId
    from redstring.ports.embedding import EmbeddingProvider

#: Records per `RecordsImported` event: bounds one event's size in the log.
BATCH = 1000
#: Batches committed together when no model is called in between.
BATCHES_PER_COMMIT = 10


def read_text_file(path: Path) -> str:
    """A document's text; `UnreadableFileError` naming the file if it is not UTF-8 text.
    A leading byte-order mark (Excel's "CSV UTF-8" writes one) is no part of it: left
    in, it joined the first column's name ("\ufeffid"), and `--id-column id` found no
    such column."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnreadableFileError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from exc
    except OSError as exc:
        raise UnreadableFileError(f"{path}: cannot read ({exc.strerror or exc})") from exc


def read_records(path: Path) -> list[dict[str, JsonValue]]:
    """Every record of a `.csv` or `.tsv` file (header row first) or a JSONL file (one
    object a line).

    The whole file is read and checked before anything is returned, so a bad line
    refuses the file before any of it is stored. `UnreadableFileError` names the line.
    """
    text = read_text_file(path)
    if path.suffix.lower() in (".csv", ".tsv"):
        return _csv_records(path, text)
    return _jsonl_records(path, text)


#: Delimiters a CSV file may use: spreadsheets in much of Europe write ';', others tabs.
CSV_DELIMITERS = (",", ";", "\t", "|")


def csv_delimiter(text: str) -> str:
    """The delimiter of a CSV file: the one its header line holds most often (a
    header rarely holds a comma of its own), ',' when it holds none."""
    header = text.split("\n", 1)[0]
    counts = {d: header.count(d) for d in CSV_DELIMITERS}
    best = max(CSV_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


def _csv_records(path: Path, text: str) -> list[dict[str, JsonValue]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=csv_delimiter(text))
    records: list[dict[str, JsonValue]] = []
    header: list[str] | None = None
    try:
        for row in reader:
            if header is None:
                header = [name.strip() for name in row]
                duplicated = sorted({n for n in header if header.count(n) > 1})
                if duplicated:
                    raise UnreadableFileError(
                        f"{path}:1: the header names column {duplicated[0]!r} twice"
                    )
                continue
            if not row:
                continue
            if len(row) > len(header):
                raise UnreadableFileError(
                    f"{path}:{reader.line_num}: {len(row)} fields, but the header names "
                    f"{len(header)} columns"
                )
            records.append(dict(zip(header, row, strict=False)))
    except csv.Error as exc:
        raise UnreadableFileError(f"{path}:{reader.line_num}: not valid CSV ({exc})") from exc
    return records


def _jsonl_records(path: Path, text: str) -> list[dict[str, JsonValue]]:
    records: list[dict[str, JsonValue]] = []
    # Split on newlines only: `splitlines` also splits on U+2028 and friends, which
    # JSON allows unescaped inside a string.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = parse_json(line)
        except JsonTextError as exc:
            raise UnreadableFileError(f"{path}:{number}: {exc}") from exc
        if not isinstance(value, dict):
            raise UnreadableFileError(f"{path}:{number}: each line must be a JSON object")
        records.append(cast("dict[str, JsonValue]", value))
    return records


@dataclass(frozen=True)
class RecordMapping:
    """Which fields of a record make the entity.

    `name_field` None: each source's columns choose it (`name_columns`).
    """

    name_field: str | None = None
    type_field: str | None = None
    entity_type: str | None = None
    id_field: str | None = None
    #: Columns joined, in order, into the name when no one column holds it.
    name_parts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if (self.type_field is None) == (self.entity_type is None):
            raise InvalidInputError("give exactly one of a type field or a fixed entity type")

    def for_columns(self, columns: Sequence[str]) -> RecordMapping:
        """This mapping with its name source chosen among `columns` (a file's header).

        An id column the header lacks is a typed error naming the columns: a file read
        with the wrong delimiter, or a misspelt option, would otherwise key every
        record by its row number. (A type column may be missing from some records:
        those are counted as without a type.)"""
        chosen = name_columns(columns, self.name_field)
        if self.id_field is not None and self.id_field not in columns:
            raise InvalidInputError(
                f"no column {self.id_field!r} for the id; the columns are: "
                f"{', '.join(columns) or 'none'}"
            )
        if len(chosen) == 1:
            return replace(self, name_field=chosen[0], name_parts=())
        return replace(self, name_field=None, name_parts=chosen)

    @property
    def name_source(self) -> str:
        """How the name is made, for a report: a column, or parts joined with " + "."""
        return self.name_field or " + ".join(self.name_parts)


#: Words of a header that say its column numbers things.
_NUMBER_WORDS = frozenset({"no", "nr", "num", "number", "id", "ref"})
#: Words of a header that say its column holds what goes beside a name, not one.
_ADJUNCT_WORDS = frozenset({"suffix", "prefix", "salutation", "honorific", "initials"})
#: Words of a header that say its column titles the record when no column names it.
_TITLE_WORDS = frozenset({"title", "headline", "label"})
#: ...unless it says the title is a post someone holds ("job_title").
_POST_WORDS = frozenset({"job", "position", "role", "occupation"})


def name_columns(columns: Sequence[str], requested: str | None) -> tuple[str, ...]:
    """The column, or the given/middle/family columns in that order, that make a name.

    Without a `requested` column: `name` in any case, else the one column whose header
    says it is a whole name ("full_name", "display_name", "company_name"), else split
    name parts (one or two family names: a Spanish name's two surnames), else the
    one column whose header says it titles the record ("title",
    "product_title", "headline", "label": products, papers and articles are named
    so). A typed error names the columns when none of these fits, rather than
    importing a file as "no record has a name".
    """
    shown = ", ".join(columns) or "none"
    if requested is not None:
        if requested not in columns:
            raise InvalidInputError(
                f"no column {requested!r} for the name; the columns are: {shown}"
            )
        return (requested,)
    by_lower = {column.lower(): column for column in columns}
    if "name" in by_lower:
        return (by_lower["name"],)
    parts = {column: name_part(column) for column in columns}
    whole = [
        column
        for column in columns
        if "name" in column.lower()
        # pandas writes its row index as "Unnamed: 0": no name, whatever it says.
        and not column.lower().startswith("unnamed")
        # A voter roll's "name_suffix" ("JR") or a "name_prefix" is a part of none.
        and not _ADJUNCT_WORDS & column_words(column)
        and (parts[column] is None or "full" in column.lower())
    ]
    if len(whole) == 1:
        return (whole[0],)
    if len(whole) > 1:
        raise InvalidInputError(
            f"several columns could be the name ({', '.join(whole)}): choose one with --name-column"
        )
    given = [column for column in columns if parts[column] == "given"]
    middle = [column for column in columns if parts[column] == "middle"]
    family = [column for column in columns if parts[column] == "family"]
    # Two family-name columns are a Spanish or Portuguese name's two surnames
    # ("apellido1", "apellido2"), written after the given name in their order.
    if len(given) == 1 and 1 <= len(family) <= 2 and len(middle) <= 1:
        return (given[0], *middle, *family)
    titled = [
        column
        for column in columns
        if _TITLE_WORDS & (words := column_words(column))
        # "title_no": a land register's title number, an id, not a title.
        and not words & (_POST_WORDS | _NUMBER_WORDS)
    ]
    if len(titled) == 1:
        return (titled[0],)
    raise InvalidInputError(
        f"no name column (none called 'name', no single whole-name column, no given and "
        f"family name columns); the columns are: {shown}. Choose one with --name-column"
    )


def columns_of(records: Sequence[Mapping[str, JsonValue]]) -> list[str]:
    """Every field any record has, in first-seen order (a CSV's header; JSONL's union)."""
    return list(dict.fromkeys(key for record in records for key in record if isinstance(key, str)))


@dataclass
class ImportReport:
    source_id: str
    records: int = 0
    entities: int = 0
    #: Records without a type, or with nothing but a type: nothing to resolve on.
    skipped: int = 0
    #: Records without a name, kept under their key for their other fields.
    unnamed: int = 0
    #: Records already in the graph exactly as given (a re-import adds nothing).
    unchanged: int = 0
    embedded: int = 0
    #: Records whose id an earlier record of the file holds: kept under their row.
    repeated_ids: int = 0
    #: The column(s) the names came from.
    name_source: str = ""


def record_to_entity(
    record: Mapping[str, JsonValue],
    row: int,
    *,
    mapping: RecordMapping,
    tenant_id: TenantId,
    source_id: str,
    observed_at: datetime,
    by_row: bool = False,
) -> Entity | None:
    """The entity for one record, or `None` when it has no type or nothing besides
    one (it is counted, not stored). A record without a name is kept under its key
    (`key_name`): its other fields (an id number, a birth date, an address) still
    find its duplicates, and dropping it would lose what the user gave. `by_row`
    keys it by its row even when it has an id (an earlier record holds that id)."""
    if mapping.name_field is not None:
        name = record.get(mapping.name_field)
    else:
        pieces = (record.get(part) for part in mapping.name_parts)
        name = " ".join(p.strip() for p in pieces if isinstance(p, str) and p.strip())
    entity_type = (
        mapping.entity_type
        if mapping.entity_type is not None
        else record.get(mapping.type_field or "")
    )
    if not isinstance(entity_type, str) or not entity_type.strip():
        return None
    key = record.get(mapping.id_field) if mapping.id_field and not by_row else None
    record_key = str(key) if key not in (None, "") else f"row:{row}"
    used = {mapping.name_field, mapping.type_field, mapping.id_field}
    properties = {k: v for k, v in record.items() if k not in used and v not in (None, "")}
    if not isinstance(name, str) or not name.strip():
        if not properties:
            return None
        name = key_name(record_key)
    entity = Entity(
        id=EntityId(uuid5(tenant_id, f"record:{source_id}:{record_key}")),
        tenant_id=tenant_id,
        name=name.strip(),
        entity_type=entity_type.strip(),
        properties=properties,
        provenance=[
            Provenance(
                observed_at=observed_at, method="record", source_id=f"{source_id}#{record_key}"
            )
        ],
    )
    return entity


def repeated_rows(records: Sequence[Mapping[str, JsonValue]], id_field: str | None) -> set[int]:
    """Rows (from 1) whose id an earlier record holds. Keyed by the id alone, the later
    record would overwrite the earlier one (one entity id for both) and a record the
    user gave would be lost; keyed by its row, both are kept."""
    if id_field is None:
        return set()
    seen: set[str] = set()
    repeated: set[int] = set()
    for row, record in enumerate(records, start=1):
        key = record.get(id_field)
        if key in (None, ""):
            continue
        if str(key) in seen:
            repeated.add(row)
        seen.add(str(key))
    return repeated


async def import_records(
    records: Sequence[Mapping[str, JsonValue]],
    *,
    workspace: Workspace,
    tenant_id: TenantId,
    source_id: str,
    mapping: RecordMapping,
    observed_at: datetime,
    embeddings: EmbeddingProvider | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Append `RecordsImported` events for `records` in batches, project, and embed."""
    mapping = mapping.for_columns(columns_of(records)) if records else mapping
    repeated = repeated_rows(records, mapping.id_field)
    report = ImportReport(
        source_id=source_id,
        records=len(records),
        name_source=mapping.name_source,
        repeated_ids=len(repeated),
    )
    # Records repeat names (duplicates are why they are consolidated): embed each once.
    # Extraction's module holds the cache: imported only to embed (~0.05 s of imports).
    known = None
    if embeddings is not None:
        from redstring.composition.build_graph import VectorCache

        known = VectorCache()
    # Without model calls inside, several batches commit together: each commit is a
    # sync to disk (people-export-10k: 1.44 s with one per batch, 1.22 s with one).
    per_commit = BATCH * (BATCHES_PER_COMMIT if embeddings is None else 1)
    with run_heap():
        for first in range(0, len(records), per_commit):
            with workspace.atomic():
                for start in range(first, min(len(records), first + per_commit), BATCH):
                    await _import_batch(
                        records[start : start + BATCH],
                        start,
                        workspace=workspace,
                        tenant_id=tenant_id,
                        source_id=source_id,
                        mapping=mapping,
                        observed_at=observed_at,
                        embeddings=embeddings,
                        known=known,
                        report=report,
                        repeated=repeated,
                    )
                    if progress is not None:
                        progress(min(start + BATCH, len(records)), len(records))
    return report


async def _import_batch(
    records: Sequence[Mapping[str, JsonValue]],
    start: int,
    *,
    workspace: Workspace,
    tenant_id: TenantId,
    source_id: str,
    mapping: RecordMapping,
    observed_at: datetime,
    embeddings: EmbeddingProvider | None,
    known: VectorCache | None,
    report: ImportReport,
    repeated: Collection[int],
) -> None:
    """One `RecordsImported` event for the records of `records` the graph does not
    already hold as they are, with their vectors, folded into the stores. Rows in
    `repeated` are keyed by their row (`repeated_rows`)."""
    batch = []
    for row, record in enumerate(records, start=start + 1):
        entity = record_to_entity(
            record,
            row,
            mapping=mapping,
            tenant_id=tenant_id,
            source_id=source_id,
            observed_at=observed_at,
            by_row=row in repeated,
        )
        if entity is None:
            report.skipped += 1
        else:
            report.unnamed += named_by_key(entity)
            batch.append(entity)
    named = len(batch)
    batch = await _unseen(workspace, tenant_id, batch)
    report.unchanged += named - len(batch)
    if not batch:
        return
    # The vectors are computed first and committed with the records in one
    # transaction: a crash between the two appends would leave records that a
    # rerun finds unchanged and so never embeds.
    vectors = None
    if embeddings is not None and known is not None:
        from redstring.composition.build_graph import vectors_event

        vectors = await vectors_event(workspace, tenant_id, batch, embeddings, known)
    stream = records_stream(tenant_id, source_id)
    with workspace.atomic():
        version = await workspace.log.stream_version(stream, tenant_id)
        event = RecordsImported(tenant_id=tenant_id, source_id=source_id, entities=batch)
        await workspace.append(stream, [event], expected_version=version)
        if vectors is not None:
            from redstring.composition.build_graph import append_vectors

            await append_vectors(workspace, vectors)
        await workspace.catch_up()
    report.entities += len(batch)
    report.embedded += 0 if vectors is None else len(vectors.vectors)


async def _unseen(workspace: Workspace, tenant_id: TenantId, batch: list[Entity]) -> list[Entity]:
    """The entities of `batch` the graph does not already hold with these same fields."""
    stored = {e.id: e for e in await workspace.graph.get_entities([e.id for e in batch], tenant_id)}
    return [
        entity
        for entity in batch
        if (known := stored.get(entity.id)) is None
        or (known.name, known.entity_type, known.properties)
        != (entity.name, entity.entity_type, entity.properties)
    ]
