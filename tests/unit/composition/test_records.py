"""Structured records become entities directly, and a re-import adds nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING
from uuid import uuid4

import pytest

from redstring.composition import records
from redstring.composition.records import RecordMapping, import_records, name_columns
from redstring.composition.workspace import Workspace
from redstring.domain.entity import named_by_key
from redstring.domain.exceptions import InvalidInputError
from redstring.domain.ids import TenantId
from redstring.embeddings.fake import FakeEmbeddingProvider

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from pydantic import JsonValue

ROWS = [
    {"id": "1", "name": "John Smith", "kind": "person", "dob": "1900-01-01"},
    {"id": "2", "name": "John Smith", "kind": "person", "dob": "1950-05-05"},
    {"id": "3", "name": "", "kind": "person"},
    {"id": "4", "name": "Acme Ltd", "kind": "organization", "employees": 7},
]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


async def test_records_become_entities_and_same_names_stay_distinct() -> None:
    """Two "John Smith" records may be two people: ids come from the record, not the name."""
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    report = await import_records(
        ROWS,
        workspace=workspace,
        tenant_id=tenant,
        source_id="people.csv",
        mapping=RecordMapping(name_field="name", type_field="kind", id_field="id"),
        observed_at=NOW,
        embeddings=FakeEmbeddingProvider(dimension=384),
    )
    assert (report.records, report.entities, report.skipped, report.embedded) == (4, 3, 1, 3)
    entities = await workspace.graph.list_entities(tenant)
    assert sorted(e.name for e in entities) == ["Acme Ltd", "John Smith", "John Smith"]
    acme = next(e for e in entities if e.name == "Acme Ltd")
    assert acme.properties == {"employees": 7}
    assert acme.provenance[0].source_id == "people.csv#4"


async def test_a_record_without_a_name_is_kept_under_its_key_for_its_other_fields() -> None:
    """Catches a nameless record dropped (its id number and birth date would still
    find its duplicates; a user's row is lost), or one with nothing but a type kept."""
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    rows: list[dict[str, JsonValue]] = [
        {"id": "7", "given": "", "family": "", "dob": "1900-01-01", "ssn": "123"},
        {"id": "8", "given": "", "family": ""},
        {"given": "", "family": "", "ssn": "456"},
        {"id": "9", "given": "Ada", "family": "King", "ssn": "123"},
    ]
    report = await import_records(
        rows,
        workspace=workspace,
        tenant_id=tenant,
        source_id="people.csv",
        mapping=RecordMapping(entity_type="Person", id_field="id"),
        observed_at=NOW,
    )
    assert (report.entities, report.unnamed, report.skipped) == (3, 2, 1)
    entities = {e.name: e for e in await workspace.graph.list_entities(tenant)}
    assert sorted(entities) == ["#7", "#row:3", "Ada King"]
    assert entities["#7"].properties == {"dob": "1900-01-01", "ssn": "123"}
    assert named_by_key(entities["#7"])
    assert named_by_key(entities["#row:3"])
    assert not named_by_key(entities["Ada King"])


async def test_a_reimport_appends_nothing() -> None:
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    mapping = RecordMapping(name_field="name", entity_type="person", id_field="id")
    await import_records(
        ROWS,
        workspace=workspace,
        tenant_id=tenant,
        source_id="p.csv",
        mapping=mapping,
        observed_at=NOW,
    )
    position = await workspace.log.last_position()
    again = await import_records(
        ROWS,
        workspace=workspace,
        tenant_id=tenant,
        source_id="p.csv",
        mapping=mapping,
        observed_at=NOW,
    )
    # Record 3 has no name but a value ("kind", a property under a fixed type): kept.
    assert (again.entities, again.unchanged) == (0, 4)
    assert await workspace.log.last_position() == position


def test_a_mapping_needs_exactly_one_type_source() -> None:
    with pytest.raises(InvalidInputError, match="exactly one"):
        RecordMapping(name_field="name")
    with pytest.raises(InvalidInputError, match="exactly one"):
        RecordMapping(name_field="name", type_field="kind", entity_type="person")


@pytest.mark.parametrize(
    ("columns", "chosen"),
    [
        (["id", "Name", "full_name"], ("Name",)),
        (["Unnamed: 0", "rec_id", "given_name", "surname"], ("given_name", "surname")),
        (["id", "display_name", "given_name", "family_name"], ("display_name",)),
        (["id", "fullname", "city"], ("fullname",)),
        (
            ["id", "surname", "forename", "middle_names", "dob"],
            ("forename", "middle_names", "surname"),
        ),
        (["id", "first_name", "last_name"], ("first_name", "last_name")),
        (
            ["voter_id", "last_name", "first_name", "middle_name", "name_suffix"],
            ("first_name", "middle_name", "last_name"),
        ),
        (
            ["id_cliente", "nombre", "apellido1", "apellido2", "dni"],
            ("nombre", "apellido1", "apellido2"),
        ),
        (["id", "title", "manufacturer", "price"], ("title",)),
        (["id", "Product Title", "brand"], ("Product Title",)),
        (["id", "headline", "year"], ("headline",)),
    ],
)
def test_a_file_without_a_name_column_names_records_from_its_columns(
    columns: list[str], chosen: tuple[str, ...]
) -> None:
    assert name_columns(columns, None) == chosen


def test_no_name_column_is_a_typed_error_that_lists_the_columns() -> None:
    with pytest.raises(InvalidInputError, match="columns are: id, company, city"):
        name_columns(["id", "company", "city"], None)
    with pytest.raises(InvalidInputError, match="several columns"):
        name_columns(["id", "company_name", "brand_name"], None)
    with pytest.raises(InvalidInputError, match="no name column"):
        name_columns(["title_no", "address", "postcode", "owner"], None)
    with pytest.raises(InvalidInputError, match="no column 'nom'"):
        name_columns(["id", "name"], "nom")
    # A job title is a post, not the record's title; two titles are ambiguous.
    with pytest.raises(InvalidInputError, match="columns are: id, job_title, city"):
        name_columns(["id", "job_title", "city"], None)
    with pytest.raises(InvalidInputError, match="no name column"):
        name_columns(["id", "title", "headline"], None)


async def test_split_name_parts_make_the_name_and_stay_properties() -> None:
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    rows: list[dict[str, JsonValue]] = [
        {"id": "1", "given_name": "Ada", "middle_name": "", "family_name": "Lovelace"},
        {"id": "2", "given_name": "Charles", "middle_name": "B.", "family_name": "Babbage"},
    ]
    report = await import_records(
        rows,
        workspace=workspace,
        tenant_id=tenant,
        source_id="people.csv",
        mapping=RecordMapping(entity_type="person", id_field="id"),
        observed_at=NOW,
    )
    assert report.name_source == "given_name + middle_name + family_name"
    entities = await workspace.graph.list_entities(tenant)
    assert sorted(e.name for e in entities) == ["Ada Lovelace", "Charles B. Babbage"]
    assert all("family_name" in e.properties for e in entities)


async def test_a_name_repeated_across_batches_is_embedded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Duplicates are why records get consolidated; the model sees each name once."""
    monkeypatch.setattr(records, "BATCH", 2)
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    provider = FakeEmbeddingProvider(dimension=384)
    embedded: list[str] = []
    real = provider.embed

    async def counting(texts: Sequence[str]) -> list[list[float]]:
        embedded.extend(texts)
        return await real(texts)

    monkeypatch.setattr(provider, "embed", counting)
    rows: list[dict[str, JsonValue]] = [
        {"id": str(n), "name": name} for n, name in enumerate(["Ada", "Bob", "Ada", "Cy", "Bob"])
    ]
    report = await import_records(
        rows,
        workspace=workspace,
        tenant_id=tenant,
        source_id="people.csv",
        mapping=RecordMapping(entity_type="person", id_field="id"),
        observed_at=NOW,
        embeddings=provider,
    )
    assert report.embedded == 5
    assert sorted(embedded) == ["Ada", "Bob", "Cy"]


async def test_batches_commit_together_and_a_failure_keeps_only_whole_commits(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Catches a commit per batch (a sync to disk each) and a group that keeps part of
    itself: with 2 records a batch and 2 batches a commit, a failure after the fourth
    batch keeps the first commit's 4 records (one commit per batch kept 6), and a
    rerun adds the other 5."""
    monkeypatch.setattr(records, "BATCH", 2)
    monkeypatch.setattr(records, "BATCHES_PER_COMMIT", 2)
    rows: list[dict[str, JsonValue]] = [{"id": str(n), "name": f"Person {n}"} for n in range(9)]
    mapping = RecordMapping(entity_type="person", id_field="id")

    def fail_after_fourth(done: int, total: int) -> None:
        if done == 8:
            raise RuntimeError("killed")

    with Workspace.open(tmp_path / "w.db", create=True) as workspace:
        tenant = workspace.register_tenant("t")
        with pytest.raises(RuntimeError):
            await import_records(
                rows,
                workspace=workspace,
                tenant_id=tenant,
                source_id="people.csv",
                mapping=mapping,
                observed_at=NOW,
                progress=fail_after_fourth,
            )
    with Workspace.open(tmp_path / "w.db") as workspace:
        tenant = workspace.tenant("t")
        assert len(await workspace.graph.list_entities(tenant)) == 4
        again = await import_records(
            rows,
            workspace=workspace,
            tenant_id=tenant,
            source_id="people.csv",
            mapping=mapping,
            observed_at=NOW,
        )
        assert (again.entities, again.unchanged) == (5, 4)
        assert len(await workspace.graph.list_entities(tenant)) == 9


@pytest.mark.parametrize(
    ("text", "delimiter"),
    [
        ("id;name;city\n1;Ann Lee;Leeds\n", ";"),
        ("\ufeffid\tname\tcity\n1\tAnn Lee\tLeeds\n", "\t"),
        ('id,name,city\n1,"Lee; Ann",Leeds\n', ","),
        ("name\nAnn Lee\n", ","),
    ],
)
def test_a_csv_files_delimiter_is_read_from_its_header(
    tmp_path: Path, text: str, delimiter: str
) -> None:
    """Catches a semicolon export (Excel in much of Europe) read as one column named
    "id;name;city", every record keyed by its row."""
    assert records.csv_delimiter(text) == delimiter
    path = tmp_path / "people.csv"
    path.write_text(text, encoding="utf-8")
    rows = records.read_records(path)
    assert rows[0]["name"] in ("Ann Lee", "Lee; Ann")


def test_an_id_column_the_file_lacks_is_a_typed_error() -> None:
    with pytest.raises(InvalidInputError, match="no column 'rec' for the id; the columns"):
        RecordMapping(entity_type="Person", id_field="rec").for_columns(["id", "name"])


def test_a_tsv_file_is_read_as_records(tmp_path: Path) -> None:
    path = tmp_path / "people.tsv"
    path.write_text("id\tname\n1\tAnn Lee\n", encoding="utf-8")
    assert records.read_records(path) == [{"id": "1", "name": "Ann Lee"}]


async def test_a_record_repeating_an_earlier_id_is_kept_under_its_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Catches a later record overwriting an earlier one of the same id (one entity
    id for both): two shops' files joined, each numbering from 1, lost half their
    records. Across batches too; a second import adds nothing."""
    monkeypatch.setattr(records, "BATCH", 2)
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    rows: list[dict[str, JsonValue]] = [
        {"id": "1", "name": "Ann Lee"},
        {"id": "2", "name": "Cy Dee"},
        {"id": "1", "name": "Bob Ray"},
    ]
    mapping = RecordMapping(entity_type="person", id_field="id")
    report = await import_records(
        rows, workspace=workspace, tenant_id=tenant, source_id="joined.csv",
        mapping=mapping, observed_at=NOW,
    )  # fmt: skip
    assert report.repeated_ids == 1
    entities = await workspace.graph.list_entities(tenant)
    assert sorted(e.name for e in entities) == ["Ann Lee", "Bob Ray", "Cy Dee"]
    bob = next(e for e in entities if e.name == "Bob Ray")
    assert bob.provenance[0].source_id == "joined.csv#row:3"
    again = await import_records(
        rows, workspace=workspace, tenant_id=tenant, source_id="joined.csv",
        mapping=mapping, observed_at=NOW,
    )  # fmt: skip
    assert again.entities == 0
    assert again.unchanged == 3
