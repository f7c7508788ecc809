"""The shipped match models: weights and thresholds fitted on the gold training splits.

Generated, not hand-tuned. Command (figures it printed, train split only):

    uv run python bench/resolution.py --fit

- person: logistic regression on 1,763,984 candidate pairs (106,995 matches) of the
  people train split (25,295 records, 2,578 clusters). `upper` = the grid value with
  the best end-to-end train pairwise F1 after clustering (0.6 -> F1 0.9420; 0.5 ->
  0.9395, 0.7 -> 0.9409, 0.8 -> 0.9344, 0.9 -> 0.9175). Agreement and rarity weights
  are constrained >= 0 (`scoring.MONOTONE_FEATURES`); the `*_both` indicators and
  `names_unrelated_same_district` are free (`scoring.FREE_SIGN_FEATURES`).
- `lower` is set by an adjudication budget, not by recall: the smallest threshold
  whose grey band (`lower <= p < upper`) holds at most 0.2% of the train candidate
  pairs (`GREY_BUDGET` in the bench). person: 0.45 (3,522 train pairs, 1,970 of
  them matches); the old rule (1% of matches below `lower`) put 7.8% of candidates
  -- 137,849 test pairs -- in the band.
- organization: the same on the patstat train split (1,486 records, 51 clusters,
  3,394 candidate pairs, 3,246 matches); `upper` 0.8 (train F1 0.9879), `lower`
  0.7978 (1 train pair in the band).
- other: the organisation model (names only), for types that are neither. No gold
  set exists for them; name-only evidence is the honest default.

The neighbour and vector features have weight 0: neither gold set has a graph or
embeddings, so nothing could be fitted for them (see BACKLOG).

Do not edit by hand: refit and paste. `bench/resolution.py` checks that its refit
equals these constants and says so in its output.
"""

from __future__ import annotations

from redstring.consolidation.scoring import MatchModel

DEFAULT_MODELS: dict[str, MatchModel] = {
    "person": MatchModel(
        kind="person",
        weights=(
            0.0,
            0.0,
            0.0,
            0.0,
            5.558425,
            0.0,
            0.473562,
            2.664071,
            0.0,
            0.0,
            4.217305,
            0.269625,
            2.101064,
            -2.71316,
            0.647015,
            2.884792,
            4.55377,
            2.171427,
            -1.28023,
            3.965786,
            4.433499,
            2.305066,
            -2.657989,
            2.50366,
            2.009411,
            -0.669439,
            0.620816,
            -1.583983,
            3.5104,
            -3.152283,
            1.779923,
            -3.845905,
            3.331133,
            0.0,
            0.0,
            0.0,
            0.0,
            1.225889,
            0.990769,
            0.920466,
            0.275497,
            -1.789806,
        ),
        intercept=-6.624172,
        upper=0.6,
        lower=0.45,
    ),
    "organization": MatchModel(
        kind="organization",
        weights=(
            0.575244,
            4.068591,
            0.03119,
            1.603249,
            0.0,
            2.458954,
            5.809628,
            0.0,
            2.439247,
            2.064425,
            0.702955,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
        ),
        intercept=-8.428397,
        upper=0.8,
        lower=0.7978,
    ),
    "other": MatchModel(
        kind="other",
        weights=(
            0.575244,
            4.068591,
            0.03119,
            1.603249,
            0.0,
            2.458954,
            5.809628,
            0.0,
            2.439247,
            2.064425,
            0.702955,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
        ),
        intercept=-8.428397,
        upper=0.8,
        lower=0.7978,
    ),
}
