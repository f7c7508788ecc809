"""Each use case once: ingest, consolidate, undo, search, context, ask, show,
neighbours, export and stats.

The CLI, the HTTP API and the MCP server call these functions and only parse
arguments and print or serialise what they return, so a behaviour fixed here is
fixed for all three. A use case takes an open `Workspace` and a tenant id; it
never chooses how the workspace was opened (one connection for the CLI, a writer
thread and reader threads for a server: `redstring.application.service`).

Extraction (`build_graph`) and the resolver (`consolidation`) are imported by the
use cases that run them: every command imports this module, and most need neither
(~0.07 s of a command's start).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any
from uuid import UUID
from xml.etree import ElementTree

from redstring._lazy import lazy_exports
from redstring.application.workspaces import (
    Workspace,
    make_llm,
    retriever,
    workspace_embedder_kind,
)
from redstring.composition.answer import answer_question
from redstring.composition.context import (
    DEFAULT_TOKEN_BUDGET,
    ContextBuilder,
    render_relationship,
)
from redstring.composition.records import (
    RecordMapping,
    import_records,
    read_records,
    read_text_file,
)
from redstring.domain.blocking import query_blocking_keys
from redstring.domain.exceptions import InvalidInputError, NotFoundError, UnreadableFileError
from redstring.domain.ids import EntityId
from redstring.domain.normalization import normalize_name
from redstring.domain.retrieval import RetrievalMode
from redstring.events.base import decode
from redstring.events.merge import EntitiesMerged, MergeUndone

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path

    from pydantic import JsonValue

    from redstring.composition.answer import GroundedAnswer
    from redstring.composition.consolidation import ConsolidationReport
    from redstring.domain.context import ContextAnswer
    from redstring.domain.entity import Entity
    from redstring.domain.ids import TenantId
    from redstring.domain.relationship import Relationship
    from redstring.domain.retrieval import RetrievalResult
    from redstring.ports.embedding import EmbeddingProvider
    from redstring.ports.llm import LlmProvider

__getattr__, __dir__ = lazy_exports(
    globals(), {"ConsolidationReport": "redstring.composition.consolidation"}
)

__all__ = [
    "DEFAULT_TOKEN_BUDGET",
    "ConsolidationReport",
    "EntityView",
    "ExportFormat",
    "GraphExport",
    "IngestRow",
    "MergeView",
    "RecordMapping",
    "ask",
    "consolidate",
    "context",
    "expand_paths",
    "export",
    "field_overrides",
    "ingest_files",
    "ingest_records",
    "ingest_texts",
    "merges_of",
    "neighbours",
    "render_relationship",
    "replay",
    "report_dict",
    "resolve_entity",
    "search",
    "show",
    "stats",
    "undo_merge",
]

TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".rst", ".text"})
RECORD_SUFFIXES = frozenset({".csv", ".tsv", ".jsonl", ".ndjson"})


class ExportFormat(StrEnum):
    JSONL = "jsonl"
    GRAPHML = "graphml"


# -- ingest ---------------------------------------------------------------------------


@dataclass
class IngestRow:
    """What ingesting one source (a file, or a named text) did."""

    file: str
    status: str
    entities: int
    relationships: int
    embedded: int
    #: Model calls and tokens extraction paid for this source (0 without an LLM).
    llm_calls: int = 0
    tokens: int = 0

    @property
    def failed(self) -> bool:
        return self.status.startswith("failed")


def expand_paths(paths: Sequence[Path]) -> list[Path]:
    """The files `ingest` reads from `paths` (folders searched for known suffixes)."""
    files: list[Path] = []
    for path in paths:
        if not path.exists():
            raise UnreadableFileError(f"{path}: no such file or folder")
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES | RECORD_SUFFIXES
            )
            if not found:
                raise UnreadableFileError(
                    f"{path}: no .txt, .md, .csv or .jsonl files in this folder"
                )
            files.extend(found)
        elif path.suffix.lower() in TEXT_SUFFIXES | RECORD_SUFFIXES:
            files.append(path)
        else:
            raise UnreadableFileError(
                f"{path}: unsupported file type {path.suffix or '(none)'}; "
                "use .txt/.md for documents, .csv/.tsv/.jsonl for records"
            )
    return files


def is_records_file(path: Path) -> bool:
    return path.suffix.lower() in RECORD_SUFFIXES


async def ingest_files(
    files: Sequence[Path],
    workspace: Workspace,
    tenant_id: TenantId,
    *,
    provider: LlmProvider | None,
    domain: str,
    embeddings: EmbeddingProvider | None,
    mapping: RecordMapping | None,
    progress: Callable[[int, int, str], None] | None = None,
) -> list[IngestRow]:
    """Ingest documents and records files; one row per file, in the given order.
    `progress(done, total, description)` hears how far it has come, in files.

    Every records file is read and checked before any is imported: a bad line in the
    last file refuses the call with the store untouched.
    """
    record_files = {file: read_records(file) for file in files if is_records_file(file)}
    texts = [file for file in files if not is_records_file(file)]
    rows: dict[str, IngestRow] = {}
    done = 0
    for file, records in record_files.items():
        if progress is not None:
            progress(done, len(files), f"ingesting {file.name}")
        if mapping is None:
            mapping = RecordMapping(type_field="type")
        rows[str(file)] = await ingest_records(
            records, workspace, tenant_id, source_id=file.name, mapping=mapping,
            label=str(file),
        )  # fmt: skip
        done += 1
    # Extraction's modules (~0.05 s of imports) only where there is text to extract.
    batch_size = _extraction_batch() if texts else 1
    for first in range(0, len(texts), batch_size):
        batch = texts[first : first + batch_size]
        if progress is not None:
            progress(done, len(files), f"ingesting {batch[0].name} ...")
        built = await ingest_texts(
            [(file.name, read_text_file(file)) for file in batch],
            workspace,
            tenant_id,
            provider=provider,
            domain=domain,
            embeddings=embeddings,
            labels=[str(file) for file in batch],
        )
        rows.update((row.file, row) for row in built)
        done += len(batch)
    if progress is not None:
        progress(done, len(files), "ingested")
    return [rows[str(file)] for file in files]


def _extraction_batch() -> int:
    from redstring.composition.build_graph import DEFAULT_BATCH

    return DEFAULT_BATCH


async def ingest_records(
    records: Sequence[Mapping[str, JsonValue]],
    workspace: Workspace,
    tenant_id: TenantId,
    *,
    source_id: str,
    mapping: RecordMapping,
    label: str | None = None,
) -> IngestRow:
    """Structured records become entities directly (no extraction). They are not
    embedded here: the first search that needs their vectors embeds the ones still
    live then (`embed_missing`)."""
    report = await import_records(
        [dict(record) for record in records],
        workspace=workspace,
        tenant_id=tenant_id,
        source_id=source_id,
        mapping=mapping,
        observed_at=datetime.now(UTC),
    )
    status = "ok" if report.entities else "unchanged" if report.unchanged else "empty"
    if report.name_source not in ("", "name"):
        status += f" (names from {report.name_source})"
    if report.unnamed:
        status += f" ({report.unnamed} records without a name kept under their key)"
    if report.repeated_ids:
        status += f" ({report.repeated_ids} records repeating an earlier id kept under their row)"
    if report.skipped:
        status += f" ({report.skipped} records without a type or any value skipped)"
    return IngestRow(label or source_id, status, report.entities, 0, report.embedded)


async def ingest_texts(
    documents: Sequence[tuple[str, str]],
    workspace: Workspace,
    tenant_id: TenantId,
    *,
    provider: LlmProvider | None,
    domain: str,
    embeddings: EmbeddingProvider | None,
    labels: Sequence[str] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> list[IngestRow]:
    """`(source_id, text)` documents through extraction, a batch at a time: one
    projection catch-up and one embedding call per batch, not per document."""
    from redstring.composition.build_graph import DEFAULT_BATCH, build_graphs

    names = list(labels) if labels is not None else [source for source, _ in documents]
    rows: list[IngestRow] = []
    for first in range(0, len(documents), DEFAULT_BATCH):
        batch = documents[first : first + DEFAULT_BATCH]
        if progress is not None:
            progress(first, len(documents), f"ingesting {batch[0][0]} ...")
        built = await build_graphs(
            list(batch),
            workspace=workspace,
            tenant_id=tenant_id,
            provider=provider,
            domain=domain if provider is not None else None,
            embeddings=embeddings,
        )
        for name, one in zip(names[first : first + DEFAULT_BATCH], built, strict=True):
            status = "unchanged" if one.unchanged else "ok" if one.ok else f"failed: {one.error}"
            rows.append(
                IngestRow(
                    name, status, one.entities, one.relationships, one.embedded,
                    one.tokens.calls, one.tokens.total_tokens,
                )
            )  # fmt: skip
    if progress is not None:
        progress(len(documents), len(documents), "ingested")
    return rows


def row_dicts(rows: Sequence[IngestRow]) -> list[dict[str, Any]]:
    return [asdict(row) for row in rows]


# -- consolidate and undo -------------------------------------------------------------


def field_overrides(items: Sequence[str]) -> dict[str, str]:
    """`NAME=KIND` items (`--field born=date`) as a mapping; a typed error otherwise."""
    out = {}
    for item in items:
        name, sep, kind = item.partition("=")
        if not sep or not name.strip() or not kind.strip():
            raise InvalidInputError(f"--field {item!r}: expected NAME=KIND, e.g. born=date")
        out[name.strip()] = kind.strip()
    return out


async def consolidate(
    workspace: Workspace,
    tenant_id: TenantId,
    *,
    entity_types: Sequence[str] | None = None,
    adjudicate: bool = False,
    overrides: Mapping[str, str] | None = None,
) -> ConsolidationReport:
    """Find and merge duplicate entities (grey-band pairs kept apart unless adjudicated)."""
    from redstring.composition.consolidation import Consolidator
    from redstring.consolidation.adjudication import LlmAdjudicator

    adjudicator = LlmAdjudicator(make_llm()) if adjudicate else None
    consolidator = Consolidator(workspace, adjudicator=adjudicator)
    return await consolidator.consolidate(
        tenant_id,
        entity_types=list(entity_types) if entity_types else None,
        field_overrides=dict(overrides or {}),
    )


def report_dict(report: ConsolidationReport) -> dict[str, Any]:
    data = asdict(report)
    data["merge_ids"] = [str(m) for m in report.merge_ids]
    return data


def parse_merge_id(merge_id: str) -> UUID:
    try:
        return UUID(merge_id)
    except ValueError as exc:
        raise InvalidInputError(f"{merge_id!r} is not a merge id") from exc


async def undo_merge(workspace: Workspace, tenant_id: TenantId, merge_id: str) -> UUID:
    """Reverse one merge exactly (newer merges of the same entities must be undone first)."""
    from redstring.composition.consolidation import Consolidator

    parsed = parse_merge_id(merge_id)
    await Consolidator(workspace).undo(parsed, tenant_id)
    return parsed


# -- retrieval ------------------------------------------------------------------------


def _needs_model(embeddings: EmbeddingProvider | None, mode: RetrievalMode) -> None:
    if embeddings is None and mode is not RetrievalMode.LEXICAL:
        raise InvalidInputError("this workspace has no embedding model; use --mode lexical")


async def fill_vectors(
    workspace: Workspace, tenant_id: TenantId, embeddings: EmbeddingProvider | None
) -> int:
    """Embed the tenant's live entities that have no vector yet (records are not
    embedded at ingest: `build_graph.embed_missing`); how many were. A writer calls
    it before searching; searches themselves only read."""
    from redstring.composition.build_graph import embed_missing

    if embeddings is None:
        return 0
    return await embed_missing(workspace, tenant_id, embeddings)


async def search(
    workspace: Workspace,
    tenant_id: TenantId,
    query: str,
    *,
    embeddings: EmbeddingProvider | None,
    mode: RetrievalMode = RetrievalMode.HYBRID,
    k: int = 10,
    entity_types: Sequence[str] | None = None,
) -> RetrievalResult:
    """Ranked entities for free text, with each channel's score."""
    _needs_model(embeddings, mode)
    types = list(entity_types) if entity_types else None
    return await retriever(workspace, embeddings).retrieve(
        query, tenant_id, k=k, entity_types=types, mode=mode
    )


async def context(
    workspace: Workspace,
    tenant_id: TenantId,
    query: str,
    *,
    embeddings: EmbeddingProvider | None,
    mode: RetrievalMode,
    k: int,
    entity_types: Sequence[str] | None,
    hops: int,
    budget: int,
) -> ContextAnswer:
    """Entities, their neighbourhood and supporting passages within a token budget."""
    _needs_model(embeddings, mode)
    builder = ContextBuilder(retriever(workspace, embeddings), workspace.graph, workspace.chunks)
    return await builder.context(
        query,
        tenant_id,
        k=k,
        mode=mode,
        entity_types=list(entity_types) if entity_types else None,
        hops=hops,
        token_budget=budget,
    )


async def ask(
    workspace: Workspace,
    tenant_id: TenantId,
    question: str,
    *,
    llm: LlmProvider,
    embeddings: EmbeddingProvider | None,
    mode: RetrievalMode,
    k: int,
    hops: int,
    budget: int,
) -> GroundedAnswer:
    """An answer from the context of `question` only, citing its passages."""
    found = await context(
        workspace, tenant_id, question, embeddings=embeddings, mode=mode, k=k,
        entity_types=None, hops=hops, budget=budget,
    )  # fmt: skip
    return await answer_question(question, found, llm)


# -- reading the graph ----------------------------------------------------------------


async def resolve_entity(workspace: Workspace, tenant_id: TenantId, reference: str) -> Entity:
    """An entity by id (aliases resolved) or by exact normalized name; a clear error otherwise.

    An id of another tenant's entity is "no entity with id" like an unknown one, so
    ids never reveal what another tenant holds.
    """
    try:
        entity_id = EntityId(UUID(reference))
    except ValueError:
        entity_id = None
    if entity_id is not None:
        found = await workspace.graph.get_entity(entity_id, tenant_id)
        if found is None:
            raise NotFoundError(f"no entity with id {reference} in this tenant")
        return found
    wanted = normalize_name(reference)
    groups = await workspace.graph.find_by_blocking_keys(query_blocking_keys(reference), tenant_id)
    candidates = {e.id: e for group in groups.values() for e in group}
    exact = sorted(
        (e for e in candidates.values() if e.normalized_name == wanted), key=lambda e: str(e.id)
    )
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        listing = ", ".join(f"{e.id} ({e.entity_type})" for e in exact)
        raise InvalidInputError(f"{reference!r} names {len(exact)} entities; pass an id: {listing}")
    result = await retriever(workspace, None).retrieve(
        reference, tenant_id, k=3, mode=RetrievalMode.LEXICAL
    )
    close = list(dict.fromkeys(match.entity.name for match in result.matches))
    hint = f"; did you mean {', '.join(repr(name) for name in close)}?" if close else ""
    raise NotFoundError(
        f"no entity named {reference!r}{hint} (`redstring search {reference!r}` ranks candidates)"
    )


@dataclass
class EntityView:
    """One entity with its relationships and the names at their ends."""

    entity: Entity
    relationships: list[Relationship]
    names: dict[EntityId, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "entity": self.entity.model_dump(mode="json"),
            "relationships": [r.model_dump(mode="json") for r in self.relationships],
        }


async def show(workspace: Workspace, tenant_id: TenantId, reference: str) -> EntityView:
    found = await resolve_entity(workspace, tenant_id, reference)
    relationships = await workspace.graph.relationships(found.id, tenant_id)
    ends = {r.source_id for r in relationships} | {r.target_id for r in relationships}
    names = {e.id: e.name for e in await workspace.graph.get_entities(list(ends), tenant_id)}
    return EntityView(found, relationships, names)


@dataclass
class MergeView:
    """A live merge that made an entity: what it joined, under which names."""

    merge_id: str
    merged_ids: list[str]
    merged_names: list[str]
    reason: str


async def merges_of(
    workspace: Workspace, tenant_id: TenantId, entity_id: EntityId
) -> list[MergeView]:
    """The merges (not undone) whose canonical entity is `entity_id`, newest first: its
    aliases, and the merge ids an undo takes. Read from the log, the one place that
    keeps them."""
    log = workspace.log
    undone = set()
    for recorded in await log.read_type(MergeUndone.event_type, tenant_id):
        event = decode(recorded)
        assert isinstance(event, MergeUndone)
        undone.add(event.merge_id)
    views = []
    for recorded in await log.read_type(EntitiesMerged.event_type, tenant_id):
        merged = decode(recorded)
        assert isinstance(merged, EntitiesMerged)
        if merged.canonical_id != entity_id or merged.merge_id in undone:
            continue
        before = {e.id: e.name for e in merged.entities_before}
        views.append(
            MergeView(
                merge_id=str(merged.merge_id),
                merged_ids=[str(i) for i in merged.merged_ids],
                merged_names=[before.get(i, str(i)) for i in merged.merged_ids],
                reason=merged.reason,
            )
        )
    return views[::-1]


async def neighbours(
    workspace: Workspace, tenant_id: TenantId, reference: str
) -> tuple[Entity, list[Entity]]:
    """An entity and the entities one relationship away."""
    found = await resolve_entity(workspace, tenant_id, reference)
    return found, await workspace.graph.neighbours(found.id, tenant_id)


async def stats(
    workspace: Workspace, tenant_id: TenantId, tenant: str, *, documents: bool = False
) -> dict[str, Any]:
    """Counts for one tenant, the LLM tokens its extraction paid (per document with
    `documents`), and the log's length."""
    from redstring.composition.build_graph import extraction_usage

    usage = await extraction_usage(workspace, tenant_id)
    figures: dict[str, Any] = {
        "tenant": tenant,
        "entities": await workspace.graph.count_entities(tenant_id),
        "relationships": len(await workspace.graph.list_relationships(tenant_id)),
        "vectors": await workspace.vectors.count(tenant_id),
        "log_position": await workspace.log.last_position(),
        "embedder": workspace_embedder_kind(workspace).value,
        "tenants": workspace.tenant_names(),
        "llm_tokens": usage.total.model_dump(),
        "incomplete_documents": usage.incomplete,
    }
    if documents:
        figures["llm_tokens_by_document"] = {
            source: tokens.model_dump() for source, tokens in sorted(usage.by_document.items())
        }
    return figures


async def replay(workspace: Workspace) -> int:
    """Rebuild every store from the log; the log position reached."""
    await workspace.replay()
    return await workspace.log.last_position()


# -- export ---------------------------------------------------------------------------


@dataclass
class GraphExport:
    entities: list[Entity]
    relationships: list[Relationship]

    def jsonl_lines(self) -> list[str]:
        """One JSON object a line: entities (`"kind": "entity"`), then relationships."""
        import json

        lines = [
            json.dumps({"kind": "entity", **entity.model_dump(mode="json")})
            for entity in self.entities
        ]
        lines.extend(
            json.dumps({"kind": "relationship", **rel.model_dump(mode="json")})
            for rel in self.relationships
        )
        return lines

    def graphml(self) -> bytes:
        """The graph as GraphML (name, type and confidence on nodes; type on edges)."""
        ns = "http://graphml.graphdrawing.org/xmlns"
        ElementTree.register_namespace("", ns)
        root = ElementTree.Element(f"{{{ns}}}graphml")
        for key, target in (
            ("name", "node"),
            ("entity_type", "node"),
            ("relationship_type", "edge"),
            ("confidence", "all"),
        ):
            ElementTree.SubElement(
                root,
                f"{{{ns}}}key",
                {
                    "id": key,
                    "for": target,
                    "attr.name": key,
                    "attr.type": "double" if key == "confidence" else "string",
                },
            )
        graph = ElementTree.SubElement(root, f"{{{ns}}}graph", {"edgedefault": "directed"})
        for entity in self.entities:
            node = ElementTree.SubElement(graph, f"{{{ns}}}node", {"id": str(entity.id)})
            for key, value in (
                ("name", entity.name),
                ("entity_type", entity.entity_type),
                ("confidence", str(entity.confidence)),
            ):
                ElementTree.SubElement(node, f"{{{ns}}}data", {"key": key}).text = value
        for rel in self.relationships:
            edge = ElementTree.SubElement(
                graph,
                f"{{{ns}}}edge",
                {"id": str(rel.id), "source": str(rel.source_id), "target": str(rel.target_id)},
            )
            for key, value in (
                ("relationship_type", rel.relationship_type),
                ("confidence", str(rel.confidence)),
            ):
                ElementTree.SubElement(edge, f"{{{ns}}}data", {"key": key}).text = value
        return bytes(ElementTree.tostring(root, encoding="utf-8", xml_declaration=True))

    def render(self, fmt: ExportFormat) -> bytes:
        if fmt is ExportFormat.JSONL:
            return "".join(line + "\n" for line in self.jsonl_lines()).encode("utf-8")
        return self.graphml()


async def export(workspace: Workspace, tenant_id: TenantId) -> GraphExport:
    """The tenant's entities and relationships, read together."""
    return GraphExport(
        await workspace.graph.list_entities(tenant_id),
        await workspace.graph.list_relationships(tenant_id),
    )
