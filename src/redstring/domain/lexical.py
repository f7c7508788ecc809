"""Scoring one entity against a free-text query, with no text index.

**Not BM25**, and not to be renamed towards it. BM25 weights terms by corpus
statistics -- document frequency, average document length -- which mean nothing
over entity names, where each "document" is a couple of words. What a lexical
channel must do here is catch `Acme Corp` against `ACME Corporation`, where
cosine is weakest; a field-weighted string similarity does exactly that. True
BM25 belongs to the chunk store, over stored text (see BACKLOG.md).

The score is the **maximum** over fields, not a sum: a sum would let many
mediocre fields outrank an exact name and would leave the 0..1 scale that
`ScoredEntity.lexical` states.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from redstring.domain.similarity import string_similarity

if TYPE_CHECKING:
    from redstring.domain.entity import Entity

#: What a match on a string property is worth relative to the same match on the
#: name. A name is what an entity *is*; a property is something said about it.
#: A judgement, not a fit: there is no graded retrieval corpus of properties to
#: fit it on, and pretending otherwise would dress a guess as a measurement.
PROPERTY_WEIGHT = 0.6


def lexical_score(query: str, entity: Entity) -> float:
    """How well `entity` matches `query` lexically, on 0..1.

    The best of the name, the extractor's `normalized_name`, and every string
    property value at `PROPERTY_WEIGHT`. `string_similarity` normalizes both
    sides, so case and spacing never count -- one normalization, not two that
    drift. Non-string property values are skipped, not coerced: `str(7)` would
    invent a match for the query "7" nobody asked for.
    """
    best = max(
        string_similarity(query, entity.name),
        string_similarity(query, entity.normalized_name),
    )
    for value in entity.properties.values():
        if isinstance(value, str):
            best = max(best, PROPERTY_WEIGHT * string_similarity(query, value))
    return best
