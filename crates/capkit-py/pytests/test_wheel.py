"""The release wheel installs with pip into a fresh virtual environment and imports there."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

import pytest

WHEEL = os.environ.get("CAPKIT_WHEEL")


@pytest.mark.skipif(not WHEEL and not os.environ.get("CAPKIT_REQUIRE_ORACLE"), reason="CAPKIT_WHEEL not set (cargo xtask test sets it)")
def test_the_wheel_installs_into_a_fresh_venv_and_imports():
    assert WHEEL, "cargo xtask test must pass the built wheel in CAPKIT_WHEEL"
    with tempfile.TemporaryDirectory(prefix="capkit-wheel-") as tmp:
        env_dir = Path(tmp) / "venv"
        venv.create(env_dir, with_pip=True)
        python = env_dir / "bin" / "python"
        subprocess.run(
            [python, "-m", "pip", "install", "--disable-pip-version-check", "--quiet", "--no-index", WHEEL],
            check=True,
        )
        out = subprocess.run(
            [
                python,
                "-c",
                "import capkit_rs as c;"
                "s = c.CapabilitySuite(corruptions={'t': c.keyboard_typo_corruption(0.1)}, invariances={'case': c.case_jitter_invariance});"
                "p = c.capture_profile(lambda ts: ['x' for _ in ts], lambda ts: ['x' for _ in ts], ['a', 'b'], s);"
                "print(c.__file__); print(p)",
            ],
            check=True,
            capture_output=True,
            text=True,
            cwd=tmp,
        ).stdout.splitlines()
        assert out[0].startswith(str(env_dir)), "imported from the fresh venv, not the source tree"
        assert out[1] == "{'clean_agreement': 1.0, 'corruptions': {'t': 1.0}, 'invariances': {'case': {'student_violation_rate': 0.0, 'teacher_violation_rate': 0.0}}}"
    assert sys.version_info >= (3, 9)
