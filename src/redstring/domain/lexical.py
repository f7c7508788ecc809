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

from dataclasses import dataclass
from typing import TYPE_CHECKING
from uuid import UUID

from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

from redstring.domain.ids import EntityId
from redstring.domain.normalization import normalize_name
from redstring.domain.similarity import string_similarity

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

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


@dataclass(frozen=True, slots=True)
class LexicalCandidate:
    """What the lexical channel reads of a candidate before choosing whom to score:
    its id, its type (the `entity_types` filter applies before any cut), and its
    names already normalized. Never the entity's body: a block of thousands of
    candidates is screened from these strings, and only the shortlist is parsed."""

    #: The id's canonical lowercase hyphenated string, as stores keep it. Kept as the
    #: string because building a `UUID` per screened candidate was a fifth of the
    #: channel's time; `entity_id` builds it for the few that are kept.
    id_string: str
    entity_type: str
    #: `normalize_name` of the name and of `normalized_name`, distinct, in that order.
    names: tuple[str, ...]

    @property
    def entity_id(self) -> EntityId:
        return EntityId(UUID(self.id_string))


def candidate_names(entity: Entity) -> tuple[str, ...]:
    """The `LexicalCandidate.names` of `entity`: one declaration for every store."""
    return tuple(
        dict.fromkeys((normalize_name(entity.name), normalize_name(entity.normalized_name)))
    )


def name_scores(query: str, candidates: Sequence[LexicalCandidate]) -> list[float]:
    """Jaro-Winkler of `query` against each candidate's best name, on 0..1, in order.

    The screening half of `lexical_score` (names only, no properties), computed in
    one batched rapidfuzz call: a Python call per candidate cost more than the
    comparison itself on blocks of thousands.
    """
    normalized = normalize_name(query)
    owners = [index for index, candidate in enumerate(candidates) for _ in candidate.names]
    names = [name for candidate in candidates for name in candidate.names]
    best = [0.0] * len(candidates)
    # rapidfuzz scores the empty cases as `normalized_similarity` defines them.
    hits = process.extract(
        normalized, names, scorer=JaroWinkler.normalized_similarity, limit=None, processor=None
    )
    for _, score, index in hits:
        owner = owners[index]
        best[owner] = max(best[owner], float(score))
    return best


@dataclass(frozen=True, slots=True)
class ChosenBlocks:
    """Which blocks a store reads for `lexical_candidates`: `whole` ones entirely, or,
    when even the rarest overflows the limit, the first `limit` entities of `partial`."""

    whole: list[str]
    partial: str | None = None


def choose_blocks(sizes: Mapping[str, int], limit: int) -> ChosenBlocks:
    """The bounded choice every store makes (see `GraphStore.lexical_candidates`).

    Rarest first, each block whole while the summed sizes stay within `limit`; a
    block that would overflow is skipped and the next rarer-than-it-fits is tried.
    The sum over-counts entities filed under two chosen keys, so the bound is
    conservative. Empty blocks are nothing to read.
    """
    ordered = sorted((size, key) for key, size in sizes.items() if size > 0)
    whole: list[str] = []
    total = 0
    for size, key in ordered:
        if total + size <= limit:
            whole.append(key)
            total += size
    if whole or not ordered:
        return ChosenBlocks(whole=whole)
    return ChosenBlocks(whole=[], partial=ordered[0][1])


#: Most candidates the lexical channel reads per query (`lexical_candidates`' limit).
#: It bounds the channel's cost whatever the tenant's size: at 100k people names the
#: rarest key blocks of a query sum to a few hundred, and a block past this is a
#: token so common ("john", "the") that it says little on its own.
CANDIDATE_LIMIT = 2000


def shortlist_size(k: int) -> int:
    """How many name-screened candidates are parsed and scored in full for a top `k`.

    More than `k` because `lexical_score` also reads properties, which the names
    alone cannot see; a property match is worth at most `PROPERTY_WEIGHT`, so it
    can only displace a name match below that, deep in the list.
    """
    return max(4 * k, 20)
