"""The type stubs of capkit_rs.typo, capkit_rs.mutator (and the part of capkit_rs._native they
rest on) agree with the installed module, name for name and signature for signature
(mypy's stubtest; skipped where mypy is not installed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ALLOWLIST = Path(__file__).with_name("stubtest_allowlist.txt")


@pytest.mark.parametrize(
    "modules, extra",
    [
        (["capkit_rs.typo", "capkit_rs.mutator"], []),
        # The profile half of the native module is stubbed elsewhere (or not yet).
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
