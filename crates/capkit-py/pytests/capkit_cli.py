"""The `capkit` command line of this checkout, for differential tests against the Python API."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Optional

import pytest

REPO = Path(__file__).resolve().parents[3]


def capkit_binary() -> Optional[str]:
    """`$CAPKIT_BIN`, else the binary `cargo test`/`cargo build` left in the target directory
    (`cargo xtask test` runs the Rust tests first, so it is there), else `capkit` on PATH."""
    if os.environ.get("CAPKIT_BIN"):
        return os.environ["CAPKIT_BIN"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("debug", "release"):
        exe = target / profile / "capkit"
        if exe.exists():
            return str(exe)
    return shutil.which("capkit")


def require_capkit() -> str:
    exe = capkit_binary()
    if exe is None:
        pytest.skip("no capkit binary: run `cargo build -p capkit` (or set CAPKIT_BIN)")
    return exe
