"""Fetch the explorer page's JavaScript dependencies from npm and ship them in the package.

The page (`src/redstring/server/static/`) draws its graph with cytoscape. It comes
from npm at build time, pinned by `explorer/package-lock.json`, and is copied into
`static/vendor/` with its licence; the copy is committed, so a wheel build and an
installed redstring need neither npm nor a network, and no page loads a CDN.
Rerun after changing `explorer/package.json`:

    uv run python scripts/build_explorer.py
    uv run python scripts/build_explorer.py --check   # the committed copy matches npm's
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "explorer"
VENDOR = ROOT / "src" / "redstring" / "server" / "static" / "vendor"
#: npm file -> the name it ships under.
FILES = {
    "node_modules/cytoscape/dist/cytoscape.min.js": "cytoscape.min.js",
    "node_modules/cytoscape/LICENSE": "cytoscape.LICENSE",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="Compare, do not copy.")
    args = parser.parse_args()
    subprocess.run(
        ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=SOURCE, check=True
    )
    stale = []
    for source, name in FILES.items():
        built, shipped = SOURCE / source, VENDOR / name
        if args.check:
            if not shipped.exists() or shipped.read_bytes() != built.read_bytes():
                stale.append(name)
        else:
            VENDOR.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(built, shipped)
    if stale:
        print(f"stale in {VENDOR}: {', '.join(stale)}; run scripts/build_explorer.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
