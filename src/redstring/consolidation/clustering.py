"""Scored pairs into clusters that never chain.

Plain union-find over "merge" pairs chains: A~B and B~C put A and C together even
when A and C were scored as clearly different, and one bad link can fuse two large
clusters. `agreeing_clusters` joins two clusters only when they agree as wholes:
every cross pair is scored through the model's `PairScorer` (pairs blocking never
produced included), their mean must reach the merge threshold, and none may fall
below the distinct threshold -- or, where the caller allows it, a record of a much
smaller cluster may meet a few such contradictions in a large one, the copies a
cluster of many holds mistyped past recognition (`tolerated_share`). A newcomer
the cluster's members contradict in any number never joins it, so two groups
still never chain through a few strong links.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from redstring.consolidation.sorted_runs import SortedRuns, first_and_inverse, pairs_within

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    import numpy.typing as npt

#: A merge whose clusters would need more cross pairs than this is refused (kept
#: apart): no evidence that size can be checked cheaply, and precision comes first.
MAX_CROSS_PAIRS = 250_000
#: Cross pairs handed to the scorer in one call (bounds the memory of a wave).
SCORE_BATCH = 1_000_000
#: A wave checks about this many of each join's cross pairs first (scoring those
#: not known yet), and builds the whole cross product only for the joins that
#: sample did not refuse: most joins tried are refused by a contradiction a few
#: pairs already show. The verdicts are the same either way.
SAMPLE_PER_JOIN = 8
#: Components of at most this many records whose candidate pairs all match have
#: their other pairs scored at once to see whether they are whole
#: (`_whole_components`): at most 2,016 pairs each, which their joins would score.
WHOLE_SCORED = 64
#: A cluster tolerates contradictions of a newcomer group (`tolerated_share`) only
#: when it has at least twice its records: two clusters of like size are two
#: candidates for one identity, not a cluster and its stray copies. Without it,
#: people-50k's namesake clusters of 14 and 16 joined through copies without a
#: birth date (P 0.9606; with it 0.9646, F1 0.9512 -> 0.9527, no other set moved;
#: a cluster four times the group's size gave 0.9536 but cost people-registry-5k
#: 0.003).
OUTNUMBERED = 2


class PairScorer(Protocol):
    """Match probability of each pair (left[k], right[k]) of entity indices, by the
    same model that scored the candidate pairs."""

    def __call__(
        self, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64], /
    ) -> npt.NDArray[np.float64]: ...


def agreeing_clusters(
    n: int,
    pairs: npt.NDArray[np.int64],
    probabilities: npt.NDArray[np.float64],
    scorer: PairScorer,
    *,
    merge_threshold: float = 0.5,
    distinct_threshold: float = 0.05,
    overrides: Mapping[tuple[int, int], float] | None = None,
    initial: Iterable[Iterable[int]] = (),
    strongest_links: int | None = None,
    can_start: npt.NDArray[np.bool_] | None = None,
    tolerated_share: float = 0.0,
    lone_start: npt.NDArray[np.bool_] | None = None,
) -> list[list[int]]:
    """Clusters of the indices 0..n-1 (each sorted, the list sorted by first member).

    Greedy, best pair first (ties by index), in rounds: a round tries every pair
    whose clusters one of the last round's joins changed, until a round joins
    nothing, so the clusters are a fixed point and a repeated run finds no more
    joins. The clusters of a pair's two ends join
    when every cross pair scores at least `distinct_threshold` and their mean at
    least `merge_threshold`. Only pairs at or above `merge_threshold` start a join,
    so clusters lie inside the components of those pairs. Joins that do not depend
    on each other are decided in waves, each scored in one batched call. `overrides` (index pair,
    smaller index first -> probability) replace the scorer's word on those pairs:
    an adjudicator's verdict holds in every check, not only on the pair itself.
    `initial` groups start as clusters (entities an earlier run merged): they are
    never split, and join others by the same rule as any cluster.
    With `strongest_links` = K, a pair starts a join only when it is one of the K
    strongest pairs of one of its two ends (`_strongest_links`); the verdict still
    reads every cross pair. `can_start` (per pair) further limits which pairs start
    a join (`record_model._start_logit`); the verdict is unchanged. `lone_start`
    (per pair) limits which of those join two lone records, where the pair is the
    only evidence the verdict reads (`record_model.lone_bar`).
    With `tolerated_share` = s, when one cluster has at least `OUTNUMBERED` times the
    other's records, a record of the smaller that scores below `distinct_threshold`
    against at most s of the larger's members, rounded down, does not veto the join:
    one copy in ten of a person's that disagrees with a newcomer the other nine
    accept speaks for itself, not for the cluster. Below 1 / s members, or between
    clusters of like size, every contradiction still vetoes.
    """
    bars = _Bars(merge_threshold, distinct_threshold, tolerated_share)
    fixed = dict(overrides or {})
    if len(pairs) != len(probabilities):
        raise ValueError("pairs and probabilities differ in length")
    known = _KnownScores(n, pairs, probabilities, fixed)
    # Each index's cluster (its smallest member), kept exact on every join: a list for
    # single lookups, an array for a wave's contradictions at once.
    root = list(range(n))
    root_array = np.arange(n, dtype=np.int64)
    members: dict[int, list[int]] = {i: [i] for i in range(n)}
    for group in initial:
        together = sorted(set(group))
        if len(together) < 2:
            continue
        if any(root[i] != i for i in together):
            raise ValueError("initial groups overlap")
        for i in together[1:]:
            root[i] = together[0]
            del members[i]
        root_array[together] = together[0]
        members[together[0]] = together
    strong = probabilities >= merge_threshold
    if can_start is not None:
        strong &= can_start
    edges = np.sort(pairs[strong], axis=1)
    edge_p = probabilities[strong]
    edge_lone = np.ones(len(edges), dtype=bool) if lone_start is None else lone_start[strong]
    if strongest_links is not None:
        kept = _strongest_links(edges, edge_p, strongest_links)
        edges, edge_p, edge_lone = edges[kept], edge_p[kept], edge_lone[kept]
    # Only a pair inside one component of the starting edges (and earlier merges)
    # can ever be asked: clusters join along those edges alone.
    component = _components(edge_ends=edges, groups=root_array)
    # A component whose every pair is known to match is one cluster whatever the
    # order of its joins: each would pass. Joined here, its edges never queued.
    whole = _whole_components(
        n, pairs, probabilities, fixed, component, merge_threshold, known, scorer
    )
    if not edge_lone.all():
        # The greedy joins would start from a pair that may join two lone records,
        # or from a cluster an earlier merge made: a component with neither stays
        # apart, its records as they were.
        may_start = np.zeros(n, dtype=bool)
        may_start[component[edges[edge_lone, 0]]] = True
        may_start[component[root_array != np.arange(n)]] = True
        whole &= may_start
    if whole.any():
        inside_whole = np.flatnonzero(whole[component])
        labels = component[inside_whole]
        root_array[inside_whole] = labels
        order = np.argsort(labels, kind="stable")
        indices, labels = inside_whole[order].tolist(), labels[order].tolist()
        for i, label in zip(indices, labels, strict=True):
            root[i] = label
            if i != label:
                members.pop(i, None)
        for label, grouped in itertools.groupby(zip(labels, indices, strict=True), key=_first):
            members[label] = [i for _, i in grouped]
        outside = ~whole[component[edges[:, 0]]]
        edges, edge_p, edge_lone = edges[outside], edge_p[outside], edge_lone[outside]
    order = np.lexsort((edges[:, 1], edges[:, 0], -edge_p))
    lone_ok: list[bool] = edge_lone[order].tolist()
    # Tuples zipped from two flat lists: a list of [i, j] lists turned into tuples
    # cost ~3x as much (people-50k's ~800k starting edges: 0.4 s against 0.11).
    left_ends, right_ends = edges[order, 0].tolist(), edges[order, 1].tolist()
    ends: list[tuple[int, int]] = list(zip(left_ends, right_ends, strict=True))
    # Each cluster's pending joins, earliest first. A join is decided once it is the
    # earliest pending join of both its clusters: then no earlier decision can change
    # either side, and all such joins (a wave) are independent and scored together.
    pending: dict[int, list[int]] = {}
    for k, (i, j) in enumerate(ends):
        if root[i] != root[j]:
            pending.setdefault(root[i], []).append(k)
            pending.setdefault(root[j], []).append(k)

    def head(cluster: int) -> int | None:
        queue = pending.get(cluster)
        while queue:
            k = queue[0]
            i, j = ends[k]
            if root[i] != root[j]:
                return k
            heapq.heappop(queue)
        return None

    def ready(clusters: Iterable[int]) -> set[int]:
        out = set()
        for cluster in clusters:
            k = head(cluster)
            if k is None:
                continue
            i, j = ends[k]
            other = root[j] if root[i] == cluster else root[i]
            if head(other) == k:
                out.add(k)
        return out

    # Members each cluster is known to contradict (a pair below the distinct
    # threshold), keyed by root: most refused joins are refused by one of these,
    # found by a set test before any cross pair is built.
    cannot: dict[int, set[int]] = {}
    low_left, low_right = known.below(distinct_threshold)
    # Most pairs scored "distinct" lie between components (people-febrl 10k: filing
    # them all was 0.2 s of set updates).
    inside = component[low_left] == component[low_right]
    _note_contradictions(cannot, root_array, low_left[inside], low_right[inside])
    # ... and those an override keeps apart (a user's undone merge, an adjudicator's
    # "different"): no tolerance reaches them.
    forbidden: dict[int, set[int]] = {}
    apart = [pair for pair, p in fixed.items() if p < distinct_threshold]
    if apart:
        ends_apart = np.asarray(apart, dtype=np.int64)
        _note_contradictions(forbidden, root_array, ends_apart[:, 0], ends_apart[:, 1])

    def contradicts(a: int, b: int, table: Mapping[int, set[int]] = cannot) -> bool:
        if len(members[a]) > len(members[b]):
            a, b = b, a
        return not table.get(b, set()).isdisjoint(members[a])

    # Joins refused after scoring, with both clusters' sizes then: clusters only grow,
    # so (smallest member, size) names one state of a cluster, and another edge
    # between the same two unchanged clusters gets the same verdict unscored.
    refused: dict[tuple[int, int], tuple[int, int]] = {}

    def state(a: int, b: int) -> tuple[tuple[int, int], tuple[int, int]]:
        a, b = min(a, b), max(a, b)
        return (a, b), (len(members[a]), len(members[b]))

    def worth_checking(a: int, b: int) -> bool:
        counts = len(members[a]), len(members[b])
        if counts[0] * counts[1] > MAX_CROSS_PAIRS:
            return False
        # A known contradiction refuses the join unscored where none is tolerated.
        if bars.allowance(min(counts), max(counts)) == 0 and contradicts(a, b):
            return False
        if forbidden and contradicts(a, b, forbidden):
            return False
        key, sizes = state(a, b)
        return refused.get(key) != sizes

    def settle(frontier: Iterable[int]) -> list[int]:
        """The joins of a wave that need scoring, from the ready joins `frontier`.
        A join refused without scoring changes no cluster, so the next joins of its
        clusters are settled in the same wave: a cluster whose pending joins are
        refused one by one would otherwise take one wave each."""
        wave: list[int] = []
        while frontier:
            touched: list[int] = []
            for k in sorted(frontier):
                a, b = root[ends[k][0]], root[ends[k][1]]
                lone = len(members[a]) == 1 == len(members[b])
                if (lone_ok[k] or not lone) and worth_checking(a, b):
                    wave.append(k)
                    continue
                for cluster in (a, b):
                    heapq.heappop(pending[cluster])
                touched.extend((a, b))
            frontier = ready(set(touched))
        return sorted(wave)

    edge_ends = edges[order]
    grew: set[int] = set()
    wave_edges = settle(ready(list(pending)))
    while True:
        if not wave_edges:
            if not grew:
                break
            # A join refused while a cluster was smaller may hold now it has grown (a
            # contradiction a large cluster tolerates, a mean new members raised): the
            # edges between clusters one of which grew are tried again, in order,
            # until a round joins nothing -- the clusters a repeated run would find.
            grown = np.fromiter(grew, dtype=np.int64, count=len(grew))
            left_root, right_root = root_array[edge_ends[:, 0]], root_array[edge_ends[:, 1]]
            again = (left_root != right_root) & (
                np.isin(left_root, grown) | np.isin(right_root, grown)
            )
            grew = set()
            pending.clear()
            for k in np.flatnonzero(again).tolist():
                i, j = ends[k]
                pending.setdefault(root[i], []).append(k)
                pending.setdefault(root[j], []).append(k)
            wave_edges = settle(ready(list(pending)))
            continue
        wave = [(root[ends[k][0]], root[ends[k][1]]) for k in wave_edges]
        holds, low_left, low_right = _wave_verdicts(wave, members, scorer, known, bars)
        _note_contradictions(cannot, root_array, low_left, low_right)
        touched: list[int] = []
        for (a, b), holds_here in zip(wave, holds, strict=True):
            for cluster in (a, b):
                heapq.heappop(pending[cluster])
            if not holds_here:
                key, sizes = state(a, b)
                refused[key] = sizes
                touched.extend((a, b))
                continue
            keep, gone = (a, b) if a < b else (b, a)
            moved = members.pop(gone)
            for x in moved:
                root[x] = keep
            root_array[moved] = keep
            members[keep] = sorted(members[keep] + moved)
            small, large = sorted((pending.pop(gone, []), pending.get(keep, [])), key=len)
            for k in small:
                # An edge now inside the joined cluster is never a join again.
                if root[ends[k][0]] != root[ends[k][1]]:
                    heapq.heappush(large, k)
            pending[keep] = large
            for table in (cannot, forbidden):
                few, many = sorted((table.pop(gone, set()), table.get(keep, set())), key=len)
                many |= few
                if many:
                    table[keep] = many
            touched.append(keep)
            grew.add(keep)
        wave_edges = settle(ready({root[r] for r in touched}))
    return sorted((sorted(c) for c in members.values()), key=lambda c: c[0])


def _components(
    *, edge_ends: npt.NDArray[np.int64], groups: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """A label per index, equal for indices one of `edge_ends` (pairs) or one
    `groups` root (each index's starting cluster) connects, directly or not:
    minimum-label propagation with pointer jumping, in numpy."""
    label = groups.copy()
    if len(edge_ends):
        left, right = edge_ends[:, 0], edge_ends[:, 1]
        while True:
            low = np.minimum(label[left], label[right])
            before = label.copy()
            np.minimum.at(label, left, low)
            np.minimum.at(label, right, low)
            while True:  # every index to its label's label, until they settle
                jumped = label[label]
                if np.array_equal(jumped, label):
                    break
                label = jumped
            if np.array_equal(label, before):
                break
    return label


def _first(pair: tuple[int, int]) -> int:
    return pair[0]


def _whole_components(
    n: int,
    pairs: npt.NDArray[np.int64],
    probabilities: npt.NDArray[np.float64],
    fixed: Mapping[tuple[int, int], float],
    component: npt.NDArray[np.int64],
    merge_threshold: float,
    known: _KnownScores,
    scorer: PairScorer,
) -> npt.NDArray[np.bool_]:
    """Per component label (`_components`), whether every pair of its members
    scores at least `merge_threshold`: then every join inside it passes (no
    contradiction, every mean at the threshold or above), and the greedy order ends
    with the whole component as one cluster. Not where a fixed verdict touches it,
    nor where a join inside could exceed `MAX_CROSS_PAIRS` (refused unscored).

    A component none of whose candidate pairs falls short but some of whose pairs
    were never candidates has those scored now, as its joins would score them,
    when it has at most `WHOLE_SCORED` members (`_complete`). people-50k: 2,412 of
    4,728 components whole from their candidates (15k records), 1,137 more (14k)
    once their other pairs are scored."""
    size = np.bincount(component, minlength=n)
    left, right = pairs[:, 0], pairs[:, 1]
    inside = (component[left] == component[right]) & (left != right)
    matched = probabilities >= merge_threshold
    low, high = np.minimum(left, right), np.maximum(left, right)
    good = np.flatnonzero(inside & matched)
    distinct, _ = first_and_inverse(low[good] * n + high[good])
    count = np.bincount(component[low[good[distinct]]], minlength=n)
    open_ = (size > 1) & (size * size <= 4 * MAX_CROSS_PAIRS)
    open_[component[left[inside & ~matched]]] = False
    if fixed:
        ends = np.asarray(list(fixed), dtype=np.int64)
        open_[component[ends[:, 0]]] = False
        open_[component[ends[:, 1]]] = False
    whole = open_ & (count == size * (size - 1) // 2)
    unsure = open_ & ~whole & (size <= WHOLE_SCORED)
    if unsure.any():
        whole |= _complete(component, unsure, merge_threshold, known, scorer)
    return np.asarray(whole, dtype=bool)


def _complete(
    component: npt.NDArray[np.int64],
    asked: npt.NDArray[np.bool_],
    merge_threshold: float,
    known: _KnownScores,
    scorer: PairScorer,
) -> npt.NDArray[np.bool_]:
    """Per component label, whether it is one of `asked` and every pair of its
    members scores at least `merge_threshold`: the pairs not known yet scored (and
    remembered, so no join scores them again)."""
    members = np.flatnonzero(asked[component])
    labels = component[members]
    order = np.argsort(labels, kind="stable")
    members, labels = members[order], labels[order]
    starts = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])
    sizes = np.diff(np.r_[starts, len(labels)])
    left, right = pairs_within(members, starts, sizes, int(sizes.max()))
    scores, hit = known.lookup(left, right)
    _score(np.flatnonzero(~hit), left, right, scores, scorer, known)
    whole = asked.copy()
    whole[component[left[scores < merge_threshold]]] = False
    return whole


def _strongest_links(
    edges: npt.NDArray[np.int64], weights: npt.NDArray[np.float64], k: int
) -> npt.NDArray[np.bool_]:
    """Which edges are among the `k` heaviest of at least one of their two ends
    (ties by edge order). A record's true duplicates are its strongest links; a
    link far down its list (a relative at the same address, a namesake born the
    same year) is one its own duplicates already outbid, and such links are the
    ones through which two whole groups used to join."""
    if k < 1:
        raise ValueError("strongest_links must be at least 1")
    count = len(edges)
    if not count:
        return np.zeros(0, dtype=bool)
    node = np.concatenate([edges[:, 0], edges[:, 1]])
    weight = np.concatenate([weights, weights])
    edge = np.tile(np.arange(count), 2)
    order = np.lexsort((edge, -weight, node))
    ranked = node[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    sizes = np.diff(np.r_[starts, len(ranked)])
    rank = np.arange(len(ranked)) - np.repeat(starts, sizes)
    kept = np.zeros(count, dtype=bool)
    kept[edge[order][rank < k]] = True
    return kept


class _KnownScores:
    """Probabilities already known, looked up in bulk: the candidate pairs, fixed
    verdicts, and pairs scored on demand so far (a refused join is often retried as
    its clusters grow, and its pairs need not be scored twice)."""

    def __init__(
        self,
        n: int,
        pairs: npt.NDArray[np.int64],
        probabilities: npt.NDArray[np.float64],
        fixed: Mapping[tuple[int, int], float],
    ) -> None:
        self._n = n
        keys = self._keys(pairs[:, 0], pairs[:, 1])
        values = np.asarray(probabilities, dtype=np.float64)
        if fixed:
            extra = np.asarray([i * n + j for i, j in fixed], dtype=np.int64)
            keys = np.concatenate([extra, keys])
            values = np.concatenate([np.asarray(list(fixed.values()), dtype=np.float64), values])
        # The first occurrence of a key wins, so fixed verdicts override scores.
        first, _ = first_and_inverse(keys)
        keys = keys[first]
        self._known: SortedRuns[np.float64] = SortedRuns(np.float64)
        self._known.add(keys, values[first])

    def _keys(
        self, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64]:
        return np.minimum(left, right) * self._n + np.maximum(left, right)

    def below(self, threshold: float) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The known pairs scoring below `threshold` (fixed verdicts included), as
        (left, right) index arrays."""
        keys = np.concatenate(
            [np.zeros(0, dtype=np.int64), *(k[v < threshold] for k, v in self._known)]
        )
        return keys // self._n, keys % self._n

    def lookup(
        self, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        """(scores, known) of each pair; scores are meaningful where known."""
        return self._known.lookup(self._keys(left, right))

    def remember(
        self,
        left: npt.NDArray[np.int64],
        right: npt.NDArray[np.int64],
        scores: npt.NDArray[np.float64],
    ) -> None:
        self._known.add(self._keys(left, right), scores)


def _note_contradictions(
    cannot: dict[int, set[int]],
    root: npt.NDArray[np.int64],
    left: npt.NDArray[np.int64],
    right: npt.NDArray[np.int64],
) -> None:
    """File each pair scoring below the distinct threshold under both ends' clusters:
    `cannot[cluster]` gains the other end. Grouped by cluster, one set update each."""
    if not len(left):
        return
    clusters = np.concatenate([root[left], root[right]])
    others = np.concatenate([right, left])
    order = np.argsort(clusters, kind="stable")
    clusters, others = clusters[order], others[order]
    starts = np.flatnonzero(np.r_[True, clusters[1:] != clusters[:-1]])
    ends = np.r_[starts[1:], len(clusters)]
    listed = others.tolist()
    for cluster, start, end in zip(
        clusters[starts].tolist(), starts.tolist(), ends.tolist(), strict=True
    ):
        cannot.setdefault(cluster, set()).update(listed[start:end])


def _wave_verdicts(
    wave: list[tuple[int, int]],
    members: Mapping[int, list[int]],
    scorer: PairScorer,
    known: _KnownScores,
    bars: _Bars,
) -> tuple[list[bool], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Whether each join of the wave holds, and the pairs newly scored below the
    distinct threshold (left, right).

    First a spread sample of each join's cross pairs (`SAMPLE_PER_JOIN`, known or
    scored now): contradictions the join cannot tolerate (`_Bars.vetoed`), or a mean
    that cannot reach the merge threshold even if every other pair scored 1, refuse
    the join; a join whose
    sample is its whole cross product is decided there. Only the joins still open
    build their whole cross product (`_full_verdicts`). Most joins tried are refused
    by the sample, so most cross products are never built or looked up."""
    if not wave:
        empty = np.zeros(0, dtype=np.int64)
        return [], empty, empty
    left_members = [np.asarray(members[a], dtype=np.int64) for a, _ in wave]
    right_members = [np.asarray(members[b], dtype=np.int64) for _, b in wave]
    rows = np.asarray([len(x) for x in left_members], dtype=np.int64)
    cols = np.asarray([len(x) for x in right_members], dtype=np.int64)
    total = rows * cols
    stride = np.maximum(1, total // SAMPLE_PER_JOIN)
    count = -(-total // stride)
    join = np.repeat(np.arange(len(wave)), count)
    # The k-th sampled pair of a join is cross pair k * stride in row-major order
    # (left member, then right member): the order `_full_verdicts` builds them in.
    at = (np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)) * stride[join]
    all_left, all_right = np.concatenate(left_members), np.concatenate(right_members)
    left = all_left[(np.cumsum(rows) - rows)[join] + at // cols[join]]
    right = all_right[(np.cumsum(cols) - cols)[join] + at % cols[join]]
    scores, hit = known.lookup(left, right)
    missing = np.flatnonzero(~hit)
    _score(missing, left, right, scores, scorer, known)
    low = missing[scores[missing] < bars.distinct]
    vetoed = bars.vetoed(join, left, right, scores < bars.distinct, rows, cols)
    best = np.bincount(join, weights=scores, minlength=len(wave)) + (total - count)
    holds = ~vetoed & (best >= bars.merge * total)
    lows_left, lows_right = [left[low]], [right[low]]
    rest = np.flatnonzero(holds & (count < total))
    if len(rest):
        verdicts, rest_left, rest_right = _full_verdicts(
            [wave[k] for k in rest.tolist()],
            [left_members[k] for k in rest.tolist()],
            [right_members[k] for k in rest.tolist()],
            scorer,
            known,
            bars,
        )
        holds[rest] = verdicts
        lows_left.append(rest_left)
        lows_right.append(rest_right)
    return [bool(x) for x in holds], np.concatenate(lows_left), np.concatenate(lows_right)


def _full_verdicts(
    wave: list[tuple[int, int]],
    left_members: list[npt.NDArray[np.int64]],
    right_members: list[npt.NDArray[np.int64]],
    scorer: PairScorer,
    known: _KnownScores,
    bars: _Bars,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """`_wave_verdicts` over every cross pair of each join: known scores first, the
    unknown pairs of joins they do not refuse scored in batched calls."""
    lefts = [np.repeat(a, len(b)) for a, b in zip(left_members, right_members, strict=True)]
    rights = [np.tile(b, len(a)) for a, b in zip(left_members, right_members, strict=True)]
    all_left, all_right = np.concatenate(lefts), np.concatenate(rights)
    rows = np.asarray([len(x) for x in left_members], dtype=np.int64)
    cols = np.asarray([len(x) for x in right_members], dtype=np.int64)
    join = np.repeat(np.arange(len(wave)), rows * cols)
    scores, hit = known.lookup(all_left, all_right)
    cross = _Cross(join, all_left, all_right, rows, cols)
    open_ = _undecided(cross, scores, hit, bars)
    missing = np.flatnonzero(~hit & open_[join])
    _score(missing, all_left, all_right, scores, scorer, known)
    hit[missing] = True
    # Every pair of an open join is known now, so "not refused" is its verdict.
    holds = open_ & _undecided(cross, scores, hit, bars)
    contradicting = missing[scores[missing] < bars.distinct]
    return holds, all_left[contradicting], all_right[contradicting]


def _score(
    rows: npt.NDArray[np.int64],
    left: npt.NDArray[np.int64],
    right: npt.NDArray[np.int64],
    scores: npt.NDArray[np.float64],
    scorer: PairScorer,
    known: _KnownScores,
) -> None:
    """Score the pairs at `rows` into `scores` and remember them, in bounded batches."""
    for k in range(0, len(rows), SCORE_BATCH):
        chunk = rows[k : k + SCORE_BATCH]
        scores[chunk] = scorer(left[chunk], right[chunk])
        known.remember(left[chunk], right[chunk], scores[chunk])


def _undecided(
    cross: _Cross,
    scores: npt.NDArray[np.float64],
    hit: npt.NDArray[np.bool_],
    bars: _Bars,
) -> npt.NDArray[np.bool_]:
    """Joins the known scores do not already refuse: no known contradictions past
    those tolerated, and a mean that could still reach the threshold if every unknown
    pair scored 1. With every pair known, that is the join's verdict."""
    join, count = cross.join, len(cross.rows)
    vetoed = bars.vetoed(
        join, cross.left, cross.right, hit & (scores < bars.distinct), cross.rows, cross.cols
    )
    best = np.bincount(join, weights=np.where(hit, scores, 1.0), minlength=count)
    return np.asarray(~vetoed & (best >= bars.merge * cross.rows * cross.cols), dtype=bool)


@dataclass(frozen=True)
class _Cross:
    """A wave's cross pairs (`left[k]`, `right[k]`) of join `join[k]`, whose two
    clusters have `rows[j]` and `cols[j]` members."""

    join: npt.NDArray[np.int64]
    left: npt.NDArray[np.int64]
    right: npt.NDArray[np.int64]
    rows: npt.NDArray[np.int64]
    cols: npt.NDArray[np.int64]


def _outnumbered(own: npt.NDArray[np.int64], other: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Whether clusters of `other` records outnumber those of `own` (`OUTNUMBERED`)."""
    return np.asarray(other >= OUTNUMBERED * own, dtype=bool)


@dataclass(frozen=True)
class _Bars:
    """What a join must pass (`agreeing_clusters`)."""

    merge: float
    distinct: float
    tolerated: float

    def allowance(self, own: int, other: int) -> int:
        """Contradictions each record of a cluster of `own` may meet among the
        `other` records of the one it joins: a share of them, rounded down, when
        they outnumber it `OUTNUMBERED` to one, else none. In plain ints: asked
        once per join tried (people-50k: 50k times; 0.3 s through numpy)."""
        if other < OUTNUMBERED * own:
            return 0
        return math.floor(self.tolerated * other + 1e-9)  # as `_share`

    def _share(self, other: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        # The epsilon keeps 0.1 * 30 at 3 whatever the float rounding.
        return np.asarray(np.floor(self.tolerated * other + 1e-9), dtype=np.int64)

    def vetoed(
        self,
        join: npt.NDArray[np.int64],
        left: npt.NDArray[np.int64],
        right: npt.NDArray[np.int64],
        low: npt.NDArray[np.bool_],
        rows: npt.NDArray[np.int64],
        cols: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.bool_]:
        """Per join: whether the contradictions `low` (per cross pair `left`,
        `right` of join `join`) refuse it -- any, unless one cluster outnumbers the
        other; then a member of the smaller meeting more than its `allowance`.
        Counted over known pairs only, a refusal here holds once all are known."""
        count = len(rows)
        contradicted = np.bincount(join[low], minlength=count) > 0
        if not self.tolerated:
            return np.asarray(contradicted, dtype=bool)
        left_small, right_small = _outnumbered(rows, cols), _outnumbered(cols, rows)
        out = contradicted & ~(left_small | right_small)
        for member, small, other in ((left, left_small, cols), (right, right_small, rows)):
            judged = low & small[join]
            if not judged.any():
                continue
            span = int(member.max()) + 1
            keys, met = np.unique(join[judged] * span + member[judged], return_counts=True)
            worst = np.zeros(count, dtype=np.int64)
            np.maximum.at(worst, keys // span, met)
            out |= small & (worst > self._share(other))
        return np.asarray(out, dtype=bool)
