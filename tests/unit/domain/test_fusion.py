"""Reciprocal rank fusion."""

from __future__ import annotations

from uuid import UUID

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from redstring.domain.fusion import RRF_K, order_ties_by_component, reciprocal_rank_fusion
from redstring.domain.ids import EntityId

# Fixed ids whose *string* order is knowable at a glance: the tie-break is on the
# canonical string, so random uuid4s would make a test pass or fail by luck.
A = EntityId(UUID("00000000-0000-4000-8000-00000000000a"))
B = EntityId(UUID("00000000-0000-4000-8000-00000000000b"))
C = EntityId(UUID("00000000-0000-4000-8000-00000000000c"))


def test_an_entity_in_both_rankings_at_the_same_rank_beats_one_in_either_alone() -> None:
    """Asserts scores, not order: under `max` A and B would tie and A would still
    win on id order, so only the score shows that contributions sum."""
    fused = dict(reciprocal_rank_fusion([[A], [A, B]]))
    assert fused[A] == pytest.approx(2 / (RRF_K + 1))
    assert fused[B] == pytest.approx(1 / (RRF_K + 2))


def test_rank_is_one_based_so_the_first_element_is_not_a_division_by_k() -> None:
    """Literals, not expressions in RRF_K: an expectation written in terms of the
    constant under test is true for any value of it."""
    fused = dict(reciprocal_rank_fusion([[A, B]]))
    assert fused[A] == pytest.approx(1 / 61)
    assert fused[B] == pytest.approx(1 / 62)


def test_ties_break_by_ascending_id_string() -> None:
    fused = reciprocal_rank_fusion([[B], [A]])
    assert [entity_id for entity_id, _ in fused] == [A, B]


def test_an_empty_ranking_contributes_nothing_and_does_not_shift_ranks() -> None:
    """Turning a channel off must not rescore the channel that stayed on."""
    assert reciprocal_rank_fusion([[A, B], []]) == reciprocal_rank_fusion([[A, B]])


def test_no_rankings_at_all_is_empty() -> None:
    assert reciprocal_rank_fusion([]) == []


def test_a_repeated_id_within_one_ranking_counts_once_at_its_best_rank() -> None:
    """A malformed channel must not be able to inflate its own contribution."""
    fused = dict(reciprocal_rank_fusion([[A, B, A]]))
    assert fused[A] == pytest.approx(1 / 61)


@given(st.lists(st.sampled_from([A, B, C]), unique=True, max_size=3))
@example([])
@example([A])
def test_every_id_present_appears_exactly_once_in_the_output(ids: list[EntityId]) -> None:
    """Boundary sizes pinned as examples rather than left to the sampler."""
    fused = reciprocal_rank_fusion([ids])
    assert sorted(entity_id for entity_id, _ in fused) == sorted(set(ids))


@given(st.permutations([A, B, C]))
def test_the_order_is_total_so_no_two_results_are_interchangeable(
    ranking: list[EntityId],
) -> None:
    fused = reciprocal_rank_fusion([ranking])
    keys = [(-score, str(entity_id)) for entity_id, score in fused]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


def test_an_exact_tie_goes_to_the_better_component_score() -> None:
    """The semantic channel's first hit and the lexical channel's first hit tie at
    1/61; the id string would pick A whatever the evidence."""
    fused = reciprocal_rank_fusion([[A], [B]])
    ordered = order_ties_by_component(fused, {A: 0.5, B: 0.9})
    assert [entity_id for entity_id, _ in ordered] == [B, A]
    assert dict(ordered) == dict(fused)


def test_component_scores_never_outweigh_a_better_fused_score() -> None:
    """Only ties move: A is ranked by both channels, B by one, whatever B's score."""
    fused = reciprocal_rank_fusion([[A, B], [A]])
    ordered = order_ties_by_component(fused, {A: 0.1, B: 1.0})
    assert [entity_id for entity_id, _ in ordered] == [A, B]


def test_equal_components_fall_back_to_the_id_string_and_missing_counts_zero() -> None:
    fused = reciprocal_rank_fusion([[B], [A], [C]])
    ordered = order_ties_by_component(fused, {A: 0.7, B: 0.7})
    assert [entity_id for entity_id, _ in ordered] == [A, B, C]
