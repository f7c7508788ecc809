"""OpenAICompatibleProvider against a real chat-completions server on 127.0.0.1.

Nothing here patches the SDK: every test goes through HTTP to `ChatServer`.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING

import pytest
from pydantic import BaseModel

from redstring.domain.exceptions import (
    EmptyOutputError,
    InvalidInputError,
    MalformedOutputError,
    ProviderUnavailableError,
    RefusalError,
)
from redstring.llm.openai_compat import OpenAICompatibleProvider
from tests.support.openai_chat_server import ChatServer, completion, error

if TYPE_CHECKING:
    from collections.abc import Iterator


class Person(BaseModel):
    name: str
    age: int


GOOD = json.dumps({"name": "Ada Lovelace", "age": 36})


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def provider_for(server: ChatServer, **overrides: object) -> OpenAICompatibleProvider:
    options: dict[str, object] = {
        "model": "test-model",
        "base_url": server.base_url,
        "api_key": "sk-test",
        "timeout": 5.0,
        "max_retries": 2,
        "concurrency": 4,
        "backoff_base": 0.01,
        "repair_attempts": 0,  # the repair tests below turn it on
        "env": {},
    }
    options.update(overrides)
    return OpenAICompatibleProvider(**options)  # type: ignore[arg-type]


async def test_success_returns_instance_and_counts_tokens(server: ChatServer) -> None:
    """Catches: usage not accumulated, or the schema not sent as json_schema."""
    server.script(
        completion(GOOD, prompt_tokens=10, completion_tokens=5),
        completion(GOOD, prompt_tokens=3, completion_tokens=2),
    )
    async with provider_for(server) as llm:
        first = await llm.extract(
            "Ada Lovelace died at 36.", Person, instructions="Find the person"
        )
        await llm.extract("again", Person)
    assert first == Person(name="Ada Lovelace", age=36)
    assert (llm.usage.prompt_tokens, llm.usage.completion_tokens, llm.usage.calls) == (13, 7, 2)
    sent = server.requests[0]
    assert sent["model"] == "test-model"
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"] == Person.model_json_schema()
    assert sent["messages"][0] == {"role": "system", "content": "Find the person"}
    assert sent["messages"][1] == {"role": "user", "content": "Ada Lovelace died at 36."}


async def test_json_object_mode_puts_schema_in_prompt(server: ChatServer) -> None:
    """Catches: fallback mode sending json_schema anyway, or dropping the schema entirely."""
    server.script(completion(GOOD))
    async with provider_for(server, response_format="json_object") as llm:
        await llm.extract("text", Person)
    sent = server.requests[0]
    assert sent["response_format"] == {"type": "json_object"}
    assert '"age"' in sent["messages"][0]["content"]
    assert "JSON" in sent["messages"][0]["content"]


async def test_json_object_schema_mode_sends_the_schema_beside_json_object(
    server: ChatServer,
) -> None:
    """Catches: llama-cpp-python's grammar form not sent (its server refuses json_schema)."""
    server.script(completion(GOOD))
    async with provider_for(server, response_format="json_object_schema") as llm:
        await llm.extract("text", Person)
    sent = server.requests[0]
    assert sent["response_format"] == {"type": "json_object", "schema": Person.model_json_schema()}


async def test_grammar_mode_sends_the_compact_grammar_and_no_response_format(
    server: ChatServer,
) -> None:
    """Catches: llama.cpp's `grammar` field not sent, or sent beside a response_format
    whose own (newline-allowing) grammar the server would use instead."""
    from redstring.llm.gbnf import compact_grammar

    server.script(completion(GOOD))
    async with provider_for(server, response_format="grammar") as llm:
        assert await llm.extract("text", Person) == Person(name="Ada Lovelace", age=36)
    sent = server.requests[0]
    assert "response_format" not in sent
    assert sent["grammar"] == compact_grammar(Person.model_json_schema())


async def test_prompt_mode_sends_no_response_format_and_the_schema_in_the_prompt(
    server: ChatServer,
) -> None:
    server.script(completion(GOOD))
    async with provider_for(server, response_format="prompt") as llm:
        assert await llm.extract("text", Person) == Person(name="Ada Lovelace", age=36)
    sent = server.requests[0]
    assert "response_format" not in sent
    assert '"age"' in sent["messages"][0]["content"]


async def test_system_role_user_puts_the_instructions_in_the_user_turn(
    server: ChatServer,
) -> None:
    """Catches: instructions lost on a model whose chat format drops system messages."""
    server.script(completion(GOOD))
    async with provider_for(server, system_role="user") as llm:
        await llm.extract("Ada died at 36.", Person, instructions="Find the person")
    [turn] = server.requests[0]["messages"]
    assert turn["role"] == "user"
    assert turn["content"].startswith("Find the person")
    assert turn["content"].endswith("Ada died at 36.")
    with pytest.raises(InvalidInputError, match="system role"):
        OpenAICompatibleProvider(model="m", env={"REDSTRING_LLM_SYSTEM_ROLE": "developer"})


def test_an_unknown_response_format_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="json_object_schema"):
        OpenAICompatibleProvider(model="m", response_format="regex", env={})  # type: ignore[arg-type]


async def test_an_answer_cut_off_at_max_tokens_says_so(server: ChatServer) -> None:
    cut = completion('{"name": "Ada", "age": 3')
    body = cut.body
    assert isinstance(body, dict)
    body["choices"][0]["finish_reason"] = "length"
    server.script(cut)
    async with provider_for(server) as llm:
        with pytest.raises(MalformedOutputError, match="cut off at max_tokens"):
            await llm.extract("text", Person)


async def test_invalid_json_is_malformed(server: ChatServer) -> None:
    """Catches: a JSON parse error leaking as ValueError instead of the port's typed error."""
    server.script(completion('{"name": "Ada", '))
    async with provider_for(server) as llm:
        with pytest.raises(MalformedOutputError, match="not valid JSON"):
            await llm.extract("text", Person)
    assert llm.usage.calls == 1  # the answer was paid for


async def test_schema_invalid_json_is_malformed(server: ChatServer) -> None:
    """Catches: returning a partially valid instance when a field has the wrong type."""
    server.script(completion(json.dumps({"name": "Ada", "age": "old"})))
    async with provider_for(server) as llm:
        with pytest.raises(MalformedOutputError, match="age"):
            await llm.extract("text", Person)


@pytest.mark.parametrize("content", [None, "", "   \n"])
async def test_empty_content_is_empty_output(server: ChatServer, content: str | None) -> None:
    """Catches: an empty answer reported as malformed JSON (or crashing on None)."""
    server.script(completion(content))
    async with provider_for(server) as llm:
        with pytest.raises(EmptyOutputError):
            await llm.extract("text", Person)


async def test_refusal_is_refusal_error(server: ChatServer) -> None:
    """Catches: a refusal message being parsed as (empty) content instead of reported."""
    server.script(completion(None, refusal="I can't help with that."))
    async with provider_for(server) as llm:
        with pytest.raises(RefusalError, match="can't help"):
            await llm.extract("text", Person)


async def test_a_malformed_answer_is_repaired_once_with_the_problem_quoted(
    server: ChatServer,
) -> None:
    """Catches: no repair turn, a repair turn that does not show the bad answer and
    the problem, or its tokens not counted."""
    server.script(
        completion("Sure! Here is the person: Ada", prompt_tokens=10, completion_tokens=6),
        completion(GOOD, prompt_tokens=30, completion_tokens=8),
    )
    async with provider_for(server, repair_attempts=1) as llm:
        assert await llm.extract("text", Person) == Person(name="Ada Lovelace", age=36)
    assert len(server.requests) == 2
    repair = server.requests[1]["messages"]
    assert repair[:2] == server.requests[0]["messages"]
    assert repair[2] == {"role": "assistant", "content": "Sure! Here is the person: Ada"}
    assert repair[3]["role"] == "user"
    assert "not valid JSON" in repair[3]["content"]
    assert (llm.usage.prompt_tokens, llm.usage.completion_tokens, llm.usage.calls) == (40, 14, 2)


async def test_a_second_unusable_answer_is_reported_and_not_asked_again(
    server: ChatServer,
) -> None:
    """Catches: an unbounded repair loop, or the last problem not reported."""
    server.script(completion(""), completion(json.dumps({"name": "Ada"})))
    async with provider_for(server, repair_attempts=1) as llm:
        with pytest.raises(MalformedOutputError, match="age"):
            await llm.extract("text", Person)
    assert len(server.requests) == 2
    assert "no content" in server.requests[1]["messages"][-1]["content"]


async def test_a_declared_refusal_is_not_repaired(server: ChatServer) -> None:
    server.script(completion(None, refusal="No."))
    async with provider_for(server, repair_attempts=1) as llm:
        with pytest.raises(RefusalError):
            await llm.extract("text", Person)
    assert len(server.requests) == 1


def test_repair_attempts_and_max_tokens_come_from_the_environment() -> None:
    env = {
        "REDSTRING_LLM_MODEL": "m",
        "REDSTRING_LLM_REPAIR_ATTEMPTS": "2",
        "REDSTRING_LLM_MAX_TOKENS": "512",
    }
    llm = OpenAICompatibleProvider(env=env)
    assert llm.repair_attempts == 2
    assert OpenAICompatibleProvider(env={"REDSTRING_LLM_MODEL": "m"}).repair_attempts == 1
    with pytest.raises(InvalidInputError, match="repair_attempts"):
        OpenAICompatibleProvider(env={**env, "REDSTRING_LLM_REPAIR_ATTEMPTS": "-1"})
    with pytest.raises(InvalidInputError, match="max_tokens"):
        OpenAICompatibleProvider(env={**env, "REDSTRING_LLM_MAX_TOKENS": "0"})


async def test_max_tokens_is_sent(server: ChatServer) -> None:
    server.script(completion(GOOD))
    async with provider_for(server, max_tokens=77) as llm:
        await llm.extract("text", Person)
    assert server.requests[0]["max_tokens"] == 77


async def test_429_with_retry_after_waits_then_succeeds(server: ChatServer) -> None:
    """Catches: ignoring retry-after (retrying at once) or giving up on a rate limit."""
    server.script(error(429, "slow down", retry_after="0.4"), completion(GOOD))
    async with provider_for(server, backoff_base=0.0) as llm:
        result = await llm.extract("text", Person)
    assert result.name == "Ada Lovelace"
    assert len(server.requests) == 2
    gap = server.request_times[1] - server.request_times[0]
    assert gap >= 0.35, f"retried after {gap:.3f}s, retry-after said 0.4s"
    assert llm.usage.calls == 1


async def test_500s_until_retries_exhausted(server: ChatServer) -> None:
    """Catches: unbounded retries, or an SDK error escaping instead of ProviderUnavailableError."""
    server.script(*(error(500, "boom") for _ in range(5)))
    async with provider_for(server, max_retries=2) as llm:
        with pytest.raises(ProviderUnavailableError, match="3 attempt"):
            await llm.extract("text", Person)
    assert len(server.requests) == 3


async def test_client_error_is_not_retried(server: ChatServer) -> None:
    """Catches: retrying a 401/400 that cannot succeed, wasting time and quota."""
    server.script(error(401, "bad key"), completion(GOOD))
    async with provider_for(server) as llm:
        with pytest.raises(ProviderUnavailableError, match="401"):
            await llm.extract("text", Person)
    assert len(server.requests) == 1


async def test_timeout_becomes_provider_unavailable(server: ChatServer) -> None:
    """Catches: the client waiting for a hung server past its configured timeout."""
    server.script(completion(GOOD, delay_s=2.0))
    started = time.monotonic()
    async with provider_for(server, timeout=0.3, max_retries=0) as llm:
        with pytest.raises(ProviderUnavailableError, match="timed out"):
            await llm.extract("text", Person)
    assert time.monotonic() - started < 1.5


async def test_unreachable_endpoint_is_provider_unavailable() -> None:
    """Catches: a connection error escaping as an openai exception."""
    llm = OpenAICompatibleProvider(
        model="m", base_url="http://127.0.0.1:9/v1", max_retries=1, backoff_base=0.0, env={}
    )
    with pytest.raises(ProviderUnavailableError, match="connection"):
        await llm.extract("text", Person)
    await llm.aclose()


async def test_concurrency_limit_is_respected(server: ChatServer) -> None:
    """Catches: the semaphore missing, or held per provider call instead of per request."""
    server.script(*(completion(GOOD, delay_s=0.15) for _ in range(8)))
    async with provider_for(server, concurrency=2) as llm:
        results = await asyncio.gather(*(llm.extract(f"t{i}", Person) for i in range(8)))
    assert len(results) == 8
    assert server.max_in_flight == 2


def test_env_configuration() -> None:
    """Catches: env vars ignored, or an argument not winning over the environment."""
    env = {
        "REDSTRING_LLM_BASE_URL": "http://localhost:11434/v1",
        "REDSTRING_LLM_MODEL": "llama3.1",
        "REDSTRING_LLM_TIMEOUT": "12.5",
        "REDSTRING_LLM_MAX_RETRIES": "5",
        "REDSTRING_LLM_CONCURRENCY": "3",
        "REDSTRING_LLM_RESPONSE_FORMAT": "json_object",
    }
    llm = OpenAICompatibleProvider(env=env, concurrency=9)
    assert (llm.model_name, llm.base_url, llm.timeout, llm.max_retries) == (
        "llama3.1",
        "http://localhost:11434/v1",
        12.5,
        5,
    )
    assert llm.concurrency == 9
    assert llm.response_format == "json_object"


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"REDSTRING_LLM_MODEL": "m", "REDSTRING_LLM_TIMEOUT": "soon"},
        {"REDSTRING_LLM_MODEL": "m", "REDSTRING_LLM_CONCURRENCY": "0"},
        {"REDSTRING_LLM_MODEL": "m", "REDSTRING_LLM_RESPONSE_FORMAT": "xml"},
    ],
)
def test_bad_configuration_is_invalid_input(env: dict[str, str]) -> None:
    """Catches: a missing model or unparsable setting surfacing later as a confusing HTTP error."""
    with pytest.raises(InvalidInputError):
        OpenAICompatibleProvider(env=env)
