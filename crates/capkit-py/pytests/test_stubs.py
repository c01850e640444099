"""The type stubs (typo.pyi, mutator.pyi, models.pyi, transforms.pyi, cache.pyi, _native.pyi) agree with the installed modules, name for
name and signature for signature: mypy's stubtest (mypy is in requirements-test.txt; the test is
skipped only where it is not installed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ALLOWLIST = Path(__file__).with_name("stubtest_allowlist.txt")


@pytest.mark.parametrize(
    "modules, extra",
    [
        (["capkit_rs.typo", "capkit_rs.mutator", "capkit_rs.models", "capkit_rs.transforms", "capkit_rs.cache"], []),
        # Everything the stub declares is checked; what it leaves out (the corpus iterator class,
        # the module's __all__) is internal.
        (["capkit_rs._native"], ["--ignore-missing-stub", "--ignore-unused-allowlist"]),
    ],
)
def test_stubs_match_the_runtime(modules, extra):
    pytest.importorskip("mypy")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--ignore-disjoint-bases", "--allowlist", str(ALLOWLIST), *extra, *modules],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
