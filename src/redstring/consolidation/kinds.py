"""Which kind of value each record property holds, detected from the workspace's own data.

A user's columns are called anything: "dob", "born", "geb_datum", or a birth date in
three integer columns. Resolution cannot rely on names it knows, so each property's
kind is read from its *values* (shape, cardinality, token counts), with the column
name only as a tie-breaker between kinds the values cannot tell apart (given name
or family name). The result says, for every property, what it is used as and why a
property was left out, so `consolidate` can print it and a user can override it
(`--field NAME=KIND`).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from redstring.consolidation.addresses import names_a_street
from redstring.consolidation.dates import parse_date
from redstring.consolidation.names import (
    LEGAL_FORMS,
    NAME_SUFFIXES,
    known_given_name,
    raw_tokens,
    split_whole_name,
    type_kind,
)
from redstring.domain.entity import named_by_key
from redstring.domain.exceptions import InvalidInputError
from redstring.domain.normalization import latin, normalize_name

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    import numpy.typing as npt

    from redstring.domain.entity import Entity

#: The pseudo-property that stands for the entity's own name.
NAME_FIELD = "@name"
#: Values read per property when detecting its kind (a deterministic head sample).
SAMPLE = 3000
#: Share of a property's sampled values that must fit a shape for it to be that kind.
SHAPE_SHARE = 0.8
#: A property present on fewer entities than this share says too little to use.
MIN_COVERAGE = 0.05
#: Words per value (on average) above which a property is free text, too long to
#: compare; from 8 words up to this it is compared as text (titles, descriptions).
#: The entity's own name is always compared, however long (a paper's or product's
#: title).
TEXT_MAX_WORDS = 40
#: Share of a column's values naming a street type ("Harbour St", "Rue Cler") for it
#: to be a street address without house numbers; person names reach a few percent
#: ("John Lane", "Mary Green").
STREET_SHARE = 0.5
#: Share of an integer column's values written at its commonest length for it to be
#: a code; counts spread over lengths (1..5000 is 80% four-digit).
CODE_WIDTH_SHARE = 0.95
#: Share of a column's sampled values its ten commonest must hold for a column
#: named for a class (`_CLASS_WORDS`) to be a category: the bench's occupations
#: 0.43-0.53, where free-form job titles, one per person, would hold a few percent.
CATEGORY_TOP_SHARE = 0.2
#: Words per name (on average) from which the name of an entity neither a person nor
#: an organisation is a title ("Canon EOS 250D digital camera"), compared as text.
TITLE_MIN_WORDS = 3.0


class FieldKind(StrEnum):
    PERSON_NAME = "person_name"
    GIVEN_NAME = "given_name"
    FAMILY_NAME = "family_name"
    ORGANISATION_NAME = "organisation_name"
    NAME = "name"
    DATE = "date"
    YEAR = "year"
    POSTCODE = "postcode"
    IDENTIFIER = "identifier"
    EMAIL = "email"
    WEBSITE = "website"
    PHONE = "phone"
    ADDRESS = "street_address"
    LOCALITY = "locality"
    CATEGORY = "category"
    LIST = "list"
    TEXT = "text"
    COORDINATES = "coordinates"
    FREE_TEXT = "free_text"
    IGNORE = "ignore"


#: Kinds compared as names (Jaro-Winkler bands, term-frequency adjusted exact match).
NAME_KINDS = frozenset(
    {
        FieldKind.PERSON_NAME,
        FieldKind.GIVEN_NAME,
        FieldKind.FAMILY_NAME,
        FieldKind.ORGANISATION_NAME,
        FieldKind.NAME,
        FieldKind.LOCALITY,
    }
)
#: Kinds never used for matching.
UNUSED_KINDS = frozenset({FieldKind.FREE_TEXT, FieldKind.IGNORE})
#: Kinds whose equal values name one entity: a blocking rule on one may block alone
#: even when most records sit in oversized blocks (`record_model`).
IDENTIFYING_KINDS = frozenset({FieldKind.PHONE, FieldKind.EMAIL, FieldKind.IDENTIFIER})


@dataclass(frozen=True)
class FieldSpec:
    """One compared field: a property (or the name, or date parts joined) and its kind."""

    name: str
    kind: FieldKind
    #: Properties read: one, or (day, month, year) for a date split over columns,
    #: or a full name and the name parts whose words it compares without
    #: (`name_remainder`; kind person name).
    sources: tuple[str, ...]
    reason: str
    #: The same field as another system's file writes it (`align_fields`): read
    #: from these where this one's sources are blank.
    either: tuple[FieldSpec, ...] = ()


@dataclass
class FieldReport:
    """The fields used, and every property left out with the reason."""

    used: list[FieldSpec] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)
    #: Every property's cells as detection read them (`column_table`), for
    #: `comparisons.build_columns` to read again without a pass over the entities
    #: (people-50k: ~0.2 s). Not part of the report.
    cells: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)


_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.IGNORECASE)
#: A web address: a scheme or "www.", or a host ending in a two- or three-letter
#: domain ("acme.co.uk", "acme.com"; not "j.smith" or "st.john").
_WEBSITE = re.compile(
    r"^(?:(?:https?://|www\.)[a-z0-9\-.]+\.[a-z]{2,}|[a-z0-9][a-z0-9\-]*(?:\.[a-z0-9\-]+)*"
    r"\.[a-z]{2,3})(?::\d+)?(?:/\S*)?$",
    re.IGNORECASE,
)
_PHONE_CHARS = re.compile(r"^[\d\s+().\-/]+$")
_CODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9\-/.]*$")
_POSTCODE = re.compile(r"^[A-Za-z0-9]{2,5}(?:[ \-][A-Za-z0-9]{2,4})?$")
_INTEGER = re.compile(r"^[+-]?\d+$")
#: An amount: a price, a weight, a measure ("129.99", "1,299.00", "$45", "12.5 kg").
_AMOUNT = re.compile(r"^[$€£¥]?\s?[+-]?\d{1,3}(?:[,\s]?\d{3})*(?:[.,]\d+)?\s?[a-zA-Z$€£%]{0,3}$")

#: Words of a column name per name part, in English, German, French, Spanish,
#: Italian, Dutch, Scandinavian and Russian headers (in Latin letters: "Отчество",
#: the patronymic, is "otchestvo", a middle name's place). The longest hint found wins ("cognome"
#: is a family name though it ends in "nome"); hints of three letters or fewer
#: count only as a word of their own ("nom", not inside "nombre").
_NAME_PART_HINTS = {
    "middle": ("middle", "second_name", "mi", "otchestvo"),
    "given": (
        "first", "given", "forename", "fname", "christian", "vorname", "prenom", "nombre",
        "nome", "voornaam", "fornavn", "fornamn", "imia",
    ),
    "family": (
        "last", "surname", "family", "lname", "nachname", "nom", "apellido", "cognome",
        "achternaam", "efternavn", "efternamn", "familiia",
    ),
}  # fmt: skip
_POSTCODE_HINTS = (
    "postcode",
    "post_code",
    "postal",
    "zip",
    "plz",
    "郵便番号",
    "邮编",
    "邮政编码",
    "우편번호",
)
#: Words of a column name that say it holds postcodes, matched as words ("cep" is
#: inside "reception"): Brazil's CEP, India's PIN code, the Scandinavian and German
#: names in full.
_POSTCODE_WORDS = ("cep", "pincode", "postnummer", "postleitzahl", "eircode")
#: A postcode of digits, as a column named for postcodes holds it ("2600", "123-4567",
#: "〒123-4567" with Japan's postal mark, "1234567", a Brazilian CEP "01310100").
_DIGIT_POSTCODE = re.compile(r"^〒?\s?\d{2,8}(?:[ \-]\d{2,4})?$")
#: Words of a latitude's and a longitude's column names ("lat", "Latitude", "Breite").
_LATITUDE_WORDS = ("lat", "latitude", "breite", "breitengrad")
_LONGITUDE_WORDS = ("lon", "lng", "long", "longitude", "laenge", "lange", "langengrad")
#: Words of a column name that say its long numbers are codes ("company_number",
#: "account_no", "reg_id") even when their lengths vary; and the digits from which
#: they are long (a house number or a count is shorter, or not distinct).
_ID_WORDS = (
    "id", "number", "no", "nr", "num", "code", "reg", "registration", "account",
    "ref", "reference", "nummer", "numero", "nomer", "kod",
)  # fmt: skip
ID_MIN_DIGITS = 6
#: A run of `ID_MIN_DIGITS` or more digits with at most a check letter after it
#: ("11010119491001007X", "12345678Z"): a code's shape, which `_AMOUNT` also fits.
_BARE_CODE = re.compile(rf"^\d{{{ID_MIN_DIGITS},}}[A-Za-z]?$")
#: Words of a column name that say it holds ages ("age", "Alter", "edad").
_AGE_WORDS = ("age", "alter", "edad", "leeftijd", "eta")
#: Words of a column name that say its digit strings are phone numbers.
#: Words of a column name that say it holds one person's national or official number
#: (a social security, insurance, tax or passport number), however phone-like it looks.
_NATIONAL_ID_WORDS = (
    "id", "ssn", "sin", "nino", "tfn", "bsn", "cpf", "dni", "nif", "passport", "pesel",
    "ahv", "svnr", "pasport", "snils", "inn", "aadhaar", "aadhar", "uid", "pan", "nric",
    "cnic", "nik", "curp", "rut", "tckn", "hkid", "주민등록번호", "주민번호", "身份证",
    "マイナンバー", "個人番号",
)  # fmt: skip
_PHONE_WORDS = (
    "phone", "tel", "telephone", "telefon", "mobile", "cell", "fax", "landline", "電話", "携帯",
    "电话", "手机", "전화", "휴대",
)  # fmt: skip
#: Words of a column name that say it holds house numbers ("street_number", "house_no").
_HOUSE_NUMBER_WORDS = frozenset(
    {
        "number", "num", "no", "nr", "nbr", "house", "hausnummer", "hausnr", "hnr",
        "houseno", "streetno", "numero", "huisnummer", "civico",
    }
)  # fmt: skip
#: Words of a column name that say it holds places or street addresses: a one-word
#: town ("Norwich") is shaped like a surname, a building ("Rosedale Village") like
#: a name.
_PLACE_WORDS = (
    "city", "town", "suburb", "locality", "village", "place", "parish", "county",
    "district", "municipality", "ort", "ville", "stadt", "gemeinde", "region", "gorod",
    "raion", "oblast",
)  # fmt: skip
#: Words of a column name that say it holds classes a record falls in: an occupation
#: shaped like a surname ("Painter", "Mason") is none. Values alone cannot say:
#: trades repeat a few values, and so do surnames where a few are most people's
#: (Kim, Lee, Park; Nguyen).
_CLASS_WORDS = (
    "occupation", "job", "profession", "trade", "role", "category", "type", "class",
    "status", "industry", "sector", "genre", "beruf", "metier", "profesion",
    "professione", "beroep", "yrke", "erhverv",
)  # fmt: skip
_ADDRESS_WORDS = (
    "address", "addr", "street", "strasse", "adresse", "road", "住所", "地址", "주소",
)  # fmt: skip
#: Words of a column name that say it holds the name of a person's relative, a
#: person's name whatever its values look like: "father_name" ("S/O Ramesh Kumar")
#: was read as places. Found anywhere in the name ("FatherName").
_RELATIVE_WORDS = ("father", "mother", "spouse", "husband", "guardian", "parent")
#: Words of a column name that say it holds a person's name, or its reading, where
#: the values cannot: a Japanese register's フリガナ ("ヤマザキ ヒロシ") starts with no
#: given name the name lists know, and was read as places.
_PERSON_NAME_WORDS = (
    "フリガナ", "ふりがな", "カナ", "かな", "よみ", "ヨミ", "氏名", "名前", "姓名", "이름", "성명",
)  # fmt: skip
_DAY_HINTS = ("day", "dd")
_MONTH_HINTS = ("month", "mm", "mon")


#: Cells that say a value is missing instead of giving one, as forms and exports
#: write them (compared case-blind). Read as missing: a duplicate holding "UNKNOWN"
#: where its copy holds the id number is not two ids apart, and two strangers holding
#: "N/A" agree on nothing (people-parts 5k, a fifth of six columns written so or
#: with a form's default: recall 0.962 with those cells empty, 0.890 as written, 0.965
#: with these and `comparisons._without_defaults` read as missing). The stored
#: property keeps what was written.
MISSING_MARKS = frozenset(
    {
        "-", "--", "---", "?", "??", "???", "n/a", "n.a.", "n.a", "na", "#n/a",
        "null", "<null>", "(null)", "[null]", "none", "(none)", "<none>", "nil",
        "unknown", "unk", "(unknown)", "not known", "not available", "not applicable",
        "not given", "not stated", "missing", "undefined", "blank", "tbd", "tba",
        "unbekannt", "k.a.", "k. a.", "inconnu", "desconocido", "sconosciuto",
        "onbekend", "okänd", "ukjent", "ukendt",
    }
)  # fmt: skip
_LONGEST_MARK = max(len(mark) for mark in MISSING_MARKS)


def missing_mark(value: object) -> bool:
    """Whether `value` is one of `MISSING_MARKS` (spaces around it aside)."""
    return type(value) is str and _says_missing(value.strip())


#: An id masked as copies print it ("XXXX XXXX 9012", an e-KYC copy's Aadhaar
#: number; "850307-1******", a Korean resident number's back digits withheld):
#: digits, separators and a run of four or more mask characters, nothing else. The
#: number withheld, not another one: read as one, it contradicted its own identity's
#: (people-in R 0.9996 -> 0.9992), and a tenth of a column so written kept it from
#: reading as ids at all (people-kr). An X closing a code is a check character.
_MASKED = re.compile(r"^[\dXx*•#\s\-./]*[Xx*•#]{4,}[\dXx*•#\s\-./]*$")


def _says_missing(text: str) -> bool:
    """Whether a stripped cell is one of `MISSING_MARKS` (the length first: most cells
    are longer than any mark) or a masked id (`_MASKED`)."""
    if len(text) <= _LONGEST_MARK and text.casefold() in MISSING_MARKS:
        return True
    return ("*" in text or "X" in text or "x" in text) and _MASKED.match(text) is not None


def _text(value: object) -> str | None:
    if type(value) is str:  # nearly every cell: read ~250k times at 10k records
        text = value.strip()
        if _says_missing(text):
            return None
        return (whole_number(text) if "." in text else text) or None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | str):
        text = whole_number(str(value).strip())
        return text or None
    return None


_WHOLE_FLOAT = re.compile(r"(-?\d+)\.0+")


def whole_number(text: str) -> str:
    """ "19560409.0" as "19560409": a column of whole numbers with empty cells is
    written as floats (pandas, spreadsheets, JSON numbers), and its dates, id numbers
    and postcodes read as such would be phone numbers, or left out."""
    match = _WHOLE_FLOAT.fullmatch(text)
    return match.group(1) if match else text


def field_text(entity: Entity, key: str) -> str | None:
    """What an entity holds for a field (`NAME_FIELD`: its name), as detection and
    comparison read it; None when missing. A name that only repeats its record's key
    is no evidence of who the entity is."""
    if key == NAME_FIELD:
        return None if named_by_key(entity) else entity.name
    return _text(entity.properties.get(key))


def column_text(entities: Sequence[Entity], key: str) -> list[str]:
    """`field_text` of each entity, "" when missing: a whole column read at once
    (people-50k's columns are half a million cells, a function call each saved)."""
    if key == NAME_FIELD:
        return [field_text(entity, key) or "" for entity in entities]
    return [_text(entity.properties.get(key)) or "" for entity in entities]


def column_table(entities: Sequence[Entity], keys: Iterable[str]) -> dict[str, list[str]]:
    """`column_text` of each of `keys`, all read in one pass over the entities. A
    pass per key fetched every entity's properties from memory once per key: ten
    columns of people-50k's 50k entities took ~3x as long read that way."""
    wanted = list(dict.fromkeys(keys))
    table = {key: column_text(entities, key) for key in wanted if key == NAME_FIELD}
    properties = [key for key in wanted if key != NAME_FIELD]
    cells: list[list[str]] = [[] for _ in properties]
    for entity in entities:
        held = entity.properties
        for key, column in zip(properties, cells, strict=True):
            column.append(_text(held.get(key)) or "")
    table.update(zip(properties, cells, strict=True))
    return table


def _values(entities: Sequence[Entity], key: str) -> list[str]:
    out = []
    for entity in entities:
        text = field_text(entity, key)
        if text:
            out.append(text)
    return out


def _share(
    values: Sequence[str], test: Callable[[str], object], counts: Counter[str] | None = None
) -> float:
    """Share of `values` passing `test`, each distinct value tested once (towns,
    dates and names repeat: detection took a third of a 5k-record consolidate).
    `counts`, `values` counted, when the caller asks several tests of them."""
    if not values:
        return 0.0
    counted = Counter(values) if counts is None else counts
    return sum(n for v, n in counted.items() if test(v)) / len(values)


def _hint(key: str, hints: Sequence[str]) -> bool:
    lowered = key.lower()
    return any(h in lowered for h in hints)


def column_words(key: str) -> set[str]:
    """The lower-case words of a column's name ("Street_Number" -> street, number), a
    Cyrillic or Greek one in Latin letters ("Телефон" -> telefon), as the word lists
    below spell them."""
    return {p for p in re.split(r"[^a-z]+", latin(key.lower())) if p}


def _named(key: str, words: Sequence[str]) -> bool:
    """Whether a column's name holds one of `words` as a word of its own, or ends in
    one ("hometown", "BirthPlace"): "ort" must not match "report". A word in a script
    written without spaces (住所, 電話) counts anywhere in the name: "現住所"."""
    if any(w in key for w in words if not w.isascii()):
        return True
    return any(p == w or (len(w) >= 4 and p.endswith(w)) for p in column_words(key) for w in words)


def name_part(column: str) -> str | None:
    """The part of a name ("given", "middle", "family") a column's name says it holds.

    Read by record import to build a name from split columns when a file has no name
    column: the values alone cannot say which part comes first. A name that says two
    parts ("first_and_surname") holds a whole name, none of them.
    """
    folded = latin(column.lower())
    words = column_words(folded)
    found: list[tuple[int, int, str]] = []  # (start, end, part) in `folded`
    for part, hints in _NAME_PART_HINTS.items():
        for hint in hints:
            if len(hint) <= 3:
                if hint in words:
                    start = folded.find(hint)
                    found.append((start, start + len(hint), part))
            elif (start := folded.find(hint)) >= 0:
                found.append((start, start + len(hint), part))
    # A hint inside a longer one is that word's ("nome" in "cognome"), not a part.
    kept = {
        part
        for start, end, part in found
        if not any(s <= start and end <= e and e - s > end - start for s, e, _ in found)
    }
    return kept.pop() if len(kept) == 1 else None  # "first_and_surname": a whole name


def _int_range(values: Sequence[str]) -> tuple[int, int] | None:
    if not values or _share(values, _INTEGER.match) < 0.98:
        return None
    numbers = [int(v) for v in values if _INTEGER.match(v)]
    return min(numbers), max(numbers)


def _median_int(values: Sequence[str]) -> float:
    numbers = sorted(int(v) for v in values if _INTEGER.match(v))
    return float(numbers[len(numbers) // 2]) if numbers else 0.0


def _given_share(values: Sequence[str]) -> float:
    """Share of values whose first token is a known given name or nickname form.
    A full name counts as its short forms do: a column of "Thomas", "John" and
    "Margaret" under a header that says nothing had read 17% given names (only
    "Fred", "Kate", "Georgie" counted) and was compared as surnames."""
    known = 0
    for v in values:
        tokens = raw_tokens(v)
        if tokens and known_given_name(tokens[0]):
            known += 1
    return known / len(values) if values else 0.0


#: Separators of several values in one cell, most specific first. A comma also
#: separates a family name from a given name and an address's parts, so it counts
#: only under `list_separator`'s stricter test.
LIST_SEPARATORS = ("**", "|", ";", ",")
#: Share of a property's values holding the separator for it to be a list.
LIST_SHARE = 0.3


def list_separator(values: Sequence[str]) -> str | None:
    """The separator that makes `values` lists of several values per cell, if any.

    Co-authors, tags or class codes come joined in one cell ("A61N**A61B"). A
    separator counts when it appears in at least `LIST_SHARE` of the values; a comma
    only in most of them, between three or more short, digit-free items on average
    (so neither "Smith, John" nor "1 Main St, Springfield" is a list).
    """
    if not values:
        return None
    for separator in LIST_SEPARATORS:
        holding = [v for v in values if separator in v]
        if separator != ",":
            if len(holding) >= LIST_SHARE * len(values):
                return separator
            continue
        if len(holding) < 0.5 * len(values):
            continue
        items = [i.strip() for v in holding for i in v.split(separator) if i.strip()]
        short = _share(items, lambda i: len(i.split()) <= 3 and not any(c.isdigit() for c in i))
        if len(items) >= 2.5 * len(holding) and short >= SHAPE_SHARE:
            return separator
    return None


#: Share of distinct first parts among two-part codes at most which they are a
#: postcode's areas (`_areas_repeat`); a UK roll of 5,000 people: ~0.3.
AREA_SHARE = 0.5


def _areas_repeat(values: Sequence[str]) -> bool:
    """Whether most values are two-part codes ("NW9 9HA", "K1A 0B1") whose first
    parts repeat (`AREA_SHARE`). A part of digits before one of letters alone
    ("12 Elm") is a house number and a street."""
    areas = []
    for value in values:
        parts = re.split(r"[ \-]", value, maxsplit=1)
        if len(parts) == 2 and (not parts[0].isdigit() or any(c.isdigit() for c in parts[1])):
            areas.append(parts[0].upper())
    return len(areas) >= SHAPE_SHARE * len(values) and len(set(areas)) <= AREA_SHARE * len(areas)


def _is_date(value: str) -> bool:
    return parse_date(value) is not None


def _detect_one(key: str, values: Sequence[str], entity_kind: str) -> tuple[FieldKind, str]:
    """The kind of one property from its sampled non-empty values, with the reason."""
    separator = list_separator(values) if key != NAME_FIELD else None
    if separator is not None:
        return FieldKind.LIST, f"several values in one cell, separated by {separator!r}"
    counts = Counter(values)
    distinct = len(counts)
    ratio = distinct / len(values)
    # A generational suffix is no word of the name: "Tooth Jr" is a one-word surname.
    words = sum(
        n * sum(t.lower().strip(".") not in NAME_SUFFIXES for t in v.split())
        for v, n in counts.items()
    )
    mean_tokens = words / len(values)
    digit_share = _share(values, lambda v: any(c.isdigit() for c in v), counts)
    alpha_share = _share(values, lambda v: any(c.isalpha() for c in v), counts)
    if _share(values, _EMAIL.match, counts) >= SHAPE_SHARE:
        return FieldKind.EMAIL, "values look like e-mail addresses"
    if _share(values, _WEBSITE.match, counts) >= SHAPE_SHARE:
        return FieldKind.WEBSITE, "values look like web addresses"
    # A date holds its year's digits, so a column mostly without digits is no date.
    if digit_share >= SHAPE_SHARE and _share(values, _is_date, counts) >= SHAPE_SHARE:
        if alpha_share < 0.99:
            return FieldKind.DATE, "values parse as dates"
        return FieldKind.DATE, "values parse as written-out dates"
    postcode_shaped = (
        _share(values, lambda v: _POSTCODE.match(v) is not None, counts) >= SHAPE_SHARE
    )
    if (
        digit_share >= SHAPE_SHARE
        and (_hint(key, _POSTCODE_HINTS) or _named(key, _POSTCODE_WORDS))
        and (
            postcode_shaped
            or _share(values, lambda v: _DIGIT_POSTCODE.match(v) is not None, counts) >= SHAPE_SHARE
        )
    ):
        # Digits alone ("2600", "90210") look like a year or any code; the name tells.
        return FieldKind.POSTCODE, "short codes in a column named for postcodes"
    span = _int_range(values)
    if (
        span is None
        and _share(
            values,
            lambda v: _AMOUNT.match(v) is not None and _BARE_CODE.match(v) is None,
            counts,
        )
        >= SHAPE_SHARE
    ):
        # Two listings of one thing differ in price by a few percent; no level here
        # compares numbers by how far apart they are.
        return FieldKind.IGNORE, "amounts with decimals (prices, measures)"
    if (
        span is None
        and distinct > 12
        and (_named(key, _ID_WORDS) or _named(key, _NATIONAL_ID_WORDS))
        and _share(values, _BARE_CODE.match, counts) >= SHAPE_SHARE
    ):
        # A national id ending in a check character ("11010119491001007X", a Spanish
        # DNI's "12345678Z"): integers but for the letter, each holder's own.
        return FieldKind.IDENTIFIER, "long codes, a check letter at most, in a column named for ids"
    if span is not None and span[0] >= 0 and span[1] <= 130 and _named(key, _AGE_WORDS):
        # Snapshots of a roll age a voter two years apart; a father and his son of
        # one name are a generation apart: years apart tell them, a category cannot.
        return FieldKind.YEAR, "ages in a column named for them, compared by years apart"
    if span is not None and 31 < span[1] <= 2200 and _median_int(values) >= 1000:
        return FieldKind.YEAR, f"integers in {span[0]}..{span[1]}, most of them four-digit"
    phone_like = _share(
        values,
        lambda v: _PHONE_CHARS.match(v) is not None and 7 <= sum(c.isdigit() for c in v) <= 15,
    )
    if (
        phone_like >= SHAPE_SHARE
        and _named(key, _NATIONAL_ID_WORDS)
        and not _named(key, _PHONE_WORDS)
    ):
        # "394-54-3320" in a column named "ssn" is one person's number, not a line a
        # household shares: an id, whose agreement can vouch for a renamed copy.
        return FieldKind.IDENTIFIER, "phone-shaped numbers in a column named for ids"
    if phone_like >= SHAPE_SHARE and _share(values, lambda v: not v.isdigit(), counts) >= 0.5:
        return FieldKind.PHONE, "digits with phone separators, 7 to 15 digits"
    if phone_like >= SHAPE_SHARE and _named(key, _PHONE_WORDS):
        # A voter roll writes "9195551234": a household's shared line, not an id.
        return FieldKind.PHONE, "digit strings of phone length in a column named for phones"
    if postcode_shaped and digit_share >= SHAPE_SHARE and alpha_share >= 0.5:
        if ratio < 0.9:
            return FieldKind.POSTCODE, "short letter-and-digit codes that repeat"
        if _areas_repeat(values):
            # A file with few duplicates holds each code about once ("NW9 9HA"):
            # a postcode's area ("NW9") still repeats, a record's own code does not.
            return FieldKind.POSTCODE, "two-part letter-and-digit codes whose first part repeats"
    if span is not None and span[1] > 31:
        # Integers: a code is written at one length ("00412", "62012"), a count or a
        # house number at any ("7", "212", "1500").
        width, at_width = Counter(len(v) for v in values).most_common(1)[0]
        if at_width < CODE_WIDTH_SHARE * len(values):
            long = sorted(len(v) for v in values)[len(values) // 2] >= ID_MIN_DIGITS
            if long and ratio >= 0.3 and _named(key, _ID_WORDS):
                # A spreadsheet drops a code's leading zeros ("05443557" -> 5443557).
                return FieldKind.IDENTIFIER, "long distinct numbers in a column named for ids"
            return FieldKind.IGNORE, "integers of varying length (counts, house numbers)"
        if distinct > 12 and width >= ID_MIN_DIGITS and _named(key, _ID_WORDS):
            # "company_number", "00412773": each firm's own, however many of its
            # listings repeat it (a category there lost a third of the pairs).
            return FieldKind.IDENTIFIER, "long codes of one length in a column named for ids"
        if distinct <= 12 or ratio <= 0.05:
            return FieldKind.CATEGORY, f"{distinct} distinct codes of one length"
    if _digit_codes(values, counts, digit_share) and ratio >= MOSTLY_DISTINCT:
        return FieldKind.IDENTIFIER, "codes with digits, whole or in groups, mostly distinct"
    if phone_like >= SHAPE_SHARE:
        return FieldKind.PHONE, "digit strings of phone length"
    if span is not None:
        return FieldKind.IGNORE, "small integers that are not a date part"
    if mean_tokens > 8:
        if mean_tokens <= TEXT_MAX_WORDS or key == NAME_FIELD:
            return FieldKind.TEXT, f"titles or short texts ({mean_tokens:.0f} words on average)"
        return FieldKind.FREE_TEXT, f"long text ({mean_tokens:.0f} words on average)"
    if key != NAME_FIELD and digit_share >= 0.5 and mean_tokens >= 2 and alpha_share >= SHAPE_SHARE:
        # The entity's own name with digits is a product's or a paper's title.
        return FieldKind.ADDRESS, "words with house numbers"
    streets = _share(values, names_a_street, counts)
    if key != NAME_FIELD and streets >= STREET_SHARE:
        return FieldKind.ADDRESS, f"street names ({streets:.0%} name a street type)"
    addressed = streets >= STREET_SHARE and digit_share >= 0.5
    if key == NAME_FIELD and entity_kind == "other" and addressed:
        # A property named by its address ("Flat 2, 182 Mill Road").
        return FieldKind.ADDRESS, f"addresses ({streets:.0%} name a street type)"
    if key != NAME_FIELD and len(values) >= 50 and (ratio <= 0.05 or distinct <= 12):
        return FieldKind.CATEGORY, f"{distinct} distinct values"
    if key != NAME_FIELD and len(values) >= 50 and _categorical(key, values):
        return FieldKind.CATEGORY, f"{distinct} distinct values; the column name says a class"
    if alpha_share < SHAPE_SHARE:
        return FieldKind.IGNORE, "mostly without letters"
    return _name_kind(key, values, entity_kind, mean_tokens)


def _categorical(key: str, values: Sequence[str]) -> bool:
    """Whether a column of many distinct values still names classes ("politician",
    "cricketer"): its name says so and its commonest values fill much of it."""
    if name_part(key) is not None or not _named(key, _CLASS_WORDS):
        return False
    top = sum(n for _, n in Counter(values).most_common(10))
    return top >= CATEGORY_TOP_SHARE * len(values)


#: Legal forms that make a thing's own name a firm's (`LEGAL_FORMS` without "the").
_FIRM_FORMS = LEGAL_FORMS - {"the"}


def _name_kind(
    key: str, values: Sequence[str], entity_kind: str, mean_tokens: float
) -> tuple[FieldKind, str]:
    if key != NAME_FIELD and _named(key, _ADDRESS_WORDS):
        return FieldKind.ADDRESS, "words in a column named for addresses"
    if key != NAME_FIELD and _named(key, _PLACE_WORDS):
        return FieldKind.LOCALITY, "names in a column named for places"
    if (
        key != NAME_FIELD
        and entity_kind == "person"
        and (_named(key, _PERSON_NAME_WORDS) or _hint(key, _RELATIVE_WORDS))
    ):
        return FieldKind.PERSON_NAME, "names in a column named for a person's name or its reading"
    single = mean_tokens < 1.6
    part = name_part(key)
    if single and part in ("given", "middle"):
        return FieldKind.GIVEN_NAME, "one-word names; the column name says given/middle name"
    if single and part == "family":
        return FieldKind.FAMILY_NAME, "one-word names; the column name says family name"
    # "The" begins a title as often as a firm's name: the own name of a thing neither
    # person nor organisation (a film, a song) needs a true legal form to be a firm's.
    forms = _FIRM_FORMS if key == NAME_FIELD and entity_kind == "other" else LEGAL_FORMS
    legal = _share(values, lambda v: any(t in forms for t in raw_tokens(v)))
    if legal >= 0.2 or (entity_kind == "organization" and key == NAME_FIELD):
        return FieldKind.ORGANISATION_NAME, "names with legal forms"
    given = _given_share(values)
    if mean_tokens < 1.3 and given >= 0.5:
        return FieldKind.GIVEN_NAME, f"{given:.0%} are known given names"
    # Another column of a person record ("employer", an address supplement) holds
    # names of people only when they start as people's names do.
    if mean_tokens >= 1.6 and (given >= 0.3 or (entity_kind == "person" and key == NAME_FIELD)):
        return FieldKind.PERSON_NAME, f"multi-word names, {given:.0%} start with a given name"
    if key == NAME_FIELD and entity_kind == "person":
        return FieldKind.PERSON_NAME, "the name of a person entity"
    if key == NAME_FIELD and entity_kind == "other" and mean_tokens >= TITLE_MIN_WORDS:
        # A product's or a work's title: one brand or one first word begins many
        # titles, which Jaro-Winkler (a prefix measure) reads as alike; a title is
        # compared by its words, and one sharing too few keeps a pair apart.
        return FieldKind.TEXT, f"titles ({mean_tokens:.1f} words on average)"
    if key == NAME_FIELD:
        return FieldKind.NAME, "the entity's name"
    if mean_tokens < 1.3:
        return FieldKind.FAMILY_NAME if entity_kind == "person" else FieldKind.NAME, (
            "single-word names"
        )
    return FieldKind.LOCALITY, "short multi-word names (places, districts)"


def detect_fields(
    entities: Sequence[Entity],
    overrides: Mapping[str, str] | None = None,
) -> FieldReport:
    """The fields to compare for `entities` (one entity type), detected from their values.

    `overrides` maps a property (or "name" for the entity name) to a kind name, or
    to "ignore"; properties these entities lack are skipped (another type may have
    them). Raises `InvalidInputError` for an unknown kind.
    """
    report = FieldReport()
    if not entities:
        return report
    entity_kind = type_kind(entities[0].entity_type)
    held: set[str] = set()
    for entity in entities:
        held.update(entity.properties)
    report.cells = column_table(entities, sorted(held))
    counts: Counter[str] = Counter(
        {key: n for key, cells in report.cells.items() if (n := len(cells) - cells.count(""))}
    )
    for key in sorted(held - set(counts)):
        # Said, not silently dropped: a column of "N/A" holds nothing to compare.
        if any(missing_mark(entity.properties.get(key)) for entity in entities):
            report.left_out[key] = 'every value says it is missing (as "N/A" or "unknown" do)'
    keys = [NAME_FIELD, *sorted(counts)]
    head = list(entities[:SAMPLE])
    forced = _parse_overrides(overrides or {}, set(keys))
    kinds: dict[str, tuple[FieldKind, str]] = {}
    for key in keys:
        coverage = 1.0 if key == NAME_FIELD else counts[key] / len(entities)
        if key in forced:
            kinds[key] = (forced[key], "set by the user")
            continue
        if coverage < MIN_COVERAGE:
            report.left_out[key] = f"present on {coverage:.1%} of records"
            continue
        values = _values(head, key) or _values(entities, key)
        if not values:
            # Every record named only by its key (`named_by_key`): no name to compare.
            report.left_out[key] = "no record has a name of its own (each is named by its key)"
            continue
        kinds[key] = _detect_one(key, values, entity_kind)
    _codes_of_one_name(head, kinds, forced)
    _join_split_dates(entities, kinds, forced, report)
    _join_coordinates(entities, kinds, forced, report)
    _join_house_numbers(entities, kinds, forced, report)
    composites = [k for k in kinds if k not in forced]
    remainders = _drop_composite_names(head, kinds, forced, report)
    for key in composites:
        if key not in kinds and ("name" if key == NAME_FIELD else key) in report.left_out:
            _parts_from_whole(entities, key, report, kinds)
    for key in keys:
        if key not in kinds:
            continue
        kind, reason = kinds[key]
        if kind in UNUSED_KINDS:
            report.left_out[key] = f"{kind.value}: {reason}"
            continue
        report.used.append(FieldSpec(name=key, kind=kind, sources=(key,), reason=reason))
    report.used.extend(remainders)
    return report


#: Share of the pairs of records holding one repeated code that also hold one name
#: for the code to be each entity's own (`_codes_of_one_name`).
ONE_NAME_SHARE = 0.3
#: Distinct values per value for a column of codes to be ids on its values alone.
MOSTLY_DISTINCT = 0.3


def _digit_codes(values: Sequence[str], counts: Counter[str], digit_share: float) -> bool:
    """Whether `values` (`digit_share` of them holding a digit) are mostly codes of
    four or more characters with digits, whole or in short groups
    (`_grouped_code`): ids when mostly distinct (`_detect_one`), or when repeated
    by copies of one name (`_codes_of_one_name`)."""
    return (
        digit_share >= SHAPE_SHARE
        and _share(
            values,
            lambda v: (_CODE.match(v) is not None or _grouped_code(v)) and len(v) >= 4,
            counts,
        )
        >= SHAPE_SHARE
    )


#: A group of a code written in groups ("CL 41 88 77 B", an IBAN's "GB29 NWBK").
_CODE_GROUP = re.compile(r"^[A-Za-z0-9]{1,4}$")


def _grouped_code(value: str) -> bool:
    """Whether `value` is one code written in short groups, as national insurance
    numbers and account numbers are ("CL 41 88 77 B"): every group four characters
    at most and digits at least half of them, which a street ("12 Elm St") or a
    postcode ("BB7 4QQ") is not. Compared without the spaces, it is the code its
    copies write whole ("CL418877B"); counted as a place name, one copy in five so
    written kept a 200-record file's national ids from being read as ids."""
    groups = value.split()
    if len(groups) < 2 or not all(_CODE_GROUP.match(g) for g in groups):
        return False
    return 2 * sum(c.isdigit() for c in value) >= sum(len(g) for g in groups)


#: What a column of repeated codes falls through to when the id rule refuses it: a
#: name (one word) or a class. A phone or a postcode is read by its own shape.
_CODES_MISREAD_AS = frozenset(
    {
        FieldKind.FAMILY_NAME,
        FieldKind.GIVEN_NAME,
        FieldKind.NAME,
        FieldKind.LOCALITY,
        FieldKind.CATEGORY,
    }
)


def _codes_of_one_name(
    entities: Sequence[Entity],
    kinds: dict[str, tuple[FieldKind, str]],
    forced: Mapping[str, FieldKind],
) -> None:
    """Codes with digits that repeat, read as ids where the records holding one code
    mostly hold one name: a person's copies repeat their id number ("X9892593" in
    ten copies), a household's or a firm's members, sharing a code, do not share a
    name. The id rule wants codes mostly distinct, and a file of five or more
    copies per person holds each id five times: its id column fell through to
    "single-word names" and was compared as a family name."""
    for key, (kind, _) in list(kinds.items()):
        if key in forced or key == NAME_FIELD or kind not in _CODES_MISREAD_AS:
            continue
        held = [(entity, text) for entity in entities if (text := field_text(entity, key))]
        values = [text for _, text in held]
        counts = Counter(values)
        digits = _share(values, lambda v: any(c.isdigit() for c in v), counts)
        if not (
            12 < len(counts) < MOSTLY_DISTINCT * len(values)
            and _digit_codes(values, counts, digits)
        ):
            continue
        holders: dict[str, list[str]] = {}
        for entity, text in held:
            holders.setdefault(text, []).append(normalize_name(entity.name))
        pairs = same = 0
        for group in holders.values():
            pairs += len(group) * (len(group) - 1) // 2
            same += sum(n * (n - 1) // 2 for n in Counter(group).values())
        if pairs and same >= ONE_NAME_SHARE * pairs:
            kinds[key] = (
                FieldKind.IDENTIFIER,
                f"codes with digits, repeated, {same / pairs:.0%} of each code's holders "
                "sharing a name: one entity's copies",
            )


#: Share of records in which a full name holds the name parts' values for it to be
#: a composite of them: counting it beside them would count one agreement twice.
COMPOSITE_SHARE = 0.6


def _drop_composite_names(
    entities: Sequence[Entity],
    kinds: dict[str, tuple[FieldKind, str]],
    forced: Mapping[str, FieldKind],
    report: FieldReport,
) -> list[FieldSpec]:
    """Leave out a full-name field that only repeats the given- and family-name fields.

    Fellegi-Sunter multiplies fields' evidence as if independent; "first_and_surname"
    beside "first_name" and "surname" would count one name agreement two or three times.
    Returns the field of the first such name's words beyond the parts (one: two
    composites' remainders would count those words twice), when enough records have some.
    """
    parts = [
        k for k, (kind, _) in kinds.items() if kind in (FieldKind.GIVEN_NAME, FieldKind.FAMILY_NAME)
    ]
    if len(parts) < 2:
        return []
    remainders: list[FieldSpec] = []
    composites = [
        k
        for k, (kind, _) in kinds.items()
        if kind in (FieldKind.PERSON_NAME, FieldKind.NAME, FieldKind.LOCALITY) and k not in forced
    ]
    for key in composites:
        checked = held = rest = 0
        for entity in entities:
            whole = field_text(entity, key)
            values = [v for p in parts if (v := _text(entity.properties.get(p)))]
            if not whole or len(values) < 2:
                continue
            checked += 1
            tokens = set(raw_tokens(whole))
            if sum(1 for v in values if set(raw_tokens(v)) <= tokens) >= 2:
                held += 1
            if name_remainder(whole, values):
                rest += 1
        if checked and held / checked >= COMPOSITE_SHARE:
            del kinds[key]
            label = "name" if key == NAME_FIELD else key
            report.left_out[label] = (
                f"holds two of {', '.join(parts)} in {held / checked:.0%} of records "
                "(counted once, through them)"
            )
            if not remainders and rest / checked >= REMAINDER_SHARE:
                remainders.append(
                    FieldSpec(
                        name=f"{label} beyond its parts",
                        kind=FieldKind.PERSON_NAME,
                        sources=(key, *parts),
                        reason=(
                            f"words of {label} not in {', '.join(parts)}, in "
                            f"{rest / checked:.0%} of records (middle names, titles)"
                        ),
                    )
                )
    return remainders


#: Share of the named records missing a name part that must miss the other too
#: for the parts to be read from the whole name (`_parts_from_whole`): a file that
#: writes no parts, not cells left blank one by one (40% blank each: 40% together).
TOGETHER = 0.8


def _parts_from_whole(
    entities: Sequence[Entity], key: str, report: FieldReport, kinds: Iterable[str]
) -> None:
    """Where the whole name `key` was left out as repeating the given and family
    names, give the records that hold neither part the parts of their whole name
    (`split_whole_name`), in `report.cells`, which the comparisons read: a second
    system's file that writes "Joan Lidgett" in one cell, beside one that writes
    "Joan" and "Lidgett" in two, was compared with it on no name at all (contacts
    from two such files: F1 0.7271). Only where such records are
    `ALIGN_COVERAGE` of all and the two parts are missing together (`TOGETHER`);
    the stored records are untouched."""
    given = [k for k in report.cells if name_part(k) == "given"]
    family = [k for k in report.cells if name_part(k) == "family"]
    if len(given) != 1 or len(family) != 1:
        return
    first, last = report.cells[given[0]], report.cells[family[0]]
    wholes = column_text(entities, key)
    lone = [
        (row, whole)
        for row, whole in enumerate(wholes)
        if whole and not first[row] and not last[row]
    ]
    blank = max(
        sum(1 for row, whole in enumerate(wholes) if whole and not cells[row])
        for cells in (first, last)
    )
    # Parts a file does not write are missing together; cells left blank one by one
    # are missing together only by chance: there the whole name, mistyped apart from
    # its parts in a copy, would only add disagreements (people-parts-2k with 40% of
    # cells blank: R 0.8914 -> 0.8275 with them filled).
    if len(lone) < max(ALIGN_COVERAGE * len(entities), TOGETHER * blank):
        return
    # Records that write their whole name again in a column of its own (a second
    # system's "Full Name" property beside the name) are compared on it; parts read
    # from their name as well let EM learn from pairs whose parts and whole are one
    # text (people-parts so: m of a differing given name 0, R 0.987 -> 0.743).
    for other in kinds:
        cells = report.cells.get(other)
        if other != key and cells is not None:
            same = sum(1 for row, whole in lone if cells[row].casefold() == whole.casefold())
            if same * 2 > len(lone):
                return
    for row, whole in lone:
        first[row], last[row] = split_whole_name(whole)
    label = "name" if key == NAME_FIELD else key
    report.left_out[label] += (
        f"; its given and family names read as {given[0]} and {family[0]} where a "
        "record holds neither"
    )


#: A composite name's words beyond its parts are compared as a field of their own
#: when this share of records has some (a middle name, the real name behind a title
#: split into the parts: "Sir Frederick Shaw, 5th Baronet" as "Sir" + "Baronet").
REMAINDER_SHARE = 0.02


def name_remainder(whole: str, parts: Sequence[str]) -> str:
    """The words of `whole` that none of `parts` holds, in order."""
    used = {t for p in parts for t in raw_tokens(p)}
    return " ".join(t for t in raw_tokens(whole) if t not in used)


def _parse_overrides(overrides: Mapping[str, str], keys: set[str]) -> dict[str, FieldKind]:
    out: dict[str, FieldKind] = {}
    valid = ", ".join(k.value for k in FieldKind)
    for key, kind in overrides.items():
        prop = NAME_FIELD if key == "name" else key
        try:
            out[prop] = FieldKind(kind)
        except ValueError:
            raise InvalidInputError(
                f"--field {key}={kind}: unknown kind; use one of {valid}"
            ) from None
    # A property of another entity type: that type's detection applies it.
    return {k: v for k, v in out.items() if k in keys}


def _join_house_numbers(
    entities: Sequence[Entity],
    kinds: dict[str, tuple[FieldKind, str]],
    forced: Mapping[str, FieldKind],
    report: FieldReport,
) -> None:
    """A column of house numbers beside the one street column without them is one
    address: a number alone says little (every street has a 12), and the street
    alone misses the number that tells two homes on it apart."""
    streets = [
        k
        for k, (kind, _) in kinds.items()
        if kind is FieldKind.ADDRESS
        and k not in forced
        and _share(_values(entities[:SAMPLE], k), lambda v: any(c.isdigit() for c in v)) < 0.5
    ]
    numbers = [
        k
        for k, (kind, _) in kinds.items()
        if kind is FieldKind.IGNORE
        and k not in forced
        and _HOUSE_NUMBER_WORDS & column_words(k)
        and _share(_values(entities[:SAMPLE], k), lambda v: v[:1].isdigit()) >= SHAPE_SHARE
    ]
    if len(streets) > 1:  # a street and a building ("address_1", "address_2")
        streets = [
            k
            for k in streets
            if _share(_values(entities[:SAMPLE], k), names_a_street) >= STREET_SHARE
        ]
    if len(streets) != 1 or len(numbers) != 1:
        return
    number, street = numbers[0], streets[0]
    del kinds[number], kinds[street]
    report.used.append(
        FieldSpec(
            name=f"{number}+{street}",
            kind=FieldKind.ADDRESS,
            sources=(number, street),
            reason=f"house numbers in {number}, the street in {street}",
        )
    )


def _join_coordinates(
    entities: Sequence[Entity],
    kinds: dict[str, tuple[FieldKind, str]],
    forced: Mapping[str, FieldKind],
    report: FieldReport,
) -> None:
    """A latitude and a longitude column are one place on the map, compared by the
    distance between two records' points: alone each is a number a namesake town
    two countries away can share to a degree."""

    def numbers(key: str, bound: float) -> bool:
        values = _values(entities[:SAMPLE], key)
        return bool(values) and _share(values, lambda v: _within(v, bound)) >= SHAPE_SHARE

    open_keys = [
        k for k, (kind, _) in kinds.items() if kind is FieldKind.IGNORE and k not in forced
    ]
    lats = [k for k in open_keys if _named(k, _LATITUDE_WORDS) and numbers(k, 90.0)]
    lons = [k for k in open_keys if _named(k, _LONGITUDE_WORDS) and numbers(k, 180.0)]
    if len(lats) != 1 or len(lons) != 1:
        return
    lat, lon = lats[0], lons[0]
    kinds.pop(lat)
    kinds.pop(lon)
    report.used.append(
        FieldSpec(
            name=f"{lat}+{lon}",
            kind=FieldKind.COORDINATES,
            sources=(lat, lon),
            reason=f"a point on the map: latitude {lat}, longitude {lon}",
        )
    )


def _within(value: str, bound: float) -> bool:
    try:
        number = float(value)
    except ValueError:
        return False
    return -bound <= number <= bound


def _join_split_dates(
    entities: Sequence[Entity],
    kinds: dict[str, tuple[FieldKind, str]],
    forced: Mapping[str, FieldKind],
    report: FieldReport,
) -> None:
    """A year column and two small-integer columns (1..31 and 1..12) are one date.

    Days reach past 12 and months never do, so the values tell them apart; the
    column names only break a tie when both stay within 1..12.
    """
    years = [k for k, (kind, _) in kinds.items() if kind is FieldKind.YEAR and k not in forced]
    small: dict[str, tuple[int, int]] = {}
    for key, (kind, _) in kinds.items():
        if kind is not FieldKind.IGNORE or key in forced:
            continue
        span = _int_range(_values(entities[:SAMPLE], key))
        if span is not None and span[0] >= 1 and span[1] <= 31:
            small[key] = span
    if len(years) != 1 or len(small) < 2:
        return
    days = [k for k, (_, hi) in small.items() if hi > 12]
    months = [k for k, (_, hi) in small.items() if hi <= 12]
    if len(days) != 1 or len(months) != 1:
        days = [k for k in small if _hint(k, _DAY_HINTS)]
        months = [k for k in small if _hint(k, _MONTH_HINTS)]
    if len(days) != 1 or len(months) != 1:
        return
    year, day, month = years[0], days[0], months[0]
    for key in (year, day, month):
        kinds.pop(key)
    name = f"{year}+{month}+{day}"
    report.used.append(
        FieldSpec(
            name=name,
            kind=FieldKind.DATE,
            sources=(day, month, year),
            reason=f"a date split over {day} (1..31), {month} (1..12) and {year}",
        )
    )


#: Two properties held together by at most this share of the records holding the
#: rarer one are apart: one field, written under two names by two sources
#: (`align_sources`). Not zero: a source may hold a stray row of the other's shape.
APART_SHARE = 0.01
#: Two apart properties whose sampled distinct values share at least this share of
#: the smaller set's are one field even where their kinds were read apart: under a
#: header that says nothing ("c7") a column of first names or of trades may read as
#: family names (half of people-us-10k so: R 0.9555 -> 0.9970).
SHARED_VALUES = 0.5
#: Share of the records each of two apart properties must be held by to be aligned:
#: a column a handful of rows hold says too little to name another's twin.
ALIGN_COVERAGE = 0.01


def _numbers_records(values: Sequence[str]) -> bool:
    """Whether no two of a column's values are alike: it numbers the records, not
    what they describe. Two files numbering theirs alike ("C00017" in each) would
    agree across two people, so such columns are never aligned (two halves of
    contacts so: R 0.9978 -> 0.3632); a person's copies share a national id, a
    phone, a birth date."""
    return len(values) > 1 and len({v.casefold() for v in values}) == len(values)


def _worded(key: str) -> bool:
    """Whether a column's name holds a word (three letters or more), not only a
    code: "first_name", not "c7"."""
    return any(len(word) >= 3 for word in column_words(key))


def align_sources(
    entities: Sequence[Entity], overrides: Mapping[str, str] | None = None
) -> tuple[Sequence[Entity], dict[str, str]]:
    """`entities` with each property another source wrote under another name renamed
    to the name kept for both, and which were renamed (name -> the one kept).

    Two files of one type ingested into one workspace ("given_name" in one, "first"
    in the other) held their names, dates and towns under different properties: each
    pair across the files shared no field, and nothing linked them (two halves of
    people-parts-5k, their columns renamed in one: recall 0.49). Two properties are
    one field where no record holds both (`APART_SHARE`) and their values are of one
    kind (`_detect_one`; small integers alike only for the same reason, as a split
    date's parts are) or whose values mostly overlap (`SHARED_VALUES`); among
    several such candidates, the pair whose values overlap most and whose names
    share the most words is aligned first, so "birth_month" meets "month_of_birth",
    not "day_of_birth". The name kept is one of words over a code, then the one
    more records hold. A property the user set a kind for, or one whose values no
    two records share (a file's own record numbers), is never renamed. Returns
    `entities` itself where nothing is renamed (a file of one source)."""
    n = len(entities)
    forced = {NAME_FIELD if k == "name" else k for k in (overrides or {})}
    # Each distinct set of properties held, counted: a file of one source has a few.
    shapes: Counter[frozenset[str]] = Counter(frozenset(e.properties) for e in entities)
    holders: Counter[str] = Counter()
    for shape, count in shapes.items():
        for key in shape:
            holders[key] += count
    keys = sorted(k for k, c in holders.items() if c >= ALIGN_COVERAGE * n and k not in forced)
    import numpy as np  # here: `ingest` reads name parts from this module without numpy

    # Records holding both of each two keys, over the shapes at once: a sparse export
    # has as many shapes as records.
    held = np.asarray([[key in shape for key in keys] for shape in shapes], dtype=np.float64)
    counts = np.fromiter(shapes.values(), dtype=np.float64, count=len(shapes))
    together = (held * counts[:, None]).T @ held if len(keys) else np.zeros((0, 0))
    apart = [
        (a, b)
        for i, a in enumerate(keys)
        for j, b in enumerate(keys[i + 1 :], start=i + 1)
        if together[i, j] <= APART_SHARE * min(holders[a], holders[b])
    ]
    if not apart:
        return entities, {}
    entity_kind = type_kind(entities[0].entity_type)
    kinds: dict[str, tuple[FieldKind, str]] = {}
    seen: dict[str, set[str]] = {}
    own: set[str] = set()
    for key in dict.fromkeys(k for pair in apart for k in pair):
        values = _values(entities, key)[:SAMPLE]
        kinds[key] = _detect_one(key, values, entity_kind) if values else (FieldKind.IGNORE, "")
        seen[key] = {v.casefold() for v in values}
        if _numbers_records(values):
            own.add(key)

    def alike(a: str, b: str) -> bool:
        if a in own or b in own:
            return False
        (one, why_one), (two, why_two) = kinds[a], kinds[b]
        if one is two and (one is not FieldKind.IGNORE or (why_one == why_two != "")):
            return True
        shared = len(seen[a] & seen[b]) >= SHARED_VALUES * min(len(seen[a]), len(seen[b]))
        return shared and FieldKind.IGNORE not in (one, two)

    def overlap(a: str, b: str) -> tuple[float, str, str]:
        values = len(seen[a] & seen[b]) / max(len(seen[a] | seen[b]), 1)
        words_a, words_b = column_words(a), column_words(b)
        words = len(words_a & words_b) / max(len(words_a | words_b), 1)
        return values + words, a, b

    apart_set = set(apart)
    groups: dict[str, tuple[str, ...]] = {}
    for a, b in sorted(
        (pair for pair in apart if alike(*pair)), key=lambda p: overlap(*p), reverse=True
    ):
        one, two = groups.get(a, (a,)), groups.get(b, (b,))
        if one is two or not all(
            (min(x, y), max(x, y)) in apart_set and alike(x, y) for x in one for y in two
        ):
            continue
        for key in (merged := one + two):
            groups[key] = merged
    renamed = {}
    for members in set(groups.values()):
        # A name of words over a code ("first_name" over "c7"): detection reads the
        # joined column's kind by its name's words too.
        used = min(members, key=lambda k: (not _worded(k), -holders[k], k))
        renamed.update({k: used for k in members if k != used})
    if not renamed:
        return entities, {}
    out: list[Entity] = []
    for entity in entities:
        if renamed.keys().isdisjoint(entity.properties):
            out.append(entity)
            continue
        properties = dict(entity.properties)
        for key, used in renamed.items():
            if key in properties:
                value = properties.pop(key)
                properties.setdefault(used, value)
        out.append(entity.model_copy(update={"properties": properties}))
    return out, renamed


#: Kinds whose fields `align_fields` may join: a value read the same whichever
#: columns it came from. Not names (the entity's own name already meets across files;
#: name parts pair with each other), lists, texts or coordinates.
ALIGNED_KINDS = frozenset(
    {
        FieldKind.DATE,
        FieldKind.YEAR,
        FieldKind.ADDRESS,
        FieldKind.POSTCODE,
        FieldKind.PHONE,
        FieldKind.EMAIL,
        FieldKind.WEBSITE,
        FieldKind.IDENTIFIER,
        FieldKind.LOCALITY,
        FieldKind.CATEGORY,
    }
)


def align_fields(report: FieldReport) -> None:
    """Join two used fields of one kind that no record holds both of, in place: the
    same field as two systems shape it, which `align_sources` could not pair column
    by column -- a birth date split over three columns in one file and written whole
    in the other (`birth_year+birth_month+birth_day` and `Date of Birth`). The field
    more records hold reads the other where its own cells are blank. Runs on the
    fields detected, so only after `align_sources`."""
    import numpy as np  # here: `ingest` reads name parts from this module without numpy

    kinds = Counter(spec.kind for spec in report.used if spec.kind in ALIGNED_KINDS)
    # Only a kind two fields share can join (people-50k: its two categories).
    paired = [spec for spec in report.used if kinds[spec.kind] > 1]
    held: dict[str, npt.NDArray[np.bool_]] = {}
    for spec in paired:
        cells = [np.asarray(report.cells.get(source, ()), dtype=object) for source in spec.sources]
        held[spec.name] = np.logical_or.reduce([column != "" for column in cells])

    def numbers_records(spec: FieldSpec) -> bool:
        rows = np.flatnonzero(held[spec.name])
        cells = [report.cells.get(source, ()) for source in spec.sources]
        return _numbers_records(["\x1f".join(c[row] for c in cells) for row in rows])

    joined: dict[str, FieldSpec] = {}
    for a, b in itertools.combinations(paired, 2):
        if a.kind is not b.kind or a.name in joined or b.name in joined:
            continue
        one, two = int(held[a.name].sum()), int(held[b.name].sum())
        both = int((held[a.name] & held[b.name]).sum())
        if not one or not two or both > APART_SHARE * min(one, two):
            continue
        if numbers_records(a) or numbers_records(b):
            continue
        kept, other = (a, b) if (one, b.name) >= (two, a.name) else (b, a)
        joined[other.name] = joined[kept.name] = FieldSpec(
            name=f"{kept.name} | {other.name}",
            kind=kept.kind,
            sources=kept.sources,
            reason=f"{kept.reason}; where blank, {other.name}, held by no record that holds it",
            either=(other,),
        )
    if not joined:
        return
    used: list[FieldSpec] = []
    for spec in report.used:
        spec = joined.get(spec.name, spec)
        if spec not in used:
            used.append(spec)
    report.used[:] = used
