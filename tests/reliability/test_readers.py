"""Records a user can hand `ingest` that `json`/`csv` accept but redstring cannot store.

Each is refused by `read_records` with the file and line, before anything is stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from redstring.composition.records import read_records, read_text_file
from redstring.domain.exceptions import UnreadableFileError
from redstring.domain.json_text import JsonTextError, parse_json

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("big.jsonl", '{"name": "a", "n": ' + "1" * 5000 + "}\n", "big.jsonl:1: not a usable"),
        ("inf.jsonl", '\n{"name": "a", "n": 1e999}\n', "inf.jsonl:2: not a usable"),
        ("nan.jsonl", '{"name": "a", "n": NaN}\n', "NaN is not a number"),
        ("sur.jsonl", '{"name": "\\ud800"}\n', "sur.jsonl:1: text that is not valid Unicode"),
        ("key.jsonl", '{"\\udfff": 1}\n', "not valid Unicode"),
        ("list.jsonl", "[1, 2]\n", "list.jsonl:1: each line must be a JSON object"),
        ("bad.jsonl", '{"a": 1}\n{oops\n', "bad.jsonl:2: not valid JSON"),
        ("ragged.csv", "name,type\nAda,Person,x\n", "ragged.csv:2: 3 fields, but the header"),
        ("dup.csv", "name,name\nA,B\n", "dup.csv:1: the header names column 'name' twice"),
        ("huge.csv", 'name\n"' + "x" * 200_000 + '"\n', "huge.csv:2: not valid CSV"),
    ],
)
def test_a_record_redstring_cannot_store_is_refused_with_its_line(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UnreadableFileError, match=message.replace("(", r"\(")):
        read_records(path)


def test_a_line_separator_inside_a_json_string_does_not_split_the_record(tmp_path: Path) -> None:
    path = tmp_path / "ls.jsonl"
    path.write_text('{"name": "a\u2028b"}\r\n\n{"name": "c"}\n', encoding="utf-8")
    assert read_records(path) == [{"name": "a\u2028b"}, {"name": "c"}]


def test_a_quoted_csv_field_may_span_lines_and_short_rows_keep_their_fields(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ml.csv"
    path.write_text('name,type,born\n"Ada\nLovelace",Person\n\n', encoding="utf-8")
    assert read_records(path) == [{"name": "Ada\nLovelace", "type": "Person"}]
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    assert read_records(empty) == []


def test_a_byte_order_mark_is_not_part_of_the_first_column_name(tmp_path: Path) -> None:
    """Catches an Excel "CSV UTF-8" export (a byte-order mark first, ';' between
    fields, CRLF line ends) read with the mark in its first header, so `--id-column
    id` found no column 'id'."""
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufeffid;name\r\n1;Ann Lee\r\n".encode())
    assert read_records(path) == [{"id": "1", "name": "Ann Lee"}]
    lines = tmp_path / "marked.jsonl"
    lines.write_bytes('\ufeff{"name": "Ann"}\n'.encode())
    assert read_records(lines) == [{"name": "Ann"}]


def test_a_document_that_is_not_utf8_or_not_a_file_is_refused_by_name(tmp_path: Path) -> None:
    latin = tmp_path / "latin.md"
    latin.write_bytes("café".encode("latin-1"))
    with pytest.raises(UnreadableFileError, match=r"latin.md: not UTF-8 text"):
        read_text_file(latin)
    with pytest.raises(UnreadableFileError, match="cannot read"):
        read_text_file(tmp_path)


def test_json_text_depth_counts_the_outer_value_as_level_one() -> None:
    assert parse_json("[[1]]", max_depth=2) == [[1]]
    with pytest.raises(JsonTextError, match="more than 2 levels"):
        parse_json('[{"a": []}]', max_depth=2)
