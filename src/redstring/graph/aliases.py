"""Where a batch of aliases lands, computed in memory: what the SQLite and
PostgreSQL stores write for `GraphStore.set_aliases`."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Hashable, Mapping, Sequence

K = TypeVar("K", bound="Hashable")


def final_aliases(pairs: Sequence[tuple[K, K]], stored: Mapping[K, K]) -> dict[K, K]:
    """Each alias set by `pairs` (alias, canonical), in order, to its final target:
    `set_alias` one pair at a time, kept one hop long as `set_alias` keeps the table
    (`stored`: the stored alias -> canonical rows of the canonicals). Raises
    `ValueError` on a cycle."""
    plain = _plain(pairs, stored)
    return plain if plain is not None else _chained(pairs, stored)


def _plain(pairs: Sequence[tuple[K, K]], stored: Mapping[K, K]) -> dict[K, K] | None:
    """`_chained` where no alias repeats and none is another pair's canonical or
    stored target (a consolidation's merges): each alias points at its canonical's
    stored target, at set speed (people-50k: 44k aliases). None otherwise."""
    names = [alias for alias, _ in pairs]
    targets = [stored.get(canonical, canonical) for _, canonical in pairs]
    distinct = set(names)
    if (
        len(distinct) != len(names)
        or not distinct.isdisjoint(targets)
        or not distinct.isdisjoint(canonical for _, canonical in pairs)
    ):
        return None
    return dict(zip(names, targets, strict=True))


def _chained(pairs: Sequence[tuple[K, K]], stored: Mapping[K, K]) -> dict[K, K]:
    final: dict[K, K] = {}
    pointing: dict[K, set[K]] = {}
    for alias, canonical in pairs:
        target = final.get(canonical)
        if target is None:
            resolved = stored.get(canonical, canonical)
            target = final.get(resolved, resolved)
        if target == alias:
            raise ValueError(f"aliasing {alias} to itself would make a cycle")
        old = final.get(alias)
        if old is not None:
            pointing[old].discard(alias)
        final[alias] = target
        pointing.setdefault(target, set()).add(alias)
        for other in pointing.pop(alias, set()):
            final[other] = target
            pointing[target].add(other)
    return final
