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
from typing import TYPE_CHECKING, NamedTuple
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


#: Separates the names of one candidate in `LexicalCandidate.filed_names`: a control
#: character no normalized name contains (normalization turns it into a space).
NAME_SEPARATOR = "\x1f"


class LexicalCandidate(NamedTuple):
    """What the lexical channel reads of a candidate before choosing whom to score:
    its id, its type (the `entity_types` filter applies before any cut), and its
    names already normalized. Never the entity's body: a block of thousands of
    candidates is screened from these strings, and only the shortlist is parsed.

    A named tuple of the strings as a store keeps them, because the channel builds
    one per candidate row: a frozen dataclass with the names split into a tuple cost
    ~2 us each, a third of the channel's time at 100k (`bench/retrieval.py`)."""

    #: The id's canonical lowercase hyphenated string, as stores keep it. `entity_id`
    #: builds the `UUID` for the few candidates that are kept.
    id_string: str
    entity_type: str
    #: `candidate_names`, joined by `NAME_SEPARATOR` (`filed_names`).
    filed_names: str

    @property
    def entity_id(self) -> EntityId:
        return EntityId(UUID(self.id_string))

    @property
    def names(self) -> tuple[str, ...]:
        """`candidate_names` of the entity: normalized, distinct, name first."""
        return tuple(self.filed_names.split(NAME_SEPARATOR))


def candidate_names(entity: Entity) -> tuple[str, ...]:
    """The `LexicalCandidate.names` of `entity`: one declaration for every store."""
    return tuple(
        dict.fromkeys((normalize_name(entity.name), normalize_name(entity.normalized_name)))
    )


def filed_names(entity: Entity) -> str:
    """The `LexicalCandidate.filed_names` of `entity`."""
    return NAME_SEPARATOR.join(candidate_names(entity))


def name_scores(query: str, candidates: Sequence[LexicalCandidate]) -> list[float]:
    """Jaro-Winkler of `query` against each candidate's best name, on 0..1, in order.

    The screening half of `lexical_score` (names only, no properties), computed in
    one batched rapidfuzz call: a Python call per candidate cost more than the
    comparison itself on blocks of thousands. Most candidates have one name, and
    then their filed strings are scored as they are, with no per-candidate work.
    """
    normalized = normalize_name(query)
    filed = [candidate.filed_names for candidate in candidates]
    if not filed:
        return []
    if NAME_SEPARATOR not in "".join(filed):
        # rapidfuzz scores the empty cases as `normalized_similarity` defines them.
        row = process.cdist(
            [normalized],
            filed,
            scorer=JaroWinkler.normalized_similarity,
            processor=None,
            dtype="float64",
            workers=1,
        )[0]
        scores: list[float] = row.tolist()
        return scores
    owners = [index for index, names in enumerate(filed) for _ in names.split(NAME_SEPARATOR)]
    names = [name for joined in filed for name in joined.split(NAME_SEPARATOR)]
    best = [0.0] * len(candidates)
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
#: It bounds the channel's cost whatever the tenant's size. Measured on people-50k's
#: 5,156 clusters among 95k generated look-alike names (one tenant of 100k), lexical
#: recall@1 / @10 by limit: 2000 0.431 / 0.649, 1000 0.436 / 0.671, 500 0.441 / 0.680,
#: 250 0.448 / 0.694, 100 0.429 / 0.639, 50 0.391 / 0.538: past a few hundred, the
#: extra rows come from blocks of common tokens and crowd the top ten rather than
#: complete it. 500 keeps a margin above the knee at a quarter of 2000's reads.
CANDIDATE_LIMIT = 500


def shortlist_size(k: int, ordered: Sequence[float]) -> int:
    """How many name-screened candidates are parsed and scored in full for a top `k`,
    given their name scores best first (`name_scores`, ties in id order).

    `lexical_score` is the best of the name score and `PROPERTY_WEIGHT` times a
    property's, so a candidate can only rise on a property to below
    `PROPERTY_WEIGHT`. When the `k`-th name score is above it, nothing past the `k`
    best (and those tied with the `k`-th) can enter the top `k`: exactly those are
    parsed. Otherwise properties may reorder the list and a wider shortlist
    (`4 k`, at least 20) is parsed, still a bound and not a proof.
    """
    if len(ordered) <= k:
        return len(ordered)
    kth = ordered[k - 1]
    if kth > PROPERTY_WEIGHT:
        end = k
        while end < len(ordered) and ordered[end] >= kth:
            end += 1
        return end
    return min(len(ordered), max(4 * k, 20))
