"""Scoring an entity against a free-text query, without a text index."""

from __future__ import annotations

import pytest

from redstring.domain.lexical import PROPERTY_WEIGHT, lexical_score
from redstring.testing import make_entity


def test_an_exact_name_scores_one() -> None:
    assert lexical_score("Ada Lovelace", make_entity(name="Ada Lovelace")) == 1.0


def test_casing_and_whitespace_are_not_differences() -> None:
    """`string_similarity` normalizes both sides; this pins that it is reached."""
    assert lexical_score("ada  LOVELACE", make_entity(name="Ada Lovelace")) == 1.0


def test_a_runtime_built_query_scores_the_same_as_a_literal() -> None:
    """CPython interns literals, so a literal-only suite cannot see `is` for `==`."""
    built = " ".join(["Ada", "Lovelace"])
    assert built is not "Ada Lovelace"  # noqa: F632 - the distinctness is the point
    assert lexical_score(built, make_entity(name="Ada Lovelace")) == 1.0


def test_an_abbreviation_beats_an_unrelated_name() -> None:
    """The case embeddings are worst at, and the reason this channel exists."""
    acme = lexical_score("Acme Corp", make_entity(name="ACME Corporation"))
    other = lexical_score("Acme Corp", make_entity(name="Zebra Holdings"))
    assert acme > other


def test_a_property_can_match_but_scores_below_the_same_match_on_the_name() -> None:
    """The weighting is the claim: a name match is stronger evidence."""
    on_name = lexical_score("Ada Lovelace", make_entity(name="Ada Lovelace"))
    on_property = lexical_score(
        "Ada Lovelace",
        make_entity(name="Zebra Holdings", properties={"also_known_as": "Ada Lovelace"}),
    )
    assert on_property == pytest.approx(PROPERTY_WEIGHT)
    assert on_property < on_name
    assert on_property > 0.0


def test_a_non_string_property_is_skipped_rather_than_coerced() -> None:
    """Coercing 7 or ['ada'] to str would invent matches no caller asked for."""
    entity = make_entity(name="Zebra", properties={"count": 7, "tags": ["ada"], "d": {}})
    assert lexical_score("ada", entity) == pytest.approx(
        lexical_score("ada", make_entity(name="Zebra"))
    )


def test_normalized_name_is_scored_when_it_differs_from_the_name() -> None:
    """The field is the extractor's own work; ignoring it would discard it."""
    entity = make_entity(name="A. Lovelace", normalized_name="ada lovelace")
    assert lexical_score("Ada Lovelace", entity) == 1.0


def test_the_best_field_wins_rather_than_the_fields_summing() -> None:
    """Summing would let many mediocre fields outrank an exact name, above 1.0."""
    entity = make_entity(
        name="Ada Lovelace",
        properties={"a": "Ada Lovelace", "b": "Ada Lovelace", "c": "Ada Lovelace"},
    )
    assert lexical_score("Ada Lovelace", entity) == 1.0


def test_the_score_stays_within_zero_and_one() -> None:
    entity = make_entity(name="Ada Lovelace", properties={"a": "Ada Lovelace"})
    assert 0.0 <= lexical_score("Ada Lovelace", entity) <= 1.0
