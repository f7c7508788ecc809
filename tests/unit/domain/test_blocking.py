"""Blocking keys: entity-level and name-level forms, and what a query looks under."""

from __future__ import annotations

from redstring.domain.blocking import (
    PREFIX_LENGTH,
    blocking_keys,
    prefix_key,
    prefix_key_for_name,
    query_blocking_keys,
    soundex_key,
    soundex_key_for_name,
    type_key,
)
from redstring.testing import make_entity


def test_the_prefix_key_is_the_normalized_head_of_the_name() -> None:
    assert prefix_key_for_name("  ADA   Lovelace") == "p:" + "ada lovelace"[:PREFIX_LENGTH]


def test_soundex_codes_the_whole_name_not_the_first_token() -> None:
    """Coding only "Ada" would block Ada Lovelace with every Adam in the tenant."""
    assert soundex_key_for_name("Ada Lovelace") != soundex_key_for_name("Ada")


def test_an_accented_letter_keeps_its_base_for_soundex() -> None:
    """NFKD before the ASCII filter, or "Émile" would code as "mile"."""
    assert soundex_key_for_name("Émile Zola") == soundex_key_for_name("Emile Zola")


def test_every_entity_has_a_type_key_so_none_is_unblockable() -> None:
    entity = make_entity(name="12345", entity_type="Product")
    assert type_key(entity) == "t:product"
    assert "t:product" in blocking_keys(entity)
    assert entity.blocking_keys == blocking_keys(entity)


def test_prefix_key_for_name_agrees_with_the_entity_form() -> None:
    """The two spellings are one function; a copy is how they drift."""
    entity = make_entity(name="Ada Lovelace")
    assert prefix_key_for_name("Ada Lovelace") == prefix_key(entity)


def test_soundex_key_for_name_agrees_with_the_entity_form() -> None:
    entity = make_entity(name="Ada Lovelace")
    assert soundex_key_for_name("Ada Lovelace") == soundex_key(entity)


def test_soundex_key_for_name_is_none_when_nothing_can_be_coded() -> None:
    """Same empty case as the entity form: digits code to nothing."""
    assert soundex_key_for_name("12345") is None


def test_query_blocking_keys_carries_prefix_and_soundex() -> None:
    keys = query_blocking_keys("Ada Lovelace")
    assert prefix_key_for_name("Ada Lovelace") in keys
    assert soundex_key_for_name("Ada Lovelace") in keys


def test_query_blocking_keys_never_carries_a_type_key() -> None:
    """A type key matches every entity of its type -- often the whole tenant -- so
    as a query key it would turn candidate generation into a full scan."""
    keys = query_blocking_keys("Ada Lovelace")
    assert not any(key.startswith("t:") for key in keys)


def test_query_blocking_keys_drops_an_absent_soundex() -> None:
    """A query that codes to nothing yields the prefix key alone, not a None."""
    assert query_blocking_keys("12345") == [prefix_key_for_name("12345")]


def test_query_blocking_keys_has_no_duplicates() -> None:
    """`find_by_blocking_keys` keys its result by key; a repeat is a wasted query."""
    keys = query_blocking_keys("Ada Lovelace")
    assert len(keys) == len(set(keys))
