"""resolve / resolve_incremental end to end on hand-made entities."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.consolidation.adjudication import GreyPair, LlmAdjudicator, PairVerdicts
from redstring.consolidation.engine import resolve, resolve_incremental, resolve_sync
from redstring.consolidation.scoring import FEATURE_NAMES, MatchModel
from redstring.domain.exceptions import InvalidInputError
from redstring.domain.ids import EntityId
from redstring.graph.memory import InMemoryGraphStore
from redstring.llm.fake import FakeLlmProvider
from redstring.testing.factories import DEFAULT_TENANT, make_entity

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.entity import Entity


def _model(kind: str) -> MatchModel:
    # Identical cores -> ~0.98 (merge); Jaro-Winkler ~0.95 -> grey; else distinct.
    weights = [0.0] * len(FEATURE_NAMES)
    weights[FEATURE_NAMES.index("core_exact")] = 4.0
    weights[FEATURE_NAMES.index("core_jw")] = 20.0
    return MatchModel(kind=kind, weights=tuple(weights), intercept=-20.0, upper=0.9, lower=0.2)


MODELS = {k: _model(k) for k in ("person", "organization", "other")}


def _org(n: int, name: str) -> Entity:
    return make_entity(entity_id=EntityId(UUID(int=n)), name=name, entity_type="organization")


ORGS = [
    _org(1, "Akzo Nobel N.V."),
    _org(2, "AKZO NOBEL NV"),
    _org(3, "Akzo Nobell"),  # grey against 1 (2 is 1's exact twin: paired with 1 only)
    _org(4, "Unilever PLC"),
    make_entity(entity_id=EntityId(UUID(int=5)), name="Akzo Nobel", entity_type="person"),
]


def test_identical_cores_merge_grey_stays_apart_and_types_never_mix() -> None:
    """Catches merging grey pairs without an adjudicator, or across types."""
    plan = resolve_sync(ORGS, models=MODELS)
    assert [(d.canonical_id, d.merged_ids) for d in plan.merges] == [(ORGS[0].id, (ORGS[1].id,))]
    assert [(g.left_id, g.right_id) for g in plan.grey] == [(ORGS[0].id, ORGS[2].id)]
    assert plan.band_counts["type_incompatible"] >= 1
    assert [ORGS[4].id] in plan.clusters


class _SayYes:
    def __init__(self) -> None:
        self.seen: list[GreyPair] = []

    async def decide(self, pairs: Sequence[GreyPair]) -> list[bool | None]:
        self.seen.extend(pairs)
        return [True] * len(pairs)


async def test_an_adjudicator_yes_merges_the_grey_pair() -> None:
    """Catches verdicts being ignored (or applied to the wrong pairs)."""
    judge = _SayYes()
    plan = await resolve(ORGS, models=MODELS, adjudicator=judge)
    assert [(p.left.id, p.right.id) for p in judge.seen] == [(ORGS[0].id, ORGS[2].id)]
    assert [d.merged_ids for d in plan.merges] == [(ORGS[1].id, ORGS[2].id)]
    assert plan.grey == []
    assert plan.adjudicated == {"same": 1, "different": 0}


async def test_llm_adjudicator_batches_and_ignores_out_of_range_verdicts() -> None:
    """Catches a verdict for a pair number the batch does not have being trusted."""
    provider = FakeLlmProvider(
        [
            PairVerdicts.model_validate({"verdicts": [{"pair": 0, "same": True}]}),
            {"verdicts": [{"pair": 0, "same": False}, {"pair": 7, "same": True}]},
        ]
    )
    pairs = [GreyPair(ORGS[0], ORGS[2], 0.5), GreyPair(ORGS[1], ORGS[2], 0.5)]
    verdicts = await LlmAdjudicator(provider, batch_size=1).decide(pairs)
    assert verdicts == [True, False]
    assert len(provider.calls) == 2


async def test_incremental_finds_stored_candidates_through_blocking_keys() -> None:
    """Catches incremental resolution ignoring the store (or scanning by type key)."""
    store = InMemoryGraphStore()
    await store.upsert_entities([ORGS[0], ORGS[3]], DEFAULT_TENANT)
    new = _org(9, "AKZO NOBEL NV")
    plan = await resolve_incremental([new], store, DEFAULT_TENANT, models=MODELS)
    assert [(d.canonical_id, d.merged_ids) for d in plan.merges] == [(ORGS[0].id, (new.id,))]


def test_duplicate_ids_are_refused() -> None:
    with pytest.raises(InvalidInputError):
        resolve_sync([ORGS[0], ORGS[0]], models=MODELS)


@settings(max_examples=25, deadline=None)
@given(order=st.permutations(range(len(ORGS))))
def test_entity_order_does_not_change_clusters_or_canonicals(order: list[int]) -> None:
    """Catches canonical choice or clustering that depends on input order."""
    expected = resolve_sync(ORGS, models=MODELS)
    shuffled = resolve_sync([ORGS[i] for i in order], models=MODELS)
    assert shuffled.clusters == expected.clusters
    assert [(d.canonical_id, d.merged_ids) for d in shuffled.merges] == [
        (d.canonical_id, d.merged_ids) for d in expected.merges
    ]
