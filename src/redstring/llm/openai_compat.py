"""`LlmProvider` for any OpenAI-compatible chat-completions endpoint.

Works against OpenAI itself, vLLM, llama.cpp's server and Ollama through the
official `openai` SDK pointed at a `base_url`. Each call sends the pydantic
schema as a JSON-schema `response_format`, so servers with guided decoding
return schema-shaped JSON; servers that only know `{"type": "json_object"}`
get that instead, with the schema spelled out in the system prompt; and
`json_object_schema` sends `{"type": "json_object", "schema": ...}`, the form
llama-cpp-python's server compiles into a grammar; `prompt` sends no
`response_format` at all (the schema in the prompt, the answer validated and
repaired), for servers with no structured output; `grammar` sends llama.cpp's
`grammar` field instead, the schema compiled by redstring into a compact GBNF
(`llm.gbnf`: single optional spaces, where llama.cpp's own compiler lets a small
model ramble through newlines and indentation).

Configuration: an argument wins; otherwise the environment variable; otherwise
the default.

| argument           | environment variable           | default                       |
|--------------------|--------------------------------|-------------------------------|
| `base_url`         | `REDSTRING_LLM_BASE_URL`       | `https://api.openai.com/v1`   |
| `api_key`          | `REDSTRING_LLM_API_KEY`        | `"unused"` (local servers)    |
| `model`            | `REDSTRING_LLM_MODEL`          | required                      |
| `timeout`          | `REDSTRING_LLM_TIMEOUT`        | `60` seconds per attempt      |
| `max_retries`      | `REDSTRING_LLM_MAX_RETRIES`    | `3` retries after the first   |
| `concurrency`      | `REDSTRING_LLM_CONCURRENCY`    | `4` requests in flight        |
| `response_format`  | `REDSTRING_LLM_RESPONSE_FORMAT`| `json_schema` (see above)     |
| `repair_attempts`  | `REDSTRING_LLM_REPAIR_ATTEMPTS`| `1` re-ask after an unusable answer |
| `max_tokens`       | `REDSTRING_LLM_MAX_TOKENS`     | none (the server's limit)     |
| `system_role`      | `REDSTRING_LLM_SYSTEM_ROLE`    | `system` (`user`: in the turn) |

Retries are redstring's, not the SDK's (the SDK's are switched off), so there
is one bounded policy: timeouts, connection failures, 408, 409, 429 and 5xx are
retried with exponential backoff; a 429 or 503 carrying `retry-after` waits
that long instead (capped at `max_backoff`). Other 4xx answers (bad key, unknown
model, a server that rejects `json_schema`) are not retried: repeating them
cannot help. Both end in `ProviderUnavailableError`.

An answer that arrives but is empty or malformed (not JSON, or JSON the schema
rejects, e.g. cut off at `max_tokens`) is re-asked `repair_attempts` times: the
conversation is sent again with the bad answer and what was wrong with it, and
a request for the corrected JSON only. Small local models often fix a missing
field or a stray sentence when told. If the last answer is still unusable the
port reports `EmptyOutputError` or `MalformedOutputError`; a declared refusal
(`refusal` set) is `RefusalError` at once: asking again would not change it.
Tokens of unusable answers still count in `usage`: they were paid.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import openai
from pydantic import BaseModel

from redstring.domain.exceptions import (
    EmptyOutputError,
    InvalidInputError,
    MalformedOutputError,
    ProviderUnavailableError,
    RefusalError,
)
from redstring.domain.usage import TokenUsage
from redstring.llm.gbnf import compact_grammar
from redstring.llm.validation import json_schema_for, validate_text

if TYPE_CHECKING:
    from collections.abc import Mapping

    from openai.types.chat import ChatCompletion

SchemaT = TypeVar("SchemaT", bound=BaseModel)

ResponseFormat = Literal["json_schema", "json_object", "json_object_schema", "grammar", "prompt"]
RESPONSE_FORMATS: tuple[ResponseFormat, ...] = (
    "json_schema",
    "json_object",
    "json_object_schema",
    "grammar",
    "prompt",
)

ENV_BASE_URL = "REDSTRING_LLM_BASE_URL"
ENV_API_KEY = "REDSTRING_LLM_API_KEY"
ENV_MODEL = "REDSTRING_LLM_MODEL"
ENV_TIMEOUT = "REDSTRING_LLM_TIMEOUT"
ENV_MAX_RETRIES = "REDSTRING_LLM_MAX_RETRIES"
ENV_CONCURRENCY = "REDSTRING_LLM_CONCURRENCY"
ENV_RESPONSE_FORMAT = "REDSTRING_LLM_RESPONSE_FORMAT"
ENV_REPAIR_ATTEMPTS = "REDSTRING_LLM_REPAIR_ATTEMPTS"
ENV_MAX_TOKENS = "REDSTRING_LLM_MAX_TOKENS"
ENV_SYSTEM_ROLE = "REDSTRING_LLM_SYSTEM_ROLE"

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: The SDK refuses to start without a key; local servers ignore whatever is sent.
PLACEHOLDER_API_KEY = "unused"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_RETRIES = 3
DEFAULT_CONCURRENCY = 4
DEFAULT_REPAIR_ATTEMPTS = 1

#: The follow-up turn after an unusable answer; `{problem}` says what was wrong.
REPAIR_REQUEST = (
    "That answer cannot be used: {problem}. Answer again with only the corrected "
    "JSON object that matches the schema: no prose, no markdown."
)

DEFAULT_INSTRUCTIONS = (
    "Extract the requested information from the user's text. "
    "Answer with a single JSON object that matches the given schema and nothing else."
)

_RETRYABLE_STATUS = frozenset({408, 409, 429})


def _retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds from a `retry-after` header (delta-seconds form), or `None`.

    The HTTP-date form is ignored: rate limiters of chat endpoints send seconds,
    and a clock-skewed date would make a wait meaningless.
    """
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def _env_or(
    value: Any, env: Mapping[str, str], name: str, parse: type[int] | type[float] | type[str]
) -> Any:
    if value is not None:
        return value
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return None
    try:
        return parse(raw.strip())
    except ValueError as exc:
        raise InvalidInputError(f"{name}={raw!r} is not a valid {parse.__name__}") from exc


class OpenAICompatibleProvider:
    """Structured extraction over an OpenAI-compatible `/chat/completions` endpoint.

    One provider holds one HTTP client and one concurrency limit. Both belong to
    the event loop that first uses them; a call from a different loop (a CLI
    calling `asyncio.run` twice) gets fresh ones rather than a client bound to a
    closed loop.
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        concurrency: int | None = None,
        response_format: ResponseFormat | None = None,
        repair_attempts: int | None = None,
        system_role: Literal["system", "user"] | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        backoff_base: float = 0.5,
        max_backoff: float = 30.0,
        env: Mapping[str, str] | None = None,
    ) -> None:
        environ: Mapping[str, str] = os.environ if env is None else env
        resolved_model = _env_or(model, environ, ENV_MODEL, str)
        if not resolved_model:
            raise InvalidInputError(f"no model configured: pass model=... or set {ENV_MODEL}")
        self._model: str = resolved_model
        self._base_url: str = _env_or(base_url, environ, ENV_BASE_URL, str) or DEFAULT_BASE_URL
        self._api_key: str = _env_or(api_key, environ, ENV_API_KEY, str) or PLACEHOLDER_API_KEY
        resolved_timeout = _env_or(timeout, environ, ENV_TIMEOUT, float)
        self._timeout: float = DEFAULT_TIMEOUT_S if resolved_timeout is None else resolved_timeout
        resolved_retries = _env_or(max_retries, environ, ENV_MAX_RETRIES, int)
        self._max_retries: int = (
            DEFAULT_MAX_RETRIES if resolved_retries is None else resolved_retries
        )
        resolved_concurrency = _env_or(concurrency, environ, ENV_CONCURRENCY, int)
        self._concurrency: int = (
            DEFAULT_CONCURRENCY if resolved_concurrency is None else resolved_concurrency
        )
        fmt = _env_or(response_format, environ, ENV_RESPONSE_FORMAT, str) or "json_schema"
        if fmt not in RESPONSE_FORMATS:
            raise InvalidInputError(
                f"response format {fmt!r} is not one of {', '.join(map(repr, RESPONSE_FORMATS))}"
            )
        self._response_format: ResponseFormat = cast("ResponseFormat", fmt)
        if self._timeout <= 0:
            raise InvalidInputError(f"timeout must be positive, got {self._timeout}")
        if self._max_retries < 0:
            raise InvalidInputError(f"max_retries must be >= 0, got {self._max_retries}")
        if self._concurrency < 1:
            raise InvalidInputError(f"concurrency must be >= 1, got {self._concurrency}")
        if backoff_base < 0 or max_backoff < 0:
            raise InvalidInputError("backoff_base and max_backoff must be >= 0")
        resolved_repairs = _env_or(repair_attempts, environ, ENV_REPAIR_ATTEMPTS, int)
        self._repair_attempts: int = (
            DEFAULT_REPAIR_ATTEMPTS if resolved_repairs is None else resolved_repairs
        )
        if self._repair_attempts < 0:
            raise InvalidInputError(f"repair_attempts must be >= 0, got {self._repair_attempts}")
        resolved_max_tokens = _env_or(max_tokens, environ, ENV_MAX_TOKENS, int)
        if resolved_max_tokens is not None and resolved_max_tokens < 1:
            raise InvalidInputError(f"max_tokens must be >= 1, got {resolved_max_tokens}")
        role = _env_or(system_role, environ, ENV_SYSTEM_ROLE, str) or "system"
        if role not in ("system", "user"):
            raise InvalidInputError(f"system role {role!r} is not one of 'system', 'user'")
        self._system_role: str = role
        self._temperature = temperature
        self._max_tokens: int | None = resolved_max_tokens
        self._backoff_base = backoff_base
        self._max_backoff = max_backoff
        self._usage = TokenUsage()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: openai.AsyncOpenAI | None = None
        self._semaphore: asyncio.Semaphore | None = None

    # -- configuration, read back -------------------------------------------------

    @property
    def model_name(self) -> str:
        return self._model

    @property
    def base_url(self) -> str:
        return self._base_url

    @property
    def timeout(self) -> float:
        return self._timeout

    @property
    def max_retries(self) -> int:
        return self._max_retries

    @property
    def concurrency(self) -> int:
        return self._concurrency

    @property
    def repair_attempts(self) -> int:
        return self._repair_attempts

    @property
    def response_format(self) -> ResponseFormat:
        return self._response_format

    @property
    def usage(self) -> TokenUsage:
        return self._usage

    def __repr__(self) -> str:  # never shows the key
        return (
            f"OpenAICompatibleProvider(model={self._model!r}, base_url={self._base_url!r}, "
            f"response_format={self._response_format!r})"
        )

    # -- lifecycle -----------------------------------------------------------------

    def _loop_state(self) -> tuple[openai.AsyncOpenAI, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        if self._client is None or self._semaphore is None or self._loop is not loop:
            self._client = openai.AsyncOpenAI(
                base_url=self._base_url,
                api_key=self._api_key,
                timeout=self._timeout,
                max_retries=0,
            )
            self._semaphore = asyncio.Semaphore(self._concurrency)
            self._loop = loop
        return self._client, self._semaphore

    async def aclose(self) -> None:
        """Close the HTTP client of the current loop, if one was opened."""
        client, self._client, self._semaphore, self._loop = self._client, None, None, None
        if client is not None:
            await client.close()

    async def __aenter__(self) -> OpenAICompatibleProvider:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- the port ------------------------------------------------------------------

    async def extract(
        self, text: str, schema: type[SchemaT], *, instructions: str | None = None
    ) -> SchemaT:
        messages = self._messages(text, schema, instructions)
        for repair in range(self._repair_attempts + 1):
            completion = await self._complete(messages, schema)
            self._record_usage(completion)
            content = completion.choices[0].message.content if completion.choices else None
            try:
                return _validated(completion, schema)
            except (EmptyOutputError, MalformedOutputError) as exc:
                if repair == self._repair_attempts:
                    raise
                messages = [
                    *messages,
                    {"role": "assistant", "content": content or ""},
                    {"role": "user", "content": REPAIR_REQUEST.format(problem=exc)},
                ]
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _messages(
        self, text: str, schema: type[BaseModel], instructions: str | None
    ) -> list[dict[str, str]]:
        system = instructions or DEFAULT_INSTRUCTIONS
        if self._response_format in ("json_object", "prompt"):
            # json_object mode constrains to *some* JSON; the schema has to travel in
            # the prompt (and OpenAI requires the word "JSON" in the messages).
            system = (
                f"{system}\n\nRespond with JSON only, matching this JSON schema:\n"
                f"{json.dumps(json_schema_for(schema), separators=(',', ':'))}"
            )
        if self._system_role == "user":
            # Models without a system role (Gemma): llama-cpp-python's `gemma` chat
            # format drops system messages, so the instructions lead the user turn.
            return [{"role": "user", "content": f"{system}\n\nText:\n{text}"}]
        return [{"role": "system", "content": system}, {"role": "user", "content": text}]

    def _response_format_param(self, schema: type[BaseModel]) -> dict[str, Any]:
        if self._response_format == "json_object":
            return {"type": "json_object"}
        if self._response_format == "json_object_schema":
            # llama-cpp-python's server: no `json_schema` type (it answers 500), but a
            # `schema` beside `json_object` becomes a grammar the sampler cannot leave.
            return {"type": "json_object", "schema": json_schema_for(schema)}
        # strict=False: OpenAI's strict mode forbids open maps and optional keys,
        # which real extraction schemas need; guided-decoding servers (vLLM,
        # llama.cpp) enforce the schema either way.
        return {
            "type": "json_schema",
            "json_schema": {
                "name": schema.__name__,
                "schema": json_schema_for(schema),
                "strict": False,
            },
        }

    async def _complete(
        self, messages: list[dict[str, str]], schema: type[BaseModel]
    ) -> ChatCompletion:
        client, semaphore = self._loop_state()
        options: dict[str, Any] = {"model": self._model, "messages": messages}
        if self._response_format == "grammar":
            options["extra_body"] = {"grammar": compact_grammar(json_schema_for(schema))}
        elif self._response_format != "prompt":
            options["response_format"] = self._response_format_param(schema)
        if self._temperature is not None:
            options["temperature"] = self._temperature
        if self._max_tokens is not None:
            options["max_tokens"] = self._max_tokens
        attempts = self._max_retries + 1
        last_problem = "no attempt was made"
        for attempt in range(attempts):
            wait: float | None = None
            try:
                async with semaphore:
                    return cast("ChatCompletion", await client.chat.completions.create(**options))
            except openai.APITimeoutError:
                last_problem = f"timed out after {self._timeout}s"
            except openai.APIConnectionError as exc:
                last_problem = f"connection failed ({exc.__cause__ or exc})"
            except openai.APIStatusError as exc:
                status = exc.status_code
                last_problem = f"HTTP {status}: {_short(exc.message)}"
                if status not in _RETRYABLE_STATUS and status < 500:
                    raise ProviderUnavailableError(
                        f"{self._base_url} answered {last_problem} (not retried)"
                    ) from exc
                wait = _retry_after_seconds(exc.response.headers)
            if attempt + 1 < attempts:
                await asyncio.sleep(self._delay(attempt, wait))
        raise ProviderUnavailableError(
            f"{self._base_url} failed {attempts} attempt(s); last: {last_problem}"
        )

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self._max_backoff)
        # Full jitter keeps many workers that failed together from retrying together.
        ceiling = min(self._max_backoff, self._backoff_base * (2**attempt))
        return random.uniform(ceiling / 2, ceiling)

    def _record_usage(self, completion: ChatCompletion) -> None:
        used = completion.usage
        self._usage = self._usage + TokenUsage(
            prompt_tokens=used.prompt_tokens if used is not None else 0,
            completion_tokens=used.completion_tokens if used is not None else 0,
            calls=1,
        )


def _validated(completion: ChatCompletion, schema: type[SchemaT]) -> SchemaT:
    if not completion.choices:
        return validate_text(None, schema)
    message = completion.choices[0].message
    refusal = getattr(message, "refusal", None)
    if refusal:
        raise RefusalError(f"the model declined: {refusal}")
    try:
        return validate_text(message.content, schema)
    except MalformedOutputError as exc:
        if completion.choices[0].finish_reason == "length":
            # A small model looping in its list runs into max_tokens: say so, or the
            # error reads as a syntax slip.
            raise MalformedOutputError(f"the answer was cut off at max_tokens; {exc}") from exc
        raise


def _short(message: str) -> str:
    return message if len(message) <= 200 else message[:200] + "..."
