"""`build_graph`: one document in, events appended, stores projected, entities embedded.

It lives in `composition` because it holds an extractor (backed by an
`LlmProvider`, or rules), the event log and its projections, and an
`EmbeddingProvider` together; `extraction` may not import `projections`, so no
lower layer can hold both halves.

The pipeline: chunk -> extract (the LLM extractor carries the names seen so far
into each chunk's prompt, and may glean) -> map to entities and relationships
with derived ids and blocking keys, merged within the document by id -> append a
`DocumentExtracted` event -> project -> embed the document's entities and append
an `EntitiesEmbedded` event -> project. The document's chunks go into the log
too (`ChunksStored`, just before `DocumentExtracted`): the chunk store is a
projection like the others. `build_graphs` runs the same pipeline
over many documents, projecting and embedding once per batch: on short passages
the per-document catch-up and model call were most of the ingest time.

**Idempotent.** The document stream remembers the content hash of the last
extraction; the same text under the same source id appends nothing. Ids derived
from the document, type and name make a re-extracted entity an upsert.

**A changed document replaces what it said.** Text that differs from the last
extraction under the same source id appends a `DocumentRetracted` first: the old
extraction's provenance is withdrawn, entities the new text no longer yields are
removed (graph and vectors), and its `ChunksStored` replaces the old chunks.

**A document is complete only when all its chunks are.** With the offline
extractor a document is extracted whole. With an `LlmExtractor`, a chunk whose
answer is unusable (or whose endpoint is down) fails alone: the chunks that
worked are appended as `ChunkExtracted` events with an `ExtractionFailed` naming
the failed ones, and no `DocumentExtracted` -- so the content hash does not mark
the document done, nothing reaches the graph, and the report says so. Running
the build again on the same text asks the model only for the failed chunks and
completes the document from the kept answers plus the new ones.

**One commit per batch.** A batch's documents are extracted and embedded first,
outside any transaction (model calls never hold the write lock); then their
`DocumentExtracted` events, the batch's `EntitiesEmbedded` event and the
projection catch-up commit in one `Workspace.atomic()` transaction: one sync to
disk per batch instead of two per document. Batches are pipelined: batch N is
embedded while batch N-1 commits and batch N+1 is extracted. A crash, or an
error anywhere in the build, loses exactly the batches not yet committed (at
most the one committing, the one embedding and the one being extracted) -- none
of their documents is marked done by its content hash -- and a rerun
re-extracts exactly those documents; committed batches are skipped as unchanged.
"""

from __future__ import annotations

import asyncio
import hashlib
from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from redstring.domain.exceptions import ConcurrencyError, InvalidInputError, LlmError
from redstring.domain.usage import TokenUsage
from redstring.events.base import decode
from redstring.events.chunks import ChunksStored, StoredChunk
from redstring.events.embedding import EmbeddedEntity, EntitiesEmbedded
from redstring.events.ingest import (
    ChunkExtracted,
    ChunkStats,
    DocumentExtracted,
    DocumentRetracted,
    ExtractionFailed,
)
from redstring.events.streams import document_stream, embeddings_stream
from redstring.extraction.chunking import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, chunk_text
from redstring.extraction.classify import AUTO
from redstring.extraction.extractor import LlmExtractor
from redstring.extraction.mapping import map_document
from redstring.extraction.offline import OfflineExtractor
from redstring.extraction.schemas import ExtractionOutput

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from redstring.composition.workspace import Workspace
    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId, TenantId
    from redstring.domain.log import RecordedEvent
    from redstring.events.base import DomainEvent
    from redstring.extraction.chunking import Chunk
    from redstring.extraction.extractor import ChunkExtraction, Extractor, ResumableExtraction
    from redstring.extraction.schemas import DomainSchema
    from redstring.ports.embedding import EmbeddingProvider
    from redstring.ports.llm import LlmProvider

__all__ = [
    "AUTO",
    "BuildProgress",
    "GraphBuildReport",
    "build_graph",
    "build_graphs",
    "embed_entities",
]

#: The model name recorded for rule-based extraction.
OFFLINE_MODEL = "redstring-offline-rules"


@dataclass(frozen=True)
class BuildProgress:
    """One step of a build, for a progress bar: `stage` is chunked, extracted,
    appended, embedded or skipped; `done`/`total` count chunks where that applies."""

    source_id: str
    stage: str
    done: int
    total: int


@dataclass
class GraphBuildReport:
    """What one `build_graph` call did."""

    source_id: str
    #: True when the same text was already ingested under this source id.
    unchanged: bool = False
    entities: int = 0
    relationships: int = 0
    total_chunks: int = 0
    failed_chunks: int = 0
    #: Relationship mentions whose endpoints were not extracted (or were one entity).
    unresolved_relationships: int = 0
    embedded: int = 0
    tokens: TokenUsage = field(default_factory=TokenUsage)
    #: Why the document failed, when it did.
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _extractor_for(
    provider: LlmProvider | None, domain: DomainSchema | str | None, gleaning: int
) -> Extractor:
    if provider is None:
        if domain not in (None, "general"):
            raise InvalidInputError(
                "a domain needs an LLM provider: the offline extractor has one fixed vocabulary"
            )
        return OfflineExtractor()
    return LlmExtractor(provider, domain if domain is not None else "general", gleaning=gleaning)


async def build_graph(
    document: str,
    *,
    workspace: Workspace,
    tenant_id: TenantId,
    source_id: str,
    provider: LlmProvider | None = None,
    domain: DomainSchema | str | None = None,
    extractor: Extractor | None = None,
    embeddings: EmbeddingProvider | None = None,
    gleaning: int = 0,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
    progress: Callable[[BuildProgress], None] | None = None,
) -> GraphBuildReport:
    """Ingest `document` (its text) as `source_id` into `tenant_id`'s graph.

    The extractor is `extractor` when given; else an `LlmExtractor` over `provider`
    with `domain` (a bundled domain's name, a `DomainSchema`, or `AUTO`); else the
    offline rule-based extractor. Entities are embedded when `embeddings` is given.
    """
    (report,) = await build_graphs(
        [(source_id, document)],
        workspace=workspace,
        tenant_id=tenant_id,
        provider=provider,
        domain=domain,
        extractor=extractor,
        embeddings=embeddings,
        gleaning=gleaning,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        progress=progress,
    )
    return report


#: Documents per batch in `build_graphs`: one projection catch-up and one embedding
#: call per batch. Short passages make the per-document overheads dominate otherwise.
DEFAULT_BATCH = 64


async def build_graphs(
    documents: Sequence[tuple[str, str]],
    *,
    workspace: Workspace,
    tenant_id: TenantId,
    provider: LlmProvider | None = None,
    domain: DomainSchema | str | None = None,
    extractor: Extractor | None = None,
    embeddings: EmbeddingProvider | None = None,
    gleaning: int = 0,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
    batch_size: int = DEFAULT_BATCH,
    progress: Callable[[BuildProgress], None] | None = None,
) -> list[GraphBuildReport]:
    """Ingest `(source_id, text)` documents; one report each, in order.

    The log receives exactly what `build_graph` would append for each document (its
    own `DocumentExtracted` on its own stream), but per batch of `batch_size`
    documents the stores catch up once and the entities of the whole batch are
    embedded in one call and one `EntitiesEmbedded` event, each distinct name once.
    """
    if batch_size < 1:
        raise InvalidInputError(f"batch_size must be at least 1, got {batch_size}")
    seen: set[str] = set()
    for source_id, document in documents:
        if not source_id.strip():
            raise InvalidInputError("a document needs a non-blank source id")
        if not document.strip():
            raise InvalidInputError(f"document {source_id!r} is empty")
        if source_id in seen:
            raise InvalidInputError(f"source id {source_id!r} given twice in one build")
        seen.add(source_id)
    notify = progress or (lambda _: None)
    chosen = extractor if extractor is not None else _extractor_for(provider, domain, gleaning)
    reports: list[GraphBuildReport] = []
    # Names embedded earlier in this build: ids are per document, names recur across
    # them ("United States"), and a name's vector does not depend on the document.
    cache = VectorCache()
    # A pipeline: batch N is embedded (the model call, on its own thread for a local
    # model) while batch N-1 commits and batch N+1 is extracted; one embedding call
    # at a time, so the name cache sees every earlier batch's names.
    previous: tuple[list[_Extracted], asyncio.Task[EntitiesEmbedded | None]] | None = None
    try:
        for first in range(0, len(documents), batch_size):
            built = [
                await _extract(
                    document,
                    workspace=workspace,
                    tenant_id=tenant_id,
                    source_id=source_id,
                    provider=provider,
                    extractor=chosen,
                    chunk_size=chunk_size,
                    chunk_overlap=chunk_overlap,
                    notify=notify,
                )
                for source_id, document in documents[first : first + batch_size]
            ]
            done = None if previous is None else (previous[0], await previous[1])
            previous = None
            embedding = asyncio.create_task(
                _batch_vectors(workspace, tenant_id, built, embeddings, cache)
            )
            previous = (built, embedding)
            await asyncio.sleep(0)  # let the embedding start before this thread commits
            if done is not None:
                reports.extend(
                    await _commit(workspace, *done, embedded=embeddings is not None, notify=notify)
                )
        if previous is not None:
            built, embedding = previous
            previous = None
            reports.extend(
                await _commit(
                    workspace,
                    built,
                    await embedding,
                    embedded=embeddings is not None,
                    notify=notify,
                )
            )
    finally:
        if previous is not None:
            previous[1].cancel()
    return reports


async def _batch_vectors(
    workspace: Workspace,
    tenant_id: TenantId,
    built: Sequence[_Extracted],
    embeddings: EmbeddingProvider | None,
    cache: VectorCache,
) -> EntitiesEmbedded | None:
    """The batch's one `EntitiesEmbedded` event; None without a model or entities."""
    unique = {e.id: e for doc in built for e in doc.entities}
    if embeddings is None or not unique:
        return None
    return await vectors_event(workspace, tenant_id, list(unique.values()), embeddings, cache)


async def _commit(
    workspace: Workspace,
    built: Sequence[_Extracted],
    vectors: EntitiesEmbedded | None,
    *,
    embedded: bool,
    notify: Callable[[BuildProgress], None],
) -> list[GraphBuildReport]:
    """Append a batch's documents and vectors and project them, in one transaction."""
    with workspace.atomic():
        for doc in built:
            if doc.events:
                await workspace.append(
                    doc.stream, doc.events, expected_version=doc.expected_version
                )
        if vectors is not None:
            await append_vectors(workspace, vectors)
        await workspace.catch_up()
    for doc in built:
        report = doc.report
        if report.ok and not report.unchanged:
            notify(BuildProgress(report.source_id, "appended", *(report.total_chunks,) * 2))
        if embedded:
            report.embedded = len(doc.entities)
            if doc.entities:
                notify(BuildProgress(report.source_id, "embedded", *(report.total_chunks,) * 2))
    return [doc.report for doc in built]


@dataclass
class _Extracted:
    """One document extracted but not yet appended: its report, its entities, and
    the events to append at `expected_version` of `stream` (none when unchanged or failed)."""

    report: GraphBuildReport
    stream: str
    expected_version: int
    events: list[DomainEvent] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)


async def _extract(
    document: str,
    *,
    workspace: Workspace,
    tenant_id: TenantId,
    source_id: str,
    provider: LlmProvider | None,
    extractor: Extractor,
    chunk_size: int,
    chunk_overlap: int,
    notify: Callable[[BuildProgress], None],
) -> _Extracted:
    """One document's extraction, ready to append to its stream; nothing is written."""
    report = GraphBuildReport(source_id=source_id)
    content_hash = hashlib.sha256(document.encode("utf-8")).hexdigest()
    stream = document_stream(tenant_id, source_id)
    version = await workspace.log.stream_version(stream, tenant_id)
    previous = await _last_extraction(workspace, stream, tenant_id) if version else None
    if previous is not None and previous.payload.get("content_hash") == content_hash:
        report.unchanged = True
        notify(BuildProgress(source_id, "skipped", 0, 0))
        return _Extracted(report, stream, version)

    chunks = chunk_text(document, chunk_size, chunk_overlap)
    report.total_chunks = len(chunks)
    notify(BuildProgress(source_id, "chunked", 0, len(chunks)))
    if isinstance(extractor, LlmExtractor):
        kept = await _kept_answers(workspace, stream, tenant_id, content_hash, chunks, extractor)
        result = await extractor.extract_resumable(chunks, kept)
        report.tokens = sum(
            (a.tokens for a in result.answers.values()),
            start=sum((f.tokens for f in result.failures), start=result.overhead),
        )
        if not result.complete:
            return _incomplete(report, stream, version, tenant_id, content_hash, extractor, result)
        extractions: list[ChunkExtraction] = result.in_order()
    else:
        usage_before = provider.usage if provider is not None else TokenUsage()
        try:
            extractions = await extractor.extract_document(chunks)
        except LlmError as exc:
            report.failed_chunks = len(chunks)
            report.error = f"{type(exc).__name__}: {exc}"
            return _Extracted(report, stream, version)
        finally:
            if provider is not None:
                report.tokens = provider.usage - usage_before
    notify(BuildProgress(source_id, "extracted", len(chunks), len(chunks)))

    mapped = map_document(tenant_id, source_id, extractions)
    report.entities = len(mapped.entities)
    report.relationships = len(mapped.relationships)
    report.unresolved_relationships = len(mapped.unresolved)
    events: list[DomainEvent] = []
    if previous is not None:
        events.append(_retraction(previous, mapped.entities))
    events.append(
        ChunksStored(
            tenant_id=tenant_id,
            source_id=source_id,
            content_hash=content_hash,
            chunks=_stored_chunks(source_id, chunks, mapped.entities),
        )
    )
    events.append(
        DocumentExtracted(
            tenant_id=tenant_id,
            source_id=source_id,
            content_hash=content_hash,
            model=_model_of(extractor),
            entities=mapped.entities,
            relationships=mapped.relationships,
            chunks=ChunkStats(chunk_count=len(chunks), char_count=len(document)),
            tokens=report.tokens,
        )
    )
    return _Extracted(report, stream, version, events, mapped.entities)


async def _kept_answers(
    workspace: Workspace,
    stream: str,
    tenant_id: TenantId,
    content_hash: str,
    chunks: Sequence[Chunk],
    extractor: LlmExtractor,
) -> dict[str, dict[int, ExtractionOutput]]:
    """Answers earlier failed runs kept for this very text, cut the same way, from the
    same model: by domain, then chunk index (a later answer for a chunk wins)."""
    cuts = {(c.index, c.start, c.end) for c in chunks}
    kept: dict[str, dict[int, ExtractionOutput]] = {}
    for recorded in await workspace.log.read_stream(stream, tenant_id):
        if recorded.event_type != ChunkExtracted.event_type:
            continue
        event = decode(recorded)
        assert isinstance(event, ChunkExtracted)
        if (
            event.content_hash == content_hash
            and event.model == extractor.model_name
            and (event.chunk_index, event.start, event.end) in cuts
        ):
            kept.setdefault(event.domain, {})[event.chunk_index] = ExtractionOutput.model_validate(
                event.output
            )
    return kept


def _incomplete(
    report: GraphBuildReport,
    stream: str,
    version: int,
    tenant_id: TenantId,
    content_hash: str,
    extractor: LlmExtractor,
    result: ResumableExtraction,
) -> _Extracted:
    """A document with failed chunks: keep this run's answers, record the failures."""
    fresh = {i: a for i, a in sorted(result.answers.items()) if not a.reused}
    events: list[DomainEvent] = [
        ChunkExtracted(
            tenant_id=tenant_id,
            source_id=report.source_id,
            content_hash=content_hash,
            chunk_index=index,
            start=answer.extraction.chunk.start,
            end=answer.extraction.chunk.end,
            model=extractor.model_name,
            domain=result.domain,
            output=answer.output.model_dump(mode="json", exclude_none=True),
            tokens=answer.tokens,
        )
        for index, answer in fresh.items()
    ]
    first = result.failures[0]
    events.append(
        ExtractionFailed(
            tenant_id=tenant_id,
            source_id=report.source_id,
            content_hash=content_hash,
            model=extractor.model_name,
            failed_chunks=[f.index for f in result.failures],
            error=first.error,
            tokens=sum((f.tokens for f in result.failures), start=result.overhead),
        )
    )
    report.failed_chunks = len(result.failures)
    report.error = (
        f"{first.error} (chunk {first.index}; {report.failed_chunks} of "
        f"{report.total_chunks} chunks failed, the {len(result.answers)} that worked "
        "are kept for a rerun)"
    )
    return _Extracted(report, stream, version, events)


def _stored_chunks(
    source_id: str, chunks: Sequence[Chunk], entities: Sequence[Entity]
) -> list[StoredChunk]:
    """The document's chunks, each naming the entities whose provenance points into it."""
    held: dict[int, dict[EntityId, None]] = {}
    for entity in entities:
        for provenance in entity.provenance:
            if provenance.source_id == source_id and provenance.chunk_index is not None:
                held.setdefault(provenance.chunk_index, {})[entity.id] = None
    return [
        StoredChunk(
            index=chunk.index,
            start=chunk.start,
            end=chunk.end,
            text=chunk.text,
            entity_ids=list(held.get(chunk.index, {})),
        )
        for chunk in chunks
    ]


def _retraction(previous: RecordedEvent, entities: Sequence[Entity]) -> DocumentRetracted:
    """Withdraw the extraction `previous`; the entities it had and `entities` lack go."""
    superseded = decode(previous)
    assert isinstance(superseded, DocumentExtracted)  # _last_extraction's type filter
    kept = {entity.id for entity in entities}
    return DocumentRetracted(
        tenant_id=superseded.tenant_id,
        source_id=superseded.source_id,
        superseded_version=previous.version,
        removed_entity_ids=[e.id for e in superseded.entities if e.id not in kept],
    )


#: Names whose vectors one build keeps (~3 KB each at 384 dimensions, ~30 MB in all).
MAX_CACHED_NAMES = 10_000


class VectorCache:
    """Vectors by name for one build, bounded: past the bound new names are not kept."""

    def __init__(self, limit: int = MAX_CACHED_NAMES) -> None:
        self._limit = limit
        self._vectors: dict[str, array[float]] = {}

    def get(self, name: str) -> list[float] | None:
        found = self._vectors.get(name)
        return None if found is None else found.tolist()

    def put(self, name: str, vector: list[float]) -> None:
        if len(self._vectors) < self._limit:
            self._vectors[name] = array("d", vector)


async def embed_entities(
    workspace: Workspace,
    tenant_id: TenantId,
    entities: Sequence[Entity],
    embeddings: EmbeddingProvider,
) -> int:
    """Embed `entities` by name, append one `EntitiesEmbedded` event, project it.

    The vectors go into the log, not just the store, so `replay` rebuilds the
    vector store without calling the model again. Each distinct name is embedded
    once: ids are per document, so a batch names "United States" many times.
    """
    event = await vectors_event(workspace, tenant_id, entities, embeddings, VectorCache(limit=0))
    await append_vectors(workspace, event)
    await workspace.catch_up()
    return len(event.vectors)


#: Entities per `EntitiesEmbedded` event when missing vectors are filled in: bounds one
#: event's size in the log, as `records.BATCH` does for records.
EMBED_BATCH = 5_000


async def embed_missing(
    workspace: Workspace, tenant_id: TenantId, embeddings: EmbeddingProvider
) -> int:
    """Embed the tenant's live entities that have no vector yet; how many were.

    Records are not embedded when they are ingested: a record file is imported to be
    consolidated, and most of its rows are merged away (people-export-10k: 8,659 of
    9,991), their vectors deleted again; embedding them was most of what `ingest`
    took (~4.5 s of 8.3 s there). The semantic channel asks for them here, once,
    when it first needs them, for the entities still live. The vectors are events in
    the log as any others, so `replay` still calls no model. Two counts decide that
    nothing is missing without reading an entity. A concurrent writer filling in the
    same vectors wins; this call then leaves the rest to it.
    """
    if await workspace.vectors.count(tenant_id) >= await workspace.graph.count_entities(tenant_id):
        return 0
    entities = await workspace.graph.list_entities(tenant_id)
    lacking = set(await workspace.vectors.missing([e.id for e in entities], tenant_id))
    todo = [entity for entity in entities if entity.id in lacking]
    done = 0
    for start in range(0, len(todo), EMBED_BATCH):
        try:
            with workspace.atomic():
                done += await embed_entities(
                    workspace, tenant_id, todo[start : start + EMBED_BATCH], embeddings
                )
        except ConcurrencyError:
            break
    return done


async def vectors_event(
    workspace: Workspace,
    tenant_id: TenantId,
    entities: Sequence[Entity],
    embeddings: EmbeddingProvider,
    known: VectorCache,
) -> EntitiesEmbedded:
    """The `EntitiesEmbedded` event for `entities`, each distinct name embedded once."""
    if embeddings.dimension != workspace.vectors.dimension:
        raise InvalidInputError(
            f"the embedding model gives {embeddings.dimension} dimensions but the workspace "
            f"stores {workspace.vectors.dimension}"
        )
    by_name: dict[str, list[float]] = {}
    for entity in entities:
        found = known.get(entity.name)
        if found is not None:
            by_name[entity.name] = found
    names = [n for n in dict.fromkeys(e.name for e in entities) if n not in by_name]
    if names:
        for name, vector in zip(names, await embeddings.embed(names), strict=True):
            by_name[name] = vector
            known.put(name, vector)
    return EntitiesEmbedded(
        tenant_id=tenant_id,
        model=embeddings.model_name,
        dimension=embeddings.dimension,
        vectors=[
            EmbeddedEntity(entity_id=e.id, entity_type=e.entity_type, vector=by_name[e.name])
            for e in entities
        ],
    )


async def append_vectors(workspace: Workspace, event: EntitiesEmbedded) -> None:
    """Append `event` to its model's embeddings stream (record import commits it with
    the records it embeds, in one transaction)."""
    stream = embeddings_stream(event.tenant_id, event.model)
    version = await workspace.log.stream_version(stream, event.tenant_id)
    await workspace.append(stream, [event], expected_version=version)


async def _last_extraction(
    workspace: Workspace, stream: str, tenant_id: TenantId
) -> RecordedEvent | None:
    """The document's latest `DocumentExtracted`, undecoded (its hash is all a rerun of
    unchanged text needs)."""
    for recorded in reversed(await workspace.log.read_stream(stream, tenant_id)):
        if recorded.event_type == DocumentExtracted.event_type:
            return recorded
    return None


def _model_of(extractor: Extractor) -> str:
    name = getattr(extractor, "model_name", None)
    return name if isinstance(name, str) and name else OFFLINE_MODEL


@dataclass
class ExtractionUsage:
    """What extraction cost one tenant, from the log: tokens per document and in all."""

    by_document: dict[str, TokenUsage] = field(default_factory=dict)
    #: Documents whose latest run failed some chunks (no `DocumentExtracted` since).
    incomplete: list[str] = field(default_factory=list)

    @property
    def total(self) -> TokenUsage:
        return sum(self.by_document.values(), start=TokenUsage())


#: The events that record what extraction paid; each run's tokens are on exactly one.
_PAID = (DocumentExtracted, ChunkExtracted, ExtractionFailed)


async def extraction_usage(workspace: Workspace, tenant_id: TenantId) -> ExtractionUsage:
    """Tokens the model was paid per document (every run, failed ones included).

    Read from the events, so it survives replays and needs no projection; it reads
    every extraction event of the tenant (BACKLOG: a usage projection for big logs).
    """
    usage = ExtractionUsage()
    latest: dict[str, tuple[int, str]] = {}
    for kind in _PAID:
        for recorded in await workspace.log.read_type(kind.event_type, tenant_id):
            payload = recorded.payload
            source = str(payload["source_id"])
            tokens = TokenUsage.model_validate(payload.get("tokens") or {})
            usage.by_document[source] = usage.by_document.get(source, TokenUsage()) + tokens
            if kind is not ChunkExtracted and recorded.position > latest.get(source, (0, ""))[0]:
                latest[source] = (recorded.position, recorded.event_type)
    usage.incomplete = sorted(
        source
        for source, (_, kind_name) in latest.items()
        if kind_name == ExtractionFailed.event_type
    )
    return usage
