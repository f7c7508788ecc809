"""Entity resolution: field kinds, trained models, clusters and merge plans (pure logic + ports).

The composition layer turns a `ResolutionPlan` into `EntitiesMerged` events.
"""

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
