"""The `redstring` command."""

from __future__ import annotations

import asyncio

import typer
from rich.console import Console
from rich.table import Table

from redstring.composition.retrieval import Retriever
from redstring.domain.entity import Entity
from redstring.domain.ids import derived_entity_id, tenant_id_for
from redstring.domain.normalization import normalize_name
from redstring.domain.retrieval import RetrievalMode
from redstring.domain.vector import VectorRecord
from redstring.embeddings.fake import FakeEmbeddingProvider
from redstring.graph.memory import InMemoryGraphStore
from redstring.vector.memory import InMemoryVectorStore

app = typer.Typer(no_args_is_help=True, help="Documents and records into a knowledge graph.")
console = Console()

_DEMO_ENTITIES = [
    ("Ada Lovelace", "person"),
    ("Charles Babbage", "person"),
    ("Mary Somerville", "person"),
    ("ACME Corporation", "organization"),
    ("Analytical Engine", "artifact"),
]


@app.callback()
def _root() -> None:
    """Keep `redstring` a command group even while it has one command."""


@app.command()
def demo() -> None:
    """Index a few entities in memory and show hybrid retrieval with per-channel scores."""
    asyncio.run(_demo())


async def _demo() -> None:
    tenant = tenant_id_for("demo")
    graph, embeddings = InMemoryGraphStore(), FakeEmbeddingProvider(dimension=384)
    vectors = InMemoryVectorStore(dimension=384)
    entities = [
        Entity(
            id=derived_entity_id(tenant, kind, normalize_name(name)),
            tenant_id=tenant,
            name=name,
            entity_type=kind,
        )
        for name, kind in _DEMO_ENTITIES
    ]
    await graph.upsert_entities(entities, tenant)
    embedded = await embeddings.embed([entity.name for entity in entities])
    await vectors.upsert(
        [
            VectorRecord(entity_id=e.id, vector=v, entity_type=e.entity_type)
            for e, v in zip(entities, embedded, strict=True)
        ],
        tenant,
    )
    retriever = Retriever(embeddings=embeddings, vectors=vectors, graph=graph)
    for query in ("ada lovelace", "Acme Corp", "Babage"):
        result = await retriever.retrieve(query, tenant, k=3, mode=RetrievalMode.HYBRID)
        table = Table(title=f"search: {query!r}")
        for column in ("entity", "type", "fused", "semantic", "lexical"):
            table.add_column(column)
        for match in result.matches:
            table.add_row(
                match.entity.name,
                match.entity.entity_type,
                f"{match.score:.4f}",
                "-" if match.semantic is None else f"{match.semantic:.3f}",
                "-" if match.lexical is None else f"{match.lexical:.3f}",
            )
        console.print(table)


def main() -> None:
    app()
