"""Scoring an entity against a free-text query, without a text index."""

from __future__ import annotations

from uuid import uuid4

import pytest

from redstring.domain.ids import EntityId
from redstring.domain.lexical import (
    NAME_SEPARATOR,
    PROPERTY_WEIGHT,
    LexicalCandidate,
    candidate_names,
    choose_blocks,
    lexical_score,
    name_scores,
    shortlist_size,
)
from redstring.domain.similarity import string_similarity
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


def candidate(*names: str) -> LexicalCandidate:
    return LexicalCandidate(str(uuid4()), "person", NAME_SEPARATOR.join(names))


def test_name_scores_are_the_best_name_in_input_order() -> None:
    """One batched call must agree with `string_similarity` per name, per candidate."""
    found = [candidate("zebra holdings"), candidate("a lovelace", "ada lovelace")]
    assert name_scores("Ada  LOVELACE", found) == [
        pytest.approx(string_similarity("Ada Lovelace", "zebra holdings")),
        1.0,
    ]


def test_name_scores_of_no_candidates_is_empty() -> None:
    assert name_scores("ada", []) == []


def test_candidate_names_are_normalized_and_distinct() -> None:
    entity = make_entity(name="Ada  LOVELACE", normalized_name="a. lovelace")
    assert candidate_names(entity) == ("ada lovelace", "a lovelace")
    assert candidate_names(make_entity(name="Ada Lovelace")) == ("ada lovelace",)


def test_blocks_are_taken_rarest_first_while_they_fit() -> None:
    """The common block is skipped, not truncated: its members would be an arbitrary
    slice of a key that says little."""
    chosen = choose_blocks({"w:john": 900, "w:love": 3, "p:ada ": 40}, limit=100)
    assert chosen.whole == ["w:love", "p:ada "]
    assert chosen.partial is None


def test_a_block_that_overflows_does_not_stop_a_rarer_one_after_it() -> None:
    """Sizes 60, 50, 30 with room for 100: 30 + 50 fit; 60 would overflow and is skipped."""
    chosen = choose_blocks({"a": 60, "b": 50, "c": 30}, limit=100)
    assert chosen.whole == ["c", "b"]


def test_when_even_the_rarest_block_overflows_it_is_read_partially() -> None:
    """So a one-word query against a huge tenant still gets candidates."""
    chosen = choose_blocks({"w:john": 900, "w:jo": 5000}, limit=100)
    assert chosen.whole == []
    assert chosen.partial == "w:john"


def test_empty_blocks_are_nothing_to_read() -> None:
    assert choose_blocks({"w:none": 0}, limit=10).whole == []
    assert choose_blocks({"w:none": 0}, limit=10).partial is None
    assert choose_blocks({}, limit=10).partial is None


def test_the_shortlist_is_wider_than_k_when_a_property_could_reorder_it() -> None:
    """Property matches are invisible to the name screen; below `PROPERTY_WEIGHT` a
    shortlist of exactly `k` would leave them no room."""
    weak = [PROPERTY_WEIGHT] * 50
    assert shortlist_size(10, weak) > 10
    assert shortlist_size(1, weak) > 1
    assert shortlist_size(10, weak[:7]) == 7


def test_a_kth_name_score_above_the_property_weight_parses_k_and_its_ties_only() -> None:
    """No property can lift a candidate past a name score above `PROPERTY_WEIGHT`;
    the ties with the k-th stay, because the id decides between them."""
    ordered = [0.99, 0.95, 0.9, 0.9, 0.8, 0.7]
    assert shortlist_size(2, ordered) == 2
    assert shortlist_size(3, ordered) == 4
    assert shortlist_size(5, ordered) == 5


def test_a_candidate_id_string_reads_back_as_its_entity_id() -> None:
    entity_id = EntityId(uuid4())
    found = LexicalCandidate(id_string=str(entity_id), entity_type="person", filed_names="a")
    assert found.entity_id == entity_id
