"""CoNLL04 extraction benchmark: strict entity F1 and relation F1.

    uv run python bench/extraction_conll04.py [--split test|dev] [--limit N]

The OfflineExtractor always runs (no model needed) and its entity and relation
scores are printed (its pattern relationships mapped to CoNLL04's types by
`OFFLINE_TO_CONLL_RELATION`), on the exact text and again with each span read as
the gold tokens it touches (`conll04_scoring.token_aligned`). The
LlmExtractor runs only when an endpoint is configured through the
`REDSTRING_LLM_*` environment variables (at least REDSTRING_LLM_MODEL, see
docs/how-to/configure-llm.md); otherwise the script says it skips and exits 0.
It makes two passes through one response cache (`--llm-cache FILE` keeps it
between runs): the first prints what the model was paid and how fast it
answered, the second must make zero model calls and print the same scores.

The LLM is given the CoNLL04 label set as a domain schema (types Person,
Organization, Location, Other; relations WORK_FOR, KILL, ORG_BASED_IN,
LIVE_IN, LOCATED_IN), one sentence per call, as is standard for this set.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conll04_scoring import (
    CONLL_TO_REDSTRING_RELATION,
    Scores,
    Sentence,
    load_sentences,
    score_sentence,
    token_aligned,
)

from redstring.domain.exceptions import LlmError
from redstring.extraction.chunking import Chunk
from redstring.extraction.extractor import LlmExtractor
from redstring.extraction.offline import OfflineExtractor
from redstring.extraction.relations import SpannedRelation
from redstring.extraction.schemas import DomainSchema, TypeSpec

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "conll04"

CONLL_DOMAIN = DomainSchema(
    name="conll04",
    description="News sentences; the CoNLL04 label set.",
    entity_types=[
        TypeSpec(name="Person", description="A named person, with any title as written."),
        TypeSpec(name="Organization", description="A named organisation or body."),
        TypeSpec(name="Location", description="A named place."),
        TypeSpec(name="Other", description="Other named things: dates, amounts, nationalities."),
    ],
    relationship_types=[
        TypeSpec(name="WORK_FOR", description="A person works for an organization."),
        TypeSpec(name="KILL", description="A person killed a person."),
        TypeSpec(name="ORG_BASED_IN", description="An organization is based in a location."),
        TypeSpec(name="LIVE_IN", description="A person lives in a location."),
        TypeSpec(name="LOCATED_IN", description="A location is inside a location."),
    ],
    fallback_entity_type="Other",
)
assert {t.name for t in CONLL_DOMAIN.relationship_types} == set(
    CONLL_TO_REDSTRING_RELATION.values()
)


def sentence_chunk(sentence: Sentence) -> Chunk:
    return Chunk(index=0, text=sentence.text, start=0, end=len(sentence.text))


#: The offline extractor's relationship types as CoNLL04's, by (type, source entity type):
#: it names an organisation's seat and a place's container both LOCATED_IN, as the
#: general domain does; a birthplace counts as CoNLL04's Live_In, as the set labels it.
OFFLINE_TO_CONLL_RELATION = {
    ("WORKS_FOR", "Person"): "WORK_FOR",
    ("KILLED", "Person"): "KILL",
    ("LOCATED_IN", "Organization"): "ORG_BASED_IN",
    ("LOCATED_IN", "Location"): "LOCATED_IN",
    ("LIVES_IN", "Person"): "LIVE_IN",
    ("BORN_IN", "Person"): "LIVE_IN",
}


def _align(
    sentence: Sentence,
    spans: dict[str, tuple[tuple[int, int], ...]],
    name: str,
    within: tuple[int, int] | None,
) -> str:
    """The token-aligned text of `name`'s occurrence inside `within` (an edge's span)."""
    chosen = [
        (start, end)
        for start, end in spans.get(name, ())
        if within is None or within[0] <= start < end <= within[1]
    ]
    return token_aligned(sentence, *chosen[0]) if chosen else name


def run_offline(sentences: list[Sentence], min_confidence: float) -> tuple[Scores, Scores]:
    """Scores on the exact text, and on the text of the gold tokens each span touches
    (`token_aligned`: "Ethiopia" found in the gold token "Ethiopia." is that token)."""
    extractor = OfflineExtractor(min_confidence=min_confidence)
    exact, aligned = Scores(), Scores()
    for sentence in sentences:
        found = extractor.extract_chunk(sentence_chunk(sentence))
        types = {e.name: e.entity_type for e in found.entities}
        spans: dict[str, tuple[tuple[int, int], ...]] = {}
        for e in found.entities:
            spans[e.name] = spans.get(e.name, ()) + tuple(e.spans)
        relations = [
            (r, OFFLINE_TO_CONLL_RELATION.get(key, r.relationship_type))
            for r in found.relationships
            for key in [(r.relationship_type, types.get(r.source, ""))]
        ]
        score_sentence(
            exact,
            sentence,
            [(e.name, e.entity_type) for e in found.entities],
            [(r.source, r.target, kind) for r, kind in relations],
        )

        score_sentence(
            aligned,
            sentence,
            [
                (token_aligned(sentence, start, end), e.entity_type)
                for e in found.entities
                for start, end in e.spans
            ],
            [
                (
                    _align(sentence, spans, r.source, span),
                    _align(sentence, spans, r.target, span),
                    kind,
                )
                for r, kind in relations
                for span in [r.span if isinstance(r, SpannedRelation) else None]
            ],
        )
    return exact, aligned


async def run_llm(sentences: list[Sentence], cache: Path | None) -> None:
    """Two passes over `sentences` through one response cache: the first asks the
    model (cold, unless `cache` already holds the answers), the second must be
    answered from the cache with zero model calls and the same scores."""
    from redstring.llm.cache import CachingLlmProvider, MemoryResponseStore, SqliteResponseStore
    from redstring.llm.openai_compat import OpenAICompatibleProvider

    store = SqliteResponseStore(cache) if cache is not None else MemoryResponseStore()
    async with OpenAICompatibleProvider() as provider:
        for name in ("first pass", "second pass"):
            cached = CachingLlmProvider(provider, store)
            extractor = LlmExtractor(cached, CONLL_DOMAIN)
            failures: Counter[str] = Counter()

            async def one(
                sentence: Sentence,
                extractor: LlmExtractor = extractor,
                failures: Counter[str] = failures,
            ) -> tuple[Sentence, list[tuple[str, str]], list[tuple[str, str, str]]]:
                try:
                    (got,) = await extractor.extract_document([sentence_chunk(sentence)])
                except LlmError as exc:
                    failures[type(exc).__name__] += 1
                    print(f"  sentence {sentence.orig_id}: {exc}"[:300], file=sys.stderr)
                    return sentence, [], []
                return (
                    sentence,
                    [(e.name, e.entity_type) for e in got.entities],
                    [(r.source, r.target, r.relationship_type) for r in got.relationships],
                )

            before = provider.usage
            started = time.perf_counter()
            results = await asyncio.gather(*(one(s) for s in sentences))
            wall = time.perf_counter() - started
            paid = provider.usage - before
            scores = Scores()
            for sentence, entities, relations in results:
                score_sentence(scores, sentence, entities, relations)
            failed = ", ".join(f"{k} {v}" for k, v in sorted(failures.items())) or "none"
            print(
                f"llm {name} ({provider.model_name}): {paid.calls} model calls, "
                f"{cached.hits} cache hits; {paid.prompt_tokens} prompt + "
                f"{paid.completion_tokens} completion tokens; wall {wall:.1f} s; "
                f"{paid.completion_tokens / wall:.1f} completion tokens/s, "
                f"{paid.total_tokens / wall:.1f} tokens/s; failed sentences: {failed}"
            )
            print(f"llm entities:  {scores.entities.line()}")
            print(f"llm relations: {scores.relations.line()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "test"], default="test")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument(
        "--llm-cache",
        type=Path,
        default=None,
        help="keep LLM answers in this SQLite file (default: in memory, for this run only)",
    )
    args = parser.parse_args()
    path = DATA / f"conll04_{args.split}.json"
    if not path.exists():
        print(f"skipping: {path} not found (shared/data must be beside the repo)")
        return 0
    sentences = load_sentences(path)[: args.limit]
    gold_entities = sum(len(s.entities) for s in sentences)
    gold_relations = sum(len(s.relations) for s in sentences)
    print(
        f"CoNLL04 {args.split}: {len(sentences)} sentences, {gold_entities} entities, "
        f"{gold_relations} relations"
    )
    for min_confidence in (0.0, 0.5):
        offline, aligned = run_offline(sentences, min_confidence)
        print(f"offline (min_confidence={min_confidence}) entities:  {offline.entities.line()}")
        print(f"offline (min_confidence={min_confidence}) relations: {offline.relations.line()}")
        print(f"  token-aligned spans: entities  {aligned.entities.line()}")
        print(f"  token-aligned spans: relations {aligned.relations.line()}")
    if not os.environ.get("REDSTRING_LLM_MODEL"):
        print(
            "llm: skipping, no endpoint configured (set REDSTRING_LLM_MODEL and "
            "REDSTRING_LLM_BASE_URL)"
        )
        return 0
    asyncio.run(run_llm(sentences, args.llm_cache))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
