"""Run the test suite under coverage and refuse a drop below the committed baseline.

    uv run python scripts/coverage_ratchet.py            # check
    uv run python scripts/coverage_ratchet.py --update   # raise the baseline to today's figure

A run that collected no tests exits non-zero: "0 collected" and "all passed" share
pytest's happy path too easily to be trusted by exit status alone.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / ".coverage-baseline"
#: Rounding noise between runs (branch coverage of timing-dependent paths).
TOLERANCE = 0.1
#: Set (by .ci/run) when a PostgreSQL server is there for the adapters' tests.
PG_URL_VARIABLE = "REDSTRING_TEST_PG_URL"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="write today's figure as baseline")
    parser.add_argument("pytest_args", nargs="*", help="extra arguments for pytest")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        data = Path(tmp) / ".coverage"
        env_file = f"--data-file={data}"
        tests = subprocess.run(
            [
                sys.executable,
                "-m",
                "coverage",
                "run",
                env_file,
                "-m",
                "pytest",
                f"--junitxml={report}",
                *args.pytest_args,
            ],
            cwd=ROOT,
        )
        passed = _passed(report)
        # Parallel mode (subprocess measurement) leaves one data file per process.
        subprocess.run(
            [sys.executable, "-m", "coverage", "combine", env_file, "-q", str(Path(tmp))],
            cwd=ROOT,
            capture_output=True,
            check=False,
        )
        # Without a server the PostgreSQL adapters' tests skip (tests/integration/postgres):
        # their modules are left out of the figure rather than counted as untested.
        omit = [] if os.environ.get(PG_URL_VARIABLE) else ["--omit=*/postgres.py"]
        if omit:
            print(f"coverage_ratchet: {PG_URL_VARIABLE} unset, PostgreSQL adapters not measured")
        total = json.loads(
            subprocess.run(
                [sys.executable, "-m", "coverage", "json", env_file, *omit, "-o", "-", "-q"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )["totals"]["percent_covered"]
    baseline = float(BASELINE.read_text().strip()) if BASELINE.exists() else 0.0
    print(f"coverage: {total:.2f}% (baseline {baseline:.2f}%), {passed} tests passed")
    if tests.returncode != 0:
        return tests.returncode
    if passed == 0:
        print("coverage_ratchet: no test passed -- refusing to call that green", file=sys.stderr)
        return 1
    if args.update:
        BASELINE.write_text(f"{total:.2f}\n")
        print(f"baseline raised to {total:.2f}%")
        return 0
    if total + TOLERANCE < baseline:
        print(
            f"coverage_ratchet: coverage fell below the baseline {baseline:.2f}%", file=sys.stderr
        )
        return 1
    return 0


def _passed(report: Path) -> int:
    import xml.etree.ElementTree as ElementTree

    if not report.exists():
        return 0
    root = ElementTree.parse(report).getroot()
    suites = [root] if root.tag == "testsuite" else list(root)
    total = sum(int(s.get("tests", 0)) for s in suites)
    bad = sum(int(s.get(key, 0)) for s in suites for key in ("failures", "errors", "skipped"))
    return total - bad


if __name__ == "__main__":
    raise SystemExit(main())
