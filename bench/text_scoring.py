"""Corpora and scores for `bench/text_consolidation.py`, kept apart so tests can check them.

Documents are the shared sets' token lists joined by single spaces, so character
offsets of gold mentions follow from token offsets (the Re-DocRED README's rule).
A predicted mention is a provenance span; it matches a gold mention only on the
exact same character span.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from redstring.consolidation.mentions import KNOWN_ALIASES
from redstring.consolidation.names import LEGAL_FORMS, raw_tokens
from redstring.consolidation.values import value_key

if TYPE_CHECKING:
    from collections.abc import Hashable, Mapping, Sequence
    from pathlib import Path

#: (source id, start, end): one mention, as a provenance span.
Span = tuple[str, int, int]


@dataclass
class Document:
    source_id: str
    text: str
    #: Gold mentions as (start, end, gold entity key); the key is None where the corpus
    #: has no entity identity (CoNLL04).
    gold: list[tuple[int, int, int | None]] = field(default_factory=list)


def _join(sentences: Sequence[Sequence[str]]) -> tuple[str, list[list[tuple[int, int]]]]:
    """Text of tokens joined by single spaces, and each token's (start, end)."""
    offsets: list[list[tuple[int, int]]] = []
    text = ""
    for sentence in sentences:
        row = []
        for token in sentence:
            if text:
                text += " "
            row.append((len(text), len(text) + len(token)))
            text += token
        offsets.append(row)
    return text, offsets


def load_redocred(path: Path, limit: int | None = None) -> list[Document]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        raw = json.load(handle)
    out = []
    for n, item in enumerate(raw[:limit]):
        text, offsets = _join(item["sents"])
        doc = Document(f"redocred-{n:03d}", text)
        for k, entity in enumerate(item["vertexSet"]):
            for m in entity:
                row = offsets[m["sent_id"]]
                doc.gold.append((row[m["pos"][0]][0], row[m["pos"][1] - 1][1], k))
        out.append(doc)
    return out


def load_conll04(paths: Sequence[Path], limit: int | None = None) -> list[Document]:
    out = []
    for path in paths:
        split = path.stem.rsplit("_", 1)[-1]
        for n, item in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            text, offsets = _join([item["tokens"]])
            doc = Document(f"conll04-{split}-{n:03d}", text)
            start = None
            for i, tag in enumerate(item["tags"]):
                if tag.startswith(("B-", "U-")):
                    start = i
                if tag.startswith(("L-", "U-")) and start is not None:
                    doc.gold.append((offsets[0][start][0], offsets[0][i][1], None))
                    start = None
            out.append(doc)
    return out[:limit]


@dataclass(frozen=True)
class PRF:
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __str__(self) -> str:
        return f"P {self.precision:.3f} R {self.recall:.3f} F1 {self.f1:.3f}"


def mention_scores(documents: Sequence[Document], predicted: set[Span]) -> PRF:
    """Exact-span mention detection against the gold mentions."""
    gold = {(d.source_id, s, e) for d in documents for s, e, _ in d.gold}
    ours = {p for p in predicted if p[0] in {d.source_id for d in documents}}
    return PRF(len(gold & ours), len(ours - gold), len(gold - ours))


def within_document_merges(
    documents: Sequence[Document],
    assignment: Mapping[Span, Hashable],
    *,
    detected_only: bool,
) -> PRF:
    """Pairs of gold mentions of one document put in one entity, against the gold entities.

    With `detected_only`, only gold mentions the extractor found (exact span) count;
    otherwise an undetected mention is a mention merged with nothing.
    """
    tp = fp = fn = 0
    for doc in documents:
        rows = []
        for start, end, gold in dict.fromkeys(doc.gold):
            if gold is None:
                continue
            key = assignment.get((doc.source_id, start, end))
            if key is None and detected_only:
                continue
            rows.append((gold, key if key is not None else ("undetected", start, end)))
        for x in range(len(rows)):
            for y in range(x + 1, len(rows)):
                same_gold, same_ours = rows[x][0] == rows[y][0], rows[x][1] == rows[y][1]
                tp += same_gold and same_ours
                fp += same_ours and not same_gold
                fn += same_gold and not same_ours
    return PRF(tp, fp, fn)


_REGNAL = re.compile(r"^(?:[ivx]+|\d{1,2}(?:st|nd|rd|th))$")


def _acronym_of(short: str, long_tokens: Sequence[str]) -> bool:
    content = [
        t for t in long_tokens if t not in {"of", "the", "and", "for", "de", "&"} | LEGAL_FORMS
    ]
    return len(content) > 1 and short in {
        "".join(t[0] for t in content),
        "".join(t[0] for t in long_tokens),
    }


@dataclass
class ChainAudit:
    """Clusters holding what no single real entity can (the issue's three kinds)."""

    two_dates: list[list[str]] = field(default_factory=list)
    two_regnal: list[list[str]] = field(default_factory=list)
    token_disjoint: list[list[str]] = field(default_factory=list)


def chain_audit(clusters: Sequence[Sequence[tuple[str, str]]]) -> ChainAudit:
    """Audit clusters given as lists of (surface form, entity type) of their mentions."""
    audit = ChainAudit()
    for cluster in clusters:
        forms = sorted({form for form, _ in cluster})
        if len(forms) < 2:
            continue
        dates = {
            key
            for form, kind in cluster
            if (key := value_key(form, kind)) is not None
            and key.startswith(("date:", "decade:", "century:"))
        }
        if len(dates) > 1:
            audit.two_dates.append(forms)
        by_rest: dict[tuple[str, ...], set[str]] = defaultdict(set)
        names = sorted({form for form, kind in cluster if value_key(form, kind) is None})
        for form in names:
            tokens = raw_tokens(form)
            numbers = [t for t in tokens if _REGNAL.match(t)]
            rest = tuple(t for t in tokens if not _REGNAL.match(t))
            if numbers:
                by_rest[rest].add(" ".join(numbers))
        if any(len(numbers) > 1 for numbers in by_rest.values()):
            audit.two_regnal.append(forms)
        token_sets = [(form, set(raw_tokens(form))) for form in names]
        for i, (a, ta) in enumerate(token_sets):
            for b, tb in token_sets[i + 1 :]:
                if ta & tb:
                    continue
                ka, kb = " ".join(raw_tokens(a)), " ".join(raw_tokens(b))
                alias = KNOWN_ALIASES.get(ka) is not None and KNOWN_ALIASES.get(ka) == (
                    KNOWN_ALIASES.get(kb)
                )
                acronym = _acronym_of(ka, raw_tokens(b)) or _acronym_of(kb, raw_tokens(a))
                if not alias and not acronym:
                    audit.token_disjoint.append(forms)
                    break
            else:
                continue
            break
    return audit


@dataclass(frozen=True)
class MergePair:
    """Two mentions from different documents that consolidation put in one entity."""

    corpus: str
    left: Span
    right: Span
    left_form: str
    right_form: str

    @property
    def key(self) -> str:
        return "|".join((self.corpus, *(str(x) for x in self.left), *(str(x) for x in self.right)))


def cross_document_pairs(
    corpus: str,
    clusters: Sequence[Sequence[Sequence[Span]]],
    texts: Mapping[str, str],
    *,
    per_corpus: int,
    per_entity_pair: int = 2,
    per_cluster: int = 2,
    seed: int = 19,
) -> list[MergePair]:
    """A deterministic sample of mention pairs across documents that a merge joined.

    `clusters` are final entities, each a list of its pre-merge entities' spans. For
    two pre-merge entities of a cluster, a pair is the first span of each in two
    different documents, for up to `per_entity_pair` pairs of documents. At most
    `per_cluster` pairs are drawn from one cluster: a cluster of n entities has ~n²
    pairs, and "United States" x 100 documents would otherwise be most of the sample.
    """
    candidates: list[MergePair] = []
    for members in clusters:
        found = sorted(
            _cluster_pairs(corpus, members, texts, per_entity_pair),
            key=lambda p: _draw(p, seed),
        )
        candidates.extend(found[:per_cluster])
    candidates.sort(key=lambda p: _draw(p, seed))
    return sorted(candidates[:per_corpus], key=lambda p: p.key)


def _draw(pair: MergePair, seed: int) -> str:
    """A pair's place in the sample: a hash of its key, so a pair keeps its place
    (and its label stays in use) when other clusters come or go."""
    return hashlib.sha256(f"{seed}|{pair.key}".encode()).hexdigest()


def _cluster_pairs(
    corpus: str,
    members: Sequence[Sequence[Span]],
    texts: Mapping[str, str],
    per_entity_pair: int,
) -> list[MergePair]:
    candidates: list[MergePair] = []
    for i in range(len(members)):
        for j in range(i + 1, len(members)):
            # Up to `per_entity_pair` pairs of mentions, each from a different pair
            # of documents: small corpora make few merges across documents.
            documents: set[tuple[str, str]] = set()
            for a in sorted(members[i]):
                for b in sorted(members[j]):
                    if a[0] == b[0] or (a[0], b[0]) in documents:
                        continue
                    if len(documents) == per_entity_pair:
                        break
                    documents.add((a[0], b[0]))
                    candidates.append(
                        MergePair(corpus, a, b, texts[a[0]][a[1] : a[2]], texts[b[0]][b[1] : b[2]])
                    )
    return candidates


def context(text: str, start: int, end: int, width: int = 70) -> str:
    left = text[max(0, start - width) : start]
    right = text[end : end + width]
    return f"{left}[[{text[start:end]}]]{right}".replace("\t", " ").replace("\n", " ")
