"""Scored pairs into clusters that never chain.

Plain union-find over "merge" pairs chains: A~B and B~C put A and C together even
when A and C were scored as clearly different, and one bad link can fuse two large
clusters. `agreeing_clusters` joins two clusters only when they agree as wholes:
every cross pair is scored (pairs blocking never produced are scored on demand
through the model's `PairScorer`), none may fall below the distinct threshold,
and their mean must reach the merge threshold. A cluster therefore never holds two
members the model would keep apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Mapping

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
