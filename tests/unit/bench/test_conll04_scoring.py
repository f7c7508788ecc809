"""The CoNLL04 benchmark's parsing and scoring, offline, on the real dev file."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.conll04_scoring import (
    Scores,
    Sentence,
    load_sentences,
    score_sentence,
    spans_from_bilou,
    token_aligned,
)

DEV = (
    Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "conll04" / "conll04_dev.json"
)
pytestmark = pytest.mark.skipif(not DEV.exists(), reason="shared/data is not beside the repo")


def test_dev_file_parses_with_documented_counts() -> None:
    """Catches: BILOU decoding dropping or splitting entities, or relation indices misread."""
    sentences = load_sentences(DEV)
    assert len(sentences) == 231
    first = sentences[0]
    assert [(e.text, e.conll_type) for e in first.entities] == [
        ("John Wilkes Booth", "Peop"),
        ("President Lincoln", "Peop"),
    ]
    assert [(r.head, r.tail, r.conll_type) for r in first.relations] == [
        ("John Wilkes Booth", "President Lincoln", "Kill")
    ]
    assert {r.conll_type for s in sentences for r in s.relations} <= {
        "Work_For",
        "Kill",
        "OrgBased_In",
        "Live_In",
        "Located_In",
    }


def test_gold_scores_perfectly() -> None:
    """Catches: type mapping or text joining that makes even the gold answer miss."""
    scores = Scores()
    names = {"Peop": "Person", "Org": "Organization", "Loc": "Location", "Other": "Date"}
    rels = {
        "Work_For": "WORK_FOR",
        "Kill": "KILL",
        "OrgBased_In": "ORG_BASED_IN",
        "Live_In": "LIVE_IN",
        "Located_In": "LOCATED_IN",
    }
    for s in load_sentences(DEV):
        score_sentence(
            scores,
            s,
            [(e.text, names[e.conll_type]) for e in s.entities],
            [(r.head, r.tail, rels[r.conll_type]) for r in s.relations],
        )
    assert scores.entities.f1 == 1.0
    assert scores.relations.f1 == 1.0


def test_strict_scoring_counts() -> None:
    """Catches: partial spans or wrong types counted as hits, or unmapped relations counted."""
    s = load_sentences(DEV)[0]
    scores = Scores()
    score_sentence(
        scores,
        s,
        [("John Wilkes Booth", "Person"), ("Lincoln", "Person"), ("President Lincoln", "Location")],
        [("John Wilkes Booth", "President Lincoln", "KILL"), ("a", "b", "LIKES")],
    )
    assert (scores.entities.tp, scores.entities.predicted, scores.entities.gold) == (1, 3, 2)
    assert (scores.relations.tp, scores.relations.predicted, scores.relations.gold) == (1, 2, 1)
    assert scores.entities.f1 == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))


@pytest.mark.parametrize("tags", [["I-Peop"], ["B-Peop", "O"], ["B-Peop", "L-Org"], ["B-Peop"]])
def test_malformed_bilou_is_rejected(tags: list[str]) -> None:
    """Catches: a broken tag sequence silently producing a made-up gold entity."""
    with pytest.raises(ValueError, match=r"\S"):
        spans_from_bilou(tags)


def test_token_aligned_reads_a_span_as_the_gold_tokens_it_touches() -> None:
    """Catches: a span ending inside a token with glued punctuation ("Ethiopia" in
    "Ethiopia.") not aligned to it, or a span on token boundaries changed."""
    tokens = ("Cheek", "is", "in", "Addis", "Ababa", ",", "Ethiopia.")
    sentence = Sentence(" ".join(tokens), tokens, (), ())
    text = sentence.text
    at = text.index("Ethiopia")
    assert token_aligned(sentence, at, at + len("Ethiopia")) == "Ethiopia."
    at = text.index("Addis")
    assert token_aligned(sentence, at, at + len("Addis Ababa")) == "Addis Ababa"
    assert token_aligned(sentence, at, at + len("Addis")) == "Addis"
    with pytest.raises(ValueError, match="outside"):
        token_aligned(sentence, 0, len(text) + 1)
