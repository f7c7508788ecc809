"""The numpy all-MiniLM-L6-v2 (`LocalEmbeddingProvider`): load time, memory, throughput.

Each BLAS thread setting runs in a fresh subprocess, so its load time and peak RSS
are its own (numpy fixes its BLAS thread count at import; the only portable knob is
the environment). For each it prints:

- load s: `LocalEmbeddingProvider().load()` (safetensors read, weights re-laid out,
  tokenizer built), after imports;
- RSS MiB: resident memory after all runs (interpreter, numpy, tokenizer, the 87 MiB
  of float32 weights); peak RSS MiB: the high-water mark, which also counts the
  weight file's pages mapped while loading and the activations of the largest batch;
- texts/s at batch 32 on short names (`full_name` of historical_figures_50k) and on
  60-word passages (CoNLL04 test sentences joined and cut to 60 words), median of 3;
- query p50/p99 ms: one short name per call through `embed_query`, as a search
  embeds its query (through the event loop; a short query runs on the caller's
  thread, `INLINE_QUERY_CHARS`), over the same names; on onnxruntime that is the
  8-bit query encoder when it passed its check at load (`int8 q` says whether);
- f32 query p50 ms: the same names through the float32 encoder (`encode`), each
  timed right after its `embed_query`: the same-run baseline;
- min cosine: the lowest cosine between this row's vector of a name and the numpy
  runtime's (the reference implementation, which matches sentence-transformers).

Each runtime (`--runtimes`: onnxruntime, numpy) runs at each thread setting.

Usage: uv run python bench/embeddings.py [--names 512] [--passages 64] [--threads default,1]
       [--runtimes onnxruntime,numpy]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def load_names(count: int) -> list[str]:
    seen: dict[str, None] = {}
    with gzip.open(DATA / "historical_figures_50k.csv.gz", "rt", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            name = row["full_name"].strip()
            if name:
                seen.setdefault(name, None)
            if len(seen) == count:
                break
    return list(seen)


def load_passages(count: int, words: int = 60) -> list[str]:
    sentences = json.loads((DATA / "conll04" / "conll04_test.json").read_text(encoding="utf-8"))
    stream = [token for sentence in sentences for token in sentence["tokens"]]
    passages = [" ".join(stream[i : i + words]) for i in range(0, len(stream) - words, words)]
    if len(passages) < count:
        raise SystemExit(f"only {len(passages)} passages of {words} words in CoNLL04 test")
    return passages[:count]


def worker(
    names: int, passages: int, repeats: int, threads: int | None, runtime: str
) -> dict[str, object]:
    """Runs in the subprocess: measure, return figures."""
    import asyncio

    from redstring.embeddings.local import LocalEmbeddingProvider

    short, long = load_names(names), load_passages(passages)
    provider = LocalEmbeddingProvider(batch_size=32, threads=threads, runtime=runtime)
    start = time.perf_counter()
    provider.load()
    load_s = time.perf_counter() - start
    tokenizer = provider._get_model().tokenizer
    figures: dict[str, object] = {"load_s": load_s}
    for label, texts in (("names", short), ("passages", long)):
        provider.encode(texts[:32])  # warm caches and BLAS buffers
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            provider.encode(texts)
            times.append(time.perf_counter() - start)
        figures[f"{label}_per_s"] = len(texts) / statistics.median(times)
        figures[f"{label}_tokens"] = statistics.mean(
            len(e.ids) for e in tokenizer.encode_batch(texts)
        )
    latencies: list[float] = []
    exact_latencies: list[float] = []
    vectors: list[list[float]] = []

    async def queries() -> None:
        for name in short:
            start = time.perf_counter()
            [vector] = await provider.embed_query([name])
            latencies.append((time.perf_counter() - start) * 1000)
            vectors.append(vector)
            # The same query through the float32 encoder, interleaved: the baseline.
            start = time.perf_counter()
            provider.encode([name])
            exact_latencies.append((time.perf_counter() - start) * 1000)

    asyncio.run(queries())
    ordered = sorted(latencies)
    figures["query_p50_ms"] = statistics.median(latencies)
    figures["query_p99_ms"] = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    figures["f32_query_p50_ms"] = statistics.median(exact_latencies)
    figures["int8_queries"] = provider.quantized_queries
    figures["vectors"] = vectors
    figures["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures["rss_mib"] = current_rss_mib()
    return figures


def current_rss_mib() -> float:
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:  # not Linux
        return float("nan")
    kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(kib) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=512, help="short texts per run")
    parser.add_argument("--passages", type=int, default=64, help="60-word texts per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    parser.add_argument(
        "--threads", default="default,1", help="BLAS thread settings, comma separated"
    )
    parser.add_argument("--runtimes", default="onnxruntime,numpy", help="runtimes, comma separated")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker-threads", default="default", help=argparse.SUPPRESS)
    parser.add_argument("--worker-runtime", default="numpy", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker:
        threads = None if args.worker_threads == "default" else int(args.worker_threads)
        figures = worker(args.names, args.passages, args.repeats, threads, args.worker_runtime)
        print(json.dumps(figures))
        return

    rows = []
    for runtime, setting in (
        (r, t) for r in args.runtimes.split(",") for t in args.threads.split(",")
    ):
        env = dict(os.environ)
        if setting != "default":
            env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = setting
        command = [sys.executable, __file__, "--worker", f"--names={args.names}"]
        command += [f"--passages={args.passages}", f"--repeats={args.repeats}"]
        command += [f"--worker-threads={setting}", f"--worker-runtime={runtime}"]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"worker for threads={setting} failed:\n{done.stderr}")
        rows.append((runtime, setting, json.loads(done.stdout.strip().splitlines()[-1])))

    cores = os.cpu_count()
    print(
        f"LocalEmbeddingProvider, batch 32, {cores} CPUs visible, median of {args.repeats}; "
        "query = one name per embed_query call"
    )
    first = rows[0][2]
    print(
        f"names: {args.names} texts, mean {first['names_tokens']:.1f} tokens; "
        f"passages: {args.passages} texts, mean {first['passages_tokens']:.1f} tokens"
    )
    reference = next((f for r, _, f in rows if r == "numpy"), None)
    header = (
        f"{'runtime':>11} {'threads':>7} {'load s':>7} {'RSS MiB':>8} {'peak RSS MiB':>13} "
        f"{'names/s':>8} {'passages/s':>11} {'query p50 ms':>13} {'query p99 ms':>13} "
        f"{'int8 q':>7} {'f32 query p50':>14} {'min cosine':>11}"
    )
    print(header)
    print("-" * len(header))
    for runtime, setting, f in rows:
        cosine = float("nan")
        if reference is not None:
            mine = np.asarray(f["vectors"], dtype=np.float64)
            ref = np.asarray(reference["vectors"], dtype=np.float64)
            cosine = float(np.min(np.sum(mine * ref, axis=1)))
        print(
            f"{runtime:>11} {setting:>7} {f['load_s']:7.2f} {f['rss_mib']:8.0f} "
            f"{f['peak_rss_mib']:13.0f} {f['names_per_s']:8.0f} {f['passages_per_s']:11.1f} "
            f"{f['query_p50_ms']:13.2f} {f['query_p99_ms']:13.2f} "
            f"{'yes' if f['int8_queries'] else 'no':>7} {f['f32_query_p50_ms']:14.2f} "
            f"{cosine:11.6f}"
        )


if __name__ == "__main__":
    main()
