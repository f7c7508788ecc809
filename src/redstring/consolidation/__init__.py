"""Entity resolution: field kinds, trained models, clusters and merge plans (pure logic + ports).

The composition layer turns a `ResolutionPlan` into `EntitiesMerged` events.

The names below are imported on first use (`redstring._lazy`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from redstring._lazy import lazy_exports

if TYPE_CHECKING:
    from redstring.consolidation.adjudication import Adjudicator, GreyPair, LlmAdjudicator
    from redstring.consolidation.engine import (
        Band,
        MergeDecision,
        PairScore,
        ResolutionPlan,
        resolve,
        resolve_incremental,
        resolve_sync,
    )
    from redstring.consolidation.record_model import TrainedModel

_EXPORTS: dict[str, str] = {
    "Adjudicator": "redstring.consolidation.adjudication",
    "GreyPair": "redstring.consolidation.adjudication",
    "LlmAdjudicator": "redstring.consolidation.adjudication",
    "Band": "redstring.consolidation.engine",
    "MergeDecision": "redstring.consolidation.engine",
    "PairScore": "redstring.consolidation.engine",
    "ResolutionPlan": "redstring.consolidation.engine",
    "resolve": "redstring.consolidation.engine",
    "resolve_incremental": "redstring.consolidation.engine",
    "resolve_sync": "redstring.consolidation.engine",
    "TrainedModel": "redstring.consolidation.record_model",
}

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

__all__ = [
    "Adjudicator",
    "Band",
    "GreyPair",
    "LlmAdjudicator",
    "MergeDecision",
    "PairScore",
    "ResolutionPlan",
    "TrainedModel",
    "resolve",
    "resolve_incremental",
    "resolve_sync",
]
