"""Values are keys: equal only when the normalised value is equal, never 'similar'."""

from __future__ import annotations

import pytest

from redstring.consolidation.values import value_key


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (("April 4 , 1968", "Date"), ("4 April 1968", "Date")),
        (("Sept. 5, 2001", "Date"), ("2001-09-05", "Date")),
        (("the 1960s", "Date"), ("1960s", "Date")),
        (("$5 million", "Money"), ("5,000,000 dollars", "Money")),
        (("20 %", "Percent"), ("20 percent", "Percent")),
        (("forty - one", "Number"), ("41", "Number")),
        (("2010", "Concept"), ("2010", "Date")),
    ],
)
def test_spellings_of_one_value_share_a_key(left: tuple[str, str], right: tuple[str, str]) -> None:
    """Catches: a value that the resolver would keep apart from its own other spelling."""
    assert value_key(*left) is not None
    assert value_key(*left) == value_key(*right)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (("1968", "Date"), ("1986", "Date")),
        (("April 1968", "Date"), ("April 4, 1968", "Date")),
        (("April 4, 1968", "Date"), ("April 14, 1968", "Date")),
        (("the early 20th century", "Date"), ("20th century", "Date")),
        (("1000", "Number"), ("1000", "Date")),
        (("$5", "Money"), ("£5", "Money")),
        (("March 13", "Date"), ("March 13, 2001", "Date")),
        (("two four", "Number"), ("6", "Number")),
    ],
)
def test_different_values_never_share_a_key(left: tuple[str, str], right: tuple[str, str]) -> None:
    """Catches: near strings ("1968"/"1986") or another precision treated as one value."""
    assert value_key(*left) != value_key(*right)


def test_names_are_not_values_but_bare_numbers_are() -> None:
    """Catches: a place parsed as a date, or a typed-as-name year escaping the value rule."""
    assert value_key("London", "Location") is None
    assert value_key("May", "Person") is None
    assert value_key("May", "Date") == "month:05"
    assert value_key("42", "Concept") == "number:42"
    assert value_key("tomorrow", "Date") == "literal:tomorrow"
    assert value_key("Monday", "Date") == "weekday:monday"
