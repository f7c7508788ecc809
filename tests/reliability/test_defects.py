"""The two defects issue 16 found by hand, each pinned by a test named after it.

- A JSONL line nested 10,000 deep ended the CLI in a `RecursionError` traceback.
- An LLM answer that is valid JSON of the wrong shape (`{"foo": 1}`) was taken as
  "no entities" and the document marked done, so a rerun never retried it.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

import pytest
from typer.testing import CliRunner

from redstring.cli.app import app
from redstring.composition.build_graph import build_graph
from redstring.composition.records import read_records
from redstring.composition.workspace import Workspace
from redstring.domain.exceptions import UnreadableFileError
from redstring.events.streams import document_stream
from redstring.llm.fake import FakeLlmProvider
from tests.support.openai_chat_server import ChatServer, completion

if TYPE_CHECKING:
    from pathlib import Path

NESTED_10K = '{"name": "Ada", "type": "Person", "p": ' + "[" * 10_000 + "]" * 10_000 + "}"
GOOD = {"entities": [{"name": "Ada Lovelace", "type": "Person"}], "relationships": []}


def log_length(db: Path) -> int:
    with Workspace.open(db, create=False) as ws:
        return asyncio.run(ws.log.last_position())


def test_a_jsonl_line_nested_10000_deep_is_refused_by_line_not_a_recursion_error(
    tmp_path: Path,
) -> None:
    db = tmp_path / "w.db"
    runner = CliRunner()
    assert runner.invoke(app, ["init", "--db", str(db), "--embedder", "fake"]).exit_code == 0
    good = tmp_path / "good.jsonl"
    good.write_text('{"name": "Ada Lovelace", "type": "Person"}\n', encoding="utf-8")
    assert runner.invoke(app, ["ingest", str(good), "--db", str(db)]).exit_code == 0
    before = log_length(db)
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"name": "Bob", "type": "Person"}\n' + NESTED_10K + "\n", encoding="utf-8")

    result = runner.invoke(app, ["ingest", str(deep), "--db", str(db)])

    assert result.exit_code == 2, result.output
    assert not isinstance(result.exception, RecursionError)
    assert "deep.jsonl:2:" in result.output
    assert "nested too deeply" in result.output
    assert log_length(db) == before, "the refused file stored something"


def test_a_record_nested_below_the_json_limit_but_too_deep_to_store_is_refused(
    tmp_path: Path,
) -> None:
    """900 levels parse, but pydantic and the log's encoder recurse per level too."""
    path = tmp_path / "d900.jsonl"
    path.write_text('{"name": "A", "p": ' + "[" * 900 + "]" * 900 + "}\n", encoding="utf-8")
    with pytest.raises(UnreadableFileError, match=r"d900.jsonl:1: JSON nested more than"):
        read_records(path)


async def test_an_llm_answer_of_the_wrong_shape_fails_the_document_and_a_rerun_retries_it() -> None:
    ws = Workspace.memory()
    tenant = ws.register_tenant("t")
    provider = FakeLlmProvider(['{"foo": 1}'])

    report = await build_graph(
        "Ada Lovelace wrote notes.",
        workspace=ws,
        tenant_id=tenant,
        source_id="d",
        provider=provider,
    )

    assert not report.ok
    assert report.error is not None
    assert report.error.startswith("MalformedOutputError")
    assert "neither 'entities' nor 'relationships'" in report.error
    logged = await ws.log.read_stream(document_stream(tenant, "d"), tenant)
    assert [r.event_type for r in logged] == ["ExtractionFailed"]  # not complete
    assert await ws.graph.count_entities(tenant) == 0

    rerun = await build_graph(
        "Ada Lovelace wrote notes.",
        workspace=ws,
        tenant_id=tenant,
        source_id="d",
        provider=FakeLlmProvider([GOOD]),
    )
    assert rerun.ok
    assert not rerun.unchanged
    assert rerun.entities == 1


def test_a_wrong_shape_answer_from_a_real_endpoint_fails_the_cli_ingest_and_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "w.db"
    doc = tmp_path / "notes.md"
    doc.write_text("Ada Lovelace wrote notes.\n", encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(app, ["init", "--db", str(db), "--embedder", "fake"]).exit_code == 0
    with ChatServer() as server:
        monkeypatch.setenv("REDSTRING_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("REDSTRING_LLM_MODEL", "test-model")
        # The wrong shape twice: the first answer and the one repair attempt.
        server.script(completion(json.dumps({"foo": 1})), completion(json.dumps({"foo": 2})))
        failed = runner.invoke(app, ["ingest", str(doc), "--db", str(db), "--llm", "--json"])
        assert failed.exit_code == 1, failed.output
        assert "failed: MalformedOutputError" in failed.output
        server.script(completion(json.dumps(GOOD)))
        again = runner.invoke(app, ["ingest", str(doc), "--db", str(db), "--llm", "--json"])
    assert again.exit_code == 0, again.output
    rows = json.loads(again.output)
    assert rows[0]["status"] == "ok"
    assert rows[0]["entities"] == 1


def test_a_cli_argument_that_is_not_utf8_is_refused_not_a_unicode_encode_error(
    tmp_path: Path,
) -> None:
    """Found by the CLI fuzzer: `consolidate --type '\\ud800'` (undecodable argv bytes)
    raised UnicodeEncodeError from the store."""
    db = tmp_path / "w.db"
    runner = CliRunner()
    assert runner.invoke(app, ["init", "--db", str(db), "--embedder", "fake"]).exit_code == 0
    result = runner.invoke(app, ["consolidate", "--type", "\ud800", "--db", str(db)])
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, UnicodeEncodeError)
    assert "--entity-type" in result.output
    assert "not valid UTF-8" in result.output
