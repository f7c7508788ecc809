"""Extractors: chunks of one document in, typed entity and relationship mentions out.

Two implementations share one output shape (`ChunkExtraction`):

- `LlmExtractor`: asks an `LlmProvider` for an `ExtractionOutput` per chunk,
  in document order, carrying the names found so far into each prompt, with
  optional "anything missed?" gleaning passes.
- `OfflineExtractor` (`extraction.offline`): rules, no model, entities only.

Spans in a `ChunkExtraction` are offsets into the *chunk's* text; mapping adds
`chunk.start` to make them document offsets.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from redstring.domain.exceptions import InvalidInputError, LlmError, ProviderUnavailableError
from redstring.domain.normalization import normalize_name
from redstring.domain.usage import TokenUsage
from redstring.extraction.classify import AUTO, classify_domain
from redstring.extraction.schemas import (
    ENV_OUTPUT_SHAPE,
    GLEANING_INSTRUCTIONS,
    OUTPUT_SHAPES,
    DomainSchema,
    ExtractedEntity,
    ExtractedRelationship,
    ExtractionOutput,
    OutputShape,
    PropertyValue,
    as_extraction_output,
    extraction_instructions,
    lean_output_schema,
    load_domain,
    type_key,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from pydantic import BaseModel

    from redstring.extraction.chunking import Chunk
    from redstring.ports.llm import LlmProvider

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class EntityMention:
    """An entity seen in one chunk. `spans` are chunk offsets of every occurrence of `name`.

    `spans` is empty when the extractor's name does not occur verbatim (or
    case-insensitively) in the chunk, e.g. a model that paraphrased it.
    """

    name: str
    entity_type: str
    spans: tuple[Span, ...] = ()
    description: str | None = None
    properties: dict[str, PropertyValue] = field(default_factory=dict)
    #: `None`: the extractor stated no confidence.
    confidence: float | None = None


@dataclass(frozen=True, slots=True)
class RelationMention:
    """`source --relationship_type--> target`, endpoints named as in the chunk's entities."""

    source: str
    target: str
    relationship_type: str
    description: str | None = None
    confidence: float | None = None


@dataclass(frozen=True, slots=True)
class ChunkExtraction:
    """Everything one extractor found in one chunk."""

    chunk: Chunk
    entities: tuple[EntityMention, ...]
    relationships: tuple[RelationMention, ...]
    #: Provenance `method`: "llm" or "offline".
    method: str
    #: Model name for LLM extraction; `None` for rules.
    model: str | None = None
    #: The domain schema the chunk was extracted with.
    domain: str | None = None


@dataclass(frozen=True, slots=True)
class ChunkAnswer:
    """One chunk's model answer in a resumable run: the mapped extraction, the raw
    `output` (what a `ChunkExtracted` event keeps), and what it cost in this run
    (nothing when `reused`)."""

    extraction: ChunkExtraction
    output: ExtractionOutput
    tokens: TokenUsage
    reused: bool


@dataclass(frozen=True, slots=True)
class ChunkFailure:
    """A chunk without a usable answer in this run, and what its attempts cost."""

    index: int
    error: str
    tokens: TokenUsage


@dataclass
class ResumableExtraction:
    """A document's chunks after one resumable run: answers and failures by chunk."""

    domain: str
    answers: dict[int, ChunkAnswer] = field(default_factory=dict)
    failures: list[ChunkFailure] = field(default_factory=list)
    #: Tokens of calls that belong to no chunk (classifying the domain with `AUTO`).
    overhead: TokenUsage = field(default_factory=TokenUsage)

    @property
    def complete(self) -> bool:
        return not self.failures

    def in_order(self) -> list[ChunkExtraction]:
        return [self.answers[i].extraction for i in sorted(self.answers)]


class Extractor(Protocol):
    """What `build_graph` needs: one document's chunks in, one extraction per chunk out."""

    @property
    def method(self) -> str: ...

    async def extract_document(self, chunks: Sequence[Chunk]) -> list[ChunkExtraction]: ...


def find_spans(name: str, text: str) -> tuple[Span, ...]:
    """Every non-overlapping occurrence of `name` in `text`: exact, else case-insensitive.

    Occurrences must not sit inside a longer word ("Art" is not found in "Arthur").
    """
    if not name.strip():
        return ()
    for flags in (0, re.IGNORECASE):
        pattern = re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)", flags)
        spans = tuple((m.start(), m.end()) for m in pattern.finditer(text))
        if spans:
            return spans
    return ()


def _relationship_type(domain: DomainSchema, raw: str) -> str:
    """A declared type by its canonical name; an undeclared one kept, in UPPER_SNAKE form.

    Relationship vocabularies are open-ended: dropping an edge because the model
    named it differently loses a fact, while an odd type name is visible and
    fixable later.
    """
    return domain.canonical_relationship_type(raw) or type_key(raw).upper()


class LlmExtractor:
    """Entity and relationship extraction through an `LlmProvider`.

    `domain` is a `DomainSchema`, a bundled domain's name, or `AUTO`: classify
    each document's opening text once (`classify_domain`) and use that domain.
    `gleaning` extra passes per chunk ask the model for what it missed; a pass
    that adds nothing new ends the gleaning early.

    Chunks of one document are extracted in order (carryover needs the names of
    earlier chunks); documents may run concurrently, bounded by the provider's
    own concurrency limit. A provider error propagates: the caller decides
    whether a failed document stops a build.

    `output` is the answer schema: `full` (`ExtractionOutput`: descriptions,
    properties, confidences, free type names) or `lean` (`lean_output_schema`:
    names and enum types only, for small models under a grammar). An argument
    wins, else `REDSTRING_LLM_SCHEMA`, else `full`: a capable model's descriptions
    and properties are worth their tokens.
    """

    method = "llm"

    def __init__(
        self,
        provider: LlmProvider,
        domain: DomainSchema | str = "general",
        *,
        gleaning: int = 0,
        max_carryover_names: int = 50,
        output: OutputShape | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if gleaning < 0:
            raise ValueError(f"gleaning must be >= 0, got {gleaning}")
        environ = os.environ if env is None else env
        shape = output or environ.get(ENV_OUTPUT_SHAPE, "").strip() or "full"
        if shape not in OUTPUT_SHAPES:
            raise InvalidInputError(
                f"answer schema {shape!r} ({ENV_OUTPUT_SHAPE}) is not one of "
                + ", ".join(map(repr, OUTPUT_SHAPES))
            )
        self._output: OutputShape = "lean" if shape == "lean" else "full"
        self._provider = provider
        self._domain: DomainSchema | None = domain if isinstance(domain, DomainSchema) else None
        self._domain_name = domain.name if isinstance(domain, DomainSchema) else domain
        if self._domain is None and self._domain_name != AUTO:
            self._domain = load_domain(self._domain_name)
        self._gleaning = gleaning
        self._max_carryover = max_carryover_names

    @property
    def model_name(self) -> str:
        return self._provider.model_name

    async def resolve_domain(self, chunks: Sequence[Chunk]) -> DomainSchema:
        if self._domain is not None:
            return self._domain
        opening = chunks[0].text if chunks else ""
        return load_domain(await classify_domain(self._provider, opening))

    async def extract_document(self, chunks: Sequence[Chunk]) -> list[ChunkExtraction]:
        domain = await self.resolve_domain(chunks)
        seen: dict[str, str] = {}  # normalized name -> first spelling, in document order
        results: list[ChunkExtraction] = []
        for chunk in chunks:
            carry = list(seen.values())[-self._max_carryover :] if self._max_carryover else []
            extraction = await self.extract_chunk(chunk, domain, carry)
            for mention in extraction.entities:
                seen.setdefault(normalize_name(mention.name), mention.name)
            results.append(extraction)
        return results

    async def extract_resumable(
        self, chunks: Sequence[Chunk], kept: Mapping[str, Mapping[int, ExtractionOutput]]
    ) -> ResumableExtraction:
        """Extract the chunks that `kept` has no answer for; reuse the others.

        Unlike `extract_document`, a failing chunk does not end the run: an unusable
        answer (empty, malformed, refused) fails that chunk only and the next one is
        asked; an endpoint that is down (`ProviderUnavailableError`, already retried)
        fails the chunk and every later one without calling again, since each would
        wait out the same retries. `kept` holds earlier answers by domain name, then
        chunk index; they must come from the same text, chunking and model (the
        caller checks), and only those of the resolved domain are used.
        """
        usage_at = self._provider.usage
        domain = await self.resolve_domain(chunks)
        result = ResumableExtraction(domain=domain.name, overhead=self._provider.usage - usage_at)
        reusable = kept.get(domain.name, {})
        seen: dict[str, str] = {}
        down: str | None = None
        for chunk in chunks:
            carry = list(seen.values())[-self._max_carryover :] if self._max_carryover else []
            before = self._provider.usage
            output = reusable.get(chunk.index)
            reused = output is not None
            if output is None and down is not None:
                result.failures.append(ChunkFailure(chunk.index, down, TokenUsage()))
                continue
            if output is None:
                try:
                    output = await self._answer(chunk, domain, carry)
                except LlmError as exc:
                    error = f"{type(exc).__name__}: {exc}"
                    if isinstance(exc, ProviderUnavailableError):
                        down = error
                    cost = self._provider.usage - before
                    result.failures.append(ChunkFailure(chunk.index, error, cost))
                    continue
            extraction = self._to_chunk_extraction(chunk, domain, output)
            for mention in extraction.entities:
                seen.setdefault(normalize_name(mention.name), mention.name)
            result.answers[chunk.index] = ChunkAnswer(
                extraction, output, self._provider.usage - before, reused
            )
        return result

    async def extract_chunk(
        self, chunk: Chunk, domain: DomainSchema, known_names: Sequence[str] = ()
    ) -> ChunkExtraction:
        return self._to_chunk_extraction(
            chunk, domain, await self._answer(chunk, domain, known_names)
        )

    async def _answer(
        self, chunk: Chunk, domain: DomainSchema, known_names: Sequence[str]
    ) -> ExtractionOutput:
        """The model's answer for one chunk, gleaning passes merged in."""
        instructions = extraction_instructions(domain, list(known_names))
        schema: type[BaseModel] = (
            lean_output_schema(domain) if self._output == "lean" else ExtractionOutput
        )
        output = as_extraction_output(
            await self._provider.extract(chunk.text, schema, instructions=instructions)
        )
        for _ in range(self._gleaning):
            previous = json.dumps(output.model_dump(exclude_none=True), ensure_ascii=False)
            extra = as_extraction_output(
                await self._provider.extract(
                    chunk.text,
                    schema,
                    instructions=instructions
                    + "\n\n"
                    + GLEANING_INSTRUCTIONS.format(previous=previous),
                )
            )
            merged = _merge_outputs(output, extra)
            if merged == output:
                break
            output = merged
        return output

    def _to_chunk_extraction(
        self, chunk: Chunk, domain: DomainSchema, output: ExtractionOutput
    ) -> ChunkExtraction:
        entities = tuple(
            EntityMention(
                name=e.name.strip(),
                entity_type=domain.canonical_entity_type(e.type),
                spans=find_spans(e.name.strip(), chunk.text),
                description=e.description,
                properties=dict(e.properties or {}),
            )
            for e in output.entities
            if e.name.strip()
        )
        relationships = tuple(
            RelationMention(
                source=r.source.strip(),
                target=r.target.strip(),
                relationship_type=_relationship_type(domain, r.type),
                description=r.description,
                confidence=r.confidence,
            )
            for r in output.relationships
            if r.source.strip() and r.target.strip() and r.type.strip()
        )
        return ChunkExtraction(
            chunk=chunk,
            entities=entities,
            relationships=relationships,
            method=self.method,
            model=self._provider.model_name,
            domain=domain.name,
        )


def _merge_outputs(first: ExtractionOutput, extra: ExtractionOutput) -> ExtractionOutput:
    """`first` plus whatever in `extra` it lacks (entities by name+type, edges by triple)."""
    entity_keys = {(normalize_name(e.name), type_key(e.type)) for e in first.entities}
    entities: list[ExtractedEntity] = list(first.entities)
    for entity in extra.entities:
        key = (normalize_name(entity.name), type_key(entity.type))
        if key not in entity_keys:
            entity_keys.add(key)
            entities.append(entity)
    edge_keys = {
        (normalize_name(r.source), type_key(r.type), normalize_name(r.target))
        for r in first.relationships
    }
    relationships: list[ExtractedRelationship] = list(first.relationships)
    for edge in extra.relationships:
        triple = (normalize_name(edge.source), type_key(edge.type), normalize_name(edge.target))
        if triple not in edge_keys:
            edge_keys.add(triple)
            relationships.append(edge)
    return ExtractionOutput(entities=entities, relationships=relationships)
