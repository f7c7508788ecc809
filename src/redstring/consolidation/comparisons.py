"""Comparison levels per field kind, computed for many pairs at once.

Each field is normalised once into columns (`FieldColumn`): integer codes for
exact equality, the normalised strings for similarity, a term frequency per value.
`compare` then maps index pairs to a comparison level, vectorised: equality on codes
in numpy, similarity through rapidfuzz's batched `cpdist`, only for the pairs that
need it. Level 0 is "missing on either side" (no evidence), level 1 "different",
and the top level "exactly equal"; the levels between are ordered by similarity.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import jellyfish
import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import DamerauLevenshtein, JaroWinkler

from redstring.consolidation.addresses import spaced_address
from redstring.consolidation.dates import parse_date
from redstring.consolidation.kinds import (
    IDENTIFYING_KINDS,
    NAME_FIELD,
    FieldKind,
    FieldSpec,
    column_table,
    column_text,
    list_separator,
    name_remainder,
)
from redstring.consolidation.names import (
    FATHER_OR_SON,
    core_tokens,
    family_word,
    generation,
    given_name_forms,
    name_generation,
    not_a_surname,
    raw_tokens,
)
from redstring.consolidation.sorted_runs import SortedRuns, first_and_inverse

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    import numpy.typing as npt

    from redstring.domain.entity import Entity

#: The levels of each kind, from "different" (1) up to "exact" (last); 0 is missing.
LEVELS: dict[FieldKind, tuple[str, ...]] = {
    FieldKind.PERSON_NAME: (
        "different", "jw>=0.80", "one name's tokens inside the other's", "jw>=0.92",
        "same tokens reordered or spaced otherwise", "exact",
    ),
    FieldKind.GIVEN_NAME: (
        "different", "initial agrees", "jw>=0.80", "jw>=0.92",
        "nickname form or spaced otherwise", "exact",
    ),
    FieldKind.FAMILY_NAME: ("different", "jw>=0.80", "jw>=0.92", "exact"),
    FieldKind.NAME: ("different", "jw>=0.80", "token set>=0.85", "jw>=0.92", "exact"),
    FieldKind.LOCALITY: ("different", "jw>=0.80", "jw>=0.92", "exact"),
    FieldKind.ORGANISATION_NAME: (
        "another role on each side", "different", "token set>=0.80", "jw>=0.92",
        "same core name", "exact",
    ),
    FieldKind.DATE: (
        "different", "within ten years", "within a year", "same year and month",
        "one edit or day/month swap", "exact",
    ),
    FieldKind.YEAR: ("different", "within ten years", "within a year", "exact"),
    FieldKind.POSTCODE: ("different", "same area prefix", "exact"),
    FieldKind.IDENTIFIER: ("different", "one edit", "exact"),
    FieldKind.PHONE: ("different", "one edit", "exact"),
    # No string-similarity level: "jsmith1@" and "jsmith2@" are typically two people.
    FieldKind.EMAIL: ("different", "same mailbox name", "exact"),
    # A site's pages and its home page are one site; two sites are two, however alike.
    FieldKind.WEBSITE: ("different", "same site", "exact"),
    FieldKind.ADDRESS: (
        "different", "another house number", "token set>=0.70", "token set>=0.90", "exact",
    ),
    FieldKind.CATEGORY: ("different", "jw>=0.88", "exact"),
    FieldKind.COORDINATES: ("different", "within 50 km", "within 10 km", "within 2 km", "exact"),
    FieldKind.TEXT: (
        "different", "token set>=0.60", "token set>=0.80", "token set>=0.95", "exact",
    ),
    FieldKind.LIST: (
        "no value shared", "common values shared", "one rare value shared",
        "two or more rare values shared", "same values",
    ),
}  # fmt: skip

#: A text field is blocked on each entity's rarest words, this many of them.
RARE_WORDS = 2
#: Values of a list field kept per entity for comparing (its rarest ones: a shared
#: rare co-author says more than a shared common class code).
LIST_KEPT = 8


#: How far below a similarity cutoff rapidfuzz is asked to stop (see `_similarity`).
CUTOFF_SLACK = 1e-6
#: Decimals a similarity is rounded to before its bands are read (`_fill`): far
#: below any band's width, far above the kernels' rounding differences (~1e-16).
SCORE_DECIMALS = 9
#: Pairs from which `compare` scores each distinct pair of values once.
DEDUPLICATE_FROM = 1000
#: Calls comparing fewer open pairs than this ask and fill the column's `memo`:
#: the clustering's small batches repeat each other's values; a training call over
#: every candidate pair holds each of its value pairs once already, and looking its
#: hundreds of thousands up cost more than they saved (people-febrl 10k: 0.16 s).
MEMO_BELOW = 50_000
#: A column is read as generational suffixes (`generations`) when at least this
#: share of the values it holds are ones.
GENERATION_SHARE = 0.9
#: Kinds whose values may end in a generational suffix (`generations`).
_SUFFIXED_KINDS = frozenset({FieldKind.PERSON_NAME, FieldKind.GIVEN_NAME, FieldKind.FAMILY_NAME})
#: Kinds read from shapes no suffix has (digits, "@", a point on the map, several
#: values or many words): never a suffix column, and not looked through for one.
_UNSUFFIXED_KINDS = frozenset(
    {
        FieldKind.DATE, FieldKind.YEAR, FieldKind.POSTCODE, FieldKind.IDENTIFIER,
        FieldKind.EMAIL, FieldKind.WEBSITE, FieldKind.PHONE, FieldKind.ADDRESS,
        FieldKind.COORDINATES, FieldKind.LIST, FieldKind.TEXT,
    }
)  # fmt: skip
#: Pairs per batch from which string comparisons run on every core.
PARALLEL_FROM = 20_000
#: Pairs from which a batch that covers most of the matrix of its left values by its
#: right ones (at least 1 / `DENSE_COVER` of it; at most `DENSE_MAX_VALUES` values a
#: side, 32 MB of scores) is scored as that matrix (`_Dense`).
DENSE_FROM = 20_000
DENSE_COVER = 2.5
DENSE_MAX_VALUES = 2_000


@dataclass
class FieldColumn:
    """One field over all entities, normalised once."""

    spec: FieldSpec
    #: Normalised text per entity ("" when missing).
    text: npt.NDArray[np.object_]
    #: Factorised `text`: equal codes mean equal values; -1 when missing.
    codes: npt.NDArray[np.int64]
    #: Relative frequency of each code's value among the entities that have one.
    frequency: npt.NDArray[np.float64]
    #: A second, coarser code per kind (sorted tokens, core name, nickname group,
    #: postcode area, mailbox, date as yyyymmdd); -1 when missing.
    alt: npt.NDArray[np.int64]
    #: List fields: every (entity, value code) held; text fields: each entity's
    #: rarest words. Two parallel arrays, blocked on as "any one shared".
    item_rows: npt.NDArray[np.int64] | None = None
    item_codes: npt.NDArray[np.int64] | None = None
    #: List fields only: each entity's `LIST_KEPT` rarest value codes, -1 padded.
    kept: npt.NDArray[np.int64] | None = None
    #: List fields only: per value code, whether it is common in this data (held
    #: by more than the square root of the entity count).
    common: npt.NDArray[np.bool_] | None = None
    #: Given and family names: this field where each record holding only the other
    #: part carries that value (`_reverse_lone_name_parts`), and the other part's
    #: column index.
    reversed: FieldColumn | None = None
    partner: int = -1
    #: Given and family names: this field's normalised values followed by those of
    #: the other part's column (`cross_partner`), so a pair can be compared crossed
    #: (entity `right` as `len(codes) + right`): records with the two parts swapped.
    crossed: FieldColumn | None = None
    cross_partner: int = -1
    #: First letter of each of `crossed`'s values (-1 when missing): two names that
    #: start differently are not compared crossed.
    crossed_initials: npt.NDArray[np.int64] | None = None
    #: Family names: per code, whether the value is no surname at all
    #: (`names.not_a_surname`); filled on first use.
    no_surname: npt.NDArray[np.bool_] | None = None
    #: Organisation names: the distinct names holding each word's sound (soundex),
    #: filled on first use (`_roles_apart`).
    postings: dict[str, set[int]] | None = None
    #: Each entity's generational suffix as a number (-1 when none), or an empty
    #: array when the column holds no suffixes (`generations`); filled on first use.
    generation: npt.NDArray[np.int64] | None = None
    #: Dates and years: each entity's value as a number (YYYYMMDD, YYYY; -1 when
    #: missing), filled on first use: read per pair, the same few thousand values
    #: were parsed again in every call (people-febrl 10k: 300k per candidates' call).
    numbers: npt.NDArray[np.int64] | None = None
    #: Whole person names in one cell: a code per entity for the soundex of its
    #: family name's last word (`names.family_word`, read from the cell as written:
    #: the comma says the order), -1 when none; None for other fields.
    family: npt.NDArray[np.int64] | None = None
    #: Addresses: each entity's first and last token holding a digit ("" when none)
    #: and their lengths (`_house_numbers`), filled on first use.
    house: tuple[npt.NDArray[np.object_], npt.NDArray[np.int64]] | None = None
    #: Person and given names: each entity's value with its spaces taken out, coded
    #: ("xiao ming" and "xiaoming", "min jun" from "Min-jun" and "minjun" alike: a
    #: name's syllables written apart or together); filled on first use.
    respaced: npt.NDArray[np.int64] | None = None
    #: Codes: each entity's characters counted into `CHARACTER_BUCKETS` buckets by
    #: code point (`_character_counts`), an empty table where a value is too long
    #: to count; filled on first use.
    character_counts: npt.NDArray[np.int8] | None = None
    #: Given names: each entity's first character (its code point, -1 when missing)
    #: and whether the name is that one character (an initial); filled on first use.
    initials: tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]] | None = None
    #: Organisation names: `_roles_apart` of each value pair asked so far (the
    #: clustering asks the pairs of a large firm's names again and again).
    roles: dict[tuple[str, str], bool] = field(default_factory=dict)
    #: ... and `_role_sound` of each (sound, the pair's other sounds) asked so far.
    role_sounds: dict[tuple[str, frozenset[str]], bool] = field(default_factory=dict)
    #: Levels below "exact" of the value pairs compared so far, kept across `compare`
    #: calls: the clustering scores a large firm's records in hundreds of small
    #: batches that ask the same few names, streets and phones again (listings: 606k
    #: pairs compared, 98k distinct name pairs among them).
    memo: SortedRuns[np.int8] = field(default_factory=lambda: SortedRuns(np.int8))
    #: Coordinates: each entity's latitude and longitude in degrees, NaN where the
    #: cell is blank or no number (`text` holds a point only where both are there):
    #: a row holding one of the two still places itself (`halves_apart`).
    halves: npt.NDArray[np.float64] | None = None

    @property
    def levels(self) -> int:
        return len(LEVELS[self.spec.kind]) + 1


def _factorise(values: Sequence[str]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    index: dict[str, int] = {}
    codes = np.asarray(
        [index.setdefault(value, len(index)) if value else -1 for value in values],
        dtype=np.int64,
    )
    present = codes[codes >= 0]
    counts = np.bincount(present, minlength=len(index)).astype(np.float64)
    total = max(1.0, float(len(present)))
    return codes, counts / total


def _date_value(raws: tuple[str, ...], kind: FieldKind) -> int | None:
    if len(raws) == 3:
        try:
            day, month, year = (int(float(raw or "nan")) for raw in raws)
        except (ValueError, OverflowError):  # "", "nan", "inf", "1e999"
            return None
        if not 1 <= year <= 2200:
            return None
        month = month if 1 <= month <= 12 else 0
        day = day if 1 <= day <= 31 and month else 0
        return year * 10000 + month * 100 + day
    raw = raws[0]
    if kind is FieldKind.YEAR:
        try:
            year = int(float(raw))
        except (ValueError, OverflowError):
            return None
        return year * 10000 if 1 <= year <= 2200 else None
    return parse_date(raw, lenient=True)


def _read_sources(spec: FieldSpec) -> tuple[str, ...]:
    """The properties `_normalised` reads for `spec`."""
    return tuple(s for part in (spec, *spec.either) for s in _own_sources(part))


def _own_sources(spec: FieldSpec) -> tuple[str, ...]:
    """The properties `_normalised` reads for `spec` itself, not its `either`."""
    if spec.kind in (FieldKind.DATE, FieldKind.YEAR, FieldKind.ADDRESS, FieldKind.COORDINATES):
        return spec.sources  # its parts joined into one value
    if spec.kind is FieldKind.PERSON_NAME and len(spec.sources) > 1:
        return spec.sources  # the full name and the parts it is read without
    return spec.sources[:1]


def _normalised(spec: FieldSpec, table: Mapping[str, list[str]]) -> list[tuple[str, str]]:
    """`_normalise` of each entity's field (`_normalise_each`), its cells read from
    `table` (`column_table`)."""
    if spec.either:
        # Another system's columns for the same field: read where this one's are blank.
        out = _normalised(replace(spec, either=()), table)
        for other in spec.either:
            out = [
                mine if mine[0] else theirs
                for mine, theirs in zip(out, _normalised(other, table), strict=True)
            ]
        return out
    cells = [table[source] for source in _own_sources(spec)]
    read: Iterable[tuple[str, ...]] = zip(*cells, strict=True)
    if spec.kind is FieldKind.PERSON_NAME and len(spec.sources) > 1:
        parts = list(zip(*cells[1:], strict=True))
        read = ((name_remainder(cells[0][k], list(parts[k])),) for k in range(len(cells[0])))
    out = _normalise_each(read, spec.kind)
    if spec.kind is FieldKind.IDENTIFIER:
        return _codes(out)
    return out


#: Share of a code column's values that must be valid ISBNs for its ISBN-10s to be
#: written as the ISBN-13s they are.
ISBN_SHARE = 0.8


def _codes(values: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A code column's values, canonical. A catalogue's ISBN-10s are written as the
    ISBN-13s they are ("0-306-40615-2" and "978-0-306-40615-7" name one edition) when
    the column holds ISBNs -- a tenth of arbitrary ten-digit codes pass ISBN-10's
    check, so one value proves nothing; any other all-digit code loses its leading
    zeros, as a spreadsheet's export of it did."""
    distinct = {text for text, _ in values if text}
    valid = {text for text in distinct if _isbn10(text) or _isbn13(text)}
    isbns = bool(distinct) and len(valid) >= ISBN_SHARE * len(distinct)
    canonical = {}
    for text in distinct:
        if isbns and text in valid:
            canonical[text] = _isbn10_to_13(text) if len(text) == 10 else text
        elif text.isdigit():
            canonical[text] = text.lstrip("0") or text
        else:
            canonical[text] = text
    return [(canonical[t], canonical[t]) if t else (t, c) for t, c in values]


def _isbn10(text: str) -> bool:
    if len(text) != 10 or not text[:9].isdigit() or not (text[9].isdigit() or text[9] == "X"):
        return False
    digits = [int(c) for c in text[:9]] + [10 if text[9] == "X" else int(text[9])]
    return sum((10 - k) * d for k, d in enumerate(digits)) % 11 == 0


def _isbn13(text: str) -> bool:
    if len(text) != 13 or not text.isdigit() or text[:3] not in ("978", "979"):
        return False
    return text[12] == _ean13_check(text[:12])


def _isbn10_to_13(text: str) -> str:
    body = "978" + text[:9]
    return body + _ean13_check(body)


def _ean13_check(body: str) -> str:
    """The check digit of a 12-digit EAN-13 body (ISBN-13s are EAN-13s)."""
    total = sum((1 if k % 2 == 0 else 3) * int(c) for k, c in enumerate(body))
    return str((10 - total % 10) % 10)


def _normalise_each(raws: Iterable[tuple[str, ...]], kind: FieldKind) -> list[tuple[str, str]]:
    """`_normalise` of each of `raws`, each distinct one once: values repeat (towns,
    given names, the duplicates themselves; people-50k's 50k surnames hold ~7k)."""
    memo: dict[tuple[str, ...], tuple[str, str]] = {}
    out = []
    for raw in raws:
        found = memo.get(raw)
        if found is None:
            found = memo[raw] = _normalise(raw, kind)
        out.append(found)
    return out


def _normalise(raws: tuple[str, ...], kind: FieldKind) -> tuple[str, str]:
    """(exact text, coarser text) for one field's raw value(s); ("", "") when missing."""
    if kind in (FieldKind.DATE, FieldKind.YEAR):
        value = _date_value(raws, kind)
        return ("", "") if value is None else (str(value), str(value))
    if kind is FieldKind.ADDRESS:
        # (house number, street) when split over two columns: no street, no address.
        if not raws[-1]:
            return "", ""
        text = " ".join(raw_tokens(spaced_address(" ".join(r for r in raws if r))))
        return text, text
    if kind is FieldKind.COORDINATES:
        try:
            lat, lon = (float(r) for r in raws)
        except ValueError:
            return "", ""
        # The cell of a tenth of a degree (~10 km) is the coarser value: a block.
        return f"{lat:.5f},{lon:.5f}", f"{lat:.1f},{lon:.1f}"
    raw = raws[0]
    if not raw:
        return "", ""
    if kind in (FieldKind.IDENTIFIER,):
        # Canonical over the whole column (`_codes`).
        text = "".join(c for c in raw.upper() if c.isalnum())
        return text, text
    if kind is FieldKind.PHONE:
        digits = "".join(c for c in raw if c.isdigit())[-9:]
        return digits, digits
    if kind is FieldKind.EMAIL:
        text = raw.strip().lower()
        return text, text.split("@")[0]
    if kind is FieldKind.WEBSITE:
        text = re.sub(r"^[a-z]+://", "", raw.strip().lower()).removeprefix("www.").rstrip("/")
        return text, text.split("/")[0]
    if kind is FieldKind.POSTCODE:
        # "〒" is Japan's postal mark, no part of the code.
        text = raw.upper().replace("〒", "").replace("-", " ").strip()
        compact = text.replace(" ", "")
        if not compact:  # "- -": dashes only
            return "", ""
        area = text.split()[0] if " " in text else compact[: max(2, len(compact) - 3)]
        return compact, area
    tokens = raw_tokens(raw)
    text = " ".join(tokens)
    if not text:
        return "", ""
    if kind is FieldKind.TEXT:
        return text, " ".join(sorted(set(tokens)))
    if kind is FieldKind.PERSON_NAME:
        core = core_tokens(raw, "person") or tokens
        return text, " ".join(sorted(core))
    if kind is FieldKind.ORGANISATION_NAME:
        core = core_tokens(raw, "organization") or tokens
        return text, " ".join(core)
    if kind is FieldKind.GIVEN_NAME:
        forms = given_name_forms(tokens[0])
        return text, min(forms) if forms else text
    return text, text


def _value_codes(
    cells: Sequence[set[str]],
) -> tuple[list[list[int]], npt.NDArray[np.int64]]:
    """Each entity's values as codes, and how many entities hold each code.

    Codes follow the sorted values, not a set's hash order: codes break ties between
    equally rare values, and a run must not depend on PYTHONHASHSEED.
    """
    index: dict[str, int] = {}
    held = [sorted(index.setdefault(v, len(index)) for v in sorted(cell)) for cell in cells]
    flat = np.asarray([c for codes in held for c in codes], dtype=np.int64)
    return held, np.bincount(flat, minlength=len(index))


def _rarest(held: Sequence[int], held_by: npt.NDArray[np.int64], count: int) -> list[int]:
    """The `count` codes of `held` fewest entities hold (ties by code)."""
    return sorted(held, key=lambda c: (held_by[c], c))[:count]


def _explode(held: Sequence[Sequence[int]]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(entity, code) rows of per-entity codes, as two parallel arrays."""
    rows = np.asarray([r for r, codes in enumerate(held) for _ in codes], dtype=np.int64)
    codes = np.asarray([c for codes in held for c in codes], dtype=np.int64)
    return rows, codes


def _list_column(entities: Sequence[Entity], spec: FieldSpec) -> FieldColumn:
    """A list field: each cell split into normalised values, kept as codes."""
    raw = column_text(entities, spec.sources[0])
    separator = list_separator([r for r in raw if r][:3000]) or "|"
    held, held_by = _value_codes(
        [{" ".join(raw_tokens(v)) for v in cell.split(separator)} - {""} for cell in raw]
    )
    kept = np.full((len(entities), LIST_KEPT), -1, dtype=np.int64)
    for r, values in enumerate(held):
        rarest = _rarest(values, held_by, LIST_KEPT)
        kept[r, : len(rarest)] = rarest
    text = np.asarray([" | ".join(map(str, values)) for values in held], dtype=object)
    whole, frequency = _factorise(list(text))
    rows, codes = _explode(held)
    return FieldColumn(
        spec=spec,
        text=text,
        codes=whole,
        frequency=frequency,
        alt=whole,
        item_rows=rows,
        item_codes=codes,
        kept=kept,
        common=held_by > max(2.0, float(np.sqrt(len(entities)))),
    )


#: Kinds whose value belongs to one identity (its id number, phone, e-mail, birth
#: date): a value far more records hold is a form's default, not a shared fact.
_OWN_VALUE_KINDS = IDENTIFYING_KINDS | {FieldKind.DATE}
#: Such a value is a default (read as missing, `_without_defaults`) when more than this
#: share of the records hold it and more than `DEFAULT_FACTOR` times as many as the
#: 99th percentile of the column's values: duplicates share their identity's value, so
#: a value's records are one entity's copies, a handful, unless a form filled it in.
DEFAULT_SHARE = 0.02
DEFAULT_FACTOR = 10.0
#: Identifiers and phones of one character repeated this long or longer ("000000000",
#: "999-999-9999") are placeholders whatever their count.
REPEATED_FROM = 3


def _without_defaults(kind: FieldKind, values: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`values` with a form's default values read as missing: a birth date of
    1900-01-01 or an id of 000000000 that a fifth of the records hold says nothing of
    who they are, and a copy holding it is not "different" from one holding the real
    value (people-parts 5k, a fifth of its ids and dates so: recall 0.906 -> 0.96)."""
    if kind not in _OWN_VALUE_KINDS:
        return values
    counts = Counter(text for text, _ in values if text)
    if not counts:
        return values
    sizes = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
    bar = max(DEFAULT_SHARE * len(values), DEFAULT_FACTOR * float(np.percentile(sizes, 99)))
    repeated = kind in (FieldKind.IDENTIFIER, FieldKind.PHONE)
    defaults = {
        text
        for text, count in counts.items()
        if count > bar or (repeated and len(text) >= REPEATED_FROM and len(set(text)) == 1)
    }
    if not defaults:
        return values
    return [("", "") if text in defaults else (text, alt) for text, alt in values]


def build_columns(
    entities: Sequence[Entity],
    specs: Sequence[FieldSpec],
    cells: Mapping[str, list[str]] | None = None,
) -> list[FieldColumn]:
    """`cells`: columns already read (`FieldReport.cells`); the rest are read here."""
    columns = []
    normalised: dict[int, list[tuple[str, str]]] = {}
    table = dict(cells or {})
    sources = (s for spec in specs if spec.kind is not FieldKind.LIST for s in _read_sources(spec))
    table.update(column_table(entities, [s for s in sources if s not in table]))
    for f, spec in enumerate(specs):
        if spec.kind is FieldKind.LIST:
            columns.append(_list_column(entities, spec))
            continue
        normalised[f] = _without_defaults(spec.kind, _normalised(spec, table))
        column = _column(spec, normalised[f])
        if spec.kind is FieldKind.PERSON_NAME and len(spec.sources) == 1:
            column.family = _family_codes(table[spec.sources[0]])
        if spec.kind is FieldKind.TEXT:
            column.item_rows, column.item_codes = _rare_words(column.text)
        if spec.kind is FieldKind.COORDINATES:
            column.halves = np.stack([_degrees(table[source]) for source in spec.sources], axis=1)
        columns.append(column)
    _reverse_lone_name_parts(columns, normalised)
    _cross_name_parts(columns, normalised)
    return columns


def _degrees(cells: Sequence[str]) -> npt.NDArray[np.float64]:
    """Each cell as a number of degrees, NaN where it is blank or no number."""
    out = np.full(len(cells), np.nan)
    for row, cell in enumerate(cells):
        try:
            out[row] = float(cell)
        except ValueError:
            continue
    out[~np.isfinite(out)] = np.nan
    return out


#: Two points further apart than this are two places ("different", level 1; the
#: veto `RecordEvidence` puts on places).
PLACES_APART_KM = 50.0
#: Kilometres per degree of latitude (and of longitude on the equator).
KM_PER_DEGREE = 111.19
#: The latitude taken where neither record of a pair holds one, when their
#: longitudes are read alone: a degree of longitude shortens towards the poles, and
#: nearly everyone lives nearer the equator than 60 degrees.
UNKNOWN_LATITUDE = 60.0


def halves_apart(
    column: FieldColumn, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64], km: float
) -> npt.NDArray[np.bool_]:
    """Pairs whose coordinates, read part by part, cannot be one place within `km`:
    where one row holds its latitude or its longitude alone, the point is missing,
    yet "Langham" at longitude -5.9 and "Langham" at 29.7 are two towns. Were the
    two rows one place, their latitudes would be equal (a latitude either holds
    stands for the other's), so two latitudes more than `km` apart, or two
    longitudes more than `km` apart along that parallel, say two places."""
    assert column.halves is not None
    one, two = column.halves[left], column.halves[right]
    with np.errstate(invalid="ignore"):
        by_latitude = np.abs(one[:, 0] - two[:, 0]) * KM_PER_DEGREE > km
        latitude = np.where(np.isnan(one[:, 0]), two[:, 0], one[:, 0])
        latitude = np.where(np.isnan(latitude), UNKNOWN_LATITUDE, latitude)
        turn = np.abs(one[:, 1] - two[:, 1]) % 360.0
        turn = np.minimum(turn, 360.0 - turn)
        along = turn * KM_PER_DEGREE * np.cos(np.radians(np.clip(latitude, -90.0, 90.0)))
        by_longitude = along > km
    return np.asarray(by_latitude | by_longitude)


def _family_codes(cells: Sequence[str]) -> npt.NDArray[np.int64]:
    """`FieldColumn.family` of a column's raw cells, each distinct cell read once."""
    index: dict[str, int] = {}
    memo: dict[str, int] = {}
    out = np.full(len(cells), -1, dtype=np.int64)
    for row, cell in enumerate(cells):
        code = memo.get(cell)
        if code is None:
            word = family_word(cell)
            sound = jellyfish.soundex(word) if word.isalpha() else ""
            code = memo[cell] = index.setdefault(sound, len(index)) if sound else -1
        out[row] = code
    return out


def _column(spec: FieldSpec, pairs: Sequence[tuple[str, str]]) -> FieldColumn:
    text = np.asarray([p[0] for p in pairs], dtype=object)
    codes, frequency = _factorise([p[0] for p in pairs])
    alt, _ = _factorise([p[1] for p in pairs])
    return FieldColumn(spec=spec, text=text, codes=codes, frequency=frequency, alt=alt)


def _reverse_lone_name_parts(
    columns: Sequence[FieldColumn], normalised: dict[int, list[tuple[str, str]]]
) -> None:
    """Give the given- and family-name columns their `reversed` forms.

    Exports put a lone name in the other part's column: "Rosling" as a first name
    with no surname, "Henry" as a surname with no first name. Compared as written,
    "Rosling" differs from Harry Rosling's first name and never meets his surname in
    a block. The reversed family column also holds each lone first name (and the
    reversed given column each lone surname): blocking reads it, and a pair is read
    reversed where that makes the lone value equal the other record's part while as
    written it differs (`record_model`; Splink's column-reversal level). Of the given
    and family columns, the pair sharing the most lone values is taken (an occupation
    typed as a family name, a middle-name column, share few or none).
    """
    chosen = _name_part_pair(columns, lambda g, f: _lone_shared(g, f) + _lone_shared(f, g))
    if chosen is None:
        return
    for here, there in (chosen, chosen[::-1]):
        column, other = columns[here], columns[there]
        moved = _lone(other, column).tolist()
        column.reversed = _column(
            column.spec,
            [
                _normalise((str(value),), column.spec.kind) if move else own
                for own, value, move in zip(normalised[here], other.text, moved, strict=True)
            ],
        )
        column.partner = there


def _cross_name_parts(
    columns: Sequence[FieldColumn], normalised: dict[int, list[tuple[str, str]]]
) -> None:
    """Give the given- and family-name columns their `crossed` forms.

    Registers swap the two parts now and then ("Mount-Earl, Windham" filed as given
    name "Mount-Earl"): compared as written, both parts differ and the pair reads as
    two people. Of the given and family columns, the two sharing the most values
    (names that are both, or swapped records) are paired; `record_model` reads a pair
    crossed where both parts differ as written and both agree crossed.
    """
    chosen = _name_part_pair(columns, lambda g, f: len(_held(g) & _held(f)))
    if chosen is None:
        return
    for here, there in (chosen, chosen[::-1]):
        column = columns[here]
        as_here = _normalise_each(((text,) for text, _ in normalised[there]), column.spec.kind)
        column.crossed = _column(column.spec, [*normalised[here], *as_here])
        column.cross_partner = there
        column.crossed_initials = np.asarray(
            [ord(str(t)[0]) if t else -1 for t in column.crossed.text.tolist()], dtype=np.int64
        )


def _lone(column: FieldColumn, other: FieldColumn) -> npt.NDArray[np.bool_]:
    """Records holding `column`'s part and not `other`'s."""
    return np.asarray((column.codes >= 0) & (other.codes < 0), dtype=bool)


def _name_part_pair(
    columns: Sequence[FieldColumn], shared: Callable[[FieldColumn, FieldColumn], int]
) -> tuple[int, int] | None:
    """The (given, family) column indices whose `shared` count is highest, if any is
    above zero (first such pair on ties)."""
    given = [f for f, c in enumerate(columns) if c.spec.kind is FieldKind.GIVEN_NAME]
    family = [f for f, c in enumerate(columns) if c.spec.kind is FieldKind.FAMILY_NAME]
    best, chosen = 0, None
    for g, f in itertools.product(given, family):
        count = shared(columns[g], columns[f])
        if count > best:
            best, chosen = count, (g, f)
    return chosen


def _held(column: FieldColumn) -> set[str]:
    """The values some record holds in `column`."""
    return set(column.text[column.codes >= 0].tolist())


def _lone_shared(column: FieldColumn, other: FieldColumn) -> int:
    """Lone values of `column` that `other` holds for some record."""
    held = _held(other)
    return sum(1 for value in column.text[_lone(column, other)].tolist() if value in held)


def _rare_words(
    text: npt.NDArray[np.object_],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each entity's `RARE_WORDS` rarest words (by how many entities hold them), as
    (entity, word code) rows: two variants of a title rarely lose both. A number
    after a word is glued to it ("gb 2106" is "gb2106"): one shop writes a model
    code "GB-2106", another "GB2106"."""
    held, held_by = _value_codes([_glued_codes(str(t)) for t in text])
    return _explode([_rarest(codes, held_by, RARE_WORDS) for codes in held])


def _glued_codes(text: str) -> set[str]:
    words: list[str] = []
    for word in text.split():
        if word.isdigit() and words and not words[-1].isdigit():
            words[-1] += word
        else:
            words.append(word)
    return set(words)


def _cpdist(
    scorer: Any,
    left: npt.NDArray[np.object_],
    right: npt.NDArray[np.object_],
    score_cutoff: float,
) -> npt.NDArray[np.float64]:
    """Scores of each pair, rapidfuzz stopping at `score_cutoff`: past it a score is
    only known to be past it, which is all a level asks."""
    if len(left) == 0:
        return np.zeros(0, dtype=np.float64)
    # Threads pay off only on large batches; small ones (clustering's on-demand
    # checks) would spend more on starting them than on comparing.
    workers = -1 if len(left) >= PARALLEL_FROM else 1
    return np.asarray(
        process.cpdist(
            list(left), list(right), scorer=scorer, workers=workers, score_cutoff=score_cutoff
        ),
        dtype=np.float64,
    )


def _similarity(
    scorer: Any, left: npt.NDArray[np.object_], right: npt.NDArray[np.object_], lowest: float
) -> npt.NDArray[np.float64]:
    """Similarities, exact from `lowest` (the kind's lowest band) up."""
    return _cpdist(scorer, left, right, _cutoff(lowest))


def _cutoff(lowest: float) -> float:
    """A score exactly at a cutoff can come back as 0 (rounding inside rapidfuzz): the
    cutoff sits a hair below so the band's own >= comparison stays exact."""
    return lowest - CUTOFF_SLACK * max(1.0, lowest)


@dataclass
class _Dense:
    """Pairs that cover most of the matrix of a few values on each side (a small
    workspace's every value pair, or u's random pairs drawn as a cross product):
    scored as that matrix by `process.cdist`, whose batched kernels run several
    times faster per pair than pair lists do (Jaro-Winkler ~6x, token set ~1.7x on
    744 restaurant names)."""

    left_values: list[str]
    right_values: list[str]
    left: npt.NDArray[np.int64]
    right: npt.NDArray[np.int64]

    def scores(self, scorer: Any, score_cutoff: float) -> npt.NDArray[np.float64]:
        matrix = process.cdist(
            self.left_values,
            self.right_values,
            scorer=scorer,
            score_cutoff=score_cutoff,
            workers=-1,
            dtype=np.float64,
        )
        return np.asarray(matrix[self.left, self.right], dtype=np.float64)


def _dense(
    column: FieldColumn, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]
) -> _Dense | None:
    if len(left) < DENSE_FROM:
        return None
    lc, rc = column.codes[left], column.codes[right]
    # Each side's values in play, sorted, by marking codes (both sides present
    # here): a sort of every pair's codes cost people-50k 0.1 s of checks that never
    # found a matrix.
    top = int(column.codes.max()) + 1
    sides = []
    for codes in (lc, rc):
        seen = np.zeros(top, dtype=bool)
        seen[codes] = True
        sides.append(np.flatnonzero(seen))
    (on_left, on_right) = sides
    if max(len(on_left), len(on_right)) > DENSE_MAX_VALUES or len(on_left) * len(
        on_right
    ) > DENSE_COVER * len(left):
        return None
    first_row = np.zeros(top, dtype=np.int64)
    held = np.flatnonzero(column.codes >= 0)
    first_row[column.codes[held[::-1]]] = held[::-1]
    return _Dense(
        left_values=[str(t) for t in column.text[first_row[on_left]]],
        right_values=[str(t) for t in column.text[first_row[on_right]]],
        left=np.searchsorted(on_left, lc),
        right=np.searchsorted(on_right, rc),
    )


def _kilometres(
    left: npt.NDArray[np.object_], right: npt.NDArray[np.object_]
) -> npt.NDArray[np.float64]:
    """Great-circle distance between "lat,lon" texts (haversine, Earth's mean radius)."""

    parsed = {t: [float(x) for x in str(t).split(",")] for t in {*left.tolist(), *right.tolist()}}

    def points(texts: npt.NDArray[np.object_]) -> npt.NDArray[np.float64]:
        coordinates = [parsed[t] for t in texts.tolist()]
        return np.radians(np.asarray(coordinates, dtype=np.float64).reshape(-1, 2))

    a, b = points(left), points(right)
    dlat, dlon = b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]
    h = np.sin(dlat / 2) ** 2 + np.cos(a[:, 0]) * np.cos(b[:, 0]) * np.sin(dlon / 2) ** 2
    return np.asarray(2 * 6371.0 * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0))), dtype=np.float64)


#: Words two organisation names may hold on their own without naming two things.
_ORG_FILLER = frozenset({"the", "and", "of", "de", "la", "le", "du", "der", "und"})
#: A word is a role ("services", "grill", "dining room") when at least this many of
#: the workspace's names hold it, this share of them sounding like no other word of
#: the pair.
ROLE_MIN_NAMES = 5
ROLE_ELSEWHERE_SHARE = 0.8
#: Token-set similarity below which two organisation names share no word to hold
#: roles beside.
ROLE_TOKEN_SET = 40.0


@functools.lru_cache(maxsize=1 << 16)
def _org_words(text: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """A name's words for `_roles_apart`, and their first letters (a quick test: two
    names whose words begin with no common letter share no word)."""
    words = tuple(t for t in _org_core(text) if len(t) > 2 and t.isalpha())
    return words, frozenset(w[0] for w in words)


def _org_core(text: str) -> list[str]:
    """An organisation name's core tokens (`core_tokens`) without filler words."""
    return [t for t in core_tokens(text, "organization") if t not in _ORG_FILLER]


def _postings(column: FieldColumn) -> dict[str, set[int]]:
    if column.postings is None:
        postings: dict[str, set[int]] = {}
        for code, text in enumerate(dict.fromkeys(str(t) for t in column.text.tolist() if t)):
            for word in _org_words(text)[0]:
                postings.setdefault(jellyfish.soundex(word), set()).add(code)
        column.postings = postings
    return column.postings


def _roles_apart(
    left: str,
    right: str,
    postings: dict[str, set[int]],
    memo: dict[tuple[str, frozenset[str]], bool],
) -> bool:
    """Whether two organisation names share a word but each holds a role word of its
    own: "Basf Services Ltd" / "Basf Finance Limited", "the carlton grill" / "the
    carlton dining room" -- two firms of one group, two rooms of one hotel, at one
    address. A role word is one the workspace's names use beside other words (most
    names holding its sound hold none of the other name's words' sounds, nor those
    of the words the two share; its own name's other words do not count, so "dining"
    beside "room" is a role); a word
    only one firm's names hold ("gloeilampenfabrieken" beside "philips", "phlips")
    is a variant of that name. Sounds, not spellings: mistyped copies keep their
    neighbourhood. A typo, an abbreviation ("intl" / "international": its letters
    in order) or the other's initials match as one word."""
    (a, a_initials), (b, b_initials) = _org_words(left), _org_words(right)
    if a_initials.isdisjoint(b_initials):
        return False
    # Each side needs a word of its own (most pairs of a firm's variants have none).
    a_shared = {x for x in a if any(_one_word(x, y) for y in b)}
    if not a_shared or a_shared.issuperset(a):
        return False
    b_shared = {y for y in b if any(_one_word(x, y) for x in a)}
    if b_shared.issuperset(b):
        return False
    sounds = {w: jellyfish.soundex(w) for w in {*a, *b}}

    def any_role(own: tuple[str, ...], shared: set[str], others: tuple[str, ...]) -> bool:
        # A word's neighbourhood: the other name's words and those of its own the
        # two share, not its own name's other words ("room" beside "dining").
        around = frozenset(sounds[w] for w in (*others, *shared))
        return any(
            _role_sound(sounds[w], around - {sounds[w]}, postings, memo)
            for w in own
            if w not in shared
        )

    return any_role(a, a_shared, b) and any_role(b, b_shared, a)


def _role_sound(
    sound: str,
    others: frozenset[str],
    postings: dict[str, set[int]],
    memo: dict[tuple[str, frozenset[str]], bool],
) -> bool:
    """Whether the names holding `sound` mostly hold none of `others` (see
    `_roles_apart`); a large firm's variants ask the same few sounds again and again."""
    key = (sound, others)
    found = memo.get(key)
    if found is None:
        holders = postings.get(sound, set())
        near: set[int] = set()
        if len(holders) >= ROLE_MIN_NAMES:
            for other in others:
                near |= postings.get(other, set())
        found = memo[key] = len(holders) >= ROLE_MIN_NAMES and len(
            holders - near
        ) >= ROLE_ELSEWHERE_SHARE * len(holders)
    return found


@functools.lru_cache(maxsize=1 << 18)
def _one_word(x: str, y: str) -> bool:
    """Whether two words of firms' names are one: equal, an abbreviation of the
    other (its letters in order from the same first letter), or a typo of it."""
    if x == y:
        return True
    short, long = (x, y) if len(x) <= len(y) else (y, x)
    if len(short) >= 2 and short[0] == long[0]:
        letters = iter(long)
        if all(c in letters for c in short):
            return True
    return len(short) >= 4 and JaroWinkler.similarity(x, y) >= 0.9


#: Letters each of two organisation names needs before `names_apart` reads them:
#: shorter ones ("DSM" / "Dsn", "NSP" / "NXP") share no three letters when mistyped.
NAMES_APART_MIN_LETTERS = 6


@functools.lru_cache(maxsize=1 << 16)
def _trigrams(text: str) -> tuple[frozenset[str], int]:
    """A name's three-letter sequences (legal forms and filler words left out) and
    how many letters it holds."""
    core = " ".join(_org_core(text))
    return frozenset(core[i : i + 3] for i in range(len(core) - 2)), sum(c.isalpha() for c in core)


def names_apart(left: str, right: str) -> bool:
    """Whether two organisation names have not three letters in sequence in common
    ("circus circus" / "steak house": two restaurants of one casino, on its address
    and switchboard). Retyped, abbreviated and reordered copies of one name keep
    some ("Filips Elektroniks" / "Philips Gloeilampenfabrieken": "lip", "ips");
    names under `NAMES_APART_MIN_LETTERS` letters are not read."""
    (a, a_letters), (b, b_letters) = _trigrams(left), _trigrams(right)
    return (
        a_letters >= NAMES_APART_MIN_LETTERS
        and b_letters >= NAMES_APART_MIN_LETTERS
        and a.isdisjoint(b)
    )


def _numbered(text: str) -> list[str]:
    """The words of a text that hold a digit: a house number, a model code, an edition."""
    return [word for word in text.split() if any(c.isdigit() for c in word)]


def _numbered_apart(
    lt: npt.NDArray[np.object_],
    rt: npt.NDArray[np.object_],
    rows: npt.NDArray[np.int64],
    out: npt.NDArray[np.int8],
) -> None:
    """Level 1 ("different") where one name holds a number the other lacks, or another
    ("Rodrigo Tents" / "Rodrigo Tents 2", "Rocky II" / "Rocky III"): a sequel, a part
    or a model is another thing, however alike the words. "II" and "2" are one
    number. Not for organisations: PATSTAT's firms, their numbers mistyped, fell
    0.8163 -> 0.8086."""
    numbers = {t: _numbers(str(t)) for t in {*lt.tolist(), *rt.tolist()}}
    other = np.asarray(
        [numbers[a] != numbers[b] for a, b in zip(lt.tolist(), rt.tolist(), strict=True)],
        dtype=bool,
    )
    out[rows[other]] = 1


#: Roman numerals a title writes as a word for its number ("Rocky II"); "i", "v" and
#: "x" alone are more often initials or letters than numbers.
_ROMAN = {
    "ii": "2", "iii": "3", "iv": "4", "vi": "6", "vii": "7", "viii": "8", "ix": "9",
    "xi": "11", "xii": "12", "xiii": "13", "xiv": "14", "xv": "15", "xvi": "16",
}  # fmt: skip


def _numbers(text: str) -> frozenset[str]:
    """The numbers a name holds: each word's digits, and roman numerals as digits."""
    digits = ("".join(c for c in word if c.isdigit()) for word in _numbered(text))
    romans = (_ROMAN[word] for word in text.split() if word in _ROMAN)
    return frozenset([*(d.lstrip("0") or "0" for d in digits), *romans])


def _other_codes(left: str, right: str) -> bool:
    """Whether both texts hold words with digits and none of one's is in the other
    (its spaces removed: "ab 1234" is "ab1234" written apart) or, for codes of
    `CODE_EDIT_FROM` characters or more, within one edit of one of the other's: a
    mistyped model code is one edit off, and so is every other volume of a series
    ("Book 1" / "Book 2")."""
    a, b = set(_numbered(str(left))), set(_numbered(str(right)))
    if not a or not b or a & b:
        return False
    glued_left, glued_right = str(left).replace(" ", ""), str(right).replace(" ", "")
    if any(x in glued_right for x in a) or any(y in glued_left for y in b):
        return False
    return not any(
        DamerauLevenshtein.distance(x, y, score_cutoff=1) <= 1
        for x in a
        for y in b
        if min(len(x), len(y)) >= CODE_EDIT_FROM
    )


#: Length from which two codes one edit apart are taken for one mistyped code.
CODE_EDIT_FROM = 4
#: Keying errors two copies of one code may hold between them (one each).
CODE_EDITS = 2


#: Buckets the characters of a code are counted in (by code point modulo): digits
#: fall in buckets of their own.
CHARACTER_BUCKETS = 16
#: Codes longer than this are not counted (`_character_counts`): every pair of such
#: a column is measured.
COUNTED_LENGTH = 64


def codes_apart(
    column: FieldColumn, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    """Whether each pair's codes are more than `CODE_EDITS` edits apart: not two
    mistyped copies of one code.

    An edit changes a code's character counts by at most two (one out, one in; a
    transposition by none), so two codes whose counts differ by more than twice
    `CODE_EDITS` are apart unmeasured: most pairs of different ids (the 125k
    FEBRL-like point: 0.94 s of edit distances over millions of pairs)."""
    out = np.ones(len(left), dtype=bool)
    rows = np.arange(len(left))
    counts = _character_counts(column)
    if counts is not None and len(left):
        gap = counts[left]
        gap -= counts[right]
        np.abs(gap, out=gap)
        rows = np.flatnonzero(gap.sum(axis=1, dtype=np.int16) <= 2 * CODE_EDITS)
    distance = _cpdist(
        DamerauLevenshtein.distance,
        column.text[left[rows]],
        column.text[right[rows]],
        CODE_EDITS + 1,
    )
    out[rows] = distance > CODE_EDITS
    return out


def _character_counts(column: FieldColumn) -> npt.NDArray[np.int8] | None:
    """Each entity's characters counted by bucket (`CHARACTER_BUCKETS`), or None
    where a value is longer than `COUNTED_LENGTH` or holds a NUL (set once,
    complete: the scorer may be asked on two threads)."""
    if column.character_counts is None:
        texts = [str(t) for t in column.text.tolist()]
        # A NUL would read as the table's padding and go uncounted.
        if not texts or max(map(len, texts)) > COUNTED_LENGTH or any("\x00" in t for t in texts):
            column.character_counts = np.zeros((0, CHARACTER_BUCKETS), dtype=np.int8)
            return None
        points = np.array(texts, dtype=str).reshape(len(texts), -1).view(np.uint32)
        counts = np.zeros((len(texts), CHARACTER_BUCKETS), dtype=np.int8)
        row, place = np.nonzero(points)
        np.add.at(counts, (row, points[row, place] % CHARACTER_BUCKETS), 1)
        column.character_counts = counts
    return column.character_counts if len(column.character_counts) else None


def _house_numbers(texts: npt.NDArray[np.object_]) -> npt.NDArray[np.object_]:
    """The first and last token holding a digit of each address ("" when none, and
    for a missing address)."""
    memo: dict[str, tuple[str, str]] = {}
    rows: list[tuple[str, str]] = []
    for text in texts.tolist():
        found = memo.get(text)
        if found is None:
            numbered = _numbered(str(text)) if text else []
            found = memo[text] = (numbered[0], numbered[-1]) if numbered else ("", "")
        rows.append(found)
    out = np.full((len(rows), 2), "", dtype=object)
    if rows:
        out[:, 0] = [first for first, _ in rows]
        out[:, 1] = [last for _, last in rows]
    return out


def _one_edit(
    left: npt.NDArray[np.object_], right: npt.NDArray[np.object_]
) -> npt.NDArray[np.bool_]:
    """Whether each pair is at most one edit (or one transposition) apart; the
    distance stops counting past 1 (~6x faster than a full distance)."""
    return _cpdist(DamerauLevenshtein.distance, left, right, 1) <= 1


def compare(
    column: FieldColumn, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]
) -> npt.NDArray[np.int8]:
    """Comparison level of each pair (left[k], right[k]) on this field."""
    kind = column.spec.kind
    top = len(LEVELS[kind])
    lc, rc = column.codes[left], column.codes[right]
    out = np.ones(len(left), dtype=np.int8)
    out[(lc < 0) | (rc < 0)] = 0
    exact = (lc == rc) & (lc >= 0)
    open_ = (out == 1) & ~exact
    rows = np.flatnonzero(open_)
    memo = column.memo if len(rows) < MEMO_BELOW else None
    if len(rows) and (memo is not None or len(rows) >= DEDUPLICATE_FROM):
        # Levels depend only on the two values (and whether their coarser codes
        # agree): each distinct combination is compared once, in this call (blocked
        # pairs repeat a town, a given name, the duplicates themselves; random ones
        # the common values) and across small calls (`FieldColumn.memo`).
        alt_equal = column.alt[left[rows]] == column.alt[right[rows]]
        span = int(column.codes.max()) + 1
        key = (lc[rows] * span + rc[rows]) * 2 + alt_equal
        if memo is not None:
            known, hit = memo.lookup(key)
            out[rows[hit]] = known[hit]
            rows, key = rows[~hit], key[~hit]
    if len(rows) >= DEDUPLICATE_FROM:
        first, inverse = first_and_inverse(key)
        if len(first) < len(rows):
            distinct = np.ones(len(first), dtype=np.int8)
            _fill(
                column, kind, left[rows[first]], right[rows[first]], np.arange(len(first)), distinct
            )
            out[rows] = distinct[inverse]
            if memo is not None:
                memo.add(key[first], distinct)
            rows = rows[:0]
    if len(rows):
        _fill(column, kind, left[rows], right[rows], rows, out)
        if memo is not None:
            _, first = np.unique(key, return_index=True)
            memo.add(key[first], out[rows[first]])
    out[exact] = top
    if kind is FieldKind.FAMILY_NAME:
        # "Baronet" against "Shaw" is not two different surnames: one of them is
        # none. Compared as missing, and so is "Baronet" against "Baronet": two
        # records agreeing on no surname agree on nothing (people-50k cut to first
        # name and surname: 542 different "Sir Baronet"s were one group).
        blank = _no_surname(column)
        out[(blank[np.maximum(lc, 0)] | blank[np.maximum(rc, 0)]) & (out > 0)] = 0
    return out


def generations(column: FieldColumn) -> npt.NDArray[np.int64] | None:
    """Each entity's generational suffix (one number per generation, -1 when it
    holds none), or None when the column holds none: in a column where at least
    `GENERATION_SHARE` of its values are such suffixes, "Jr" or "Sr" among them (a
    suffix column, whatever kind its few short values were read as); else in a
    person's name, given or family name, after its first word ("Henry Tooth Jr")."""
    if column.spec.kind in _UNSUFFIXED_KINDS:
        return None
    if column.generation is None:
        present = np.flatnonzero(column.codes >= 0)
        codes, first = np.unique(column.codes[present], return_index=True)
        texts = [str(t) for t in column.text[present[first]].tolist()]
        named = [generation(t) for t in texts]
        counts = np.bincount(column.codes[present])[codes] if len(present) else codes
        held = sum(int(c) for c, g in zip(counts.tolist(), named, strict=True) if g)
        if held < GENERATION_SHARE * len(present) or not FATHER_OR_SON & set(named):
            suffixed = column.spec.kind in _SUFFIXED_KINDS
            named = [name_generation(t) for t in texts] if suffixed else []
        marks = np.zeros(0, dtype=np.int64)
        if any(named):
            number = {g: k for k, g in enumerate(sorted({g for g in named if g}))}
            by_code = np.asarray([number.get(g, -1) if g else -1 for g in named], dtype=np.int64)
            marks = np.full(len(column.codes), -1, dtype=np.int64)
            marks[present] = by_code[np.searchsorted(codes, column.codes[present])]
        # Set once, complete: the rule choice's batches and the estimate compare on
        # two threads, and one that met a half-built column (an empty array, "no
        # suffixes") scored pairs apart in suffix as alike (u differed run to run).
        column.generation = marks
    return column.generation if len(column.generation) else None


def _no_surname(column: FieldColumn) -> npt.NDArray[np.bool_]:
    if column.no_surname is None:
        flags = np.zeros(len(column.frequency) + 1, dtype=bool)
        present = column.codes >= 0
        codes, first = np.unique(column.codes[present], return_index=True)
        texts = column.text[np.flatnonzero(present)[first]]
        flags[codes] = [not_a_surname(str(t)) for t in texts.tolist()]
        column.no_surname = flags
    return column.no_surname


def _fill(
    column: FieldColumn,
    kind: FieldKind,
    left: npt.NDArray[np.int64],
    right: npt.NDArray[np.int64],
    rows: npt.NDArray[np.int64],
    out: npt.NDArray[np.int8],
) -> None:
    """Levels below "exact" for pairs that are present on both sides and differ."""
    lt, rt = column.text[left], column.text[right]
    alt_equal = column.alt[left] == column.alt[right]
    dense = _dense(column, left, right)

    def similarity(scorer: Any, lowest: float) -> npt.NDArray[np.float64]:
        if dense is None:
            scores = _similarity(scorer, lt, rt, lowest)
        else:
            scores = dense.scores(scorer, _cutoff(lowest))
        # Rounded: cdist's batched kernels and cpdist differ in the last bits, and a
        # score on a band's edge ("m" / "may": Jaro-Winkler 0.8) fell on either side
        # of it by path. A value pair's level must not depend on which path compared
        # it first (`FieldColumn.memo` keeps it): contacts' u differed run to run.
        return np.round(scores, SCORE_DECIMALS)

    def one_edit() -> npt.NDArray[np.bool_]:
        if dense is None:
            return _one_edit(lt, rt)
        return dense.scores(DamerauLevenshtein.distance, 1) <= 1

    def put(mask: npt.NDArray[np.bool_], level: int) -> None:
        target = rows[mask]
        out[target] = np.maximum(out[target], level)

    if kind in (FieldKind.DATE, FieldKind.YEAR):
        stamps = dated(column)
        lv, rv = stamps[left], stamps[right]
        years = np.abs(lv // 10000 - rv // 10000)
        # Ten years apart is still a typo's reach (1836 -> 1846); two centuries is
        # another person, which the "different" level alone could not say.
        put(years <= 10, 2)
        put(years <= 1, 3)
        if kind is FieldKind.YEAR:
            return
        put(lv // 100 == rv // 100, 4)
        swapped = (
            (lv // 10000 == rv // 10000)
            & (lv // 100 % 100 == rv % 100)
            & (lv % 100 == rv // 100 % 100)
        )
        edits = one_edit()
        put(swapped | edits, 5)
        return
    if kind is FieldKind.COORDINATES:
        km = _kilometres(lt, rt)
        put(km <= PLACES_APART_KM, 2)
        put(km <= 10, 3)
        put(km <= 2, 4)
        return
    if kind is FieldKind.LIST:
        any_shared, rare_shared = _shared(column, left, right)
        put(any_shared > 0, 2)
        put(rare_shared == 1, 3)
        put(rare_shared >= 2, 4)
        return
    if kind is FieldKind.POSTCODE:
        put(alt_equal, 2)
        return
    if kind in (FieldKind.IDENTIFIER, FieldKind.PHONE):
        put(one_edit(), 2)
        return
    if kind in (FieldKind.EMAIL, FieldKind.WEBSITE):
        put(alt_equal, 2)
        return
    if kind is FieldKind.TEXT:
        ts = similarity(fuzz.token_set_ratio, 60.0)
        put(ts >= 60, 2)
        put(ts >= 80, 3)
        put((ts >= 95) | alt_equal, 4)
        # Titles alike in their words but not in their numbers or codes ("gist pro
        # monitor pa6094" / "... nh5991", "2nd edition" / "3rd edition") name two
        # things; a mistyped code is one edit from the other.
        alike = np.flatnonzero(ts >= 60)
        if len(alike):
            other = np.asarray(
                [_other_codes(a, b) for a, b in zip(lt[alike], rt[alike], strict=True)],
                dtype=bool,
            )
            out[rows[alike[other]]] = 1
        return
    if kind is FieldKind.ADDRESS:
        ts = similarity(fuzz.token_set_ratio, 70.0)
        put(ts >= 70, 3)
        put(ts >= 90, 4)
        # Another house number on a street the two share is a level of its own, below
        # the words the two share ("3182 n. la cienega ave" / "7386 la cienega ave":
        # two restaurants of one name on one street were one); EM weighs it. A
        # mistyped number is one edit from the other; two copies of a short one, each
        # mistyped once, two ("59" / "76" for "79": any two 2-digit numbers are, so
        # they cannot say "another"). A flat's number beside the house's can match.
        alike = np.flatnonzero(ts >= 70)
        if len(alike):
            if column.house is None:
                numbers = _house_numbers(column.text)
                column.house = (numbers, np.char.str_len(numbers.astype(str)).astype(np.int64))
            house, lengths = column.house
            ln, rn = house[left[alike]], house[right[alike]]
            ll, rl = lengths[left[alike]], lengths[right[alike]]
            both = (ln[:, 0] != "") & (rn[:, 0] != "")
            close = {}
            for a in range(2):
                for b in range(2):
                    apart = _cpdist(DamerauLevenshtein.distance, ln[:, a], rn[:, b], 2)
                    longest = np.maximum(ll[:, a], rl[:, b])
                    # Two mistyped copies of a number are two edits apart; that
                    # excuses only numbers of two digits ("59" / "76" for "79": any
                    # two such numbers are), not "159" / "144".
                    close[a, b] = (apart <= 1) | ((apart <= 2) & (longest <= 2))
            near = close[0, 0] | close[0, 1] | close[1, 0] | close[1, 1]
            # Both hold a unit's number and the house's ("flat 2, 182 mill road" /
            # "flat 6, 182 mill road"): one unit, not any two numbers alike.
            units = (ln[:, 0] != ln[:, 1]) & (rn[:, 0] != rn[:, 1])
            near = np.where(units, (ln[:, 0] == rn[:, 0]) & close[1, 1], near)
            out[rows[alike[both & ~near]]] = 2
        return
    jw = similarity(JaroWinkler.normalized_similarity, 0.80)
    if kind is FieldKind.PERSON_NAME:
        put(jw >= 0.80, 2)
        put(similarity(fuzz.token_set_ratio, 99.5) >= 99.5, 3)
        put(jw >= 0.92, 4)
        put(alt_equal | _respaced_equal(column, left, right), 5)
    elif kind is FieldKind.GIVEN_NAME:
        if column.initials is None:
            texts = [str(t) if t else "" for t in column.text.tolist()]
            column.initials = (
                np.asarray([ord(t[0]) if t else -1 for t in texts], dtype=np.int64),
                np.asarray([len(t) == 1 for t in texts], dtype=bool),
            )
        first, lone = column.initials
        put((lone[left] | lone[right]) & (first[left] == first[right]), 2)
        put(jw >= 0.80, 3)
        put(jw >= 0.92, 4)
        put(alt_equal | _respaced_equal(column, left, right), 5)
    elif kind is FieldKind.ORGANISATION_NAME:
        # Names sharing a word score 40 or more on token set ("basf services" /
        # "basf finance" ~50): only those can hold a role each (most pairs do not).
        ts = similarity(fuzz.token_set_ratio, ROLE_TOKEN_SET)
        roles = np.zeros(len(lt), dtype=bool)
        # The entity's own name only: another column of firms' names (an artist, a
        # publisher) names related things, whose roles say nothing of these two.
        if column.spec.name == NAME_FIELD:
            postings, known = _postings(column), column.roles
            for k in np.flatnonzero(ts >= ROLE_TOKEN_SET).tolist():
                one, two = str(lt[k]), str(rt[k])
                key = (one, two) if one <= two else (two, one)  # symmetric
                found = known.get(key)
                if found is None:
                    found = known[key] = _roles_apart(*key, postings, column.role_sounds)
                roles[k] = found
        put(~roles, 2)
        put(ts >= 80, 3)
        put(jw >= 0.92, 4)
        put(alt_equal, 5)
        out[rows[roles]] = 1
    elif kind is FieldKind.NAME:
        put(jw >= 0.80, 2)
        put(similarity(fuzz.token_set_ratio, 85.0) >= 85, 3)
        put(jw >= 0.92, 4)
        _numbered_apart(lt, rt, rows, out)
    elif kind is FieldKind.CATEGORY:
        put(jw >= 0.88, 2)
    else:  # family names, localities
        put(jw >= 0.80, 2)
        put(jw >= 0.92, 3)


def dated(column: FieldColumn) -> npt.NDArray[np.int64]:
    """A date or year column's values as YYYYMMDD numbers (a year alone YYYY0000), -1
    where missing."""
    if column.numbers is None:
        column.numbers = np.asarray([int(t) if t else -1 for t in column.text], dtype=np.int64)
    return column.numbers


def _respaced_equal(
    column: FieldColumn, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    """Whether each pair's two names are one name with its syllables written apart
    or together ("Wang Xiao Ming" / "Wang Xiaoming", "Kim Min-jun" / "Kim Minjun"):
    read by Jaro-Winkler alone, they were no closer than "Wang Xiaoling"."""
    if column.respaced is None:
        column.respaced = coded_per_value(column, lambda text: text.replace(" ", ""))
    a, b = column.respaced[left], column.respaced[right]
    return np.asarray((a == b) & (a >= 0), dtype=np.bool_)


def coded_per_value(column: FieldColumn, key: Callable[[str], str]) -> npt.NDArray[np.int64]:
    """`key` of each entity's value as codes (-1 where the value is missing or its
    key empty), computed once per distinct value (a soundex of each of people-50k's
    50k names was ~0.1 s a name field), numbered by first appearance, as the rows'
    own values are coded."""
    codes = column.codes
    rows = np.flatnonzero(codes >= 0)
    out = np.full(len(codes), -1, dtype=np.int64)
    if not len(rows):
        return out
    first = np.empty(int(codes.max()) + 1, dtype=np.int64)
    first[codes[rows[::-1]]] = rows[::-1]  # the earliest row of each code written last
    index: dict[str, int] = {}
    keys = [key(str(text)) for text in column.text[first].tolist()]
    by_code = np.asarray(
        [index.setdefault(k, len(index)) if k else -1 for k in keys], dtype=np.int64
    )
    out[rows] = by_code[codes[rows]]
    return out


#: Pairs compared per numpy step of `_shared` (bounds its LIST_KEPT-squared temporaries).
SHARED_STEP = 50_000


def _shared(
    column: FieldColumn, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Per pair: values the two kept lists share, and how many of those are rare."""
    assert column.kept is not None
    assert column.common is not None
    any_shared = np.zeros(len(left), dtype=np.int64)
    rare_shared = np.zeros(len(left), dtype=np.int64)
    for start in range(0, len(left), SHARED_STEP):
        a = column.kept[left[start : start + SHARED_STEP]]
        b = column.kept[right[start : start + SHARED_STEP]]
        equal = (a[:, :, None] == b[:, None, :]) & (a[:, :, None] >= 0)
        hit = equal.any(axis=2)
        rare = hit & ~column.common[np.maximum(a, 0)]
        any_shared[start : start + len(a)] = hit.sum(axis=1)
        rare_shared[start : start + len(a)] = rare.sum(axis=1)
    return any_shared, rare_shared


def phonetic(text: str) -> str:
    """Soundex of the first token: a blocking key that survives most typos."""
    tokens = text.split()
    return jellyfish.soundex(tokens[0]) if tokens and tokens[0].isalpha() else ""
