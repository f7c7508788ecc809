"""A context answer: what a graph-RAG caller hands a language model for one question.

Entities (the retrieved ones, then their neighbours), the relationships among them,
and the chunks that support them, each chunk with the character spans of the
entities it mentions, all ranked and cut to a token budget. Chunk ids are what an
answer cites (`chunk_id_for`: document and position), so a citation can be shown to a
user as the passage itself.

Tokens are estimated, not counted: `estimate_tokens` is about four characters per
token, the usual figure for English under the BPE vocabularies of current models.
A caller with a real tokenizer and a tight window should leave headroom.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from redstring.domain.entity import Entity
from redstring.domain.ids import EntityId, RelationshipId
from redstring.domain.relationship import Relationship

#: Characters per token for `estimate_tokens` (see the module docstring).
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """About how many tokens `text` costs in a prompt (module docstring); at least 1."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN))


class ContextEntity(BaseModel):
    """An entity in the context: a retrieved one (`hops == 0`, with its fused score) or
    a neighbour reached in `hops` steps, the last through `via`."""

    model_config = ConfigDict(extra="forbid")

    entity: Entity
    hops: int = Field(ge=0)
    score: float | None = None
    via: RelationshipId | None = None


class MentionSpan(BaseModel):
    """Where an entity of the context is mentioned, in document character offsets."""

    model_config = ConfigDict(extra="forbid")

    entity_id: EntityId
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class ContextChunk(BaseModel):
    """A supporting chunk: `text == document[start:end]` of `source_id`.

    `score` is its fused rank score (BM25 ranking and entity support, by RRF);
    `bm25` its BM25 score when the query's full-text search found it, else `None`.
    """

    model_config = ConfigDict(extra="forbid")

    chunk_id: str
    source_id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    score: float
    bm25: float | None = None
    mentions: list[MentionSpan] = Field(default_factory=list)


class ContextAnswer(BaseModel):
    """Everything a caller needs to answer `query` from the workspace, best first."""

    model_config = ConfigDict(extra="forbid")

    query: str
    entities: list[ContextEntity] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    chunks: list[ContextChunk] = Field(default_factory=list)
    token_budget: int = Field(ge=0)
    #: Estimated tokens of what is included (entities, relationships, chunk texts).
    tokens: int = Field(ge=0)
    #: True when something ranked was left out to stay within the budget.
    truncated: bool = False
