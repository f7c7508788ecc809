"""Opening a workspace and the collaborators a use case needs with it.

Every entry point (CLI, HTTP, MCP) opens workspaces and picks embedding and LLM
providers here, so "which model does this workspace embed with" has one answer.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from redstring.composition.migrate import Migration, migrate
from redstring.composition.retrieval import Retriever
from redstring.composition.workspace import (
    DEFAULT_PATH,
    Workspace,
    location,
    release_connections,
)
from redstring.domain.exceptions import InvalidInputError, NotFoundError

if TYPE_CHECKING:
    from redstring.ports.embedding import EmbeddingProvider
    from redstring.ports.llm import LlmProvider

__all__ = [
    "DEFAULT_PATH",
    "Embedder",
    "Workspace",
    "create_workspace",
    "make_embedder",
    "make_llm",
    "migrate_workspace",
    "open_workspace",
    "release_connections",
    "retriever",
    "workspace_embedder",
]


class Embedder(StrEnum):
    """The embedding model a workspace is built with (kept in its settings)."""

    LOCAL = "local"
    FAKE = "fake"
    OPENAI = "openai"
    NONE = "none"


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


def _dimension_of(kind: Embedder) -> int:
    """The vectors' dimension a new workspace is built with. The local model's is read
    from its config, not by loading its runner (numpy, tokenizers: ~0.1 s of `init`);
    a missing model fails here as it would there."""
    if kind is Embedder.LOCAL:
        from redstring.embeddings.local_model import model_dimension

        return model_dimension()
    provider = make_embedder(kind)
    return provider.dimension if provider is not None else 384


def make_llm(workspace_file: Path | None = None) -> LlmProvider:
    """The endpoint configured by REDSTRING_LLM_* (docs/how-to/configure-llm.md); with
    `workspace_file`, behind the response cache that lives beside it
    (`redstring.llm.cache`), so a question is paid for once."""
    from redstring.llm.openai_compat import OpenAICompatibleProvider

    provider = OpenAICompatibleProvider()
    if workspace_file is None or not isinstance(location(workspace_file), Path):
        return provider  # a PostgreSQL workspace has no file to keep a cache beside
    from redstring.llm.cache import CachingLlmProvider, SqliteResponseStore, cache_path_for

    return CachingLlmProvider(provider, SqliteResponseStore(cache_path_for(workspace_file)))


def open_workspace(db: Path | str, *, create: bool = False) -> Workspace:
    """An existing workspace (or a new one with `create`); a clear error when missing.
    `db` is a file or a PostgreSQL URL (`composition.workspace.location`)."""
    where = location(db)
    if isinstance(where, Path) and not create and not where.exists():
        raise NotFoundError(f"no workspace at {db}; run `redstring init --db {db}` first")
    return Workspace.open(where, create=create)


def create_workspace(db: Path | str, embedder: Embedder, tenant: str) -> None:
    """`init`: a new workspace (file or PostgreSQL URL) built with `embedder`, `tenant`
    registered."""
    where = location(db)
    if isinstance(where, Path) and where.exists():
        raise InvalidInputError(f"{db} already exists; remove it or choose another --db")
    dimension = _dimension_of(embedder)
    with Workspace.open(where, create=True, dimension=dimension) as workspace:
        workspace.set_setting("embedder", embedder.value)
        workspace.register_tenant(tenant)


async def migrate_workspace(source: Path | str, target: Path | str) -> Migration:
    """`migrate`: copy `source`'s log into the new workspace `target` (a file or a URL,
    made with the source's vector width) and replay it; the counts must be equal."""
    with open_workspace(source) as origin:
        dimension = origin.vectors.dimension
        with Workspace.open(location(target), create=True, dimension=dimension) as copy:
            return await migrate(origin, copy)


def workspace_embedder_kind(workspace: Workspace) -> Embedder:
    return Embedder(workspace.setting("embedder") or Embedder.LOCAL.value)


def workspace_embedder(workspace: Workspace) -> EmbeddingProvider | None:
    return make_embedder(workspace_embedder_kind(workspace))


def retriever(workspace: Workspace, embeddings: EmbeddingProvider | None) -> Retriever:
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
