"""The text-mention resolver: what decides against, what decides for, and evidence."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import numpy as np

from redstring.consolidation.mentions import (
    MIN_FUZZY_CONFIDENCE,
    P_EQUAL,
    MentionEvidence,
    score_mentions,
)
from redstring.domain.provenance import Provenance
from redstring.testing.factories import make_entity

if TYPE_CHECKING:
    from redstring.domain.entity import Entity


def mention(name: str, entity_type: str, *docs: str, confidence: float = 0.9) -> Entity:
    entity = make_entity(name=name, entity_type=entity_type, confidence=confidence)
    when = datetime(2026, 1, 1, tzinfo=UTC)
    return entity.model_copy(
        update={
            "provenance": [
                Provenance(observed_at=when, method="offline", source_id=doc) for doc in docs
            ]
        }
    )


def probability(evidence: MentionEvidence, i: int, j: int) -> float:
    left, right = np.asarray([i], dtype=np.int64), np.asarray([j], dtype=np.int64)
    return float(evidence.scorer(left, right)[0])


def pair_probability(left: Entity, right: Entity, *context: Entity) -> float:
    return probability(score_mentions([left, right, *context]), 0, 1)


def test_values_merge_only_on_an_equal_value() -> None:
    """Catches: '1968' and '1986' merged for their string similarity (the issue's 2010 blob)."""
    assert pair_probability(mention("1968", "Date", "d1"), mention("1986", "Date", "d1")) == 0.0
    same = pair_probability(
        mention("April 4 , 1968", "Date", "d1"), mention("4 April 1968", "Date", "d2")
    )
    assert same == P_EQUAL
    # A value never matches a name, and a bare year is a value whatever its type.
    assert (
        pair_probability(mention("1968", "Date", "d1"), mention("1968", "Concept", "d2")) == P_EQUAL
    )
    assert (
        pair_probability(mention("1968", "Date", "d1"), mention("Apollo 1968", "Concept", "d1"))
        == 0.0
    )


def test_distinguishing_tokens_decide_against() -> None:
    """Catches: regnal numbers, qualifiers, acronyms and given names ignored by a fuzzy score."""
    vetoed = [
        (("Henry III", "Person"), ("Henry VIII", "Person")),
        (("North Carolina", "Location"), ("South Carolina", "Location")),
        (("Carolina", "Location"), ("North Carolina", "Location")),
        (("York", "Location"), ("New York", "Location")),
        (("AP", "Organization"), ("AFP", "Organization")),
        (("John Wilkes Booth", "Person"), ("Edwin Booth", "Person")),
        (("John Smith Jr", "Person"), ("John Smith Sr", "Person")),
        (("Martin Luther King Jr.", "Person"), ("Martin Luther King III", "Person")),
        (("PlayStation 2", "Concept"), ("PlayStation", "Concept")),
        (("Washington", "Location"), ("Waxhaw", "Location")),
        (("California", "Location"), ("New York", "Location")),
        (("Asian Games", "Event"), ("Asian Para Games", "Event")),
    ]
    for (left, left_type), (right, right_type) in vetoed:
        got = pair_probability(mention(left, left_type, "d1"), mention(right, right_type, "d1"))
        assert got == 0.0, (left, right)


def test_known_aliases_and_acronyms_decide_for() -> None:
    """Catches: token-disjoint spellings of one entity left apart although a list or the
    initials link them."""
    assert (
        pair_probability(
            mention("U.S.", "Location", "d1"), mention("United States", "Location", "d2")
        )
        >= 0.9
    )
    assert (
        pair_probability(
            mention("Wash.", "Location", "d1"), mention("Washington", "Location", "d1")
        )
        >= 0.9
    )
    # One word on both sides is ambiguous across texts (Washington, D.C. / Fort Lewis,
    # Wash.): the list alone does not join them there.
    assert (
        pair_probability(
            mention("Wash.", "Location", "d1"), mention("Washington", "Location", "d2")
        )
        < 0.5
    )
    assert (
        pair_probability(
            mention("Bill Clinton", "Person", "d1"), mention("William Clinton", "Person", "d2")
        )
        >= 0.9
    )
    acronym = pair_probability(
        mention("FBI", "Organization", "d1"),
        mention("Federal Bureau of Investigation", "Organization", "d1"),
    )
    assert acronym > 0.5


def test_a_surname_joins_the_only_full_name_of_its_document() -> None:
    """Catches: a bare surname left apart from its document's full name, or joined to one of
    two full names sharing it."""
    full = mention("Wilfried Willi Schneider", "Person", "d1")
    short = mention("Schneider", "Person", "d1")
    assert pair_probability(short, full) > 0.9
    john = mention("John Wilkes Booth", "Person", "d2")
    booth = mention("Booth", "Person", "d2")
    edwin = mention("Edwin Booth", "Person", "d2")
    evidence = score_mentions([booth, john, edwin])
    assert probability(evidence, 0, 1) < 0.5
    assert probability(evidence, 0, 2) < 0.5
    assert probability(evidence, 1, 2) == 0.0


def test_a_generation_on_one_side_needs_evidence() -> None:
    """Catches: 'Martin Luther King III' equal to 'Martin Luther King' by the string alone."""
    son = mention("Martin Luther King III", "Person", "a")
    assert pair_probability(son, mention("Martin Luther King", "Person", "b")) < 0.5
    assert pair_probability(son, mention("Martin Luther King", "Person", "a")) > 0.5


def test_a_short_name_seen_mostly_alone_is_ambiguous() -> None:
    """Catches: a surname found in many texts tied to the one full name met in one of them."""
    full = mention("Barack Obama", "Person", "a")
    assert pair_probability(mention("Obama", "Person", "a", "b"), full) > 0.5
    assert pair_probability(mention("Obama", "Person", "a", "b", "c"), full) < 0.5


def test_across_documents_context_decides() -> None:
    """Catches: a surname in one text merged with a full name in another on the string alone,
    and the same pair left apart when both texts share rare co-mentions."""
    alone = pair_probability(
        mention("Obama", "Person", "a"), mention("Barack Obama", "Person", "b")
    )
    assert alone < 0.5
    shared = [mention(n, "Location", "a", "b") for n in ("Honolulu", "Chicago", "Kenya")]
    together = pair_probability(
        mention("Obama", "Person", "a"), mention("Barack Obama", "Person", "b"), *shared
    )
    assert together > 0.5
    # Co-mentions found in every document are no evidence.
    everywhere = "abcdefghijklmnopqrst"
    common = [mention(n, "Location", *everywhere) for n in ("United States", "Europe")]
    assert (
        pair_probability(
            mention("Obama", "Person", "a"), mention("Barack Obama", "Person", "b"), *common
        )
        < 0.5
    )


def test_one_word_across_documents_needs_agreeing_texts() -> None:
    """Catches: "Milan" (Italy) and "Milan" (New Hampshire) joined across two texts on the
    equal word alone, or two texts about one Milan kept apart although their other names
    agree (names, not entities: each text has its own entities, ADR 0012)."""
    italy, new_hampshire = mention("Milan", "Location", "a"), mention("Milan", "Location", "b")
    context = [
        mention("Florence", "Location", "a"),
        mention("Duchy of Savoy", "Location", "a"),
        mention("Lombardy", "Location", "a"),
        mention("Groveton", "Location", "b"),
        mention("New Hampshire Route 11", "Location", "b"),
    ]
    assert pair_probability(italy, new_hampshire, *context) < 0.5
    lombardy = mention("Milan", "Location", "c")
    same = [
        *context,
        mention("Florence", "Location", "c"),
        mention("Duchy of Savoy", "Location", "c"),
        mention("Lombardy", "Location", "c"),
    ]
    assert pair_probability(italy, lombardy, *same) > 0.5
    # A full name is specific enough on its own.
    assert (
        pair_probability(
            mention("Ada Lovelace", "Person", "a"), mention("Ada Lovelace", "Person", "b")
        )
        == P_EQUAL
    )


def test_values_that_depend_on_their_text_stay_in_it() -> None:
    """Catches: "Monday" or "3" of one text joined to another text's, while one full date
    or one year is the same wherever it is read."""
    for name, entity_type in (("Monday", "Date"), ("3", "Number"), ("$5 million", "Money")):
        assert (
            pair_probability(mention(name, entity_type, "a"), mention(name, entity_type, "b"))
            == 0.0
        ), name
        assert (
            pair_probability(mention(name, entity_type, "a"), mention(name, entity_type, "a"))
            == P_EQUAL
        ), name
    assert pair_probability(mention("1968", "Date", "a"), mention("1968", "Date", "b")) == P_EQUAL


def test_groups_and_low_confidence_guesses_do_not_fuzzy_merge() -> None:
    """Catches: 'American' absorbing 'French', a catch-all guess joining by containment."""
    assert (
        pair_probability(mention("American", "Group", "d1"), mention("French", "Group", "d1"))
        == 0.0
    )
    assert (
        pair_probability(mention("American", "Group", "d1"), mention("America", "Location", "d1"))
        == 0.0
    )
    low = MIN_FUZZY_CONFIDENCE / 2
    guess = mention("Lappeenranta", "Concept", "d1", confidence=low)
    assert pair_probability(guess, mention("Lappeenranta University", "Organization", "d1")) < 0.5
    # The same catch-all guess does join an equal name of a confident type.
    assert pair_probability(guess, mention("Lappeenranta", "Location", "d1")) == P_EQUAL


def test_the_group_names_of_the_data_qualify() -> None:
    """Catches: 'Irish Labour Party' merged with 'Labour Party' when 'Irish' is a group."""
    irish = mention("Irish", "Group", "d1")
    labour = mention("Labour Party", "Organization", "d1")
    irish_labour = mention("Irish Labour Party", "Organization", "d1")
    evidence = score_mentions([labour, irish_labour, irish])
    assert probability(evidence, 0, 1) == 0.0
    without_group = score_mentions([labour, irish_labour])
    assert probability(without_group, 0, 1) > 0.5


def test_candidates_are_ordered_pairs_scored_by_the_same_model() -> None:
    """Catches: candidate probabilities that differ from the on-demand scorer's."""
    entities = [
        mention("Schneider", "Person", "d1"),
        mention("Wilfried Schneider", "Person", "d1"),
        mention("1963", "Date", "d1"),
        mention("1963", "Number", "d2"),
    ]
    evidence = score_mentions(entities)
    assert len(evidence.pairs) >= 1
    assert (evidence.pairs[:, 0] < evidence.pairs[:, 1]).all()
    again = evidence.scorer(evidence.pairs[:, 0], evidence.pairs[:, 1])
    assert np.array_equal(again, evidence.probabilities)
    assert [tuple(p) for p in evidence.pairs.tolist()] == [(0, 1)]
    empty = score_mentions([entities[0]])
    assert empty.pairs.shape == (0, 2)
    assert empty.probabilities.shape == (0,)


def test_a_guessed_type_or_an_acronym_joins_across_texts_only_with_a_shared_text() -> None:
    """Catches: 'Dublin' (a guess) in one text merged with Dublin, Ohio in another, and
    'D.C.' joined to 'Dodge City' in another text on shared context alone."""
    low = MIN_FUZZY_CONFIDENCE / 2
    places = [mention(n, "Location", "a", "b") for n in ("Ohio", "Columbus", "Scioto")]
    guess = mention("Dublin", "Concept", "a", confidence=low)
    assert pair_probability(guess, mention("Dublin", "Location", "b"), *places) < 0.5
    assert pair_probability(guess, mention("Dublin", "Location", "a"), *places) == P_EQUAL
    acronym = pair_probability(
        mention("D.C.", "Location", "a"), mention("Dodge City", "Location", "b"), *places
    )
    assert acronym < 0.5


def test_a_given_name_and_number_or_a_derived_word_is_not_specific() -> None:
    """Catches: "Leopold I" (emperor) and "Leopold I" (duke) of two texts joined as a full
    name, and "Equatorial Guinean" taken for a misspelt "Equatorial Guinea"."""
    assert (
        pair_probability(mention("Leopold I", "Person", "a"), mention("Leopold I", "Person", "b"))
        < 0.5
    )
    assert (
        pair_probability(
            mention("Equatorial Guinea", "Location", "a"),
            mention("Equatorial Guinean", "Location", "a"),
        )
        < 0.5
    )


def test_the_name_after_of_is_not_the_longer_name() -> None:
    """Catches: "Homs" joined to "Battle of Homs" (or "Pennsylvania" to "University of
    Pennsylvania") because the shorter name is contained in the longer one."""
    for long, short in (
        (("Battle of Homs", "Concept"), ("Homs", "Location")),
        (("University of Pennsylvania", "Organization"), ("Pennsylvania", "Location")),
    ):
        got = pair_probability(mention(*long, "d1"), mention(*short, "d1"))
        assert got == 0.0, long
    # A person's particle is not an "of": "Giuseppe di Leonessa" is still "Leonessa"
    # when the text says nothing else.
    assert (
        pair_probability(
            mention("Giuseppe di Leonessa", "Person", "d1"), mention("Leonessa", "Person", "d1")
        )
        > 0.5
    )


def test_a_listed_name_that_begins_another_place_needs_context_across_documents() -> None:
    """Catches: "New York" the state and "New York" the city joined across texts because
    the alias list names the state, in a tenant that also names "New York City"."""
    state, city = mention("New York", "Location", "a"), mention("New York", "Location", "b")
    assert pair_probability(state, city) == P_EQUAL  # listed, and nothing says otherwise
    assert pair_probability(state, city, mention("New York City", "Location", "c")) < 0.5
    # Another spelling of the same row is no second place: "United States of America".
    usa = mention("United States of America", "Location", "c")
    assert (
        pair_probability(
            mention("United States", "Location", "a"),
            mention("United States", "Location", "b"),
            usa,
        )
        == P_EQUAL
    )


def test_a_large_block_of_one_name_is_paired_by_evidence_not_all_pairs() -> None:
    """Catches: a name read in hundreds of documents paired n²/2 times, or the shortcut
    losing what the model would join: a specific name joins in one cluster, a one-word
    name only where its documents share a name."""
    from redstring.consolidation.clustering import agreeing_clusters
    from redstring.consolidation.mentions import MAX_BLOCK

    n = MAX_BLOCK + 6
    full = [mention("Christopher Walken", "Person", f"w{k}") for k in range(n)]
    milan = [mention("Milan", "Location", f"m{k}") for k in range(n)]
    shared = [
        mention(name, "Location", "m0", "m1") for name in ("Lombardy", "Duchy of Savoy", "Florence")
    ]
    entities = [*full, *milan, *shared]
    evidence = score_mentions(entities)
    assert len(evidence.pairs) < n * n  # not every pair of 2n same-named mentions
    clusters = agreeing_clusters(
        len(entities), evidence.pairs, evidence.probabilities, evidence.scorer
    )
    assert list(range(n)) in clusters
    assert [n, n + 1] in clusters  # the two Milans whose texts agree
    assert [n + 2] in clusters  # the others stay their own
