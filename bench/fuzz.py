"""Fuzz and tenant-isolation harness (issue 16): the CI tests of tests/reliability, scaled.

Runs `tests/reliability/test_fuzz.py` (hostile CSV, JSONL, text documents, LLM answers,
tenant names, CLI arguments) with `--examples` examples per test, and
`tests/reliability/test_tenant_isolation.py` (the two-tenant state machine, memory,
SQLite and -- when `REDSTRING_TEST_PG_URL` names a server -- PostgreSQL adapters) with
`--runs` runs of `--steps` operations per adapter set.
Prints the examples and operations each one ran and the pytest outcome.

    nice -n 10 uv run python bench/fuzz.py                      # >= 10^5 of each
    uv run python bench/fuzz.py --examples 200 --runs 5 --steps 50   # a quick look

`kill -INT` ends a run early and still prints the tally, even in a background job
(whose shell had SIGINT ignored); the run it interrupted is counted, unfinished.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=17_000, help="per fuzz test (6 tests)")
    parser.add_argument("--runs", type=int, default=500, help="state-machine runs per adapter")
    parser.add_argument("--steps", type=int, default=200, help="operations per run")
    parser.add_argument("--only", choices=["fuzz", "isolation"], default=None)
    parser.add_argument("-k", default=None, help="pytest -k: one test or adapter set")
    args = parser.parse_args(argv)
    # The test modules read these when imported, so they are set first.
    os.environ["REDSTRING_FUZZ_EXAMPLES"] = str(args.examples)
    os.environ["REDSTRING_FUZZ_RUNS"] = str(args.runs)
    os.environ["REDSTRING_FUZZ_STEPS"] = str(args.steps)
    sys.path.insert(0, str(ROOT))
    # A background job starts with SIGINT ignored; pytest turns the interrupt into an
    # exit status, after which the tally below is still printed.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import pytest
    from tests.reliability.fuzz import EXAMPLES

    files = {
        "fuzz": "tests/reliability/test_fuzz.py",
        "isolation": "tests/reliability/test_tenant_isolation.py",
    }
    chosen = [files[args.only]] if args.only else list(files.values())
    started = time.monotonic()
    outcome = pytest.main(
        [
            *(str(ROOT / f) for f in chosen),
            *(["-k", args.k] if args.k else []),
            *("-p", "no:cacheprovider", "-q", "--no-header", "-rA"),
        ]
    )
    seconds = time.monotonic() - started
    print(f"\nexamples per fuzz test (limit {args.examples}):")
    fuzz_total = 0
    for name, count in sorted(EXAMPLES.items()):
        if not name.startswith(("isolation-", "ops-")):
            fuzz_total += count
            print(f"  {name:<8} {count:>8}")
    print(f"  {'total':<8} {fuzz_total:>8}")
    print(
        f"tenant-isolation ({args.runs} runs of up to {args.steps} steps per adapter set; "
        "operations include 4 setup operations a run, every step checks every read path):"
    )
    for adapters in ("MemoryIsolation", "SqliteIsolation", "PostgresIsolation"):
        print(
            f"  {adapters:<16} {EXAMPLES[f'ops-{adapters}']:>8} operations "
            f"{EXAMPLES[f'isolation-{adapters}']:>8} checks "
            f"({EXAMPLES[f'skipped-merges-{adapters}']} merges skipped: no valid snapshot)"
        )
    interrupted = " (interrupted: its last run is counted, unfinished)" if outcome == 2 else ""
    print(f"pytest exit status {int(outcome)} in {seconds:.0f} s{interrupted}")
    return int(outcome)


if __name__ == "__main__":
    raise SystemExit(main())
