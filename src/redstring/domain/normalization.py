"""Name normalization: the single place that decides when two spellings are "the same text".

Casefolded, Unicode NFKC, punctuation other than intra-word apostrophes and
hyphens turned into spaces, whitespace collapsed. Accents are kept: "José" and
"Jose" are close under Jaro-Winkler anyway, and folding them here would make
the stored `normalized_name` lie about what was written.
"""

from __future__ import annotations

import re
import unicodedata

_SEPARATORS = re.compile(r"[^\w'\-]+", re.UNICODE)
_WHITESPACE = re.compile(r"\s+")
#: Everything but the ASCII letters (a character both `isascii` and `isalpha`).
_NOT_ASCII_LETTER = re.compile(r"[^A-Za-z]+")


def normalize_name(name: str) -> str:
    """Casefold, NFKC, punctuation to spaces, collapse and strip whitespace."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = _SEPARATORS.sub(" ", text).replace("_", " ")
    return _WHITESPACE.sub(" ", text).strip()


def without_accents(text: str) -> str:
    """`text` with its accents dropped ("Zoë" -> "Zoe", "März" -> "Marz"): NFKD splits
    an accented letter into its base and a combining mark, and the marks go. Text
    already ASCII, most of it, is returned as it is."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


#: Cyrillic (Russian, Ukrainian, Belarusian, Serbian) and Greek letters in Latin ones,
#: as Russian passports have written them since 2014 (ICAO Doc 9303) and Greek ones
#: (ELOT 743), for casefolded text with its accents dropped ("й" is "и" by then):
#: one person's name is "Фёдорова" in one register and "FEDOROVA" in another, and
#: compared letter by letter the two scripts share nothing.
_LATIN = str.maketrans(
    dict(
        zip(
            "абвгдежзийклмнопрстуфхцчшщъыьэюяіїєґўђјљњћџ"
            "αβγδεζηθικλμνξοπρσςτυφχψω",
            (
                "a", "b", "v", "g", "d", "e", "zh", "z", "i", "i", "k", "l", "m", "n", "o",
                "p", "r", "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "ie", "y", "",
                "e", "iu", "ia", "i", "i", "ie", "g", "u", "dj", "j", "lj", "nj", "c", "dz",
                "a", "v", "g", "d", "e", "z", "i", "th", "i", "k", "l", "m", "n", "x", "o",
                "p", "r", "s", "s", "t", "y", "f", "ch", "ps", "o",
            ),
            strict=True,
        )
    )
)  # fmt: skip


def latin(text: str) -> str:
    """Casefolded, accent-free `text` with its Cyrillic and Greek letters in Latin
    ones (`_LATIN`); other scripts, whose Latin spelling is not one (Arabic, Han),
    stay as they are."""
    # Greek's "ου" is one sound, "u": "Παπαδόπουλος" is "papadopoulos".
    return text if text.isascii() else text.replace("ου", "ou").translate(_LATIN)


def ascii_letters(name: str) -> str:
    """The ASCII letters of the NFKD-decomposed, normalized name.

    NFKD first so an accented letter becomes base + combining mark and the base
    survives the filter; filtering without it would drop "é" entirely.
    """
    return normalized_ascii_letters(normalize_name(name))


def normalized_ascii_letters(normalized: str) -> str:
    """`ascii_letters` of a name already through `normalize_name`."""
    return _NOT_ASCII_LETTER.sub("", unicodedata.normalize("NFKD", normalized))
