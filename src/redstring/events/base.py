"""Typed, versioned events and their one mapping to and from the log's envelopes.

An event class declares `event_type` and `schema_version` as class variables and
registers itself with `@register`; `decode` looks the pair up, so a log record of
an unknown type or a newer schema fails loudly with `UnknownEventTypeError`
instead of being folded as something it is not. Changing an event's fields means
a new schema version (and a new registered class that reads the old payload),
never an in-place edit: old logs must keep replaying.

The tenant lives in the envelope (`RecordedEvent.tenant_id`), not the payload:
one fact, one place. `payload_json` and `to_new_event` drop it from the payload and `decode`
puts it back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from redstring.domain.exceptions import EventSchemaError, UnknownEventTypeError
from redstring.domain.ids import TenantId
from redstring.domain.log import NewEvent, RecordedEvent

if TYPE_CHECKING:
    from collections.abc import Iterable

    from redstring.domain.entity import Entity
    from redstring.domain.relationship import Relationship


class DomainEvent(BaseModel):
    """Base of every typed event. Subclasses set the two class variables and register."""

    # NaN and infinity are written out as such (not as null): `payload_json` then
    # refuses them, as the log refuses any payload that is not JSON.
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="constants")

    event_type: ClassVar[str]
    schema_version: ClassVar[int]

    tenant_id: TenantId

    def payload_json(self) -> str:
        """The payload as the log stores it (`Appendable`), without the tenant (the
        envelope's), serialised by pydantic in one pass: a JSON-mode dump then
        `json.dumps` cost three times as long (people-febrl 10k: 2,382 merges). A
        payload that is not JSON, or whose text spells NaN or Infinity somewhere,
        takes that slower path, whose `ValueError` or `TypeError` the log reports."""
        try:
            text: str | None = self.model_dump_json(exclude={"tenant_id"})
        except ValueError:  # pydantic's serialisation error (a lone surrogate, say)
            text = None
        if text is None or "NaN" in text or "Infinity" in text:
            return self.to_new_event().payload_json()
        return text

    def to_new_event(self) -> NewEvent:
        """The envelope to append; the tenant travels as the append's `tenant_id`.

        Built without validation: a JSON-mode dump of a validated event is a dict of
        JSON values by construction, and checking it again as `JsonValue` (a Python
        call per value) was most of the cost of appending a consolidation's merges.
        The log still refuses what is not JSON (NaN) when it serializes the payload.
        """
        payload = self.model_dump(mode="json", exclude={"tenant_id"})
        return NewEvent.model_construct(
            event_type=self.event_type, schema_version=self.schema_version, payload=payload
        )


E = TypeVar("E", bound=type[DomainEvent])

_REGISTRY: dict[tuple[str, int], type[DomainEvent]] = {}


def register(cls: E) -> E:
    """Class decorator: make `decode` know `cls`. Refuses a second class for one key."""
    key = (cls.event_type, cls.schema_version)
    existing = _REGISTRY.get(key)
    if existing is not None and existing is not cls:
        raise EventSchemaError(
            f"event {key[0]!r} v{key[1]} is already registered by {existing.__qualname__}"
        )
    _REGISTRY[key] = cls
    return cls


def registered_types() -> dict[tuple[str, int], type[DomainEvent]]:
    """A copy of the registry (for documentation and tests)."""
    return dict(_REGISTRY)


def decode(recorded: RecordedEvent | NewEvent, tenant_id: TenantId | None = None) -> DomainEvent:
    """The typed event for a log record.

    A `NewEvent` carries no tenant, so pass `tenant_id` with one; a
    `RecordedEvent` uses its own. Raises `UnknownEventTypeError` for an
    unregistered type/version and `EventSchemaError` for a payload that does
    not validate against its class.
    """
    cls = _REGISTRY.get((recorded.event_type, recorded.schema_version))
    if cls is None:
        raise UnknownEventTypeError(recorded.event_type, recorded.schema_version)
    tenant = recorded.tenant_id if isinstance(recorded, RecordedEvent) else tenant_id
    if tenant is None:
        raise EventSchemaError("decoding a NewEvent needs the tenant_id it will be appended under")
    if "tenant_id" in recorded.payload:
        raise EventSchemaError(
            f"{recorded.event_type} payload carries a tenant_id; the envelope owns the tenant"
        )
    try:
        return cls.model_validate({**recorded.payload, "tenant_id": str(tenant)})
    except ValidationError as exc:
        where = f" at position {recorded.position}" if isinstance(recorded, RecordedEvent) else ""
        raise EventSchemaError(
            f"{recorded.event_type} v{recorded.schema_version}{where} does not validate: {exc}"
        ) from exc


def check_tenant(
    tenant_id: TenantId, entities: Iterable[Entity], relationships: Iterable[Relationship] = ()
) -> None:
    """Raise `ValueError` (inside a validator: a `ValidationError`) for a foreign record.

    An event that smuggled another tenant's entity into this tenant's stream
    would be folded into the wrong graph on every replay, so it is refused at
    construction.
    """
    records: list[Entity | Relationship] = [*entities, *relationships]
    for record in records:
        if record.tenant_id != tenant_id:
            raise ValueError(
                f"record {record.id} belongs to tenant {record.tenant_id}, "
                f"not the event's tenant {tenant_id}"
            )
