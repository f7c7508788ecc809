"""End to end: a document in, a knowledge graph built, a hybrid retrieval out.

Run it with `uv run python docs/examples/end_to_end.py`. It imports nothing but
`redstring` (and `asyncio` to drive it), which a test checks. It uses the
in-memory workspace and the offline extractor, so it needs no file, no model
and no network; `Workspace.open("redstring.db")` is the same on disk.
"""

import asyncio

import redstring as rs

DOCUMENT = (
    "Ada Lovelace published the first algorithm for the Analytical Engine, "
    "a machine designed by Charles Babbage in London. ACME Corporation later "
    "sponsored a replica at the Science Museum."
)


async def main() -> None:
    tenant = rs.tenant_id_for("example")
    workspace = rs.Workspace.memory(dimension=384)
    embeddings = rs.FakeEmbeddingProvider(dimension=384)

    report = await rs.build_graph(
        DOCUMENT,
        workspace=workspace,
        tenant_id=tenant,
        source_id="notes.txt",
        embeddings=embeddings,
    )
    print(f"built: {report.entities} entities, {report.embedded} embedded")

    retriever = rs.Retriever(
        embeddings=embeddings, vectors=workspace.vectors, graph=workspace.graph
    )
    for query in ("Ada Lovelace", "Acme Corp"):
        result = await retriever.retrieve(query, tenant, k=3)
        for match in result.matches:
            print(
                f"{query!r}: {match.entity.name} ({match.entity.entity_type}) "
                f"score={match.score:.4f} semantic={match.semantic} lexical={match.lexical}"
            )


if __name__ == "__main__":
    asyncio.run(main())
