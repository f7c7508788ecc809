"""`redstring` subcommands.

Exit codes: 0 success, 1 redstring refused (bad input, unknown tenant or entity,
a workspace it cannot open), 2 a file could not be read (missing, not UTF-8, not
valid CSV/JSONL). Every command takes `--db` (default ./redstring.db) and
`--tenant` (default "default"); `--json` prints machine-readable output.
"""

from __future__ import annotations

import asyncio
import atexit
import math
import os
import sys
import tempfile
import threading
from functools import wraps
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from redstring.application import use_cases
from redstring.application.use_cases import (
    DEFAULT_TOKEN_BUDGET,
    ExportFormat,
    IngestRow,
    RecordMapping,
    render_relationship,
)
from redstring.application.workspaces import (
    DEFAULT_PATH,
    Embedder,
    Workspace,
    create_workspace,
    make_embedder,
    make_llm,
    migrate_workspace,
    open_workspace,
    release_connections,
    workspace_embedder,
)
from redstring.domain.exceptions import (
    InvalidInputError,
    RedstringError,
    UnreadableFileError,
)
from redstring.domain.retrieval import RetrievalMode

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine

    from redstring.application.use_cases import ConsolidationReport
    from redstring.domain.ids import TenantId
    from redstring.ports.embedding import EmbeddingProvider
    from redstring.ports.llm import LlmProvider

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Documents and records into a tenant-scoped knowledge graph: ingest, consolidate, search.",
)
console = Console()
# Never wrapped: a message split at column 80 (rich's width off a terminal) breaks
# what a log or a script greps for, and a terminal wraps long lines itself.
errors = Console(stderr=True, soft_wrap=True)

DbOption = Annotated[
    Path,
    typer.Option("--db", help="Workspace file, or a postgresql:// URL.", envvar="REDSTRING_DB"),
]
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
    """One step in its own event loop, whose database connections close with it.

    The step's task finishes with no result; the value is handed over beside it.
    `asyncio.run` (3.11) ends by restoring the SIGINT handler, and `signal.signal`
    looks the handler it replaces (a partial holding the main task) up in an enum,
    whose miss formats the task's repr, result included: exporting 1.1k entities
    spent 0.27 s in the repr of every one of them."""
    result: list[R] = []

    async def step() -> None:
        try:
            result.append(await coroutine)
        finally:
            await release_connections()

    asyncio.run(step())
    return result[0]


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
    create_workspace(db, embedder, tenant)
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
    files = use_cases.expand_paths(paths)
    with open_workspace(db, create=True) as workspace:
        tenant_id = workspace.register_tenant(tenant)
        mapping = RecordMapping(
            name_field=name_column,
            type_field=None if entity_type else (type_column or "type"),
            entity_type=entity_type,
            id_field=id_column,
        )
        rows = run(
            _ingest(
                files,
                workspace,
                tenant_id,
                make_llm(db) if llm else None,
                domain,
                # Records are not embedded at ingest: a records-only ingest does not
                # load the embedding model's code (numpy, tokenizers: ~0.06 s).
                workspace_embedder(workspace)
                if not all(use_cases.is_records_file(f) for f in files)
                else None,
                mapping,
                quiet=as_json,
            )
        )
    failed = any(row.failed for row in rows)
    if as_json:
        console.print_json(data=use_cases.row_dicts(rows))
        if failed:
            raise typer.Exit(1)
        return
    table = Table(title=f"ingested into {db} (tenant {tenant!r})")
    columns: tuple[str, ...] = ("file", "status", "entities", "relationships", "embedded")
    if llm:
        columns += ("llm_calls", "tokens")
    for column in columns:
        table.add_column(column)
    for data in use_cases.row_dicts(rows):
        table.add_row(*(str(data[key]) for key in columns))
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
    mapping: RecordMapping,
    *,
    quiet: bool,
) -> list[IngestRow]:
    """`use_cases.ingest_files` under a progress bar on stderr."""
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

        def report(done: int, total: int, description: str) -> None:
            progress.update(task, completed=done, total=total, description=description)

        return await use_cases.ingest_files(
            files,
            workspace,
            tenant_id,
            provider=provider,
            domain=domain,
            embeddings=embeddings,
            mapping=mapping,
            progress=report,
        )


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
    overrides = use_cases.field_overrides(field_kind or [])
    with open_workspace(db) as workspace:
        report = run(
            use_cases.consolidate(
                workspace,
                workspace.tenant(tenant),
                entity_types=entity_type,
                adjudicate=adjudicate,
                overrides=overrides,
            )
        )
    if as_json:
        console.print_json(data=use_cases.report_dict(report))
        return
    _print_consolidation(report)


def _print_consolidation(report: ConsolidationReport) -> None:
    for entity_type, used in sorted(report.fields.items()):
        fields = ", ".join(f"{name} as {kind}" for name, kind in used.items())
        console.print(f"{entity_type} records: comparing {fields or 'nothing'}")
        for name, why in sorted(report.left_out.get(entity_type, {}).items()):
            console.print(f"  left out {name}: {why}")
        for bundle in report.bundles.get(entity_type, []):
            console.print(
                f"  {', '.join(bundle)} travel together (what a household or a firm "
                "shares): their agreement counts once"
            )
        for first, second in report.dependent.get(entity_type, []):
            console.print(
                f"  {first} and {second} go together among strangers (one names the "
                "other): agreeing on both counts less than the sum"
            )
        if entity_type in report.models_trained:
            console.print("  model trained on this tenant's records, logged for later runs")
        elif entity_type in report.models_reused:
            console.print("  model reused as logged by an earlier consolidation")
        if entity_type in report.start_bars:
            bar = report.start_bars[entity_type]
            if entity_type in report.unseparated:
                console.print(
                    "  these people's scores show no two separate groups (fields that "
                    "cannot tell duplicates from namesakes, or pairs mostly beyond "
                    "any doubt either way): a pair starts a merge only from log-odds "
                    f"{bar:.1f} ({math.exp(bar or 0.0):,.0f} to 1)"
                )
            else:
                console.print(
                    f"  a pair starts a merge from log-odds {bar:.1f}, where these records' "
                    "scores turn from mostly different to mostly the same"
                    if bar is not None
                    else "  no start bar: these records' scores show no two separate groups"
                )
        rates = report.rule_rates.get(entity_type)
        if rates:
            listed = ", ".join(f"{rule} {rate:.2g}" for rule, rate in rates.items())
            console.print(
                "  a pair starts a merge only at even odds among the pairs its own "
                f"blocking rule found, whose match rates (the rule's fields aside) are: {listed}"
            )
        lone = report.lone_bars.get(entity_type)
        if lone is not None:
            console.print(
                f"  two records that have joined nothing merge only from log-odds {lone:.1f}: "
                "even odds under the match rate among all pairs, not only the candidates"
            )
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
        # One plain write, not a rich print per id: 1,033 prints took 0.26 s of a
        # 4.5 s consolidation (people-export-10k), 5,286 over a second.
        console.out("\n".join(f"  {merge_id}" for merge_id in report.merge_ids), highlight=False)


@app.command("undo-merge")
@reports_errors
def undo_merge(
    merge_id: Annotated[str, typer.Argument(help="The merge id `consolidate` printed.")],
    db: DbOption = Path(DEFAULT_PATH),
    tenant: TenantOption = "default",
) -> None:
    """Reverse one merge exactly (undo newer merges of the same entities first)."""
    use_cases.parse_merge_id(merge_id)
    with open_workspace(db) as workspace:
        run(use_cases.undo_merge(workspace, workspace.tenant(tenant), merge_id))
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
        embeddings = workspace_embedder(workspace)
        if mode is not RetrievalMode.LEXICAL:
            _fill_vectors(workspace, tenant_id, embeddings)
        if context:
            answer = run(
                use_cases.context(
                    workspace, tenant_id, query, embeddings=embeddings, mode=mode, k=k,
                    entity_types=entity_type, hops=hops, budget=budget,
                )
            )  # fmt: skip
        else:
            result = run(
                use_cases.search(
                    workspace, tenant_id, query, embeddings=embeddings, mode=mode, k=k,
                    entity_types=entity_type,
                )
            )  # fmt: skip
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
        embeddings = workspace_embedder(workspace)
        if mode is not RetrievalMode.LEXICAL:
            _fill_vectors(workspace, tenant_id, embeddings)
        answer = run(
            use_cases.ask(
                workspace, tenant_id, question, llm=llm,
                embeddings=embeddings, mode=mode, k=k, hops=hops, budget=budget,
            )
        )  # fmt: skip
    if as_json:
        console.print_json(answer.model_dump_json())
        return
    console.print(answer.answer)
    if answer.citations:
        console.print("sources: " + ", ".join(answer.citations))
    if answer.reason:
        console.print(f"({answer.reason})")


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
        view = run(use_cases.show(workspace, workspace.tenant(tenant), entity))
    if as_json:
        console.print_json(data=view.as_json())
        return
    found, names = view.entity, view.names
    console.print(f"[bold]{found.name}[/bold]  ({found.entity_type})  id {found.id}")
    console.print(
        f"confidence {found.confidence:.2f}; blocking keys {', '.join(found.blocking_keys)}"
    )
    for key, value in found.properties.items():
        console.print(f"  {key}: {value}")
    for p in found.provenance:
        span = f" chars {p.char_start}-{p.char_end}" if p.char_start is not None else ""
        console.print(f"  from {p.source_id}{span} ({p.method}{', ' + p.model if p.model else ''})")
    for r in view.relationships:
        console.print(
            f"  {names.get(r.source_id, r.source_id)} -[{r.relationship_type}]-> "
            f"{names.get(r.target_id, r.target_id)}"
        )


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
        found, near = run(use_cases.neighbours(workspace, workspace.tenant(tenant), entity))
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


@app.command()
@reports_errors
def migrate(
    source: Annotated[str, typer.Argument(help="Workspace to copy: a file or a postgresql URL.")],
    target: Annotated[str, typer.Argument(help="New, empty workspace: a file or a URL.")],
) -> None:
    """Copy a workspace's event log into a new one and replay it there (no model calls);
    the per-tenant counts must come out equal."""
    report = run(migrate_workspace(source, target))
    for tenant_id, figures in report.counts.items():
        console.print(f"tenant {tenant_id}: {figures}")
    console.print(f"migrated {report.events} events and replayed them")


@app.command()
@reports_errors
def replay(db: DbOption = Path(DEFAULT_PATH)) -> None:
    """Rebuild every store from the event log (no model calls)."""
    with open_workspace(db) as workspace:
        position = run(use_cases.replay(workspace))
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
        figures = run(
            use_cases.stats(workspace, workspace.tenant(tenant), tenant, documents=documents)
        )
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
        graph = run(use_cases.export(workspace, workspace.tenant(tenant)))
    output.write_bytes(graph.render(fmt))
    console.print(
        f"wrote {len(graph.entities)} entities and {len(graph.relationships)} relationships "
        f"to {output}"
    )


# -- service --------------------------------------------------------------------------

keys_app = typer.Typer(no_args_is_help=True, help="API keys for `redstring serve`.")
app.add_typer(keys_app, name="keys")


@keys_app.command("create")
@reports_errors
def keys_create(
    tenant: Annotated[
        str, typer.Option("--tenant", "-t", help="The tenant the key reads and writes.")
    ],
    db: DbOption = Path(DEFAULT_PATH),
) -> None:
    """Make an API key for one tenant; it is printed once and stored only as a hash."""
    from redstring.application.keys import create_key

    with open_workspace(db) as workspace:
        key = create_key(workspace, tenant)
    errors.print(f"key for tenant {tenant!r} (shown once; store it now):")
    console.print(key, markup=False, highlight=False)


@app.command()
@reports_errors
def serve(
    db: DbOption = Path(DEFAULT_PATH),
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    readers: Annotated[int, typer.Option(help="Reader threads (one connection each).")] = 4,
) -> None:
    """Serve the HTTP API (OpenAPI docs at /docs); callers authenticate with `keys create`."""
    from redstring.server.app import serve as run_server

    open_workspace(db).close()  # a missing workspace is refused here, with exit code 1
    run_server(db, host=host, port=port, readers=readers)


@app.command()
@reports_errors
def mcp(
    db: DbOption = Path(DEFAULT_PATH),
    tenant: TenantOption = "default",
) -> None:
    """Serve MCP tools (search, show, neighbours, ingest_text) over stdio for one tenant."""
    from redstring.mcp_server.tools import serve_stdio

    open_workspace(db).close()
    serve_stdio(db, tenant)


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
        create_workspace(path, embedder, "demo")
        with open_workspace(path) as workspace:
            tenant_id = workspace.tenant("demo")
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
                    quiet=True,
                )
            )
            for row in rows:
                console.print(
                    f"  {Path(row.file).name}: {row.entities} entities, "
                    f"{row.relationships} relationships, {row.embedded} embedded"
                )
            console.rule("2. consolidate: merge duplicates (reversible events)")
            _print_consolidation(run(use_cases.consolidate(workspace, tenant_id)))
            console.rule("3. search: per-channel scores")
            _fill_vectors(workspace, tenant_id, provider)
            for query in ("ada lovelace", "IBM Corp", "Babage", "Hollerith tabulating company"):
                result = run(
                    use_cases.search(workspace, tenant_id, query, embeddings=provider, k=5)
                )
                _print_matches(query, result.matches)
        console.print(f"workspace: {path if db else 'temporary (pass --db to keep it)'}")


def _fill_vectors(
    workspace: Workspace, tenant_id: TenantId, embeddings: EmbeddingProvider | None
) -> None:
    """Before a search that reads vectors: embed the live entities that have none
    (records are embedded by the first search that needs them), saying so on stderr."""
    done = run(use_cases.fill_vectors(workspace, tenant_id, embeddings))
    if done:
        errors.print(f"embedded {done} entities for the semantic channel (once)")


def main() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        app()
    except SystemExit as done:
        _leave(done.code)
        raise


def _leave(code: object) -> None:
    """End the process once a command is done, without the interpreter's teardown.

    By then its stores are closed (`run`, `open_workspace`) and every file it wrote
    is closed; the exit handlers (logging's, coverage's) run here. What is skipped is
    freeing every module and object one at a time: 40-80 ms of each command, ~0.05 s
    of `init`'s 0.35. With another thread still running, the exit is the usual one.
    """
    if threading.active_count() > 1:
        return
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # as the interpreter does with `sys.exit("message")`
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or stream
            status = status or 120
    os._exit(status)
