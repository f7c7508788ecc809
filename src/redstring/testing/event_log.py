"""The `EventLog` compliance suite: every adapter, in-memory included, subclasses it.

Override the `log` fixture with a fresh, empty log (a generator fixture may close
it afterwards). Adapter-specific failure modes that need the adapter's internals
(a crash in the middle of a SQLite transaction) live in the adapter's own tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from redstring.domain.exceptions import ConcurrencyError, InvalidInputError, TenantMismatchError
from redstring.domain.log import EventHeader, NewEvent, StreamAppend
from redstring.testing.factories import TwoTenants

if TYPE_CHECKING:
    from redstring.domain.ids import TenantId
    from redstring.ports.event_log import EventLog


def event(n: int, event_type: str = "Tested") -> NewEvent:
    """A small valid event whose payload says which one it is."""
    return NewEvent(event_type=event_type, schema_version=1, payload={"n": n, "tags": ["a"]})


class EventLogCompliance(TwoTenants):
    """Every `EventLog` adapter subclasses this and overrides the `log` fixture."""

    @pytest.fixture
    def log(self) -> EventLog:
        raise NotImplementedError("override the `log` fixture with a fresh, empty log")

    # -- append and read ---------------------------------------------------------------

    async def test_a_stream_reads_back_in_append_order_with_versions_from_one(
        self, log: EventLog, tenant: TenantId
    ) -> None:
        assert (
            await log.append("s", [event(1), event(2)], tenant_id=tenant, expected_version=0) == 2
        )
        assert await log.append("s", [event(3)], tenant_id=tenant, expected_version=2) == 3
        read = await log.read_stream("s", tenant)
        assert [e.payload["n"] for e in read] == [1, 2, 3]
        assert [e.version for e in read] == [1, 2, 3]
        assert all(e.tenant_id == tenant and e.stream_id == "s" for e in read)
        assert await log.stream_version("s", tenant) == 3

    async def test_payload_type_and_schema_version_round_trip_exactly(
        self, log: EventLog, tenant: TenantId
    ) -> None:
        """Catches a lossy payload encoding (floats, unicode, nesting, nulls)."""
        payload = {"f": 0.1 + 0.2, "u": "Zoë 北京", "nested": {"x": [1, None, True]}, "z": None}
        sent = NewEvent(event_type="Exact", schema_version=7, payload=payload)
        await log.append("s", [sent], tenant_id=tenant, expected_version=0)
        (got,) = await log.read_all()
        assert (got.event_type, got.schema_version, got.payload) == ("Exact", 7, payload)
        assert got.recorded_at.tzinfo is not None

    async def test_global_positions_increase_across_streams_and_tenants(
        self, log: EventLog, tenant: TenantId, other: TenantId
    ) -> None:
        await log.append("a", [event(1)], tenant_id=tenant, expected_version=0)
        await log.append("b", [event(2), event(3)], tenant_id=other, expected_version=0)
        await log.append("a", [event(4)], tenant_id=tenant, expected_version=1)
        everything = await log.read_all()
        assert [e.payload["n"] for e in everything] == [1, 2, 3, 4]
        positions = [e.position for e in everything]
        assert positions == sorted(set(positions))
        assert positions[0] >= 1
        assert await log.last_position() == positions[-1]

    async def test_an_empty_log_has_last_position_zero(self, log: EventLog) -> None:
        assert await log.last_position() == 0
        assert await log.read_all() == []

    async def test_an_unknown_stream_is_at_version_zero_and_empty(
        self, log: EventLog, tenant: TenantId
    ) -> None:
        assert await log.stream_version("nope", tenant) == 0
        assert await log.read_stream("nope", tenant) == []

    # -- optimistic concurrency -------------------------------------------------------

    @pytest.mark.parametrize("stale", [0, 1, 3])
    async def test_a_wrong_expected_version_raises_and_writes_nothing(
        self, log: EventLog, tenant: TenantId, stale: int
    ) -> None:
        await log.append("s", [event(1), event(2)], tenant_id=tenant, expected_version=0)
        before = await log.read_all()
        with pytest.raises(ConcurrencyError):
            await log.append("s", [event(9)], tenant_id=tenant, expected_version=stale)
        assert await log.read_all() == before
        assert await log.stream_version("s", tenant) == 2

    async def test_two_writers_from_the_same_version_one_wins(
        self, log: EventLog, tenant: TenantId
    ) -> None:
        """The lost-update race, serialized: both read version 0, only one may append."""
        seen = await log.stream_version("s", tenant)
        await log.append("s", [event(1)], tenant_id=tenant, expected_version=seen)
        with pytest.raises(ConcurrencyError):
            await log.append("s", [event(2)], tenant_id=tenant, expected_version=seen)
        assert [e.payload["n"] for e in await log.read_stream("s", tenant)] == [1]

    # -- all or nothing ---------------------------------------------------------------

    async def test_an_append_with_one_unencodable_event_writes_none_of_them(
        self, log: EventLog, tenant: TenantId
    ) -> None:
        """NaN is not JSON: another adapter could not read it back, so the append fails
        whole, before or during the write, and leaves the stream untouched."""
        bad = NewEvent(event_type="Bad", schema_version=1, payload={"x": float("nan")})
        with pytest.raises(InvalidInputError):
            await log.append("s", [event(1), bad, event(3)], tenant_id=tenant, expected_version=0)
        assert await log.read_all() == []
        assert await log.stream_version("s", tenant) == 0
        assert await log.append("s", [event(1)], tenant_id=tenant, expected_version=0) == 1

    async def test_an_empty_append_writes_nothing_but_still_checks_the_version(
        self, log: EventLog, tenant: TenantId
    ) -> None:
        assert await log.append("s", [], tenant_id=tenant, expected_version=0) == 0
        assert await log.read_all() == []
        with pytest.raises(ConcurrencyError):
            await log.append("s", [], tenant_id=tenant, expected_version=4)

    # -- several streams at once ---------------------------------------------------------

    async def test_an_append_to_several_streams_writes_each_in_the_given_order(
        self, log: EventLog, tenant: TenantId
    ) -> None:
        await log.append("b", [event(0)], tenant_id=tenant, expected_version=0)
        versions = await log.append_streams(
            [
                StreamAppend("a", [event(1), event(2)], 0),
                StreamAppend("b", [event(3)], 1),
                StreamAppend("c", [], 0),
                StreamAppend("d", [event(4)], 0),
            ],
            tenant_id=tenant,
        )
        assert versions == [2, 2, 0, 1]
        read = await log.read_all()
        assert [(e.stream_id, e.version, e.payload["n"]) for e in read] == [
            ("b", 1, 0), ("a", 1, 1), ("a", 2, 2), ("b", 2, 3), ("d", 1, 4),
        ]  # fmt: skip
        assert [e.position for e in read] == sorted({e.position for e in read})
        assert await log.stream_version("c", tenant) == 0
        assert [e.payload["n"] for e in await log.read_stream("b", tenant)] == [0, 3]

    async def test_a_stale_stream_refuses_the_whole_append_to_several(
        self, log: EventLog, tenant: TenantId
    ) -> None:
        """Catches a multi-stream append that writes the streams before the stale one."""
        await log.append("b", [event(0)], tenant_id=tenant, expected_version=0)
        before = await log.read_all()
        with pytest.raises(ConcurrencyError, match="'b'"):
            await log.append_streams(
                [StreamAppend("a", [event(1)], 0), StreamAppend("b", [event(2)], 0)],
                tenant_id=tenant,
            )
        assert await log.read_all() == before
        assert await log.stream_version("a", tenant) == 0

    async def test_another_tenants_stream_refuses_the_whole_append_to_several(
        self, log: EventLog, tenant: TenantId, other: TenantId
    ) -> None:
        await log.append("theirs", [event(0)], tenant_id=other, expected_version=0)
        with pytest.raises(TenantMismatchError):
            await log.append_streams(
                [StreamAppend("mine", [event(1)], 0), StreamAppend("theirs", [event(2)], 1)],
                tenant_id=tenant,
            )
        assert [e.payload["n"] for e in await log.read_all()] == [0]

    async def test_an_append_to_several_refuses_a_stream_named_twice_or_a_bad_payload(
        self, log: EventLog, tenant: TenantId
    ) -> None:
        bad = NewEvent(event_type="Bad", schema_version=1, payload={"x": float("inf")})
        for appends in (
            [StreamAppend("a", [event(1)], 0), StreamAppend("a", [event(2)], 1)],
            [StreamAppend("a", [event(1)], 0), StreamAppend("b", [bad], 0)],
            [StreamAppend("a", [event(1)], 0), StreamAppend("", [event(2)], 0)],
        ):
            with pytest.raises(InvalidInputError):
                await log.append_streams(appends, tenant_id=tenant)
        assert await log.read_all() == []
        assert await log.append_streams([], tenant_id=tenant) == []

    # -- read_all paging ----------------------------------------------------------------

    async def test_read_all_after_and_limit_page_without_gaps_or_repeats(
        self, log: EventLog, tenant: TenantId
    ) -> None:
        for n in range(7):
            await log.append(f"s{n % 3}", [event(n)], tenant_id=tenant, expected_version=n // 3)
        everything = await log.read_all()
        paged, after = [], 0
        while page := await log.read_all(after=after, limit=3):
            assert len(page) <= 3
            paged.extend(page)
            after = page[-1].position
        assert paged == everything
        assert await log.read_all(after=everything[2].position) == everything[3:]
        assert await log.read_all(after=everything[-1].position) == []
        assert await log.read_all(limit=0) == []

    async def test_read_all_refuses_negative_arguments(self, log: EventLog) -> None:
        with pytest.raises(InvalidInputError):
            await log.read_all(limit=-1)
        with pytest.raises(InvalidInputError):
            await log.read_all(after=-1)

    async def test_read_headers_are_read_all_without_payloads_over_every_tenant(
        self, log: EventLog, tenant: TenantId, other: TenantId
    ) -> None:
        for n in range(7):
            owner = tenant if n % 2 else other
            events = [event(n), event(n + 10)]
            await log.append(f"s{n}", events, tenant_id=owner, expected_version=0)
        everything = await log.read_all()
        fields = list(EventHeader.model_fields)
        expected = [EventHeader(**{f: getattr(e, f) for f in fields}) for e in everything]
        headers = await log.read_headers()
        assert [EventHeader(**h.model_dump()) for h in headers] == expected
        assert all(type(h) is EventHeader for h in headers)
        paged, after = [], 0
        while page := await log.read_headers(after=after, limit=3):
            assert len(page) <= 3
            paged.extend(page)
            after = page[-1].position
        assert paged == headers
        assert await log.read_headers(after=everything[4].position) == headers[5:]
        assert await log.read_headers(limit=0) == []
        with pytest.raises(InvalidInputError):
            await log.read_headers(limit=-1)
        with pytest.raises(InvalidInputError):
            await log.read_headers(after=-1)

    async def test_bad_append_arguments_are_refused(self, log: EventLog, tenant: TenantId) -> None:
        with pytest.raises(InvalidInputError):
            await log.append("", [event(1)], tenant_id=tenant, expected_version=0)
        with pytest.raises(InvalidInputError):
            await log.append("s", [event(1)], tenant_id=tenant, expected_version=-1)
        assert await log.read_all() == []

    # -- tenants ------------------------------------------------------------------------

    async def test_appending_to_another_tenants_stream_raises_and_writes_nothing(
        self, log: EventLog, tenant: TenantId, other: TenantId
    ) -> None:
        await log.append("shared-name", [event(1)], tenant_id=tenant, expected_version=0)
        with pytest.raises(TenantMismatchError):
            await log.append("shared-name", [event(2)], tenant_id=other, expected_version=1)
        assert [e.payload["n"] for e in await log.read_all()] == [1]

    async def test_another_tenant_cannot_read_a_stream(
        self, log: EventLog, tenant: TenantId, other: TenantId
    ) -> None:
        """No read returns another tenant's data, and the stream's existence is not told."""
        await log.append("s", [event(1)], tenant_id=tenant, expected_version=0)
        assert await log.read_stream("s", other) == []
        assert await log.stream_version("s", other) == 0

    async def test_read_type_returns_one_tenants_events_of_one_type_in_order(
        self, log: EventLog, tenant: TenantId, other: TenantId
    ) -> None:
        """Catches a by-type read that crosses tenants, mixes types or loses order."""
        await log.append("a", [event(1, "Kept"), event(2)], tenant_id=tenant, expected_version=0)
        await log.append("b", [event(3, "Kept")], tenant_id=other, expected_version=0)
        await log.append("c", [event(4, "Kept")], tenant_id=tenant, expected_version=0)
        assert [e.payload["n"] for e in await log.read_type("Kept", tenant)] == [1, 4]
        assert [e.payload["n"] for e in await log.read_type("Kept", other)] == [3]
        assert await log.read_type("Absent", tenant) == []

    # -- copies -------------------------------------------------------------------------

    async def test_mutating_a_read_or_the_appended_event_never_changes_the_log(
        self, log: EventLog, tenant: TenantId
    ) -> None:
        sent = event(1)
        await log.append("s", [sent], tenant_id=tenant, expected_version=0)
        sent.payload["n"] = 99
        first = await log.read_all()
        first[0].payload["n"] = 42
        tags = first[0].payload["tags"]
        assert isinstance(tags, list)
        tags.append("mutated")
        streamed = await log.read_stream("s", tenant)
        streamed[0].payload.clear()
        again = await log.read_all()
        assert again[0].payload == {"n": 1, "tags": ["a"]}
