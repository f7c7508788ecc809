"""The in-memory event log keeps every EventLog promise."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from redstring.eventlog.memory import InMemoryEventLog
from redstring.testing.event_log import EventLogCompliance

if TYPE_CHECKING:
    from redstring.ports.event_log import EventLog


class TestInMemoryEventLog(EventLogCompliance):
    @pytest.fixture
    def log(self) -> EventLog:
        return InMemoryEventLog()
