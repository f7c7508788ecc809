"""Optional second opinion on grey-band pairs.

The model's grey band holds pairs it cannot call either way. Without an
adjudicator they stay apart (and are reported); with one, each pair's verdict
replaces its probability before clustering: "same" becomes 1.0, "different" 0.0.
A pair the adjudicator gives no verdict for keeps its model probability, so a
partial answer can never merge anything by omission.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, ConfigDict, Field

from redstring.domain.exceptions import InvalidInputError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.domain.entity import Entity
    from redstring.ports.llm import LlmProvider


@dataclass(frozen=True)
class GreyPair:
    left: Entity
    right: Entity
    probability: float


class Adjudicator(Protocol):
    """Decides grey pairs. Returns one verdict per pair: True same, False different,
    None no opinion."""

    async def decide(self, pairs: Sequence[GreyPair]) -> list[bool | None]: ...


class PairVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pair: int = Field(ge=0, description="The pair's number as given in the prompt.")
    same: bool = Field(description="True when both records denote the same real thing.")


class PairVerdicts(BaseModel):
    """The schema the model fills: one verdict per numbered pair."""

    model_config = ConfigDict(extra="forbid")

    verdicts: list[PairVerdict]


INSTRUCTIONS = (
    "You compare pairs of records from one knowledge graph. For each numbered pair, "
    "decide whether both records denote the same real-world entity. Spelling variants, "
    "abbreviations, legal-form suffixes and missing fields are not differences; "
    "conflicting dates, places or identifiers are. Answer every pair exactly once."
)


def _describe(entity: Entity) -> dict[str, object]:
    return {"name": entity.name, "type": entity.entity_type, "properties": entity.properties}


class LlmAdjudicator:
    """Adjudicates grey pairs with a language model, `batch_size` pairs per call."""

    def __init__(self, provider: LlmProvider, *, batch_size: int = 20) -> None:
        if batch_size < 1:
            raise InvalidInputError("batch_size must be at least 1")
        self._provider = provider
        self._batch_size = batch_size

    async def decide(self, pairs: Sequence[GreyPair]) -> list[bool | None]:
        verdicts: list[bool | None] = [None] * len(pairs)
        for start in range(0, len(pairs), self._batch_size):
            batch = pairs[start : start + self._batch_size]
            text = "\n".join(
                json.dumps(
                    {"pair": k, "a": _describe(p.left), "b": _describe(p.right)},
                    ensure_ascii=False,
                    sort_keys=True,
                )
                for k, p in enumerate(batch)
            )
            answer = await self._provider.extract(text, PairVerdicts, instructions=INSTRUCTIONS)
            for verdict in answer.verdicts:
                # Numbers outside the batch are ignored rather than trusted.
                if verdict.pair < len(batch):
                    verdicts[start + verdict.pair] = verdict.same
        return verdicts
