"""The top layer below the entry points: modules that hold collaborators no lower
layer may hold together. Each says what it composes:

- `workspace` composes the event log, the graph and vector stores and their
  projections over one SQLite file (or in memory): `eventlog`, `graph` and
  `vector` are siblings, and `projections` sits below them all.
- `build_graph` composes an extractor (`extraction`, possibly over an
  `LlmProvider`), the workspace and an `EmbeddingProvider`: `extraction` may not
  import `projections`, `embeddings` or the stores.
- `records` composes the same for structured records, without extraction.
- `consolidation` composes the resolution engine (`consolidation`, optionally an
  LLM adjudicator) with the workspace's stores and log: the engine may import
  only ports and the domain, so it cannot append or project its merges.
- `retrieval` composes `EmbeddingProvider` + `VectorStore` + `GraphStore` (+ an
  optional `ChunkStore`): `vector`, `graph` and `chunks` may not import each
  other, and none may import `embeddings`.
- `context` composes a `Retriever` with the graph and chunk stores into a context
  answer; `answer` puts an `LlmProvider` on top of one.

The names below are imported on first use (`redstring._lazy`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from redstring._lazy import lazy_exports

if TYPE_CHECKING:
    from redstring.composition.answer import AnswerDraft, GroundedAnswer, answer_question
    from redstring.composition.build_graph import (
        AUTO,
        BuildProgress,
        GraphBuildReport,
        build_graph,
        embed_entities,
    )
    from redstring.composition.consolidation import ConsolidationReport, Consolidator
    from redstring.composition.context import ContextBuilder
    from redstring.composition.records import ImportReport, RecordMapping, import_records
    from redstring.composition.retrieval import Retriever
    from redstring.composition.workspace import Workspace

_EXPORTS: dict[str, str] = {
    "AnswerDraft": "redstring.composition.answer",
    "GroundedAnswer": "redstring.composition.answer",
    "answer_question": "redstring.composition.answer",
    "AUTO": "redstring.composition.build_graph",
    "BuildProgress": "redstring.composition.build_graph",
    "GraphBuildReport": "redstring.composition.build_graph",
    "build_graph": "redstring.composition.build_graph",
    "embed_entities": "redstring.composition.build_graph",
    "ConsolidationReport": "redstring.composition.consolidation",
    "Consolidator": "redstring.composition.consolidation",
    "ContextBuilder": "redstring.composition.context",
    "ImportReport": "redstring.composition.records",
    "RecordMapping": "redstring.composition.records",
    "import_records": "redstring.composition.records",
    "Retriever": "redstring.composition.retrieval",
    "Workspace": "redstring.composition.workspace",
}

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

__all__ = [
    "AUTO",
    "AnswerDraft",
    "BuildProgress",
    "ConsolidationReport",
    "Consolidator",
    "ContextBuilder",
    "GraphBuildReport",
    "GroundedAnswer",
    "ImportReport",
    "RecordMapping",
    "Retriever",
    "Workspace",
    "answer_question",
    "build_graph",
    "embed_entities",
    "import_records",
]
