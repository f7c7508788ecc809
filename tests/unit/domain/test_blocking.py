"""Blocking keys: entity-level and name-level forms, and what a query looks under."""

from __future__ import annotations

from redstring.domain.blocking import (
    PREFIX_LENGTH,
    blocking_keys,
    lexicon_keys,
    name_blocking_keys,
    name_token_keys,
    prefix_key,
    prefix_key_for_name,
    query_blocking_keys,
    query_lexical_keys,
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


def test_a_built_entity_is_filed_under_its_names_keys() -> None:
    """The entity normalizes its name once for its normalized name and its keys:
    the keys are still those the name alone gives, accents, ligatures, scripts
    without ASCII letters and digits included."""
    for name in ("Ada Lovelace", "  Émile   ZOLA ", "ﬁnn O'Brien-Smith", "株式会社", "12345"):
        entity = make_entity(name=name, entity_type="Person")
        assert entity.blocking_keys == name_blocking_keys(name, "Person")
        assert entity.blocking_keys == [
            key
            for key in (prefix_key_for_name(name), soundex_key_for_name(name), "t:person")
            if key is not None
        ]


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


def test_token_keys_reach_every_word_not_only_the_first() -> None:
    """The query "Bill Clinton" shares no whole-name prefix or soundex with "William
    Jefferson Clinton"; the surname's token key is what finds it."""
    assert "w:clin" in name_token_keys("William Jefferson Clinton")
    assert set(name_token_keys("Bill Clinton")) & set(name_token_keys("William J. Clinton"))


def test_a_token_is_also_keyed_without_its_first_character() -> None:
    """A stray leading letter ("Junilever") is the one edit a prefix cannot survive."""
    assert set(name_token_keys("Junilever N.V.")) & set(name_token_keys("Unilever"))
    assert "w:unil" in name_token_keys("Junilever")


def test_tokens_too_short_to_carry_evidence_key_nothing() -> None:
    """A one-letter initial would block the query with a twenty-sixth of the tenant."""
    assert name_token_keys("J R") == []
    assert name_token_keys("Al") == ["w:al"]


def test_lexicon_keys_carry_the_blocking_keys_and_tokens_but_never_the_type_key() -> None:
    """The type key as a candidate source is a full scan of that type."""
    entity = make_entity(name="Ada Lovelace", entity_type="person")
    keys = lexicon_keys(entity)
    assert prefix_key(entity) in keys
    assert "w:love" in keys
    assert not any(key.startswith("t:") for key in keys)
    assert len(keys) == len(set(keys))


def test_query_lexical_keys_extend_the_blocking_keys_with_token_keys() -> None:
    keys = query_lexical_keys("Ada Lovelace")
    assert keys[: len(query_blocking_keys("Ada Lovelace"))] == query_blocking_keys("Ada Lovelace")
    assert "w:love" in keys
    assert len(keys) == len(set(keys))
