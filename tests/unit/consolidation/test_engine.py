"""resolve / resolve_incremental end to end on hand-made text entities."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.consolidation.adjudication import GreyPair, LlmAdjudicator, PairVerdicts
from redstring.consolidation.engine import (
    ResolutionPlan,
    _grey_part,
    resolve,
    resolve_incremental,
    resolve_sync,
)
from redstring.domain.exceptions import InvalidInputError
from redstring.domain.ids import EntityId
from redstring.graph.memory import InMemoryGraphStore
from redstring.llm.fake import FakeLlmProvider
from redstring.testing.factories import DEFAULT_TENANT, make_entity, make_provenance

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.entity import Entity


def _org(n: int, name: str) -> Entity:
    """Each in its own document: no shared document context to vouch for a pair."""
    entity = make_entity(entity_id=EntityId(UUID(int=n)), name=name, entity_type="organization")
    return entity.model_copy(update={"provenance": [make_provenance(f"doc-{n}")]})


ORGS = [
    _org(1, "Akzo Nobel N.V."),
    _org(2, "AKZO NOBEL NV"),
    _org(3, "Akzo Nobell"),  # grey: one misspelled token, no evidence beyond the string
    _org(4, "Unilever PLC"),
    make_entity(entity_id=EntityId(UUID(int=5)), name="Akzo Nobel", entity_type="person"),
]


def test_identical_cores_merge_grey_stays_apart_and_types_never_mix() -> None:
    """Catches merging grey pairs without an adjudicator, or across types."""
    plan = resolve_sync(ORGS)
    assert [(d.canonical_id, d.merged_ids) for d in plan.merges] == [(ORGS[0].id, (ORGS[1].id,))]
    assert [(g.left_id, g.right_id) for g in plan.grey] == [
        (ORGS[0].id, ORGS[2].id),
        (ORGS[1].id, ORGS[2].id),
    ]
    assert [ORGS[4].id] in plan.clusters
    assert len(plan.entity_ids) == len(ORGS)
    assert plan.grey_count == len(plan.grey) == 2


def test_grey_pairs_of_records_one_entity_holds_count_once() -> None:
    """Catches a grey pair reported once per record of an earlier merge: two records
    of one live entity, each grey against a third, are one pair kept apart."""
    merged, other = ORGS[0], ORGS[3]
    live = [merged, merged, other]
    pairs = np.asarray([[0, 2], [1, 2], [0, 1]], dtype=np.int64)
    plan = ResolutionPlan()
    plan._grey_parts.append(
        _grey_part(
            live,
            pairs[:, 0],
            pairs[:, 1],
            np.asarray([0.3, 0.2, 0.4]),
            np.asarray([True, True, False]),
        )
    )
    assert plan.grey_count == 1
    assert [(g.left_id, g.right_id, g.probability) for g in plan.grey] == [
        (merged.id, other.id, 0.3)
    ]


class _SayYes:
    def __init__(self) -> None:
        self.seen: list[GreyPair] = []

    async def decide(self, pairs: Sequence[GreyPair]) -> list[bool | None]:
        self.seen.extend(pairs)
        return [True] * len(pairs)


async def test_an_adjudicator_yes_merges_the_grey_pair() -> None:
    """Catches verdicts being ignored (or applied to the wrong pairs)."""
    judge = _SayYes()
    plan = await resolve(ORGS, adjudicator=judge)
    assert {(p.left.id, p.right.id) for p in judge.seen} == {
        (ORGS[0].id, ORGS[2].id),
        (ORGS[1].id, ORGS[2].id),
    }
    assert [d.merged_ids for d in plan.merges] == [(ORGS[1].id, ORGS[2].id)]
    assert plan.grey == []
    assert plan.adjudicated == {"same": 2, "different": 0}


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


async def test_incremental_resolves_new_entities_against_the_stored_ones() -> None:
    """Catches incremental resolution ignoring the stored entities."""
    store = InMemoryGraphStore()
    await store.upsert_entities([ORGS[0], ORGS[3]], DEFAULT_TENANT)
    new = _org(9, "AKZO NOBEL NV")
    plan = await resolve_incremental([new], store, DEFAULT_TENANT)
    assert [(d.canonical_id, d.merged_ids) for d in plan.merges] == [(ORGS[0].id, (new.id,))]


def test_duplicate_ids_are_refused() -> None:
    with pytest.raises(InvalidInputError):
        resolve_sync([ORGS[0], ORGS[0]])


@settings(max_examples=25, deadline=None)
@given(order=st.permutations(range(len(ORGS))))
def test_entity_order_does_not_change_clusters_or_canonicals(order: list[int]) -> None:
    """Catches canonical choice or clustering that depends on input order."""
    expected = resolve_sync(ORGS)
    shuffled = resolve_sync([ORGS[i] for i in order])
    assert shuffled.clusters == expected.clusters
    assert [(d.canonical_id, d.merged_ids) for d in shuffled.merges] == [
        (d.canonical_id, d.merged_ids) for d in expected.merges
    ]
