"""Columns each record fills on its own, beside the person: a status, a balance, a
flag, a visit count, a date of last update, a clerk's remark, a reference number
(`bench.variants.RecordSet.with_own_columns`). Copies share them only by chance; a
resolver that compares every column it can read has to learn that from the data.
The shared data must sit beside the repository (as CI has it), or these tests are
skipped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench import variants as v

from tests.support.records import engine_f1, needs_shared_data

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = needs_shared_data


def test_a_reference_no_two_records_share_does_not_keep_copies_apart(tmp_path: Path) -> None:
    """Catches a reference number no two records hold, read as an id: it called
    every EM session's matches a wider thing (copies differ in it), m fell back to
    the priors, and each copy's differing reference counted against it -- people-
    parts' 1,000 records F1 0.9980 without such columns, 0.7698 with these seven
    (`record_model._shared`). A remark strangers share by chance is
    `test_record_model`'s `test_columns_copies_never_share_teach_nothing`."""
    records = (
        v.build("people-parts", v.SEED).sample_clusters(1000, v.SEED).with_own_columns(7, v.SEED)
    )
    assert engine_f1(records, tmp_path / "w.db") >= 0.99


def test_sessions_on_what_records_fill_on_their_own_teach_nothing(tmp_path: Path) -> None:
    """Catches EM sessions blocked on a remark or a date of last update counted as
    training: they rank first (strangers seldom agree on them), find the few copies
    that share one by chance (2-8 in 2,000 records), and people-au's m came from
    those alone -- F1 0.9973 without such columns, 0.8420 with seven
    (`record_model.SESSION_MIN_MATCHES`, 5 then; 20: 0.9968)."""
    records = v.build("people-au", v.SEED).sample_clusters(2000, v.SEED).with_own_columns(7, v.SEED)
    assert engine_f1(records, tmp_path / "w.db") >= 0.99


def test_a_date_of_last_update_judges_no_session(tmp_path: Path) -> None:
    """Catches a date strangers seldom differ in outright (updates within a few
    years land on its close levels) judging EM sessions by how often their matches
    differ in it outright: two small shares' ratio called the voter roll's
    household session one of people, and households merged -- P 0.9985 without such
    columns, 0.5723 with seven (`record_model.JUDGE_DIFFERS`)."""
    records = v.build("voters", v.SEED).with_own_columns(7, v.SEED)
    assert engine_f1(records, tmp_path / "w.db") >= 0.99


def test_a_date_of_last_update_is_no_works_date(tmp_path: Path) -> None:
    """Catches every field two records hold counted as evidence by the gates and the
    veto: a film's copies updated years apart were kept apart as two works years
    apart, and columns that tell nothing let every pair veto joins -- films F1 1.000
    without such columns, 0.755 with seven (`RecordEvidence._informative`)."""
    records = v.build("films", v.SEED).with_own_columns(7, v.SEED)
    assert engine_f1(records, tmp_path / "w.db") >= 0.99


def test_a_reference_two_records_share_by_chance_judges_no_session(tmp_path: Path) -> None:
    """Catches "no two records share it" read literally: songs' per-record
    references met once by chance, so the reference judged every session, called
    their matches a wider thing, and nothing merged (F1 0.9868 without such
    columns, 0 with seven); fewer pairs than a session needs do not judge
    (`record_model._shared`)."""
    records = v.build("songs", v.SEED).with_own_columns(7, v.SEED)
    assert engine_f1(records, tmp_path / "w.db") >= 0.97


def test_titles_teach_where_no_column_of_their_own_does(tmp_path: Path) -> None:
    """Catches a catalogue whose only sessions were on columns each record fills on
    its own: a title seldom agrees whole, so no session ran on it, every field kept
    its prior m -- a remark "should" agree between copies -- and nothing merged
    (products F1 0.9405 without such columns, 0 with seven). A title's session pairs
    records sharing one of its rarest words (`record_model._session_pairs`)."""
    records = v.build("products", v.SEED).with_own_columns(7, v.SEED)
    assert engine_f1(records, tmp_path / "w.db") >= 0.93
