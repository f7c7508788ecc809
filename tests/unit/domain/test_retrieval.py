"""The retrieval result types."""

from __future__ import annotations

import pytest

from redstring.domain.retrieval import RetrievalMode, RetrievalResult, ScoredEntity
from redstring.testing import make_entity


def test_a_channel_that_did_not_rank_is_none_not_zero() -> None:
    """`None` means "not ranked here"; `0.0` means "ranked, and scored zero"."""
    unranked = ScoredEntity(entity=make_entity(), score=0.5, semantic=None, lexical=0.9)
    ranked_zero = ScoredEntity(entity=make_entity(), score=0.5, semantic=0.0, lexical=0.9)
    assert unranked.semantic is None
    assert ranked_zero.semantic == 0.0
    assert unranked.semantic != ranked_zero.semantic


def test_component_scores_default_to_none() -> None:
    """Constructed directly: the declared defaults are public and must be executed."""
    scored = ScoredEntity(entity=make_entity(), score=0.5)
    assert scored.semantic is None
    assert scored.lexical is None


@pytest.mark.parametrize("bad", [-0.01, 1.01])
def test_a_component_score_outside_zero_to_one_is_rejected(bad: float) -> None:
    """Both components have stated 0..1 scales; the fused score does not."""
    with pytest.raises(ValueError, match="semantic"):
        ScoredEntity(entity=make_entity(), score=0.5, semantic=bad)
    with pytest.raises(ValueError, match="lexical"):
        ScoredEntity(entity=make_entity(), score=0.5, lexical=bad)


def test_the_fused_score_is_not_bounded_to_one() -> None:
    """A 0..1 bound here would be the `VectorMatch` scale leaking onto an RRF sum."""
    assert ScoredEntity(entity=make_entity(), score=7.5).score == 7.5


def test_a_result_keeps_the_query_it_answered() -> None:
    result = RetrievalResult(query="ada", matches=[])
    assert result.query == "ada"
    assert result.matches == []


def test_the_modes_are_their_own_strings() -> None:
    assert RetrievalMode.HYBRID == "hybrid"
    assert RetrievalMode.SEMANTIC == "semantic"
    assert RetrievalMode.LEXICAL == "lexical"
