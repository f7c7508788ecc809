"""The embedding provider port."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence


class EmbeddingProvider(Protocol):
    """Texts in, vectors out.

    **Order is the contract**: the i-th vector embeds the i-th text, every vector
    has length `dimension`, and an empty input gives an empty output.
    `embed_query` is for search queries; symmetric models answer it as `embed`
    (the local model within a cosine of 0.999, on 8-bit weights: ADR 0013),
    asymmetric ones (query/passage prefixes) differ.
    """

    @property
    def dimension(self) -> int: ...

    @property
    def model_name(self) -> str: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]: ...
