"""The scripted fake behaves like the real adapter on the outputs it is given."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from redstring.domain.exceptions import EmptyOutputError, MalformedOutputError, RefusalError
from redstring.llm.fake import FakeLlmProvider


class Person(BaseModel):
    name: str
    age: int


async def test_answers_in_order_and_records_calls() -> None:
    """Catches: answers consumed out of order, or calls not recorded for assertions."""
    fake = FakeLlmProvider(
        [Person(name="A", age=1), {"name": "B", "age": 2}, '{"name":"C","age":3}']
    )
    got = [await fake.extract(t, Person, instructions="i") for t in ("x", "y", "z")]
    assert [p.name for p in got] == ["A", "B", "C"]
    assert [c.text for c in fake.calls] == ["x", "y", "z"]
    assert fake.calls[0].schema is Person
    assert fake.calls[0].instructions == "i"
    assert fake.usage.calls == 3


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ("", EmptyOutputError),
        ("{oops", MalformedOutputError),
        ({"name": "A", "age": "old"}, MalformedOutputError),
        (RefusalError("no"), RefusalError),
        (RefusalError, RefusalError),
    ],
)
async def test_bad_answers_raise_the_adapters_errors(
    answer: object, error: type[Exception]
) -> None:
    """Catches: the fake accepting output the real adapter would reject (tests passing falsely)."""
    fake = FakeLlmProvider([answer])  # type: ignore[list-item]
    with pytest.raises(error):
        await fake.extract("x", Person)


async def test_function_script_sees_text_and_schema() -> None:
    """Catches: a function script not being called with the text it must answer."""
    fake = FakeLlmProvider(lambda text, schema: {"name": text.upper(), "age": 5})
    assert (await fake.extract("ada", Person)).name == "ADA"


async def test_running_out_is_a_test_bug() -> None:
    """Catches: an exhausted script masquerading as a provider error a caller might swallow."""
    fake = FakeLlmProvider([])
    with pytest.raises(AssertionError, match="ran out"):
        await fake.extract("x", Person)
