"""The language-model port."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

from pydantic import BaseModel

if TYPE_CHECKING:
    from redstring.domain.usage import TokenUsage

SchemaT = TypeVar("SchemaT", bound=BaseModel)


class LlmProvider(Protocol):
    """Structured extraction: text and a pydantic schema in, a validated instance out.

    Raises `EmptyOutputError` when the model says nothing, `MalformedOutputError`
    when its output does not validate against `schema`, `RefusalError` when it
    declines, and `ProviderUnavailableError` when the endpoint keeps failing.
    Never returns a partially valid instance.
    """

    @property
    def model_name(self) -> str: ...

    @property
    def usage(self) -> TokenUsage:
        """Tokens spent by this provider so far."""
        ...

    async def extract(
        self, text: str, schema: type[SchemaT], *, instructions: str | None = None
    ) -> SchemaT: ...
