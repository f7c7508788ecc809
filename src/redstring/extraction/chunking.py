"""Sliding-window chunking that keeps every chunk's offsets into the original text.

A chunk is at most `size` characters; consecutive chunks share up to `overlap`
characters, so a sentence cut at one window's edge is seen whole by the next.
Inside a window the cut goes at the last paragraph break, else the last
sentence end, else the last whitespace, else (one enormous word) at `size`
exactly. Break points are only searched in the window's second half: cutting
early to honour a paragraph break would make chunks tiny and calls many.

Offsets are into the original string and `text[chunk.start:chunk.end] ==
chunk.text` always holds, so provenance spans found inside a chunk translate
to document spans by adding `chunk.start`. Nothing is stripped or rewritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from redstring.domain.exceptions import InvalidInputError

DEFAULT_CHUNK_SIZE = 4000
DEFAULT_CHUNK_OVERLAP = 200

_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_SENTENCE = re.compile(r"[.!?][\"')\]’”]*\s+")
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Chunk:
    """`text == document[start:end]`; `index` counts from 0 within its document."""

    index: int
    text: str
    start: int
    end: int


def _last_break(pattern: re.Pattern[str], text: str, lo: int, hi: int) -> int | None:
    """The end of the last match of `pattern` in `text[:hi]` that ends in `(lo, hi]`."""
    best: int | None = None
    for match in pattern.finditer(text, lo, hi):
        if match.end() > lo:
            best = match.end()
    return best


def chunk_text(
    text: str, size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_CHUNK_OVERLAP
) -> list[Chunk]:
    """Split `text` into overlapping chunks covering it from first to last character."""
    if size < 1:
        raise InvalidInputError(f"chunk size must be at least 1, got {size}")
    if not 0 <= overlap < size:
        raise InvalidInputError(f"chunk overlap must be in [0, size), got {overlap} for {size}")
    chunks: list[Chunk] = []
    start = 0
    length = len(text)
    while start < length:
        limit = start + size
        if limit >= length:
            end = length
        else:
            # Never cut before start + overlap: the next chunk starts at end - overlap
            # and must start after this one, or the loop would not advance.
            floor = start + max(overlap, size // 2)
            end = (
                _last_break(_PARAGRAPH, text, floor, limit)
                or _last_break(_SENTENCE, text, floor, limit)
                or _last_break(_WHITESPACE, text, floor, limit)
                or limit
            )
        chunks.append(Chunk(index=len(chunks), text=text[start:end], start=start, end=end))
        if end >= length:
            break
        next_start = end - overlap
        if overlap:
            # Start the overlap at a word boundary rather than mid-word.
            gap = _WHITESPACE.search(text, next_start, end)
            if gap is not None and gap.start() > next_start:
                next_start = gap.end()
        start = next_start
    return chunks
