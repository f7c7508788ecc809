"""Argument checks every event-log adapter shares, so they refuse the same inputs alike."""

from __future__ import annotations

from typing import TYPE_CHECKING

from redstring.domain.exceptions import ConcurrencyError, InvalidInputError, TenantMismatchError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from redstring.domain.ids import TenantId
    from redstring.domain.log import Appendable, StreamAppend


def check_append(stream_id: str, events: Sequence[Appendable], expected_version: int) -> list[str]:
    """Validate an append before anything is written; return each payload as JSON text.

    Serializing up front is the check: a payload with NaN or infinity is not JSON
    and could not be read back by another adapter, so it is refused with
    `InvalidInputError` and the whole append is refused with it.
    """
    if not stream_id:
        raise InvalidInputError("stream_id must not be empty")
    if expected_version < 0:
        raise InvalidInputError(f"expected_version must be >= 0, got {expected_version}")
    texts = []
    for index, event in enumerate(events):
        try:
            texts.append(event.payload_json())
        except (ValueError, TypeError) as exc:
            raise InvalidInputError(
                f"event {index} ({event.event_type}) of the append to {stream_id!r} "
                f"has a payload that is not JSON: {exc}"
            ) from exc
    return texts


def check_appends(appends: Sequence[StreamAppend]) -> list[list[str]]:
    """`check_append` for each stream of a multi-stream append, which names each stream
    once (two appends to one stream in one call would race with themselves)."""
    seen: set[str] = set()
    for append in appends:
        if append.stream_id in seen:
            raise InvalidInputError(f"stream {append.stream_id!r} appears twice in one append")
        seen.add(append.stream_id)
    return [check_append(a.stream_id, a.events, a.expected_version) for a in appends]


def check_heads(
    appends: Sequence[StreamAppend],
    heads: Mapping[str, tuple[TenantId, int]],
    tenant_id: TenantId,
) -> None:
    """Each stream's owner and version (`heads`: stream -> (owner, version), unknown
    streams absent) against what its append expects; the first that differs raises."""
    for append in appends:
        owner, current = heads.get(append.stream_id, (tenant_id, 0))
        if owner != tenant_id:
            raise TenantMismatchError(
                f"stream {append.stream_id!r} belongs to another tenant than {tenant_id}"
            )
        if current != append.expected_version:
            raise ConcurrencyError(
                f"stream {append.stream_id!r} is at version {current}, "
                f"not the expected {append.expected_version}"
            )


def check_read_all(after: int, limit: int | None) -> None:
    if after < 0:
        raise InvalidInputError(f"after must be >= 0, got {after}")
    if limit is not None and limit < 0:
        raise InvalidInputError(f"limit must be >= 0 or None, got {limit}")
