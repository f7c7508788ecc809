"""CI: the wheel installs light and works offline (issue 11, item 5).

Builds the wheel with its bundled weights (`scripts/build_wheel.py`), installs it
into a fresh virtual environment the way a user would (dependencies from PyPI, not
the lock), then refuses the install if it holds torch or weighs `LIMIT_MIB` or more,
and runs `redstring demo` with the network cut (`unshare -n`, where the kernel lets
us; otherwise with proxies pointed at a closed port) so a run-time download fails.

    uv run python scripts/check_light_install.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from build_wheel import uv  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parent.parent
LIMIT_MIB = 400
FORBIDDEN = ("torch", "sentence_transformers", "nvidia")


def size_mib(folder: Path) -> float:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return total / 2**20


def offline(command: list[str]) -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ)
    if (
        shutil.which("unshare")
        and subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False).returncode
        == 0
    ):
        return ["unshare", "-n", *command], env
    closed = "http://127.0.0.1:9"
    env.update(HTTP_PROXY=closed, HTTPS_PROXY=closed, http_proxy=closed, https_proxy=closed)
    env.update(HF_HUB_OFFLINE="1", NO_PROXY="", no_proxy="")
    return command, env


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="redstring-install-") as tmp:
        work = Path(tmp)
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "build_wheel.py"), "--out-dir", str(work)],
            check=True,
        )
        [wheel] = work.glob("redstring-*.whl")
        venv = work / "venv"
        subprocess.run(
            [*uv(), "venv", "--quiet", "--python", sys.executable, str(venv)], check=True
        )
        python = venv / "bin" / "python"
        subprocess.run(
            [*uv(), "pip", "install", "--quiet", "--python", str(python), str(wheel)], check=True
        )
        [site] = venv.glob("lib/python*/site-packages")
        heavy = sorted(name for name in FORBIDDEN if (site / name).exists())
        mib = size_mib(venv)
        print(f"wheel {wheel.stat().st_size / 2**20:.0f} MiB; installed venv {mib:.0f} MiB")
        if heavy:
            sys.exit(f"the install holds {', '.join(heavy)}")
        if mib >= LIMIT_MIB:
            sys.exit(f"the install weighs {mib:.0f} MiB, over the {LIMIT_MIB} MiB limit")
        command, env = offline([str(venv / "bin" / "redstring"), "demo"])
        demo = subprocess.run(
            command, cwd=work, env=env, capture_output=True, text=True, check=False
        )
        if demo.returncode != 0:
            sys.exit(
                f"redstring demo failed offline:\n{demo.stdout[-2000:]}\n{demo.stderr[-2000:]}"
            )
        print(f"redstring demo ran offline ({' '.join(command[:2])}...)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
