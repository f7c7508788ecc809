"""Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint.

OpenAI itself, vLLM, llama.cpp's server, Ollama, text-embeddings-inference: all
accept the same request. The official `openai` SDK does the HTTP, including
bounded retries with backoff on 408/409/429/5xx and connection errors, honouring
a server's Retry-After. This adapter adds what the port promises and servers do
not: vectors come back in input order whatever order the response lists them
in, every vector has the declared dimension, and failures surface as redstring's
typed errors instead of SDK exceptions.

Configuration comes from arguments, else from the environment:

    REDSTRING_EMBEDDINGS_BASE_URL   e.g. http://127.0.0.1:8000/v1 (required)
    REDSTRING_EMBEDDINGS_MODEL      model name the server knows (required)
    REDSTRING_EMBEDDINGS_DIMENSION  length of its vectors (required)
    REDSTRING_EMBEDDINGS_API_KEY    bearer token (optional; local servers rarely need one)

There is no default endpoint, so documents are never sent to a cloud service
unless someone configured one.
"""

from __future__ import annotations

import asyncio
import math
import os
from typing import TYPE_CHECKING, Any

import openai
from openai import AsyncOpenAI

from redstring.domain.exceptions import (
    DimensionMismatchError,
    InvalidInputError,
    MalformedOutputError,
    ProviderUnavailableError,
)
from redstring.domain.usage import TokenUsage

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import TracebackType

ENV_BASE_URL = "REDSTRING_EMBEDDINGS_BASE_URL"
ENV_API_KEY = "REDSTRING_EMBEDDINGS_API_KEY"
ENV_MODEL = "REDSTRING_EMBEDDINGS_MODEL"
ENV_DIMENSION = "REDSTRING_EMBEDDINGS_DIMENSION"

# The SDK insists on a key; servers that need none ignore whatever is sent.
_NO_KEY = "no-key"


def _setting(value: str | None, env: str) -> str | None:
    if value is not None:
        return value
    found = os.environ.get(env, "").strip()
    return found or None


class OpenAIEmbeddingProvider:
    """`EmbeddingProvider` over HTTP. Symmetric: `embed_query` sends the same request.

    Texts are sent `batch_size` per request, at most `max_concurrency` requests at
    a time. Each request gets `timeout` seconds per attempt and `max_retries`
    further attempts on transient failures; after that the call raises
    `ProviderUnavailableError`. Use as an async context manager, or call
    `aclose()`, to release the connection pool.
    """

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        dimension: int | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        batch_size: int = 128,
        max_concurrency: int = 4,
        send_dimensions: bool = False,
    ) -> None:
        """`send_dimensions` asks the server to shorten vectors to `dimension`
        (OpenAI's text-embedding-3 models); most other servers reject the field."""
        url = _setting(base_url, ENV_BASE_URL)
        model_name = _setting(model, ENV_MODEL)
        if url is None:
            raise InvalidInputError(f"no embeddings endpoint: pass base_url or set {ENV_BASE_URL}")
        if model_name is None:
            raise InvalidInputError(f"no embeddings model: pass model or set {ENV_MODEL}")
        if dimension is None:
            raw = _setting(None, ENV_DIMENSION)
            if raw is None:
                raise InvalidInputError(
                    f"no embedding dimension: pass dimension or set {ENV_DIMENSION}"
                )
            try:
                dimension = int(raw)
            except ValueError:
                raise InvalidInputError(f"{ENV_DIMENSION}={raw!r} is not an integer") from None
        if dimension < 1:
            raise InvalidInputError(f"dimension must be positive, got {dimension}")
        if not (timeout > 0 and math.isfinite(timeout)):
            raise InvalidInputError(f"timeout must be a positive number of seconds, got {timeout}")
        if max_retries < 0:
            raise InvalidInputError(f"max_retries must be 0 or more, got {max_retries}")
        if batch_size < 1 or max_concurrency < 1:
            raise InvalidInputError("batch_size and max_concurrency must be at least 1")
        self._base_url = url
        self._model = model_name
        self._dimension = dimension
        self._batch_size = batch_size
        self._send_dimensions = send_dimensions
        self._max_retries = max_retries
        self._max_concurrency = max_concurrency
        self._usage = TokenUsage()
        self._client = AsyncOpenAI(
            base_url=url,
            api_key=_setting(api_key, ENV_API_KEY) or _NO_KEY,
            timeout=timeout,
            max_retries=max_retries,
        )

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def model_name(self) -> str:
        return self._model

    @property
    def usage(self) -> TokenUsage:
        """Prompt tokens the server reported, and successful requests, so far."""
        return self._usage

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise InvalidInputError("texts must be a sequence of strings, not one string")
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise InvalidInputError(f"texts[{i}] is {type(text).__name__}, not str")
        batches = [
            list(texts[start : start + self._batch_size])
            for start in range(0, len(texts), self._batch_size)
        ]
        # Made per call: a semaphore binds to the event loop that first waits on it.
        semaphore = asyncio.Semaphore(self._max_concurrency)
        results = await asyncio.gather(*(self._embed_batch(b, semaphore) for b in batches))
        return [vector for batch_vectors in results for vector in batch_vectors]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.embed(texts)

    async def aclose(self) -> None:
        await self._client.close()

    async def __aenter__(self) -> OpenAIEmbeddingProvider:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _embed_batch(
        self, batch: list[str], semaphore: asyncio.Semaphore
    ) -> list[list[float]]:
        extra: dict[str, Any] = {"dimensions": self._dimension} if self._send_dimensions else {}
        where = f"embeddings endpoint {self._base_url} (model {self._model})"
        async with semaphore:
            try:
                response = await self._client.embeddings.create(
                    input=batch, model=self._model, encoding_format="float", **extra
                )
            except openai.APITimeoutError as e:
                raise ProviderUnavailableError(
                    f"{where} timed out, {self._max_retries + 1} attempt(s)"
                ) from e
            except openai.APIConnectionError as e:
                raise ProviderUnavailableError(
                    f"{where} unreachable after {self._max_retries + 1} attempt(s): {e}"
                ) from e
            except (openai.BadRequestError, openai.UnprocessableEntityError) as e:
                raise InvalidInputError(f"{where} rejected the input: {_message(e)}") from e
            except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
                raise ProviderUnavailableError(
                    f"{where} refused the credentials (HTTP {e.status_code}): {_message(e)}; "
                    f"check {ENV_API_KEY}"
                ) from e
            except openai.APIStatusError as e:
                raise ProviderUnavailableError(
                    f"{where} answered HTTP {e.status_code} "
                    f"after {self._max_retries + 1} attempt(s): {_message(e)}"
                ) from e
            except openai.APIResponseValidationError as e:
                raise MalformedOutputError(f"{where} sent an unreadable response: {e}") from e
        return self._in_order(response, len(batch), where)

    def _in_order(self, response: Any, expected: int, where: str) -> list[list[float]]:
        """The response's vectors, placed by their `index`, each checked."""
        data = getattr(response, "data", None)
        if not isinstance(data, list) or len(data) != expected:
            got = len(data) if isinstance(data, list) else "no"
            raise MalformedOutputError(f"{where} returned {got} embeddings for {expected} texts")
        vectors: list[list[float] | None] = [None] * expected
        for item in data:
            index = getattr(item, "index", None)
            if not isinstance(index, int) or not 0 <= index < expected:
                raise MalformedOutputError(f"{where} returned an item with index {index!r}")
            if vectors[index] is not None:
                raise MalformedOutputError(f"{where} returned index {index} twice")
            embedding = getattr(item, "embedding", None)
            if not isinstance(embedding, list) or not all(
                isinstance(x, int | float) and not isinstance(x, bool) for x in embedding
            ):
                raise MalformedOutputError(f"{where}: embedding {index} is not a list of numbers")
            if len(embedding) != self._dimension:
                raise DimensionMismatchError(
                    self._dimension, len(embedding), what=f"embedding {index} from {where}"
                )
            vectors[index] = [float(x) for x in embedding]
        usage = getattr(response, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", 0)
        self._usage = self._usage + TokenUsage(
            prompt_tokens=prompt_tokens if isinstance(prompt_tokens, int) else 0, calls=1
        )
        return [v for v in vectors if v is not None]


def _message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return str(error.message)
