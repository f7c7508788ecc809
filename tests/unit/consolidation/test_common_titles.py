"""Works whose rows hold their title and little else: where many songs share one
title ("Love Song", "Tonight"), two rows holding that title alone are as likely two
songs as one, and such pairs start no join (`RecordEvidence._title_tells`). A title
no other work holds still joins its copies on its own. The shared data must sit
beside the repository (as CI has it) for the end-to-end test, or it is skipped."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np
from bench import variants as v
from bench.variants import RecordSet

from redstring.consolidation.record_model import train
from tests.support.records import engine_prf, ingested, needs_shared_data

if TYPE_CHECKING:
    from pathlib import Path

ARTISTS = ["Mara Lind", "The Corvans", "Ed Pask", "Juno Reyes", "Hal Stroud", "Ivy Tamm"]


def _catalogue() -> RecordSet:
    """Six songs called "Love Song", each by its own artist and listed twice with it,
    then twice more with the title alone; and six songs of titles of their own,
    each listed twice with the title alone."""
    rows: list[dict[str, str]] = []
    gold: list[str] = []
    for k, artist in enumerate(ARTISTS):
        for held in (artist, artist, "", ""):
            year = str(1980 + k) if held else ""
            rows.append({"title": "Love Song", "artist": held, "year": year})
            gold.append(f"love-{k}")
    for k, title in enumerate(["Blue Harbour", "Six Lanterns", "Cold Iron", "Paper Moons"]):
        for _ in range(2):
            rows.append({"title": title, "artist": "", "year": ""})
            gold.append(f"own-{k}")
    for n, row in enumerate(rows):
        row["id"] = f"s{n:03d}"
    return RecordSet("songs", "Song", "id", "title", rows, gold)


def test_a_common_title_alone_starts_no_join_a_title_of_its_own_does(tmp_path: Path) -> None:
    records = _catalogue()
    entities = ingested(records, records.rows, tmp_path / "w.db")
    evidence = train(entities)
    assert evidence.model is not None
    bare = [
        k
        for k, e in enumerate(entities)
        if not e.properties.get("artist") and not e.properties.get("year")
    ]
    pairs = np.asarray(list(itertools.combinations(bare, 2)))
    levels, _ = evidence._scored(pairs[:, 0], pairs[:, 1])
    tells = evidence._title_tells(levels, pairs[:, 0], pairs[:, 1])
    common = np.asarray([entities[k].name == "Love Song" for k in pairs[:, 0]])
    same_title = np.asarray([entities[i].name == entities[j].name for i, j in pairs])
    assert not tells[common & same_title].any()
    assert tells[~common & same_title].all()


@needs_shared_data
def test_songs_holding_a_common_title_alone_stay_apart(tmp_path: Path) -> None:
    """Catches two rows holding only a title eighteen songs share started a join:
    with 40% of cells blank, every "Love Song" and "Tonight" of the catalogue
    gathered into one cluster each (P 0.5068)."""
    records = v.build("songs", v.SEED).with_blanks(0.4, v.SEED)
    assert engine_prf(records, tmp_path / "w.db").precision >= 0.7
