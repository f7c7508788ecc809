"""What the event-log adapters' appends share: `append` is `append_streams` on one
stream, and a multi-stream append writes its events in one order."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from redstring.domain.log import StreamAppend

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from redstring.domain.ids import TenantId
    from redstring.domain.log import Appendable


class StreamsAppender(ABC):
    """An adapter that writes appends to several streams at once; one stream's
    append is that, for one."""

    @abstractmethod
    async def append_streams(
        self, appends: Sequence[StreamAppend], *, tenant_id: TenantId
    ) -> list[int]: ...

    async def append(
        self,
        stream_id: str,
        events: Sequence[Appendable],
        *,
        tenant_id: TenantId,
        expected_version: int,
    ) -> int:
        appended = StreamAppend(stream_id, events, expected_version)
        return (await self.append_streams([appended], tenant_id=tenant_id))[0]


def appended(
    appends: Sequence[StreamAppend], payloads: Sequence[Sequence[str]]
) -> Iterator[tuple[StreamAppend, int, Appendable, str]]:
    """Every event of `appends`, in the order their positions follow, with its stream's
    append, the version it takes and its payload's text (`check_appends`)."""
    for append, texts in zip(appends, payloads, strict=True):
        for offset, (event, text) in enumerate(zip(append.events, texts, strict=True), start=1):
            yield append, append.expected_version + offset, event, text
