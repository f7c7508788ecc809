"""A document whose chunks partly fail keeps what worked; a rerun pays only for the rest."""

from __future__ import annotations

from uuid import uuid4

import pytest

from redstring.composition.build_graph import build_graph
from redstring.composition.workspace import Workspace
from redstring.domain.exceptions import (
    MalformedOutputError,
    ProviderUnavailableError,
    RefusalError,
)
from redstring.domain.ids import TenantId
from redstring.events.base import decode
from redstring.events.ingest import ChunkExtracted, DocumentExtracted, ExtractionFailed
from redstring.events.streams import document_stream
from redstring.extraction.chunking import chunk_text
from redstring.llm.fake import FakeAnswer, FakeLlmProvider

#: Three paragraphs, one person each; with CHUNK=60 each is its own chunk.
TEXT = (
    "Ada Lovelace wrote the first program.\n\n"
    "Charles Babbage designed the engine.\n\n"
    "Grace Hopper built a compiler later."
)
CHUNK, OVERLAP = 60, 0
PEOPLE = ("Ada Lovelace", "Charles Babbage", "Grace Hopper")


def person_in(text: str) -> dict[str, object]:
    [name] = [p for p in PEOPLE if p in text]
    return {"entities": [{"name": name, "type": "Person"}], "relationships": []}


def scripted(failing: dict[str, BaseException]) -> FakeLlmProvider:
    """Answers every chunk with its person, except chunks naming a key of `failing`."""

    def answer(text: str, _schema: object) -> FakeAnswer:
        for name, error in failing.items():
            if name in text:
                return error
        return person_in(text)

    return FakeLlmProvider(answer)


async def ingest(workspace: Workspace, tenant: TenantId, provider: FakeLlmProvider) -> object:
    return await build_graph(
        TEXT,
        workspace=workspace,
        tenant_id=tenant,
        source_id="doc",
        provider=provider,
        chunk_size=CHUNK,
        chunk_overlap=OVERLAP,
    )


async def stream_events(workspace: Workspace, tenant: TenantId) -> list[object]:
    recorded = await workspace.log.read_stream(document_stream(tenant, "doc"), tenant)
    return [decode(r) for r in recorded]


@pytest.fixture
def workspace() -> Workspace:
    return Workspace.memory(dimension=384)


def test_the_text_is_three_chunks() -> None:
    assert [c.text.strip() for c in chunk_text(TEXT, CHUNK, OVERLAP)] == TEXT.split("\n\n")


async def test_a_failed_chunk_keeps_the_others_and_a_rerun_asks_only_for_it(
    workspace: Workspace,
) -> None:
    tenant = TenantId(uuid4())
    first = scripted({"Charles Babbage": MalformedOutputError("not json")})
    report = await ingest(workspace, tenant, first)
    assert not report.ok  # type: ignore[attr-defined]
    assert (report.failed_chunks, report.total_chunks) == (1, 3)  # type: ignore[attr-defined]
    assert "chunk 1" in (report.error or "")  # type: ignore[attr-defined]
    # Incomplete: nothing reaches the graph, the answers that worked are in the log.
    assert await workspace.graph.count_entities(tenant) == 0
    events = await stream_events(workspace, tenant)
    kept = [e for e in events if isinstance(e, ChunkExtracted)]
    assert [e.chunk_index for e in kept] == [0, 2]
    assert [type(e) for e in events][-1] is ExtractionFailed
    failed = events[-1]
    assert isinstance(failed, ExtractionFailed)
    assert failed.failed_chunks == [1]
    assert not any(isinstance(e, DocumentExtracted) for e in events)

    second = scripted({})
    rerun = await ingest(workspace, tenant, second)
    assert rerun.ok  # type: ignore[attr-defined]
    assert [c.text.strip() for c in second.calls] == [TEXT.split("\n\n")[1]]
    names = sorted(e.name for e in await workspace.graph.list_entities(tenant))
    assert names == sorted(PEOPLE)
    # Complete now: a third run is skipped as unchanged and calls nothing.
    third = scripted({})
    again = await ingest(workspace, tenant, third)
    assert again.unchanged  # type: ignore[attr-defined]
    assert third.calls == []


async def test_an_endpoint_that_is_down_is_not_asked_again_for_later_chunks(
    workspace: Workspace,
) -> None:
    tenant = TenantId(uuid4())
    down = scripted({"Charles Babbage": ProviderUnavailableError("connection refused")})
    report = await ingest(workspace, tenant, down)
    assert report.failed_chunks == 2  # type: ignore[attr-defined]
    assert len(down.calls) == 2  # chunk 0 answered, chunk 1 down, chunk 2 never sent
    rerun = scripted({})
    assert (await ingest(workspace, tenant, rerun)).ok  # type: ignore[attr-defined]
    assert len(rerun.calls) == 2


async def test_a_refused_chunk_fails_alone_and_the_next_chunk_is_still_asked(
    workspace: Workspace,
) -> None:
    tenant = TenantId(uuid4())
    provider = scripted({"Ada Lovelace": RefusalError("no")})
    report = await ingest(workspace, tenant, provider)
    assert report.failed_chunks == 1  # type: ignore[attr-defined]
    assert len(provider.calls) == 3


async def test_kept_answers_are_not_reused_for_a_changed_text_or_another_model(
    workspace: Workspace,
) -> None:
    tenant = TenantId(uuid4())
    await ingest(workspace, tenant, scripted({"Grace Hopper": MalformedOutputError("x")}))
    other_model = FakeLlmProvider(lambda text, _: person_in(text), model_name="another-model")
    assert (await ingest(workspace, tenant, other_model)).ok  # type: ignore[attr-defined]
    assert len(other_model.calls) == 3
    await build_graph(
        TEXT + " Then she retired.",
        workspace=workspace,
        tenant_id=tenant,
        source_id="other",
        provider=scripted({"Grace Hopper": MalformedOutputError("x")}),
        chunk_size=CHUNK,
        chunk_overlap=OVERLAP,
    )
    changed = scripted({})
    report = await build_graph(
        TEXT + " Then she left.",
        workspace=workspace,
        tenant_id=tenant,
        source_id="other",
        provider=changed,
        chunk_size=CHUNK,
        chunk_overlap=OVERLAP,
    )
    assert report.ok
    assert len(changed.calls) == 3


async def test_tokens_of_every_run_are_recorded_on_the_document_stream(
    workspace: Workspace,
) -> None:
    tenant = TenantId(uuid4())
    first = scripted({"Charles Babbage": MalformedOutputError("x")})
    await ingest(workspace, tenant, first)
    second = scripted({})
    await ingest(workspace, tenant, second)
    events = await stream_events(workspace, tenant)
    recorded = [e.tokens for e in events if isinstance(e, ChunkExtracted | ExtractionFailed)]
    recorded += [e.tokens for e in events if isinstance(e, DocumentExtracted)]
    assert sum(t.calls for t in recorded) == len(first.calls) + len(second.calls) == 4
    paid = first.usage + second.usage
    assert sum(t.total_tokens for t in recorded) == paid.total_tokens > 0
