"""Rebuild projections from position 0: the proof that the log is the source of truth.

Replay calls no model: every extracted fact and every vector is in the log, and
projections hold no model provider to call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.ids import TenantId
    from redstring.ports.event_log import EventLog
    from redstring.projections.base import Projection

_PAGE = 1024


async def tenants_in_log(log: EventLog) -> set[TenantId]:
    """Every tenant with at least one event: exactly the tenants projections can hold."""
    tenants: set[TenantId] = set()
    after = 0
    while page := await log.read_all(after=after, limit=_PAGE):
        tenants.update(e.tenant_id for e in page)
        after = page[-1].position
    return tenants


async def replay(log: EventLog, projections: Sequence[Projection]) -> None:
    """Clear each projection's stores (for every tenant in the log), then fold from 0.

    The clear and the rewound checkpoint commit together, so a replay interrupted
    half-way resumes with `catch_up()` rather than leaving stale data behind a
    checkpoint that claims it is fresh. Data a projection never wrote (a tenant
    absent from the log) is not touched.
    """
    tenants = await tenants_in_log(log)
    for projection in projections:
        await projection.reset(tenants)
        await projection.catch_up()
