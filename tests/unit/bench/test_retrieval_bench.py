"""The retrieval benchmark's look-alike names (`--distractors`), on a handful of rows."""

from __future__ import annotations

from bench import retrieval as bench

from redstring import normalize_name

ROWS = [
    bench.Row(f"r{n}", f"c{n}", name, "person", {})
    for n, name in enumerate(
        ["Ada Lovelace", "Ada King", "Charles Babbage", "Mary Somerville", "Alan Turing"]
    )
]


def test_look_alikes_share_the_sets_words_but_are_nobody_in_it() -> None:
    """Catches a distractor that is a real record's name (a second right answer, not a
    wrong one), a repeated distractor, or one drawn from outside the set's words."""
    alikes = bench.look_alikes(ROWS, 12, seed=7)
    names = [normalize_name(row.name) for row in alikes]
    assert len(set(names)) == 12
    assert not set(names) & {normalize_name(row.name) for row in ROWS}
    given = {normalize_name(row.name.split()[0]) for row in ROWS}
    family = {normalize_name(row.name.split()[-1]) for row in ROWS}
    assert all(n.split()[0] in given and n.split()[-1] in family for n in names)
    assert {row.key for row in alikes}.isdisjoint(row.key for row in ROWS)
    assert bench.look_alikes(ROWS, 12, seed=7) == alikes
