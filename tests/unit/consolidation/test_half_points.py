"""Places whose latitude or longitude was left blank in some rows: such a row holds
half a point, so its coordinates read as missing, yet namesake towns are told apart
by the half both rows hold (`comparisons.halves_apart`): two latitudes, or two
longitudes along the parallel, more than 50 km apart are two places. The shared data
must sit beside the repository (as CI has it) for the end-to-end test, or it is
skipped."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pytest
from bench import variants as v

from redstring.consolidation.comparisons import (
    PLACES_APART_KM,
    FieldColumn,
    halves_apart,
)
from redstring.consolidation.kinds import FieldKind, FieldSpec
from tests.support.records import engine_prf, needs_shared_data

if TYPE_CHECKING:
    from pathlib import Path


def _column(points: list[tuple[float, float]]) -> FieldColumn:
    n = len(points)
    return FieldColumn(
        spec=FieldSpec("lat+lon", FieldKind.COORDINATES, ("lat", "lon"), "test"),
        text=np.full(n, "", dtype=object),
        codes=np.full(n, -1, dtype=np.int64),
        frequency=np.zeros(0),
        alt=np.full(n, -1, dtype=np.int64),
        halves=np.asarray(points, dtype=np.float64),
    )


@pytest.mark.parametrize(
    ("one", "two", "apart"),
    [
        # Longitudes alone, no latitude known: along the 60th parallel (27.8 km a
        # degree) 35 degrees apart are two towns, half a degree may be one.
        ((np.nan, -5.9), (np.nan, 29.7), True),
        ((np.nan, 10.0), (np.nan, 10.5), False),
        ((np.nan, 10.0), (np.nan, 12.0), True),
        # Across the date line: 0.2 degrees, not 359.8.
        ((np.nan, 179.9), (np.nan, -179.9), False),
        # Latitudes alone: 0.3 degrees is 33 km, 0.6 is 67 km.
        ((51.06, np.nan), (51.36, 20.3), False),
        ((51.06, np.nan), (51.66, 20.3), True),
        # One latitude known stands for both: a degree of longitude at 80 degrees
        # north is 19 km, so two degrees there may still be one place.
        ((80.0, 10.0), (np.nan, 12.0), False),
        ((0.0, 10.0), (np.nan, 12.0), True),
        # Nothing both hold: nothing said.
        ((51.0, np.nan), (np.nan, 20.0), False),
        ((np.nan, np.nan), (40.0, 3.0), False),
    ],
)
def test_halves_of_two_points_apart(
    one: tuple[float, float], two: tuple[float, float], apart: bool
) -> None:
    column = _column([one, two])
    left, right = np.asarray([0]), np.asarray([1])
    assert halves_apart(column, left, right, PLACES_APART_KM).tolist() == [apart]


@needs_shared_data
def test_namesake_towns_holding_half_a_point_stay_apart(tmp_path: Path) -> None:
    """Catches a row holding its latitude or its longitude alone read as holding no
    point: with 40% of cells blank, namesake towns hundreds of kilometres apart
    merged (P 0.33), and a pair more than 50 km apart sharing no other field did not
    veto a join through rows holding only the name (`RecordEvidence._comparable`)."""
    records = v.build("places", v.SEED).with_blanks(0.4, v.SEED)
    assert engine_prf(records, tmp_path / "w.db").precision >= 0.7
