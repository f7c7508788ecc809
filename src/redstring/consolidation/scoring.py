"""Pair features and the fitted match model.

Each candidate pair becomes a feature vector (`FEATURE_NAMES`): name similarities
(Jaro-Winkler, token-set / token-sort overlap, first/last token, initials, nickname-
aware first name via `names.given_name_forms`, soundex of the last token, and
token-sort agreement of two multi-token names as an interaction), record fields when
both sides have them (`fields.FIELD_ALIASES`, with partial agreements: year, one
edit, day/month swapped for dates; district and sector for postcodes), embedding cosine when
both have vectors, and shared-neighbour overlap when both have neighbour sets.
A field that only one side has contributes zeros, and its "both" indicator says so,
so "missing" and "disagrees" are different evidence.

Rarity: agreeing on a rare value is stronger evidence than agreeing on a common one
("1860-01-01", "london", "politician" and "smith" are shared by many people). The
`*_rarity` features are an exact agreement times `ln(RARITY_REFERENCE / count)`,
floored at 0, where `count` is how many entities *in the batch being scored* carry
that value (for `resolve_incremental`: the new entities plus the stored candidates
fetched for them). The count is absolute, not a share of the batch, so the same value
is the same evidence in a batch of 100 or of 100,000; and a disagreeing pair gets 0,
so only agreement on a rare value is boosted. `names_unrelated_same_district` is an
interaction: two names with nothing in common (no shared core token, nickname,
surname soundex or initials) whose postcodes share a district -- the signature of
different people filed at one institution's postcode.

A logistic regression turns the vector into a match probability. Its weights are
fitted in numpy (`fit_logistic`, Newton-Raphson with an L2 penalty: deterministic,
no random start) on a labelled training split; the shipped constants live in
`calibration.py` with the command that produced them. Type compatibility is a
gate, not a feature: a person is never the same thing as a company, whatever the
names say.

String features are computed in bulk with `rapidfuzz.process.cpdist`, which scores
element-wise pairs in C; per-pair Python would dominate the run time.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import jellyfish
import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz, process
from rapidfuzz.distance import JaroWinkler, Levenshtein

from redstring.consolidation.fields import record_fields
from redstring.consolidation.names import given_name_forms, name_view, type_kind
from redstring.domain.exceptions import InvalidInputError
from redstring.domain.normalization import ascii_letters, normalize_name

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Types that may be the same thing as any other type: an extractor that could not
#: tell ("entity", "unknown") must not block a merge with a typed mention.
WILDCARD_TYPES = frozenset({"entity", "unknown", "thing", "other", "misc"})

FEATURE_NAMES: tuple[str, ...] = (
    "name_jw",
    "core_jw",
    "core_exact",
    "core_jw_ge_95",
    "token_set",
    "token_set_full",
    "token_sort",
    "token_sort_multi",
    "first_jw",
    "last_jw",
    "initials_match",
    "first_nickname",
    "last_soundex",
    "dob_both",
    "dob_exact",
    "dob_year",
    "dob_one_edit",
    "dob_swapped",
    "postcode_both",
    "postcode_exact",
    "postcode_district",
    "postcode_sector",
    "birth_place_both",
    "birth_place_jw",
    "birth_place_exact",
    "gender_both",
    "gender_same",
    "occupation_both",
    "occupation_same",
    "first_name_both",
    "first_name_jw",
    "surname_both",
    "surname_jw",
    "neighbours_both",
    "neighbours_jaccard",
    "vector_both",
    "vector_cosine",
    "dob_exact_rarity",
    "birth_place_exact_rarity",
    "occupation_same_rarity",
    "surname_exact_rarity",
    "names_unrelated_same_district",
)

#: Counts at or above this make a value's rarity 0 (see the module doc).
RARITY_REFERENCE = 1000.0


class Band(StrEnum):
    MERGE = "merge"
    GREY = "grey"
    DISTINCT = "distinct"


@dataclass(frozen=True)
class MatchModel:
    """A fitted logistic model and its calibrated band thresholds.

    `probability >= upper` is `merge`, `lower <= probability < upper` is `grey`,
    below `lower` is `distinct`.
    """

    kind: str
    weights: tuple[float, ...]
    intercept: float
    upper: float
    lower: float
    feature_names: tuple[str, ...] = FEATURE_NAMES

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.feature_names):
            raise InvalidInputError(
                f"{len(self.weights)} weights for {len(self.feature_names)} features"
            )
        if not 0.0 <= self.lower <= self.upper <= 1.0:
            raise InvalidInputError("thresholds must satisfy 0 <= lower <= upper <= 1")

    def probability(self, features: FloatArray) -> FloatArray:
        logits = features @ np.asarray(self.weights, dtype=np.float64) + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(logits, -40.0, 40.0)))

    def band(self, probability: float) -> Band:
        if probability >= self.upper:
            return Band.MERGE
        if probability >= self.lower:
            return Band.GREY
        return Band.DISTINCT


@dataclass(frozen=True, slots=True)
class Profile:
    """What the scorer reads from one entity, computed once per entity."""

    kind: str
    entity_type: str
    normalized: str
    core: str
    first: str
    last: str
    initials: str
    compact: str
    fields: dict[str, str]
    #: Full given names the first token may stand for (`names.given_name_forms`).
    first_forms: frozenset[str]
    #: Soundex of the last token's ASCII letters ("" when it has none).
    last_code: str
    #: Number of core tokens.
    n_tokens: int


def profile(entity: Entity) -> Profile:
    kind = type_kind(entity.entity_type)
    view = name_view(entity.name, kind)
    return Profile(
        kind=kind,
        entity_type=normalize_name(entity.entity_type),
        normalized=view.normalized,
        core=view.core,
        first=view.tokens[0] if view.tokens else "",
        last=view.tokens[-1] if view.tokens else "",
        initials=view.initials if len(view.tokens) >= 2 else "",
        compact=view.core.replace(" ", ""),
        fields=record_fields(entity),
        first_forms=given_name_forms(view.tokens[0]) if view.tokens else frozenset(),
        last_code=_soundex(view.tokens[-1]) if view.tokens else "",
        n_tokens=len(view.tokens),
    )


def _soundex(token: str) -> str:
    letters = ascii_letters(token)
    return str(jellyfish.soundex(letters)) if letters else ""


def types_compatible(left: Profile, right: Profile) -> bool:
    """Same normalized type, or either side a wildcard type."""
    return (
        left.entity_type == right.entity_type
        or left.entity_type in WILDCARD_TYPES
        or right.entity_type in WILDCARD_TYPES
    )


def _column(profiles: Sequence[Profile], attribute: str) -> npt.NDArray[np.object_]:
    return np.asarray([getattr(p, attribute) for p in profiles], dtype=object)


def _field_column(profiles: Sequence[Profile], name: str) -> npt.NDArray[np.object_]:
    return np.asarray([p.fields.get(name, "") for p in profiles], dtype=object)


def _paired(
    scorer: Callable[..., float],
    left: npt.NDArray[np.object_],
    right: npt.NDArray[np.object_],
) -> FloatArray:
    if len(left) == 0:
        return np.zeros(0, dtype=np.float64)
    return np.asarray(
        process.cpdist(list(left), list(right), scorer=scorer, workers=1), dtype=np.float64
    )


def _jw(left: npt.NDArray[np.object_], right: npt.NDArray[np.object_]) -> FloatArray:
    return _paired(JaroWinkler.normalized_similarity, left, right)


def _both(left: npt.NDArray[np.object_], right: npt.NDArray[np.object_]) -> FloatArray:
    both: npt.NDArray[np.bool_] = np.asarray((left != "") & (right != ""), dtype=bool)
    return both.astype(np.float64)


def _equal(left: npt.NDArray[np.object_], right: npt.NDArray[np.object_]) -> FloatArray:
    equal: npt.NDArray[np.bool_] = np.asarray((left == right) & (left != ""), dtype=bool)
    return equal.astype(np.float64)


def _rarity(values: npt.NDArray[np.object_]) -> FloatArray:
    """`ln(RARITY_REFERENCE / count)` of each value over the batch, floored at 0 ("" -> 0)."""
    counts = Counter(v for v in values.tolist() if v)
    count = np.asarray([counts[v] if v else 0 for v in values.tolist()], dtype=np.float64)
    with np.errstate(divide="ignore"):
        rarity = np.log(RARITY_REFERENCE / count)
    return np.where(count > 0, np.maximum(rarity, 0.0), 0.0)


def _outward(value: str) -> str:
    return value.split(" ")[0] if value else ""


def _sector(value: str) -> str:
    """The postcode less its last character: one final-letter typo still agrees."""
    return value[:-1] if len(value) >= 5 else ""


def _swapped(value: str) -> str:
    """A yyyy-mm-dd date with day and month exchanged ("" when that is no change)."""
    if len(value) != 10 or value[5:7] == value[8:10]:
        return ""
    return f"{value[:4]}-{value[8:10]}-{value[5:7]}"


def _set_jaccard(left: set[EntityId], right: set[EntityId]) -> float:
    union = len(left | right)
    return len(left & right) / union if union else 0.0


def pair_features(
    profiles: Sequence[Profile],
    pairs: IntArray,
    *,
    ids: Sequence[EntityId] | None = None,
    neighbours: Mapping[EntityId, set[EntityId]] | None = None,
    vectors: Mapping[EntityId, Sequence[float]] | None = None,
) -> FloatArray:
    """The `FEATURE_NAMES` matrix, one row per pair `(i, j)` of `profiles` indices."""
    n_pairs = len(pairs)
    out = np.zeros((n_pairs, len(FEATURE_NAMES)), dtype=np.float64)
    if n_pairs == 0:
        return out
    col = {name: k for k, name in enumerate(FEATURE_NAMES)}
    li, ri = pairs[:, 0], pairs[:, 1]

    def side(attribute: str) -> tuple[npt.NDArray[np.object_], npt.NDArray[np.object_]]:
        values = _column(profiles, attribute)
        return values[li], values[ri]

    normalized = side("normalized")
    out[:, col["name_jw"]] = _jw(*normalized)
    core_l, core_r = side("core")
    core_jw = _jw(core_l, core_r)
    out[:, col["core_jw"]] = core_jw
    out[:, col["core_exact"]] = _equal(core_l, core_r)
    out[:, col["core_jw_ge_95"]] = (core_jw >= 0.95).astype(np.float64)
    token_set = _paired(fuzz.token_set_ratio, core_l, core_r) / 100.0
    out[:, col["token_set"]] = token_set
    out[:, col["token_set_full"]] = (token_set >= 0.999).astype(np.float64)
    token_sort = _paired(fuzz.token_sort_ratio, core_l, core_r) / 100.0
    out[:, col["token_sort"]] = token_sort
    # Interaction: agreement of two multi-token names says more than of two single
    # tokens ("willie" = "willie"); the additive model cannot express that alone.
    n_tokens = np.asarray([p.n_tokens for p in profiles], dtype=np.int64)
    multi = (n_tokens[li] >= 2) & (n_tokens[ri] >= 2)
    out[:, col["token_sort_multi"]] = token_sort * multi
    out[:, col["first_jw"]] = _jw(*side("first"))
    out[:, col["last_jw"]] = _jw(*side("last"))
    init_l, init_r = side("initials")
    compact_l, compact_r = side("compact")
    out[:, col["initials_match"]] = np.maximum(_equal(init_l, compact_r), _equal(compact_l, init_r))
    forms = [p.first_forms for p in profiles]
    out[:, col["first_nickname"]] = np.fromiter(
        (bool(forms[i]) and not forms[i].isdisjoint(forms[j]) for i, j in pairs.tolist()),
        dtype=np.float64,
        count=n_pairs,
    )
    out[:, col["last_soundex"]] = _equal(*side("last_code"))

    dob_all = _field_column(profiles, "dob")
    dob_l, dob_r = dob_all[li], dob_all[ri]
    dob_both = _both(dob_l, dob_r)
    out[:, col["dob_both"]] = dob_both
    dob_exact = _equal(dob_l, dob_r)
    out[:, col["dob_exact"]] = dob_exact
    out[:, col["dob_exact_rarity"]] = dob_exact * _rarity(dob_all)[li]
    year_all = np.asarray([v[:4] for v in dob_all], dtype=object)
    out[:, col["dob_year"]] = _equal(year_all[li], year_all[ri]) * dob_both
    edits = _paired(Levenshtein.distance, dob_l, dob_r)
    out[:, col["dob_one_edit"]] = (edits == 1).astype(np.float64) * dob_both
    swapped = np.asarray([_swapped(v) for v in dob_all], dtype=object)
    out[:, col["dob_swapped"]] = _equal(swapped[li], dob_r)

    pc_all = _field_column(profiles, "postcode")
    out[:, col["postcode_both"]] = _both(pc_all[li], pc_all[ri])
    out[:, col["postcode_exact"]] = _equal(pc_all[li], pc_all[ri])
    district = np.asarray([_outward(v) for v in pc_all], dtype=object)
    same_district = _equal(district[li], district[ri])
    out[:, col["postcode_district"]] = same_district
    sector = np.asarray([_sector(v) for v in pc_all], dtype=object)
    out[:, col["postcode_sector"]] = _equal(sector[li], sector[ri])

    bp_all = _field_column(profiles, "birth_place")
    bp_both = _both(bp_all[li], bp_all[ri])
    out[:, col["birth_place_both"]] = bp_both
    out[:, col["birth_place_jw"]] = _jw(bp_all[li], bp_all[ri]) * bp_both
    bp_exact = _equal(bp_all[li], bp_all[ri])
    out[:, col["birth_place_exact"]] = bp_exact
    out[:, col["birth_place_exact_rarity"]] = bp_exact * _rarity(bp_all)[li]

    for name in ("gender", "occupation"):
        values = _field_column(profiles, name)
        out[:, col[f"{name}_both"]] = _both(values[li], values[ri])
        same = _equal(values[li], values[ri])
        out[:, col[f"{name}_same"]] = same
        if name == "occupation":
            out[:, col["occupation_same_rarity"]] = same * _rarity(values)[li]

    for name in ("first_name", "surname"):
        values = _field_column(profiles, name)
        both = _both(values[li], values[ri])
        out[:, col[f"{name}_both"]] = both
        out[:, col[f"{name}_jw"]] = _jw(values[li], values[ri]) * both
        if name == "surname":
            exact = _equal(values[li], values[ri])
            out[:, col["surname_exact_rarity"]] = exact * _rarity(values)[li]

    unrelated = (
        (token_set < 0.5)
        & (out[:, col["first_nickname"]] == 0.0)
        & (out[:, col["last_soundex"]] == 0.0)
        & (out[:, col["initials_match"]] == 0.0)
    )
    out[:, col["names_unrelated_same_district"]] = unrelated * same_district

    if ids is not None and neighbours:
        for row, (i, j) in enumerate(pairs.tolist()):
            left_set, right_set = neighbours.get(ids[i]), neighbours.get(ids[j])
            if left_set and right_set:
                out[row, col["neighbours_both"]] = 1.0
                out[row, col["neighbours_jaccard"]] = _set_jaccard(left_set, right_set)
    if ids is not None and vectors:
        for row, (i, j) in enumerate(pairs.tolist()):
            left_vec, right_vec = vectors.get(ids[i]), vectors.get(ids[j])
            if left_vec is not None and right_vec is not None:
                out[row, col["vector_both"]] = 1.0
                out[row, col["vector_cosine"]] = _cosine(left_vec, right_vec)
    return out


def _cosine(left: Sequence[float], right: Sequence[float]) -> float:
    a = np.asarray(left, dtype=np.float64)
    b = np.asarray(right, dtype=np.float64)
    denominator = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / denominator if denominator else 0.0


def compatible_mask(profiles: Sequence[Profile], pairs: IntArray) -> npt.NDArray[np.bool_]:
    return np.asarray(
        [types_compatible(profiles[i], profiles[j]) for i, j in pairs.tolist()], dtype=bool
    )


#: Features whose weight is free in sign: the `*_both` presence indicators carry
#: "both had the field and it disagreed", and `names_unrelated_same_district` is a
#: conflict indicator (fitted negative).
FREE_SIGN_FEATURES = frozenset(
    name for name in FEATURE_NAMES if name.endswith("_both") or name.startswith("names_unrelated")
)
#: Features whose weight must not be negative: more agreement may never lower the
#: probability. Unconstrained, the people fit gave "exact same core name" a negative
#: weight (identical names are where the 677 shared-name hard negatives live), so an
#: identical name scored below a typo of it. The `*_rarity` features are >= 0 too:
#: agreeing on a rarer value may never count less than agreeing on a commoner one.
MONOTONE_FEATURES = frozenset(name for name in FEATURE_NAMES if name not in FREE_SIGN_FEATURES)


def _newton(x: FloatArray, y: FloatArray, penalty: FloatArray, iterations: int) -> FloatArray:
    beta = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -40.0, 40.0)))
        gradient = x.T @ (y - p) - penalty * beta
        hessian = (x * (p * (1.0 - p))[:, None]).T @ x + np.diag(penalty)
        step = np.linalg.solve(hessian + 1e-9 * np.eye(len(beta)), gradient)
        beta = beta + step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    return beta


def fit_logistic(
    features: FloatArray,
    labels: npt.NDArray[np.bool_],
    *,
    l2: float = 1.0,
    iterations: int = 50,
    nonnegative: Sequence[int] | None = None,
) -> tuple[tuple[float, ...], float]:
    """Weights and intercept of an L2-penalised logistic regression (Newton-Raphson).

    Deterministic: it starts from zero and has no sampling, so the same data gives
    the same constants. The intercept is not penalised. `nonnegative` columns
    (default: `MONOTONE_FEATURES`) that come out negative are pinned to 0 and the
    rest refitted, until none is negative. Weights are rounded to 6 decimals.
    """
    if features.shape[0] != labels.shape[0]:
        raise InvalidInputError("features and labels differ in length")
    if labels.all() or not labels.any():
        raise InvalidInputError("fitting needs both matching and non-matching pairs")
    if nonnegative is None and features.shape[1] == len(FEATURE_NAMES):
        nonnegative = [k for k, n in enumerate(FEATURE_NAMES) if n in MONOTONE_FEATURES]
    constrained = set(nonnegative or ())
    y = labels.astype(np.float64)
    free = list(range(features.shape[1]))
    while True:
        x = np.hstack([np.ones((features.shape[0], 1)), features[:, free]])
        penalty = np.full(x.shape[1], l2)
        penalty[0] = 0.0
        beta = _newton(x, y, penalty, iterations)
        negative = [c for k, c in enumerate(free) if c in constrained and beta[k + 1] < 0]
        if not negative:
            break
        free = [c for c in free if c not in negative]
    weights = np.zeros(features.shape[1])
    weights[free] = beta[1:]
    return tuple(round(float(w), 6) + 0.0 for w in weights), round(float(beta[0]), 6)
