"""Pair features, the fitted model and its calibration."""

from __future__ import annotations

import numpy as np
import pytest

from redstring.consolidation.calibration import DEFAULT_MODELS
from redstring.consolidation.scoring import (
    FEATURE_NAMES,
    MONOTONE_FEATURES,
    Band,
    fit_logistic,
    pair_features,
    profile,
)
from redstring.testing.factories import make_entity

PAIR = np.asarray([[0, 1]], dtype=np.int64)


def _probability(left: dict, right: dict, kind: str = "person") -> float:  # type: ignore[type-arg]
    profiles = [profile(make_entity(**left)), profile(make_entity(**right))]
    return float(DEFAULT_MODELS[kind].probability(pair_features(profiles, PAIR))[0])


BASE = {"name": "thomas clifford", "properties": {"dob": "1630-08-01", "birth_place": "devon"}}


def test_agreeing_date_of_birth_raises_the_probability() -> None:
    """Catches a sign error on the date features of the shipped person model."""
    same = _probability(BASE, BASE | {"name": "tom clifford"})
    other_dob = _probability(
        BASE, {"name": "tom clifford", "properties": {"dob": "1712-03-09", "birth_place": "devon"}}
    )
    assert same > other_dob


def test_closer_names_never_score_lower() -> None:
    """Catches name similarity pulling the wrong way, in both shipped models."""
    cases = (
        ("person", "person", ["thomas clifford", "thomas cliford", "thomas smith", "mary jones"]),
        ("organization", "organization", ["Akzo N.V.", "AKZO", "Akzo Nobil", "Unilever"]),
    )
    for kind, entity_type, names in cases:
        left = {"name": names[0], "entity_type": entity_type}
        scores = [_probability(left, {"name": n, "entity_type": entity_type}, kind) for n in names]
        assert scores == sorted(scores, reverse=True), (kind, scores)


def test_missing_field_is_not_the_same_as_a_disagreeing_field() -> None:
    """Catches encoding 'absent' as 'different'."""
    profiles = [profile(make_entity(name="a b", properties={"dob": "1900-01-01"})),
                profile(make_entity(name="a b"))]  # fmt: skip
    row = dict(zip(FEATURE_NAMES, pair_features(profiles, PAIR)[0].tolist(), strict=True))
    assert row["dob_both"] == 0.0
    assert row["dob_exact"] == 0.0


def test_fit_is_deterministic_and_finds_the_signal() -> None:
    """Catches a fit that depends on a random start or ignores its input."""
    rng = np.random.default_rng(7)
    x = rng.random((400, len(FEATURE_NAMES)))
    y = (x[:, 0] + 0.1 * rng.standard_normal(400)) > 0.5
    first = fit_logistic(x, y)
    assert fit_logistic(x.copy(), y.copy()) == first
    weights, _ = first
    assert weights[0] == max(weights)


def test_bands_follow_the_thresholds() -> None:
    model = DEFAULT_MODELS["person"]
    assert model.band(model.upper) is Band.MERGE
    assert model.band((model.upper + model.lower) / 2) in (Band.GREY, Band.MERGE)
    assert model.band(model.lower / 2) is Band.DISTINCT


def test_agreement_weights_are_never_negative() -> None:
    """Catches an unconstrained fit: agreement that lowers the probability.

    Column 0 (name_jw) is made anti-correlated with the label; the fit must pin it
    to 0 rather than learn a negative weight.
    """
    rng = np.random.default_rng(3)
    x = rng.random((300, len(FEATURE_NAMES)))
    y = x[:, 1] > 0.5
    x[:, 0] = 1.0 - x[:, 1]
    weights, _ = fit_logistic(x, y)
    assert weights[0] == 0.0
    assert (
        min(w for w, n in zip(weights, FEATURE_NAMES, strict=True) if n in MONOTONE_FEATURES) >= 0
    )


def test_a_one_class_sample_is_refused() -> None:
    with pytest.raises(ValueError, match="both"):
        fit_logistic(np.zeros((3, len(FEATURE_NAMES))), np.ones(3, dtype=bool))


def _row(left: dict, right: dict) -> dict[str, float]:  # type: ignore[type-arg]
    profiles = [profile(make_entity(**left)), profile(make_entity(**right))]
    return dict(zip(FEATURE_NAMES, pair_features(profiles, PAIR)[0].tolist(), strict=True))


def test_nicknames_agree_on_the_first_name() -> None:
    """Catches "Ted" vs "Edward" (low Jaro-Winkler) counting as a first-name disagreement."""
    assert _row({"name": "Ted Green"}, {"name": "Edward Greene"})["first_nickname"] == 1.0
    assert _row({"name": "Bill Green"}, {"name": "Edward Greene"})["first_nickname"] == 0.0
    assert _row({"name": "Zebedee Green"}, {"name": "zebedee x"})["first_nickname"] == 1.0


def test_the_shipped_person_model_weights_the_new_partial_agreements() -> None:
    """Catches nickname / swapped-dob / postcode-sector / multi-token evidence fitted to 0."""
    weights = dict(zip(FEATURE_NAMES, DEFAULT_MODELS["person"].weights, strict=True))
    for name in ("first_nickname", "dob_swapped", "postcode_sector", "token_sort_multi"):
        assert weights[name] > 0.0, name


def test_swapped_day_and_month_is_partial_dob_agreement() -> None:
    """Catches a day/month swap scoring as a plain disagreement (or as exact)."""
    row = _row({"name": "a b", "properties": {"dob": "1850-03-11"}},
               {"name": "a b", "properties": {"dob": "1850-11-03"}})  # fmt: skip
    assert row["dob_swapped"] == 1.0
    assert row["dob_exact"] == 0.0
    same = _row({"name": "a b", "properties": {"dob": "1850-05-05"}},
                {"name": "a b", "properties": {"dob": "1850-05-05"}})  # fmt: skip
    assert same["dob_swapped"] == 0.0


def test_postcode_sector_agrees_through_a_final_letter_typo() -> None:
    """Catches "tq13 8df" vs "tq13 8dg" scoring as unrelated postcodes."""
    row = _row({"name": "a b", "properties": {"postcode": "tq13 8df"}},
               {"name": "a b", "properties": {"postcode": "tq13 8dg"}})  # fmt: skip
    assert row["postcode_sector"] == 1.0
    assert row["postcode_exact"] == 0.0


def test_single_token_agreement_is_not_full_name_agreement() -> None:
    """Catches "willie" = "willie" counting like a two-token full-name match."""
    assert _row({"name": "willie"}, {"name": "willie"})["token_sort_multi"] == 0.0
    assert _row({"name": "willie hine"}, {"name": "willie hine"})["token_sort_multi"] == 1.0


def _rows(entities: list[dict], pairs: list[tuple[int, int]]) -> list[dict[str, float]]:  # type: ignore[type-arg]
    profiles = [profile(make_entity(**e)) for e in entities]
    matrix = pair_features(profiles, np.asarray(pairs, dtype=np.int64))
    return [dict(zip(FEATURE_NAMES, r.tolist(), strict=True)) for r in matrix]


def test_agreeing_on_a_rare_value_is_stronger_evidence_than_on_a_common_one() -> None:
    """Catches rarity ignored (every agreement the same) or boosting a disagreement."""
    common = {"dob": "1860-01-01", "birth_place": "london", "occupation": "politician"}
    rare = {"dob": "1630-08-01", "birth_place": "devon", "occupation": "liturgist"}
    batch = [{"name": f"p{k} x", "properties": common} for k in range(6)]
    batch += [{"name": "a b", "properties": rare}, {"name": "a c", "properties": rare}]
    batch += [{"name": "a d", "properties": {"dob": "1700-02-02"}}]
    on_common, on_rare, disagreeing = _rows(batch, [(0, 1), (6, 7), (6, 8)])
    for name in ("dob_exact_rarity", "birth_place_exact_rarity", "occupation_same_rarity"):
        assert on_rare[name] > on_common[name] > 0.0, name
    assert disagreeing["dob_exact_rarity"] == 0.0


def test_rarity_counts_values_not_shares_of_the_batch() -> None:
    """Catches rarity that changes with batch size when the value's count does not."""
    pair = [{"name": "a b", "properties": {"dob": "1630-08-01"}}] * 2
    others = [{"name": f"z{k} y", "properties": {"dob": f"17{k:02d}-01-01"}} for k in range(50)]
    small = _rows(pair, [(0, 1)])[0]["dob_exact_rarity"]
    large = _rows(pair + others, [(0, 1)])[0]["dob_exact_rarity"]
    assert small == large > 0.0


def test_unrelated_names_at_one_postcode_district_are_flagged() -> None:
    """Catches two different people at one institution's postcode scoring as a match."""
    place = {"postcode": "se1 7sg", "birth_place": "london"}
    flagged, related, elsewhere = _rows(
        [
            {"name": "a. c. pearson", "properties": place},
            {"name": "charles raymond", "properties": place},
            {"name": "charles raymond", "properties": place},
            {"name": "charles raymond", "properties": {"postcode": "m1 1aa"}},
        ],
        [(0, 1), (1, 2), (0, 3)],
    )
    assert flagged["names_unrelated_same_district"] == 1.0
    assert related["names_unrelated_same_district"] == 0.0
    assert elsewhere["names_unrelated_same_district"] == 0.0
    weights = dict(zip(FEATURE_NAMES, DEFAULT_MODELS["person"].weights, strict=True))
    assert weights["names_unrelated_same_district"] < 0.0
    for name in FEATURE_NAMES:
        if name.endswith("_rarity"):
            assert weights[name] > 0.0, name
