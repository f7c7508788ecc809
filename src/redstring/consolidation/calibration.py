"""The shipped match models: weights and thresholds fitted on the gold training splits.

Generated, not hand-tuned. Command (figures it printed, train split only):

    uv run python bench/resolution.py --fit

- person: logistic regression on 1,763,984 candidate pairs (106,995 matches) of the
  people train split (25,295 records, 2,578 clusters). `upper` = the grid value with
  the best end-to-end train pairwise F1 after clustering (0.7 -> F1 0.9358; 0.5 ->
  0.9341, 0.6 -> 0.9354, 0.8 -> 0.9250, 0.9 -> 0.9019). Agreement weights are
  constrained >= 0 (`scoring.MONOTONE_FEATURES`).
- `lower` is set by an adjudication budget, not by recall: the smallest threshold
  whose grey band (`lower <= p < upper`) holds at most 0.2% of the train candidate
  pairs (`GREY_BUDGET` in the bench). person: 0.5837 (3,525 train pairs, 2,210 of
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
            0.120031,
            0.0,
            0.0,
            0.0,
            5.852368,
            0.0,
            0.04213,
            2.680952,
            0.0,
            0.0,
            4.287389,
            0.296878,
            2.440751,
            -2.802008,
            4.111427,
            2.79938,
            4.683799,
            2.25083,
            -1.306878,
            3.496861,
            4.21905,
            1.502625,
            -2.618248,
            2.438834,
            4.297985,
            -0.74245,
            0.66387,
            -1.599848,
            4.184225,
            -3.452109,
            1.670566,
            -4.381023,
            4.478402,
            0.0,
            0.0,
            0.0,
            0.0,
        ),
        intercept=-6.410854,
        upper=0.7,
        lower=0.5837,
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
        ),
        intercept=-8.428397,
        upper=0.8,
        lower=0.7978,
    ),
}
