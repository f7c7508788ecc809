"""The shipped match models: weights and thresholds fitted on the gold training splits.

Generated, not hand-tuned. Command (figures it printed, train split only):

    uv run python bench/resolution.py --fit

- person: logistic regression on 1,762,648 candidate pairs (98,975 matches) of the
  people train split (25,295 records, 2,578 clusters). `upper` = the grid value with
  the best end-to-end train pairwise F1 after clustering (0.5 -> F1 0.9233; 0.3 ->
  0.9166, 0.6 -> 0.9226, 0.7 -> 0.9157, 0.9 -> 0.8852). `lower` = the probability
  below which 1% of train matches fall (0.0078): the grey band holds the other
  matches the model is unsure of. Agreement weights are constrained >= 0
  (`scoring.MONOTONE_FEATURES`).
- organization: the same on the patstat train split (1,486 records, 51 clusters,
  3,394 candidate pairs, 3,250 matches); `upper` 0.8, `lower` 0.5638.
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
            0.482065,
            0.0,
            0.0,
            5.191523,
            0.0,
            3.753283,
            0.74133,
            1.793145,
            3.428312,
            -2.672539,
            3.742919,
            2.940163,
            4.731592,
            -1.342027,
            4.222756,
            5.314055,
            -2.703186,
            2.518875,
            4.886893,
            -0.640176,
            0.505435,
            -1.550707,
            3.572705,
            -2.593157,
            0.445065,
            -4.081186,
            5.70968,
            0.0,
            0.0,
            0.0,
            0.0,
        ),
        intercept=-8.972861,
        upper=0.5,
        lower=0.0078,
    ),
    "organization": MatchModel(
        kind="organization",
        weights=(
            0.54901,
            3.946422,
            0.031824,
            1.612933,
            0.0,
            2.427626,
            5.789471,
            2.36171,
            2.112308,
            0.687986,
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
        intercept=-8.22964,
        upper=0.8,
        lower=0.5638,
    ),
    "other": MatchModel(
        kind="other",
        weights=(
            0.54901,
            3.946422,
            0.031824,
            1.612933,
            0.0,
            2.427626,
            5.789471,
            2.36171,
            2.112308,
            0.687986,
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
        intercept=-8.22964,
        upper=0.8,
        lower=0.5638,
    ),
}
