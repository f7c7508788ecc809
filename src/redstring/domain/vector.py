"""Vector search results, and the one place their score scale is stated.

"Score" means different things across vector databases (distance, cosine,
inner product, higher-better or lower-better). Here it is always

    score = (1 + cosine_similarity) / 2      on 0..1, higher is more similar

so 1.0 is the same direction, 0.5 orthogonal, 0.0 opposite. Every adapter maps
its native number onto this scale through `score_from_cosine` or
`score_from_l2_of_unit_vectors`; an adapter that inverted the sense would
otherwise return plausible nonsense rather than an error.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from redstring.domain.ids import EntityId


class VectorMatch(BaseModel):
    """One search hit: the entity, its score on the scale above, and its type."""

    model_config = ConfigDict(extra="forbid")

    entity_id: EntityId
    score: float = Field(ge=0.0, le=1.0)
    entity_type: str


class VectorRecord(BaseModel):
    """What a vector store holds per entity: the vector and the type it filters on."""

    model_config = ConfigDict(extra="forbid")

    entity_id: EntityId
    vector: list[float]
    entity_type: str


def score_from_cosine(cosine: float) -> float:
    """Map cosine similarity (-1..1) onto the 0..1 score, clamped against rounding."""
    return min(1.0, max(0.0, (1.0 + cosine) / 2.0))


def score_from_l2_of_unit_vectors(distance: float) -> float:
    """For unit vectors, cosine = 1 - d^2/2; then the same mapping."""
    return score_from_cosine(1.0 - (distance * distance) / 2.0)
