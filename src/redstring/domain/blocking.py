"""Blocking keys: cheap labels that put probably-equal entities in the same bucket.

Three families, each a string with a family prefix so they share one index:

- `p:` the first `PREFIX_LENGTH` characters of the normalized name.
- `s:` the soundex code of the **whole** name's ASCII letters. Coding only the
  first token would put "Ada Lovelace" in a block with every Adam and Adams in
  the tenant -- the block-too-large failure blocking exists to avoid.
- `t:` the entity type. It exists so that no entity is unblockable; it is never
  a *query* key, because it matches every entity of that type.

Soundex is given only ASCII letters: jellyfish codes digits, spaces and CJK
into codes that collide far too widely, so a name with no ASCII letters gets
no soundex key at all rather than a meaningless one.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import jellyfish

from redstring.domain.normalization import (
    ascii_letters,
    normalize_name,
    normalized_ascii_letters,
)

if TYPE_CHECKING:
    from redstring.domain.entity import Entity

#: Characters of the normalized name in a prefix key. Four keeps "Lovelace" and
#: "Lovelase" together while splitting a tenant of 100k names into blocks small
#: enough to score exhaustively.
PREFIX_LENGTH = 4

PREFIX_FAMILY = "p:"
SOUNDEX_FAMILY = "s:"
TYPE_FAMILY = "t:"
#: Retrieval-only family (never an entity's `blocking_keys`, so consolidation's
#: blocks are untouched): the first `PREFIX_LENGTH` characters of each name token.
TOKEN_FAMILY = "w:"
#: Tokens shorter than this ("of", initials) key nothing: their blocks are the
#: whole tenant and carry no evidence.
MIN_TOKEN_LENGTH = 2


def prefix_key_for_name(name: str) -> str:
    """`p:` + the first `PREFIX_LENGTH` characters of the normalized name.

    Normalized here rather than trusting `Entity.normalized_name`: that field is
    whatever the extractor wrote, and a key that depended on which extractor ran
    would make blocking silently miss matches across sources.
    """
    return _prefix_key(normalize_name(name))


def _prefix_key(normalized: str) -> str:
    return PREFIX_FAMILY + normalized[:PREFIX_LENGTH]


def soundex_key_for_name(name: str) -> str | None:
    """`s:` + soundex of the name's ASCII letters, or `None` when it has none."""
    return _soundex_key(ascii_letters(name))


def _soundex_key(letters: str) -> str | None:
    return SOUNDEX_FAMILY + str(jellyfish.soundex(letters)) if letters else None


@functools.lru_cache(maxsize=256)
def type_key_for_type(entity_type: str) -> str:
    """`t:` + the normalized type: every entity is in at least one block. Cached:
    a records import asks it of the same type once per record."""
    return TYPE_FAMILY + normalize_name(entity_type)


def name_blocking_keys(name: str, entity_type: str) -> list[str]:
    """Every key an entity of this name and type is filed under, in family order."""
    return normalized_blocking_keys(normalize_name(name), entity_type)


def normalized_blocking_keys(normalized: str, entity_type: str) -> list[str]:
    """`name_blocking_keys` of a name already through `normalize_name` (an entity
    being built normalizes its name once for its `normalized_name` and its keys)."""
    keys = [
        _prefix_key(normalized),
        _soundex_key(normalized_ascii_letters(normalized)),
        type_key_for_type(entity_type),
    ]
    return list(dict.fromkeys(key for key in keys if key is not None))


def prefix_key(entity: Entity) -> str:
    """`prefix_key_for_name` of the entity's name."""
    return prefix_key_for_name(entity.name)


def soundex_key(entity: Entity) -> str | None:
    """`soundex_key_for_name` of the entity's name."""
    return soundex_key_for_name(entity.name)


def type_key(entity: Entity) -> str:
    """`type_key_for_type` of the entity's type."""
    return type_key_for_type(entity.entity_type)


def blocking_keys(entity: Entity) -> list[str]:
    """`name_blocking_keys` of the entity."""
    return name_blocking_keys(entity.name, entity.entity_type)


def name_token_keys(name: str) -> list[str]:
    """`w:` + the first `PREFIX_LENGTH` characters of every token of the normalized name,
    and of every token with its first character dropped.

    Why tokens: the whole-name prefix and soundex miss every query whose *first*
    word differs from the stored name's ("Bill Clinton" for "William Jefferson
    Clinton", "Philips Electronics" for "Koninklijke Philips Electronics"), which
    is most of what a full Jaro-Winkler scan finds and blocking did not. Why the
    dropped first character, on both sides: a stray or lost leading letter
    ("Junilever" for "Unilever") then still shares a key -- one deletion is the
    edit a prefix key cannot otherwise survive.
    """
    keys: list[str] = []
    for token in normalize_name(name).split(" "):
        for part in (token, token[1:]):
            if len(part) >= MIN_TOKEN_LENGTH:
                keys.append(TOKEN_FAMILY + part[:PREFIX_LENGTH])
    return list(dict.fromkeys(keys))


def lexicon_keys(entity: Entity) -> list[str]:
    """Every key the lexical channel finds `entity` under: its own blocking keys but the
    type key (see `query_blocking_keys`), and the token keys of its name and of its
    `normalized_name`."""
    keys = [key for key in entity.blocking_keys if not key.startswith(TYPE_FAMILY)]
    keys += name_token_keys(entity.name) + name_token_keys(entity.normalized_name)
    return list(dict.fromkeys(keys))


def query_lexical_keys(query: str) -> list[str]:
    """The keys the lexical channel looks a query up under: `query_blocking_keys`, then
    `name_token_keys`."""
    return list(dict.fromkeys(query_blocking_keys(query) + name_token_keys(query)))


def query_blocking_keys(query: str) -> list[str]:
    """The keys a free-text query looks for candidates under.

    Prefix and soundex only, never the type key: as a query key it would match
    every entity of that type and turn candidate generation into a full scan.
    `entity_types` is applied as a filter instead. A list (stable order, no
    duplicates, no `None`) because `find_by_blocking_keys` takes a sequence and
    keys its answer by what it was asked.
    """
    keys = [prefix_key_for_name(query), soundex_key_for_name(query)]
    return list(dict.fromkeys(key for key in keys if key is not None))
