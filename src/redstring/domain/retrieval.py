"""What a retrieval answers with.

## `score` is a fusion rank score, not a similarity

`VectorMatch.score` is cosine on 0..1 (see `domain/vector.py`). `ScoredEntity.score`
is a **reciprocal-rank-fusion** score: ordinal, comparable only within one
result, and unbounded -- two channels agreeing at rank 1 give `2/61`, and the
sum grows with the number of channels. It therefore carries no 0..1 bound,
and nobody should read it as "how similar".

## `None` and `0.0` are different facts

`semantic` and `lexical` are `None` when that channel did not rank the entity,
and a number on the channel's own 0..1 scale when it did. "The lexical channel
was off" and "the name did not match" call for different reactions, and
keeping both component scores after fusion is what lets a caller see what
fusion threw away (magnitude) -- the point of being hybrid.

`passage` is the chunk channel's score: the BM25 score (`domain/chunk.py`, unbounded,
higher better) of the best chunk that names the entity, or `None` when the chunk
channel did not run or did not rank it.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from redstring.domain.entity import Entity


class RetrievalMode(StrEnum):
    """Which channels a retrieval runs."""

    SEMANTIC = "semantic"
    LEXICAL = "lexical"
    HYBRID = "hybrid"


class ScoredEntity(BaseModel):
    """One retrieved entity and the scores that put it where it is."""

    entity: Entity
    #: Reciprocal-rank-fusion score: ordinal and unbounded (module docstring).
    score: float
    #: On the `VectorMatch` scale, or `None` when the semantic channel did not rank it.
    semantic: float | None = Field(default=None, ge=0.0, le=1.0)
    #: `lexical_score` on 0..1, or `None` when the lexical channel did not rank it.
    lexical: float | None = Field(default=None, ge=0.0, le=1.0)
    #: BM25 of the best chunk naming it, or `None` when the chunk channel did not rank it.
    passage: float | None = Field(default=None, ge=0.0)


class RetrievalResult(BaseModel):
    """The answer to one query, best first."""

    query: str
    matches: list[ScoredEntity] = Field(default_factory=list)
