"""Record fields the resolver understands, read from `Entity.properties`.

One registry of canonical field names and the property keys accepted for each,
so the key families and the scorer read "date of birth" the same way whatever a
source called it. Values are normalized with the domain's `normalize_name`;
a value that normalizes to nothing counts as missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from redstring.domain.normalization import normalize_name

if TYPE_CHECKING:
    from redstring.domain.entity import Entity

FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "dob": ("dob", "date_of_birth", "birth_date", "born"),
    "birth_place": ("birth_place", "place_of_birth", "birthplace"),
    "postcode": ("postcode", "postal_code", "zip", "zip_code"),
    "gender": ("gender", "sex"),
    "occupation": ("occupation", "profession", "job"),
    "first_name": ("first_name", "given_name", "forename"),
    "surname": ("surname", "last_name", "family_name"),
}


def record_field(entity: Entity, field_name: str) -> str | None:
    """The normalized value of a registered field, or `None` when absent or blank.

    A date keeps its hyphens (`normalize_name` keeps intra-word hyphens), so
    "1630-08-01" stays comparable character by character.
    """
    for key in FIELD_ALIASES[field_name]:
        value = entity.properties.get(key)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            text = normalize_name(str(value))
            if text:
                return text
    return None


def record_fields(entity: Entity) -> dict[str, str]:
    """Every registered field the entity has, by canonical name."""
    out: dict[str, str] = {}
    for name in FIELD_ALIASES:
        value = record_field(entity, name)
        if value is not None:
            out[name] = value
    return out
