"""The offline extractor's pattern relationships (extraction.relations)."""

from __future__ import annotations

import pytest

from redstring.domain.ids import tenant_id_for
from redstring.extraction.chunking import Chunk
from redstring.extraction.mapping import map_document
from redstring.extraction.offline import OfflineExtractor
from redstring.extraction.relations import SpannedRelation


def edges(text: str) -> set[tuple[str, str, str]]:
    got = OfflineExtractor().extract_chunk(Chunk(0, text, 0, len(text)))
    return {(r.source, r.target, r.relationship_type) for r in got.relationships}


@pytest.mark.parametrize(
    ("text", "edge"),
    [
        (
            "Jane Miller, director of the Acme Foundation, spoke on Monday.",
            ("Jane Miller", "Acme Foundation", "WORKS_FOR"),
        ),
        (
            "Boeing Corp. spokesman Tom Hardy declined to comment.",
            ("Tom Hardy", "Boeing Corp.", "WORKS_FOR"),
        ),
        (
            "Herman Hollerith founded the Tabulating Machine Company in 1896.",
            ("Herman Hollerith", "Tabulating Machine Company", "WORKS_FOR"),
        ),
        (
            "It joined Acme Widgets Corporation,\nled for decades by Thomas Watson.",
            ("Thomas Watson", "Acme Widgets Corporation", "WORKS_FOR"),
        ),
        (
            "He met Brian Mulroney 's Progressive Conservative Party on Monday.",
            ("Brian Mulroney", "Progressive Conservative Party", "WORKS_FOR"),
        ),
        (
            "It said John Georges , Acme Paper Corporation 's chairman , was away.",
            ("John Georges", "Acme Paper Corporation", "WORKS_FOR"),
        ),
        (
            "The winner was Robert Corduwener , a Netherlands businessman who won.",
            ("Robert Corduwener", "Netherlands", "LIVES_IN"),
        ),
        (
            "He spoke with New Jersey Gov. Thomas Kean on Friday.",
            ("Thomas Kean", "New Jersey", "LIVES_IN"),
        ),
        (
            "Aid reached people in Bugesera in the southeastern part of Rwanda.",
            ("Bugesera", "Rwanda", "LOCATED_IN"),
        ),
        (
            "They went to the car that took Lee Oswald to hospital after he was shot by Jack Ruby.",
            ("Jack Ruby", "Lee Oswald", "KILLED"),
        ),
        (
            "The talks were held by Globex Inc. of Pittsburgh last week.",
            ("Globex Inc.", "Pittsburgh", "LOCATED_IN"),
        ),
        ("He visited Aiken, S.C., last year.", ("Aiken", "S.C.", "LOCATED_IN")),
        (
            "LD1205101094 Madrid EFE in Spanish 1015 GMT 12 May 94",
            ("EFE", "Madrid", "LOCATED_IN"),
        ),
        (
            "The author Mary Ellen Stone was born in Boise on June 3, 1950.",
            ("Mary Ellen Stone", "Boise", "BORN_IN"),
        ),
        (
            "In 1830 , poet Emily Dickinson was born in Amherst , Mass.",
            ("Emily Dickinson", "Amherst , Mass.", "BORN_IN"),
        ),
        (
            "Anna Berg , the first mayor of the town , was born in Boise .",
            ("Anna Berg", "Boise", "BORN_IN"),
        ),
        (
            "The town feared Arthur Lyle assassin Peter Brand for years .",
            ("Peter Brand", "Arthur Lyle", "KILLED"),
        ),
        (
            "Four men conspired with Peter Brand in the assassination of Arthur Lyle .",
            ("Peter Brand", "Arthur Lyle", "KILLED"),
        ),
        (
            "As a young man , Texas born Peter Brand was an actor .",
            ("Peter Brand", "Texas", "LIVES_IN"),
        ),
        (
            "He met the deputy secretary of the Acme Foundation , Peter Brand , on Monday .",
            ("Peter Brand", "Acme Foundation", "WORKS_FOR"),
        ),
        (
            "He met National Congress President Vinicio Villar Anleu today .",
            ("President Vinicio Villar Anleu", "National Congress", "WORKS_FOR"),
        ),
        (
            "They sued the Frankfurt-based Commerzbank today.",
            ("Commerzbank", "Frankfurt", "LOCATED_IN"),
        ),
        (
            "Globex Holdings , a Hong Kong construction firm , bought it .",
            ("Globex Holdings", "Hong Kong", "LOCATED_IN"),
        ),
        (
            "Jane Miller , vice for development of new products at Acme Corp. , said so .",
            ("Jane Miller", "Acme Corp.", "WORKS_FOR"),
        ),
        (
            "Norton Simon was born on Feb. 5 , 1907 , in Portland , Ore. , and left.",
            ("Norton Simon", "Portland , Ore.", "BORN_IN"),
        ),
        (
            "The winner, John Smith, 41, of Millinocket, was not at home.",
            ("John Smith", "Millinocket", "LIVES_IN"),
        ),
        (
            "Investigators said Peter Brand killed Arthur Lyle in 1901.",
            ("Peter Brand", "Arthur Lyle", "KILLED"),
        ),
        (
            "Mayor Arthur Lyle was shot by Peter Brand outside the hall.",
            ("Peter Brand", "Arthur Lyle", "KILLED"),
        ),
        (
            "After the assassination of Arthur Lyle by Peter Brand, the town mourned.",
            ("Peter Brand", "Arthur Lyle", "KILLED"),
        ),
    ],
)
def test_each_pattern_yields_its_typed_edge(text: str, edge: tuple[str, str, str]) -> None:
    """Catches: a pattern, its direction or its type pair regressing."""
    assert edge in edges(text)


def test_a_thing_placed_in_a_city_is_placed_in_its_state_too() -> None:
    """Catches: losing the comma-joined container ("of Bethany, Conn.")."""
    found = edges("Marie Ferraro, 50, of Bethany, Conn., said she would stay.")
    assert {
        ("Marie Ferraro", "Bethany", "LIVES_IN"),
        ("Marie Ferraro", "Conn.", "LIVES_IN"),
        ("Bethany", "Conn.", "LOCATED_IN"),
    } <= found


def test_a_dateline_places_its_agency_in_city_and_country() -> None:
    """Catches: losing the city of "BANGKOK, Thailand (AP)" (the container read backwards)."""
    found = edges("BANGKOK, Thailand (AP) _ Officials met on Monday.")
    assert {
        ("AP", "Thailand", "LOCATED_IN"),
        ("AP", "BANGKOK", "LOCATED_IN"),
        ("BANGKOK", "Thailand", "LOCATED_IN"),
    } <= found


@pytest.mark.parametrize(
    "text",
    [
        # Co-occurrence alone is no fact.
        "Jane Miller and the Acme Foundation disagreed about Boise.",
        # A list of countries is no containment.
        "Talks included Colombia, Bolivia, Ecuador and Peru.",
        # The two mentions sit in two sentences.
        "Jane Miller spoke. Of the Acme Foundation nothing was said.",
        # The kill verb is passive and belongs to the first name, not an act on the second.
        "It was the day Jane Miller was shot and the car that took Peter Brand away.",
        # Another person stands between killer and victim.
        "Peter Brand told Mary Ellen Stone that Arthur Lyle had died.",
    ],
)
def test_no_pattern_no_edge(text: str) -> None:
    """Catches: edges invented from mere co-occurrence, lists, or across sentences."""
    assert edges(text) == set()


def test_an_edge_span_covers_the_words_that_state_it_and_reaches_provenance() -> None:
    """Catches: an edge without evidence, or mapping dropping its span."""
    text = "Intro text. Jane Miller, director of the Acme Foundation, spoke."
    chunk = Chunk(2, text, 500, 500 + len(text))
    extraction = OfflineExtractor().extract_chunk(chunk)
    (relation,) = extraction.relationships
    assert isinstance(relation, SpannedRelation)
    assert relation.span is not None
    start, end = relation.span
    assert text[start:end] == "Jane Miller, director of the Acme Foundation"
    graph = map_document(tenant_id_for("acme"), "doc", [extraction])
    (edge,) = graph.relationships
    (provenance,) = edge.provenance
    assert (provenance.char_start, provenance.char_end) == (500 + start, 500 + end)
