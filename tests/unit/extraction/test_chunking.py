"""Chunk offsets, coverage and boundary preferences."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.exceptions import InvalidInputError
from redstring.extraction.chunking import chunk_text

TEXTS = st.text(alphabet=st.sampled_from(list("abcXY .!?\n\t,é")), max_size=600)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, size=st.integers(1, 120), data=st.data())
def test_offsets_cover_the_text_in_order(text: str, size: int, data: st.DataObject) -> None:
    """Catches: chunk text drifting from its offsets, gaps between chunks, or no progress."""
    overlap = data.draw(st.integers(0, size - 1))
    chunks = chunk_text(text, size, overlap)
    if not text:
        assert chunks == []
        return
    assert chunks[0].start == 0
    assert chunks[-1].end == len(text)
    for i, chunk in enumerate(chunks):
        assert chunk.index == i
        assert text[chunk.start : chunk.end] == chunk.text
        assert 0 < len(chunk.text) <= size
    for before, after in itertools.pairwise(chunks):
        assert before.start < after.start  # progress
        assert after.start <= before.end  # no gap
        assert before.end - after.start <= overlap  # overlap bounded


def test_prefers_paragraph_then_sentence_then_whitespace() -> None:
    """Catches: cutting mid-sentence when a paragraph or sentence boundary was available."""
    para = "First para has words.\n\nSecond para goes on and on"
    assert chunk_text(para, size=30, overlap=0)[0].text == "First para has words.\n\n"
    sent = "One sentence here. Another one follows"
    assert chunk_text(sent, size=30, overlap=0)[0].text == "One sentence here. "
    words = "alpha beta gamma delta epsilon"
    assert chunk_text(words, size=20, overlap=0)[0].text == "alpha beta gamma "


def test_hard_cut_when_no_boundary() -> None:
    """Catches: an endless loop or oversize chunk on text with no whitespace at all."""
    chunks = chunk_text("x" * 25, size=10, overlap=3)
    assert [c.text for c in chunks] == ["x" * 10, "x" * 10, "x" * 10, "x" * 4]


def test_overlap_starts_at_word_boundary() -> None:
    """Catches: the overlap beginning mid-word, which feeds the model a broken token."""
    text = "alpha beta gamma delta epsilon zeta eta theta"
    chunks = chunk_text(text, size=20, overlap=8)
    for chunk in chunks[1:]:
        assert text[chunk.start - 1].isspace()


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (10, 10), (10, -1)])
def test_bad_window_is_invalid_input(size: int, overlap: int) -> None:
    """Catches: a zero size or overlap >= size looping forever instead of failing fast."""
    with pytest.raises(InvalidInputError):
        chunk_text("text", size, overlap)
