"""Ids sort as their texts do, without being turned into text."""

from __future__ import annotations

import random
from uuid import UUID, uuid4

from redstring.domain.ids import derived_entity_id, id_order, tenant_id_for


def test_ids_sort_by_number_as_by_text() -> None:
    rng = random.Random(7)
    ids = [UUID(int=rng.getrandbits(128)) for _ in range(2_000)]
    # Numbers sharing a long prefix, and ones whose hex has leading zeros.
    ids += [UUID(int=k) for k in (0, 1, 15, 16, 255, 2**64, 2**64 + 1, 2**128 - 1)]
    ids += [uuid4() for _ in range(200)]
    ids += [derived_entity_id(tenant_id_for("t"), "Person", f"n{k}") for k in range(200)]
    assert sorted(ids, key=id_order) == sorted(ids, key=str)
