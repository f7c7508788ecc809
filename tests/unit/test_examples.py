"""The end-to-end example runs and uses only the public package."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"

#: What an example may import besides `redstring`: the stdlib event loop that drives it.
DRIVER = {"asyncio", "__future__"}


def test_the_end_to_end_example_imports_only_redstring() -> None:
    tree = ast.parse((EXAMPLES / "end_to_end.py").read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            roots.add(node.module or "")
    assert roots - DRIVER == {"redstring"}


def test_the_end_to_end_example_runs_and_retrieves() -> None:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "end_to_end.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "'Ada Lovelace': Ada Lovelace" in result.stdout
    assert "'Acme Corp': ACME Corporation" in result.stdout


def run_how_to(page: str) -> str:
    """A how-to whose example no longer runs is worse than none."""
    text = (EXAMPLES.parent / "how-to" / page).read_text(encoding="utf-8")
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return result.stdout


def test_the_retrieval_how_to_example_runs() -> None:
    assert run_how_to("retrieve-entities.md").startswith("Ada Lovelace ")


def test_the_consolidation_how_to_example_runs() -> None:
    assert run_how_to("consolidate.md") == "1 merge; 2 entities\nafter undo: 3 entities\n"


def test_the_context_how_to_example_runs() -> None:
    assert run_how_to("retrieve-context.md") == (
        "['babbage.md#0', 'ada.md#0']\nCharles Babbage. ['babbage.md#0']\n"
    )
