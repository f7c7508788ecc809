"""Apply each known defect to a temporary copy of the project and run the test named
to catch it. Every defect must turn its test red; one that stays green means the test
does not test what it claims.

    uv run python scripts/defects.py            # all defects
    uv run python scripts/defects.py --only retrieval

Exit status 0 only when every defect went red.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Defect:
    group: str
    name: str
    path: str
    #: (old, new) pairs; each `old` must occur exactly once in the file.
    edits: tuple[tuple[str, str], ...]
    test: str


FUSION = "src/redstring/domain/fusion.py"
LEXICAL = "src/redstring/domain/lexical.py"
RETRIEVER = "src/redstring/composition/retrieval.py"
T_FUSION = "tests/unit/domain/test_fusion.py"
T_LEXICAL = "tests/unit/domain/test_lexical.py"
T_RETRIEVER = "tests/unit/composition/test_retrieval.py"
T_GRAPH = "tests/unit/graph/test_memory.py::TestInMemoryGraphStore"
T_VECTOR = "tests/unit/vector/test_memory.py::TestInMemoryVectorStore"

DEFECTS = [
    Defect(
        "retrieval",
        "fusion: inverted order",
        FUSION,
        (
            (
                "key=lambda item: (-item[1], str(item[0]))",
                "key=lambda item: (item[1], str(item[0]))",
            ),
        ),
        f"{T_FUSION}::test_the_order_is_total_so_no_two_results_are_interchangeable",
    ),
    Defect(
        "retrieval",
        "fusion: 0-based rank",
        FUSION,
        (("enumerate(ranking, start=1)", "enumerate(ranking)"),),
        f"{T_FUSION}::test_rank_is_one_based_so_the_first_element_is_not_a_division_by_k",
    ),
    Defect(
        "retrieval",
        "lexical: dropped property weight",
        LEXICAL,
        (("PROPERTY_WEIGHT * string_similarity(query, value)", "string_similarity(query, value)"),),
        f"{T_LEXICAL}::test_a_property_can_match_but_scores_below_the_same_match_on_the_name",
    ),
    Defect(
        "retrieval",
        "lexical: non-strings coerced",
        LEXICAL,
        (
            ("if isinstance(value, str):", "if value is not None:"),
            ("string_similarity(query, value)", "string_similarity(query, str(value))"),
        ),
        f"{T_LEXICAL}::test_a_non_string_property_is_skipped_rather_than_coerced",
    ),
    Defect(
        "retrieval",
        "retriever: type filter after k",
        RETRIEVER,
        (
            (
                "            if wanted is not None and candidate.entity_type not in wanted:\n"
                "                continue\n",
                "",
            ),
            (
                "return {entity.id: (entity, score) for entity, score in best}",
                "return {entity.id: (entity, score) for entity, score in best"
                " if wanted is None or entity.entity_type in wanted}",
            ),
        ),
        f"{T_RETRIEVER}::test_entity_types_filters_the_lexical_channel_before_k_is_applied",
    ),
    Defect(
        "retrieval",
        "retriever: break for continue",
        RETRIEVER,
        (
            (
                "poor candidate says nothing about the ones after it.\n                continue\n",
                "poor candidate says nothing about the ones after it.\n                break\n",
            ),
        ),
        f"{T_RETRIEVER}::test_the_lexical_channel_scores_a_candidate_after_a_zero_scoring_one",
    ),
    Defect(
        "retrieval",
        "retriever: backfill to k",
        RETRIEVER,
        (
            ("vector, tenant_id, k=k, entity_types", "vector, tenant_id, k=2 * k, entity_types"),
            ("list(lexical)]), best\n        )[:k]", "list(lexical)]), best\n        )"),
            (
                "RetrievalResult(query=query, matches=matches)",
                "RetrievalResult(query=query, matches=matches[:k])",
            ),
        ),
        f"{T_RETRIEVER}::test_a_skipped_dangling_match_is_not_backfilled",
    ),
    Defect(
        "foundation",
        "vector store: tenant filter dropped",
        "src/redstring/vector/memory.py",
        (("if owner != tenant_id or (", "if ("),),
        f"{T_VECTOR}::test_colliding_ids_across_tenants_never_cross",
    ),
    Defect(
        "foundation",
        "graph store: shared object returned",
        "src/redstring/graph/memory.py",
        (("return None if found is None else found.model_copy(deep=True)", "return found"),),
        f"{T_GRAPH}::test_a_returned_entity_is_a_copy",
    ),
    Defect(
        "foundation",
        "vector store: truncate before filtering",
        "src/redstring/vector/memory.py",
        (
            (
                "        for (owner, entity_id), record in self._records.items():\n",
                "        ranked = sorted(self._records.items(), key=lambda item: -_cosine("
                "vector, query_norm, item[1].vector))[: k + 1]\n"
                "        for (owner, entity_id), record in ranked:\n",
            ),
        ),
        f"{T_VECTOR}::test_the_type_filter_applies_before_k",
    ),
]


def run(defect: Defect, workdir: Path) -> bool:
    """Apply `defect` in a fresh copy under `workdir`; True when its test went red."""
    copy = workdir / defect.name.replace(" ", "_").replace(":", "")
    shutil.copytree(ROOT / "src", copy / "src")
    shutil.copytree(ROOT / "tests", copy / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    target = copy / defect.path
    text = target.read_text()
    for old, new in defect.edits:
        if text.count(old) != 1:
            raise SystemExit(f"{defect.name}: the defect site is not unique in {defect.path}")
        text = text.replace(old, new)
    target.write_text(text)
    env = {**os.environ, "PYTHONPATH": f"{copy / 'src'}{os.pathsep}{copy}"}
    check = subprocess.run(
        [sys.executable, "-c", "import redstring, sys; print(redstring.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=copy,
    )
    if not check.stdout.strip().startswith(str(copy)):
        raise SystemExit(f"the copy was not the code under test: {check.stdout.strip()}")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", defect.test],
        env=env,
        capture_output=True,
        text=True,
        cwd=copy,
    )
    return result.returncode != 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted({d.group for d in DEFECTS}))
    args = parser.parse_args()
    chosen = [d for d in DEFECTS if args.only in (None, d.group)]
    red = 0
    red_by_group: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="redstring-defects-") as tmp:
        for defect in chosen:
            went_red = run(defect, Path(tmp))
            red += went_red
            red_by_group[defect.group] = red_by_group.get(defect.group, 0) + went_red
            verdict = "RED  " if went_red else "GREEN"
            test_name = defect.test.split("::")[-1]
            print(f"{verdict}  [{defect.group}] {defect.name}  ({test_name})")
    for group in sorted(red_by_group):
        size = sum(1 for d in chosen if d.group == group)
        print(f"{group}: {red_by_group[group]}/{size} red")
    print(f"{red}/{len(chosen)} red")
    return 0 if red == len(chosen) else 1


if __name__ == "__main__":
    raise SystemExit(main())
