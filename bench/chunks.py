"""Chunk retrieval on CoNLL04 sentences: BM25 alone, the entity channels alone, fused.

    uv run python bench/chunks.py [--embedder local|fake] [--extractor gold|offline]
                                  [--scale 100000] [--skip-scale]

Corpus: the 519 sentences of CoNLL04 dev + test, one document (and one chunk) each,
ingested with `build_graphs` into a SQLite workspace (FTS5 chunk store, local MiniLM
vectors). `--extractor gold` ingests the gold entities and relations as the
extraction (so retrieval is measured apart from extraction errors); `offline` uses
the rule-based extractor.

Queries, from the gold file (a hit is a sentence holding the gold fact):

- **names**: each distinct gold entity string (Peop/Org/Loc); relevant sentences are
  those with a gold mention of exactly that string.
- **relations**: a question per (relation type, argument) -- "Who does X work for?",
  "Where does X live?", "Where is X based?", "Where is X located?", "Who killed Y?"
  -- relevant sentences are those holding that relation with that argument.

Sentence rankings (top 10): **bm25** is the chunk store's BM25; **entities** is the
hybrid `Retriever` (semantic + lexical) with each entity's provenance sentences in
entity order; **fused** is `ContextBuilder`'s chunk ranking (hops 0): RRF of those
two; **fused, seeds+chunks** is the alternative it rejects, RRF of BM25 and the
sentences of the entities retrieved with the chunk channel on (BM25 counted twice). recall@k is
|relevant in top k| / min(|relevant|, k); MRR@10 by the first relevant sentence.

Entity rankings (ADR 0014's question): the hybrid `Retriever` with and without the
chunk channel (`passages=True`); a hit is an entity named like the query (names) or
like an answer of the relation (relations).

BM25 reference: `bm25s` (Robertson idf and tf, k1 1.2, b 0.75, the corpus tokenized
by `redstring.domain.chunk.terms` so both see the same terms): top-1 agreement,
overlap of the top 10, and median query time beside the FTS5 store's. At `--scale`
chunks (each three sentences drawn from CoNLL04 and Re-DocRED, seeded), the same
queries' p50/p99 for FTS5 and bm25s.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conll04_scoring import (
    CONLL_TO_REDSTRING_ENTITY,
    CONLL_TO_REDSTRING_RELATION,
    Sentence,
    load_sentences,
)

from redstring.chunks.sqlite import SqliteChunkStore
from redstring.composition.build_graph import build_graphs
from redstring.composition.context import ContextBuilder
from redstring.composition.retrieval import Retriever
from redstring.composition.workspace import Workspace
from redstring.domain.chunk import ChunkRecord, terms
from redstring.domain.fusion import reciprocal_rank_fusion
from redstring.domain.ids import tenant_id_for
from redstring.domain.normalization import normalize_name
from redstring.domain.retrieval import RetrievalMode
from redstring.extraction.extractor import (
    ChunkExtraction,
    EntityMention,
    RelationMention,
    find_spans,
)
from redstring.storage.sqlite import open_connection

if TYPE_CHECKING:
    from collections.abc import Sequence

    from redstring.extraction.chunking import Chunk
    from redstring.ports.embedding import EmbeddingProvider

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
K = 10
SEED = 7

#: (relation, which argument the question names) -> the question.
QUESTIONS = {
    ("Work_For", "head"): "Who does {} work for?",
    ("Live_In", "head"): "Where does {} live?",
    ("OrgBased_In", "head"): "Where is {} based?",
    ("Located_In", "head"): "Where is {} located?",
    ("Kill", "tail"): "Who killed {}?",
}


@dataclass
class Query:
    text: str
    kind: str
    #: Source ids of the sentences holding the fact.
    relevant: set[str]
    #: Normalized names of the entities that answer it.
    answers: set[str]


@dataclass
class Tally:
    r1: list[float] = field(default_factory=list)
    r10: list[float] = field(default_factory=list)
    rr: list[float] = field(default_factory=list)

    def add(self, ranking: Sequence[str], relevant: set[str]) -> None:
        top = list(dict.fromkeys(ranking))[:K]
        self.r1.append(len(relevant & set(top[:1])) / min(len(relevant), 1))
        self.r10.append(len(relevant & set(top)) / min(len(relevant), K))
        first = next((i for i, item in enumerate(top, 1) if item in relevant), None)
        self.rr.append(0.0 if first is None else 1.0 / first)

    def row(self, label: str) -> str:
        mean = statistics.fmean
        return f"{label:<28}{mean(self.r1):>9.3f}{mean(self.r10):>11.3f}{mean(self.rr):>9.3f}"


class GoldExtractor:
    """The gold entities and relations of each sentence, as if an extractor found them."""

    method = "gold"

    def __init__(self, by_text: dict[str, Sentence]) -> None:
        self._by_text = by_text

    async def extract_document(self, chunks: Sequence[Chunk]) -> list[ChunkExtraction]:
        found = []
        for chunk in chunks:
            sentence = self._by_text[chunk.text]
            mentions = {
                (e.text, CONLL_TO_REDSTRING_ENTITY[e.conll_type]): EntityMention(
                    name=e.text,
                    entity_type=CONLL_TO_REDSTRING_ENTITY[e.conll_type],
                    spans=find_spans(e.text, chunk.text),
                )
                for e in sentence.entities
            }
            relations = tuple(
                RelationMention(r.head, r.tail, CONLL_TO_REDSTRING_RELATION[r.conll_type])
                for r in sentence.relations
            )
            found.append(ChunkExtraction(chunk, tuple(mentions.values()), relations, method="gold"))
        return found


def source(index: int) -> str:
    return f"s{index:04d}"


def make_queries(sentences: Sequence[Sentence], limit: int) -> list[Query]:
    names: dict[str, set[str]] = {}
    facts: dict[str, tuple[set[str], set[str]]] = {}
    for index, sentence in enumerate(sentences):
        for entity in sentence.entities:
            if entity.conll_type != "Other":
                names.setdefault(entity.text, set()).add(source(index))
        for relation in sentence.relations:
            for (kind, side), template in QUESTIONS.items():
                if relation.conll_type != kind:
                    continue
                named, answer = (
                    (relation.head, relation.tail)
                    if side == "head"
                    else (relation.tail, relation.head)
                )
                relevant, answers = facts.setdefault(template.format(named), (set(), set()))
                relevant.add(source(index))
                answers.add(normalize_name(answer))
    rng = random.Random(SEED)
    name_queries = [
        Query(text, "names", relevant, {normalize_name(text)})
        for text, relevant in sorted(names.items())
    ]
    fact_queries = [
        Query(text, "relations", relevant, answers)
        for text, (relevant, answers) in sorted(facts.items())
    ]
    return rng.sample(name_queries, min(limit, len(name_queries))) + rng.sample(
        fact_queries, min(limit, len(fact_queries))
    )


def make_embedder(kind: str) -> EmbeddingProvider:
    if kind == "fake":
        from redstring.embeddings.fake import FakeEmbeddingProvider

        return FakeEmbeddingProvider(dimension=384)
    from redstring.embeddings.local import LocalEmbeddingProvider

    return LocalEmbeddingProvider()


async def quality(
    sentences: list[Sentence], queries: list[Query], args: argparse.Namespace, tmp: Path
) -> None:
    """Ingest the sentences and print the sentence and entity rankings' figures."""
    embedder = make_embedder(args.embedder)
    workspace = Workspace.open(tmp / "conll04.db", dimension=embedder.dimension)
    tenant = workspace.register_tenant("conll04")
    documents = [(source(i), s.text) for i, s in enumerate(sentences)]
    by_text = {s.text: s for s in sentences}
    extractor = GoldExtractor(by_text) if args.extractor == "gold" else None
    started = time.perf_counter()
    await build_graphs(
        documents, workspace=workspace, tenant_id=tenant, embeddings=embedder, extractor=extractor
    )
    built = time.perf_counter() - started
    retriever = Retriever(embedder, workspace.vectors, workspace.graph, workspace.chunks)
    builder = ContextBuilder(retriever, workspace.graph, workspace.chunks)
    print(
        f"CoNLL04 dev+test: {len(sentences)} sentences, "
        f"{await workspace.graph.count_entities(tenant)} entities ({args.extractor} extraction), "
        f"{await workspace.chunks.count(tenant)} chunks; embedder {embedder.model_name}; "
        f"built in {built:.1f}s"
    )
    tallies: dict[tuple[str, str], Tally] = {}
    for query in queries:
        hits = await workspace.chunks.search(query.text, tenant, k=K)
        entities = await retriever.retrieve(query.text, tenant, k=K, mode=RetrievalMode.HYBRID)
        with_chunks = await retriever.retrieve(
            query.text, tenant, k=K, mode=RetrievalMode.HYBRID, passages=True
        )
        context = await builder.context(query.text, tenant, k=K, hops=0, token_budget=10**9)
        via_entities = [p.source_id for m in entities.matches for p in m.entity.provenance]
        rankings = {
            "sentences: bm25": [hit.chunk.source_id for hit in hits],
            "sentences: entities": via_entities,
            "sentences: fused": [chunk.source_id for chunk in context.chunks],
            "sentences: fused, seeds+chunks": [
                sid
                for sid, _ in reciprocal_rank_fusion(
                    [
                        [hit.chunk.source_id for hit in hits],
                        list(
                            dict.fromkeys(
                                p.source_id
                                for m in with_chunks.matches
                                for p in m.entity.provenance
                            )
                        ),
                    ]
                )
            ],
        }
        for label, ranking in rankings.items():
            tallies.setdefault((query.kind, label), Tally()).add(ranking, query.relevant)
        for label, result in (
            ("entities: hybrid", entities),
            ("entities: hybrid+chunks", with_chunks),
        ):
            names = [normalize_name(m.entity.name) for m in result.matches]
            tallies.setdefault((query.kind, label), Tally()).add(names, query.answers)
    for kind in ("names", "relations"):
        count = sum(1 for q in queries if q.kind == kind)
        print(f"\n{kind}: {count} queries (seed {SEED}), k={K}")
        print(f"{'ranking':<28}{'recall@1':>9}{'recall@10':>11}{'MRR@10':>9}")
        for (tally_kind, label), tally in tallies.items():
            if tally_kind == kind:
                print(tally.row(label))
    workspace.close()


def bm25s_index(texts: Sequence[str]) -> object:
    import bm25s

    index = bm25s.BM25(k1=1.2, b=0.75, method="robertson", idf_method="robertson")
    index.index([terms(text) for text in texts], show_progress=False)
    return index


def bm25s_search(index: object, query: str, k: int) -> list[tuple[int, float]]:
    words = [w for w in dict.fromkeys(terms(query)) if w in index.vocab_dict]  # type: ignore[attr-defined]
    if not words:
        return []
    docs, scores = index.retrieve([words], k=k, show_progress=False, n_threads=1)  # type: ignore[attr-defined]
    return [(int(d), float(s)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


async def agreement(
    texts: list[str], queries: list[Query], label: str, store: SqliteChunkStore, tenant: object
) -> None:
    index = bm25s_index(texts)
    ours_t: list[float] = []
    theirs_t: list[float] = []
    top1: list[float] = []
    overlap: list[float] = []
    for query in queries:
        begin = time.perf_counter()
        ours = await store.search(query.text, tenant, k=K)  # type: ignore[arg-type]
        ours_t.append(time.perf_counter() - begin)
        begin = time.perf_counter()
        theirs = bm25s_search(index, query.text, K)
        theirs_t.append(time.perf_counter() - begin)
        mine = [int(hit.chunk.chunk_id) for hit in ours]
        other = [doc for doc, _ in theirs]
        if not mine and not other:
            continue
        top1.append(float(mine[:1] == other[:1]))
        overlap.append(len(set(mine) & set(other)) / max(len(mine), len(other)))
    ms = 1000.0
    print(
        f"{label}: bm25s agreement top-1 {statistics.fmean(top1):.3f}, top-{K} overlap "
        f"{statistics.fmean(overlap):.3f} over {len(top1)} queries"
    )
    for name, times in (("FTS5 (redstring)", ours_t), ("bm25s", theirs_t)):
        cuts = statistics.quantiles(times, n=100)
        print(
            f"  {name:<18} p50 {statistics.median(times) * ms:7.3f} ms   "
            f"p99 {cuts[98] * ms:7.3f} ms"
        )
    ratio = statistics.median(ours_t) / statistics.median(theirs_t)
    print(f"  median ratio FTS5 / bm25s: {ratio:.2f}")


def redocred_sentences() -> list[str]:
    with gzip.open(DATA / "redocred" / "redocred_dev.json.gz", "rt", encoding="utf-8") as handle:
        documents = json.load(handle)
    return [" ".join(tokens) for doc in documents for tokens in doc["sents"]]


async def fts_store(tmp: Path, name: str, texts: Sequence[str]) -> tuple[SqliteChunkStore, object]:
    conn = open_connection(tmp / f"{name}.db")
    store = SqliteChunkStore(conn)
    tenant = tenant_id_for(name)
    records = [
        ChunkRecord(chunk_id=str(i), source_id=str(i), index=0, start=0, end=len(t), text=t)
        for i, t in enumerate(texts)
    ]
    for first in range(0, len(records), 5000):
        await store.upsert(records[first : first + 5000], tenant)
    return store, tenant


async def run(args: argparse.Namespace) -> None:
    sentences = [
        *load_sentences(DATA / "conll04" / "conll04_dev.json"),
        *load_sentences(DATA / "conll04" / "conll04_test.json"),
    ]
    queries = make_queries(sentences, args.queries)
    with tempfile.TemporaryDirectory(prefix="redstring-bench-chunks-") as name:
        tmp = Path(name)
        await quality(sentences, queries, args, tmp)
        texts = [sentence.text for sentence in sentences]
        print()
        store, tenant = await fts_store(tmp, "conll", texts)
        await agreement(texts, queries, f"CoNLL04 ({len(texts)} chunks)", store, tenant)
        if args.skip_scale:
            return
        pool = texts + redocred_sentences()
        rng = random.Random(SEED)
        big = [" ".join(rng.sample(pool, 3)) for _ in range(args.scale)]
        begin = time.perf_counter()
        store, tenant = await fts_store(tmp, "scale", big)
        print(
            f"\n{args.scale} chunks (3 sentences each from {len(pool)}) stored in "
            f"{time.perf_counter() - begin:.1f}s"
        )
        await agreement(big, queries, f"{args.scale} chunks", store, tenant)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", choices=["local", "fake"], default="local")
    parser.add_argument("--extractor", choices=["gold", "offline"], default="gold")
    parser.add_argument("--queries", type=int, default=400, help="per kind, at most")
    parser.add_argument("--scale", type=int, default=100_000)
    parser.add_argument("--skip-scale", action="store_true")
    args = parser.parse_args()
    for path in (DATA / "conll04" / "conll04_dev.json",):
        if not path.exists():
            sys.exit(f"missing {path}: the evaluation data lives in ../shared/data/")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
