"""String similarity on 0..1.

Jaro-Winkler (rapidfuzz: identical scores to jellyfish, several times faster)
over `normalize_name` of both sides, so casing, punctuation and spacing never
count as differences.

The empty case is defined, not left to the library: two names that both
normalize to nothing are identical (1.0); one empty and one not share nothing
(0.0).
"""

from __future__ import annotations

from rapidfuzz.distance import JaroWinkler

from redstring.domain.normalization import normalize_name


def normalized_similarity(left: str, right: str) -> float:
    """Jaro-Winkler of two strings that are already normalized."""
    if not left and not right:
        return 1.0
    if not left or not right:
        return 0.0
    return float(JaroWinkler.normalized_similarity(left, right))


def string_similarity(left: str, right: str) -> float:
    """Jaro-Winkler on 0..1 of the normalized forms; see the module docstring."""
    return normalized_similarity(normalize_name(left), normalize_name(right))
