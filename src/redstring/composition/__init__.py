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
- `retrieval` composes `EmbeddingProvider` + `VectorStore` + `GraphStore`:
  `vector` and `graph` may not import each other, and neither may import
  `embeddings`.
"""

from __future__ import annotations

from redstring.composition.build_graph import (
    AUTO,
    BuildProgress,
    GraphBuildReport,
    build_graph,
    embed_entities,
)
from redstring.composition.consolidation import ConsolidationReport, Consolidator
from redstring.composition.records import ImportReport, RecordMapping, import_records
from redstring.composition.retrieval import Retriever
from redstring.composition.workspace import Workspace

__all__ = [
    "AUTO",
    "BuildProgress",
    "ConsolidationReport",
    "Consolidator",
    "GraphBuildReport",
    "ImportReport",
    "RecordMapping",
    "Retriever",
    "Workspace",
    "build_graph",
    "embed_entities",
    "import_records",
]
