"""Average-link clustering: coherent, deterministic, order-independent."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.consolidation.clustering import (
    ScoredPair,
    average_link_clusters,
    connected_components,
)

MEMBERS = [f"e{i:02d}" for i in range(12)]

pair_lists = st.lists(
    st.tuples(
        st.sampled_from(MEMBERS),
        st.sampled_from(MEMBERS),
        st.sampled_from([0.05, 0.3, 0.5, 0.51, 0.7, 0.9, 0.99]),
    ).filter(lambda t: t[0] != t[1]),
    max_size=40,
    unique_by=lambda t: tuple(sorted(t[:2])),
)


def test_a_chain_with_a_scored_weak_link_is_not_fused() -> None:
    """Catches plain transitive closure: a~b and b~c strong, a~c scored as different."""
    pairs = [ScoredPair("a", "b", 0.99), ScoredPair("b", "c", 0.95), ScoredPair("a", "c", 0.01)]
    assert average_link_clusters(["a", "b", "c"], pairs, 0.6) == [["a", "b"], ["c"]]
    assert connected_components(["a", "b", "c"], [("a", "b"), ("b", "c")]) == [["a", "b", "c"]]


def test_unscored_pairs_do_not_block_a_merge() -> None:
    """Catches treating 'never compared' as 'different': a~c unscored, chain joins."""
    pairs = [ScoredPair("a", "b", 0.9), ScoredPair("b", "c", 0.9)]
    assert average_link_clusters(["a", "b", "c"], pairs, 0.6) == [["a", "b", "c"]]


def test_below_threshold_stays_apart_and_singletons_are_kept() -> None:
    """Catches dropping members that have no pair, and merging below threshold."""
    clusters = average_link_clusters(["a", "b", "z"], [ScoredPair("a", "b", 0.4)], 0.5)
    assert clusters == [["a"], ["b"], ["z"]]


@settings(max_examples=60, deadline=None)
@given(pairs=pair_lists, seed=st.randoms(use_true_random=False))
def test_shuffled_and_flipped_input_gives_the_same_clusters(pairs, seed) -> None:  # type: ignore[no-untyped-def]
    """Catches any dependence on the order pairs arrive in or on which end is 'left'."""
    scored = [ScoredPair(a, b, p) for a, b, p in pairs]
    shuffled = list(scored)
    seed.shuffle(shuffled)
    flipped = [ScoredPair(s.right, s.left, s.probability) for s in shuffled]
    members = list(MEMBERS)
    seed.shuffle(members)
    expected = average_link_clusters(MEMBERS, scored, 0.5)
    assert average_link_clusters(members, shuffled, 0.5) == expected
    assert average_link_clusters(members, flipped, 0.5) == expected
