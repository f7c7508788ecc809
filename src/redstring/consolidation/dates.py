"""Dates in the formats people write them, to one comparable integer.

A date becomes `year * 10000 + month * 100 + day`, with 0 for a part the text does
not give ("March 1901" -> 19010300), so equality means "the same date at the same
precision" and the parts stay recoverable for day/month transposition checks.
Ambiguous numeric dates (03/04/1901) are read day first; the comparison treats a
day/month swap as its own level, so reading them the other way round loses nothing.
"""

from __future__ import annotations

import re
import unicodedata

from redstring.domain.normalization import without_accents

#: Month names and their common abbreviations, to month numbers (English: what a
#: date mentioned in text is read by, `values`).
MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip
#: ... and in French, German, Spanish, Italian, Dutch, Portuguese, Russian (the
#: genitive a date writes: "7 марта 1985 г."), Ukrainian, Polish, Turkish and the
#: Scandinavian languages, without accents (a date is read with its accents folded:
#: "février", "März", "março", "май" as "маи"),
#: for a record's date field: a contact export writes birth dates in its user's
#: language, and read in English only, such a column was left out as "mostly
#: without letters", and with it the best field there was. Not for text, where
#: "Mars", "Set" or "Out" are no months.
RECORD_MONTHS = MONTHS | {
    name: number
    for number, names in enumerate(
        (
            ("janvier", "janv", "januar", "janner", "enero", "ene", "gennaio", "gen",
             "januari", "janeiro"),
            ("fevrier", "fevr", "fev", "februar", "febrero", "febbraio", "februari",
             "fevereiro"),
            ("mars", "marz", "maerz", "mrz", "marzo", "maart", "mrt", "marco"),
            ("avril", "avr", "abril", "abr", "aprile"),
            ("mai", "mayo", "maggio", "mag", "mei", "maio"),
            ("juin", "juni", "junio", "giugno", "giu", "junho"),
            ("juillet", "juil", "juli", "julio", "luglio", "lug", "julho"),
            ("aout", "agosto", "ago", "augustus"),
            ("septembre", "septiembre", "setiembre", "settembre", "set", "setembro"),
            ("octobre", "oktober", "okt", "octubre", "ottobre", "ott", "outubro", "out"),
            ("novembre", "noviembre", "novembro"),
            ("decembre", "dezember", "dez", "diciembre", "dic", "dicembre", "dezembro"),
        ),
        start=1,
    )
    for name in names
} | {
    without_accents(name): number
    for number, names in enumerate(
        (
            ("января", "январь", "янв", "січня", "stycznia", "styczen", "ocak"),
            ("февраля", "февраль", "фев", "лютого", "lutego", "luty", "subat"),
            ("марта", "март", "мар", "березня", "marca", "marzec", "mart"),
            ("апреля", "апрель", "апр", "квітня", "kwietnia", "kwiecien", "nisan"),
            ("мая", "май", "травня", "maja", "maj", "mayis"),
            ("июня", "июнь", "июн", "червня", "czerwca", "czerwiec", "haziran"),
            ("июля", "июль", "июл", "липня", "lipca", "lipiec", "temmuz"),
            ("августа", "август", "авг", "серпня", "sierpnia", "sierpien", "agustos",
             "augusti"),
            ("сентября", "сентябрь", "сен", "сент", "вересня", "wrzesnia", "wrzesien",
             "eylul"),
            ("октября", "октябрь", "окт", "жовтня", "pazdziernika", "pazdziernik", "ekim"),
            ("ноября", "ноябрь", "ноя", "листопада", "listopada", "listopad", "kasim"),
            ("декабря", "декабрь", "дек", "грудня", "grudnia", "grudzien", "aralik",
             "desember"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip
#: Words a written-out date may hold beside its day, month and year: English
#: ordinals and "of", the French first ("1er"), "de"/"del" in Spanish and
#: Portuguese ("18 de junio de 1856"), the year's word or its abbreviation after it
#: in Russian and Polish ("7 марта 1985 г.", "7 marca 1985 r.").
_DATE_WORDS = frozenset(
    {"st", "nd", "rd", "th", "of", "the", "er", "de", "del", "г", "год", "года", "r", "roku"}
)
#: English weekdays, as a date with its weekday is written ("Sat, 12 May 1962",
#: what an e-mail client or a calendar exports): a name of the date, not of a month.
_WEEKDAYS = frozenset(
    {"monday", "mon", "tuesday", "tue", "tues", "wednesday", "wed", "thursday", "thu",
     "thur", "thurs", "friday", "fri", "saturday", "sat", "sunday", "sun"}
)  # fmt: skip

#: A time after the date ("1985-03-12T00:00:00", "12/03/1985 14:30"), as databases
#: and spreadsheets export a date column; the text is lower-cased first. A space
#: after each separator and a closing dot, as Korean ("1985. 3. 7.") and German
#: ("7. 3. 1985") records write a date.
_ISO = re.compile(r"^(\d{4})[-/.]\s*(\d{1,2})[-/.]\s*(\d{1,2})\.?(?:[t ].*)?$")
#: A two-digit year ("18/06/56", as many exports write a birth date) is read as
#: 19yy: its century is unknown, and two dates of one column compare by their digits.
_DMY = re.compile(r"^(\d{1,2})[-/.]\s*(\d{1,2})[-/.]\s*(\d{4}|\d{2})(?:[t ]\d{1,2}:\d{2}.*)?$")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
#: Year, month and day marked by their own characters, as Chinese and Japanese (年 月
#: 日) and Korean (년 월 일) write a date: "1985年3月7日", "1985년 3월 7일", "1985年3月".
_MARKED = re.compile(r"^(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(?:(\d{1,2})\s*[日일]?)?$")
#: A date in Japan's era calendar, as registers and forms write a birth date: the
#: era and its year ("昭和60年3月7日"; the first year is 元年), or the era's initial
#: ("S60.3.7", "h1/1/8"). Each era's Gregorian year before its first (`_ERA_BASE`).
_ERA = re.compile(
    r"^(明治|大正|昭和|平成|令和)\s*(\d{1,2}|元)\s*年\s*(\d{1,2})\s*月\s*(?:(\d{1,2})\s*日)?$"
)
_ERA_INITIAL = re.compile(r"^([mtshr])\s?(\d{1,2})[./-](\d{1,2})[./-](\d{1,2})$")
_ERA_BASE = {
    "明治": 1867, "m": 1867, "大正": 1911, "t": 1911, "昭和": 1925, "s": 1925,
    "平成": 1988, "h": 1988, "令和": 2018, "r": 2018,
}  # fmt: skip
_WORDS = re.compile(r"[^\W\d_]+|\d+")
_MIN_YEAR, _MAX_YEAR = 1000, 2200


def _valid(year: int, month: int, day: int) -> int | None:
    if not _MIN_YEAR <= year <= _MAX_YEAR or not 0 <= month <= 12 or not 0 <= day <= 31:
        return None
    if day and not month:
        return None
    return year * 10000 + month * 100 + day


def _digits(year: int, month: int, day: int) -> int | None:
    """A date's digits as `_valid` reads them, kept when only the month or day is out
    of range (a typo in a digit); `None` when the year is not one."""
    valid = _valid(year, month, day)
    if valid is not None or not _MIN_YEAR <= year <= _MAX_YEAR:
        return valid
    return year * 10000 + month * 100 + day


def parse_date(text: str, *, lenient: bool = False) -> int | None:
    """`yyyymmdd` as an integer (0 for parts not given), or `None` if `text` is no date.

    Bare years are not dates here: a column of years is detected as such by its
    integer range, and a lone number in free text is not evidence of a date.

    `lenient` keeps a numeric date whose month or day is out of range ("1850-85-12")
    as its digits (18508512): a mistyped digit, which comparing the digits ("one
    edit") still matches with the true date, where reading it as missing would
    throw the year away with the typo. For comparing only; detection stays strict.
    """
    value = text.strip().lower()
    if not value or len(value) > 40:
        return None
    if not value.isascii():
        # Full-width digits and separators ("１９８５－０３－０７", as East Asian input
        # methods type them) are the ASCII ones.
        value = unicodedata.normalize("NFKC", value)
    check = _digits if lenient else _valid
    if m := _ISO.match(value):
        return check(int(m[1]), int(m[2]), int(m[3]))
    if m := _DMY.match(value):
        first, second, year = int(m[1]), int(m[2]), int(m[3])
        if len(m[3]) == 2:
            year += 1900
        if first <= 12 < second:  # month first (US), the day cannot be a month
            first, second = second, first
        return check(year, second, first)
    if m := _COMPACT.match(value):
        return check(int(m[1]), int(m[2]), int(m[3]))
    if m := _MARKED.match(value):
        return check(int(m[1]), int(m[2]), int(m[3] or 0))
    if m := _ERA.match(value) or _ERA_INITIAL.match(value):
        year = _ERA_BASE[m[1]] + (1 if m[2] == "元" else int(m[2]))
        return check(year, int(m[3]), int(m[4] or 0))
    words = _WORDS.findall(without_accents(value))
    months = [RECORD_MONTHS[w] for w in words if w in RECORD_MONTHS]
    numbers = [int(w) for w in words if w.isdigit()]
    others = [w for w in words if not w.isdigit() and w not in RECORD_MONTHS]
    if len(months) != 1 or not (_DATE_WORDS | _WEEKDAYS).issuperset(others):
        return None
    years = [n for n in numbers if n >= _MIN_YEAR]
    days = [n for n in numbers if n < _MIN_YEAR]
    if not years and len(days) == 2 and re.search(r"\D\d{2}$", value):
        # "12-May-62", "12 May 62" (a database's or a spreadsheet's date): the last
        # two digits are the year, read as 19yy as numeric dates' are.
        years, days = [1900 + days[1]], days[:1]
    if len(years) != 1 or len(days) > 1:
        return None
    return _valid(years[0], months[0], days[0] if days else 0)


def date_parts(value: int) -> tuple[int, int, int]:
    return value // 10000, value // 100 % 100, value % 100
