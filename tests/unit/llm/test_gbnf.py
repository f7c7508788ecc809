"""compact_grammar: the GBNF admits the schema's answers, written compactly, and nothing else.

The grammar is checked by running it: `GbnfMatcher` below is a small backtracking
matcher for the GBNF subset `compact_grammar` writes (literals, character classes,
rule references, groups, `|`, `?`, `*`, `+`, `{m,n}`), so a test fails when the
grammar would let a server's model write what the schema refuses, or forbid what
it needs.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from redstring.extraction.schemas import ExtractionOutput, lean_output_schema, load_domain
from redstring.llm.gbnf import compact_grammar

Node = tuple[object, ...]
_ESCAPES = {"\\n": "\n", "\\t": "\t", "\\r": "\r", "\\b": "\b", "\\f": "\f"}


class GbnfMatcher:
    """Whole-text matching of `root` against a GBNF grammar (test-only reference)."""

    _TOKEN = re.compile(
        r'\s*(?:(?P<lit>"(?:\\.|[^"\\])*")|(?P<cls>\[(?:\\.|[^\]\\])*\])'
        r"|(?P<rep>\{\d+(?:,\d*)?\})|(?P<op>[()|?*+])|(?P<name>[A-Za-z0-9-]+))"
    )

    def __init__(self, grammar: str) -> None:
        self.rules: dict[str, Node] = {}
        for line in grammar.strip().splitlines():
            name, body = line.split(" ::= ", 1)
            self.rules[name.strip()] = self._parse(body)

    # -- parsing -------------------------------------------------------------
    def _tokens(self, body: str) -> list[tuple[str, str]]:
        out, pos = [], 0
        while pos < len(body.rstrip()):
            m = self._TOKEN.match(body, pos)
            assert m is not None, f"cannot tokenize {body[pos:]!r}"
            kind = m.lastgroup
            assert kind is not None
            out.append((kind, m.group(kind)))
            pos = m.end()
        return out

    def _parse(self, body: str) -> Node:
        tokens = self._tokens(body)
        node, rest = self._alts(tokens)
        assert not rest, f"trailing tokens {rest}"
        return node

    def _alts(self, tokens: list[tuple[str, str]]) -> tuple[Node, list[tuple[str, str]]]:
        options = []
        seq, tokens = self._seq(tokens)
        options.append(seq)
        while tokens and tokens[0] == ("op", "|"):
            seq, tokens = self._seq(tokens[1:])
            options.append(seq)
        return ("alt", tuple(options)), tokens

    def _seq(self, tokens: list[tuple[str, str]]) -> tuple[Node, list[tuple[str, str]]]:
        items: list[Node] = []
        while tokens and tokens[0] not in (("op", "|"), ("op", ")")):
            kind, text = tokens[0]
            tokens = tokens[1:]
            if (kind, text) == ("op", "("):
                atom, tokens = self._alts(tokens)
                assert tokens[0] == ("op", ")")
                tokens = tokens[1:]
            elif kind == "lit":
                atom = ("lit", json.loads(text))
            elif kind == "cls":
                atom = ("cls", text)
            elif kind == "name":
                atom = ("ref", text)
            else:
                raise AssertionError(f"unexpected {text!r}")
            low, high = 1, 1
            if tokens and tokens[0] in (("op", "?"), ("op", "*"), ("op", "+")):
                low, high = {"?": (0, 1), "*": (0, None), "+": (1, None)}[tokens[0][1]]
                tokens = tokens[1:]
            elif tokens and tokens[0][0] == "rep":
                low_s, _, high_s = tokens[0][1][1:-1].partition(",")
                low = int(low_s)
                high = int(high_s) if high_s else (None if "," in tokens[0][1] else low)
                tokens = tokens[1:]
            items.append(("rep", atom, low, high))
        return ("seq", tuple(items)), tokens

    # -- matching ------------------------------------------------------------
    def matches(self, text: str) -> bool:
        @cache
        def rule(name: str, pos: int) -> frozenset[int]:
            return frozenset(walk(self.rules[name], pos))

        def char_class(spec: str, ch: str) -> bool:
            inner = spec[1:-1]
            negate = inner.startswith("^")
            inner = inner[1:] if negate else inner
            chars = [
                chr(int(c[2:], 16)) if c.startswith("\\x") else _ESCAPES.get(c, c[-1])
                for c in re.findall(r"\\x[0-9A-Fa-f]{2}|\\.|.", inner)
            ]
            hit, i = False, 0
            while i < len(chars):
                if i + 2 < len(chars) and chars[i + 1] == "-":
                    hit |= chars[i] <= ch <= chars[i + 2]
                    i += 3
                else:
                    hit |= ch == chars[i]
                    i += 1
            return hit != negate

        def walk(node: Node, pos: int) -> set[int]:
            kind = node[0]
            if kind == "alt":
                out: set[int] = set()
                for option in node[1]:  # type: ignore[attr-defined]
                    out |= walk(option, pos)
                return out
            if kind == "seq":
                ends = {pos}
                for item in node[1]:  # type: ignore[attr-defined]
                    ends = {e for p in ends for e in walk(item, p)}
                return ends
            if kind == "rep":
                _, atom, low, high = node
                ends, frontier, seen, count = set(), {pos}, {pos}, 0
                if low == 0:
                    ends |= frontier
                while frontier and (high is None or count < high):  # type: ignore[operator]
                    reached = {e for p in frontier for e in walk(atom, p)}  # type: ignore[arg-type]
                    count += 1
                    if count >= low:  # type: ignore[operator]
                        ends |= reached
                    # Past the minimum, only new positions can lead anywhere new (and an
                    # atom that matches nothing cannot loop forever).
                    frontier = reached if count < low else reached - seen  # type: ignore[operator]
                    seen |= reached
                return ends
            if kind == "lit":
                lit = node[1]
                return {pos + len(lit)} if text.startswith(lit, pos) else set()  # type: ignore[arg-type]
            if kind == "cls":
                ok = pos < len(text) and char_class(node[1], text[pos])  # type: ignore[arg-type]
                return {pos + 1} if ok else set()
            if kind == "ref":
                return set(rule(node[1], pos))  # type: ignore[arg-type]
            raise AssertionError(kind)

        return len(text) in rule("root", 0)


LEAN = lean_output_schema(load_domain("general"))


@pytest.fixture(scope="module")
def lean() -> GbnfMatcher:
    return GbnfMatcher(compact_grammar(LEAN.model_json_schema()))


def compact(value: object) -> str:
    return json.dumps(value, separators=(", ", ": "))


def test_the_lean_grammar_admits_compact_answers(lean: GbnfMatcher) -> None:
    """Catches: a grammar that refuses a valid answer (empty lists, escapes, unicode)."""
    answers = [
        {"entities": [], "relationships": []},
        {
            "entities": [{"name": 'Ada "the" Lovelace', "type": "Person"}],
            "relationships": [{"source": "Ada", "target": "Zürich", "type": "LIVES_IN"}],
        },
    ]
    for answer in answers:
        LEAN.model_validate(answer)
        assert lean.matches(compact(answer))
        assert lean.matches(json.dumps(answer, separators=(",", ":")))


def test_the_lean_grammar_refuses_what_the_schema_refuses(lean: GbnfMatcher) -> None:
    """Catches: room for a small model to ramble (newlines, extra keys, free types, long names)."""
    good = {"entities": [{"name": "Ada", "type": "Person"}], "relationships": []}
    assert lean.matches(compact(good))
    assert not lean.matches(json.dumps(good, indent=2))
    refused = [
        {"entities": [{"name": "Ada", "type": "Person", "description": "x"}], "relationships": []},
        {"entities": [{"name": "Ada", "type": "Wizard"}], "relationships": []},
        {"entities": [{"name": "A" * 101, "type": "Person"}], "relationships": []},
        {"entities": [{"type": "Person"}], "relationships": []},
        {"entities": []},
        {"entities": [], "relationships": [{"source": "A", "target": "B", "type": "LOVES"}]},
    ]
    for answer in refused:
        assert not lean.matches(compact(answer)), answer


def test_optional_properties_and_open_maps() -> None:
    """Catches: commas wrong when optional keys are left out, or maps and nulls refused."""

    class Item(BaseModel):
        model_config = ConfigDict(extra="forbid")
        first: int | None = None
        second: str
        third: dict[str, float | bool] | None = None
        kind: Literal["a"] = "a"
        score: float = Field(default=0.5, ge=0, le=1)

    grammar = GbnfMatcher(compact_grammar(Item.model_json_schema()))
    for answer in (
        {"second": "x"},
        {"first": None, "second": "x"},
        {"first": -3, "second": "", "third": {"k": 1.5e3, "b": True}, "kind": "a", "score": 1},
        {"second": "x", "score": 0.25},
    ):
        assert grammar.matches(compact(answer)), answer
    for text in (
        '{"first": 1}',
        '{, "second": "x"}',
        '{"second": "x",}',
        '{"second": "x", "kind": "b"}',
    ):
        assert not grammar.matches(text), text


def test_the_full_extraction_schema_compiles() -> None:
    grammar = GbnfMatcher(compact_grammar(ExtractionOutput.model_json_schema()))
    answer = {
        "entities": [{"name": "Ada", "type": "Person", "properties": {"born": 1815}}],
        "relationships": [{"source": "Ada", "target": "B", "type": "X", "confidence": 0.9}],
    }
    assert grammar.matches(compact(answer))


def test_unsupported_keywords_are_refused() -> None:
    """Catches: a keyword dropped silently, so the grammar admits what the schema refuses."""
    with pytest.raises(ValueError, match="pattern"):
        compact_grammar({"type": "string", "pattern": "^a$"})
    with pytest.raises(ValueError, match="unconstrained"):
        compact_grammar({"type": "object", "properties": {"x": {}}})
