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

import functools
from dataclasses import dataclass

from redstring.domain.normalization import latin, normalize_name

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
        "the", "baronet", "bt", "bart", "esq", "hon",
    }
)  # fmt: skip


#: Words that are never a surname of their own: a family-name cell holding only
#: these ("Baronet", "Jr.", "Esq." left in the last column when an export split
#: "Sir Frederick Shaw, 5th Baronet" by position) holds no family name. Titles that
#: are also surnames (King, Earl, Lord, Prince) are not listed.
NOT_A_SURNAME = frozenset(
    {
        "sir", "dame", "lady", "mr", "mrs", "ms", "miss", "mx", "dr", "prof", "rev",
        "revd", "reverend", "baronet", "bt", "bart", "esq", "hon", "jr", "sr", "jnr", "snr",
    }
)  # fmt: skip


#: Generational suffixes, each to the generation it names: a father and son of one
#: name, at one address and on one line ("Henry Tooth Sr" / "Henry Tooth Jr"), are
#: told apart by it alone. A bare "i" or "v" is left out: an initial as often.
GENERATIONS = {
    "jr": "jr", "jnr": "jr", "junior": "jr", "sr": "sr", "snr": "sr", "senior": "sr",
    "ii": "ii", "2nd": "ii", "iii": "iii", "3rd": "iii", "iv": "iv", "4th": "iv",
}  # fmt: skip
#: Of those, the ones that say father or son outright.
FATHER_OR_SON = frozenset({"jr", "sr"})


#: Those read inside a name ("Henry Tooth Jr", "Tooth Sr"): abbreviations and
#: numerals only, "Senior" and "Junior" being surnames and given names as well.
NAME_SUFFIXES = frozenset({"jr", "jnr", "sr", "snr", "ii", "iii", "iv"})


def generation(text: str) -> str | None:
    """The generation a value names when it is one generational suffix ("Jr.",
    "SNR", "III"), else None."""
    tokens = raw_tokens(text)
    return GENERATIONS.get(tokens[0]) if len(tokens) == 1 else None


def name_generation(text: str) -> str | None:
    """The generation a name's suffix names ("Henry Tooth Jr" -> "jr"), when it
    holds one after its first word, else None."""
    found = {GENERATIONS[t] for t in raw_tokens(text)[1:] if t in NAME_SUFFIXES}
    return found.pop() if len(found) == 1 else None


#: Letters after a name that are neither given nor family name ("Smith, PhD").
DEGREES = frozenset(
    {
        "phd", "md", "dds", "dvm", "jd", "llb", "llm", "mba", "msc", "bsc", "ba", "ma",
        "dphil", "cpa", "rn", "frs", "obe", "mbe", "cbe", "kbe", "qc", "kc",
    }
)  # fmt: skip


def family_word(name: str) -> str:
    """The last word of a person's family name as written in one cell: before the
    first comma in "PRICE, Fred" (unless what follows is only a suffix, title or
    degree: "John Smith, Jr."), else the name's last word -- titles, suffixes and
    degrees never; "" for a lone word, which may be either name. One column may
    hold both orders (two sources' exports joined), and a key on the first word
    reads the family name in one and the given name in the other."""
    family = split_whole_name(name)[1]
    return family.rsplit(" ", 1)[-1] if family else ""


def split_whole_name(name: str) -> tuple[str, str]:
    """(given name, family name) of a person's whole name in one cell: "PRICE, Fred"
    and "Fred Price" alike (the comma says the order; `family_word` is the family
    name's last word; titles, suffixes and degrees are neither); ("", "") for a lone
    word, which may be either."""
    head, comma, rest = name.partition(",")
    if comma and head.strip() and not all(_not_a_name(t) for t in raw_tokens(rest)):
        family = [t for t in raw_tokens(head) if not _not_a_name(t)]
        given = [t for t in raw_tokens(rest) if not _not_a_name(t)]
        return (given[0], " ".join(family)) if given and family else ("", "")
    words = [t for t in raw_tokens(name) if not _not_a_name(t)]
    return (words[0], words[-1]) if len(words) > 1 else ("", "")


def _not_a_name(token: str) -> bool:
    """A title, suffix or degree -- not one that is also a surname (King, Earl)."""
    return token in NOT_A_SURNAME or token in GENERATIONS or token in DEGREES or _is_ordinal(token)


def not_a_surname(text: str) -> bool:
    """Whether a family-name value is only such words (and ordinals: "5th Baronet")."""
    tokens = raw_tokens(text)
    return bool(tokens) and all(t in NOT_A_SURNAME or _is_ordinal(t) for t in tokens)


def type_kind(entity_type: str) -> str:
    """ "person", "organization" or "other": which model and word lists apply."""
    normalized = normalize_name(entity_type)
    if normalized in PERSON_TYPES:
        return "person"
    if normalized in ORGANISATION_TYPES:
        return "organization"
    return "other"


def _is_ordinal(token: str) -> bool:
    return token[:-2].isdigit() and token[-2:] in {"st", "nd", "rd", "th"}


def raw_tokens(name: str) -> list[str]:
    """Normalized, accent-folded tokens in Latin letters (`latin`) with single-letter
    runs glued together."""
    return list(_raw_tokens(name))


@functools.lru_cache(maxsize=1 << 16)
def _raw_tokens(name: str) -> tuple[str, ...]:
    """`raw_tokens`, remembered: names repeat (field detection, value normalisation
    and the mention model read the same names), and folding them is most of the cost."""
    text = latin(normalize_name(name)).replace("'", "").replace("-", " ")
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
    return tuple(out)


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


#: Common English given names and the familiar forms that stand for them, written
#: for this project (not copied from any published list). A form may stand for
#: more than one name ("bert": albert, herbert, ...); `given_name_forms` returns them
#: all, so two first names agree when their form sets meet.
_GIVEN_NAME_FORMS: dict[str, tuple[str, ...]] = {
    "abraham": ("abe",),
    "albert": ("al", "bert", "bertie"),
    "alexander": ("alex", "alec", "sandy", "sandie", "alick"),
    "alfred": ("alf", "alfie", "fred", "freddie", "freddy"),
    "andrew": ("andy", "drew", "dandy"),
    "anthony": ("tony", "antony"),
    "archibald": ("archie", "archy", "baldie"),
    "arthur": ("art", "artie"),
    "augustus": ("gus", "gussie", "augustine"),
    "benjamin": ("ben", "benny", "benjy"),
    "bernard": ("bernie", "barney"),
    "charles": ("charlie", "charley", "chas", "chuck", "carl"),
    "christopher": ("chris", "kit", "kester"),
    "daniel": ("dan", "danny"),
    "david": ("dave", "davy", "davie", "dai"),
    "donald": ("don", "donnie"),
    "edmund": ("ed", "eddie", "eddy", "ned", "ted", "edmond"),
    "edward": ("ed", "eddie", "eddy", "ned", "ted", "teddy", "neddy"),
    "edwin": ("ed", "eddie", "ned"),
    "ernest": ("ernie", "ern"),
    "francis": ("frank", "frankie", "fran"),
    "frederick": ("fred", "freddie", "freddy", "fritz", "frederic"),
    "geoffrey": ("geoff", "jeff", "jeffrey"),
    "george": ("georgie", "geordie"),
    "gerald": ("gerry", "jerry"),
    "gilbert": ("gil", "bert", "gib"),
    "gregory": ("greg",),
    "harold": ("harry", "hal"),
    "henry": ("harry", "hal", "hank", "hen", "hal"),
    "herbert": ("herb", "bert", "bertie"),
    "hugh": ("hughie", "hugo"),
    "isaac": ("ike", "zac"),
    "jacob": ("jake", "jack"),
    "james": ("jim", "jimmy", "jamie", "jem", "jas", "jimmie"),
    "john": ("jack", "johnny", "jackie", "jock", "jon", "johnnie"),
    "joseph": ("joe", "joey", "jos", "jo"),
    "kenneth": ("ken", "kenny"),
    "lawrence": ("larry", "laurie", "laurence", "lawrie"),
    "leonard": ("len", "lenny", "leo"),
    "matthew": ("matt", "mat", "matty"),
    "michael": ("mike", "mick", "micky", "mickey", "mich"),
    "nathaniel": ("nat", "nathan", "nate"),
    "nicholas": ("nick", "nicky", "nico", "nic"),
    "oliver": ("ollie", "noll"),
    "patrick": ("pat", "paddy", "patsy"),
    "peter": ("pete",),
    "philip": ("phil", "pip", "phillip"),
    "ralph": ("rafe",),
    "raymond": ("ray",),
    "reginald": ("reg", "reggie", "rex"),
    "richard": ("dick", "rick", "ricky", "rich", "richie", "dickie", "dicky"),
    "robert": ("bob", "bobby", "rob", "robbie", "robin", "bert", "bertie", "rab"),
    "roger": ("hodge", "rodge"),
    "ronald": ("ron", "ronnie"),
    "samuel": ("sam", "sammy", "sammie"),
    "stephen": ("steve", "stevie", "steven"),
    "theodore": ("theo", "ted", "teddy"),
    "thomas": ("tom", "tommy", "thom", "tam", "tommie"),
    "timothy": ("tim", "timmy"),
    "walter": ("walt", "wally", "wat"),
    "william": ("will", "willie", "willy", "bill", "billy", "bill", "liam", "wil"),
    "abigail": ("abby", "nabby"),
    "agnes": ("aggie", "nessie", "nancy"),
    "alice": ("alicia", "allie", "ally", "elsie"),
    "ann": ("anne", "annie", "nan", "nancy", "nanny", "anna", "hannah"),
    "barbara": ("babs", "barbie"),
    "catherine": ("kate", "katie", "kitty", "kit", "cathy", "kathleen", "katharine",
                  "katherine", "kathy", "kay", "cath"),
    "charlotte": ("lottie", "lotty", "charlie"),
    "christina": ("chris", "chrissie", "christine", "tina", "kirsty"),
    "dorothy": ("dolly", "dot", "dottie", "dora", "dorothea"),
    "eleanor": ("ellie", "nell", "nellie", "nelly", "elinor", "ella", "nora"),
    "elizabeth": ("eliza", "liz", "lizzie", "lizzy", "beth", "bess", "bessie", "betsy",
                  "betty", "libby", "elsie", "lisa", "bette", "elisabeth"),
    "emily": ("emmy", "millie", "em", "emilie"),
    "florence": ("flo", "florrie", "flossie"),
    "frances": ("fanny", "fran", "frankie", "franny"),
    "helen": ("nell", "nellie", "ellen", "lena", "helena"),
    "isabella": ("bella", "isabel", "izzy", "ibby", "isobel"),
    "jane": ("jenny", "jennie", "janet", "jean", "jeannie", "janey", "jessie"),
    "margaret": ("maggie", "meg", "peggy", "madge", "marge", "margery", "marjorie", "maisie",
                 "greta", "daisy", "peg", "mamie", "margot", "meta"),
    "martha": ("mattie", "matty", "patty", "patsy", "marty"),
    "mary": ("molly", "polly", "mamie", "mae", "marie", "maria", "may", "minnie", "mollie",
             "mimi"),
    "matilda": ("tilly", "tillie", "maud", "maude", "mattie"),
    "rebecca": ("becky", "becca", "reba"),
    "sarah": ("sally", "sal", "sadie", "sara"),
    "susan": ("sue", "susie", "suzy", "sukey", "susanna", "susannah"),
    "victoria": ("vicky", "vickie", "tori"),
    "wilhelmina": ("mina", "minnie", "willa", "wilma"),
}  # fmt: skip


def _invert_forms(table: dict[str, tuple[str, ...]]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for name, forms in table.items():
        for form in (name, *forms):
            out.setdefault(form, set()).add(name)
    return {form: frozenset(names) for form, names in out.items()}


_NAMES_FOR_FORM = _invert_forms(_GIVEN_NAME_FORMS)


def known_given_name(token: str) -> bool:
    """Whether `token` is a given name or a short form the nickname table holds
    ("thomas", "ted"): what a column of given names mostly holds, and a column of
    surnames seldom does."""
    return token in _NAMES_FOR_FORM


def given_name_forms(token: str) -> frozenset[str]:
    """The full given names `token` may stand for; the token itself when none is known.

    "ted" -> {edmund, edward, theodore}, "edward" -> {edward}, "zebedee" -> {zebedee}.
    Two first names are nickname-equivalent when their form sets intersect.
    """
    return _NAMES_FOR_FORM.get(token, frozenset({token})) if token else frozenset()
