"""What a command pays before it runs: the package's names load on first use, and
the CLI does not import extraction or the resolver until a command needs them."""

from __future__ import annotations

import subprocess
import sys

import pytest

import redstring


def _loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_the_cli_starts_without_extraction_or_the_resolver() -> None:
    loaded = _loaded_after("import redstring.cli")
    assert "redstring.application.use_cases" in loaded  # the probe sees the CLI's imports
    heavy = {
        "redstring.composition.build_graph",
        "redstring.extraction.offline",
        "redstring.consolidation.engine",
        "redstring.composition.consolidation",
    }
    assert loaded.isdisjoint(heavy), sorted(loaded & heavy)


def test_a_package_name_is_imported_on_first_use_and_kept() -> None:
    loaded = _loaded_after("import redstring")
    assert "redstring.extraction.offline" not in loaded
    after = _loaded_after("import redstring; redstring.OfflineExtractor")
    assert "redstring.extraction.offline" in after
    assert redstring.OfflineExtractor is vars(redstring)["OfflineExtractor"]


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    with pytest.raises(AttributeError, match="module 'redstring' has no attribute 'Nope'"):
        _ = redstring.Nope
    assert "Entity" in dir(redstring)
