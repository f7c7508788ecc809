"""Shared settings and strategies of the fuzz and tenant-isolation tests.

`REDSTRING_FUZZ_EXAMPLES` sets how many examples each fuzz test runs (CI: the small
default; `bench/fuzz.py` raises it for the harness run), `REDSTRING_FUZZ_STEPS` how
many operations each tenant-isolation state machine runs. `EXAMPLES` counts the
examples that actually ran, per test, for the harness's tally.
"""

from __future__ import annotations

import os
from collections import Counter

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

EXAMPLES: Counter[str] = Counter()

FUZZ = settings(
    max_examples=int(os.environ.get("REDSTRING_FUZZ_EXAMPLES", "40")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

#: Text a hostile file or model might hold: every plane, controls, NUL, lone
#: surrogates (which JSON escapes and Python strings can carry), separators.
hostile_text = st.text(
    st.one_of(
        st.characters(exclude_categories=()),
        st.sampled_from([*',"\n\r\t\x00\ufeff\u2028{}[]:\\', "\ud800", "\udfff"]),
    ),
    max_size=80,
)

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    hostile_text,
)

json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(hostile_text, inner, max_size=4)
    ),
    max_leaves=12,
)
