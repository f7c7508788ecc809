"""A JSON schema compiled into a compact GBNF grammar (llama.cpp's `grammar` field).

Why not let the server compile the schema: llama.cpp's own compiler lets a model put
newlines and up to 20 spaces or tabs between any two tokens of the JSON, and a small
model trained on pretty-printed JSON takes them: Gemma 3 270M, answering the lean
extraction schema through `llama-server`, wrote indented JSON and repeated its entity
list until `max_tokens` cut it off on 8 of 8 sentences; held to single optional spaces
(as llama-cpp-python's compiler holds it) it closed its answer on its own
(bench/README.md). The grammar here allows one optional space where JSON allows
whitespace, and nothing else.

It covers the part of JSON schema that pydantic produces for redstring's answer
types: objects with `properties` (required and optional, in declared order) or an
`additionalProperties` value schema, arrays (`items`), strings (`minLength`,
`maxLength`), string `enum`s and `const`s, integers, numbers, booleans, null,
`anyOf` and local `$ref`s. Anything else raises `ValueError` rather than compile
into a grammar that admits what the schema refuses or refuses what it admits
(number bounds are not in the grammar; validation still checks them).
"""

from __future__ import annotations

import json
import re
from typing import Any

_SPACE = 'sp ::= " "?'
_PRIMITIVES = {
    "string": r'string ::= "\"" char* "\"" sp',
    "char": r'char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})',
    "integer": 'integer ::= "-"? ([0] | [1-9] [0-9]{0,15}) sp',
    "number": (
        'number ::= "-"? ([0] | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})? sp'
    ),
    "boolean": 'boolean ::= ("true" | "false") sp',
    "null": 'null ::= "null" sp',
}
_NEEDS = {"string": ("char",)}
_HANDLED_KEYS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "minLength",
        "maxLength",
        # Annotations and bounds that do not change what the grammar must allow.
        "title",
        "description",
        "default",
        "examples",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
    }
)


def _literal(value: str) -> str:
    """A GBNF string literal matching exactly the JSON text `value`."""
    return json.dumps(json.dumps(value))


class _Compiler:
    def __init__(self, root: dict[str, Any]) -> None:
        self._root = root
        self._rules: dict[str, str] = {}
        self._refs: dict[str, str] = {}

    def rule(self, name: str, body: str) -> str:
        key = re.sub(r"[^a-zA-Z0-9-]+", "-", name).strip("-").lower() or "r"
        candidate, n = key, 1
        while candidate in self._rules and self._rules[candidate] != body:
            n += 1
            candidate = f"{key}{n}"
        self._rules[candidate] = body
        return candidate

    def primitive(self, name: str) -> str:
        for needed in (*_NEEDS.get(name, ()), name):
            self._rules[needed] = _PRIMITIVES[needed].split(" ::= ", 1)[1]
        return name

    def visit(self, schema: dict[str, Any] | bool, name: str) -> str:
        if schema is True or schema == {}:
            raise ValueError(f"{name}: an unconstrained value cannot be compiled")
        if not isinstance(schema, dict):
            raise ValueError(f"{name}: schema {schema!r} is not supported")
        unknown = set(schema) - _HANDLED_KEYS
        if unknown:
            raise ValueError(f"{name}: unsupported keyword(s) {', '.join(sorted(unknown))}")
        if "$ref" in schema:
            return self._ref(schema["$ref"])
        if "anyOf" in schema:
            options = [self.visit(s, f"{name}-{i}") for i, s in enumerate(schema["anyOf"])]
            return self.rule(name, " | ".join(options))
        if "const" in schema:
            return self.rule(name, self._enum([schema["const"]], name))
        if "enum" in schema:
            return self.rule(name, self._enum(schema["enum"], name))
        kind = schema.get("type")
        if not isinstance(kind, str):
            raise ValueError(f"{name}: type {kind!r} is not supported (one type name needed)")
        if kind == "object":
            return self._object(schema, name)
        if kind == "array":
            if "items" not in schema:
                raise ValueError(f"{name}: an array needs `items`")
            item = self.visit(schema["items"], f"{name}-item")
            return self.rule(name, f'"[" sp ({item} ("," sp {item})*)? "]" sp')
        if kind == "string" and ("minLength" in schema or "maxLength" in schema):
            self.primitive("char")
            low = int(schema.get("minLength", 0))
            high = schema.get("maxLength")
            count = f"{{{low},{int(high)}}}" if high is not None else f"{{{low},}}"
            return self.rule(name, f'"\\"" char{count} "\\"" sp')
        if kind in _PRIMITIVES:
            return self.primitive(kind)
        raise ValueError(f"{name}: type {kind!r} is not supported")

    def _enum(self, values: list[Any], name: str) -> str:
        if not values or not all(isinstance(v, str) for v in values):
            raise ValueError(f"{name}: only non-empty enums of strings are supported")
        return "(" + " | ".join(_literal(v) for v in values) + ") sp"

    def _ref(self, ref: str) -> str:
        prefix = "#/$defs/"
        if not ref.startswith(prefix):
            raise ValueError(f"only local $defs references are supported, not {ref!r}")
        if ref not in self._refs:
            target = ref.removeprefix(prefix)
            # Reserve the name first: a recursive schema refers to itself.
            self._refs[ref] = self.rule(target, "")
            body_rule = self.visit(self._root["$defs"][target], f"{target}-body")
            self._rules[self._refs[ref]] = body_rule
        return self._refs[ref]

    def _object(self, schema: dict[str, Any], name: str) -> str:
        properties: dict[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        if not properties:
            if not isinstance(extra, dict):
                raise ValueError(f"{name}: an object needs properties or a value schema")
            value = self.visit(extra, f"{name}-value")
            self.primitive("string")
            pair = self.rule(f"{name}-kv", f'string ":" sp {value}')
            return self.rule(name, f'"{{" sp ({pair} ("," sp {pair})*)? "}}" sp')
        if extra not in (None, False):
            raise ValueError(f"{name}: properties with additionalProperties are not supported")
        required = set(schema.get("required", ()))
        pairs = [
            (
                key in required,
                self.rule(
                    f"{name}-{key}-kv",
                    f'{_literal(key)} sp ":" sp {self.visit(sub, f"{name}-{key}")}',
                ),
            )
            for key, sub in properties.items()
        ]
        # rest(i): the pairs from i on, each after a comma; first(i): the same with
        # no comma before whichever pair comes first (an optional pair may be absent).
        rest = ""
        first = ""
        for i in range(len(pairs) - 1, -1, -1):
            is_required, pair = pairs[i]
            tail = f" {rest}" if rest else ""
            comma = f'"," sp {pair}'
            start = f"{pair}{tail}"
            if is_required:
                new_first = start
            elif first:
                new_first = f"({start}) | {first}"
            else:
                new_first = f"({start})?"
            rest = self.rule(
                f"{name}-rest{i}", f"{comma}{tail}" if is_required else f"({comma})?{tail}"
            )
            first = self.rule(f"{name}-first{i}", new_first)
        return self.rule(name, f'"{{" sp {first} "}}" sp')

    def grammar(self) -> str:
        root = self.visit(self._root, "answer")
        lines = [f"root ::= sp {root}", _SPACE]
        lines += [f"{name} ::= {body}" for name, body in self._rules.items()]
        return "\n".join(lines) + "\n"


def compact_grammar(schema: dict[str, Any]) -> str:
    """GBNF admitting exactly the JSON texts, written with at most single spaces,
    that `schema` admits (within the supported keywords; see the module doc)."""
    return _Compiler(schema).grammar()
