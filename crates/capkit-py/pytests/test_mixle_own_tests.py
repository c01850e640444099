"""mixle 0.7.0's own capability test files, run from the installed mixle package against capkit_rs.

mixle ships ``mixle/tests/capability_suite_test.py`` (5 tests) and
``generative_capability_test.py`` (7 tests); both distil real students with torch. This test
runs them unmodified, from mixle's installed package, in a virtual environment of Debian's
CPython (``/usr/bin/python3``, or ``$CAPKIT_TORCH_PYTHON``) created with
``--system-site-packages`` so that it sees Debian's CPU torch (``apt-get install python3-torch``,
torch 1.13) and numpy, with capkit_rs standing in for mixle's two capability modules
(``mixle_own/capkit_mixle_shim.py``, a pytest plugin). The environment is kept in
``target/py/torch-venv`` and rebuilt when ``requirements-torch.txt`` changes.

Under CI (``CI`` set) a missing torch fails this test; elsewhere it skips, saying what to install.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import capkit_rs

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
REQUIREMENTS = HERE.parent / "requirements-torch.txt"
# In the cargo target directory (`cargo xtask test` passes it as CARGO_TARGET_DIR).
VENV = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "py" / "torch-venv"
TORCH_PYTHON = os.environ.get("CAPKIT_TORCH_PYTHON", "/usr/bin/python3")
FILES = ("mixle.tests.capability_suite_test", "mixle.tests.generative_capability_test")
TESTS = 12  # 5 + 7


def mixle_pin() -> str:
    """The mixle the differential tests pin (requirements-test.txt), so both runs test one mixle."""
    for line in (HERE.parent / "requirements-test.txt").read_text().splitlines():
        if line.startswith("mixle=="):
            return line.strip()
    raise AssertionError("requirements-test.txt pins no mixle")


def torch_or_skip() -> None:
    """Fails under CI, skips elsewhere, when Debian's interpreter cannot import torch."""
    if Path(TORCH_PYTHON).exists():
        probe = subprocess.run([TORCH_PYTHON, "-c", "import torch, numpy"], capture_output=True, text=True)
        if probe.returncode == 0:
            return
        error = (probe.stderr.strip().splitlines() or ["it exited with an error"])[-1]
    else:
        error = "no such interpreter"
    why = (
        f"{TORCH_PYTHON} cannot import torch ({error}): `apt-get install python3-torch` "
        "(Debian's CPU torch), or set CAPKIT_TORCH_PYTHON to an interpreter that has it"
    )
    if os.environ.get("CI"):
        pytest.fail(f"mixle's own capability test files must run under CI: {why}")
    pytest.skip(why)


def torch_venv() -> Path:
    """target/py/torch-venv, made (again) when missing or when its pins changed."""
    python = VENV / "bin" / "python"
    stamp = VENV / "capkit-requirements.txt"
    wanted = f"{TORCH_PYTHON}\n{mixle_pin()}\n{REQUIREMENTS.read_text()}"
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    subprocess.run([TORCH_PYTHON, "-m", "venv", "--clear", "--system-site-packages", str(VENV)], check=True)
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "-r", str(REQUIREMENTS)], check=True)
    # mixle's metadata asks for numpy >= 1.26; Debian's torch is built against Debian's numpy.
    subprocess.run([*pip, "--no-deps", mixle_pin()], check=True)
    stamp.write_text(wanted)
    return python


def test_mixle_own_capability_test_files_pass_against_capkit_rs(tmp_path):
    torch_or_skip()
    python = torch_venv()
    # capkit_rs as this interpreter has it installed (the fresh wheel under `cargo xtask test`):
    # it is abi3, so Debian's CPython imports the same files.
    links = tmp_path / "links"
    links.mkdir()
    (links / "capkit_rs").symlink_to(Path(capkit_rs.__file__).resolve().parent, target_is_directory=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE / "mixle_own"), str(links)]))
    run = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "capkit_mixle_shim", "--pyargs", *FILES],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]
    # pytest -q's last line: "12 passed, 1 warning in 42.03s" (a skip would have failed the run).
    summary = (run.stdout.strip().splitlines() or [""])[-1]
    assert re.match(rf"^{TESTS} passed\b", summary) and "skipped" not in summary, out[-6000:]
