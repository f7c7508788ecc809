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
#: compared letter by letter the two scripts share nothing. Also the old or variant
#: kanji Japanese family names keep in some registers, as their common form: 髙橋 is
#: 高橋, 齋藤 and 斉藤 are 斎藤.
_LATIN = str.maketrans(
    dict(
        zip(
            "абвгдежзийклмнопрстуфхцчшщъыьэюяіїєґўђјљњћџ"
            "αβγδεζηθικλμνξοπρσςτυφχψω"
            "髙﨑齋齊斉邊邉嶋廣澤濱櫻",
            (
                "a", "b", "v", "g", "d", "e", "zh", "z", "i", "i", "k", "l", "m", "n", "o",
                "p", "r", "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "ie", "y", "",
                "e", "iu", "ia", "i", "i", "ie", "g", "u", "dj", "j", "lj", "nj", "c", "dz",
                "a", "v", "g", "d", "e", "z", "i", "th", "i", "k", "l", "m", "n", "x", "o",
                "p", "r", "s", "s", "t", "y", "f", "ch", "ps", "o",
                "高", "崎", "斎", "斎", "斎", "辺", "辺", "島", "広", "沢", "浜", "桜",
            ),
            strict=True,
        )
    )
)  # fmt: skip
#: Katakana syllables in Hepburn romaji (hiragana is read as katakana first), as a
#: Japanese passport or a roman-letter register writes a name: "ヤマザキ", "やまざき"
#: and "ﾔﾏｻﾞｷ" (NFKC makes it "ヤマザキ") are all "yamazaki".
_KANA = dict(
    zip(
        "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨ"
        "ラリルレロワヰヱヲンガギグゲゴザジズゼゾダヂヅデドバビブベボパピプペポヴ",
        (
            "a", "i", "u", "e", "o", "ka", "ki", "ku", "ke", "ko", "sa", "shi", "su", "se",
            "so", "ta", "chi", "tsu", "te", "to", "na", "ni", "nu", "ne", "no", "ha", "hi",
            "fu", "he", "ho", "ma", "mi", "mu", "me", "mo", "ya", "yu", "yo", "ra", "ri",
            "ru", "re", "ro", "wa", "i", "e", "o", "n", "ga", "gi", "gu", "ge", "go", "za",
            "ji", "zu", "ze", "zo", "da", "ji", "zu", "de", "do", "ba", "bi", "bu", "be",
            "bo", "pa", "pi", "pu", "pe", "po", "vu",
        ),
        strict=True,
    )
)  # fmt: skip
#: Small kana that change the syllable before them: "キャ" is "kya", "ティ" "ti".
_SMALL_Y = {"ャ": "a", "ュ": "u", "ョ": "o"}
_SMALL_VOWELS = {"ァ": "a", "ィ": "i", "ゥ": "u", "ェ": "e", "ォ": "o"}


def _romaji(text: str) -> str:
    """`text` with its kana in Hepburn romaji (`_KANA`); the long-vowel mark is
    dropped as passports drop it, a small "ッ" doubles the consonant after it."""
    out: list[str] = []
    double = False
    for c in text:
        if "ぁ" <= c <= "ゖ":
            c = chr(ord(c) + 0x60)  # hiragana as katakana
        if c in _SMALL_Y and out and len(out[-1]) > 1 and out[-1].endswith("i"):
            stem = out.pop()[:-1]
            out.append(stem + ("" if stem in ("sh", "ch", "j") else "y") + _SMALL_Y[c])
        elif c in _SMALL_VOWELS and out and out[-1] in _KANA.values():
            before = out.pop()
            # "ウェ" is "we", "イェ" "ye": a vowel alone turns into its glide.
            stem = before[:-1] or {"u": "w", "i": "y"}.get(before, before)
            out.append(stem + _SMALL_VOWELS[c])
        elif c == "ッ":
            double = True
        elif c == "ー":
            continue
        elif c in _KANA:
            syllable = _KANA[c]
            if double and syllable[0] not in "aiueon":
                syllable = ("t" if syllable.startswith("ch") else syllable[0]) + syllable
            out.append(syllable)
            double = False
        else:
            out.append(c)
            double = False
    return "".join(out)


#: Hangul jamo in the Revised Romanization: a syllable is initial * 588 + vowel * 28
#: + final code points past "가".
_HANGUL_INITIALS = (
    "g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k",
    "t", "p", "h",
)  # fmt: skip
_HANGUL_VOWELS = (
    "a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u",
    "wo", "we", "wi", "yu", "eu", "ui", "i",
)  # fmt: skip
_HANGUL_FINALS = (
    "", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m",
    "p", "p", "t", "t", "ng", "t", "t", "k", "t", "p", "t",
)  # fmt: skip
#: Korean family names as passports and most registers spell them, where that is not
#: their Revised Romanization: "김민준" is read "kimminjun", as "KIM MINJUN" is
#: written, not "gimminjun". Taken for the first syllable of a run of Hangul.
_HANGUL_FAMILY = {
    "김": "kim", "이": "lee", "박": "park", "최": "choi", "정": "jung", "강": "kang",
    "조": "cho", "윤": "yoon", "임": "lim", "오": "oh", "신": "shin", "권": "kwon",
    "안": "ahn", "유": "yoo", "고": "ko", "문": "moon", "노": "noh", "심": "shim",
    "곽": "kwak", "우": "woo", "구": "koo", "주": "joo", "성": "sung", "류": "ryu",
}  # fmt: skip


def _hangul(text: str) -> str:
    """`text` with its Hangul syllables romanized (`_HANGUL_INITIALS`...), a run's
    first syllable as a family name is spelt (`_HANGUL_FAMILY`)."""
    out: list[str] = []
    previous_hangul = False
    for c in text:
        index = ord(c) - 0xAC00
        if not 0 <= index < 11172:
            out.append(c)
            previous_hangul = False
            continue
        family = None if previous_hangul else _HANGUL_FAMILY.get(c)
        out.append(
            family
            or _HANGUL_INITIALS[index // 588]
            + _HANGUL_VOWELS[index % 588 // 28]
            + _HANGUL_FINALS[index % 28]
        )
        previous_hangul = True
    return "".join(out)


def _has_kana(text: str) -> bool:
    return any("ぁ" <= c <= "ヺ" or c == "ー" for c in text)


def latin(text: str) -> str:
    """Casefolded `text` in Latin letters as far as its spelling there is one: accents
    dropped (`without_accents`), kana in romaji (`_romaji`), Hangul romanized
    (`_hangul`), Cyrillic and Greek letters by `_LATIN` (which also folds variant
    kanji). Other scripts, whose Latin spelling is not one (Arabic, Han), stay as
    they are."""
    if text.isascii():
        return text
    if _has_kana(text):
        text = _romaji(text)
    if any("가" <= c <= "힣" for c in text):
        text = _hangul(text)
    # Greek's "ου" is one sound, "u": "Παπαδόπουλος" is "papadopoulos".
    return without_accents(text).replace("ου", "ou").translate(_LATIN)


def ascii_letters(name: str) -> str:
    """The ASCII letters of the NFKD-decomposed, normalized name.

    NFKD first so an accented letter becomes base + combining mark and the base
    survives the filter; filtering without it would drop "é" entirely.
    """
    return normalized_ascii_letters(normalize_name(name))


def normalized_ascii_letters(normalized: str) -> str:
    """`ascii_letters` of a name already through `normalize_name`."""
    return _NOT_ASCII_LETTER.sub("", unicodedata.normalize("NFKD", normalized))
