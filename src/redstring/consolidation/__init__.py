"""Entity resolution: candidates, scores, clusters and merge plans (pure logic + ports).

The composition layer turns a `ResolutionPlan` into `EntitiesMerged` events.
"""

from redstring.consolidation.adjudication import Adjudicator, GreyPair, LlmAdjudicator
from redstring.consolidation.engine import (
    MergeDecision,
    PairScore,
    ResolutionPlan,
    resolve,
    resolve_incremental,
    resolve_sync,
)
from redstring.consolidation.scoring import Band, MatchModel

__all__ = [
    "Adjudicator",
    "Band",
    "GreyPair",
    "LlmAdjudicator",
    "MatchModel",
    "MergeDecision",
    "PairScore",
    "ResolutionPlan",
    "resolve",
    "resolve_incremental",
    "resolve_sync",
]
