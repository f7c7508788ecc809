"""JSON text from outside (a user's JSONL records, a model's answer) into plain values.

`json.loads` accepts more than redstring can store: nesting deep enough to overflow
the stack (of `json` itself, or of pydantic and the log's encoder later), integers
too long to convert, `NaN` and `1e999`, and `\\ud800` escapes that decode to lone
surrogates no UTF-8 store can hold. Each of those becomes a `JsonTextError` here,
so a caller can refuse the input with its own typed error and a line number before
anything is stored.
"""

from __future__ import annotations

import json
import math

#: Deepest nesting of lists and objects accepted (the outermost value is level 1).
#: A record or an extraction answer nests a few levels; every layer a value later
#: passes through recurses once per level, so this sits far below their limits.
MAX_JSON_DEPTH = 32


class JsonTextError(ValueError):
    """The text is not JSON redstring can store; the message says why."""


def parse_json(text: str, *, max_depth: int = MAX_JSON_DEPTH) -> object:
    """`text` parsed, or `JsonTextError`; see the module docstring for what is refused."""
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except RecursionError as exc:
        raise JsonTextError(f"JSON nested too deeply to read (at most {max_depth} levels)") from exc
    except json.JSONDecodeError as exc:
        raise JsonTextError(f"not valid JSON ({exc.msg} at position {exc.pos})") from exc
    except ValueError as exc:  # an integer too long to convert, a non-finite number
        raise JsonTextError(f"not a usable JSON value ({exc})") from exc
    _check(value, max_depth)
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} does not fit a 64-bit float")
    return value


def _check(value: object, max_depth: int) -> None:
    """Iterative, so the check cannot itself run out of stack on what it refuses."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > max_depth:
                raise JsonTextError(f"JSON nested more than {max_depth} levels deep")
            children = [*item, *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise JsonTextError(f"text that is not valid Unicode ({exc.reason})") from exc
