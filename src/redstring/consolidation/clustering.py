"""Scored pairs into clusters that never chain.

Plain union-find over "merge" pairs chains: A~B and B~C put A and C together even
when A and C were scored as clearly different, and one bad link can fuse two large
clusters. `agreeing_clusters` joins two clusters only when they agree as wholes:
every cross pair is scored (pairs blocking never produced are scored on demand
through the model's `PairScorer`), none may fall below the distinct threshold,
and their mean must reach the merge threshold. A cluster therefore never holds two
members the model would keep apart.

`average_link_clusters` is the older sparse average-linkage over scored pairs only,
kept for callers that have no scorer.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    import numpy.typing as npt

#: Cross pairs scored at most per component in one dense block; a larger component
#: is resolved merge by merge with on-demand scoring instead.
DENSE_COMPONENT_PAIRS = 2_000_000
#: A merge whose clusters would need more cross pairs than this is refused (kept
#: apart): no evidence that size can be checked cheaply, and precision comes first.
MAX_CROSS_PAIRS = 250_000


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
) -> list[list[int]]:
    """Clusters of the indices 0..n-1 (each sorted, the list sorted by first member).

    Greedy, best pair first (ties by index): the clusters of a pair's two ends join
    when every cross pair scores at least `distinct_threshold` and their mean at
    least `merge_threshold`. Only pairs at or above `merge_threshold` start a join,
    so clusters lie inside the components of those pairs; each component small
    enough is scored densely in one batched scorer call. `overrides` (index pair,
    smaller index first -> probability) replace the scorer's word on those pairs:
    an adjudicator's verdict holds in every check, not only on the pair itself.
    """
    fixed = dict(overrides or {})
    if len(pairs) != len(probabilities):
        raise ValueError("pairs and probabilities differ in length")
    parent = list(range(n))
    members: dict[int, list[int]] = {i: [i] for i in range(n)}
    strong = probabilities >= merge_threshold
    edges = np.sort(pairs[strong], axis=1)
    edge_p = probabilities[strong]
    if len(edges):
        order = np.lexsort((edges[:, 1], edges[:, 0], -edge_p))
        edges, edge_p = edges[order], edge_p[order]
        components = _index_components(n, edges)
        dense = _dense_blocks(components, scorer, fixed)
        for i, j in edges.tolist():
            a, b = _find(parent, i), _find(parent, j)
            if a == b:
                continue
            left, right = members[a], members[b]
            block = dense.get(a if a in dense else b)
            cross = _cross_scores(left, right, block, scorer, fixed)
            if cross is None or cross.min() < distinct_threshold:
                continue
            if cross.mean() < merge_threshold:
                continue
            keep, gone = (a, b) if a < b else (b, a)
            parent[gone] = keep
            members[keep] = sorted(members[keep] + members.pop(gone))
            if block is not None:
                dense[keep] = block
    return sorted((sorted(c) for c in members.values()), key=lambda c: c[0])


@dataclass
class _Dense:
    """All pair scores of one component: `matrix[pos[i], pos[j]]`."""

    pos: dict[int, int]
    matrix: npt.NDArray[np.float64]


def _find(parent: list[int], x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def _index_components(n: int, edges: npt.NDArray[np.int64]) -> list[list[int]]:
    parent = list(range(n))
    for i, j in edges.tolist():
        a, b = _find(parent, i), _find(parent, j)
        if a != b:
            parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for x in sorted({int(v) for v in edges.ravel().tolist()}):
        groups.setdefault(_find(parent, x), []).append(x)
    return [g for g in groups.values() if len(g) > 1]


def _dense_blocks(
    components: list[list[int]], scorer: PairScorer, fixed: Mapping[tuple[int, int], float]
) -> dict[int, _Dense]:
    """Score every pair inside each small component in one scorer call; keyed by
    each member (a cluster's root is always one of its members)."""
    chosen = [c for c in components if len(c) * (len(c) - 1) // 2 <= DENSE_COMPONENT_PAIRS]
    lefts: list[npt.NDArray[np.int64]] = []
    rights: list[npt.NDArray[np.int64]] = []
    for comp in chosen:
        idx = np.asarray(comp, dtype=np.int64)
        a, b = np.triu_indices(len(comp), k=1)
        lefts.append(idx[a])
        rights.append(idx[b])
    if not chosen:
        return {}
    scores = scorer(np.concatenate(lefts), np.concatenate(rights))
    out: dict[int, _Dense] = {}
    offset = 0
    for comp in chosen:
        size = len(comp)
        count = size * (size - 1) // 2
        matrix = np.ones((size, size), dtype=np.float64)
        a, b = np.triu_indices(size, k=1)
        matrix[a, b] = scores[offset : offset + count]
        matrix[b, a] = scores[offset : offset + count]
        offset += count
        dense = _Dense(pos={m: k for k, m in enumerate(comp)}, matrix=matrix)
        for (i, j), p in fixed.items():
            if i in dense.pos and j in dense.pos:
                matrix[dense.pos[i], dense.pos[j]] = matrix[dense.pos[j], dense.pos[i]] = p
        for m in comp:
            out[m] = dense
    return out


def _cross_scores(
    left: list[int],
    right: list[int],
    block: _Dense | None,
    scorer: PairScorer,
    fixed: Mapping[tuple[int, int], float],
) -> npt.NDArray[np.float64] | None:
    if block is not None:
        rows = [block.pos[m] for m in left]
        cols = [block.pos[m] for m in right]
        return block.matrix[np.ix_(rows, cols)].ravel()
    if len(left) * len(right) > MAX_CROSS_PAIRS:
        return None
    lg, rg = np.meshgrid(
        np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64), indexing="ij"
    )
    lefts, rights = lg.ravel(), rg.ravel()
    scores = scorer(lefts, rights)
    for k, (i, j) in enumerate(zip(lefts.tolist(), rights.tolist(), strict=True)):
        key = (i, j) if i < j else (j, i)
        if key in fixed:
            scores[k] = fixed[key]
    return scores


#: Scores are summed as integers in units of 1e-9 so sums are exact.
_SCALE = 1_000_000_000


@dataclass(frozen=True, slots=True)
class ScoredPair:
    """A pair of member keys and its match probability."""

    left: str
    right: str
    probability: float


def average_link_clusters(
    members: Iterable[str], pairs: Iterable[ScoredPair], threshold: float
) -> list[list[str]]:
    """Clusters (each sorted, the list sorted by first member) of `members`.

    Two clusters merge while the mean probability of the scored pairs between them
    is at least `threshold`. A singleton is its own cluster.
    """
    limit = round(threshold * _SCALE)
    clusters: dict[str, list[str]] = {m: [m] for m in sorted(set(members))}
    links: dict[str, dict[str, list[int]]] = {m: {} for m in clusters}
    pairs = [p for p in pairs if p.left != p.right]
    # Two groups can only join if some pair between them clears the threshold, so
    # final clusters lie inside the components of above-threshold pairs. Pairs
    # across those components can never matter: drop them before the heap work.
    component = _components(
        [(p.left, p.right) for p in pairs if round(p.probability * _SCALE) >= limit]
    )
    for pair in pairs:
        left_root = component.get(pair.left)
        if left_root is None or left_root != component.get(pair.right):
            continue
        for key in (pair.left, pair.right):
            if key not in clusters:
                clusters[key] = [key]
                links[key] = {}
        score = round(pair.probability * _SCALE)
        entry = links[pair.left].get(pair.right)
        if entry is None:
            entry = [0, 0]
            links[pair.left][pair.right] = entry
            links[pair.right][pair.left] = entry
        # A pair given twice keeps its highest score, whatever the order.
        if entry[1] == 0 or score > entry[0]:
            entry[0], entry[1] = score, 1

    heap: list[tuple[float, str, str, int, int]] = []

    def push(a: str, b: str) -> None:
        total, count = links[a][b]
        if total >= limit * count:
            low, high = (a, b) if a < b else (b, a)
            heapq.heappush(heap, (-total / count, low, high, total, count))

    for a, neighbours in links.items():
        for b in neighbours:
            if a < b:
                push(a, b)

    while heap:
        _, a, b, total, count = heapq.heappop(heap)
        if a not in clusters or b not in clusters:
            continue
        current = links[a].get(b)
        if current is None or current[0] != total or current[1] != count:
            continue
        # Cluster keys are their smallest member, so the survivor is the smaller key.
        keep, gone = (a, b) if a < b else (b, a)
        clusters[keep].extend(clusters.pop(gone))
        del links[keep][gone]
        changed: list[str] = []
        for other, (other_total, other_count) in links.pop(gone).items():
            if other == keep:
                continue
            del links[other][gone]
            merged = links[keep].get(other)
            if merged is None:
                merged = [0, 0]
                links[keep][other] = merged
                links[other][keep] = merged
            merged[0] += other_total
            merged[1] += other_count
            changed.append(other)
        # Links of `keep` not shared with `gone` are unchanged; their heap entries stand.
        for other in changed:
            push(keep, other)

    return sorted((sorted(c) for c in clusters.values()), key=lambda c: c[0])


def _components(edges: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Member -> component root, for members that appear in `edges`."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return {m: find(m) for m in list(parent)}


def connected_components(
    members: Iterable[str], edges: Sequence[tuple[str, str]]
) -> list[list[str]]:
    """Plain union-find components; used to measure what the coherence guard changes."""
    roots = {m: m for m in members}
    roots.update(_components(edges))
    groups: dict[str, list[str]] = {}
    for member, root in roots.items():
        groups.setdefault(root, []).append(member)
    return sorted((sorted(g) for g in groups.values()), key=lambda c: c[0])
