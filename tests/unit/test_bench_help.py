"""Every benchmark answers `--help`: the usage a reader of bench/README.md reaches
for first. An option's help holding a bare "%" (argparse formats help strings)
made `bench/resolution.py --help` crash with a TypeError."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py") if "argparse.ArgumentParser(" in p.read_text())


def test_the_scripts_are_found() -> None:
    assert "resolution" in SCRIPTS
    assert len(SCRIPTS) >= 10


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_benchmark_answers_help(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = importlib.import_module(f"bench.{name}")
    monkeypatch.setattr(sys, "argv", [f"bench/{name}.py", "--help"])
    with pytest.raises(SystemExit) as stopped:
        module.main()
    assert stopped.value.code == 0
    assert "usage:" in capsys.readouterr().out
