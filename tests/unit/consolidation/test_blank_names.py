"""Rows whose name was left blank: a catalogue row without its title keeps its key as
its name and holds only what many products share -- a maker, a category. Such rows
link to every product of their maker; two titles that differ must still keep two products apart,
however few other fields the two rows share."""

from __future__ import annotations

import itertools
import random
from typing import TYPE_CHECKING

import numpy as np
from bench.variants import RecordSet

from redstring.consolidation.engine import DISTINCT_THRESHOLD, resolve_sync
from redstring.consolidation.record_model import train
from tests.support.records import SOURCE, ingested

if TYPE_CHECKING:
    from pathlib import Path

MAKERS = [
    "Ferag",
    "Alkatel",
    "Dsm",
    "Norwel",
    "Quantix",
    "Bellmar",
    "Corvan",
    "Hestia",
    "Lumo",
    "Pardex",
    "Sintra",
    "Velto",
]
KINDS = ["laptop", "mouse", "speaker", "monitor", "keyboard", "router", "printer", "tablet"]


def _catalogue(seed: int = 11) -> RecordSet:
    """Each maker's eight products, each listed twice under its title (once
    its words reordered and lower-cased), half the rows with the category blank, and per
    maker four rows of one of its products holding only the maker and the category."""
    rng = random.Random(seed)
    rows: list[dict[str, str]] = []
    gold: list[str] = []
    for maker in MAKERS:
        for k, kind in enumerate(KINDS):
            code = f"{rng.choice('ABCDEFGH')}{rng.choice('KLMNPRST')}-{rng.randrange(1000, 9999)}"
            product = f"{maker}-{k}"
            for title in (f"{maker} slim {kind} {code}", f"{kind} {maker} slim {code.lower()}"):
                category = kind if rng.random() < 0.5 else ""
                rows.append({"title": title, "maker": maker, "category": category})
                gold.append(product)
        for _ in range(4):
            k = rng.randrange(len(KINDS))
            rows.append({"title": "", "maker": maker, "category": KINDS[k]})
            gold.append(f"{maker}-{k}")
    for n, row in enumerate(rows):
        row["id"] = f"s{n:03d}"
    return RecordSet("catalogue", "Product", "id", "title", rows, gold)


def test_two_titles_that_differ_veto_however_few_fields_they_share(tmp_path: Path) -> None:
    """Catches a pair whose titles differ outright counted as missing evidence when
    it shares fewer than two other fields: it could not veto a join, and a maker's
    products chained through rows holding only the maker into one entity (a
    catalogue with 40% of its cells blank, the titles among them: P 0.02;
    `RecordEvidence._comparable`). Two titled rows of one maker without a category
    share the maker alone: their differing titles keep them apart in the veto."""
    records = _catalogue()
    entities = ingested(records, records.rows, tmp_path / "w.db")
    row_of = {p.source_id: e for e in entities for p in e.provenance}
    index = {e.id: k for k, e in enumerate(entities)}
    bare = [
        (index[row_of[f"{SOURCE}#{row['id']}"].id], label)
        for row, label in zip(records.rows, records.gold, strict=True)
        if row["title"] and not row["category"] and row["maker"] == MAKERS[0]
    ]
    left, right = zip(
        *[(i, j) for (i, a), (j, b) in itertools.combinations(bare, 2) if a != b], strict=True
    )
    evidence = train(entities)
    ends = np.asarray(left), np.asarray(right)
    levels, probabilities = evidence._scored(*ends)
    vetoing = evidence.veto_view(
        probabilities, evidence._comparable(levels, *ends), DISTINCT_THRESHOLD
    )
    assert (vetoing < DISTINCT_THRESHOLD).all()
    # The copies of each product still merge.
    clusters = resolve_sync(entities).clusters
    titled = {e.id for e in entities if not e.name.startswith("#")}
    pairs = sum(1 for c in clusters if sum(1 for i in c if i in titled) == 2)
    assert pairs >= 0.9 * len(MAKERS) * len(KINDS)


def test_a_row_without_its_title_joins_no_work(tmp_path: Path) -> None:
    """Catches an untitled row joined on what many products share: holding only its
    maker it cannot tell which of the maker's products it is, and joined one (a
    catalogue with 40% of its cells blank: P 0.0551, articles 0.5664; with no join
    started by a pair one of whose titles is blank, 1.0000 and 0.9774)."""
    records = _catalogue()
    entities = ingested(records, records.rows, tmp_path / "w.db")
    untitled = {e.id for e in entities if e.name.startswith("#")}
    assert len(untitled) == 4 * len(MAKERS)
    for cluster in resolve_sync(entities).clusters:
        assert len(cluster) == 1 or not untitled.intersection(cluster)
