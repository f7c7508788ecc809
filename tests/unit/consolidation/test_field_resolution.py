"""Canonical choice and merged fields."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from itertools import permutations
from uuid import UUID

from redstring.consolidation.field_resolution import choose_canonical, resolve_fields
from redstring.domain.entity import key_name, named_by_key
from redstring.domain.ids import EntityId
from redstring.domain.provenance import Provenance
from redstring.testing.factories import make_entity, make_provenance

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _id(n: int) -> EntityId:
    return EntityId(UUID(int=n))


def test_canonical_prefers_provenance_then_confidence_then_id_in_any_order() -> None:
    """Catches a canonical that depends on member order."""
    a = make_entity(entity_id=_id(3), confidence=0.5)
    a.provenance.append(make_provenance("second"))
    b = make_entity(entity_id=_id(1), confidence=0.9)
    c = make_entity(entity_id=_id(2), confidence=0.9)
    for order in permutations([a, b, c]):
        assert choose_canonical(order).id == a.id
    for order in permutations([b, c]):
        assert choose_canonical(order).id == b.id


def test_a_record_named_only_by_its_key_names_a_cluster_last() -> None:
    """Catches "#p17" naming a merge of it and "Ada Lovelace": a record without a
    name stands in under its key, which says nothing of who it is, however much
    provenance or confidence it has."""
    stand_in = make_entity(entity_id=_id(1), name=key_name("p17"), confidence=1.0)
    stand_in.provenance[:] = [
        Provenance(observed_at=NOW, method="record", source_id="people.csv#p17"),
        Provenance(observed_at=NOW, method="record", source_id="other.csv#p17"),
    ]
    named = make_entity(entity_id=_id(2), name="Ada Lovelace", confidence=0.5)
    named.provenance[:] = [Provenance(observed_at=NOW, method="record", source_id="people.csv#p18")]
    assert named_by_key(stand_in)
    assert not named_by_key(named)
    for order in permutations([stand_in, named]):
        assert choose_canonical(order).id == named.id
    # A name that merely starts with the mark, or a mark without a matching record
    # key, is a name.
    hashtag = make_entity(name="#MeToo")
    hashtag.provenance[:] = [
        Provenance(observed_at=NOW, method="record", source_id="people.csv#p19")
    ]
    assert not named_by_key(hashtag)


def test_merged_fields_keep_every_value_and_record_conflicts() -> None:
    """Catches losing a member's property, provenance or blocking key in a merge."""
    a = make_entity(entity_id=_id(1), name="Ada Lovelace", properties={"dob": "1815-12-10"})
    b = make_entity(
        entity_id=_id(2), name="Ada King", confidence=0.4,
        properties={"dob": "1815-12-11", "birth_place": "london"},
    )  # fmt: skip
    resolved = resolve_fields([b, a])
    merged = resolved.entity
    assert merged.id == a.id
    assert merged.name == "Ada Lovelace"
    assert merged.properties == {"dob": "1815-12-10", "birth_place": "london"}
    assert [(c.key, c.kept, c.others) for c in resolved.conflicts] == [
        ("dob", "1815-12-10", ("1815-12-11",))
    ]
    assert len(merged.provenance) == 2
    assert set(a.blocking_keys) | set(b.blocking_keys) == set(merged.blocking_keys)
    assert merged.confidence == 1.0


def test_a_value_that_only_says_missing_gives_way_to_a_members_value() -> None:
    """Catches a merged entity showing "N/A" for a town its other records give: the
    canonical's value wins unless it only says the value is missing; the mark is kept
    among the conflicts, and where no member gives a value the mark stays."""
    a = make_entity(entity_id=_id(1), name="Ada", properties={"town": "N/A", "job": "-"})
    a.provenance.append(make_provenance("second"))  # a is canonical
    b = make_entity(entity_id=_id(2), name="Ada", properties={"town": " unknown", "job": "-"})
    c = make_entity(entity_id=_id(3), name="Ada", properties={"town": "London"})
    for order in permutations([a, b, c]):
        resolved = resolve_fields(order)
        assert resolved.entity.id == a.id
        assert resolved.entity.properties == {"town": "London", "job": "-"}
        [conflict] = resolved.conflicts
        assert (conflict.key, conflict.kept, conflict.others) == (
            "town", "London", (" unknown", "N/A")
        )  # fmt: skip


def test_values_of_other_json_types_stay_apart_and_conflicts_go_in_json_order() -> None:
    """Two values are one exactly when their JSON texts are: the string "1", the
    number 1, 1.0 and true are four values, and a list equal to another is one. The
    values set aside are ordered by their JSON text."""
    values: list[object] = ["1", 1, 1.0, True, None, ["a", 1], ["a", 1], "b", {"k": 2}]
    members = [
        make_entity(entity_id=_id(n + 1), name="Ada", properties={"v": value})
        for n, value in enumerate(values)
    ]
    (conflict,) = resolve_fields(members).conflicts
    assert conflict.kept == "1"
    assert conflict.others == ("b", 1, 1.0, ["a", 1], None, True, {"k": 2})


def test_strings_set_aside_go_in_the_order_of_their_escaped_json_text() -> None:
    """Catches strings ordered as written where their JSON escapes a character: a
    quote, a backslash or a newline is written after a backslash in JSON, which
    sorts after "#" and before "]"."""
    values = ["kept", 'a"b', "a#b", "a\\b", "a]b", "a\nb", "a b"]
    members = [
        make_entity(entity_id=_id(n + 1), name="Ada", properties={"v": value})
        for n, value in enumerate(values)
    ]
    (conflict,) = resolve_fields(members).conflicts
    assert conflict.kept == "kept"
    # As written a newline would come first and "#" after the quote.
    assert conflict.others == ("a b", "a#b", 'a"b', "a\\b", "a\nb", "a]b")


def test_the_best_attested_spelling_names_the_cluster() -> None:
    """One misspelt record must not name a cluster that two sources spell alike, even
    when the misspelt record alone carries the most provenance."""
    typo = make_entity(entity_id=_id(1), name="Charles Babage")
    typo.provenance.append(make_provenance("again"))
    typo.provenance.append(make_provenance("and again"))
    right = [make_entity(entity_id=_id(n), name="Charles Babbage") for n in (2, 3)]
    for member in right:
        member.provenance.append(make_provenance("second"))
    for order in permutations([typo, *right]):
        assert choose_canonical(order).name == "Charles Babbage"


def test_a_merge_keeps_each_observation_once_and_every_distinct_one() -> None:
    """Catches the provenance union keying on less than every field (two observations
    of one record at two offsets of the same instant, or in two chunks, are two)."""
    when = datetime(2026, 1, 1, tzinfo=UTC)
    seen = Provenance(observed_at=when, method="record", source_id="people.csv#1")
    others = [
        seen.model_copy(update={"observed_at": when.astimezone(timezone(timedelta(hours=1)))}),
        seen.model_copy(update={"chunk_index": 2}),
        seen.model_copy(update={"model": "m"}),
        seen.model_copy(update={"char_start": 0, "char_end": 3}),
    ]
    a, b = make_entity(name="Ada"), make_entity(name="Ada")
    a.provenance[:] = [seen, *others[:2]]
    b.provenance[:] = [seen.model_copy(), *others[2:]]
    merged = resolve_fields([a, b]).entity
    assert len(merged.provenance) == 1 + len(others)
