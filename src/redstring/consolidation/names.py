"""Name analysis for resolution: the comparable "core" of a name and its token views.

`normalize_name` (domain) decides when two spellings are the same *text*. Resolution
needs more: "N.V. Philips'" and "PHILIPS N V" are the same organisation although the
text differs. The core form therefore

- folds accents (comparison only; the stored name keeps them),
- drops apostrophes and turns hyphens into spaces ("gist-brocades" = "gist brocades"),
- glues runs of single letters into one token ("n v" -> "nv", "i b m" -> "ibm"),
- for organisation types, drops legal-form tokens ("nv", "bv", "inc", "gmbh" ...),
  which say nothing about *which* organisation it is,
- for person types, drops honorifics and ordinals ("sir", "1st", "baron").

The word lists are deliberately short: every token listed is one that, on the gold
sets, appears across many unrelated identities (measured with bench/resolution.py).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from redstring.domain.normalization import normalize_name

#: Types whose names carry legal-form suffixes.
ORGANISATION_TYPES = frozenset(
    {"organization", "organisation", "org", "company", "corporation", "business", "firm"}
)
#: Types whose names carry honorifics and ordinals.
PERSON_TYPES = frozenset({"person", "people", "human", "individual", "per", "peop"})

LEGAL_FORMS = frozenset(
    {
        "nv", "bv", "cv", "vof", "plc", "ltd", "limited", "inc", "incorporated", "corp",
        "corporation", "co", "company", "llc", "llp", "lp", "gmbh", "ag", "kg", "sa", "sas",
        "sarl", "srl", "spa", "sl", "ab", "oy", "oyj", "as", "asa", "aps", "kk", "pty",
        "bvba", "nl", "the",
    }
)  # fmt: skip

PERSON_NOISE = frozenset(
    {
        "sir", "dame", "lord", "lady", "mr", "mrs", "ms", "miss", "dr", "prof", "rev",
        "saint", "st", "baron", "baroness", "earl", "count", "countess", "duke", "duchess",
        "king", "queen", "prince", "princess", "viscount", "marquess", "jr", "sr", "of",
        "the",
    }
)  # fmt: skip


def type_kind(entity_type: str) -> str:
    """ "person", "organization" or "other": which model and word lists apply."""
    normalized = normalize_name(entity_type)
    if normalized in PERSON_TYPES:
        return "person"
    if normalized in ORGANISATION_TYPES:
        return "organization"
    return "other"


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _is_ordinal(token: str) -> bool:
    return token[:-2].isdigit() and token[-2:] in {"st", "nd", "rd", "th"}


def raw_tokens(name: str) -> list[str]:
    """Normalized, accent-folded tokens with single-letter runs glued together."""
    text = _fold(normalize_name(name)).replace("'", "").replace("-", " ")
    out: list[str] = []
    run = ""
    for token in text.split():
        if len(token) == 1 and token.isalpha():
            run += token
            continue
        if run:
            out.append(run)
            run = ""
        out.append(token)
    if run:
        out.append(run)
    return out


def core_tokens(name: str, kind: str) -> list[str]:
    """The tokens that identify: `raw_tokens` minus the kind's noise words.

    Falls back to the raw tokens when stripping would leave nothing ("N.V." alone).
    """
    tokens = raw_tokens(name)
    if kind == "organization":
        kept = [t for t in tokens if t not in LEGAL_FORMS]
    elif kind == "person":
        kept = [t for t in tokens if t not in PERSON_NOISE and not _is_ordinal(t)]
    else:
        kept = tokens
    return kept or tokens


@dataclass(frozen=True, slots=True)
class NameView:
    """Everything the key families and the scorer read from one name, computed once."""

    normalized: str
    tokens: tuple[str, ...]
    core: str

    @property
    def initials(self) -> str:
        return "".join(t[0] for t in self.tokens if t and t[0].isalpha())


def name_view(name: str, kind: str) -> NameView:
    tokens = tuple(core_tokens(name, kind))
    return NameView(normalized=normalize_name(name), tokens=tokens, core=" ".join(tokens))
