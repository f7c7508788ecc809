"""Parsing and scoring for the CoNLL04 extraction benchmark (SpERT-split JSON).

Kept beside the benchmark, not in the library: it is evaluation code, and it
is unit-tested offline against the real dev file.

Scoring is strict, per sentence, on text: a predicted entity counts when its
surface text and mapped type equal a gold entity's; a relation when its
(head text, tail text, type) equals a gold relation's. `token_aligned` gives the
text of the gold tokens a predicted character span touches, for the benchmark's
second, token-aligned figure. Sentences are scored
as *sets*, so a name repeated in one sentence counts once; sums run over
sentences (micro-averaged precision, recall, F1).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

#: CoNLL04 entity type -> redstring entity type.
CONLL_TO_REDSTRING_ENTITY = {
    "Peop": "Person",
    "Org": "Organization",
    "Loc": "Location",
    "Other": "Other",
}
#: CoNLL04 relation type -> the relationship type name used in the benchmark's domain.
CONLL_TO_REDSTRING_RELATION = {
    "Work_For": "WORK_FOR",
    "Kill": "KILL",
    "OrgBased_In": "ORG_BASED_IN",
    "Live_In": "LIVE_IN",
    "Located_In": "LOCATED_IN",
}


def redstring_to_conll_entity(entity_type: str) -> str:
    """A redstring type's CoNLL label; types CoNLL has no label for (Date, Money,
    Concept...) fall in CoNLL's catch-all `Other`, which holds dates and amounts."""
    reverse = {v: k for k, v in CONLL_TO_REDSTRING_ENTITY.items()}
    return reverse.get(entity_type, "Other")


def redstring_to_conll_relation(relationship_type: str) -> str | None:
    reverse = {v: k for k, v in CONLL_TO_REDSTRING_RELATION.items()}
    return reverse.get(relationship_type)


@dataclass(frozen=True)
class GoldEntity:
    start: int  # token index, inclusive
    end: int  # token index, exclusive
    text: str
    conll_type: str


@dataclass(frozen=True)
class GoldRelation:
    head: str
    tail: str
    conll_type: str


@dataclass(frozen=True)
class Sentence:
    text: str
    tokens: tuple[str, ...]
    entities: tuple[GoldEntity, ...]
    relations: tuple[GoldRelation, ...]
    orig_id: int | None = None


def spans_from_bilou(tags: Iterable[str]) -> list[tuple[int, int, str]]:
    """(start, end-exclusive, type) for each entity of a BILOU tag sequence.

    A malformed sequence (an I or L with no open B) raises `ValueError`: silently
    guessing would score against entities that are not in the gold.
    """
    spans: list[tuple[int, int, str]] = []
    open_start: int | None = None
    open_type: str | None = None
    for i, tag in enumerate(tags):
        if tag == "O":
            if open_start is not None:
                raise ValueError(f"entity opened at {open_start} is not closed before {i}")
            continue
        prefix, _, entity_type = tag.partition("-")
        if prefix == "U":
            if open_start is not None:
                raise ValueError(f"U tag at {i} inside an open entity")
            spans.append((i, i + 1, entity_type))
        elif prefix == "B":
            if open_start is not None:
                raise ValueError(f"B tag at {i} inside an open entity")
            open_start, open_type = i, entity_type
        elif prefix in ("I", "L"):
            if open_start is None or open_type != entity_type:
                raise ValueError(f"{tag} at {i} continues no open {entity_type} entity")
            if prefix == "L":
                spans.append((open_start, i + 1, entity_type))
                open_start = open_type = None
        else:
            raise ValueError(f"unknown tag {tag!r} at {i}")
    if open_start is not None:
        raise ValueError(f"entity opened at {open_start} is never closed")
    return spans


def parse_sentence(record: Mapping[str, object]) -> Sentence:
    tokens = tuple(str(t) for t in record["tokens"])  # type: ignore[attr-defined]
    tags = [str(t) for t in record["tags"]]  # type: ignore[attr-defined]
    if len(tags) != len(tokens):
        raise ValueError(f"{len(tokens)} tokens but {len(tags)} tags")
    entities = tuple(
        GoldEntity(s, e, " ".join(tokens[s:e]), t) for s, e, t in spans_from_bilou(tags)
    )
    relations = tuple(
        GoldRelation(entities[r["head"]].text, entities[r["tail"]].text, r["type"])
        for r in record.get("relations", [])  # type: ignore[attr-defined]
    )
    orig = record.get("orig_id")
    return Sentence(
        text=" ".join(tokens),
        tokens=tokens,
        entities=entities,
        relations=relations,
        orig_id=orig if isinstance(orig, int) else None,
    )


def load_sentences(path: Path) -> list[Sentence]:
    with path.open(encoding="utf-8") as handle:
        return [parse_sentence(record) for record in json.load(handle)]


@dataclass
class PRF:
    """Running true-positive / predicted / gold counts."""

    tp: int = 0
    predicted: int = 0
    gold: int = 0

    def add(self, predicted: set[tuple[str, ...]], gold: set[tuple[str, ...]]) -> None:
        self.tp += len(predicted & gold)
        self.predicted += len(predicted)
        self.gold += len(gold)

    @property
    def precision(self) -> float:
        return self.tp / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def line(self) -> str:
        return (
            f"P={self.precision:.3f} R={self.recall:.3f} F1={self.f1:.3f} "
            f"(tp={self.tp} pred={self.predicted} gold={self.gold})"
        )


@dataclass
class Scores:
    entities: PRF = field(default_factory=PRF)
    relations: PRF = field(default_factory=PRF)


def token_aligned(sentence: Sentence, start: int, end: int) -> str:
    """The gold tokens a character span of `sentence.text` touches, joined as the gold
    joins them: the text a token-level system would have predicted for that span.

    The gold is annotated on tokens, and the tokeniser left some punctuation glued to
    a word ("Ethiopia." at a sentence's end, "Boise.", "Tom Muri."): a span that stops
    inside a token ("Ethiopia") is that token ("Ethiopia."), as when a character-level
    system is aligned to token-level gold. A span on token boundaries is unchanged,
    and a span that covers other tokens still misses.
    """
    if not 0 <= start < end <= len(sentence.text):
        raise ValueError(f"span {start}:{end} is outside the sentence")
    first = last = None
    offset = 0
    for index, token in enumerate(sentence.tokens):
        token_end = offset + len(token)
        if first is None and token_end > start:
            first = index
        if offset < end:
            last = index
        offset = token_end + 1
    if first is None or last is None or last < first:
        raise ValueError(f"span {start}:{end} touches no token")
    return " ".join(sentence.tokens[first : last + 1])


def gold_entity_set(sentence: Sentence) -> set[tuple[str, ...]]:
    return {(e.text, e.conll_type) for e in sentence.entities}


def gold_relation_set(sentence: Sentence) -> set[tuple[str, ...]]:
    return {(r.head, r.tail, r.conll_type) for r in sentence.relations}


def score_sentence(
    scores: Scores,
    sentence: Sentence,
    predicted_entities: Iterable[tuple[str, str]],
    predicted_relations: Iterable[tuple[str, str, str]] = (),
) -> None:
    """Add one sentence's predictions, given in *redstring* types, to `scores`."""
    entities = {
        (" ".join(name.split()), redstring_to_conll_entity(t)) for name, t in predicted_entities
    }
    relations: set[tuple[str, ...]] = set()
    for head, tail, rel in predicted_relations:
        conll = redstring_to_conll_relation(rel)
        if conll is not None:
            relations.add((" ".join(head.split()), " ".join(tail.split()), conll))
        else:
            relations.add((head, tail, f"unmapped:{rel}"))
    scores.entities.add(entities, gold_entity_set(sentence))
    scores.relations.add(relations, gold_relation_set(sentence))
