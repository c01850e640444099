"""One runner for the command line and Python (issue 33): the same jobs, report files and merge
rule from both front ends. Each test here failed before the runner crate (`crates/runner`)."""

from __future__ import annotations

import json
import os
import subprocess
import warnings
from pathlib import Path

import pytest

import capkit_rs
from capkit_rs import models
from capkit_cli import REPO, require_capkit

EXAMPLE = REPO / "examples" / "profile"
STUDENT = "cmd:python3 examples/profile/student.py"
TEACHER = "cmd:python3 examples/profile/teacher.py"


def _texts():
    return (EXAMPLE / "texts.txt").read_text(encoding="utf-8").splitlines()


def _suite():
    return capkit_rs.load_suite(str(EXAMPLE / "suite.json"))


def _python_report(**options):
    with models.parse(STUDENT, cache=False) as student, models.parse(TEACHER, cache=False) as teacher:
        return capkit_rs.capture_profile_report(student, teacher, _texts(), _suite(), **options)


def _cli(tmp_path: Path, *args: str) -> bytes:
    out = tmp_path / "cli.json"
    subprocess.run(
        [require_capkit(), "profile", *args, "--out", str(out), "--no-cache", "--progress", "none"],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    return out.read_bytes()


def test_a_python_report_and_the_cli_report_are_byte_identical(tmp_path: Path) -> None:
    """The README's offline example: the CLI's report file and the one Python writes from the same
    texts, suite and models are the same bytes (no `run` block on either side)."""
    cli = _cli(
        tmp_path,
        "classify", "--report",
        "--texts", "examples/profile/texts.txt",
        "--suite", "examples/profile/suite.json",
        "--student", STUDENT,
        "--teacher", TEACHER,
    )
    report = _python_report()
    capkit_rs.write_report(tmp_path / "py.json", report)
    assert (tmp_path / "py.json").read_bytes() == cli
    # The envelope is there: the suite's fingerprint, transforms, probe texts, the texts block.
    written = json.loads(cli)
    assert written["suite"]["fingerprint"].startswith("blake3:")
    assert written["texts"] == report["texts"] and written["texts"][0]["count"] == 10


def test_a_sampled_comparison_is_byte_identical_from_python_and_the_cli(tmp_path: Path) -> None:
    cli = _cli(
        tmp_path,
        "compare",
        "--texts", "examples/profile/texts.txt",
        "--suite", "examples/profile/suite.json",
        "--teacher", TEACHER,
        "--student", STUDENT,
        "--student", "cmd:python3 examples/profile/student_b.py",
        "--alias", f"strict={STUDENT}",
        "--teacher-sample", "0.5",
        "--teacher-seed", "3",
    )
    with models.parse(STUDENT, cache=False) as a, models.parse(
        "cmd:python3 examples/profile/student_b.py", cache=False
    ) as b, models.parse(TEACHER, cache=False) as teacher:
        comparison = capkit_rs.compare_students(
            teacher,
            {STUDENT: a, "cmd:python3 examples/profile/student_b.py": b},
            _texts(),
            _suite(),
            teacher_sample=0.5,
            teacher_seed=3,
            aliases={"strict": STUDENT},
        )
    capkit_rs.write_report(tmp_path / "py.json", comparison)
    assert (tmp_path / "py.json").read_bytes() == cli


def test_merge_reports_refuses_a_repeated_shard_as_the_cli_does() -> None:
    report = _python_report()
    with pytest.raises(ValueError, match=r"the same texts \(blake3 [0-9a-f]+\) are in both"):
        capkit_rs.merge_reports([report, report])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        merged = capkit_rs.merge_reports([report, report], dedupe=True)
    assert any("dropped" in str(w.message) for w in caught)
    assert merged["counts"] == report["counts"], "the repeated shard is not counted twice"


def test_the_cli_refuses_two_copies_of_a_python_report(tmp_path: Path) -> None:
    report = _python_report()
    capkit_rs.write_report(tmp_path / "r.json", report)
    done = subprocess.run(
        [require_capkit(), "profile", "merge", str(tmp_path / "r.json"), str(tmp_path / "r.json")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "the same texts (blake3 " in done.stderr


def test_a_report_of_a_python_suite_describes_its_catalogue_transforms() -> None:
    """A suite built in Python from catalogue transforms is described as a suite file would be:
    its report has a fingerprint and each stage's transform, so merges can check it."""
    suite = capkit_rs.CapabilitySuite(
        corruptions={"typo": capkit_rs.transforms.keyboard_typo(rate=0.1)},
        invariances={"case": capkit_rs.case_jitter_invariance},
        probes=["", "GOOD"],
    )
    student = lambda text: "pos" if "good" in text else "neg"  # noqa: E731
    teacher = lambda texts: ["pos" if "good" in t.lower() else "neg" for t in texts]  # noqa: E731
    report = capkit_rs.capture_profile_report(student, teacher, ["good food", "bad"], suite)
    assert report["suite"]["fingerprint"].startswith("blake3:")
    assert report["texts"][0]["count"] == 2


def test_the_wheel_installs_the_capkit_command() -> None:
    """`pip install capkit-rs` gives the command line too: the console script runs the same code
    as the binary (`capkit::main_with`), exit codes included."""
    import sys

    script = Path(sys.executable).parent / "capkit"
    assert script.exists(), "the wheel installs a `capkit` console script"
    ours = subprocess.run([str(script), "profile", "default-suite"], capture_output=True, check=True)
    theirs = subprocess.run([require_capkit(), "profile", "default-suite"], capture_output=True, check=True)
    assert ours.stdout == theirs.stdout and ours.stdout.startswith(b"{")
    usage = subprocess.run([str(script), "profile", "no-such-command"], capture_output=True)
    assert usage.returncode == 2 and b"unrecognized subcommand" in usage.stderr


def test_progress_is_told_by_the_engine_in_python_too() -> None:
    """`progress=` gets the engine's events (side, model, stage, texts), as the command line's
    progress lines do; an exception it raises stops the profile with that very object."""
    suite = capkit_rs.CapabilitySuite(
        corruptions={"typo": capkit_rs.transforms.keyboard_typo(rate=0.3)},
        invariances={"case": capkit_rs.case_jitter_invariance},
        probes=[],
    )
    student = lambda texts: ["pos" if "good" in t else "neg" for t in texts]  # noqa: E731
    teacher = lambda texts: ["pos" if "good" in t.lower() else "neg" for t in texts]  # noqa: E731
    events = []
    capkit_rs.capture_profile_report(
        student, teacher, ["good food", "bad"], suite, student_name="s", progress=events.append
    )
    told = {(e["side"], e["stage"]) for e in events}
    assert ("student", "clean texts") in told and ("teacher", "clean texts") in told
    assert ("student", "corruption `typo`") in told and ("student", "invariance `case`") in told
    assert all(e["texts"] >= 1 for e in events)
    assert {e["model"] for e in events if e["side"] == "student"} == {"s"}

    comparison_events = []
    capkit_rs.compare_students(
        teacher, {"a": student, "b": student}, ["good food", "bad"], suite,
        progress=comparison_events.append,
    )
    assert {e["model"] for e in comparison_events if e["side"] == "student"} == {"a", "b"}

    class Stop(Exception):
        pass

    def stop(event):
        raise Stop(event["stage"])

    with pytest.raises(Stop):
        capkit_rs.capture_profile_report(student, teacher, ["good food"], suite, progress=stop)
