"""Records and text mentions joined by name: narrowly, one partner each."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING
from uuid import UUID

from redstring.consolidation.bridging import bridges, name_key
from redstring.consolidation.engine import BRIDGE_REASON, resolve_sync
from redstring.domain.ids import EntityId
from redstring.domain.provenance import Provenance
from redstring.testing.factories import make_entity

if TYPE_CHECKING:
    from redstring.domain.entity import Entity


def _entity(n: int, name: str, kind: str, method: str, entity_type: str = "Person") -> Entity:
    entity = make_entity(entity_id=EntityId(UUID(int=n)), name=name, entity_type=entity_type)
    source = Provenance(observed_at=datetime.now(UTC), method=method, source_id=f"{kind}-{n}")
    properties = {"born": 1700 + n} if method == "record" else {}
    return entity.model_copy(update={"provenance": [source], "properties": properties})


def _record(n: int, name: str, entity_type: str = "Person") -> Entity:
    return _entity(n, name, "row", "record", entity_type)


def _mention(n: int, name: str, entity_type: str = "Person") -> Entity:
    return _entity(n, name, "doc", "offline", entity_type)


def test_name_keys_sort_a_persons_words_drop_legal_forms_and_refuse_one_word() -> None:
    assert name_key(_record(1, "Lovelace, Ada")) == name_key(_mention(2, "Ada Lovelace"))
    org = "Organization"
    assert name_key(_record(3, "IBM Corp.", org)) == name_key(_mention(4, "IBM Corporation", org))
    assert name_key(_mention(5, "Babbage")) is None
    assert name_key(_record(6, "Ada Lovelace")) != name_key(_mention(7, "Ada Lovelace", org))


def test_only_one_to_one_partners_are_bridged() -> None:
    """Catches a bridge that joins a mention to one of two same-named record
    clusters, or one record cluster to two mention clusters."""
    records = [[_record(1, "Ada Lovelace")], [_record(2, "John Smith")], [_record(3, "John Smith")]]
    text = [
        [_mention(4, "Lovelace"), _mention(5, "Ada Lovelace")],
        [_mention(6, "John Smith")],
        [_mention(7, "Charles Babbage")],
    ]
    assert bridges(records, text) == [(0, 0)]
    text.append([_mention(8, "Ada Lovelace")])
    assert bridges(records, text) == []


def test_a_record_and_its_mentions_become_one_entity_named_as_the_record() -> None:
    """Catches records and text mentions resolved apart (two "Ada Lovelace" entities
    in one graph), and a bridged merge named by the mention's one-word name."""
    entities = [
        _record(1, "Ada Lovelace"),
        _record(2, "Charles Babbage"),
        _mention(3, "Ada Lovelace"),
        _mention(4, "Babbage"),
        _mention(5, "Ada Lovelace"),
    ]
    plan = resolve_sync(entities)
    bridged = [d for d in plan.merges if d.reason == BRIDGE_REASON]
    assert len(bridged) == 1
    (decision,) = bridged
    assert decision.canonical_id == entities[0].id
    assert set(decision.merged_ids) >= {entities[2].id}
    assert "mean_probability" not in decision.scores or decision.scores["mean_probability"] >= 0
    assert [entities[3].id] in plan.clusters
    assert [entities[1].id] in plan.clusters


def test_a_separated_record_and_mention_are_not_bridged() -> None:
    """Catches a bridge that rejoins what a user undid."""
    entities = [_record(1, "Ada Lovelace"), _mention(2, "Ada Lovelace")]
    assert [d.reason for d in resolve_sync(entities).merges] == [BRIDGE_REASON]
    assert resolve_sync(entities, separate=[{entities[0].id, entities[1].id}]).merges == []
