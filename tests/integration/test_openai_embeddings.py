"""OpenAIEmbeddingProvider against a real HTTP server on 127.0.0.1 speaking /v1/embeddings."""

from __future__ import annotations

import json
import socket
from typing import TYPE_CHECKING, Any

import pytest

from redstring.domain.exceptions import (
    DimensionMismatchError,
    InvalidInputError,
    MalformedOutputError,
    ProviderUnavailableError,
)
from redstring.embeddings.openai_compat import OpenAIEmbeddingProvider
from tests.support.openai_server import (
    Delay,
    EmbeddingsServer,
    Fail,
    Raw,
    Shuffle,
    WrongDimension,
    vector_for,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterator

    from redstring.ports.embedding import EmbeddingProvider

DIM = 8
TEXTS = ["Ada Lovelace", "Charles Babbage", "Analytical Engine", "Countess of Lovelace"]


@pytest.fixture
def server() -> Iterator[EmbeddingsServer]:
    with EmbeddingsServer(dimension=DIM) as s:
        yield s


@pytest.fixture
async def make(server: EmbeddingsServer) -> AsyncIterator[Callable[..., OpenAIEmbeddingProvider]]:
    made: list[OpenAIEmbeddingProvider] = []

    def factory(**overrides: Any) -> OpenAIEmbeddingProvider:
        settings: dict[str, Any] = {
            "base_url": server.base_url,
            "model": "test-embed",
            "dimension": DIM,
            "timeout": 5.0,
            "max_retries": 2,
        }
        settings.update(overrides)
        provider = OpenAIEmbeddingProvider(**settings)
        made.append(provider)
        return provider

    yield factory
    for provider in made:
        await provider.aclose()


def _expected(texts: list[str]) -> list[list[float]]:
    return [vector_for(t, DIM) for t in texts]


def test_satisfies_the_port(make: Callable[..., OpenAIEmbeddingProvider]) -> None:
    """Catches: a signature drifting from EmbeddingProvider (mypy checks the assignment)."""
    provider: EmbeddingProvider = make()
    assert provider.dimension == DIM
    assert provider.model_name == "test-embed"


async def test_embeds_and_sends_the_documented_request(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: base64 left as the SDK default, a stray `dimensions` field, lost texts."""
    vectors = await make().embed(TEXTS)
    assert vectors == _expected(TEXTS)
    (request,) = server.requests
    assert request.path == "/v1/embeddings"
    assert request.body["model"] == "test-embed"
    assert request.body["input"] == TEXTS
    assert request.body["encoding_format"] == "float"
    assert "dimensions" not in request.body


async def test_items_listed_out_of_order_come_back_in_input_order(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: trusting the response's list order instead of each item's `index`."""
    server.script.append(Shuffle())
    assert await make().embed(TEXTS) == _expected(TEXTS)


async def test_batches_preserve_order_across_requests(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: concurrent batches concatenated in completion order, or texts dropped."""
    texts = [f"text number {i}" for i in range(8)]
    server.script += [Delay(0.3), Shuffle()]  # first to arrive answers last
    vectors = await make(batch_size=3, max_concurrency=3).embed(texts)
    assert vectors == _expected(texts)
    assert sorted(len(r.body["input"]) for r in server.requests) == [2, 3, 3]


async def test_empty_input_sends_nothing(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: an empty request (which servers reject) for an empty batch."""
    assert await make().embed([]) == []
    assert await make().embed_query([]) == []
    assert server.requests == []


async def test_embed_query_is_embed(make: Callable[..., OpenAIEmbeddingProvider]) -> None:
    """Catches: query and document vectors diverging for a symmetric endpoint."""
    provider = make()
    assert await provider.embed_query(TEXTS[:2]) == await provider.embed(TEXTS[:2])


async def test_wrong_dimension_is_a_dimension_mismatch(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: storing vectors of the wrong length, corrupting a vector index."""
    server.script.append(WrongDimension(DIM - 1))
    with pytest.raises(DimensionMismatchError) as caught:
        await make().embed(TEXTS)
    assert (caught.value.expected, caught.value.actual) == (DIM, DIM - 1)


async def test_server_error_then_success_is_retried(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: a single transient 500 failing the whole ingest."""
    server.script.append(Fail(500, retry_after="0.01"))
    assert await make().embed(TEXTS) == _expected(TEXTS)
    assert len(server.requests) == 2


async def test_rate_limit_waits_for_retry_after(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: hammering a rate-limited server instead of waiting as it asked."""
    server.script.append(Fail(429, retry_after="0.4", message="Rate limit reached"))
    assert await make().embed(TEXTS) == _expected(TEXTS)
    first, second = server.requests
    assert second.at - first.at >= 0.38


async def test_persistent_failure_stops_after_bounded_retries(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: retrying forever, or a raw SDK exception escaping the adapter."""
    server.script += [Fail(503, retry_after="0.01")] * 5
    with pytest.raises(ProviderUnavailableError, match=r"HTTP 503 after 2 attempt"):
        await make(max_retries=1).embed(TEXTS)
    assert len(server.requests) == 2


async def test_timeout_is_provider_unavailable(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: a hung server hanging the caller (no timeout passed to the client)."""
    server.script.append(Delay(2.0))
    with pytest.raises(ProviderUnavailableError, match="timed out"):
        await make(timeout=0.3, max_retries=0).embed(TEXTS)


async def test_unreachable_endpoint_is_provider_unavailable() -> None:
    """Catches: a connection error escaping as an SDK type callers cannot catch generically."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again before use: nothing listens there
    async with OpenAIEmbeddingProvider(
        base_url=f"http://127.0.0.1:{port}/v1", model="m", dimension=DIM, max_retries=0
    ) as provider:
        with pytest.raises(ProviderUnavailableError, match="unreachable"):
            await provider.embed(TEXTS)


async def test_rejected_input_is_invalid_input_and_not_retried(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: retrying a 400 (it will never succeed), or hiding the server's reason."""
    with pytest.raises(InvalidInputError, match="empty string"):
        await make().embed(["fine", ""])
    assert len(server.requests) == 1


async def test_bad_credentials_name_the_setting(
    make: Callable[..., OpenAIEmbeddingProvider],
) -> None:
    """Catches: a 401 reported as a generic failure with no hint where the key comes from."""
    with EmbeddingsServer(dimension=DIM, api_key="right") as guarded:
        provider = make(base_url=guarded.base_url, api_key="wrong")
        with pytest.raises(ProviderUnavailableError, match="REDSTRING_EMBEDDINGS_API_KEY"):
            await provider.embed(TEXTS)
        assert len(guarded.requests) == 1
        ok = make(base_url=guarded.base_url, api_key="right")
        assert await ok.embed(TEXTS[:1]) == _expected(TEXTS[:1])
        assert guarded.requests[-1].headers["authorization"] == "Bearer right"


async def test_configuration_from_environment(
    server: EmbeddingsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Catches: the documented REDSTRING_EMBEDDINGS_* variables being ignored."""
    monkeypatch.setenv("REDSTRING_EMBEDDINGS_BASE_URL", server.base_url)
    monkeypatch.setenv("REDSTRING_EMBEDDINGS_MODEL", "env-model")
    monkeypatch.setenv("REDSTRING_EMBEDDINGS_DIMENSION", str(DIM))
    monkeypatch.setenv("REDSTRING_EMBEDDINGS_API_KEY", "from-env")
    async with OpenAIEmbeddingProvider() as provider:
        assert (provider.model_name, provider.dimension) == ("env-model", DIM)
        await provider.embed(TEXTS[:1])
    (request,) = server.requests
    assert request.body["model"] == "env-model"
    assert request.headers["authorization"] == "Bearer from-env"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({}, "REDSTRING_EMBEDDINGS_BASE_URL"),
        ({"REDSTRING_EMBEDDINGS_BASE_URL": "http://x/v1"}, "REDSTRING_EMBEDDINGS_MODEL"),
        (
            {"REDSTRING_EMBEDDINGS_BASE_URL": "http://x/v1", "REDSTRING_EMBEDDINGS_MODEL": "m"},
            "REDSTRING_EMBEDDINGS_DIMENSION",
        ),
        (
            {
                "REDSTRING_EMBEDDINGS_BASE_URL": "http://x/v1",
                "REDSTRING_EMBEDDINGS_MODEL": "m",
                "REDSTRING_EMBEDDINGS_DIMENSION": "large",
            },
            "not an integer",
        ),
    ],
)
def test_missing_configuration_is_a_typed_error(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    """Catches: a half-configured provider failing later with an opaque SDK error."""
    for name in ("BASE_URL", "MODEL", "DIMENSION", "API_KEY"):
        monkeypatch.delenv(f"REDSTRING_EMBEDDINGS_{name}", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(InvalidInputError, match=message):
        OpenAIEmbeddingProvider()


async def test_send_dimensions_asks_for_the_declared_length(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: the opt-in `dimensions` field not reaching the server."""
    await make(send_dimensions=True).embed(TEXTS[:1])
    assert server.requests[0].body["dimensions"] == DIM


def _body(items: list[dict[str, Any]]) -> bytes:
    return json.dumps({"object": "list", "data": items, "model": "m"}).encode()


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (_body([{"object": "embedding", "index": 0, "embedding": [0.0] * DIM}]), "1 embeddings"),
        (
            _body([{"object": "embedding", "index": 0, "embedding": [0.0] * DIM}] * 2),
            "index 0 twice",
        ),
        (
            _body(
                [
                    {"object": "embedding", "index": 0, "embedding": [0.0] * DIM},
                    {"object": "embedding", "index": 5, "embedding": [0.0] * DIM},
                ]
            ),
            "index 5",
        ),
        (b'{"object": "list", "model": "m"}', "no embeddings"),
    ],
    ids=["too-few", "duplicate-index", "index-out-of-range", "no-data"],
)
async def test_malformed_response_is_a_typed_error(
    server: EmbeddingsServer,
    make: Callable[..., OpenAIEmbeddingProvider],
    reply: bytes,
    message: str,
) -> None:
    """Catches: a short or garbled response silently misaligning vectors with texts."""
    server.script.append(Raw(reply))
    with pytest.raises(MalformedOutputError, match=message):
        await make().embed(TEXTS[:2])


async def test_usage_counts_reported_tokens_and_calls(
    make: Callable[..., OpenAIEmbeddingProvider],
) -> None:
    """Catches: token accounting lost for embedding calls."""
    provider = make(batch_size=2)
    await provider.embed(TEXTS)
    assert provider.usage.calls == 2
    assert provider.usage.prompt_tokens == sum(len(t.split()) for t in TEXTS)


async def test_one_string_instead_of_a_list_is_rejected(
    server: EmbeddingsServer, make: Callable[..., OpenAIEmbeddingProvider]
) -> None:
    """Catches: a bare str batched as characters, one vector per letter."""
    with pytest.raises(InvalidInputError, match="not one string"):
        await make().embed("Ada Lovelace")
    assert server.requests == []
