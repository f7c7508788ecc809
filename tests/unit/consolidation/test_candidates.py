"""Candidate generation: block-size guards, the type key, twins."""

from __future__ import annotations

from redstring.consolidation.candidates import (
    DOB_SWAPPED_FAMILY,
    FAMILY_BUILDERS,
    candidate_pairs,
    candidate_pairs_from_keys,
    resolution_keys,
)
from redstring.consolidation.names import name_view
from redstring.testing.factories import make_entity


def _pairs(result) -> set[tuple[int, int]]:  # type: ignore[no-untyped-def]
    return {(int(i), int(j)) for i, j in result.pairs.tolist()}


def test_the_type_key_never_forms_a_block() -> None:
    """Catches pairing every entity of a type through `t:`."""
    keys = [["t:person", f"p:{i}"] for i in range(5)]
    splitters = [("X", f"core{i}") for i in range(5)]
    result = candidate_pairs_from_keys(keys, splitters)
    assert _pairs(result) == set()
    assert result.stats.blocks == 0


def test_an_oversized_block_is_split_by_secondary_key_and_counted() -> None:
    """Catches a block over the limit being scored whole (or silently dropped)."""
    keys = [["p:smit"] for _ in range(6)]
    splitters = [("S530", "smith a"), ("S530", "smith b"), ("S530", "smith c"),
                 ("T000", "tom a"), ("T000", "tom b"), ("T000", "tom c")]  # fmt: skip
    result = candidate_pairs_from_keys(keys, splitters, max_block_size=3)
    assert result.stats.blocks_split == 1
    assert _pairs(result) == {(0, 1), (0, 2), (1, 2), (3, 4), (3, 5), (4, 5)}


def test_a_block_that_cannot_be_split_is_starred_not_scanned() -> None:
    """Catches an unsplittable oversized block turning quadratic: same core -> star."""
    keys = [["p:acme"] for _ in range(5)]
    splitters = [("A250", "acme")] * 5
    result = candidate_pairs_from_keys(keys, splitters, max_block_size=2)
    assert result.stats.blocks_starred == 1
    assert result.stats.starred_memberships == 5
    assert result.stats.guard_reasons == {"identical_core_block_starred": 1}
    assert _pairs(result) == {(0, 1), (0, 2), (0, 3), (0, 4)}


def test_exact_twins_are_paired_with_one_representative_only() -> None:
    """Catches twins entering blocks: 3 identical + 1 variant -> 2 twin pairs + 1 block pair."""
    entities = [make_entity(name="ACME B.V.", entity_type="organization") for _ in range(3)]
    entities.append(make_entity(name="Acme Holding", entity_type="organization"))
    result = candidate_pairs(entities)
    assert result.stats.twins == 2
    assert _pairs(result) == {(0, 1), (0, 2), (0, 3)}


def test_legal_forms_do_not_keep_an_organisation_out_of_its_block() -> None:
    """Catches "N.V. Nutricia" and "Nutricia" never meeting (prefix keys differ)."""
    left = resolution_keys(make_entity(name="N.V. Nutricia", entity_type="organization"))
    right = resolution_keys(make_entity(name="Nutricia", entity_type="organization"))
    assert "c:nutr" in set(left) & set(right)


def _person(name: str, **properties: str):  # type: ignore[no-untyped-def]
    return make_entity(name=name, entity_type="person", properties=dict(properties))


def test_a_nickname_and_its_full_name_share_a_block() -> None:
    """Catches "Ted Greene" and "Edward Green" never meeting: no common prefix or dob."""
    left = set(resolution_keys(_person("Ted Greene")))
    right = set(resolution_keys(_person("Edward Green")))
    assert "gs:e|G650" in left & right


def test_a_final_letter_postcode_typo_still_shares_a_block() -> None:
    """Catches postcode blocking on the whole code: "tq13 8df" vs "tq13 8dg" must meet."""
    left = set(resolution_keys(_person("William", postcode="TQ13 8DF")))
    right = set(resolution_keys(_person("Bill Smith", postcode="tq13 8dg")))
    assert "pc:tq13 8d" in left & right


def test_birth_place_pairs_a_typod_single_token_name_without_dob() -> None:
    """Catches "hopkinson" and "hppkinson" (no dob, no shared prefix) never meeting."""
    left = set(resolution_keys(_person("Hopkinson", birth_place="Mendip")))
    right = set(resolution_keys(_person("hppkinson", birth_place="mendip")))
    assert "bl:mendip|H125" in left & right


def test_birth_place_and_year_pair_different_spellings() -> None:
    """Catches the birth-place + year family being absent or built from the wrong field."""
    left = set(resolution_keys(_person("Tonks", birth_place="Birmingham", dob="1862-04-89")))
    right = set(resolution_keys(_person("Henry Tonks", birth_place="birmingham", dob="1862-04-09")))
    assert "by:birmingham|1862" in left & right
    assert "ly:T520|1862" in left & right


def test_swapped_dob_key_only_when_day_could_be_a_month() -> None:
    """Catches a swapped-date key for impossible months (day 25) or no-op swaps (05-05)."""
    keys = FAMILY_BUILDERS[DOB_SWAPPED_FAMILY]
    view = name_view("x", "person")
    assert keys(view, _person("x", dob="1850-03-11")) == ["dw:1850-11-03"]
    assert keys(view, _person("x", dob="1850-03-25")) == []
    assert keys(view, _person("x", dob="1850-05-05")) == []


def test_baronetcy_words_are_not_the_surname() -> None:
    """Catches "1st Jaffrey Baronet" being filed under surname "baronet", not "jaffrey"."""
    keys = set(resolution_keys(_person("1st Jaffrey Baronet")))
    assert "l:jaffrey" in keys
