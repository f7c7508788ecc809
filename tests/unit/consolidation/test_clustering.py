"""Clusters that agree as wholes: no chains, deterministic, order-independent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.consolidation import clustering
from redstring.consolidation.clustering import agreeing_clusters

if TYPE_CHECKING:
    import pytest


def _matrix_scorer(matrix: np.ndarray) -> clustering.PairScorer:
    def score(left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return np.asarray(matrix[left, right], dtype=np.float64)

    return score


def _run(matrix: np.ndarray, pairs: list[tuple[int, int]]) -> list[list[int]]:
    arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    probs = matrix[arr[:, 0], arr[:, 1]] if len(arr) else np.zeros(0)
    return agreeing_clusters(len(matrix), arr, probs, _matrix_scorer(matrix))


def test_an_unscored_contradiction_stops_the_chain() -> None:
    """Catches clustering that trusts only blocked pairs: a~b, b~c strong, a~c never
    blocked but the model scores it as different -- a and c must not share a cluster."""
    m = np.full((3, 3), 0.0)
    m[0, 1] = m[1, 0] = 0.99
    m[1, 2] = m[2, 1] = 0.95
    assert _run(m, [(0, 1), (1, 2)]) == [[0, 1], [2]]


def test_clusters_that_agree_as_wholes_join() -> None:
    """Catches a guard so strict it never merges: every cross pair agrees."""
    m = np.full((4, 4), 0.9)
    m[3, :] = m[:, 3] = 0.01
    assert _run(m, [(0, 1), (1, 2), (2, 3)]) == [[0, 1, 2], [3]]


def test_a_weak_mean_keeps_groups_apart() -> None:
    """Catches a join on one strong link when the groups mostly disagree."""
    m = np.full((4, 4), 0.2)
    m[0, 1] = m[1, 0] = m[2, 3] = m[3, 2] = 0.99
    m[1, 2] = m[2, 1] = 0.9
    assert _run(m, [(0, 1), (2, 3), (1, 2)]) == [[0, 1], [2, 3]]


def test_large_components_take_the_on_demand_path_with_equal_results(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Catches the on-demand path diverging from the dense one."""
    rng = np.random.default_rng(7)
    m = rng.random((30, 30))
    m = (m + m.T) / 2
    pairs = [(i, j) for i in range(30) for j in range(i + 1, 30) if m[i, j] > 0.6]
    dense = _run(m, pairs)
    monkeypatch.setattr(clustering, "DENSE_COMPONENT_PAIRS", 0)
    assert _run(m, pairs) == dense


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.permutations(range(12)))
def test_no_cluster_holds_a_pair_the_model_keeps_apart(seed: int, order: list[int]) -> None:
    """Catches chains: inside every cluster, every pair scores >= the distinct threshold;
    and the result does not depend on the order the pairs are given in."""
    rng = np.random.default_rng(seed)
    m = rng.choice([0.01, 0.3, 0.6, 0.8, 0.99], size=(12, 12))
    m = np.triu(m, 1)
    m = m + m.T
    pairs = [(i, j) for i in range(12) for j in range(i + 1, 12) if m[i, j] >= 0.6]
    clusters = _run(m, pairs)
    for c in clusters:
        for x in c:
            for y in c:
                assert x == y or m[x, y] >= 0.05
    shuffled = [pairs[k] for k in sorted(range(len(pairs)), key=lambda k: order[k % 12] + k * 13)]
    flipped = [(j, i) for i, j in shuffled]
    assert _run(m, flipped) == clusters
