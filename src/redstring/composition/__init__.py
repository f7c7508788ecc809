"""The top layer below the entry points: modules that hold collaborators no lower
layer may hold together.

- `retrieval` composes `EmbeddingProvider` + `VectorStore` + `GraphStore`:
  `vector` and `graph` are siblings that may not import each other, and neither
  may import `embeddings`.
"""

from __future__ import annotations

from redstring.composition.retrieval import Retriever

__all__ = ["Retriever"]
