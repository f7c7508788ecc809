"""Turning a model's raw answer into a validated schema instance.

This is the one place that decides what counts as an empty, malformed or valid
answer. The OpenAI-compatible adapter and the scripted fake both call it, so a
test written against the fake fails for exactly the outputs the real adapter
would reject.
"""

from __future__ import annotations

import re
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from redstring.domain.exceptions import EmptyOutputError, MalformedOutputError
from redstring.domain.json_text import JsonTextError, parse_json

SchemaT = TypeVar("SchemaT", bound=BaseModel)

#: Small local models in `json_object` mode often wrap their answer in a markdown
#: fence despite being told not to. One surrounding fence is peeled off; anything
#: else around the JSON is still malformed.
_FENCE = re.compile(r"^```(?:json|JSON)?\s*\n(?P<body>.*)\n\s*```$", re.DOTALL)

#: How much of a bad answer an error message quotes: enough to recognise it,
#: not so much that a log line becomes a page.
_QUOTE_LIMIT = 200


def _quote(raw: str) -> str:
    return raw if len(raw) <= _QUOTE_LIMIT else raw[:_QUOTE_LIMIT] + "..."


def validate_text(raw: str | None, schema: type[SchemaT]) -> SchemaT:
    """Parse `raw` as JSON and validate it against `schema`.

    Raises `EmptyOutputError` for `None` or whitespace, `MalformedOutputError`
    for text that is not JSON or JSON that `schema` rejects.
    """
    if raw is None or not raw.strip():
        raise EmptyOutputError(f"the model returned no content for {schema.__name__}")
    text = raw.strip()
    fenced = _FENCE.match(text)
    if fenced is not None:
        text = fenced.group("body").strip()
    try:
        payload = parse_json(text)
    except JsonTextError as exc:
        raise MalformedOutputError(f"the model's output is {exc}: {_quote(raw)!r}") from exc
    return validate_payload(payload, schema)


def validate_payload(payload: object, schema: type[SchemaT]) -> SchemaT:
    """Validate already-parsed JSON against `schema`; `MalformedOutputError` if it does not fit."""
    try:
        return schema.model_validate(payload)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors()[:5]
        )
        raise MalformedOutputError(
            f"the model's JSON does not match {schema.__name__}: {problems}"
        ) from exc


def json_schema_for(schema: type[BaseModel]) -> dict[str, object]:
    """The JSON schema sent to the endpoint (and shown in prompts in `json_object` mode)."""
    return schema.model_json_schema()
