"""A scripted, deterministic `LlmProvider` for tests.

Script it with a list of answers, consumed one per call in order, or with a
function `(text, schema) -> answer`. An answer may be

- a pydantic instance: returned if it is already a `schema`, otherwise dumped
  and validated as `schema` (a test can reuse one model across schemas);
- a `dict` (or list): validated as `schema`, as if the model returned that JSON;
- a `str`: the model's raw text, parsed and validated exactly as the real
  adapter parses it (`redstring.llm.validation`), so `""` raises
  `EmptyOutputError` and `"{oops"` raises `MalformedOutputError`;
- an exception (instance or class): raised, to script refusals and outages.

Every call is recorded in `calls`. Running out of scripted answers is a bug in
the test, so it raises `AssertionError` rather than an `LlmError` a caller
might handle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias, TypeVar

from pydantic import BaseModel

from redstring.domain.usage import TokenUsage
from redstring.llm.validation import validate_payload, validate_text

SchemaT = TypeVar("SchemaT", bound=BaseModel)

FakeAnswer: TypeAlias = (
    BaseModel | dict[str, object] | list[object] | str | BaseException | type[BaseException]
)
FakeScript: TypeAlias = Callable[[str, type[BaseModel]], FakeAnswer]


@dataclass(frozen=True, slots=True)
class FakeCall:
    """One call the fake received."""

    text: str
    schema: type[BaseModel]
    instructions: str | None


def _tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: whitespace-separated words."""
    return len(text.split())


class FakeLlmProvider:
    """Answers from a script; see the module docstring for what an answer may be."""

    def __init__(
        self,
        answers: Sequence[FakeAnswer] | FakeScript,
        *,
        model_name: str = "fake-llm",
    ) -> None:
        self._script: FakeScript | None = answers if callable(answers) else None
        self._answers: list[FakeAnswer] = [] if callable(answers) else list(answers)
        self._model_name = model_name
        self._usage = TokenUsage()
        self.calls: list[FakeCall] = []

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def usage(self) -> TokenUsage:
        return self._usage

    @property
    def remaining(self) -> int:
        """Scripted answers not yet consumed (0 for a function script)."""
        return len(self._answers)

    async def extract(
        self, text: str, schema: type[SchemaT], *, instructions: str | None = None
    ) -> SchemaT:
        self.calls.append(FakeCall(text=text, schema=schema, instructions=instructions))
        if self._script is not None:
            answer = self._script(text, schema)
        elif self._answers:
            answer = self._answers.pop(0)
        else:
            raise AssertionError(
                f"FakeLlmProvider ran out of scripted answers on call {len(self.calls)}"
            )
        completion = answer if isinstance(answer, str) else repr(answer)
        self._usage = self._usage + TokenUsage(
            prompt_tokens=_tokens(text) + _tokens(instructions or ""),
            completion_tokens=_tokens(completion),
            calls=1,
        )
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, type) and issubclass(answer, BaseException):
            raise answer()
        if isinstance(answer, schema):
            return answer
        if isinstance(answer, BaseModel):
            return validate_payload(answer.model_dump(mode="json"), schema)
        if isinstance(answer, str):
            return validate_text(answer, schema)
        return validate_payload(answer, schema)
