"""Values are not names: dates, years, amounts, percentages and numbers as comparable keys.

"1968" and "1986" are one edit apart and share every character; a string
similarity calls them near-identical, and the issue measured one Date entity
absorbing 8,321 different years that way. A value is therefore reduced to one
normalised key and two values are the same exactly when their keys are equal:

- dates become ISO at the precision written: "April 4, 1968" and "4 April 1968"
  are `date:1968-04-04`, "April 1968" is `date:1968-04` (a different value, not a
  near one), "1968" is `date:1968`, "the 1960s" is `decade:1960`, "the 20th
  century" is `century:20`; a weekday is `weekday:monday`;
- money is `money:<currency>:<amount>` with the multiplier applied
  ("$5 million" = "5,000,000 dollars");
- percentages are `percent:<number>`; numbers, digits or spelled out, `number:<n>`.

A name of a value type that none of these parse keeps `literal:<normalised text>`:
it can still only merge with an identical value, never a similar one.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from redstring.consolidation.dates import MONTHS
from redstring.domain.normalization import normalize_name

#: Entity types that hold values, not names (the offline extractor's and common LLM
#: labels, normalised).
VALUE_TYPES = frozenset(
    {
        "date", "time", "year", "money", "amount", "price", "currency", "percent",
        "percentage", "number", "num", "quantity", "cardinal", "ordinal", "duration",
    }
)  # fmt: skip

#: Value types whose bare digits are counts, not years ("1000" people).
_NUMERIC_TYPES = frozenset(
    {"money", "amount", "price", "currency", "percent", "percentage", "number", "num",
     "quantity", "cardinal", "ordinal"}
)  # fmt: skip
_WEEKDAYS = frozenset(
    {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
)
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_SCALES["trillion"] = 1_000_000_000_000
_CURRENCIES = {
    "$": "usd", "dollar": "usd", "dollars": "usd", "usd": "usd", "€": "eur", "euro": "eur",
    "euros": "eur", "eur": "eur", "£": "gbp", "pound": "gbp", "pounds": "gbp", "gbp": "gbp",
    "yen": "jpy", "¥": "jpy", "franc": "franc", "francs": "franc", "mark": "mark",
    "marks": "mark", "rupee": "inr", "rupees": "inr",
}  # fmt: skip

_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_MONTH_YEAR = re.compile(rf"^{_ORDINAL} ([a-z]+)(?: (\d{{3,4}}))?$")
_MONTH_DAY_YEAR = re.compile(rf"^([a-z]+) {_ORDINAL}(?: (\d{{3,4}}))?$")
_MONTH_YEAR = re.compile(r"^([a-z]+) (\d{3,4})$")
_YEAR = re.compile(r"^(\d{3,4})(?: (?:ad|ce))?$")
_ISO = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$")
_DECADE = re.compile(r"^(?:the )?((?:early |mid |late )?)(\d{3}0)s$")
_CENTURY = re.compile(r"^(?:the )?((?:early |mid |late )?)(\d{1,2})(?:st|nd|rd|th) century$")
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")


def _iso(year: str, month: int | None = None, day: str | None = None) -> str | None:
    if month is None:
        return f"date:{int(year):04d}"
    if day is None:
        return f"date:{int(year):04d}-{month:02d}"
    if not 1 <= int(day) <= 31:
        return None
    return f"date:{int(year):04d}-{month:02d}-{int(day):02d}"


def _day(month: int, day: str) -> str:
    """A day of a month with no year: a value of its own, never a full date."""
    return f"day:{month:02d}-{int(day):02d}"


def _date_key(text: str) -> str | None:
    """`text` is lower-cased with commas and periods removed, spaces collapsed."""
    if text in _WEEKDAYS:
        return f"weekday:{text}"
    for pattern in (_DECADE, _CENTURY):
        found = pattern.match(text)
        if found:
            part = found.group(1).strip()
            unit = "decade" if pattern is _DECADE else "century"
            return f"{unit}:{found.group(2)}{f':{part}' if part else ''}"
    found = _ISO.match(text)
    if found:
        return _iso(found.group(1), int(found.group(2)), found.group(3))
    found = _YEAR.match(text)
    if found:
        return _iso(found.group(1))
    found = _DAY_MONTH_YEAR.match(text)
    if found and found.group(2) in MONTHS:
        day, month, year = found.groups()
        return _iso(year, MONTHS[month], day) if year else _day(MONTHS[month], day)
    found = _MONTH_DAY_YEAR.match(text)
    if found and found.group(1) in MONTHS:
        month, day, year = found.groups()
        return _iso(year, MONTHS[month], day) if year else _day(MONTHS[month], day)
    found = _MONTH_YEAR.match(text)
    if found and found.group(1) in MONTHS:
        return _iso(found.group(2), MONTHS[found.group(1)])
    if text in MONTHS:
        return f"month:{MONTHS[text]:02d}"
    return None


def _spelled_number(words: list[str]) -> Decimal | None:
    if not words:
        return None
    total, current = 0, 0
    previous: str | None = None
    for word in words:
        if word in _UNITS:
            # "forty one" is 41, "two four" is two numbers, not 6.
            if previous in _UNITS and not (_UNITS[previous] % 10 == 0 and _UNITS[previous] > 10):
                return None
            if previous in _UNITS and _UNITS[word] >= 10:
                return None
            current += _UNITS[word]
        elif word in _SCALES:
            scale = _SCALES[word]
            if scale == 100:
                current = max(current, 1) * 100
            else:
                total += max(current, 1) * scale
                current = 0
        else:
            return None
        previous = word
    return Decimal(total + current)


def _amount(words: list[str]) -> Decimal | None:
    """ "5", "5.2 million", "two hundred", "1,000" (commas already removed)."""
    if not words:
        return None
    if _NUMBER.match(words[0]):
        try:
            value = Decimal(words[0])
        except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
            return None
        for word in words[1:]:
            if word not in _SCALES:
                return None
            value *= _SCALES[word]
        return value
    return _spelled_number(words)


def _number_text(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def value_key(name: str, entity_type: str) -> str | None:
    """The comparable key of a value, or None when `name` is not a value.

    A name is a value when its type is a value type (`VALUE_TYPES`), or when it is
    a bare year, number or percentage whatever its type ("2010" typed Concept).
    """
    kind = normalize_name(entity_type)
    is_value_type = kind in VALUE_TYPES
    numeric_type = kind in _NUMERIC_TYPES
    raw = name.strip().lower().replace("\u00a0", " ")
    text = re.sub(r"\s+", " ", re.sub(r"(?<=\d),(?=\d)", "", raw))
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", text).replace(",", " ").strip()
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s*-\s*", "-", text)
    percent = re.match(r"^(.+?) ?(?:%|per ?cent)$", text)
    if percent:
        amount = _amount(percent.group(1).split())
        if amount is not None:
            return f"percent:{_number_text(amount)}"
    date = _date_key(text)
    if (
        date is not None
        and not numeric_type
        and (is_value_type or date.startswith(("date:", "decade:", "century:")))
    ):
        return date
    money = re.match(r"^([$€£¥])\s?(.+)$", text)
    words = text.replace("-", " ").split()
    if money:
        amount = _amount(money.group(2).split())
        if amount is not None:
            return f"money:{_CURRENCIES[money.group(1)]}:{_number_text(amount)}"
    elif len(words) > 1 and words[-1] in _CURRENCIES:
        amount = _amount(words[:-1])
        if amount is not None:
            return f"money:{_CURRENCIES[words[-1]]}:{_number_text(amount)}"
    amount = _amount(words)
    if amount is not None and (is_value_type or _NUMBER.match(text)):
        return f"number:{_number_text(amount)}"
    if is_value_type:
        return f"literal:{normalize_name(name)}"
    return None
