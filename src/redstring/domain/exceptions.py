"""Every error redstring raises on purpose derives from `RedstringError`.

A caller can catch the root to handle "redstring said no" without also
swallowing bugs (`TypeError`, `KeyError`) from its own code.
"""

from __future__ import annotations


class RedstringError(Exception):
    """Root of redstring's typed errors."""


class InvalidInputError(RedstringError, ValueError):
    """An argument or record is malformed. Also a `ValueError`, which it is."""


class UnreadableFileError(InvalidInputError):
    """A file the user named cannot be read as asked: missing, not UTF-8, not valid CSV/JSONL.

    Raised before anything from the file is stored, so a refused file leaves the
    workspace as it was. The message names the file and, where there is one, the line.
    """


class DimensionMismatchError(InvalidInputError):
    """A vector's length differs from the store's or provider's dimension."""

    def __init__(self, expected: int, actual: int, what: str = "vector") -> None:
        super().__init__(f"{what} has dimension {actual}, expected {expected}")
        self.expected = expected
        self.actual = actual


class TenantMismatchError(InvalidInputError):
    """A record handed to a store call belongs to a different tenant than the call."""


class ConcurrencyError(RedstringError):
    """An append named a stream version that is no longer current; nothing was written."""


class WorkspaceError(RedstringError):
    """A workspace file cannot be opened: not a redstring file, or from a newer version."""


class NotFoundError(RedstringError, LookupError):
    """A named entity, tenant or file does not exist."""


class LlmError(RedstringError):
    """The language model could not produce a usable answer."""


class EmptyOutputError(LlmError):
    """The model returned nothing."""


class MalformedOutputError(LlmError):
    """The model returned text that does not parse into the requested schema."""


class RefusalError(LlmError):
    """The model declined to answer."""


class ProviderUnavailableError(LlmError):
    """The endpoint could not be reached, or kept failing after bounded retries."""


class EventSchemaError(RedstringError):
    """A stored or new event does not fit its declared type and schema version.

    Raised when decoding a log record; the record itself stays untouched in the log.
    """


class UnknownEventTypeError(EventSchemaError):
    """No event class is registered for an `(event_type, schema_version)` pair.

    Typically a log written by a newer redstring, or a typo in a hand-made event.
    """

    def __init__(self, event_type: str, schema_version: int) -> None:
        super().__init__(
            f"no event type {event_type!r} with schema version {schema_version} is known "
            "to this redstring version"
        )
        self.event_type = event_type
        self.schema_version = schema_version


class ProjectionError(RedstringError):
    """A projection could not fold an event; its checkpoint stays before that event."""

    def __init__(self, projection: str, position: int, reason: str) -> None:
        super().__init__(f"projection {projection!r} failed at log position {position}: {reason}")
        self.projection = projection
        self.position = position
