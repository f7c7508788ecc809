"""`FakeEmbeddingProvider`: a deterministic test double for the embedding port.

Each text maps to a unit vector drawn from a generator seeded by the SHA-256 of
its normalized form -- so equal texts (up to case and spacing) embed equally,
different texts are nearly orthogonal, any dimension works, and nothing is
downloaded. It carries no semantics: "car" and "automobile" are unrelated here.
Use it to test plumbing, never to judge retrieval quality.
"""

from __future__ import annotations

import hashlib
import math
import random
from typing import TYPE_CHECKING

from redstring.domain.exceptions import InvalidInputError
from redstring.domain.normalization import normalize_name

if TYPE_CHECKING:
    from collections.abc import Sequence


class FakeEmbeddingProvider:
    """Hashed unit vectors; counts calls so tests can assert a channel made none."""

    def __init__(self, dimension: int = 384) -> None:
        if dimension < 1:
            raise InvalidInputError(f"dimension must be positive, got {dimension}")
        self._dimension = dimension
        self.calls = 0

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def model_name(self) -> str:
        return f"fake-hash-{self._dimension}"

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self._vector(text) for text in texts]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.embed(texts)

    def _vector(self, text: str) -> list[float]:
        seed = hashlib.sha256(normalize_name(text).encode("utf-8")).digest()
        generator = random.Random(seed)
        raw = [generator.gauss(0.0, 1.0) for _ in range(self._dimension)]
        norm = math.sqrt(sum(x * x for x in raw)) or 1.0
        return [x / norm for x in raw]
