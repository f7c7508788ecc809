"""`answer_question`: a question answered by a language model from a `ContextAnswer` only.

The model sees the context (entities, relationships, chunks, each chunk headed by
its id) and must say whether the context holds the answer, answer from it, and cite
the chunk ids it used. What it returns is then checked, not trusted:

- a citation that names no chunk of the context is dropped and reported;
- an answer with no valid citation is not an answer: a model that answers from
  what it knows rather than from the workspace is exactly what grounding is for;
- a context without chunks is never sent: there is nothing to answer from, and
  the reply is the same "not in the workspace" without a model call.

It lives in `composition` because it holds an `LlmProvider` and the context a
`ContextBuilder` made from the stores.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from redstring.composition.context import render_chunk, render_entity, render_relationship
from redstring.domain.context import ContextAnswer
from redstring.domain.exceptions import InvalidInputError

if TYPE_CHECKING:
    from redstring.ports.llm import LlmProvider

#: What the answer says when the workspace does not hold one.
NOT_IN_CONTEXT = "The workspace does not hold the answer to this question."

INSTRUCTIONS = (
    "Answer the question using only the context given with it: its entities, "
    "relationships and passages. Each passage starts with its id in square brackets. "
    "Set answerable to false and leave answer empty when the context does not contain "
    "the answer; do not use outside knowledge. Otherwise write a short answer and list "
    "in citations the ids of the passages it rests on, exactly as written."
)


class AnswerDraft(BaseModel):
    """The structured reply asked of the model."""

    answerable: bool = Field(description="True only when the context contains the answer.")
    answer: str = Field(default="", description="The answer, from the context only.")
    citations: list[str] = Field(
        default_factory=list, description="Ids of the passages the answer rests on."
    )


class GroundedAnswer(BaseModel):
    """An answer and what it rests on. `answered` is False when the context did not hold
    the answer (then `answer` is `NOT_IN_CONTEXT` and `reason` says how we know)."""

    model_config = ConfigDict(extra="forbid")

    question: str
    answered: bool
    answer: str
    #: Chunk ids of the context the answer cites, in the model's order.
    citations: list[str] = Field(default_factory=list)
    #: Ids the model cited that are not chunks of the context.
    rejected_citations: list[str] = Field(default_factory=list)
    reason: str | None = None
    context: ContextAnswer


def render_context(question: str, context: ContextAnswer) -> str:
    """The prompt text: the question, then the context as `ContextBuilder` counted it."""
    names = {item.entity.id: item.entity.name for item in context.entities}
    lines = [f"Question: {question}", "", "Entities:"]
    lines.extend(f"- {render_entity(item.entity)}" for item in context.entities)
    lines.extend(["", "Relationships:"])
    lines.extend(f"- {render_relationship(edge, names)}" for edge in context.relationships)
    lines.extend(["", "Passages:"])
    lines.extend(render_chunk(chunk) for chunk in context.chunks)
    return "\n".join(lines)


async def answer_question(
    question: str, context: ContextAnswer, llm: LlmProvider
) -> GroundedAnswer:
    """Ask `llm` to answer `question` from `context`; check its citations (module doc)."""
    if not question.strip():
        raise InvalidInputError("the question is blank")
    if not context.chunks:
        return GroundedAnswer(
            question=question,
            answered=False,
            answer=NOT_IN_CONTEXT,
            reason="no passage of the workspace matched the question",
            context=context,
        )
    draft = await llm.extract(
        render_context(question, context), AnswerDraft, instructions=INSTRUCTIONS
    )
    known = {chunk.chunk_id for chunk in context.chunks}
    cited = list(dict.fromkeys(c.strip().strip("[]") for c in draft.citations))
    valid = [c for c in cited if c in known]
    rejected = [c for c in cited if c not in known]
    reason = None
    if not draft.answerable:
        reason = "the model found no answer in the context"
    elif not draft.answer.strip():
        reason = "the model gave an empty answer"
    elif not valid:
        reason = "the model's answer cited no passage of the context"
    return GroundedAnswer(
        question=question,
        answered=reason is None,
        answer=draft.answer.strip() if reason is None else NOT_IN_CONTEXT,
        citations=valid if reason is None else [],
        rejected_citations=rejected,
        reason=reason,
        context=context,
    )
