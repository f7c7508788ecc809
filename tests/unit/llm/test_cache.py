"""The LLM response cache: one question, keyed by model, prompt and schema, is paid once."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from pydantic import BaseModel

from redstring.domain.exceptions import MalformedOutputError
from redstring.llm.cache import (
    CachingLlmProvider,
    MemoryResponseStore,
    SqliteResponseStore,
    cache_key,
    cache_path_for,
)
from redstring.llm.fake import FakeLlmProvider

if TYPE_CHECKING:
    from pathlib import Path


class Answer(BaseModel):
    name: str


class OtherAnswer(BaseModel):
    name: str
    kind: str = "x"


async def test_a_repeated_question_is_answered_from_the_store() -> None:
    inner = FakeLlmProvider([{"name": "Ada"}])
    cached = CachingLlmProvider(inner, MemoryResponseStore())
    first = await cached.extract("text", Answer, instructions="find")
    again = await cached.extract("text", Answer, instructions="find")
    assert first == again == Answer(name="Ada")
    assert len(inner.calls) == 1
    assert (cached.hits, cached.misses) == (1, 1)
    assert cached.usage == inner.usage
    assert cached.usage.calls == 1


def test_the_key_changes_with_model_instructions_text_and_schema() -> None:
    base = cache_key("m", "find", "text", Answer)
    assert base == cache_key("m", "find", "text", Answer)
    others = {
        cache_key("m2", "find", "text", Answer),
        cache_key("m", "find more", "text", Answer),
        cache_key("m", None, "text", Answer),
        cache_key("m", "find", "text!", Answer),
        cache_key("m", "find", "text", OtherAnswer),
    }
    assert base not in others
    assert len(others) == 5


async def test_a_failed_answer_is_not_stored_and_is_asked_again() -> None:
    inner = FakeLlmProvider([MalformedOutputError("oops"), {"name": "Ada"}])
    cached = CachingLlmProvider(inner, MemoryResponseStore())
    with pytest.raises(MalformedOutputError):
        await cached.extract("text", Answer)
    assert await cached.extract("text", Answer) == Answer(name="Ada")
    assert len(inner.calls) == 2


async def test_an_entry_that_no_longer_validates_is_asked_again() -> None:
    store = MemoryResponseStore()
    store.put(cache_key("fake-llm", None, "text", Answer), '{"nom": 1}')
    inner = FakeLlmProvider([{"name": "Ada"}])
    cached = CachingLlmProvider(inner, store)
    assert await cached.extract("text", Answer) == Answer(name="Ada")
    assert len(inner.calls) == 1
    assert await cached.extract("text", Answer) == Answer(name="Ada")
    assert len(inner.calls) == 1


async def test_the_sqlite_store_survives_a_reopen(tmp_path: Path) -> None:
    path = cache_path_for(tmp_path / "redstring.db")
    assert path == tmp_path / "redstring.db.llm-cache"
    store = SqliteResponseStore(path)
    await CachingLlmProvider(FakeLlmProvider([{"name": "Ada"}]), store).extract("t", Answer)
    store.close()
    reopened = SqliteResponseStore(path)
    assert len(reopened) == 1
    inner = FakeLlmProvider([])
    assert await CachingLlmProvider(inner, reopened).extract("t", Answer) == Answer(name="Ada")
    assert inner.calls == []
    reopened.close()
