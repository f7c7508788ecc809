"""Typed events round-trip through the log envelope and refuse what cannot be folded."""

from __future__ import annotations

import json
from uuid import uuid4

import pytest
from pydantic import ValidationError

from redstring.domain.exceptions import EventSchemaError, InvalidInputError, UnknownEventTypeError
from redstring.domain.ids import EntityId, TenantId, derived_relationship_id
from redstring.domain.log import NewEvent
from redstring.eventlog.memory import InMemoryEventLog
from redstring.events import (
    ChunkStats,
    DocumentExtracted,
    EmbeddedEntity,
    EntitiesEmbedded,
    EntitiesMerged,
    MergeUndone,
    RecordsImported,
    decode,
    redirect_relationships,
    registered_types,
)
from redstring.testing.factories import make_entity, make_relationship

T = TenantId(uuid4())


def test_every_event_round_trips_through_a_new_event_unchanged() -> None:
    """Catches a field lost or reshaped by `model_dump(mode='json')` (UUIDs, datetimes)."""
    ada, bob = make_entity(tenant_id=T), make_entity(tenant_id=T, name="Bob")
    rel = make_relationship(ada, bob)
    merge_id = uuid4()
    events = [
        DocumentExtracted(
            tenant_id=T,
            source_id="d",
            content_hash="h",
            model="m",
            entities=[ada, bob],
            relationships=[rel],
            chunks=ChunkStats(chunk_count=2, char_count=10),
        ),
        RecordsImported(tenant_id=T, source_id="r.csv", entities=[ada]),
        EntitiesEmbedded(
            tenant_id=T,
            model="m",
            dimension=2,
            # float32-exact components: the log keeps vectors as float32.
            vectors=[EmbeddedEntity(entity_id=ada.id, entity_type="person", vector=[0.5, -0.25])],
        ),
        EntitiesMerged.build(
            tenant_id=T,
            merge_id=merge_id,
            canonical=ada,
            merged_ids=[bob.id],
            reason="same",
            entities_before=[ada, bob],
            relationships_before=[rel],
            scores={"jw": 0.97},
        ),
        MergeUndone(tenant_id=T, merge_id=merge_id),
    ]
    for event in events:
        envelope = NewEvent.model_validate_json(event.to_new_event().model_dump_json())
        assert "tenant_id" not in envelope.payload
        assert decode(envelope, T) == event
        # What the log stores: the event's own one-pass serialisation.
        stored = json.loads(event.payload_json())
        assert stored == envelope.payload
        kind = {"event_type": event.event_type, "schema_version": event.schema_version}
        assert decode(NewEvent.model_validate({**kind, "payload": stored}), T) == event
    assert len(registered_types()) >= 5


def _merge_scored(score: float, name: str = "Ada") -> EntitiesMerged:
    ada, bob = make_entity(tenant_id=T, name=name), make_entity(tenant_id=T, name="Bob")
    return EntitiesMerged.build(
        tenant_id=T,
        merge_id=uuid4(),
        canonical=ada,
        merged_ids=[bob.id],
        reason="same",
        entities_before=[ada, bob],
        relationships_before=[],
        scores={"jw": score},
    )


@pytest.mark.parametrize("score", [float("nan"), float("inf")])
async def test_a_typed_event_holding_a_float_that_is_not_json_is_refused_by_the_log(
    score: float,
) -> None:
    """Catches the one-pass serialisation writing NaN as null (or as a bare NaN the
    log would store): the append is refused and writes nothing."""
    log = InMemoryEventLog()
    with pytest.raises(InvalidInputError, match="not JSON"):
        await log.append("m", [_merge_scored(score)], tenant_id=T, expected_version=0)
    assert await log.stream_version("m", T) == 0


async def test_nan_spelled_inside_a_name_is_text_and_round_trips() -> None:
    """Catches the NaN check refusing a string that merely contains the letters."""
    event = _merge_scored(0.5, name="NaN Infinity")
    log = InMemoryEventLog()
    await log.append("m", [event], tenant_id=T, expected_version=0)
    [stored] = await log.read_stream("m", T)
    assert decode(stored) == event


def test_an_unknown_type_or_newer_schema_raises_a_typed_error() -> None:
    """Catches a decoder that folds a v2 payload with v1 rules."""
    with pytest.raises(UnknownEventTypeError, match="schema version 2"):
        decode(NewEvent(event_type="MergeUndone", schema_version=2, payload={}), T)
    with pytest.raises(UnknownEventTypeError):
        decode(NewEvent(event_type="Nope", schema_version=1, payload={}), T)


def test_a_payload_that_does_not_validate_raises_event_schema_error() -> None:
    bad = NewEvent(event_type="MergeUndone", schema_version=1, payload={"merge_id": "x"})
    with pytest.raises(EventSchemaError, match="does not validate"):
        decode(bad, T)
    with pytest.raises(EventSchemaError, match="envelope owns the tenant"):
        decode(
            NewEvent(
                event_type="MergeUndone",
                schema_version=1,
                payload={"merge_id": str(uuid4()), "tenant_id": str(T)},
            ),
            T,
        )


def test_an_event_carrying_another_tenants_entity_is_refused() -> None:
    """Catches cross-tenant leakage at the source: replay would fold it into this tenant."""
    foreign = make_entity(tenant_id=TenantId(uuid4()))
    with pytest.raises(ValidationError, match="not the event's tenant"):
        RecordsImported(tenant_id=T, source_id="r", entities=[foreign])


def test_an_embedding_of_the_wrong_length_or_with_nan_is_refused() -> None:
    item = EmbeddedEntity(entity_id=EntityId(uuid4()), entity_type="p", vector=[1.0])
    with pytest.raises(ValidationError, match="dimension 1, expected 2"):
        EntitiesEmbedded(tenant_id=T, model="m", dimension=2, vectors=[item])
    nan = item.model_copy(update={"vector": [float("nan")]})
    with pytest.raises(ValidationError, match="non-finite"):
        EntitiesEmbedded(tenant_id=T, model="m", dimension=1, vectors=[nan])
    opposite = item.model_copy(update={"vector": [float("inf"), float("-inf")]})
    with pytest.raises(ValidationError, match="non-finite"):
        EntitiesEmbedded(tenant_id=T, model="m", dimension=2, vectors=[opposite])


def test_a_finite_embedding_whose_sum_overflows_is_accepted() -> None:
    """Catches the finite-sum fast path refusing finite components it cannot add up."""
    huge = EmbeddedEntity(entity_id=EntityId(uuid4()), entity_type="p", vector=[1e308, 1e308])
    event = EntitiesEmbedded(tenant_id=T, model="m", dimension=2, vectors=[huge])
    assert event.vectors[0].vector == [1e308, 1e308]


def test_redirect_drops_self_loops_and_collapses_duplicate_edges() -> None:
    """Merging B into A: A->B becomes a self-loop (dropped); B->C and A->C collapse into
    one edge keeping A->C's id, max confidence and both provenances."""
    a, b, c = (make_entity(tenant_id=T, name=n) for n in ("A", "B", "C"))
    ab = make_relationship(a, b)
    ac = make_relationship(a, c, confidence=0.4)
    bc = make_relationship(b, c, confidence=0.9)
    cb = make_relationship(c, b, relationship_type="likes")
    out = redirect_relationships([ab, ac, bc, cb], {b.id: a.id}, T)
    by_pair = {(r.source_id, r.relationship_type, r.target_id): r for r in out}
    assert set(by_pair) == {(a.id, "knows", c.id), (c.id, "likes", a.id)}
    kept = by_pair[(a.id, "knows", c.id)]
    assert kept.id == ac.id
    assert kept.confidence == 0.9
    assert all(p in kept.provenance for p in [*ac.provenance, *bc.provenance])
    moved = by_pair[(c.id, "likes", a.id)]
    assert moved.id == derived_relationship_id(T, c.id, "likes", a.id)


def test_a_merge_without_a_snapshot_of_a_merged_entity_is_refused() -> None:
    """Without the snapshot an undo could not restore it: refuse at construction."""
    a, b = make_entity(tenant_id=T), make_entity(tenant_id=T, name="B")
    with pytest.raises(ValidationError, match="no before-snapshot"):
        EntitiesMerged.build(
            tenant_id=T,
            merge_id=uuid4(),
            canonical=a,
            merged_ids=[b.id],
            reason="r",
            entities_before=[a],
            relationships_before=[],
        )
    with pytest.raises(ValidationError, match="into itself"):
        EntitiesMerged.build(
            tenant_id=T,
            merge_id=uuid4(),
            canonical=a,
            merged_ids=[a.id],
            reason="r",
            entities_before=[a],
            relationships_before=[],
        )


def test_vectors_are_packed_float32_in_the_log_and_unpack_to_float32_values() -> None:
    """Catches the JSON-float encoding coming back (8 KB per 384-d vector)."""
    vector = [((i * 7919) % 1000) / 999.0 - 0.5 for i in range(384)]
    event = EntitiesEmbedded(
        tenant_id=T,
        model="m",
        dimension=384,
        vectors=[EmbeddedEntity(entity_id=uuid4(), entity_type="person", vector=vector)],
    )
    envelope = event.to_new_event()
    assert envelope.schema_version == 2
    packed = envelope.model_dump_json()
    assert len(packed) < 2400
    decoded = decode(NewEvent.model_validate_json(packed), T)
    assert isinstance(decoded, EntitiesEmbedded)
    [item] = decoded.vectors
    assert item.vector == pytest.approx(vector, abs=1e-7)


def test_a_version_1_record_with_json_float_vectors_still_decodes() -> None:
    """Old logs must keep replaying after the packing change."""
    entity_id = uuid4()
    old = NewEvent(
        event_type="EntitiesEmbedded",
        schema_version=1,
        payload={
            "model": "m",
            "dimension": 2,
            "vectors": [
                {"entity_id": str(entity_id), "entity_type": "person", "vector": [0.1, 0.2]}
            ],
        },
    )
    decoded = decode(old, T)
    assert isinstance(decoded, EntitiesEmbedded)
    assert decoded.vectors[0].vector == [0.1, 0.2]
