"""Offline entity typing fixed for issue 15 (each case was a wrong type before)."""

from __future__ import annotations

import pytest

from redstring.extraction.offline import OfflineExtractor


def types(text: str) -> dict[str, str]:
    return {f.name: f.entity_type for f in OfflineExtractor()._find(text)}


@pytest.mark.parametrize(
    ("text", "name", "entity_type"),
    [
        # A made thing is no organisation, though written in capitals.
        ("In Cambridge, Maurice Wilkes built the EDSAC in 1949.", "EDSAC", "Concept"),
        # A known country before its keyword: not a union.
        ("Ties with the Soviet Union improved.", "Soviet Union", "Location"),
        # A title word opening a body's name.
        (
            "A report by the General Accounting Office came out.",
            "General Accounting Office",
            "Organization",
        ),
        # A news dateline's place, in capitals.
        ("DAYTON, Ohio (AP) _ The plant closed.", "DAYTON", "Location"),
        # A well-known city with no other cue.
        ("Officials in talks with Moscow agreed.", "Moscow", "Location"),
        # One-word bodies.
        ("The plan went to Congress on Monday.", "Congress", "Organization"),
        ("The range lies in the Ocala National Forest today.", "Ocala National Forest", "Location"),
        # A person, then the town they are from.
        ("The diver Brian Michaud of Millinocket helped.", "Millinocket", "Location"),
        # Whose staff: the run before a staff noun.
        (
            "Boeing Commercial Airplanes spokesman Craig Martin said so.",
            "Boeing Commercial Airplanes",
            "Organization",
        ),
        # A body of something.
        ("He works at the Institute of Mechanics now.", "Institute of Mechanics", "Organization"),
        # A sentence's first word in apposition with a description.
        ("Tal , a senior Defense Ministry official , said no.", "Tal", "Person"),
    ],
)
def test_offline_types(text: str, name: str, entity_type: str) -> None:
    """Catches: each typing rule added for issue 15 regressing."""
    assert types(text).get(name) == entity_type


def test_a_capitalised_word_the_text_also_writes_lowercase_is_no_surname() -> None:
    """Catches: a common noun capitalised in a heading or title becoming a Person."""
    found = types("They saw the Engine later; the engine was slow.")
    assert found.get("Engine") != "Person"


def test_a_lone_given_name_mid_sentence_is_no_person_to_chain_two_people() -> None:
    """Catches: "David" typed a Person joining "David Rockefeller" and "John D.
    Rockefeller III" into one entity (Re-DocRED's chain audit)."""
    found = types("The bank was run by John D. Rockefeller III, and later David took over.")
    assert found.get("David") != "Person"
