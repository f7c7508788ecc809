"""Hypothesis-driven hostile input to every reader and parser a user or a model feeds.

CSV and JSONL files, text documents, CLI arguments, tenant names and LLM answers of
any shape. What each test holds: the only exceptions are redstring's typed errors
(`RedstringError`), and a refused input stores nothing (the log is as it was).
`REDSTRING_FUZZ_EXAMPLES` scales them (see `tests/reliability/fuzz.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from redstring.cli.app import app
from redstring.composition.build_graph import build_graph
from redstring.composition.records import (
    RecordMapping,
    import_records,
    read_records,
    read_text_file,
)
from redstring.composition.workspace import Workspace
from redstring.consolidation.adjudication import PairVerdicts
from redstring.domain.exceptions import RedstringError
from redstring.embeddings.fake import FakeEmbeddingProvider
from redstring.extraction.classify import DomainChoice
from redstring.extraction.schemas import ExtractionOutput
from redstring.llm.fake import FakeLlmProvider
from redstring.llm.validation import validate_text
from tests.reliability.fuzz import EXAMPLES, FUZZ, hostile_text, json_values

WHEN = datetime(2026, 1, 1, tzinfo=UTC)
DIMENSION = 8


async def _import_file(path: Path, mapping: RecordMapping) -> None:
    """Read and import one records file into a fresh workspace; a refusal stores nothing."""
    ws = Workspace.memory(dimension=DIMENSION)
    tenant = ws.register_tenant("fuzz")
    try:
        records = read_records(path)
        await import_records(
            records,
            workspace=ws,
            tenant_id=tenant,
            source_id=path.name,
            mapping=mapping,
            observed_at=WHEN,
            embeddings=FakeEmbeddingProvider(dimension=DIMENSION),
        )
    except RedstringError:
        assert await ws.log.last_position() == 0, "a refused file stored something"
        return
    # Accepted: stored entities match their vectors, and a replay agrees.
    entities = await ws.graph.count_entities(tenant)
    assert await ws.vectors.count(tenant) == entities
    await ws.replay()
    assert await ws.graph.count_entities(tenant) == entities


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


csv_cells = st.text(st.sampled_from(list('ab,"\n\r \x00\ufeffé名;')), max_size=12)
csv_text = st.lists(st.lists(csv_cells, min_size=1, max_size=5), max_size=6).map(
    lambda rows: "\n".join(",".join(row) for row in rows)
)
mappings = st.builds(
    RecordMapping,
    name_field=st.sampled_from([None, "name", "a", ""]),
    entity_type=st.sampled_from(["Person", " x "]),
    id_field=st.sampled_from([None, "id", "a"]),
)


@FUZZ
@given(
    header=st.sampled_from(["name,type,id\n", "id,name\n", "given_name,family_name\n", ""]),
    body=st.one_of(csv_text, hostile_text),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "latin-1", "utf-16"]),
    mapping=mappings,
)
def test_any_csv_is_imported_or_refused_with_a_typed_error(
    header: str, body: str, encoding: str, mapping: RecordMapping
) -> None:
    EXAMPLES["csv"] += 1
    with tempfile.TemporaryDirectory() as tmp:
        errors = "surrogatepass" if encoding.startswith("utf") else "replace"
        data = (header + body).encode(encoding, errors=errors)
        path = _write(Path(tmp), "f.csv", data)
        asyncio.run(_import_file(path, mapping))


jsonl_lines = st.one_of(
    st.dictionaries(
        st.sampled_from(["name", "id", "type", "x", "given_name", "family_name"]) | hostile_text,
        json_values,
        max_size=5,
    ).map(lambda d: json.dumps(d, ensure_ascii=True)),
    json_values.map(lambda v: json.dumps(v, ensure_ascii=False)),
    st.sampled_from([1, 32, 33, 900, 10_000]).map(
        lambda n: '{"name": "a", "x": ' + "[" * n + "]" * n + "}"
    ),
    st.sampled_from(["{", "NaN", '{"name": 1e999}', '{"n": ' + "9" * 4400 + "}", "\x00"]),
    hostile_text,
)


@FUZZ
@given(lines=st.lists(jsonl_lines, max_size=5), mapping=mappings)
def test_any_jsonl_is_imported_or_refused_with_a_typed_error(
    lines: list[str], mapping: RecordMapping
) -> None:
    EXAMPLES["jsonl"] += 1
    with tempfile.TemporaryDirectory() as tmp:
        data = "\n".join(lines).encode("utf-8", errors="surrogatepass")
        path = _write(Path(tmp), "f.jsonl", data)
        asyncio.run(_import_file(path, mapping))


async def _build(text: str, provider: FakeLlmProvider | None) -> None:
    ws = Workspace.memory(dimension=DIMENSION)
    tenant = ws.register_tenant("fuzz")
    try:
        report = await build_graph(
            text,
            workspace=ws,
            tenant_id=tenant,
            source_id="doc.md",
            provider=provider,
            embeddings=FakeEmbeddingProvider(dimension=DIMENSION),
        )
    except RedstringError:
        assert await ws.log.last_position() == 0, "a refused document stored something"
        return
    if not report.ok:
        assert report.error is not None
        # Incomplete: at most the chunks that worked and the failure are recorded.
        logged = {r.event_type for r in await ws.log.read_all()}
        assert logged <= {"ChunkExtracted", "ExtractionFailed"}, "a failed document completed"
        assert await ws.graph.count_entities(tenant) == 0, "a failed document reached the graph"
    else:
        assert await ws.graph.count_entities(tenant) == report.entities


@FUZZ
@given(
    data=st.one_of(
        hostile_text.map(lambda t: t.encode("utf-8", errors="surrogatepass")),
        st.binary(max_size=200),
        st.lists(
            st.sampled_from(["Ada Lovelace", "IBM Corp.", "Dr. X", "\n\n", " met ", "\u200d", "ß"]),
            max_size=20,
        ).map(lambda parts: "".join(parts).encode("utf-8")),
    )
)
def test_any_text_document_is_extracted_offline_or_refused_with_a_typed_error(data: bytes) -> None:
    """A document as a user feeds it: a file's bytes, read as `ingest` reads them.

    (`build_graph` given a `str` holding a lone surrogate raises `UnicodeEncodeError`;
    no file can decode to one. BACKLOG "Reliability harnesses".)"""
    EXAMPLES["text"] += 1
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(Path(tmp), "doc.md", data)
        try:
            text = read_text_file(path)
        except RedstringError:
            return
        asyncio.run(_build(text, None))


extraction_like = st.fixed_dictionaries(
    {},
    optional={
        "entities": st.one_of(
            json_values,
            st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "name": json_values,
                        "type": st.sampled_from(["Person", "", "Nope"]) | hostile_text,
                        "description": json_values,
                        "properties": json_values,
                    },
                ),
                max_size=4,
            ),
        ),
        "relationships": st.one_of(
            json_values,
            st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "source": json_values,
                        "target": json_values,
                        "type": json_values,
                        "confidence": json_values,
                    },
                ),
                max_size=3,
            ),
        ),
        "foo": json_values,
    },
)
llm_answers = st.one_of(
    extraction_like.map(lambda d: json.dumps(d, ensure_ascii=True)),
    json_values.map(json.dumps),
    hostile_text,
    st.sampled_from([1, 32, 33, 900, 10_000]).map(
        lambda n: '{"entities": ' + "[" * n + "]" * n + "}"
    ),
    extraction_like.map(lambda d: "```json\n" + json.dumps(d) + "\n```"),
)


@FUZZ
@given(text=st.sampled_from(["Ada Lovelace met Alan Turing.", "x", ""]), answer=llm_answers)
def test_any_llm_answer_is_stored_or_fails_the_document_with_a_typed_error(
    text: str, answer: str
) -> None:
    EXAMPLES["llm"] += 1
    asyncio.run(_build(text, FakeLlmProvider(lambda _text, _schema: answer)))
    for schema in (DomainChoice, PairVerdicts, ExtractionOutput):
        with contextlib.suppress(RedstringError):
            validate_text(answer, schema)


@FUZZ
@given(name=st.one_of(hostile_text, st.sampled_from(["", " ", "default", "a" * 5000])))
def test_any_tenant_name_is_registered_apart_or_refused_with_a_typed_error(name: str) -> None:
    EXAMPLES["tenant"] += 1
    with (
        tempfile.TemporaryDirectory() as tmp,
        Workspace.open(Path(tmp) / "w.db", create=True, dimension=DIMENSION) as ws,
    ):
        other = ws.register_tenant("other")
        try:
            tenant = ws.register_tenant(name)
        except RedstringError:
            assert ws.tenant_names() == ["other"]
            return
        assert name in ws.tenant_names()
        assert ws.tenant(name) == tenant
        assert (tenant == other) == (name == "other")


# -- the CLI, in process ------------------------------------------------------------------

COMMANDS: dict[str, list[str]] = {
    "search": ["QUERY", "--mode", "--type", "--k", "--json"],
    "show": ["REF", "--json"],
    "neighbours": ["REF", "--json"],
    "stats": ["--json"],
    "undo-merge": ["REF"],
    "export": ["PATH", "--format"],
    "consolidate": ["--type", "--field", "--json"],
    "replay": [],
    "ingest": ["PATH", "--type", "--id-column", "--name-column", "--type-column", "--json"],
    "init": ["--embedder"],
}
OPTION_VALUES: dict[str, Any] = {
    "--mode": st.sampled_from(["hybrid", "lexical", "semantic", "bogus", ""]),
    "--k": st.sampled_from(["0", "-1", "5", "x", "99999999999999999999"]),
    "--format": st.sampled_from(["jsonl", "graphml", "xml"]),
    "--embedder": st.sampled_from(["fake", "none", "bogus"]),
    "--field": st.sampled_from(["born=date", "=", "x=", "born=nonsense", "a=ignore"]),
}


@st.composite
def cli_argv(draw: st.DrawFn, folder: str) -> list[str]:
    command = draw(st.sampled_from(sorted(COMMANDS)))
    argv = [command]
    for item in draw(st.lists(st.sampled_from(COMMANDS[command] or ["--json"]), max_size=4)):
        if item in ("QUERY", "REF"):
            argv.append(draw(st.one_of(hostile_text, st.sampled_from(["Ada Lovelace", "--"]))))
        elif item == "PATH":
            argv.append(
                os.path.join(
                    folder,
                    draw(st.sampled_from(["a.csv", "a.jsonl", "a.md", "missing.md", "out.x"])),
                )
            )
        elif item == "--json":
            argv.append(item)
        else:
            argv += [item, draw(OPTION_VALUES.get(item, hostile_text))]
    if draw(st.booleans()):
        argv += ["--tenant", draw(st.one_of(hostile_text, st.just("default")))]
    argv += ["--db", os.path.join(folder, draw(st.sampled_from(["w.db", "new.db", "a.md"])))]
    return argv


@pytest.fixture(scope="module")
def cli_folder() -> Any:
    with tempfile.TemporaryDirectory(prefix="redstring-fuzz-cli-") as tmp:
        folder = Path(tmp)
        (folder / "a.md").write_text("Ada Lovelace met Charles Babbage in London.\n")
        (folder / "a.csv").write_text("id,name,type\n1,Ada Lovelace,Person\n2,Ada Lovelace,P\n")
        (folder / "a.jsonl").write_text('{"name": "Alan Turing", "type": "Person"}\n{"x": 1}\n')
        result = CliRunner().invoke(
            app, ["init", "--db", str(folder / "w.db"), "--embedder", "fake"]
        )
        assert result.exit_code == 0, result.output
        yield folder


def _log_position(db: Path) -> int | None:
    if not db.exists():
        return None
    try:
        with Workspace.open(db, create=False) as ws:
            return asyncio.run(ws.log.last_position())
    except RedstringError:
        return None


def test_any_cli_arguments_end_in_an_exit_code_never_a_traceback(
    cli_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # --llm and --adjudicate reach a closed local port at once: an outage, not a hang.
    monkeypatch.setenv("REDSTRING_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("REDSTRING_LLM_MODEL", "m")
    monkeypatch.setenv("REDSTRING_LLM_MAX_RETRIES", "0")
    runner = CliRunner()

    @FUZZ
    @given(argv=cli_argv(str(cli_folder)))
    def run(argv: list[str]) -> None:
        EXAMPLES["cli"] += 1
        before = _log_position(cli_folder / "w.db")
        result = runner.invoke(app, argv)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise AssertionError(f"{argv!r} raised {result.exception!r}") from result.exception
        assert result.exit_code in (0, 1, 2), (argv, result.exit_code, result.output)
        if result.exit_code == 2:
            assert _log_position(cli_folder / "w.db") == before, f"{argv!r} refused but stored"

    run()
