"""Resolution quality against gold labels.

Inputs are per-record labels: `predicted[i]` and `gold[i]` name record i's cluster
in each partition (any hashable; only equality matters).

- Pairwise: a pair of records is predicted-same when both labels agree in
  `predicted`, truly-same when they agree in `gold`. Counted from the contingency
  table, so no pair list is ever built.
- B-cubed (Bagga & Baldwin): per record, precision is the share of its predicted
  cluster that is truly with it, recall the share of its true cluster that is
  predicted with it; both averaged over records.
- Blocking: reduction ratio is the share of all pairs *not* compared; pair
  completeness the share of true pairs that were.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from redstring.domain.exceptions import InvalidInputError

if TYPE_CHECKING:
    from collections.abc import Hashable, Iterable, Sequence


@dataclass(frozen=True)
class PRF:
    precision: float
    recall: float
    f1: float


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def _check(predicted: Sequence[Hashable], gold: Sequence[Hashable]) -> None:
    if len(predicted) != len(gold):
        raise InvalidInputError(f"{len(predicted)} predicted labels for {len(gold)} gold labels")


def pairwise_prf(predicted: Sequence[Hashable], gold: Sequence[Hashable]) -> PRF:
    """Pairwise precision, recall and F1. With no predicted (or gold) pairs the
    corresponding ratio is 1.0 when there is nothing to find, else 0.0."""
    _check(predicted, gold)
    true_positive = sum(_pairs(n) for n in Counter(zip(predicted, gold, strict=True)).values())
    predicted_pairs = sum(_pairs(n) for n in Counter(predicted).values())
    gold_pairs = sum(_pairs(n) for n in Counter(gold).values())
    precision = true_positive / predicted_pairs if predicted_pairs else float(gold_pairs == 0)
    recall = true_positive / gold_pairs if gold_pairs else 1.0
    return PRF(precision, recall, _f1(precision, recall))


def bcubed_prf(predicted: Sequence[Hashable], gold: Sequence[Hashable]) -> PRF:
    _check(predicted, gold)
    if not predicted:
        return PRF(1.0, 1.0, 1.0)
    joint = Counter(zip(predicted, gold, strict=True))
    predicted_sizes = Counter(predicted)
    gold_sizes = Counter(gold)
    precision = sum(n * n / predicted_sizes[p] for (p, _), n in joint.items()) / len(predicted)
    recall = sum(n * n / gold_sizes[g] for (_, g), n in joint.items()) / len(predicted)
    return PRF(precision, recall, _f1(precision, recall))


def reduction_ratio(candidate_pairs: int, records: int) -> float:
    total = _pairs(records)
    return 1.0 - candidate_pairs / total if total else 1.0


def pair_completeness(candidates: Iterable[tuple[int, int]], gold: Sequence[Hashable]) -> float:
    """Share of truly-same record pairs among `candidates` (index pairs, each once)."""
    gold_pairs = sum(_pairs(n) for n in Counter(gold).values())
    if not gold_pairs:
        return 1.0
    found = sum(1 for i, j in candidates if i != j and gold[i] == gold[j])
    return found / gold_pairs
