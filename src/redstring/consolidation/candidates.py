"""Candidate pairs from blocking keys, with block-size guards.

A block is the set of entities filed under one key; every pair inside a block is a
candidate. Two guards keep this from turning into a full scan:

- The type key (`t:`) is never a pairing block: it holds every entity of a type.
- Exact twins (same type, core name and record fields; `twin_signature`) are
  paired with one representative only, and only the representative enters blocks.
- A block larger than `max_block_size` is split by the members' secondary keys
  (the soundex of the core name, then the core name itself). A sub-block still too
  large shares one core name; it is *starred* (each member paired with the first
  only: linear, not quadratic) rather than scanned. Splits and stars are counted
  in `CandidateStats` (`blocks_split`, `blocks_starred`, `starred_memberships`,
  `guard_reasons`), so a report can say what was not compared exhaustively and why.

Key families beyond the domain's `p:` / `s:` (see `FAMILY_BUILDERS`) -- name views,
and for records with fields (people) postcode, birth place, date of birth and a
nickname-aware first initial (`names.given_name_forms`) -- were each
measured on the gold sets with `uv run python bench/resolution.py --blocking-report`
(pair completeness and reduction ratio, with and without the family). Only those
that paid for themselves are in `DEFAULT_FAMILIES`; the figures are in the comment
above it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import jellyfish
import numpy as np
import numpy.typing as npt

from redstring.consolidation.fields import record_field, record_fields
from redstring.consolidation.names import NameView, given_name_forms, name_view, type_kind
from redstring.domain.blocking import TYPE_FAMILY
from redstring.domain.exceptions import InvalidInputError
from redstring.domain.normalization import ascii_letters, normalize_name

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from redstring.domain.entity import Entity

#: Core-name prefix family: like `p:` but after legal forms / honorifics are dropped,
#: so "N.V. Nutricia" and "Nutricia N.V." share a block.
CORE_PREFIX_FAMILY = "c:"
#: Sorted-token family: the core tokens in sorted order ("philips koninklijke").
SORTED_TOKENS_FAMILY = "k:"
#: Initials family: the initials of a multi-token core, or a short single token
#: itself, so "IBM" meets "International Business Machines".
INITIALS_FAMILY = "a:"
#: First-token + last-token family ("thomas|chudleigh"), robust to dropped middles.
FIRST_LAST_FAMILY = "fl:"
#: Last-token family: the surname of most person names, the head noun of many orgs.
LAST_TOKEN_FAMILY = "l:"
#: Date-of-birth family (records with a `dob` field): a typo-free date is rarely shared.
DOB_FAMILY = "d:"
#: Record first name + surname fields (people records), when both are present.
FIELD_NAME_FAMILY = "fs:"
#: Record surname + date of birth fields.
SURNAME_DOB_FAMILY = "sd:"

#: Postcode without its last character ("tq13 8d"): a typo in the final letter, the
#: commonest corruption, still meets; neighbouring units of one sector share it.
POSTCODE_FAMILY = "pc:"
#: Birth place + year of birth ("devon|1630").
BIRTH_PLACE_YEAR_FAMILY = "by:"
#: Birth place + soundex of the last name token ("devon|C324").
BIRTH_PLACE_SURNAME_FAMILY = "bl:"
#: Initial of each full given name the first token may stand for + soundex of the
#: last token ("e|G650" for "Ted Green", "Edward Greene"): nickname-aware first/last.
GIVEN_INITIAL_SURNAME_FAMILY = "gs:"
#: Full given name the first token may stand for + soundex of the last token.
GIVEN_NAME_SURNAME_FAMILY = "gn:"
#: Soundex of the last name token + year of birth ("G650|1861").
SURNAME_YEAR_FAMILY = "ly:"
#: Date of birth with day and month swapped (only when both could be a month).
DOB_SWAPPED_FAMILY = "dw:"

CORE_PREFIX_LENGTH = 4


def _core_prefix(view: NameView, _entity: Entity) -> list[str]:
    return [CORE_PREFIX_FAMILY + view.core[:CORE_PREFIX_LENGTH]] if view.core else []


def _sorted_tokens(view: NameView, _entity: Entity) -> list[str]:
    return [SORTED_TOKENS_FAMILY + " ".join(sorted(view.tokens))] if view.tokens else []


def _initials(view: NameView, _entity: Entity) -> list[str]:
    if len(view.tokens) >= 2:
        return [INITIALS_FAMILY + view.initials]
    if len(view.tokens) == 1 and 2 <= len(view.tokens[0]) <= 5:
        return [INITIALS_FAMILY + view.tokens[0]]
    return []


def _first_last(view: NameView, _entity: Entity) -> list[str]:
    if len(view.tokens) >= 2:
        return [f"{FIRST_LAST_FAMILY}{view.tokens[0]}|{view.tokens[-1]}"]
    return []


def _last_token(view: NameView, _entity: Entity) -> list[str]:
    return [LAST_TOKEN_FAMILY + view.tokens[-1]] if view.tokens else []


def _dob(_view: NameView, entity: Entity) -> list[str]:
    value = record_field(entity, "dob")
    return [DOB_FAMILY + value] if value else []


def _field_names(_view: NameView, entity: Entity) -> list[str]:
    first, last = record_field(entity, "first_name"), record_field(entity, "surname")
    return [f"{FIELD_NAME_FAMILY}{first}|{last}"] if first and last else []


def _surname_dob(_view: NameView, entity: Entity) -> list[str]:
    last, dob = record_field(entity, "surname"), record_field(entity, "dob")
    return [f"{SURNAME_DOB_FAMILY}{last}|{dob}"] if last and dob else []


def _soundex(token: str) -> str:
    letters = ascii_letters(token)
    return str(jellyfish.soundex(letters)) if letters else ""


def _year(dob: str | None) -> str:
    return dob[:4] if dob and dob[:4].isdigit() and len(dob) >= 4 else ""


def _postcode(_view: NameView, entity: Entity) -> list[str]:
    value = record_field(entity, "postcode")
    return [POSTCODE_FAMILY + value[:-1]] if value and len(value) >= 5 else []


def _birth_place_year(_view: NameView, entity: Entity) -> list[str]:
    place, year = record_field(entity, "birth_place"), _year(record_field(entity, "dob"))
    return [f"{BIRTH_PLACE_YEAR_FAMILY}{place}|{year}"] if place and year else []


def _birth_place_surname(view: NameView, entity: Entity) -> list[str]:
    place = record_field(entity, "birth_place")
    code = _soundex(view.tokens[-1]) if view.tokens else ""
    return [f"{BIRTH_PLACE_SURNAME_FAMILY}{place}|{code}"] if place and code else []


def _given_initial_surname(view: NameView, _entity: Entity) -> list[str]:
    if len(view.tokens) < 2 or not (code := _soundex(view.tokens[-1])):
        return []
    initials = sorted({name[0] for name in given_name_forms(view.tokens[0])})
    return [f"{GIVEN_INITIAL_SURNAME_FAMILY}{i}|{code}" for i in initials]


def _given_name_surname(view: NameView, _entity: Entity) -> list[str]:
    if len(view.tokens) < 2 or not (code := _soundex(view.tokens[-1])):
        return []
    names = sorted(given_name_forms(view.tokens[0]))
    return [f"{GIVEN_NAME_SURNAME_FAMILY}{n}|{code}" for n in names]


def _surname_year(view: NameView, entity: Entity) -> list[str]:
    code = _soundex(view.tokens[-1]) if view.tokens else ""
    year = _year(record_field(entity, "dob"))
    return [f"{SURNAME_YEAR_FAMILY}{code}|{year}"] if code and year else []


def _dob_swapped(_view: NameView, entity: Entity) -> list[str]:
    value = record_field(entity, "dob")
    if not value or len(value) != 10:
        return []
    month, day = value[5:7], value[8:10]
    if day == month or not ("01" <= day <= "12"):
        return []
    return [f"{DOB_SWAPPED_FAMILY}{value[:4]}-{day}-{month}"]


FAMILY_BUILDERS: dict[str, Callable[[NameView, Entity], list[str]]] = {
    CORE_PREFIX_FAMILY: _core_prefix,
    SORTED_TOKENS_FAMILY: _sorted_tokens,
    INITIALS_FAMILY: _initials,
    FIRST_LAST_FAMILY: _first_last,
    LAST_TOKEN_FAMILY: _last_token,
    DOB_FAMILY: _dob,
    FIELD_NAME_FAMILY: _field_names,
    SURNAME_DOB_FAMILY: _surname_dob,
    POSTCODE_FAMILY: _postcode,
    BIRTH_PLACE_YEAR_FAMILY: _birth_place_year,
    BIRTH_PLACE_SURNAME_FAMILY: _birth_place_surname,
    GIVEN_INITIAL_SURNAME_FAMILY: _given_initial_surname,
    GIVEN_NAME_SURNAME_FAMILY: _given_name_surname,
    SURNAME_YEAR_FAMILY: _surname_year,
    DOB_SWAPPED_FAMILY: _dob_swapped,
}

#: Families used by default, chosen on the train splits with
#: `uv run python bench/resolution.py --blocking-report` (max block 300, twins starred;
#: PC = pair completeness, twin-aware; pairs = candidates):
#:
#:   people train (25,295 records)        PC      pairs   | orgs train (1,486)   PC    pairs
#:   domain p:+s: only                   0.4559   921,156 |                   0.6382  3,164
#:   previous default c: l: d: a:        0.8635 1,762,845 |                   0.7105  3,394
#:   default (+ pc: by: bl: gs: ly:)     0.9270 1,799,363 |                   0.7105  3,398
#:   default without c:                  0.9262 1,764,436 |                   0.6923  3,281
#:   default without l:                  0.9038 1,696,207 |                   0.6583  3,309
#:   default without d:                  0.9191 1,575,878 |                   0.7105  3,398
#:   default without a:                  0.9202 1,383,478 |                   0.7104  3,395
#:   default without pc:                 0.9010 1,790,809 |                   0.7105  3,398
#:   default without by:                 0.9180 1,788,008 |                   0.7105  3,398
#:   default without bl:                 0.9222 1,798,071 |                   0.7105  3,398
#:   default without gs:                 0.9238 1,789,692 |                   0.7105  3,394
#:   default without ly:                 0.9256 1,796,353 |                   0.7105  3,398
#:   default + k: / fl: / fs: / sd: / gn: / dw:   0.9270-0.9271 (+0..38 pairs);
#:                                       orgs unchanged 0.7105
#:
#: The five record-aware families added together cost 2% more pairs for +6.4 pts of
#: people PC: `pc:` (+2.6), `by:` (+0.9), `bl:` (+0.5), `gs:` (+0.3), `ly:` (+0.1).
#: Measured before "baronet"/"bt" joined `names.PERSON_NOISE`. A separate
#: ablation showed what did not pay: soundex of the last token alone (+0.6 pts for
#: +265k pairs), year+month / year+day / month+day of birth (+0.3..0.6 pts for
#: +120k..230k pairs each). `dw:` (swapped day/month) adds nothing; filing it under
#: `d:` instead *lost* PC, because the extra members pushed "yyyy-01-01" blocks over
#: the guard and they were split. Dropped: `k:`, `fl:`, `fs:`, `sd:`, `gn:`, `dw:`.
#: (Orgs train PC is capped by "N.V. Philips' Gloeilampenfabrieken" vs "Koninklijke
#: Philips": same gold identity, no shared name evidence.)
DEFAULT_FAMILIES: tuple[str, ...] = (
    CORE_PREFIX_FAMILY,
    LAST_TOKEN_FAMILY,
    DOB_FAMILY,
    INITIALS_FAMILY,
    POSTCODE_FAMILY,
    BIRTH_PLACE_YEAR_FAMILY,
    BIRTH_PLACE_SURNAME_FAMILY,
    GIVEN_INITIAL_SURNAME_FAMILY,
    SURNAME_YEAR_FAMILY,
)

#: Largest block scored exhaustively (pairs grow with its square: 300 -> ~45k).
DEFAULT_MAX_BLOCK_SIZE = 300


def resolution_keys(entity: Entity, families: Sequence[str] = DEFAULT_FAMILIES) -> list[str]:
    """Every key this entity is filed under for resolution, `t:` included.

    The entity's own `blocking_keys` (domain `p:`, `s:`, `t:`) plus the extra
    families. A store only finds entities by keys it has indexed, so ingestion that
    wants incremental resolution to see these families files entities under them.
    """
    view = name_view(entity.name, type_kind(entity.entity_type))
    keys = list(entity.blocking_keys)
    for family in families:
        keys.extend(FAMILY_BUILDERS[family](view, entity))
    return list(dict.fromkeys(keys))


def pairing_keys(keys: Sequence[str]) -> list[str]:
    """The keys that may form pairing blocks: all but the type key."""
    return [k for k in keys if not k.startswith(TYPE_FAMILY)]


def secondary_keys(entity: Entity) -> tuple[str, str]:
    """Split keys for an oversized block, coarse to fine: soundex of core, core."""
    view = name_view(entity.name, type_kind(entity.entity_type))
    letters = ascii_letters(view.core)
    return (str(jellyfish.soundex(letters)) if letters else "", view.core)


def twin_signature(entity: Entity) -> str:
    """Entities with equal signatures are exact twins: same type, core name and fields.

    Twins are paired with one representative (the first) and only the
    representative enters the blocks: a company filed 600 times under one spelling
    then costs 600 pairs, not 180,000, and never trips the block-size guard.
    """
    kind = type_kind(entity.entity_type)
    fields = sorted(record_fields(entity).items())
    return json.dumps(
        [normalize_name(entity.entity_type), name_view(entity.name, kind).core, fields]
    )


@dataclass
class CandidateStats:
    """What candidate generation did, including what it declined to do."""

    entities: int = 0
    blocks: int = 0
    blocks_split: int = 0
    blocks_starred: int = 0
    #: Memberships left unpaired because their (sub-)block was refused.
    starred_memberships: int = 0
    pairs: int = 0
    #: Entities paired only with their exact twin's representative.
    twins: int = 0
    guard_reasons: dict[str, int] = field(default_factory=dict)

    @property
    def reduction_ratio(self) -> float:
        total = self.entities * (self.entities - 1) // 2
        return 1.0 - self.pairs / total if total else 1.0


@dataclass(frozen=True)
class CandidateSet:
    """Candidate pairs as index pairs `(i, j)`, `i < j`, into the entity sequence."""

    pairs: npt.NDArray[np.int64]
    stats: CandidateStats
    #: `representative[i]`: the index that stood in the blocks for entity i.
    representative: npt.NDArray[np.int64]


def _block_pairs(members: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    left, right = np.triu_indices(len(members), k=1)
    return np.stack([members[left], members[right]], axis=1)


def _guarded_blocks(
    members: list[int],
    splitters: Sequence[tuple[str, ...]],
    max_block_size: int,
    stats: CandidateStats,
    level: int = 0,
) -> list[list[int]]:
    if len(members) <= max_block_size:
        return [members]
    depth = len(splitters[members[0]]) if members else 0
    if level >= depth:
        # Every member has the same core name: pair each with the first only (a
        # star, linear in size) so they can still be linked, and say so.
        stats.blocks_starred += 1
        stats.starred_memberships += len(members)
        stats.guard_reasons["identical_core_block_starred"] = (
            stats.guard_reasons.get("identical_core_block_starred", 0) + 1
        )
        return [[members[0], m] for m in members[1:]]
    if level == 0:
        stats.blocks_split += 1
    sub: dict[str, list[int]] = defaultdict(list)
    for member in members:
        sub[splitters[member][level]].append(member)
    out: list[list[int]] = []
    for key in sorted(sub):
        out.extend(_guarded_blocks(sub[key], splitters, max_block_size, stats, level + 1))
    return out


def candidate_pairs_from_keys(
    keys: Sequence[Sequence[str]],
    splitters: Sequence[tuple[str, ...]],
    *,
    max_block_size: int = DEFAULT_MAX_BLOCK_SIZE,
    signatures: Sequence[str] | None = None,
    only_pairs_touching: Sequence[int] | None = None,
) -> CandidateSet:
    """Pairs sharing at least one pairing key, under the block-size guard.

    `keys[i]` are entity i's keys, `splitters[i]` its secondary keys, `signatures[i]`
    its `twin_signature` (twins are starred onto one representative when given).
    `only_pairs_touching`, when given, keeps only pairs with at least one end in it
    (the incremental case: new entities against each other and the stored ones).
    """
    if max_block_size < 2:
        raise InvalidInputError("max_block_size must be at least 2")
    stats = CandidateStats(entities=len(keys))
    representative = np.arange(len(keys), dtype=np.int64)
    chunks: list[npt.NDArray[np.int64]] = []
    if signatures is not None:
        first: dict[str, int] = {}
        for index, signature in enumerate(signatures):
            representative[index] = first.setdefault(signature, index)
        twins = np.flatnonzero(representative != np.arange(len(keys)))
        stats.twins = len(twins)
        if len(twins):
            chunks.append(np.stack([representative[twins], twins], axis=1))
    blocks: dict[str, list[int]] = defaultdict(list)
    for index, entity_keys in enumerate(keys):
        if representative[index] != index:
            continue
        for key in pairing_keys(entity_keys):
            blocks[key].append(index)
    for key in sorted(blocks):
        members = blocks[key]
        if len(members) < 2:
            continue
        stats.blocks += 1
        for block in _guarded_blocks(members, splitters, max_block_size, stats):
            if len(block) >= 2:
                chunks.append(_block_pairs(np.asarray(block, dtype=np.int64)))
    pairs = _unique_pairs(chunks, len(keys))
    if only_pairs_touching is not None and len(pairs):
        wanted = np.zeros(len(keys), dtype=bool)
        wanted[np.asarray(list(only_pairs_touching), dtype=np.int64)] = True
        pairs = pairs[wanted[pairs[:, 0]] | wanted[pairs[:, 1]]]
    stats.pairs = len(pairs)
    return CandidateSet(pairs=pairs, stats=stats, representative=representative)


def _unique_pairs(chunks: list[npt.NDArray[np.int64]], n: int) -> npt.NDArray[np.int64]:
    if not chunks:
        return np.zeros((0, 2), dtype=np.int64)
    both = np.concatenate(chunks)
    low = np.minimum(both[:, 0], both[:, 1])
    high = np.maximum(both[:, 0], both[:, 1])
    codes = np.unique(low * n + high)
    return np.stack([codes // n, codes % n], axis=1).astype(np.int64)


def candidate_pairs(
    entities: Sequence[Entity],
    *,
    families: Sequence[str] = DEFAULT_FAMILIES,
    max_block_size: int = DEFAULT_MAX_BLOCK_SIZE,
) -> CandidateSet:
    """`candidate_pairs_from_keys` over `resolution_keys` of each entity."""
    keys = [resolution_keys(e, families) for e in entities]
    splitters = [secondary_keys(e) for e in entities]
    signatures = [twin_signature(e) for e in entities]
    return candidate_pairs_from_keys(
        keys, splitters, max_block_size=max_block_size, signatures=signatures
    )
