"""The distillation example (examples/distill) at CI size: VADER labels 3,000 fortunes, two
scikit-learn students learn its labels, capkit profiles and compares them and writes the page.

Checks that the one command runs and writes its report, that a second run with the same inputs
and seeds writes byte-identical files, and that the command-line flow (`cli.sh`, every model a
`cmd:` subprocess) counts exactly what the Python flow counts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from capkit_cli import REPO, require_capkit

EXAMPLE = REPO / "examples" / "distill"
FORTUNES = Path("/usr/share/games/fortunes")
LIMIT = "3000"
OUTPUTS = ("training.json", "heldout.jsonl", "compare_default.json", "compare_suite.json",
           "report.html")


def example_env(capkit: str) -> dict:
    # The page prints its date: SOURCE_DATE_EPOCH fixes it, as for any reproducible build.
    return {**os.environ, "CAPKIT_BIN": capkit, "CAPKIT": capkit, "PYTHON": sys.executable,
            "SOURCE_DATE_EPOCH": "1767225600"}


def run_example(out: Path, env: dict) -> None:
    subprocess.run([sys.executable, str(EXAMPLE / "run.py"), "--out", str(out), "--limit", LIMIT],
                   env=env, check=True, stdout=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    capkit = require_capkit()
    if not FORTUNES.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{FORTUNES} is missing: .ci/run installs Debian's `fortunes` package")
        pytest.skip(f"{FORTUNES} is missing: `apt-get install fortunes`")
    env = example_env(capkit)
    first, second = tmp_path_factory.mktemp("first"), tmp_path_factory.mktemp("second")
    run_example(first, env)
    run_example(second, env)
    return first, second, env


def test_distill_example_writes_its_report(runs):
    first, _, _ = runs
    training = json.loads((first / "training.json").read_text())
    assert training["texts"] == int(LIMIT)
    assert training["held_out"] == 600
    assert set(training["teacher_labels"]) == {"pos", "neg", "neu"}
    for name, accuracy in training["held_out_accuracy"].items():
        assert 0.5 < accuracy < 1.0, (name, accuracy)
    comparison = json.loads((first / "compare_suite.json").read_text())
    assert list(comparison["students"]) == ["char_ngram", "word"]
    assert len(comparison["pairs"]) == 1
    page = (first / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "char_ngram" in page and "typo_30" in page


def test_distill_example_is_identical_run_to_run(runs):
    first, second, _ = runs
    for name in OUTPUTS:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_distill_example_cli_counts_what_python_counts(runs):
    first, _, env = runs
    subprocess.run(["bash", str(EXAMPLE / "cli.sh"), str(first)], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    assert (first / "cli_report.html").read_text().startswith("<!DOCTYPE html>")
    for suite in ("default", "suite"):
        python = json.loads((first / f"compare_{suite}.json").read_text())
        cli = json.loads((first / f"cli_compare_{suite}.json").read_text())
        py_students, cli_students = list(python["students"].values()), list(cli["students"].values())
        assert [s["counts"] for s in cli_students] == [s["counts"] for s in py_students], suite
        assert [p["counts"] for p in cli["pairs"]] == [p["counts"] for p in python["pairs"]], suite


def test_the_budget_table_saves_teacher_calls_and_brackets_its_estimates(runs):
    """examples/distill/budget.py (docs/teacher-budget.md's table) on the CI-sized run: twelve
    transformed stages, the teacher asked at least 5x less at 10 % (all its calls, the clean
    texts included), every estimate inside its own interval."""
    first, _, env = runs
    subprocess.run([sys.executable, str(EXAMPLE / "budget.py"), str(first)], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    result = json.loads((first / "budget.json").read_text())
    full, tenth = result["runs"]["full"], result["runs"]["10%"]
    assert result["transformed_stages"] >= 8
    assert full["teacher_calls"] >= 5 * tenth["teacher_calls"], (full, tenth)
    assert full["transformed_calls"] >= 5 * tenth["transformed_calls"], (full, tenth)
    for name, sampled in result["runs"].items():
        assert set(sampled["figures"]) == set(full["figures"])
        for figure, value in sampled["figures"].items():
            assert value["lower"] <= value["estimate"] <= value["upper"], (name, figure, value)
            if name != "full":
                assert value["method"] == "ppi_power_tuned", (name, figure)
