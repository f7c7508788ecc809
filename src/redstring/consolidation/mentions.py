"""The resolver for text mentions: which extracted entities name the same thing.

Records carry fields; a text mention carries a short name, a type, the extractor's
confidence and the documents it was read in. String similarity alone is the wrong
model for it: "California" is closer to "Carolina" than "Harvard" is to "Harvard
University". So a pair is judged by what tells two names apart, and by evidence
beyond the string, in this order:

1. **Values are not names** (`values.value_key`): two dates, years, amounts,
   percentages or numbers are one entity exactly when their normalised values are
   equal; a value never matches a name.
2. **Types**: two names of different types are different entities; a Group
   (nationality or group adjective) merges only with the same group.
3. **Distinguishing tokens decide against** (probability 0): different regnal or
   ordinal numbers ("Henry III" / "Henry VIII"), a number on one side only outside
   person names ("PlayStation 2" / "PlayStation"), a qualifier on one side only or
   different qualifiers ("North Carolina" / "South Carolina" / "Carolina", "New
   York" / "York"), different generations (Jr / Sr), two different acronyms ("AP" /
   "AFP"), a given name under a shared surname that is not the same name, a
   nickname of it, or its initial ("John Wilkes Booth" / "Edwin Booth"), and names
   sharing no token that no known alias links ("Washington" / "Waxhaw").
4. **Relation of the names**: equal once titles, legal forms, punctuation and
   accents are set aside; a known alias (`KNOWN_ALIASES`, nicknames from
   `names.given_name_forms`, or an acronym spelled by the other name's initials);
   one name contained in the other ("Schneider" in "Wilfried Willi Schneider");
   or one misspelled token in an otherwise equal multi-word name.
5. **Evidence beyond the string**, learned from the tenant's own mentions for
   every relation weaker than equality:
   - *documents*: in the documents where the shorter name occurs, how often the
     longer one is the only same-typed name that contains it (support), how often
     a name that contradicts the longer one does (against), and how often none
     does (neutral). "Schneider" in a text whose only Schneider is "Wilfried Willi
     Schneider" is him; a "Booth" in a text with John Wilkes Booth and Edwin Booth
     is nobody in particular.
   - *context*, for pairs never mentioned in one document: the entities both are
     mentioned with (and their graph neighbours), each weighted by how rare it is
     across the tenant's documents (inverse document frequency). Sharing
     "Transylvania" says more than sharing "United States".
   - *the extractor's confidence*: a mention below `MIN_FUZZY_CONFIDENCE` (the
     offline extractor's catch-all guesses) merges only on an equal name.

The probability levels below are the ordering of these kinds of evidence, stated
once here, not fitted to a gold set; what varies per workspace is the document
and context evidence, which is counted from the workspace's data. The clustering
that consumes the probabilities (`clustering.agreeing_clusters`) joins two
clusters only when no cross pair scores below its distinct threshold, so a 0 here
keeps two mentions apart whatever links them indirectly.

Known alias lists and where they come from: US state names with their USPS postal
codes and AP-style abbreviations, and a handful of country short forms, written
for this project from those public conventions (`KNOWN_ALIASES`); English given
names and their familiar forms (`names.given_name_forms`). Everything else is
derived from the names themselves (acronyms from initials) or from the data.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass
from enum import Enum
from itertools import combinations, pairwise
from typing import TYPE_CHECKING

import numpy as np
from rapidfuzz.distance import JaroWinkler

from redstring.consolidation.names import (
    LEGAL_FORMS,
    PERSON_NOISE,
    given_name_forms,
    raw_tokens,
    type_kind,
)
from redstring.consolidation.values import value_key
from redstring.domain.normalization import normalize_name

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    import numpy.typing as npt

    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId

    #: Structurally `clustering.PairScorer`: match probability of each (left[k], right[k]).
    PairScorer = Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], npt.NDArray[np.float64]]

__all__ = [
    "KNOWN_ALIASES",
    "MIN_FUZZY_CONFIDENCE",
    "MentionEvidence",
    "Relation",
    "score_mentions",
]

#: Two names equal once titles, legal forms, punctuation and accents are set aside.
P_EQUAL = 0.97
#: A listed alias or a nickname: evidence for one entity on its own.
P_KNOWN_ALIAS = 0.9
#: The ceiling of document or context evidence for a weaker relation.
P_EVIDENCE = 0.95
#: A weaker relation with no evidence beyond the string: never merges, never vetoes.
P_WEAK = 0.1
#: Extractor confidence under which a mention merges only on an equal name: the
#: offline extractor's own scale, where 0.5 is the line between its rules and its
#: catch-all guesses (`OfflineExtractor(min_confidence=0.5)`).
MIN_FUZZY_CONFIDENCE = 0.55
#: Token blocks larger than this pair only mentions that share a document: a token
#: carried by hundreds of names ("john", "university") is no reason to compare them all.
MAX_BLOCK = 64
#: Token blocks larger than this pair mentions only by shared document or context name.
SMALL_BLOCK = 16
#: Context overlap (sum of shared context entities' IDF) is read against this many
#: average context entities: one shared average neighbour is not enough to merge.
CONTEXT_SCALE = 3.0
#: Minimum Jaro-Winkler for the one differing token of a misspelled multi-word name.
FUZZY_TOKEN = 0.92


def _words(text: str) -> list[str]:
    return text.split()


#: Regnal and ordinal numbers written as Roman numerals (I is left out: it is also a
#: pronoun and an initial; "Henry I" still differs from "Henry II" by II).
_ROMAN = {
    numeral: value
    for value, numeral in enumerate(
        _words("ii iii iv v vi vii viii ix x xi xii xiii xiv xv xvi xvii xviii xix xx"), start=2
    )
}
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)?$")
_ORDINAL_WORDS = {
    word: value
    for value, word in enumerate(
        _words("first second third fourth fifth sixth seventh eighth ninth tenth"), start=1
    )
}
#: Words that make a different place or body of the same name.
QUALIFIERS = frozenset(
    _words(
        "north south east west northern southern eastern western northeast northwest "
        "southeast southwest central new old upper lower great greater little grand inner outer"
    )
)
_GENERATIONS = {"jr": "jr", "junior": "jr", "sr": "sr", "senior": "sr"}
_CONNECTORS = frozenset(_words("of the and for de du des la le el et von van der den di da &"))
_ACRONYM = re.compile(r"^(?:[A-Z]\.?){2,6}$")

#: US states (postal code and AP abbreviation) and country short forms: one row per
#: entity, spellings separated by commas, normalised as `raw_tokens` would. See the
#: module docstring for where they come from.
_ALIAS_ROWS = (
    "alabama, al, ala; alaska, ak; arizona, az, ariz; arkansas, ar, ark; california, ca, "
    "calif; colorado, co, colo; connecticut, ct, conn; delaware, de, del; florida, fl, fla; "
    "georgia, ga; hawaii, hi; idaho, id; illinois, il, ill; indiana, in, ind; iowa, ia; "
    "kansas, ks, kan; kentucky, ky; louisiana; maine, me; maryland, md; massachusetts, ma, "
    "mass; michigan, mi, mich; minnesota, mn, minn; mississippi, ms, miss; missouri, mo; "
    "montana, mt, mont; nebraska, ne, neb; nevada, nv, nev; new hampshire, nh; new jersey, "
    "nj; new mexico, nm; new york, ny; north carolina, nc; north dakota, nd; ohio, oh; "
    "oklahoma, ok, okla; oregon, or, ore; pennsylvania, pa; rhode island, ri; "
    "south carolina, sc; south dakota, sd; tennessee, tn, tenn; texas, tx, tex; utah, ut; "
    "vermont, vt; virginia, va; washington, wa, wash; west virginia, wv; wisconsin, wi, "
    "wis; wyoming, wy, wyo; district of columbia, dc; "
    "united states, us, usa, united states of america; united kingdom, uk, great britain, "
    "britain; soviet union, ussr; united arab emirates, uae; united nations, un"
)
#: Spelling -> the row's first spelling, which stands for the entity.
KNOWN_ALIASES: dict[str, str] = {
    spelling.strip(): row.split(",")[0].strip()
    for row in _ALIAS_ROWS.split(";")
    for spelling in row.split(",")
}


class Relation(Enum):
    """How two same-typed names relate, before any evidence beyond the string."""

    DISTINCT = "distinct"
    EQUAL = "equal"
    ALIAS = "alias"
    CONTAINED = "contained"
    FUZZY = "fuzzy"
    WEAK = "weak"


@dataclass(frozen=True)
class MentionEvidence:
    """Scored candidate pairs over `entities`, and the same model for any other pair."""

    #: (m, 2) candidate index pairs, i < j, into the entities given to `score_mentions`.
    pairs: npt.NDArray[np.int64]
    probabilities: npt.NDArray[np.float64]
    scorer: PairScorer


@dataclass(frozen=True, slots=True)
class _Mention:
    type_key: str
    kind: str
    value: str | None
    #: Identifying tokens: no titles (persons), legal forms (organisations), numbers.
    tokens: tuple[str, ...]
    numbers: frozenset[int]
    qualifiers: frozenset[str]
    generation: frozenset[str]
    acronym: str | None
    initials: tuple[str, ...]
    alias: str | None
    docs: frozenset[str]
    confidence: float

    @property
    def core(self) -> str:
        return " ".join(self.tokens)


def _number_of(token: str) -> int | None:
    if token in _ROMAN:
        return _ROMAN[token]
    if token in _ORDINAL_WORDS:
        return _ORDINAL_WORDS[token]
    found = _ORDINAL.match(token)
    return int(found.group(1)) if found else None


#: Type labels (normalised) of groups and of places, for the rules that differ by kind.
GROUP_TYPES = frozenset({"group", "nationality", "norp", "demonym", "ethnicity", "religion"})
LOCATION_TYPES = frozenset(
    {"location", "place", "loc", "gpe", "country", "city", "region", "state", "geo"}
)


#: Value keys that name one thing wherever they are read (a day, a year, a decade,
#: a century); every other value ("Monday", "3", "$5 million") is its text's own.
ABSOLUTE_VALUES = ("date:", "decade:", "century:")


def _kind(entity: Entity) -> str:
    type_key = normalize_name(entity.entity_type)
    if type_key in GROUP_TYPES:
        return "group"
    if type_key in LOCATION_TYPES:
        return "location"
    return type_kind(entity.entity_type)


def _mention(entity: Entity, qualifier_words: frozenset[str] = QUALIFIERS) -> _Mention:
    type_key = normalize_name(entity.entity_type)
    docs = frozenset(p.source_id for p in entity.provenance)
    value = value_key(entity.name, entity.entity_type)
    kind = "value" if value is not None else _kind(entity)
    raw = raw_tokens(entity.name)
    numbers = frozenset(n for t in raw if (n := _number_of(t)) is not None)
    generation = frozenset(_GENERATIONS[t] for t in raw if t in _GENERATIONS)
    noise = PERSON_NOISE if kind == "person" else LEGAL_FORMS if kind == "organization" else ()
    tokens = tuple(
        t
        for t in raw
        if t not in noise
        and t not in _GENERATIONS
        and _number_of(t) is None
        and t != "the"
        and t != "s"
    ) or tuple(raw)
    content = [t for t in tokens if t not in _CONNECTORS]
    initials = (
        ("".join(t[0] for t in content), "".join(t[0] for t in tokens)) if len(content) >= 2 else ()
    )
    acronym = tokens[0] if len(tokens) == 1 and _ACRONYM.match(entity.name.strip()) else None
    core = " ".join(tokens)
    return _Mention(
        type_key=type_key,
        kind=kind,
        value=value,
        tokens=tokens,
        numbers=numbers,
        qualifiers=frozenset(t for t in raw if t in qualifier_words and kind != "group"),
        generation=generation,
        acronym=acronym,
        initials=initials,
        alias=KNOWN_ALIASES.get(core),
        docs=docs,
        confidence=entity.confidence,
    )


def _person_token_match(short: str, long: str) -> bool:
    if short == long:
        return True
    if len(short) == 1 or len(long) == 1:
        return short[0] == long[0]
    return bool(given_name_forms(short) & given_name_forms(long))


def _covers(short: Sequence[str], long: Sequence[str], person: bool) -> bool:
    """Every token of `short` matches a token of `long`: in order for persons (with
    nicknames and initials), as one contiguous run otherwise ("Asian Games" is not
    in "Asian Para Games")."""
    if not person:
        width = len(short)
        return any(tuple(long[k : k + width]) == tuple(short) for k in range(len(long) - width + 1))
    position = 0
    for token in short:
        while position < len(long) and not _person_token_match(token, long[position]):
            position += 1
        if position == len(long):
            return False
        position += 1
    return True


#: Words after which a name is the complement of a longer one ("Battle of Homs").
_OF = frozenset(_words("of de di du des del da"))


def _complement(short: Sequence[str], long: Sequence[str]) -> bool:
    """`short` follows an "of" inside `long` and ends it: "Homs" in "Battle of Homs"."""
    width = len(short)
    start = len(long) - width
    return start > 0 and tuple(long[start:]) == tuple(short) and long[start - 1] in _OF


def _fuzzy(a: Sequence[str], b: Sequence[str]) -> bool:
    """Equal multi-word names but for one token that is a close misspelling."""
    if len(a) != len(b) or len(a) < 2:
        return False
    differing = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if len(differing) != 1:
        return False
    x, y = differing[0]
    # One word extending the other is a derivation, not a slip: "Guinea" / "Guinean",
    # "Korea" / "Korean" (a doubled last letter is a slip: "Nobel" / "Nobell").
    short, long = sorted((x, y), key=len)
    derived = long.startswith(short) and long[len(short) :] != short[-1:]
    return (
        not derived
        and min(len(x), len(y)) >= 4
        and x[0] == y[0]
        and JaroWinkler.normalized_similarity(x, y) >= FUZZY_TOKEN
    )


def relation(a: _Mention, b: _Mention) -> Relation:
    """What the two names alone say (see the module docstring, points 1 to 4)."""
    if a.kind == "value" or b.kind == "value":
        return Relation.EQUAL if a.value is not None and a.value == b.value else Relation.DISTINCT
    if a.type_key != b.type_key and min(a.confidence, b.confidence) >= MIN_FUZZY_CONFIDENCE:
        return Relation.DISTINCT
    if a.kind == "group" or b.kind == "group":
        return Relation.EQUAL if a.kind == b.kind and a.core == b.core else Relation.DISTINCT
    if a.alias is not None and a.alias == b.alias:
        return Relation.ALIAS if a.core != b.core else Relation.EQUAL
    if a.numbers and b.numbers and a.numbers != b.numbers:
        return Relation.DISTINCT
    if (a.numbers or b.numbers) and a.numbers != b.numbers and a.kind != "person":
        return Relation.DISTINCT
    if a.qualifiers != b.qualifiers:
        return Relation.DISTINCT
    # Jr/Sr and numbers both mark a generation: "King Jr." is not "King III".
    a_marks, b_marks = (
        a.generation | {str(n) for n in a.numbers},
        b.generation | {str(n) for n in b.numbers},
    )
    if a_marks and b_marks and a_marks != b_marks:
        return Relation.DISTINCT
    for one, other in ((a, b), (b, a)):
        if one.acronym is not None and other.acronym is None:
            return Relation.ALIAS if one.acronym in other.initials else Relation.DISTINCT
    if set(a.tokens) == set(b.tokens):
        # A generation or number on one side only: "Henry VIII" in a text about him
        # is "Henry", but that is for the evidence to say, not the string.
        return Relation.EQUAL if a_marks == b_marks else Relation.CONTAINED
    person = "person" in (a.kind, b.kind)
    short, long = (a, b) if len(a.tokens) <= len(b.tokens) else (b, a)
    sure_person = any(m.kind == "person" and m.confidence >= MIN_FUZZY_CONFIDENCE for m in (a, b))
    if not sure_person and _complement(short.tokens, long.tokens):
        # "Battle of Homs" / "Homs", "University of Pennsylvania" / "Pennsylvania":
        # the name after "of" is what the longer one is about, not it.
        return Relation.DISTINCT
    if _covers(short.tokens, long.tokens, person):
        if len(short.tokens) == len(long.tokens):
            return Relation.ALIAS  # nicknames or initials, token for token
        if person and len(short.tokens) > 1 and short.tokens[-1] != long.tokens[-1]:
            return Relation.DISTINCT
        if a.type_key != b.type_key:
            # A name inside a name of another (guessed) type is more often a part
            # ("Lappeenranta" / "Lappeenranta University of Technology") than it.
            return Relation.WEAK
        return Relation.WEAK if "location" in (a.kind, b.kind) else Relation.CONTAINED
    if _fuzzy(a.tokens, b.tokens):
        return Relation.FUZZY
    return Relation.DISTINCT


class _Model:
    """Mentions, their documents and contexts, and the pair probability over them."""

    def __init__(
        self,
        entities: Sequence[Entity],
        neighbours: Mapping[EntityId, set[EntityId]] | None,
    ) -> None:
        first = [_mention(e) for e in entities]
        # The tenant's own group names ("Irish", "Soviet") qualify like "North" does:
        # "Irish Labour Party" is not the "Labour Party" of another country.
        groups = frozenset(m.core for m in first if m.kind == "group" and len(m.tokens) == 1)
        qualifier_words = QUALIFIERS | groups
        self.mentions = [
            _mention(e, qualifier_words) if groups & set(m.tokens) else m
            for e, m in zip(entities, first, strict=True)
        ]
        self.members: dict[str, list[int]] = defaultdict(list)
        for i, m in enumerate(self.mentions):
            for doc in m.docs:
                self.members[doc].append(i)
        index = {e.id: i for i, e in enumerate(entities)}
        self.neighbours: list[frozenset[int]] = [
            frozenset(index[n] for n in (neighbours or {}).get(e.id, set()) if n in index)
            for e in entities
        ]
        # Context is read by name, not by entity: ids are per document (ADR 0012), so
        # two documents share names, never entities. A name's weight is its inverse
        # document frequency over this tenant's documents.
        documents = max(len(self.members), 1)
        name_docs: dict[str, set[str]] = defaultdict(set)
        for m in self.mentions:
            if m.kind != "value":
                name_docs[m.core].update(m.docs)
        self.name_idf = {
            name: math.log(1.0 + documents / max(len(docs), 1)) for name, docs in name_docs.items()
        }
        self.doc_names: dict[str, frozenset[str]] = {
            doc: frozenset(self.mentions[i].core for i in found if self.mentions[i].kind != "value")
            for doc, found in self.members.items()
        }
        self.mean_idf = float(np.mean(list(self.name_idf.values()))) if self.name_idf else 1.0
        self._contexts: dict[int, frozenset[str]] = {}
        # Which names carry each word, for `distinctive`.
        self.token_names: dict[str, set[frozenset[str]]] = defaultdict(set)
        for m in self.mentions:
            if m.kind != "value":
                for token in set(m.tokens) - _CONNECTORS:
                    self.token_names[token].add(frozenset(m.tokens))
        self._distinctive: dict[tuple[str, ...], bool] = {}
        self._ambiguous: dict[str, bool] = {}
        self._relations: dict[tuple[int, int], Relation] = {}
        self._containers: dict[tuple[int, str], frozenset[int]] = {}

    def relation(self, i: int, j: int) -> Relation:
        key = (i, j) if i < j else (j, i)
        found = self._relations.get(key)
        if found is None:
            found = relation(self.mentions[key[0]], self.mentions[key[1]])
            self._relations[key] = found
        return found

    def containers(self, short: int, doc: str) -> frozenset[int]:
        """The same-typed names of `doc` that contain (or alias) the name `short`."""
        key = (short, doc)
        found = self._containers.get(key)
        if found is None:
            length = len(self.mentions[short].tokens)
            found = frozenset(
                other
                for other in self.members[doc]
                if other != short
                and self.mentions[other].kind != "value"
                and len(self.mentions[other].tokens) >= length
                and self.relation(short, other)
                in (Relation.CONTAINED, Relation.ALIAS, Relation.FUZZY)
            )
            self._containers[key] = found
        return found

    def document_evidence(self, short: int, long: int) -> float | None:
        """Share of `short`'s documents that point at `long`; None when they never meet."""
        mention = self.mentions[short]
        if not mention.docs & self.mentions[long].docs:
            return None
        support = against = neutral = 0
        for doc in mention.docs:
            found = self.containers(short, doc)
            if not found:
                neutral += 1
            elif any(
                other != long and self.relation(other, long) is Relation.DISTINCT for other in found
            ):
                against += 1
            else:
                support += 1
        if support == 0:
            return P_WEAK
        return P_EVIDENCE * support / (support + against + neutral / 2)

    def context(self, i: int) -> frozenset[str]:
        """The names mentioned with mention `i` (in its documents, or as its neighbours)."""
        found = self._contexts.get(i)
        if found is None:
            linked = (self.mentions[n] for n in self.neighbours[i])
            names = {m.core for m in linked if m.kind != "value"}
            for doc in self.mentions[i].docs:
                names.update(self.doc_names[doc])
            found = frozenset(names)
            self._contexts[i] = found
        return found

    def distinctive(self, i: int) -> bool:
        """Whether the name has a word that no other name of the tenant carries, except
        its own shorter forms: "Walken" in "Christopher Walken", "Oswald" in "Lee
        Harvey Oswald" (and "Oswald"). "Labour Party", "Olympic Games" or "New York"
        share every word with other names ("Irish Labour Party", "Summer Olympic
        Games", "New York City"): their words describe, and many things carry them."""
        tokens = self.mentions[i].tokens
        found = self._distinctive.get(tokens)
        if found is None:
            own = frozenset(tokens)
            found = any(
                all(name <= own for name in self.token_names[token]) for token in own - _CONNECTORS
            )
            self._distinctive[tokens] = found
        return found

    def specific(self, i: int) -> bool:
        """Whether the name alone identifies its entity across documents (see
        `probability`). An initial or a regnal number is no second word: "Leopold I"
        (emperor, king, duke) is as ambiguous as "Leopold"."""
        mention = self.mentions[i]
        if mention.kind == "value":
            return mention.value is not None and mention.value.startswith(ABSOLUTE_VALUES)
        words = sum(len(t) > 1 for t in mention.tokens)
        return words > 1 and (
            (mention.alias is not None and not self.ambiguous_alias(i)) or self.distinctive(i)
        )

    def equal_name_pairs(
        self, members: Sequence[int], *, chain: bool = True
    ) -> set[tuple[int, int]]:
        """Candidate pairs in a large block of one name (or one value) across documents.

        All pairs of n mentions are n²/2; the model joins them only when the name is
        specific (then a chain is enough: clustering checks every cross pair before a
        join) or when their documents share a name (then they share a context block).
        """
        found: set[tuple[int, int]] = set()
        ordered = sorted(members)
        if chain:
            found.update(pairwise(i for i in ordered if self.specific(i)))
        by_context: dict[str, list[int]] = defaultdict(list)
        for i in ordered:
            for name in self.context(i):
                by_context[name].append(i)
            for doc in self.mentions[i].docs:
                by_context[f"\x00{doc}"].append(i)
        for group in by_context.values():
            if 1 < len(group) <= MAX_BLOCK:
                found.update(combinations(group, 2))
        return found

    def ambiguous_alias(self, i: int) -> bool:
        """Whether a listed name also begins a longer place name of the tenant that is
        not on its row: "New York" beside "New York City" may be the state or the city."""
        mention = self.mentions[i]
        found = self._ambiguous.get(mention.core)
        if found is None:
            width = len(mention.tokens)
            found = any(
                len(other.tokens) > width
                and other.tokens[:width] == mention.tokens
                and other.kind == "location"
                and other.alias != mention.alias
                for other in self.mentions
            )
            self._ambiguous[mention.core] = found
        return found

    def context_evidence(self, i: int, j: int) -> float:
        """How much of the smaller context the two share, and how much that is.

        A name read in many documents has a large context that overlaps anything;
        the share of the smaller context keeps that from counting as agreement.
        """
        own = {self.mentions[i].core, self.mentions[j].core}
        left, right = self.context(i) - own, self.context(j) - own
        overlap = sum(self.name_idf[c] for c in left & right)
        if overlap == 0.0:
            return P_WEAK
        smaller = min(sum(self.name_idf[c] for c in left), sum(self.name_idf[c] for c in right))
        strength = 1.0 - math.exp(-overlap / (CONTEXT_SCALE * self.mean_idf))
        return P_WEAK + (P_EVIDENCE - P_WEAK) * min(strength, overlap / smaller)

    def probability(self, i: int, j: int) -> float:
        if i == j:
            return 1.0
        found = self.relation(i, j)
        a, b = self.mentions[i], self.mentions[j]
        if found is Relation.DISTINCT:
            return 0.0
        if found is Relation.WEAK:
            return P_WEAK
        shared = bool(a.docs & b.docs)
        if found is Relation.EQUAL:
            if shared:
                return P_EQUAL
            if a.kind == "value":
                # "Monday", "3", "$5 million" mean something else in every text; a
                # full date or a year is the same day or year wherever it is read.
                return P_EQUAL if a.value and a.value.startswith(ABSOLUTE_VALUES) else 0.0
            if a.type_key != b.type_key:
                # The same word typed two ways in two texts ("Dublin" the guess, Dublin
                # the place) is as often two things: only a shared text says it is one.
                return P_WEAK
            # One word names many things across a corpus ("Milan", "Punjab",
            # "Kennedy"), and so do names made of words other names carry ("Labour
            # Party"): across texts they are one only when the texts agree. A listed
            # name of several words ("United States") or one with a word of its own
            # ("Christopher Walken") is specific enough alone.
            return P_EQUAL if self.specific(i) else self.context_evidence(i, j)
        uncertain = min(a.confidence, b.confidence) < MIN_FUZZY_CONFIDENCE
        known = (a.alias is not None and a.alias == b.alias) or (
            a.kind == "person" and a.acronym is None and b.acronym is None
        )
        one_word = max(len(a.tokens), len(b.tokens)) == 1
        if found is Relation.ALIAS and known and not uncertain and (shared or not one_word):
            return P_KNOWN_ALIAS
        short, long = (i, j) if len(a.tokens) <= len(b.tokens) else (j, i)
        in_documents = self.document_evidence(short, long)
        if in_documents is not None:
            return in_documents
        # An acronym is defined where it is used ("... League ( NFL )"); elsewhere it
        # spells too many names ("D.C." / "Dodge City") for context to settle.
        acronym = a.acronym is not None or b.acronym is not None
        return P_WEAK if uncertain or acronym else self.context_evidence(i, j)

    def score(
        self, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float64]:
        return np.fromiter(
            (self.probability(i, j) for i, j in zip(left.tolist(), right.tolist(), strict=True)),
            dtype=np.float64,
            count=len(left),
        )


def _keys(m: _Mention) -> Iterable[str]:
    if m.kind == "value":
        yield f"v|{m.value}"
        return
    # Not keyed by type: a low-confidence mention's type is a guess, and the
    # relation rejects confidently different types anyway.
    prefix = ""
    yield f"c|{prefix}|{m.core}"
    if m.alias is not None:
        yield f"l|{prefix}|{m.alias}"
    if m.acronym is not None:
        yield f"a|{prefix}|{m.acronym}"
    for initials in m.initials:
        yield f"a|{prefix}|{initials}"
    if m.kind == "group":
        return
    for token in set(m.tokens) - _CONNECTORS:
        yield f"t|{prefix}|{token}"
        if m.kind == "person" and len(token) > 1:
            for form in given_name_forms(token) - {token}:
                yield f"t|{prefix}|{form}"


def _candidates(model: _Model) -> npt.NDArray[np.int64]:
    blocks: dict[str, list[int]] = defaultdict(list)
    for i, m in enumerate(model.mentions):
        for key in _keys(m):
            blocks[key].append(i)
    found: set[tuple[int, int]] = set()
    for key, members in blocks.items():
        if len(members) < 2:
            continue
        if len(members) > MAX_BLOCK and key.startswith(("c|", "v|")):
            found.update(model.equal_name_pairs(members))
            continue
        if len(members) > SMALL_BLOCK and key.startswith("t|"):
            # A shared word across documents needs shared context to count (see
            # `probability`): pair by document and by context name only.
            found.update(model.equal_name_pairs(members, chain=False))
            continue
        if len(members) <= MAX_BLOCK or not key.startswith("t|"):
            groups: Iterable[list[int]] = [members]
        else:
            by_doc: dict[str, list[int]] = defaultdict(list)
            for i in members:
                for doc in model.mentions[i].docs:
                    by_doc[doc].append(i)
            groups = by_doc.values()
        for group in groups:
            found.update(combinations(sorted(set(group)), 2))
    if not found:
        return np.zeros((0, 2), dtype=np.int64)
    return np.asarray(sorted(found), dtype=np.int64)


def score_mentions(
    entities: Sequence[Entity],
    *,
    neighbours: Mapping[EntityId, set[EntityId]] | None = None,
) -> MentionEvidence:
    """Candidate pairs of text-extracted `entities` and their match probabilities.

    Pass every text entity of a tenant in one call, all types together: the model
    keeps types apart itself (a value may equal a value of another value type),
    and its document and context evidence is counted over everything it is given.
    """
    model = _Model(entities, neighbours)
    pairs = _candidates(model)
    probabilities = (
        model.score(pairs[:, 0], pairs[:, 1]) if len(pairs) else np.zeros(0, dtype=np.float64)
    )
    return MentionEvidence(pairs=pairs, probabilities=probabilities, scorer=model.score)
