"""Argument checks every event-log adapter shares, so they refuse the same inputs alike."""

from __future__ import annotations

from typing import TYPE_CHECKING

from redstring.domain.exceptions import InvalidInputError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.log import Appendable


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


def check_read_all(after: int, limit: int | None) -> None:
    if after < 0:
        raise InvalidInputError(f"after must be >= 0, got {after}")
    if limit is not None and limit < 0:
        raise InvalidInputError(f"limit must be >= 0 or None, got {limit}")
