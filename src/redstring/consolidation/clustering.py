"""Scored pairs into clusters: sparse average-linkage, deterministic and order-independent.

Plain union-find over "merge" pairs chains: A~B and B~C put A and C together even
when A and C were scored as clearly different, and one bad link can fuse two large
clusters. Here two clusters join only when the **average** probability over every
scored pair between them reaches the threshold, so a scored "A and C differ" pulls
the average down and stops the chain. Pairs never scored (not blocked together) do
not count either way: blocking saying nothing is not evidence.

Greedy agglomeration, best average first. Ties and sums are made exact (scores are
quantised to integers before summing; ties break on the clusters' smallest member
key), so the result depends only on the set of scored pairs, not on their order.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

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
