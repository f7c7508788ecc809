"""Which member is canonical, and what the merged entity's fields become.

Canonical: the member whose name form is best attested across the cluster (the
provenance of every member spelling it the same way, normalized), then the member
with the most provenance of its own, then the highest confidence, then the smallest
id string, so the choice never depends on the order members arrive in. Voting on
the name first keeps one misspelt record ("Charles Babage") from naming a cluster
that two sources spell "Charles Babbage"; a record named only by its key
(`named_by_key`) names a cluster only when no member has a name.

Merged fields: the canonical's name, type and normalized name; the union of
properties where the canonical's value wins (unless it only says the value is
missing, "N/A": then the next member's that gives one) and every differing value
is kept under `conflicts` (nothing a source said is lost); the union of provenance in
a stable order; the highest confidence; the union of blocking keys.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from redstring.consolidation.kinds import missing_mark
from redstring.domain.entity import named_by_key
from redstring.domain.exceptions import InvalidInputError
from redstring.domain.ids import id_order

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import JsonValue

    from redstring.domain.entity import Entity
    from redstring.domain.provenance import Provenance


def canonical_order_key(entity: Entity) -> tuple[int, float, int]:
    """Sort key: smallest is the canonical member."""
    return (-len(entity.provenance), -entity.confidence, id_order(entity.id))


def is_record(entity: Entity) -> bool:
    """Entities imported from records carry fields the record model compares;
    entities extracted from text carry a name and its context."""
    return any(p.method == "record" for p in entity.provenance)


def choose_canonical(members: Sequence[Entity]) -> Entity:
    """The member whose name most provenance supports, chosen among the records
    when there are any (the user's own rows): "Charles Babbage" from a CSV names the
    entity, supported by the documents that spell it so, not the "Babbage" they
    repeat."""
    if not members:
        raise InvalidInputError("a cluster has at least one member")
    support: dict[str, int] = {}
    for member in members:
        name = member.normalized_name
        support[name] = support.get(name, 0) + max(1, len(member.provenance))
    records = [m for m in members if is_record(m)]
    return min(
        records or members,
        key=lambda m: (named_by_key(m), -support[m.normalized_name], *canonical_order_key(m)),
    )


@dataclass(frozen=True)
class PropertyConflict:
    """A property on which members disagree: the value kept and the others seen."""

    key: str
    kept: JsonValue
    others: tuple[JsonValue, ...]


@dataclass(frozen=True)
class ResolvedFields:
    entity: Entity
    conflicts: tuple[PropertyConflict, ...] = field(default_factory=tuple)


def _identity(value: JsonValue) -> object:
    """What makes two property values one value, as their canonical JSON texts would
    (the conflicts are ordered by those): a string is itself (nearly every value of
    a merge; the same string, the same text), any other value its text in a tuple,
    which no string equals."""
    if type(value) is str:
        return value
    return (_canonical_json(value),)


#: What `json.dumps` escapes in a string when ASCII is not enforced: a string holding
#: none of these is its own JSON text between quotes.
_ESCAPED = re.compile(r'["\\\x00-\x1f]')


def _canonical_json(value: JsonValue) -> str:
    if type(value) is str and _ESCAPED.search(value) is None:
        return f'"{value}"'  # people-50k's merges: 34k distinct texts, a dumps each
    if value is None or isinstance(value, str | int | float):
        return _scalar_json(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@functools.lru_cache(maxsize=1 << 16, typed=True)
def _scalar_json(value: str | float | None) -> str:
    """Cached: merging 45k records repeats the same town or job thousands of times.
    `typed` keeps 1, 1.0 and True apart (equal, and equally hashed)."""
    return json.dumps(value, ensure_ascii=False)


def _provenance_key(item: Provenance) -> tuple[str, str, int, int, int, str]:
    return (
        item.observed_at.isoformat(),
        item.source_id,
        -1 if item.chunk_index is None else item.chunk_index,
        -1 if item.char_start is None else item.char_start,
        -1 if item.char_end is None else item.char_end,
        item.method + "|" + (item.model or ""),
    )


def _provenance_identity(item: Provenance) -> tuple[object, ...]:
    """Every field of an observation, and its time's offset (aware times compare as
    instants): equal exactly when the two serialise alike. A tuple, not the JSON:
    merging 45k records serialised each record's provenance."""
    return (*item.__dict__.values(), item.observed_at.utcoffset())


def resolve_fields(members: Sequence[Entity]) -> ResolvedFields:
    """The merged entity for a cluster (it keeps the canonical member's id)."""
    canonical = choose_canonical(members)
    ordered = sorted(members, key=canonical_order_key)
    properties: dict[str, JsonValue] = {}
    kept: dict[str, object] = {}
    seen: dict[str, dict[object, JsonValue]] = {}
    # Keys whose kept value only says "missing" ("N/A"): the first member holding a
    # value gives it instead (the mark stays among the conflicts).
    marked: set[str] = set()
    for member in ordered:
        for key, value in member.properties.items():
            same = _identity(value)
            if key not in properties:
                properties[key], kept[key] = value, same
                if missing_mark(value):
                    marked.add(key)
            elif key in marked and not missing_mark(value):
                properties[key], kept[key] = value, same
                marked.discard(key)
            seen.setdefault(key, {})[same] = value
    conflicts = tuple(
        PropertyConflict(
            key=key,
            kept=properties[key],
            others=tuple(
                v
                for _, v in sorted(
                    ((_canonical_json(v), v) for same, v in values.items() if same != kept[key]),
                    key=lambda pair: pair[0],
                )
            ),
        )
        for key, values in sorted(seen.items())
        if len(values) > 1
    )
    provenance: dict[tuple[object, ...], Provenance] = {}
    for member in ordered:
        for item in member.provenance:
            provenance.setdefault(_provenance_identity(item), item)
    keys = list(dict.fromkeys(k for member in ordered for k in member.blocking_keys))
    # A shallow copy: every field not replaced here is immutable, and pydantic never
    # copies `update`'s values, so a deep copy only duplicated what is replaced.
    merged = canonical.model_copy(
        update={
            "properties": properties,
            "provenance": sorted(provenance.values(), key=_provenance_key),
            "confidence": max(m.confidence for m in members),
            "blocking_keys": keys,
        },
    )
    return ResolvedFields(entity=merged, conflicts=conflicts)
