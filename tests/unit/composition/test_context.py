"""The chunk channel, graph expansion, the context answer and `ask`'s grounding checks."""

from __future__ import annotations

from uuid import uuid4

import pytest

from redstring.composition.answer import NOT_IN_CONTEXT, AnswerDraft, answer_question
from redstring.composition.build_graph import build_graphs
from redstring.composition.context import ContextBuilder, expand
from redstring.composition.retrieval import Retriever
from redstring.composition.workspace import Workspace
from redstring.domain.context import ContextAnswer, estimate_tokens
from redstring.domain.exceptions import InvalidInputError
from redstring.domain.ids import TenantId
from redstring.domain.retrieval import RetrievalMode
from redstring.embeddings.fake import FakeEmbeddingProvider
from redstring.llm.fake import FakeLlmProvider
from redstring.testing.factories import make_relationship

DOCUMENTS = [
    ("a", "Ada Lovelace wrote the first program for the Analytical Engine in London."),
    ("b", "Charles Babbage designed the Difference Engine in Cambridge."),
    ("c", "Grace Hopper built the first compiler in New York."),
]


class World:
    def __init__(self) -> None:
        self.workspace = Workspace.memory(dimension=16)
        self.tenant = TenantId(uuid4())
        self.retriever = Retriever(
            FakeEmbeddingProvider(dimension=16),
            self.workspace.vectors,
            self.workspace.graph,
            self.workspace.chunks,
        )
        self.builder = ContextBuilder(self.retriever, self.workspace.graph, self.workspace.chunks)

    async def fill(self) -> None:
        await build_graphs(
            DOCUMENTS,
            workspace=self.workspace,
            tenant_id=self.tenant,
            embeddings=FakeEmbeddingProvider(dimension=16),
        )
        self.by_name = {e.name: e for e in await self.workspace.graph.list_entities(self.tenant)}


@pytest.fixture
async def world() -> World:
    made = World()
    await made.fill()
    return made


async def test_the_chunk_channel_finds_entities_by_the_text_around_them(world: World) -> None:
    """ "compiler" is no entity's name: only the chunk that says it reaches Grace Hopper."""
    lexical = await world.retriever.retrieve("compiler", world.tenant, mode=RetrievalMode.LEXICAL)
    assert lexical.matches == []
    fused = await world.retriever.retrieve(
        "compiler", world.tenant, mode=RetrievalMode.LEXICAL, passages=True
    )
    assert [m.entity.name for m in fused.matches] == ["Grace Hopper", "New York"]
    assert all(m.passage is not None and m.passage > 0 for m in fused.matches)
    alone = await world.retriever.passages("compiler", world.tenant)
    assert [m.entity.name for m in alone.matches] == ["Grace Hopper", "New York"]


async def test_within_a_chunk_the_entity_the_query_names_comes_first(world: World) -> None:
    found = await world.retriever.passages("designed in Cambridge", world.tenant, k=2)
    assert [m.entity.name for m in found.matches] == ["Cambridge", "Charles Babbage"]


async def test_the_chunk_channel_filters_types_before_k(world: World) -> None:
    """Persons come first in every chunk; asking for one location must still give one."""
    found = await world.retriever.passages("Engine", world.tenant, k=1, entity_types=["Location"])
    assert [m.entity.entity_type for m in found.matches] == ["Location"]


async def test_the_chunk_channel_needs_a_store_and_is_off_by_default(world: World) -> None:
    bare = Retriever(
        FakeEmbeddingProvider(dimension=16), world.workspace.vectors, world.workspace.graph
    )
    with pytest.raises(InvalidInputError, match="chunk store"):
        await bare.retrieve("compiler", world.tenant, passages=True)
    plain = await world.retriever.retrieve("Grace Hopper", world.tenant)
    assert all(m.passage is None for m in plain.matches)
    assert plain == await bare.retrieve("Grace Hopper", world.tenant)


async def test_the_chunk_channel_returns_a_merged_entity_as_its_canonical() -> None:
    from redstring.composition.consolidation import Consolidator

    made = World()
    await build_graphs(
        [("a", "Ada Lovelace wrote programs."), ("b", "Ada Lovelace wrote letters.")],
        workspace=made.workspace,
        tenant_id=made.tenant,
    )
    await Consolidator(made.workspace).consolidate(made.tenant)
    found = await made.retriever.passages("programs letters", made.tenant)
    assert [m.entity.name for m in found.matches] == ["Ada Lovelace"]
    # Each word reaches one chunk alone, so one of them names only the merged-away id:
    # a channel that skipped resolving it would find nothing there.
    for word in ("programs", "letters"):
        alone = await made.retriever.passages(word, made.tenant)
        assert [m.entity.name for m in alone.matches] == ["Ada Lovelace"], word


async def link(world: World) -> None:
    g = world.by_name
    await world.workspace.graph.upsert_relationships(
        [
            make_relationship(g["Grace Hopper"], g["Ada Lovelace"], relationship_type="admired"),
            make_relationship(g["Ada Lovelace"], g["Charles Babbage"], relationship_type="knew"),
            make_relationship(g["Charles Babbage"], g["Cambridge"], relationship_type="lived_in"),
        ],
        world.tenant,
    )


async def test_expansion_is_typed_bounded_and_stops_at_its_hops(world: World) -> None:
    await link(world)
    seed = [world.by_name["Grace Hopper"].id]

    async def names(**options: object) -> list[tuple[str, int]]:
        found = await expand(world.workspace.graph, world.tenant, seed, **options)  # type: ignore[arg-type]
        return [(item.entity.name, item.hops) for item in found]

    assert await names(hops=1, relationship_types=None, limit=10) == [("Ada Lovelace", 1)]
    assert await names(hops=2, relationship_types=None, limit=10) == [
        ("Ada Lovelace", 1),
        ("Charles Babbage", 2),
    ]
    assert await names(hops=2, relationship_types=["knew"], limit=10) == []
    assert await names(hops=2, relationship_types=None, limit=1) == [("Ada Lovelace", 1)]
    with pytest.raises(InvalidInputError, match="hops"):
        await names(hops=3, relationship_types=None, limit=10)


async def test_a_context_holds_entities_their_relationships_and_spanned_chunks(
    world: World,
) -> None:
    await link(world)
    context = await world.builder.context(
        "compiler", world.tenant, hops=1, k=1, mode=RetrievalMode.LEXICAL
    )
    assert [(e.entity.name, e.hops) for e in context.entities] == [
        ("Grace Hopper", 0),
        ("Ada Lovelace", 1),
    ]
    assert [r.relationship_type for r in context.relationships] == ["admired"]
    assert [c.chunk_id for c in context.chunks] == ["c#0", "a#0"]
    documents = dict(DOCUMENTS)
    for chunk in context.chunks:
        assert documents[chunk.source_id][chunk.start : chunk.end] == chunk.text
        names = {e.entity.id: e.entity.name for e in context.entities}
        for mention in chunk.mentions:
            assert (
                documents[chunk.source_id][mention.start : mention.end] == names[mention.entity_id]
            )
    assert context.chunks[0].bm25 is not None
    assert context.chunks[1].bm25 is None  # there through Ada's provenance, not the query
    assert not context.truncated
    assert context.tokens <= context.token_budget


async def test_a_context_stays_within_its_token_budget(world: World) -> None:
    await link(world)
    full = await world.builder.context("engine", world.tenant, hops=2)
    assert len(full.chunks) >= 2
    budget = full.tokens - estimate_tokens(f"[{full.chunks[-1].chunk_id}] {full.chunks[-1].text}")
    cut = await world.builder.context("engine", world.tenant, hops=2, token_budget=budget)
    assert cut.truncated
    assert cut.tokens <= budget
    assert [c.chunk_id for c in cut.chunks] == [c.chunk_id for c in full.chunks[:-1]]
    nothing = await world.builder.context("engine", world.tenant, token_budget=0)
    assert (nothing.entities, nothing.chunks, nothing.tokens) == ([], [], 0)
    with pytest.raises(InvalidInputError):
        await world.builder.context("engine", world.tenant, token_budget=-1)


async def test_ask_answers_from_the_context_and_cites_its_chunks(world: World) -> None:
    context = await world.builder.context("who built the first compiler", world.tenant)
    llm = FakeLlmProvider(
        [AnswerDraft(answerable=True, answer="Grace Hopper.", citations=["[c#0]", "z#9"])]
    )
    answer = await answer_question("who built the first compiler", context, llm)
    assert (answer.answered, answer.answer, answer.citations) == (True, "Grace Hopper.", ["c#0"])
    assert answer.rejected_citations == ["z#9"]
    [call] = llm.calls
    assert "[c#0] Grace Hopper built the first compiler in New York." in call.text


@pytest.mark.parametrize(
    ("draft", "reason"),
    [
        (AnswerDraft(answerable=False), "no answer in the context"),
        (AnswerDraft(answerable=True, answer="Grace Hopper.", citations=["z#9"]), "cited no"),
        (AnswerDraft(answerable=True, answer="Grace Hopper.", citations=[]), "cited no"),
        (AnswerDraft(answerable=True, answer="  ", citations=["c#0"]), "empty answer"),
    ],
)
async def test_ask_says_so_when_the_context_does_not_hold_the_answer(
    world: World, draft: AnswerDraft, reason: str
) -> None:
    """Catches: an uncited answer (the model's own knowledge) passed off as grounded."""
    context = await world.builder.context("who built the first compiler", world.tenant)
    answer = await answer_question("who built it", context, FakeLlmProvider([draft]))
    assert not answer.answered
    assert answer.answer == NOT_IN_CONTEXT
    assert answer.citations == []
    assert answer.reason is not None
    assert reason in answer.reason


async def test_ask_calls_no_model_when_no_chunk_matched(world: World) -> None:
    empty = ContextAnswer(query="zzz", token_budget=100, tokens=0)
    answer = await answer_question("zzz", empty, FakeLlmProvider([]))
    assert not answer.answered
    with pytest.raises(InvalidInputError):
        await answer_question(" ", empty, FakeLlmProvider([]))


async def test_chunk_support_comes_from_the_entity_channels_so_bm25_counts_once() -> None:
    """ "y" holds most of the query's words, "x" the entity the query names. BM25 puts y
    first and the entity channels put x first: fused once each, x wins. Seeding the
    support ranking with the chunk channel on brings y's entities in through BM25 a
    second time, and y wins the tie. Catches: support taken from the context's seeds."""
    made = World()
    filler = [(f"f{i}", f"Nothing to see in Paris number {i}.") for i in range(4)]
    await build_graphs(
        [
            ("x", "Grace Hopper retired."),
            ("y", "Compiler design work in Boston: compiler design work, compiler design."),
            *filler,
        ],
        workspace=made.workspace,
        tenant_id=made.tenant,
    )
    query = "Grace Hopper compiler design work"
    [first, *_] = await made.workspace.chunks.search(query, made.tenant)
    assert first.chunk.chunk_id == "y#0"
    context = await made.builder.context(query, made.tenant, mode=RetrievalMode.LEXICAL, hops=0)
    assert [c.chunk_id for c in context.chunks][:2] == ["x#0", "y#0"]
