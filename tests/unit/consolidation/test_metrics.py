"""Resolution metrics on cases small enough to count by hand."""

from __future__ import annotations

import pytest

from redstring.consolidation.metrics import (
    bcubed_prf,
    pair_completeness,
    pairwise_prf,
    reduction_ratio,
)
from redstring.domain.exceptions import InvalidInputError

# gold: {0,1,2} {3,4}; predicted: {0,1} {2,3,4}
GOLD = ["a", "a", "a", "b", "b"]
PREDICTED = [1, 1, 2, 2, 2]


def test_pairwise_counts_pairs_not_records() -> None:
    """Catches counting records or clusters instead of pairs.

    Gold pairs: 01 02 12 34 (4). Predicted pairs: 01 23 24 34 (4). Shared: 01 34 (2).
    """
    result = pairwise_prf(PREDICTED, GOLD)
    assert result.precision == pytest.approx(2 / 4)
    assert result.recall == pytest.approx(2 / 4)
    assert result.f1 == pytest.approx(0.5)


def test_bcubed_averages_per_record() -> None:
    """Catches averaging per cluster instead of per record.

    Precision per record: 1, 1, 1/3, 2/3, 2/3 -> 11/15.
    Recall per record: 2/3, 2/3, 1/3, 1, 1 -> 11/15.
    """
    result = bcubed_prf(PREDICTED, GOLD)
    assert result.precision == pytest.approx(11 / 15)
    assert result.recall == pytest.approx(11 / 15)
    assert result.f1 == pytest.approx(11 / 15)


def test_all_singletons_have_perfect_precision_and_zero_pairwise_recall() -> None:
    """Catches a division by zero or a 0 precision when nothing is predicted."""
    result = pairwise_prf([0, 1, 2, 3, 4], GOLD)
    assert (result.precision, result.recall, result.f1) == (0.0, 0.0, 0.0)
    assert bcubed_prf([0, 1, 2, 3, 4], GOLD).precision == pytest.approx(1.0)


def test_perfect_prediction_scores_one_whatever_the_label_names() -> None:
    """Catches comparing label values across partitions instead of co-membership."""
    assert pairwise_prf(["x", "x", "x", "y", "y"], GOLD).f1 == pytest.approx(1.0)
    assert bcubed_prf(["x", "x", "x", "y", "y"], GOLD).f1 == pytest.approx(1.0)


def test_blocking_ratios() -> None:
    """Catches RR computed over ordered pairs and PC over non-matching candidates.

    5 records -> 10 pairs; 3 candidates -> RR 0.7. Candidates 01 (match), 23 (not),
    34 (match) -> PC 2 of 4 gold pairs.
    """
    assert reduction_ratio(3, 5) == pytest.approx(0.7)
    assert pair_completeness([(0, 1), (2, 3), (3, 4)], GOLD) == pytest.approx(0.5)


def test_mismatched_lengths_are_refused() -> None:
    """Catches silently truncating one side with zip."""
    with pytest.raises(InvalidInputError):
        pairwise_prf([1, 2], ["a"])
