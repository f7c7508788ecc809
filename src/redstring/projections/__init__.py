"""Projections: fold the event log, in position order, into stores given by port."""

from redstring.projections.base import FreshEvents, Projection
from redstring.projections.checkpoints import (
    CheckpointStore,
    InMemoryCheckpointStore,
    SqliteCheckpointStore,
)
from redstring.projections.chunks import ChunkProjection
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import replay, tenants_in_log
from redstring.projections.vector import VectorProjection

__all__ = [
    "CheckpointStore",
    "ChunkProjection",
    "FreshEvents",
    "GraphProjection",
    "InMemoryCheckpointStore",
    "Projection",
    "SqliteCheckpointStore",
    "VectorProjection",
    "replay",
    "tenants_in_log",
]
