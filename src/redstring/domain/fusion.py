"""Reciprocal rank fusion: combining rankings by position, never by score.

The semantic channel scores cosine on 0..1 and the lexical channel Jaro-Winkler
on 0..1; the shared range is a coincidence of normalization, not a common unit.
Any weighted sum of the two invents an exchange rate that is wrong for some
corpus and unfalsifiable for all. Position is the one thing both channels truly
produce, so fusion uses only that. The price -- a 0.99 and a 0.51 at rank 1
contribute the same -- is why `ScoredEntity` keeps the component scores.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


#: What is ranked: entity ids for entity retrieval, chunk ids for a context's chunks.
Ranked = TypeVar("Ranked", bound=Hashable)

#: The `k` in `1 / (k + rank)` (Cormack, Clarke & Buettcher, SIGIR 2009), where 60
#: worked across runs without tuning. A constant, not a parameter: a value tuned
#: on one caller's corpus is not a better default, only the same arbitrary number
#: with a misleading provenance.
RRF_K = 60


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Ranked]],
) -> list[tuple[Ranked, float]]:
    """Fuse best-first `rankings` into one list of `(id, score)`, best first.

    - Ranks are 1-based: the head of a ranking contributes `1 / (RRF_K + 1)`.
    - Contributions sum across rankings, so agreement between channels wins.
    - An id repeated within one ranking counts once, at its best rank: a channel
      that emits duplicates cannot inflate its own weight.
    - An empty ranking contributes nothing and shifts nothing, so switching a
      channel off never rescores the channel that stayed on.
    - Ties break by ascending id string (the `VectorStore.search` rule), which
      makes the order total: truncating through a tie is deterministic.
    """
    totals: dict[Ranked, float] = {}
    for ranking in rankings:
        seen: set[Ranked] = set()
        for rank, entity_id in enumerate(ranking, start=1):
            if entity_id in seen:
                continue
            seen.add(entity_id)
            totals[entity_id] = totals.get(entity_id, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(totals.items(), key=lambda item: (-item[1], str(item[0])))


def order_ties_by_component(
    fused: Sequence[tuple[Ranked, float]], component: Mapping[Ranked, float]
) -> list[tuple[Ranked, float]]:
    """`fused` with each run of equal fused scores reordered by the entity's best
    component score (highest first), then by id string. Scores are untouched.

    Why: two entities each ranked at the same position by one channel alone tie
    exactly under RRF, and the id tie-break then decides by chance -- most often
    between the semantic and the lexical channel's first results, i.e. for the top
    hit. The component scores share no unit (module docstring), so they never weigh
    *against* rank; between exact ties they are the only evidence left, and a
    magnitude that fusion discarded is better than none (ADR 0009, with figures).
    An entity missing from `component` counts as 0.0.
    """
    return sorted(fused, key=lambda item: (-item[1], -component.get(item[0], 0.0), str(item[0])))
