"""Records and text mentions of one entity, joined by name.

The record model and the mention model each cluster their own entities; neither
scores a record against a mention (they carry different evidence: fields against
documents). Without a bridge "Ada Lovelace" from a CSV and from a document stay two
entities. The bridge is deliberately narrow, since no model weighs it: a text
cluster and a record cluster join only when they share a core name of two words or
more, are of one type, and each is the other's only such partner. A one-word
mention ("Babbage") or a name two record clusters share stays apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from redstring.consolidation.names import core_tokens, type_kind
from redstring.domain.normalization import normalize_name

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.entity import Entity

#: Words a core name needs before it may bridge a record and a mention.
MIN_BRIDGE_TOKENS = 2


def name_key(entity: Entity) -> tuple[str, str] | None:
    """(type, core name) a bridge compares, or None for names too short to trust.

    A person's tokens are sorted ("Lovelace, Ada" is "Ada Lovelace"); an
    organisation's legal form is dropped ("IBM Corp." is "IBM Corporation").
    """
    kind = type_kind(entity.entity_type)
    tokens = core_tokens(entity.name, kind)
    if len(tokens) < MIN_BRIDGE_TOKENS:
        return None
    words = sorted(tokens) if kind == "person" else tokens
    return normalize_name(entity.entity_type), " ".join(words)


def bridges(
    record_clusters: Sequence[Sequence[Entity]], text_clusters: Sequence[Sequence[Entity]]
) -> list[tuple[int, int]]:
    """(record cluster, text cluster) index pairs to join: each cluster's only partner."""
    if not record_clusters or not text_clusters:
        # Nothing to bridge; keying every record's name cost people-50k ~2 s.
        return []
    owners: dict[tuple[str, str], set[int]] = {}
    for r, cluster in enumerate(record_clusters):
        for entity in cluster:
            key = name_key(entity)
            if key is not None:
                owners.setdefault(key, set()).add(r)
    partners: dict[int, set[int]] = {}
    for t, cluster in enumerate(text_clusters):
        found: set[int] = set()
        for entity in cluster:
            key = name_key(entity)
            if key is not None:
                found |= owners.get(key, set())
        if found:
            partners[t] = found
    claimed: dict[int, int] = {}
    for found in partners.values():
        for r in found:
            claimed[r] = claimed.get(r, 0) + 1
    return sorted(
        (next(iter(found)), t)
        for t, found in partners.items()
        if len(found) == 1 and claimed[next(iter(found))] == 1
    )
