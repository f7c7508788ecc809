"""Stored chunks of document text, their search hits, and the one place BM25 is defined.

## The score scale

`ChunkMatch.score` is Okapi BM25 as SQLite FTS5's `bm25()` computes it, with the
sign turned so that **higher is better** (FTS5 returns it negated, lower-better):

    idf(t)   = ln((N - n(t) + 0.5) / (n(t) + 0.5)), floored at 1e-6
    score(d) = sum over distinct query terms t of
               idf(t) * tf(t, d) * (K1 + 1) / (tf(t, d) + K1 * (1 - B + B * |d| / avgdl))

N, n(t) and avgdl are the statistics of **one tenant's** chunks: a tenant's scores
never depend on another tenant's text. The score is unbounded and comparable only
within one query's answer, like the fused score of `domain/retrieval.py`; it is not
on `VectorMatch`'s 0..1 scale and must never be mixed with it (fusion uses ranks).

## Terms

`terms` is the tokenizer every adapter shares: case-folded, diacritics removed, split
on anything that is not a letter or digit -- what FTS5's `unicode61` tokenizer with
`remove_diacritics 2` produces for ordinary text. A query is reduced to its terms
before it reaches a store, which is why a query made of FTS5 operators, quotes or
column filters is searched as the words it contains and can never be syntax.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, model_validator

from redstring.domain.ids import EntityId
from redstring.domain.normalization import without_accents

if TYPE_CHECKING:
    from collections.abc import Mapping

#: BM25's term-frequency saturation and length normalisation: FTS5's fixed values.
K1 = 1.2
B = 0.75
#: FTS5 floors a non-positive idf (a term in more than half the rows) at this value.
IDF_FLOOR = 1e-6

_TERM = re.compile(r"[^\W_]+")


def terms(text: str) -> list[str]:
    """The searchable terms of `text`, in order, repeats kept (see the module docstring)."""
    return _TERM.findall(without_accents(text.casefold()))


def query_terms(text: str) -> list[str]:
    """The distinct terms of a query, in first-seen order: each counts once in BM25."""
    return list(dict.fromkeys(terms(text)))


def idf(rows: int, rows_with_term: int) -> float:
    """FTS5's inverse document frequency (module docstring), floored."""
    value = math.log((rows - rows_with_term + 0.5) / (rows_with_term + 0.5))
    return value if value > 0.0 else IDF_FLOOR


def bm25(
    term_frequencies: Mapping[str, int],
    length: int,
    average_length: float,
    idfs: Mapping[str, float],
) -> float:
    """One chunk's score for the query whose distinct terms are the keys of `idfs`."""
    score = 0.0
    norm = K1 * (1.0 - B + B * length / average_length) if average_length else K1
    for term, weight in idfs.items():
        tf = term_frequencies.get(term, 0)
        if tf:
            score += weight * tf * (K1 + 1.0) / (tf + norm)
    return score


def chunk_id_for(source_id: str, index: int) -> str:
    """A chunk's id: its document and position. Stable across re-ingestion of the same
    cut, so an answer's citation still names the same place after a replay."""
    return f"{source_id}#{index}"


class ChunkRecord(BaseModel):
    """One chunk of a document as a chunk store holds it.

    `start`/`end` are character offsets into the document (`document[start:end] ==
    text`). `entity_ids` are the entities whose provenance points into this chunk
    when it was extracted: how a chunk hit becomes an entity hit (read through
    aliases, since a merge may have folded one away since).
    """

    model_config = ConfigDict(extra="forbid")

    chunk_id: str = Field(min_length=1)
    source_id: str = Field(min_length=1)
    index: int = Field(ge=0)
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    entity_ids: list[EntityId] = Field(default_factory=list)

    @model_validator(mode="after")
    def _span(self) -> ChunkRecord:
        if self.end - self.start != len(self.text):
            raise ValueError(
                f"chunk {self.chunk_id!r} spans {self.start}..{self.end} "
                f"but holds {len(self.text)} characters"
            )
        return self


class ChunkMatch(BaseModel):
    """One chunk search hit: the chunk and its BM25 score (module docstring's scale)."""

    model_config = ConfigDict(extra="forbid")

    chunk: ChunkRecord
    score: float = Field(ge=0.0)
