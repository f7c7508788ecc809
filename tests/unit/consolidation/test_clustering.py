"""Clusters that agree as wholes: no chains, deterministic, order-independent."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.consolidation import clustering
from redstring.consolidation.clustering import PairScorer, agreeing_clusters


def _matrix_scorer(matrix: np.ndarray) -> PairScorer:
    def score(left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return np.asarray(matrix[left, right], dtype=np.float64)

    return score


def _run(
    matrix: np.ndarray, pairs: list[tuple[int, int]], tolerated: float = 0.0
) -> list[list[int]]:
    arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    probs = matrix[arr[:, 0], arr[:, 1]] if len(arr) else np.zeros(0)
    return agreeing_clusters(
        len(matrix), arr, probs, _matrix_scorer(matrix), tolerated_share=tolerated
    )


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


def test_a_refused_join_is_tried_again_once_a_cluster_grew() -> None:
    """{0,1} and {2,3} first refuse to join (mean 0.375); 4 then joins {0,1}, and the
    next edge between the two groups holds (mean 0.54). Catches a memo of refused
    joins that outlives the clusters it was made for."""
    m = np.full((5, 5), 0.2)
    m[0, 1] = m[2, 3] = 0.99
    m[1, 2], m[1, 4], m[4, 2], m[0, 4], m[4, 3] = 0.9, 0.8, 0.75, 0.9, 0.99
    m = np.maximum(m, m.T)
    pairs = [(0, 1), (2, 3), (1, 2), (1, 4), (4, 2)]
    assert _sequential(m, pairs) == [[0, 1, 2, 3, 4]]
    assert _run(m, pairs) == [[0, 1, 2, 3, 4]]


def _sequential(
    matrix: np.ndarray, pairs: list[tuple[int, int]], tolerated: float = 0.0
) -> list[list[int]]:
    """The specification, one join at a time in best-pair-first order."""
    cluster = {i: {i} for i in range(len(matrix))}
    strong = sorted((p for p in pairs if matrix[p] >= 0.5), key=lambda p: (-matrix[p], *p))
    # Pass after pass over every pair, in order, until one joins nothing.
    joined = True
    while joined:
        joined = _sequential_pass(matrix, strong, cluster, tolerated)
    return sorted({min(c): sorted(c) for c in cluster.values()}.values())


def _sequential_pass(
    matrix: np.ndarray,
    strong: list[tuple[int, int]],
    cluster: dict[int, set[int]],
    tolerated: float,
) -> bool:
    joined = False
    for i, j in strong:
        a, b = cluster[i], cluster[j]
        if a is b:
            continue
        cross = [matrix[x, y] for x in a for y in b]
        # When one side has at least twice the other's records, each record of the
        # smaller may meet floor(tolerated * size of the larger) contradictions;
        # otherwise any contradiction vetoes.
        small, large = min((a, b), (b, a), key=_first_len)
        if tolerated and len(large) >= 2 * len(small):
            vetoed = any(
                sum(matrix[x, y] < 0.05 for y in large) > int(tolerated * len(large) + 1e-9)
                for x in small
            )
        else:
            vetoed = min(cross) < 0.05
        if not vetoed and sum(cross) / len(cross) >= 0.5:
            together = a | b
            for x in together:
                cluster[x] = together
            joined = True
    return joined


def _first_len(sides: tuple[set[int], set[int]]) -> int:
    return len(sides[0])


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=0, max_value=10_000),
    st.sampled_from([1, 2, 8]),
    st.sampled_from([0.0, 0.1, 0.25]),
)
def test_waves_decide_what_one_join_at_a_time_decides(
    seed: int, sample: int, tolerated: float
) -> None:
    """Catches a wave that decides a join before an earlier join on the same cluster,
    a sampled first scoring that refuses (or accepts) differently, or contradictions
    counted against the wrong side or the wrong allowance: batched waves must give
    exactly the clusters of strictly sequential greedy joins."""
    rng = np.random.default_rng(seed)
    # Values whose means never sit exactly on 0.5, where float rounding decides;
    # mostly strong, so clusters grow past the sizes where contradictions are
    # tolerated.
    m = rng.choice(
        [0.01, 0.31, 0.57, 0.73, 0.91, 0.993], size=(40, 40), p=[0.1, 0.1, 0.1, 0.1, 0.2, 0.4]
    )
    m = np.triu(m, 1)
    m = m + m.T
    pairs = [(i, j) for i in range(40) for j in range(i + 1, 40) if m[i, j] >= 0.5]
    with patch.object(clustering, "SAMPLE_PER_JOIN", sample):
        assert _run(m, pairs, tolerated) == _sequential(m, pairs, tolerated)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_a_component_whose_every_pair_matches_is_one_cluster_as_greedy_joins_find(
    seed: int,
) -> None:
    """Catches the shortcut for whole components (`_whole_components`) joining a
    component one of whose pairs was never a candidate and scores as different on
    demand, or one a weak candidate pair sits in: groups of two to six records,
    each all-matching, missing a pair that matches or not, or holding a weak one,
    and a few links between groups, must cluster exactly as sequential greedy
    joins do."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 7, size=8)
    n = int(sizes.sum())
    m = np.full((n, n), 0.01)
    pairs: list[tuple[int, int]] = []
    start = 0
    for size in sizes.tolist():
        group = range(start, start + size)
        inner = [(i, j) for i in group for j in group if i < j]
        for i, j in inner:
            m[i, j] = m[j, i] = rng.choice([0.91, 0.993])
        flaw = rng.integers(4)
        if flaw and len(inner) > 1:
            i, j = inner[int(rng.integers(len(inner)))]
            if flaw < 3:
                m[i, j] = m[j, i] = rng.choice([0.01, 0.31])
            if flaw != 2:
                inner.remove((i, j))  # never a candidate: scored on demand
        pairs.extend(inner)
        start += size
    for _ in range(4):
        i, j = sorted(rng.choice(n, size=2, replace=False).tolist())
        if (i, j) not in pairs:
            m[i, j] = m[j, i] = rng.choice([0.57, 0.91])
            pairs.append((i, j))
    assert _run(m, pairs) == _sequential(m, pairs)


def test_a_pair_listed_twice_is_read_as_its_first_score_by_the_whole_component_check() -> None:
    """Catches the whole-component shortcut reading a pair's later, matching score
    where every check reads its first (`_KnownScores`): three records whose pairs all
    match, but (0, 1) listed first as different, cluster as without the shortcut."""
    pairs = np.asarray([[0, 1], [0, 1], [0, 2], [1, 2]], dtype=np.int64)
    probabilities = np.asarray([0.01, 0.9, 0.9, 0.9])
    m = np.full((3, 3), 0.9)

    def run() -> list[list[int]]:
        return agreeing_clusters(3, pairs, probabilities, _matrix_scorer(m))

    with patch.object(clustering, "_whole_components", lambda n, *_: np.zeros(n, dtype=bool)):
        expected = run()
    assert len(expected) == 2
    assert run() == expected


def _cluster_and_newcomer(contradicting: int, size: int = 10) -> np.ndarray:
    """`size` records alike (0.99) and a newcomer (index `size`) the first
    `contradicting` of them score as different (0.01), the rest as alike (0.9)."""
    m = np.full((size + 1, size + 1), 0.99)
    m[size, :] = m[:, size] = 0.9
    m[size, :contradicting] = m[:contradicting, size] = 0.01
    return m


def _chain(size: int) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(size)]


def test_one_copy_in_ten_that_rejects_a_newcomer_does_not_keep_it_out() -> None:
    """Catches a veto that a cluster's single mistyped copy casts for all ten: with
    one in ten tolerated the newcomer joins; with none tolerated it stays apart."""
    m = _cluster_and_newcomer(contradicting=1)
    assert _run(m, _chain(10), tolerated=0.1) == [list(range(11))]
    assert _run(m, _chain(10)) == [list(range(10)), [10]]


def test_a_pair_a_user_or_an_adjudicator_kept_apart_is_never_tolerated() -> None:
    """The newcomer one copy in ten rejects joins; the same pair kept apart by an
    override (a merge the user undid, an adjudicator's "different") keeps it out,
    whatever the tolerance. Catches an undo the next consolidate would redo."""
    m = _cluster_and_newcomer(contradicting=0)
    arr = np.asarray(_chain(10), dtype=np.int64)
    probs = m[arr[:, 0], arr[:, 1]]
    scorer = _matrix_scorer(m)
    assert agreeing_clusters(11, arr, probs, scorer, tolerated_share=0.1) == [list(range(11))]
    apart = agreeing_clusters(11, arr, probs, scorer, tolerated_share=0.1, overrides={(0, 10): 0.0})
    assert apart == [list(range(10)), [10]]


def test_a_newcomer_two_of_ten_reject_stays_apart() -> None:
    """Catches an allowance counted over all cross pairs, or rounded up: two
    contradictions among ten records are past one in ten."""
    m = _cluster_and_newcomer(contradicting=2)
    assert _run(m, _chain(10), tolerated=0.1) == [list(range(10)), [10]]


def test_below_ten_records_every_contradiction_still_vetoes() -> None:
    """Catches a tolerance that reaches small clusters: one in nine is past one in
    ten, so a newcomer one of nine rejects stays apart."""
    m = _cluster_and_newcomer(contradicting=1, size=9)
    assert _run(m, _chain(9), tolerated=0.1) == [list(range(9)), [9]]


def test_a_join_refused_while_a_cluster_was_small_holds_once_it_has_grown() -> None:
    """1 and the newcomer 10 join first; 0, which rejects 10, is then refused by
    {1, 10} (one contradiction in two) and left alone while {1, 10} grows to ten
    records through the chain, where one in ten is tolerated. Catches clusters that
    depend on that order: a repeated run would have joined 0 (idempotence)."""
    m = np.full((11, 11), 0.99)
    m[10, :] = m[:, 10] = 0.9
    m[0, 10] = m[10, 0] = 0.01
    m[1, 10] = m[10, 1] = 0.999
    m[0, 1] = m[1, 0] = 0.998
    pairs = [(1, 10), (0, 1)] + [(i, i + 1) for i in range(1, 9)]
    assert _run(m, pairs, tolerated=0.1) == [list(range(11))]
    assert _run(m, pairs) == [[0], list(range(1, 11))]


def _two_groups(first: int, second: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Two groups of records alike within (0.99) and fairly alike across (0.9) but
    for one pair (the first records of each, 0.01), chained within and bridged."""
    n = first + second
    m = np.full((n, n), 0.9)
    m[:first, :first] = m[first:, first:] = 0.99
    m[0, first] = m[first, 0] = 0.01
    chain = [(i, i + 1) for i in range(n - 1) if i != first - 1]
    m[first - 1, n - 1] = m[n - 1, first - 1] = 0.95
    return m, [*chain, (first - 1, n - 1)]


def test_only_a_cluster_twice_the_size_tolerates_a_contradiction() -> None:
    """Ten records and five: the five are outnumbered two to one, and their one
    contradiction is tolerated; ten and six are two candidates for one identity, and
    it vetoes. Catches a tolerance between clusters of like size (namesakes of 14
    and 16 records joined on people-50k)."""
    m, pairs = _two_groups(10, 5)
    assert _run(m, pairs, tolerated=0.1) == [list(range(15))]
    m, pairs = _two_groups(10, 6)
    assert _run(m, pairs, tolerated=0.1) == [list(range(10)), list(range(10, 16))]


def test_the_newcomer_side_is_judged_not_the_copy_that_rejects_it() -> None:
    """The rejecting copy meets a contradiction from every member of the one-record
    side; judging that side's allowance (0 of 1) instead would refuse the join.
    Catches the allowance applied to the larger cluster's members."""
    m = _cluster_and_newcomer(contradicting=1, size=20)
    assert _run(m, _chain(20), tolerated=0.1) == [list(range(21))]


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


def test_an_initial_group_is_never_split_and_joins_only_as_a_whole() -> None:
    """{0, 1} were merged by an earlier run although the model now scores them apart;
    2 agrees with 0 but contradicts 1. Catches clustering that splits an earlier
    merge, and one that lets a newcomer join it on its best member alone."""
    m = np.full((4, 4), 0.01)
    m[0, 2] = m[2, 0] = 0.99
    m[2, 3] = m[3, 2] = 0.9
    arr = np.asarray([(0, 2), (2, 3)], dtype=np.int64)
    probs = m[arr[:, 0], arr[:, 1]]
    clusters = agreeing_clusters(4, arr, probs, _matrix_scorer(m), initial=[[0, 1]])
    assert clusters == [[0, 1], [2, 3]]
    m[1, 2] = m[2, 1] = 0.6  # now every cross pair agrees: the group joins whole
    probs = m[arr[:, 0], arr[:, 1]]
    clusters = agreeing_clusters(4, arr, probs, _matrix_scorer(m), initial=[[1, 0]])
    assert clusters == [[0, 1, 2], [3]]


def test_overlapping_initial_groups_are_refused() -> None:
    m = np.full((3, 3), 0.5)
    with pytest.raises(ValueError, match="overlap"):
        agreeing_clusters(
            3,
            np.zeros((0, 2), dtype=np.int64),
            np.zeros(0),
            _matrix_scorer(m),
            initial=[[0, 1], [1, 2]],
        )


def _all_pairs(n: int) -> np.ndarray:
    return np.asarray([(i, j) for i in range(n) for j in range(i + 1, n)], dtype=np.int64)


def _household() -> np.ndarray:
    """Two groups of five duplicates whose every cross pair is a 'likely' 0.7: a head
    and a relative sharing name, address and town."""
    m = np.full((10, 10), 0.7)
    m[:5, :5] = m[5:, 5:] = 0.99
    return m


def test_a_link_every_record_s_own_duplicates_outbid_starts_no_join() -> None:
    """Catches clustering that lets a weak-but-strong link join two whole groups: each
    record's four strongest links are its own group's, so the 0.7 cross links start
    nothing; with every link allowed to start a join, the two groups fuse."""
    m = _household()
    arr = _all_pairs(10)
    probs = m[arr[:, 0], arr[:, 1]]
    scorer = _matrix_scorer(m)
    assert agreeing_clusters(10, arr, probs, scorer, strongest_links=4) == [
        [0, 1, 2, 3, 4],
        [5, 6, 7, 8, 9],
    ]
    assert agreeing_clusters(10, arr, probs, scorer) == [list(range(10))]


def test_a_link_that_is_one_end_s_strongest_still_starts_a_join() -> None:
    """Catches a filter that needs both ends to rank a link high: 7's only link is to
    0, far down 0's list, and 7 still joins 0's group (every cross pair 0.6)."""
    m = np.full((8, 8), 0.6)
    m[:7, :7] = 0.99
    arr = [*_all_pairs(7).tolist(), [0, 7]]
    pairs = np.asarray(arr, dtype=np.int64)
    probs = m[pairs[:, 0], pairs[:, 1]]
    assert agreeing_clusters(8, pairs, probs, _matrix_scorer(m), strongest_links=2) == [
        list(range(8))
    ]


def test_strongest_links_needs_at_least_one() -> None:
    m = _household()
    arr = _all_pairs(10)
    with pytest.raises(ValueError, match="at least 1"):
        agreeing_clusters(10, arr, m[arr[:, 0], arr[:, 1]], _matrix_scorer(m), strongest_links=0)


def test_a_pair_below_the_start_bar_starts_no_join_but_its_clusters_still_join() -> None:
    """Catches `can_start` ignored, or applied to the verdict: the 0.9 link 1~2 may not
    start a join, so a and b stay apart on it alone; once 0~3 (allowed) starts the
    same join, the verdict reads every cross pair, 1~2 among them, and it holds."""
    m = np.full((4, 4), 0.9)
    pairs = np.asarray([(0, 1), (2, 3), (1, 2), (0, 3)], dtype=np.int64)
    probs = m[pairs[:, 0], pairs[:, 1]]
    scorer = _matrix_scorer(m)
    only_inside = np.asarray([True, True, False, False])
    assert agreeing_clusters(4, pairs, probs, scorer, can_start=only_inside) == [[0, 1], [2, 3]]
    with_0_3 = np.asarray([True, True, False, True])
    assert agreeing_clusters(4, pairs, probs, scorer, can_start=with_0_3) == [[0, 1, 2, 3]]


def test_a_pair_below_the_lone_bar_joins_no_two_lone_records_but_joins_a_cluster() -> None:
    """Catches `lone_start` ignored, in the greedy joins or in a component joined
    whole, or applied to joins of clusters: 4~5 (a component of two, every pair
    matching) and 0~1 may not join two lone records; once 1~2 (allowed) has made
    a cluster of 1 and 2, 0~1 joins 0 to it, its verdict reading 0~2 as well.
    With neither allowed, 0, 1 and 2 stay apart."""
    m = np.full((6, 6), 0.9)
    m[0, 3] = m[3, 0] = m[1, 3] = m[3, 1] = m[2, 3] = m[3, 2] = 0.01
    m[0, 2] = m[2, 0] = 0.3  # 0, 1, 2 not a whole component: joined one by one
    pairs = np.asarray([(0, 1), (1, 2), (2, 3), (4, 5)], dtype=np.int64)
    probs = m[pairs[:, 0], pairs[:, 1]]
    scorer = _matrix_scorer(m)
    plain = agreeing_clusters(6, pairs, probs, scorer)
    assert plain == [[0, 1, 2], [3], [4, 5]]
    lone = np.asarray([False, True, True, False])
    assert agreeing_clusters(6, pairs, probs, scorer, lone_start=lone) == [
        [0, 1, 2], [3], [4], [5],
    ]  # fmt: skip
    none_alone = np.asarray([False, False, True, False])
    assert agreeing_clusters(6, pairs, probs, scorer, lone_start=none_alone) == [
        [0], [1], [2], [3], [4], [5],
    ]  # fmt: skip


def test_components_join_what_edges_and_starting_groups_connect() -> None:
    """Catches the components that decide which "distinct" pairs the clustering
    files as contradictions (only pairs inside one can ever be asked) splitting a
    path the starting edges or an earlier merge connect, or joining two apart."""
    n = 14
    # A path 11-10-...-6 given backwards (many rounds of propagation), a triangle,
    # a pair whose second end has the smaller index, and 3 and 5 one cluster from
    # the start (an earlier merge).
    path = [(k, k - 1) for k in range(11, 6, -1)]
    edges = np.asarray([*path, (0, 1), (1, 2), (2, 0), (13, 12)], dtype=np.int64)
    groups = np.arange(n, dtype=np.int64)
    groups[5] = 3
    label = clustering._components(edge_ends=edges, groups=groups)
    together = {}
    for index, value in enumerate(label.tolist()):
        together.setdefault(value, set()).add(index)
    assert sorted(map(sorted, together.values())) == [
        [0, 1, 2], [3, 5], [4], [6, 7, 8, 9, 10, 11], [12, 13],
    ]  # fmt: skip
