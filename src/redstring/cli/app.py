"""`redstring` subcommands.

Exit codes: 0 success, 1 redstring refused (bad input, unknown tenant or entity,
a workspace it cannot open), 2 a file could not be read (missing, not UTF-8, not
valid CSV/JSONL). Every command takes `--db` (default ./redstring.db) and
`--tenant` (default "default"); `--json` prints machine-readable output.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from dataclasses import asdict
from datetime import UTC, datetime
from enum import StrEnum
from functools import wraps
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar
from uuid import UUID
from xml.etree import ElementTree

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from redstring.composition.answer import answer_question
from redstring.composition.build_graph import DEFAULT_BATCH, build_graphs, extraction_usage
from redstring.composition.consolidation import ConsolidationReport, Consolidator
from redstring.composition.context import (
    DEFAULT_TOKEN_BUDGET,
    ContextBuilder,
    render_relationship,
)
from redstring.composition.records import (
    RecordMapping,
    import_records,
    read_records,
    read_text_file,
)
from redstring.composition.retrieval import Retriever
from redstring.composition.workspace import DEFAULT_PATH, Workspace
from redstring.consolidation.adjudication import LlmAdjudicator
from redstring.domain.exceptions import (
    InvalidInputError,
    NotFoundError,
    RedstringError,
    UnreadableFileError,
)
from redstring.domain.ids import EntityId
from redstring.domain.normalization import normalize_name
from redstring.domain.retrieval import RetrievalMode

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine

    from redstring.domain.entity import Entity
    from redstring.domain.ids import TenantId
    from redstring.ports.embedding import EmbeddingProvider
    from redstring.ports.llm import LlmProvider

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Documents and records into a tenant-scoped knowledge graph: ingest, consolidate, search.",
)
console = Console()
errors = Console(stderr=True)

TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst", ".text"}
RECORD_SUFFIXES = {".csv", ".jsonl", ".ndjson"}


class Embedder(StrEnum):
    LOCAL = "local"
    FAKE = "fake"
    OPENAI = "openai"
    NONE = "none"


class ExportFormat(StrEnum):
    JSONL = "jsonl"
    GRAPHML = "graphml"


DbOption = Annotated[Path, typer.Option("--db", help="Workspace file.", envvar="REDSTRING_DB")]
TenantOption = Annotated[str, typer.Option("--tenant", "-t", help="Tenant name.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
HopsOption = Annotated[
    int, typer.Option("--hops", help="Relationship steps from the retrieved entities (0-2).")
]
BudgetOption = Annotated[
    int, typer.Option("--budget", help="Estimated tokens the context may take.")
]

P = ParamSpec("P")
R = TypeVar("R")


def reports_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Turn redstring's typed errors into a one-line message and an exit code."""

    @wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            _check_arguments(kwargs)
            return command(*args, **kwargs)
        except UnreadableFileError as exc:
            errors.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from exc
        except RedstringError as exc:
            errors.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(1) from exc

    return wrapper


def _check_arguments(arguments: dict[str, Any]) -> None:
    """Refuse an argument no store can hold: bytes that are not UTF-8 reach Python as
    lone surrogates (a query, a tenant, a `--type` from a mis-encoded shell)."""
    for name, value in arguments.items():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str):
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError as exc:
                    raise InvalidInputError(
                        f"--{name.replace('_', '-')} {text!r} is not valid UTF-8 text"
                    ) from exc


def run(coroutine: Coroutine[Any, Any, R]) -> R:
    return asyncio.run(coroutine)


# -- collaborators --------------------------------------------------------------------


def make_embedder(kind: Embedder) -> EmbeddingProvider | None:
    if kind is Embedder.NONE:
        return None
    if kind is Embedder.FAKE:
        from redstring.embeddings.fake import FakeEmbeddingProvider

        return FakeEmbeddingProvider(dimension=384)
    if kind is Embedder.OPENAI:
        from redstring.embeddings.openai_compat import OpenAIEmbeddingProvider

        return OpenAIEmbeddingProvider()
    from redstring.embeddings.local import LocalEmbeddingProvider

    return LocalEmbeddingProvider()


def make_llm(workspace_file: Path | None = None) -> LlmProvider:
    """The configured endpoint; with `workspace_file`, behind the response cache that
    lives beside it (`redstring.llm.cache`), so a question is paid for once."""
    from redstring.llm.openai_compat import OpenAICompatibleProvider

    provider = OpenAICompatibleProvider()
    if workspace_file is None:
        return provider
    from redstring.llm.cache import CachingLlmProvider, SqliteResponseStore, cache_path_for

    return CachingLlmProvider(provider, SqliteResponseStore(cache_path_for(workspace_file)))


def open_workspace(db: Path, *, create: bool = False) -> Workspace:
    if not create and not db.exists():
        raise NotFoundError(f"no workspace at {db}; run `redstring init --db {db}` first")
    return Workspace.open(db, create=create)


def workspace_embedder(workspace: Workspace) -> EmbeddingProvider | None:
    return make_embedder(Embedder(workspace.setting("embedder") or Embedder.LOCAL.value))


# -- commands -------------------------------------------------------------------------


@app.command()
@reports_errors
def init(
    db: DbOption = Path(DEFAULT_PATH),
    embedder: Annotated[
        Embedder, typer.Option(help="Embedding model the workspace is built with.")
    ] = Embedder.LOCAL,
    tenant: TenantOption = "default",
) -> None:
    """Create a workspace file (one SQLite file holds everything)."""
    if db.exists():
        raise InvalidInputError(f"{db} already exists; remove it or choose another --db")
    provider = make_embedder(embedder)
    dimension = provider.dimension if provider is not None else 384
    with Workspace.open(db, create=True, dimension=dimension) as workspace:
        workspace.set_setting("embedder", embedder.value)
        workspace.register_tenant(tenant)
    console.print(f"created {db} (embedder {embedder.value}, tenant {tenant!r})")


@app.command()
@reports_errors
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    db: DbOption = Path(DEFAULT_PATH),
    tenant: TenantOption = "default",
    llm: Annotated[
        bool, typer.Option("--llm", help="Extract with the LLM endpoint (REDSTRING_LLM_*).")
    ] = False,
    domain: Annotated[
        str, typer.Option(help="Extraction domain with --llm: general, business, ... or auto.")
    ] = "general",
    name_column: Annotated[
        str | None,
        typer.Option(
            help="Records: the name field (default: 'name', else the one whole-name column, "
            "else given + middle + family name columns)."
        ),
    ] = None,
    type_column: Annotated[str | None, typer.Option(help="Records: the type field.")] = None,
    entity_type: Annotated[
        str | None, typer.Option("--type", help="Records: one type for every record.")
    ] = None,
    id_column: Annotated[str | None, typer.Option(help="Records: a stable id field.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Ingest text/markdown documents (extraction) and CSV/JSONL records (direct mapping)."""
    files = _expand(paths)
    with open_workspace(db, create=True) as workspace:
        tenant_id = workspace.register_tenant(tenant)
        embeddings = workspace_embedder(workspace)
        provider = make_llm(db) if llm else None
        mapping = None
        if any(f.suffix.lower() in RECORD_SUFFIXES for f in files):
            mapping = RecordMapping(
                name_field=name_column,
                type_field=None if entity_type else (type_column or "type"),
                entity_type=entity_type,
                id_field=id_column,
            )
        results = run(
            _ingest(files, workspace, tenant_id, provider, domain, embeddings, mapping, as_json)
        )
    failed = any(row["status"].startswith("failed") for row in results)
    if as_json:
        console.print_json(data=results)
        if failed:
            raise typer.Exit(1)
        return
    table = Table(title=f"ingested into {db} (tenant {tenant!r})")
    columns: tuple[str, ...] = ("file", "status", "entities", "relationships", "embedded")
    if llm:
        columns += ("llm_calls", "tokens")
    for column in columns:
        table.add_column(column)
    for row in results:
        table.add_row(*(str(row[key]) for key in columns))
    console.print(table)
    if failed:
        raise typer.Exit(1)


async def _ingest(
    files: list[Path],
    workspace: Workspace,
    tenant_id: TenantId,
    provider: LlmProvider | None,
    domain: str,
    embeddings: EmbeddingProvider | None,
    mapping: RecordMapping | None,
    quiet: bool,
) -> list[dict[str, Any]]:
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        disable=quiet,
        transient=True,
    ) as progress:
        task = progress.add_task("ingesting", total=len(files))
        rows: dict[Path, dict[str, Any]] = {}
        texts = [f for f in files if f.suffix.lower() not in RECORD_SUFFIXES]
        # Every records file is read and checked before any is imported: a bad line in
        # the last file refuses the command with the store untouched.
        record_files = {
            file: read_records(file) for file in files if file.suffix.lower() in RECORD_SUFFIXES
        }
        for file, records in record_files.items():
            progress.update(task, description=f"ingesting {file.name}")
            assert mapping is not None
            report = await import_records(
                records,
                workspace=workspace,
                tenant_id=tenant_id,
                source_id=file.name,
                mapping=mapping,
                observed_at=datetime.now(UTC),
                embeddings=embeddings,
            )
            status = "ok" if report.entities else "unchanged" if report.unchanged else "empty"
            if report.name_source not in ("", "name"):
                status += f" (names from {report.name_source})"
            if report.skipped:
                status += f" ({report.skipped} records without name/type skipped)"
            rows[file] = {
                "file": str(file),
                "status": status,
                "entities": report.entities,
                "relationships": 0,
                "embedded": report.embedded,
                "llm_calls": 0,
                "tokens": 0,
            }
            progress.advance(task)
        # Text files go through `build_graphs` a batch at a time: one projection
        # catch-up and one embedding call per batch, not per file.
        for first in range(0, len(texts), DEFAULT_BATCH):
            batch = texts[first : first + DEFAULT_BATCH]
            progress.update(task, description=f"ingesting {batch[0].name} ...")
            built = await build_graphs(
                [(file.name, read_text_file(file)) for file in batch],
                workspace=workspace,
                tenant_id=tenant_id,
                provider=provider,
                domain=domain if provider is not None else None,
                embeddings=embeddings,
            )
            for file, one in zip(batch, built, strict=True):
                status = (
                    "unchanged" if one.unchanged else "ok" if one.ok else f"failed: {one.error}"
                )
                rows[file] = {
                    "file": str(file),
                    "status": status,
                    "entities": one.entities,
                    "relationships": one.relationships,
                    "embedded": one.embedded,
                    "llm_calls": one.tokens.calls,
                    "tokens": one.tokens.total_tokens,
                }
            progress.advance(task, len(batch))
    return [rows[file] for file in files]


@app.command()
@reports_errors
def consolidate(
    db: DbOption = Path(DEFAULT_PATH),
    tenant: TenantOption = "default",
    entity_type: Annotated[
        list[str] | None, typer.Option("--type", help="Only these entity types (repeatable).")
    ] = None,
    adjudicate: Annotated[
        bool,
        typer.Option(
            "--adjudicate", help="Let the LLM endpoint (REDSTRING_LLM_*) decide grey-band pairs."
        ),
    ] = False,
    field_kind: Annotated[
        list[str] | None,
        typer.Option(
            "--field",
            help="Set a record property's kind, NAME=KIND (e.g. born=date, notes=ignore; "
            "repeatable). Kinds are detected from the values otherwise.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Find and merge duplicate entities. Grey-band pairs are kept apart unless adjudicated."""
    overrides = _field_overrides(field_kind or [])
    adjudicator = LlmAdjudicator(make_llm()) if adjudicate else None
    with open_workspace(db) as workspace:
        tenant_id = workspace.tenant(tenant)
        consolidator = Consolidator(workspace, adjudicator=adjudicator)
        report = run(
            consolidator.consolidate(tenant_id, entity_types=entity_type, field_overrides=overrides)
        )
    if as_json:
        console.print_json(data=_report_dict(report))
        return
    _print_consolidation(report)


def _field_overrides(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, kind = item.partition("=")
        if not sep or not name.strip() or not kind.strip():
            raise InvalidInputError(f"--field {item!r}: expected NAME=KIND, e.g. born=date")
        out[name.strip()] = kind.strip()
    return out


def _report_dict(report: ConsolidationReport) -> dict[str, Any]:
    data = asdict(report)
    data["merge_ids"] = [str(m) for m in report.merge_ids]
    return data


def _print_consolidation(report: ConsolidationReport) -> None:
    for entity_type, used in sorted(report.fields.items()):
        fields = ", ".join(f"{name} as {kind}" for name, kind in used.items())
        console.print(f"{entity_type} records: comparing {fields or 'nothing'}")
        for name, why in sorted(report.left_out.get(entity_type, {}).items()):
            console.print(f"  left out {name}: {why}")
        if entity_type in report.models_trained:
            console.print("  model trained on this tenant's records, logged for later runs")
        elif entity_type in report.models_reused:
            console.print("  model reused as logged by an earlier consolidation")
    bands = ", ".join(f"{band} {count}" for band, count in sorted(report.bands.items()))
    console.print(
        f"{report.entities} entities, {report.candidate_pairs} candidate pairs ({bands or 'none'})"
    )
    decided = sum(report.adjudicated.values())
    grey = (
        f"{decided} grey-band pairs adjudicated ({report.grey_kept_apart} kept apart)"
        if decided
        else f"{report.grey_kept_apart} grey-band pairs kept apart (no adjudicator)"
    )
    console.print(f"merged {report.merged_entities} entities in {report.merges} merges; {grey}")
    if report.merge_ids:
        console.print("merge ids (reverse one with `redstring undo-merge ID`):")
        for merge_id in report.merge_ids:
            console.print(f"  {merge_id}")


@app.command("undo-merge")
@reports_errors
def undo_merge(
    merge_id: Annotated[str, typer.Argument(help="The merge id `consolidate` printed.")],
    db: DbOption = Path(DEFAULT_PATH),
    tenant: TenantOption = "default",
) -> None:
    """Reverse one merge exactly (undo newer merges of the same entities first)."""
    try:
        parsed = UUID(merge_id)
    except ValueError as exc:
        raise InvalidInputError(f"{merge_id!r} is not a merge id") from exc
    with open_workspace(db) as workspace:
        run(Consolidator(workspace).undo(parsed, workspace.tenant(tenant)))
    console.print(f"undid merge {merge_id}")


@app.command()
@reports_errors
def search(
    query: Annotated[str, typer.Argument(help="Free text.")],
    db: DbOption = Path(DEFAULT_PATH),
    tenant: TenantOption = "default",
    mode: Annotated[RetrievalMode, typer.Option(help="Channels to run.")] = RetrievalMode.HYBRID,
    k: Annotated[int, typer.Option("--k", "-k", help="How many results.")] = 10,
    entity_type: Annotated[
        list[str] | None, typer.Option("--type", help="Only these entity types (repeatable).")
    ] = None,
    context: Annotated[
        bool,
        typer.Option(
            "--context",
            help="Entities with the chunk channel fused in, their neighbours, the "
            "relationships among them and supporting passages, within --budget tokens.",
        ),
    ] = False,
    hops: HopsOption = 1,
    budget: BudgetOption = DEFAULT_TOKEN_BUDGET,
    as_json: JsonOption = False,
) -> None:
    """Ranked entities for a free-text query, with each channel's score."""
    with open_workspace(db) as workspace:
        tenant_id = workspace.tenant(tenant)
        if context:
            answer = run(_context(workspace, tenant_id, query, mode, k, entity_type, hops, budget))
        else:
            result = run(_search(workspace, tenant_id, query, mode, k, entity_type))
    if context:
        if as_json:
            console.print_json(answer.model_dump_json())
        else:
            _print_context(answer)
        return
    if as_json:
        console.print_json(result.model_dump_json())
        return
    _print_matches(result.query, result.matches)


@app.command()
@reports_errors
def ask(
    question: Annotated[str, typer.Argument(help="A question about the workspace.")],
    db: DbOption = Path(DEFAULT_PATH),
    tenant: TenantOption = "default",
    mode: Annotated[RetrievalMode, typer.Option(help="Entity channels to run.")] = (
        RetrievalMode.HYBRID
    ),
    k: Annotated[int, typer.Option("--k", "-k", help="Entities retrieved.")] = 10,
    hops: HopsOption = 1,
    budget: BudgetOption = DEFAULT_TOKEN_BUDGET,
    as_json: JsonOption = False,
) -> None:
    """Answer a question from the workspace with the configured LLM, citing passages.

    The answer comes from `search --context`'s context only; a question it does not
    answer gets "the workspace does not hold the answer" (REDSTRING_LLM_* configure
    the endpoint; see docs/how-to/configure-llm.md).
    """
    llm = make_llm()
    with open_workspace(db) as workspace:
        tenant_id = workspace.tenant(tenant)

        async def go() -> Any:
            found = await _context(workspace, tenant_id, question, mode, k, None, hops, budget)
            return await answer_question(question, found, llm)

        answer = run(go())
    if as_json:
        console.print_json(answer.model_dump_json())
        return
    console.print(answer.answer)
    if answer.citations:
        console.print("sources: " + ", ".join(answer.citations))
    if answer.reason:
        console.print(f"({answer.reason})")


async def _search(
    workspace: Workspace,
    tenant_id: TenantId,
    query: str,
    mode: RetrievalMode,
    k: int,
    entity_types: list[str] | None,
) -> Any:
    embeddings = workspace_embedder(workspace)
    if embeddings is None and mode is not RetrievalMode.LEXICAL:
        raise InvalidInputError("this workspace has no embedding model; use --mode lexical")
    retriever = _retriever(workspace, embeddings)
    return await retriever.retrieve(query, tenant_id, k=k, entity_types=entity_types, mode=mode)


async def _context(
    workspace: Workspace,
    tenant_id: TenantId,
    query: str,
    mode: RetrievalMode,
    k: int,
    entity_types: list[str] | None,
    hops: int,
    budget: int,
) -> Any:
    embeddings = workspace_embedder(workspace)
    if embeddings is None and mode is not RetrievalMode.LEXICAL:
        raise InvalidInputError("this workspace has no embedding model; use --mode lexical")
    builder = ContextBuilder(_retriever(workspace, embeddings), workspace.graph, workspace.chunks)
    return await builder.context(
        query,
        tenant_id,
        k=k,
        mode=mode,
        entity_types=entity_types,
        hops=hops,
        token_budget=budget,
    )


def _print_context(answer: Any) -> None:
    table = Table(title=f"context: {answer.query!r}")
    for column in ("#", "entity", "type", "hops", "fused"):
        table.add_column(column, justify="right" if column in ("#", "hops", "fused") else "left")
    for rank, item in enumerate(answer.entities, start=1):
        score = "-" if item.score is None else f"{item.score:.4f}"
        table.add_row(str(rank), item.entity.name, item.entity.entity_type, str(item.hops), score)
    console.print(table)
    names = {item.entity.id: item.entity.name for item in answer.entities}
    if answer.relationships:
        console.print("relationships:")
        for edge in answer.relationships:
            console.print(f"  {render_relationship(edge, names)}", markup=False)
    for chunk in answer.chunks:
        console.print(
            f"[{chunk.chunk_id}] chars {chunk.start}-{chunk.end}, "
            f"{len(chunk.mentions)} mention(s):",
            markup=False,
        )
        console.print(f"  {chunk.text.strip()}", markup=False)
    flag = ", truncated" if answer.truncated else ""
    console.print(f"~{answer.tokens} of {answer.token_budget} tokens{flag}")


def _retriever(workspace: Workspace, embeddings: EmbeddingProvider | None) -> Retriever:
    """A retriever over the workspace; without a model, one fit for lexical mode only."""
    if embeddings is None:
        from redstring.embeddings.fake import FakeEmbeddingProvider

        # Lexical mode never embeds; the provider only satisfies the constructor.
        embeddings = FakeEmbeddingProvider(dimension=workspace.vectors.dimension)
    return Retriever(
        embeddings=embeddings,
        vectors=workspace.vectors,
        graph=workspace.graph,
        chunks=workspace.chunks,
    )


def _print_matches(query: str, matches: list[Any]) -> None:
    table = Table(title=f"search: {query!r}")
    for column in ("#", "entity", "type", "fused", "semantic", "lexical"):
        table.add_column(column, justify="right" if column in ("#", "fused") else "left")
    for rank, match in enumerate(matches, start=1):
        table.add_row(
            str(rank),
            match.entity.name,
            match.entity.entity_type,
            f"{match.score:.4f}",
            "-" if match.semantic is None else f"{match.semantic:.3f}",
            "-" if match.lexical is None else f"{match.lexical:.3f}",
        )
    console.print(table)


@app.command()
@reports_errors
def show(
    entity: Annotated[str, typer.Argument(help="Entity id, or its exact name.")],
    db: DbOption = Path(DEFAULT_PATH),
    tenant: TenantOption = "default",
    as_json: JsonOption = False,
) -> None:
    """One entity with its properties, provenance and relationships."""
    with open_workspace(db) as workspace:
        tenant_id = workspace.tenant(tenant)
        found, relationships, names = run(_show(workspace, tenant_id, entity))
    if as_json:
        payload = {
            "entity": found.model_dump(mode="json"),
            "relationships": [r.model_dump(mode="json") for r in relationships],
        }
        console.print_json(data=payload)
        return
    console.print(f"[bold]{found.name}[/bold]  ({found.entity_type})  id {found.id}")
    console.print(
        f"confidence {found.confidence:.2f}; blocking keys {', '.join(found.blocking_keys)}"
    )
    for key, value in found.properties.items():
        console.print(f"  {key}: {value}")
    for p in found.provenance:
        span = f" chars {p.char_start}-{p.char_end}" if p.char_start is not None else ""
        console.print(f"  from {p.source_id}{span} ({p.method}{', ' + p.model if p.model else ''})")
    for r in relationships:
        console.print(
            f"  {names.get(r.source_id, r.source_id)} -[{r.relationship_type}]-> "
            f"{names.get(r.target_id, r.target_id)}"
        )


async def _show(workspace: Workspace, tenant_id: TenantId, reference: str) -> tuple[Any, Any, Any]:
    found = await resolve_entity(workspace, tenant_id, reference)
    relationships = await workspace.graph.relationships(found.id, tenant_id)
    ends = {r.source_id for r in relationships} | {r.target_id for r in relationships}
    names = {e.id: e.name for e in await workspace.graph.get_entities(list(ends), tenant_id)}
    return found, relationships, names


@app.command()
@reports_errors
def neighbours(
    entity: Annotated[str, typer.Argument(help="Entity id, or its exact name.")],
    db: DbOption = Path(DEFAULT_PATH),
    tenant: TenantOption = "default",
    as_json: JsonOption = False,
) -> None:
    """Entities one relationship away."""
    with open_workspace(db) as workspace:
        tenant_id = workspace.tenant(tenant)

        async def go() -> tuple[Entity, list[Entity]]:
            found = await resolve_entity(workspace, tenant_id, entity)
            return found, await workspace.graph.neighbours(found.id, tenant_id)

        found, near = run(go())
    if as_json:
        console.print_json(data=[e.model_dump(mode="json") for e in near])
        return
    table = Table(title=f"neighbours of {found.name}")
    table.add_column("entity")
    table.add_column("type")
    table.add_column("id")
    for other in near:
        table.add_row(other.name, other.entity_type, str(other.id))
    console.print(table)


async def resolve_entity(workspace: Workspace, tenant_id: TenantId, reference: str) -> Entity:
    """An entity by id (aliases resolved) or by exact normalized name; a clear error otherwise."""
    try:
        entity_id = EntityId(UUID(reference))
    except ValueError:
        entity_id = None
    if entity_id is not None:
        found = await workspace.graph.get_entity(entity_id, tenant_id)
        if found is None:
            raise NotFoundError(f"no entity with id {reference} in this tenant")
        return found
    from redstring.domain.blocking import query_blocking_keys

    wanted = normalize_name(reference)
    groups = await workspace.graph.find_by_blocking_keys(query_blocking_keys(reference), tenant_id)
    candidates = {e.id: e for group in groups.values() for e in group}
    exact = sorted(
        (e for e in candidates.values() if e.normalized_name == wanted), key=lambda e: str(e.id)
    )
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        listing = ", ".join(f"{e.id} ({e.entity_type})" for e in exact)
        raise InvalidInputError(f"{reference!r} names {len(exact)} entities; pass an id: {listing}")
    close = await _lexical_suggestions(workspace, tenant_id, reference)
    hint = f"; did you mean {', '.join(repr(name) for name in close)}?" if close else ""
    raise NotFoundError(
        f"no entity named {reference!r}{hint} (`redstring search {reference!r}` ranks candidates)"
    )


async def _lexical_suggestions(
    workspace: Workspace, tenant_id: TenantId, reference: str
) -> list[str]:
    """Up to three live names close to `reference`, by the lexical channel (no model call)."""
    result = await _retriever(workspace, None).retrieve(
        reference, tenant_id, k=3, mode=RetrievalMode.LEXICAL
    )
    return list(dict.fromkeys(match.entity.name for match in result.matches))


@app.command()
@reports_errors
def replay(db: DbOption = Path(DEFAULT_PATH)) -> None:
    """Rebuild every store from the event log (no model calls)."""
    with open_workspace(db) as workspace:
        run(workspace.replay())
        position = run(workspace.log.last_position())
    console.print(f"replayed {position} log positions into fresh stores")


@app.command()
@reports_errors
def stats(
    db: DbOption = Path(DEFAULT_PATH),
    tenant: TenantOption = "default",
    documents: Annotated[
        bool, typer.Option("--documents", help="Also the LLM tokens each document cost.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Counts for one tenant: entities, relationships, vectors, LLM tokens; the log's length."""
    with open_workspace(db) as workspace:
        tenant_id = workspace.tenant(tenant)

        async def go() -> dict[str, Any]:
            usage = await extraction_usage(workspace, tenant_id)
            figures: dict[str, Any] = {
                "tenant": tenant,
                "entities": await workspace.graph.count_entities(tenant_id),
                "relationships": len(await workspace.graph.list_relationships(tenant_id)),
                "vectors": await workspace.vectors.count(tenant_id),
                "log_position": await workspace.log.last_position(),
                "embedder": workspace.setting("embedder") or Embedder.LOCAL.value,
                "tenants": workspace.tenant_names(),
                "llm_tokens": usage.total.model_dump(),
                "incomplete_documents": usage.incomplete,
            }
            if documents:
                figures["llm_tokens_by_document"] = {
                    source: tokens.model_dump()
                    for source, tokens in sorted(usage.by_document.items())
                }
            return figures

        figures = run(go())
    if as_json:
        console.print_json(data=figures)
        return
    for key, value in figures.items():
        console.print(f"{key:>14}: {value}")


@app.command()
@reports_errors
def export(
    output: Annotated[Path, typer.Argument(help="File to write.")],
    db: DbOption = Path(DEFAULT_PATH),
    tenant: TenantOption = "default",
    fmt: Annotated[
        ExportFormat, typer.Option("--format", help="jsonl or graphml.")
    ] = ExportFormat.JSONL,
) -> None:
    """Write the tenant's entities and relationships as JSONL or GraphML."""
    with open_workspace(db) as workspace:
        tenant_id = workspace.tenant(tenant)

        async def go() -> tuple[list[Entity], list[Any]]:
            return (
                await workspace.graph.list_entities(tenant_id),
                await workspace.graph.list_relationships(tenant_id),
            )

        entities, relationships = run(go())
    if fmt is ExportFormat.JSONL:
        with output.open("w", encoding="utf-8") as handle:
            for entity in entities:
                handle.write(
                    json.dumps({"kind": "entity", **entity.model_dump(mode="json")}) + "\n"
                )
            for rel in relationships:
                handle.write(
                    json.dumps({"kind": "relationship", **rel.model_dump(mode="json")}) + "\n"
                )
    else:
        _write_graphml(output, entities, relationships)
    console.print(
        f"wrote {len(entities)} entities and {len(relationships)} relationships to {output}"
    )


def _write_graphml(output: Path, entities: list[Entity], relationships: list[Any]) -> None:
    ns = "http://graphml.graphdrawing.org/xmlns"
    ElementTree.register_namespace("", ns)
    root = ElementTree.Element(f"{{{ns}}}graphml")
    for key, target in (
        ("name", "node"),
        ("entity_type", "node"),
        ("relationship_type", "edge"),
        ("confidence", "all"),
    ):
        ElementTree.SubElement(
            root,
            f"{{{ns}}}key",
            {
                "id": key,
                "for": target,
                "attr.name": key,
                "attr.type": "double" if key == "confidence" else "string",
            },
        )
    graph = ElementTree.SubElement(root, f"{{{ns}}}graph", {"edgedefault": "directed"})
    for entity in entities:
        node = ElementTree.SubElement(graph, f"{{{ns}}}node", {"id": str(entity.id)})
        for key, value in (
            ("name", entity.name),
            ("entity_type", entity.entity_type),
            ("confidence", str(entity.confidence)),
        ):
            ElementTree.SubElement(node, f"{{{ns}}}data", {"key": key}).text = value
    for rel in relationships:
        edge = ElementTree.SubElement(
            graph,
            f"{{{ns}}}edge",
            {"id": str(rel.id), "source": str(rel.source_id), "target": str(rel.target_id)},
        )
        for key, value in (
            ("relationship_type", rel.relationship_type),
            ("confidence", str(rel.confidence)),
        ):
            ElementTree.SubElement(edge, f"{{{ns}}}data", {"key": key}).text = value
    ElementTree.ElementTree(root).write(output, encoding="utf-8", xml_declaration=True)


# -- demo -----------------------------------------------------------------------------


@app.command()
@reports_errors
def demo(
    db: Annotated[
        Path | None, typer.Option("--db", help="Keep the demo workspace here (default: temporary).")
    ] = None,
    embedder: Annotated[Embedder, typer.Option(help="Embedding model.")] = Embedder.LOCAL,
) -> None:
    """Build a workspace from a small bundled corpus and records, then search it. Offline."""
    with tempfile.TemporaryDirectory(prefix="redstring-demo-") as tmp:
        path = db or Path(tmp) / "demo.db"
        if path.exists():
            raise InvalidInputError(f"{path} already exists; choose another --db")
        corpus = resources.files("redstring.cli") / "demo"
        folder = Path(tmp) / "corpus"
        folder.mkdir()
        for name in ("computing.md", "industry.md", "people.csv"):
            (folder / name).write_text(
                (corpus / name).read_text(encoding="utf-8"), encoding="utf-8"
            )
        provider = make_embedder(embedder)
        dimension = provider.dimension if provider is not None else 384
        with Workspace.open(path, create=True, dimension=dimension) as workspace:
            workspace.set_setting("embedder", embedder.value)
            tenant_id = workspace.register_tenant("demo")
            console.rule("1. ingest: two documents (offline extractor) and a records file")
            rows = run(
                _ingest(
                    sorted(folder.iterdir()),
                    workspace,
                    tenant_id,
                    None,
                    "general",
                    provider,
                    RecordMapping(name_field="name", type_field="type", id_field="id"),
                    True,
                )
            )
            for row in rows:
                console.print(
                    f"  {Path(row['file']).name}: {row['entities']} entities, "
                    f"{row['relationships']} relationships, {row['embedded']} embedded"
                )
            console.rule("2. consolidate: merge duplicates (reversible events)")
            _print_consolidation(run(Consolidator(workspace).consolidate(tenant_id)))
            console.rule("3. search: per-channel scores")
            for query in ("ada lovelace", "IBM Corp", "Babage", "Hollerith tabulating company"):
                result = run(_search(workspace, tenant_id, query, RetrievalMode.HYBRID, 5, None))
                _print_matches(query, result.matches)
        console.print(f"workspace: {path if db else 'temporary (pass --db to keep it)'}")


# -- file reading ---------------------------------------------------------------------


def _expand(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if not path.exists():
            raise UnreadableFileError(f"{path}: no such file or folder")
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES | RECORD_SUFFIXES
            )
            if not found:
                raise UnreadableFileError(
                    f"{path}: no .txt, .md, .csv or .jsonl files in this folder"
                )
            files.extend(found)
        elif path.suffix.lower() in TEXT_SUFFIXES | RECORD_SUFFIXES:
            files.append(path)
        else:
            raise UnreadableFileError(
                f"{path}: unsupported file type {path.suffix or '(none)'}; "
                "use .txt/.md for documents, .csv/.jsonl for records"
            )
    return files


def main() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    app()
