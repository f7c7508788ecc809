"""End to end on the in-memory adapters: entities in, a hybrid retrieval out.

Run it with `uv run python docs/examples/end_to_end.py`. It imports nothing but
`redstring` (and `asyncio` to drive it), which a test checks.
"""

import asyncio

import redstring as rs


async def main() -> None:
    tenant = rs.tenant_id_for("example")
    graph = rs.InMemoryGraphStore()
    embeddings = rs.FakeEmbeddingProvider(dimension=384)
    vectors = rs.InMemoryVectorStore(dimension=embeddings.dimension)

    names = [
        ("Ada Lovelace", "person"),
        ("Charles Babbage", "person"),
        ("ACME Corporation", "organization"),
    ]
    entities = [
        rs.Entity(
            id=rs.derived_entity_id(tenant, entity_type, rs.normalize_name(name)),
            tenant_id=tenant,
            name=name,
            entity_type=entity_type,
        )
        for name, entity_type in names
    ]
    await graph.upsert_entities(entities, tenant)
    vectors_of = await embeddings.embed([entity.name for entity in entities])
    await vectors.upsert(
        [
            rs.VectorRecord(entity_id=entity.id, vector=vector, entity_type=entity.entity_type)
            for entity, vector in zip(entities, vectors_of, strict=True)
        ],
        tenant,
    )

    retriever = rs.Retriever(embeddings=embeddings, vectors=vectors, graph=graph)
    for query in ("Ada Lovelace", "Acme Corp"):
        result = await retriever.retrieve(query, tenant, k=3)
        for match in result.matches:
            print(
                f"{query!r}: {match.entity.name} score={match.score:.4f} "
                f"semantic={match.semantic} lexical={match.lexical}"
            )


if __name__ == "__main__":
    asyncio.run(main())
