"""redstring: documents and records into a tenant-scoped knowledge graph.

What the library offers:

- typed entities and relationships with provenance (`Entity`, `Relationship`,
  `Provenance`), blocking keys and string similarity for resolution;
- ports for every store and model (`GraphStore`, `VectorStore`, `EventLog`,
  `EmbeddingProvider`, `LlmProvider`) with in-memory adapters and a compliance
  suite per port (`redstring.testing`);
- hybrid entity retrieval (`Retriever`): a semantic channel (embeddings and a
  vector store) and a lexical channel (name-lexicon candidates scored by
  field-weighted Jaro-Winkler), fused by reciprocal rank fusion, with an opt-in
  chunk channel (BM25 over the documents' chunks, `ChunkStore`);
- a context answer (`ContextBuilder`): entities, the relationships among them and
  the supporting chunks within a token budget, and `answer_question` on top of it.
"""

from redstring.chunks.memory import InMemoryChunkStore
from redstring.composition import (
    AUTO,
    AnswerDraft,
    BuildProgress,
    ConsolidationReport,
    Consolidator,
    ContextBuilder,
    GraphBuildReport,
    GroundedAnswer,
    ImportReport,
    RecordMapping,
    Retriever,
    Workspace,
    answer_question,
    build_graph,
    embed_entities,
    import_records,
)
from redstring.consolidation import Adjudicator, GreyPair, LlmAdjudicator, TrainedModel
from redstring.domain.blocking import (
    PREFIX_LENGTH,
    blocking_keys,
    prefix_key_for_name,
    query_blocking_keys,
    soundex_key_for_name,
)
from redstring.domain.chunk import ChunkMatch, ChunkRecord
from redstring.domain.context import ContextAnswer, ContextChunk, ContextEntity, MentionSpan
from redstring.domain.entity import Entity
from redstring.domain.exceptions import (
    ConcurrencyError,
    DimensionMismatchError,
    EmptyOutputError,
    InvalidInputError,
    LlmError,
    MalformedOutputError,
    NotFoundError,
    ProviderUnavailableError,
    RedstringError,
    RefusalError,
    TenantMismatchError,
    WorkspaceError,
)
from redstring.domain.fusion import RRF_K, reciprocal_rank_fusion
from redstring.domain.ids import (
    EntityId,
    RelationshipId,
    TenantId,
    derived_entity_id,
    document_entity_id,
    new_entity_id,
    new_tenant_id,
    tenant_id_for,
)
from redstring.domain.lexical import PROPERTY_WEIGHT, LexicalCandidate, lexical_score
from redstring.domain.log import EventHeader, NewEvent, RecordedEvent
from redstring.domain.normalization import normalize_name
from redstring.domain.provenance import Provenance
from redstring.domain.relationship import Relationship
from redstring.domain.retrieval import RetrievalMode, RetrievalResult, ScoredEntity
from redstring.domain.similarity import string_similarity
from redstring.domain.usage import TokenUsage
from redstring.domain.vector import VectorMatch, VectorRecord
from redstring.embeddings.fake import FakeEmbeddingProvider
from redstring.events import (
    ChunkExtracted,
    ChunksStored,
    ChunkStats,
    DocumentExtracted,
    DocumentRetracted,
    DomainEvent,
    EmbeddedEntity,
    EntitiesEmbedded,
    EntitiesMerged,
    ExtractionFailed,
    MergeUndone,
    RecordsImported,
    StoredChunk,
)
from redstring.extraction.chunking import Chunk
from redstring.extraction.extractor import (
    ChunkAnswer,
    ChunkExtraction,
    ChunkFailure,
    EntityMention,
    Extractor,
    LlmExtractor,
    RelationMention,
    ResumableExtraction,
)
from redstring.extraction.offline import OfflineExtractor
from redstring.extraction.schemas import (
    DomainExample,
    DomainSchema,
    ExtractedEntity,
    ExtractedRelationship,
    ExtractionOutput,
    TypeSpec,
)
from redstring.graph.memory import InMemoryGraphStore
from redstring.ports import (
    ChunkStore,
    EmbeddingProvider,
    EventLog,
    GraphStore,
    LlmProvider,
    VectorStore,
)
from redstring.projections import (
    CheckpointStore,
    ChunkProjection,
    FreshEvents,
    GraphProjection,
    Projection,
    VectorProjection,
)
from redstring.vector.memory import InMemoryVectorStore

__all__ = [
    "AUTO",
    "PREFIX_LENGTH",
    "PROPERTY_WEIGHT",
    "RRF_K",
    "Adjudicator",
    "AnswerDraft",
    "BuildProgress",
    "CheckpointStore",
    "Chunk",
    "ChunkAnswer",
    "ChunkExtracted",
    "ChunkExtraction",
    "ChunkFailure",
    "ChunkMatch",
    "ChunkProjection",
    "ChunkRecord",
    "ChunkStats",
    "ChunkStore",
    "ChunksStored",
    "ConcurrencyError",
    "ConsolidationReport",
    "Consolidator",
    "ContextAnswer",
    "ContextBuilder",
    "ContextChunk",
    "ContextEntity",
    "DimensionMismatchError",
    "DocumentExtracted",
    "DocumentRetracted",
    "DomainEvent",
    "DomainExample",
    "DomainSchema",
    "EmbeddedEntity",
    "EmbeddingProvider",
    "EmptyOutputError",
    "EntitiesEmbedded",
    "EntitiesMerged",
    "Entity",
    "EntityId",
    "EntityMention",
    "EventHeader",
    "EventLog",
    "ExtractedEntity",
    "ExtractedRelationship",
    "ExtractionFailed",
    "ExtractionOutput",
    "Extractor",
    "FakeEmbeddingProvider",
    "FreshEvents",
    "GraphBuildReport",
    "GraphProjection",
    "GraphStore",
    "GreyPair",
    "GroundedAnswer",
    "ImportReport",
    "InMemoryChunkStore",
    "InMemoryGraphStore",
    "InMemoryVectorStore",
    "InvalidInputError",
    "LexicalCandidate",
    "LlmAdjudicator",
    "LlmError",
    "LlmExtractor",
    "LlmProvider",
    "MalformedOutputError",
    "MentionSpan",
    "MergeUndone",
    "NewEvent",
    "NotFoundError",
    "OfflineExtractor",
    "Projection",
    "Provenance",
    "ProviderUnavailableError",
    "RecordMapping",
    "RecordedEvent",
    "RecordsImported",
    "RedstringError",
    "RefusalError",
    "RelationMention",
    "Relationship",
    "RelationshipId",
    "ResumableExtraction",
    "RetrievalMode",
    "RetrievalResult",
    "Retriever",
    "ScoredEntity",
    "StoredChunk",
    "TenantId",
    "TenantMismatchError",
    "TokenUsage",
    "TrainedModel",
    "TypeSpec",
    "VectorMatch",
    "VectorProjection",
    "VectorRecord",
    "VectorStore",
    "Workspace",
    "WorkspaceError",
    "answer_question",
    "blocking_keys",
    "build_graph",
    "derived_entity_id",
    "document_entity_id",
    "embed_entities",
    "import_records",
    "lexical_score",
    "new_entity_id",
    "new_tenant_id",
    "normalize_name",
    "prefix_key_for_name",
    "query_blocking_keys",
    "reciprocal_rank_fusion",
    "soundex_key_for_name",
    "string_similarity",
    "tenant_id_for",
]
