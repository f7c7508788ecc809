"""Text corpora through the CLI's code path: ingest, consolidate, and what the graph became.

    uv run python bench/text_consolidation.py [--corpus conll04|redocred|all] [--limit N]
        [--write-sample bench/labels/text_cross_doc_merges.tsv]

For each corpus (CoNLL04 test+dev sentences, one document each; the Re-DocRED dev
documents) it does what `redstring ingest` and `redstring consolidate` do: a
SQLite `Workspace`, `build_graph` per document with the offline extractor and the
local embedder, then `Consolidator.consolidate` in a fresh process (so its seconds
and peak resident memory are its own). It prints:

- ingest passages/s; entities before and after; the largest cluster;
- the chain audit (clusters holding two different dates or years, two regnal
  numbers under one name, or token-disjoint names no known alias links);
- Re-DocRED: mention P/R/F1 (exact spans) and within-document merge P/R/F1 against
  the gold entities, before and after consolidation, over every gold mention
  ("strict": an undetected mention merges with nothing) and over detected ones;
- cross-document merge precision on the hand-labelled sample
  (`bench/labels/text_cross_doc_merges.tsv`, see bench/labels/README.md);
- the mention resolver alone (`score_mentions` + `agreeing_clusters`, no merges
  applied) on the same entities, as the baseline row beside the CLI path.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import gc
import multiprocessing
import resource
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from text_scoring import (
    Document,
    MergePair,
    Span,
    chain_audit,
    context,
    cross_document_pairs,
    load_conll04,
    load_redocred,
    mention_scores,
    within_document_merges,
)

from redstring.application.use_cases import ingest_files
from redstring.composition.build_graph import build_graph
from redstring.composition.consolidation import Consolidator
from redstring.composition.workspace import Workspace
from redstring.consolidation.clustering import agreeing_clusters
from redstring.consolidation.mentions import score_mentions
from redstring.consolidation.values import value_key
from redstring.embeddings.local import LocalEmbeddingProvider

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data"
LABELS = Path(__file__).resolve().parent / "labels" / "text_cross_doc_merges.tsv"
TENANT = "bench"
#: Cross-document merges sampled per corpus for hand labelling (half names, half values).
SAMPLE_PER_CORPUS = 160


def _spans(entity: Any) -> list[Span]:
    """Mention spans keyed by document id (the CLI names a document by its file name)."""
    return sorted(
        {
            (p.source_id.removesuffix(".txt"), p.char_start, p.char_end)
            for p in entity.provenance
            if p.char_start is not None and p.char_end is not None
        }
    )


async def _ingest(path: Path, documents: list[Document], folder: Path) -> float:
    """`redstring ingest FOLDER`: the CLI's own ingest over one .txt file per document."""
    files = []
    for doc in documents:
        file = folder / f"{doc.source_id}.txt"
        file.write_text(doc.text, encoding="utf-8")
        files.append(file)
    embedder = LocalEmbeddingProvider()
    with Workspace.open(path, create=True, dimension=embedder.dimension) as workspace:
        workspace.set_setting("embedder", "local")
        tenant = workspace.register_tenant(TENANT)
        start = time.perf_counter()
        await ingest_files(
            files,
            workspace,
            tenant,
            provider=None,
            domain="general",
            embeddings=embedder,
            mapping=None,
        )
        return time.perf_counter() - start


async def _ingest_one_by_one(documents: list[Document]) -> float:
    """The baseline: `build_graph` per document, as the CLI ingested before batching."""
    embedder = LocalEmbeddingProvider()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "baseline.db"
        with Workspace.open(path, create=True, dimension=embedder.dimension) as workspace:
            tenant = workspace.register_tenant(TENANT)
            start = time.perf_counter()
            for doc in documents:
                await build_graph(
                    doc.text,
                    workspace=workspace,
                    tenant_id=tenant,
                    source_id=f"{doc.source_id}.txt",
                    embeddings=embedder,
                )
            return time.perf_counter() - start


async def _entities(path: Path) -> list[Any]:
    with Workspace.open(path) as workspace:
        return await workspace.graph.list_entities(workspace.tenant(TENANT))


def _consolidate_child(path: str, queue: Any) -> None:
    """Runs in a spawned process: only the consolidation counts toward its peak memory."""
    with Workspace.open(Path(path)) as workspace:
        tenant = workspace.tenant(TENANT)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        report = asyncio.run(Consolidator(workspace).consolidate(tenant))
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    queue.put((seconds, before / 1024, peak / 1024, report.merges, report.merged_entities))


def _consolidate(path: Path) -> tuple[float, float, float, int, int]:
    context_ = multiprocessing.get_context("spawn")
    queue = context_.Queue()
    child = context_.Process(target=_consolidate_child, args=(str(path), queue))
    child.start()
    result = queue.get()
    child.join()
    return result  # type: ignore[no-any-return]


def _clusters_after(before: list[Any], after: list[Any]) -> list[list[Any]]:
    """Final entities as lists of the pre-merge entities whose spans they hold."""
    owner: dict[Span, Any] = {}
    for entity in after:
        for span in _spans(entity):
            owner[span] = entity.id
    groups: dict[Any, list[Any]] = defaultdict(list)
    for entity in before:
        spans = _spans(entity)
        final = owner.get(spans[0]) if spans else entity.id
        groups[final if final is not None else entity.id].append(entity)
    return list(groups.values())


def _assignment(clusters: list[list[Any]]) -> dict[Span, int]:
    return {span: c for c, members in enumerate(clusters) for e in members for span in _spans(e)}


def _forms(members: list[Any], texts: dict[str, str]) -> list[tuple[str, str]]:
    return [(texts[s][a:b], e.entity_type) for e in members for s, a, b in _spans(e) if s in texts]


def _labels() -> dict[str, bool]:
    if not LABELS.exists():
        return {}
    with LABELS.open(encoding="utf-8") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return {row["key"]: row["label"] == "1" for row in rows if row["label"] in {"0", "1"}}


def _report(
    name: str,
    documents: list[Document],
    before: list[Any],
    clusters: list[list[Any]],
    texts: dict[str, str],
) -> list[MergePair]:
    sizes = sorted(clusters, key=len, reverse=True)
    largest = sizes[0] if sizes else []
    forms = Counter(form for form, _ in _forms(largest, texts))
    print(
        f"  {name}: entities {len(before)} -> {len(clusters)}; largest cluster "
        f"{len(largest)} entities: {', '.join(f for f, _ in forms.most_common(8))}"
    )
    audit = chain_audit([_forms(members, texts) for members in clusters if len(members) > 1])
    print(
        f"    chain audit: two dates/years {len(audit.two_dates)}, two regnal numbers "
        f"{len(audit.two_regnal)}, token-disjoint without a known alias "
        f"{len(audit.token_disjoint)}"
    )
    for label, found in (
        ("dates", audit.two_dates),
        ("regnal", audit.two_regnal),
        ("disjoint", audit.token_disjoint),
    ):
        for forms_ in found[:3]:
            print(f"      {label}: {' | '.join(forms_[:6])}")
    if any(d.gold and d.gold[0][2] is not None for d in documents):
        assignment = _assignment(clusters)
        strict = within_document_merges(documents, assignment, detected_only=False)
        detected = within_document_merges(documents, assignment, detected_only=True)
        print(f"    within-document merges: strict {strict}; detected mentions {detected}")
    # Names and values are drawn apart, half the sample each: years alone make
    # hundreds of clusters across documents and would otherwise fill it.
    corpus = documents[0].source_id.split("-")[0] if documents else ""
    merged = [members for members in clusters if len(members) > 1]
    sample: list[MergePair] = []
    for values in (False, True):
        chosen = [
            [_spans(e) for e in members]
            for members in merged
            if _is_value(_forms(members[:1], texts)[0][0]) == values
        ]
        sample += cross_document_pairs(corpus, chosen, texts, per_corpus=SAMPLE_PER_CORPUS // 2)
    return sorted(sample, key=lambda p: p.key)


def _is_value(form: str) -> bool:
    key = value_key(form, "Number")
    return value_key(form, "Concept") is not None or (key or "").startswith("number:")


def _precision(pairs: list[MergePair], labels: dict[str, bool]) -> str:
    """Labelled precision, overall and split into value pairs and name pairs."""
    if not pairs:
        return "no cross-document merges"
    parts = []
    for label, chosen in (
        ("all", pairs),
        ("names", [p for p in pairs if not _is_value(p.left_form)]),
        ("values", [p for p in pairs if _is_value(p.left_form)]),
    ):
        known = [labels[p.key] for p in chosen if p.key in labels]
        figure = f"{sum(known) / len(known):.3f}" if known else "n/a"
        parts.append(f"{label} {figure} ({sum(known)}/{len(known)})")
    unlabelled = sum(p.key not in labels for p in pairs)
    return f"{'; '.join(parts)}; {unlabelled} of {len(pairs)} sampled pairs unlabelled"


def run_corpus(
    name: str, documents: list[Document], sample: list[MergePair], *, baseline: bool
) -> list[Any]:
    """Everything above for one corpus; returns its entities before consolidation."""
    texts = {d.source_id: d.text for d in documents}
    print(f"\n{name}: {len(documents)} documents, {sum(len(d.text) for d in documents):,} chars")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        folder = Path(tmp) / "docs"
        folder.mkdir()
        seconds = asyncio.run(_ingest(path, documents, folder))
        print(
            f"  ingest (the CLI's ingest of .txt files, offline extractor, local embedder): "
            f"{seconds:.1f} s, {len(documents) / seconds:.1f} passages/s"
        )
        if baseline:
            old = asyncio.run(_ingest_one_by_one(documents))
            print(
                f"  ingest baseline (build_graph per document, same process): {old:.1f} s, "
                f"{len(documents) / old:.1f} passages/s; batched is {old / seconds:.1f}x faster"
            )
        before = asyncio.run(_entities(path))
        mentions = {span for e in before for span in _spans(e)}
        if any(d.gold for d in documents):
            print(f"  mentions (exact span): {mention_scores(documents, mentions)}")
        _report("before consolidate", documents, before, [[e] for e in before], texts)

        start = time.perf_counter()
        ordered = sorted(before, key=lambda e: str(e.id))
        evidence = score_mentions(ordered)
        groups = agreeing_clusters(
            len(ordered), evidence.pairs, evidence.probabilities, evidence.scorer
        )
        direct = time.perf_counter() - start
        print(f"  mention resolver alone (no merges applied): {direct:.2f} s")
        resolved = [[ordered[i] for i in g] for g in groups]
        resolver_sample = _report("mention resolver", documents, before, resolved, texts)
        labels = _labels()
        print(f"    cross-document merge precision: {_precision(resolver_sample, labels)}")

        seconds, rss_before, rss_peak, merges, merged = _consolidate(path)
        print(
            f"  consolidate (CLI path, fresh process): {seconds:.2f} s, {merges} merges of "
            f"{merged} entities; peak RSS {rss_peak:.0f} MB ({rss_before:.0f} MB before it)"
        )
        after = asyncio.run(_entities(path))
        final = _clusters_after(before, after)
        sampled = _report("after consolidate", documents, before, final, texts)
        print(f"    cross-document merge precision: {_precision(sampled, labels)}")
        # The labelled sample is drawn from the mention resolver's merges: the file
        # labels pairs, so the CLI path's figure covers the pairs both made.
        sample.extend(resolver_sample)
        return before


def _replicate(entities: list[Any], copies: int) -> list[Any]:
    """`copies` disjoint copies of a corpus's entities: new ids, documents renamed per
    copy, names kept, so every name recurs `copies` times across documents."""
    out = []
    for copy in range(copies):
        for entity in entities:
            out.append(
                entity.model_copy(
                    update={
                        "id": uuid.uuid5(uuid.NAMESPACE_URL, f"{copy}:{entity.id}"),
                        "provenance": [
                            p.model_copy(update={"source_id": f"{copy}:{p.source_id}"})
                            for p in entity.provenance
                        ],
                    }
                )
            )
    return out


def scale_run(entities: list[Any], sizes: list[int]) -> None:
    """The mention resolver's seconds and peak traced memory as the mention count grows."""
    print("\nmention resolver at scale (copies of the Re-DocRED entities):")
    figures = []
    for size in sizes:
        copies = max(1, round(size / len(entities)))
        batch = sorted(_replicate(entities, copies), key=lambda e: str(e.id))
        mentions = sum(len(e.provenance) for e in batch)
        gc.collect()
        start = time.perf_counter()
        evidence = score_mentions(batch)
        agreeing_clusters(len(batch), evidence.pairs, evidence.probabilities, evidence.scorer)
        seconds = time.perf_counter() - start
        tracemalloc.start()
        evidence = score_mentions(batch)
        agreeing_clusters(len(batch), evidence.pairs, evidence.probabilities, evidence.scorer)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        figures.append((len(batch), peak))
        print(
            f"  {len(batch):,} entities ({mentions:,} mentions): {seconds:.2f} s, "
            f"{len(evidence.pairs):,} candidate pairs, peak traced memory {peak:.0f} MB"
        )
    if len(figures) > 1:
        (n0, m0), (n1, m1) = figures[0], figures[-1]
        slope = (m1 - m0) / (n1 - n0)
        print(
            f"  memory grows {slope * 1000:.2f} MB per 1,000 entities; linear extrapolation "
            f"to 400,000 entities: {m0 + slope * (400_000 - n0):.0f} MB"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", choices=("conll04", "redocred", "all"), default="all")
    parser.add_argument("--limit", type=int, default=None, help="documents per corpus")
    parser.add_argument(
        "--no-baseline",
        dest="baseline",
        action="store_false",
        help="skip the one-document-at-a-time ingest baseline",
    )
    parser.add_argument(
        "--no-scale", dest="scale", action="store_false", help="skip the 10k-40k scale run"
    )
    parser.add_argument("--write-sample", type=Path, default=None, help="TSV for labelling")
    args = parser.parse_args()
    sample: list[MergePair] = []
    if args.corpus in ("conll04", "all"):
        conll = load_conll04(
            [DATA / "conll04" / "conll04_test.json", DATA / "conll04" / "conll04_dev.json"],
            args.limit,
        )
        run_corpus("CoNLL04 test+dev", conll, sample, baseline=args.baseline)
    if args.corpus in ("redocred", "all"):
        redocred = load_redocred(DATA / "redocred" / "redocred_dev.json.gz", args.limit)
        entities = run_corpus("Re-DocRED dev", redocred, sample, baseline=args.baseline)
        if args.scale:
            scale_run(entities, [10_000, 20_000, 40_000])
    if args.write_sample is not None:
        texts: dict[str, str] = {}
        for docs in (
            load_conll04(
                [DATA / "conll04" / "conll04_test.json", DATA / "conll04" / "conll04_dev.json"]
            ),
            load_redocred(DATA / "redocred" / "redocred_dev.json.gz"),
        ):
            texts.update({d.source_id: d.text for d in docs})
        labels = _labels()
        with args.write_sample.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t")
            writer.writerow(["key", "label", "left", "right", "left_context", "right_context"])
            for pair in sample:
                label = labels.get(pair.key)
                writer.writerow(
                    [
                        pair.key,
                        "" if label is None else int(label),
                        pair.left_form,
                        pair.right_form,
                        context(texts[pair.left[0]], pair.left[1], pair.left[2]),
                        context(texts[pair.right[0]], pair.right[1], pair.right[2]),
                    ]
                )
        print(f"\nwrote {len(sample)} sampled cross-document merges to {args.write_sample}")


if __name__ == "__main__":
    main()
