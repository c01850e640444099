"""Issue 33's Python parity with the command line: suite files (`load_suite`, `SuiteSpec.from_dict`)
build the suite `capkit profile --suite` builds, and `render_html` / `write_html` make the page
`capkit report` makes, byte for byte; reports and pages name the models given."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

import pytest

import capkit_rs
from capkit_rs import (
    CapabilitySuite,
    SuiteSpec,
    capture_profile,
    capture_profile_report,
    compare_students,
    keyboard_typo_corruption,
    load_suite,
    models,
    render_html,
    write_html,
)

from capkit_cli import REPO, require_capkit

EXAMPLE = REPO / "examples" / "profile"
TEXTS = (EXAMPLE / "texts.txt").read_text(encoding="utf-8").splitlines()

# Every kind of entry a suite file has: a declared severity and family, a declared reference, a
# composition with a weight and tags, a catalogue invariance with a parameter.
SUITE = {
    "corruptions": [
        {"name": "glyph", "transform": "homoglyph", "rate": 0.3, "severity": 2, "family": "glyphs"},
        {"name": "typo", "transform": "keyboard_typo", "rate": 0.2, "reference": "teacher_clean"},
        {
            "name": "shout",
            "transform": "chain",
            "steps": [{"transform": "uppercase"}, {"transform": "repeat_char", "rate": 0.1}],
            "weight": 2,
            "tags": ["loud"],
        },
    ],
    "invariances": [{"name": "nfkc", "transform": "normalize", "form": "NFKC"}],
    "probes": ["", "good", "GOOD"],
}


def student():
    return models.cmd([sys.executable, str(EXAMPLE / "student.py")], cache=False)


def teacher():
    return models.cmd([sys.executable, str(EXAMPLE / "teacher.py")], cache=False)


def cli(*args, env=None):
    exe = require_capkit()
    proc = subprocess.run([exe, *map(str, args)], cwd=REPO, capture_output=True, env=env)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout


def cli_profile(suite_path, *extra):
    return cli(
        "profile", "classify", "--texts", EXAMPLE / "texts.txt", "--suite", suite_path,
        "--student", f"cmd:{sys.executable} {EXAMPLE / 'student.py'}",
        "--teacher", f"cmd:{sys.executable} {EXAMPLE / 'teacher.py'}", "--no-cache", *extra,
    )


@pytest.fixture
def suite_file(tmp_path):
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(SUITE), encoding="utf-8")
    return path


# ---- suite files ----


def test_load_suite_profiles_as_the_command_line_does(suite_file):
    s, t = student(), teacher()
    profile = capture_profile(s, t, TEXTS, load_suite(suite_file))
    assert profile == json.loads(cli_profile(suite_file))
    # The catalogue example, through its own file.
    catalogue = EXAMPLE / "suite_catalogue.json"
    assert capture_profile(s, t, TEXTS, load_suite(catalogue)) == json.loads(cli_profile(catalogue))
    s.close()
    t.close()


def test_a_suite_file_keeps_what_its_entries_declare(suite_file, tmp_path):
    """Severity, family, reference, weight and tags reach the report as they do the command
    line's (a suite of Python transforms has no way to say them), and so do the suite's
    fingerprint and transforms."""
    s, t = student(), teacher()
    report = capture_profile_report(s, t, TEXTS, load_suite(suite_file))
    cli_report = json.loads(cli_profile(suite_file, "--report"))
    assert report["suite"] == cli_report["suite"]
    assert report["suite"]["corruptions"][0] == {"name": "glyph", "family": "glyphs", "severity": 2.0}
    assert report["suite"]["corruptions"][1]["reference"] == "teacher_clean"
    assert report["suite"]["corruptions"][2]["weight"] == 2.0
    for key in ("counts", "profile", "clean", "corruptions", "invariances", "curves", "abstention"):
        assert report[key] == cli_report[key], key
    s.close()
    t.close()


def test_from_dict_equals_the_file_and_round_trips(suite_file):
    from_file = load_suite(suite_file)
    from_dict = SuiteSpec.from_dict(SUITE)
    assert from_dict == from_file
    assert from_file.path == str(suite_file) and from_dict.path is None
    assert SuiteSpec.from_dict(from_file.to_dict()) == from_file
    assert json.loads(from_file.to_json()) == from_file.to_dict()
    # Defaults written out: the canonical spec, as reports fingerprint it.
    assert from_file.to_dict()["corruptions"][1]["seed"] == 0
    assert list(from_file.corruptions) == ["glyph", "typo", "shout"]
    assert list(from_file.invariances) == ["nfkc"]
    assert from_file.probes == ["", "good", "GOOD"]
    assert from_file.invariances["nfkc"]("ｇｏｏｄ") == "good"
    assert pickle.loads(pickle.dumps(from_file)) == from_file
    assert pickle.loads(pickle.dumps(from_file)).path == str(suite_file)
    assert "glyph, typo, shout" in repr(from_file)


def test_a_suite_spec_is_a_suite_everywhere(suite_file):
    spec = load_suite(suite_file)

    def rule(t):
        return "pos" if "good" in t.lower() else "neg"

    record = CapabilitySuite(corruptions=spec.corruptions, invariances=spec.invariances, probes=spec.probes)
    batch = lambda ts: [rule(t) for t in ts]  # noqa: E731
    # Its transforms are the file's: a record of them profiles the same.
    assert capture_profile(batch, batch, TEXTS, spec) == capture_profile(batch, batch, TEXTS, record)
    comparison = compare_students(batch, {"a": batch, "b": capkit_rs.per_item(rule)}, TEXTS, spec)
    assert comparison["students"]["a"]["suite"]["corruptions"][1]["reference"] == "teacher_clean"
    extract = capkit_rs.extractive_profile_report(
        lambda ts: [{"w": t.split()[0] if t.split() else ""} for t in ts],
        lambda ts: [{"w": t.split()[0] if t.split() else ""} for t in ts],
        TEXTS, spec, fields=["w"],
    )
    assert extract["task"] == "extract"


def test_suite_errors_name_the_file_and_the_entry(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"corruptions": [SUITE["corruptions"][0], {"name": "x", "transform": "homoglyph", "rate": 3}]}))
    with pytest.raises(ValueError, match=rf"^{bad}: corruptions\[1\]: transform `homoglyph`: rate must be in \[0, 1\]"):
        load_suite(bad)
    with pytest.raises(ValueError, match=r"^suite: invariances\[0\]: unknown transform `nope`"):
        SuiteSpec.from_dict({"invariances": [{"name": "x", "transform": "nope"}]})
    with pytest.raises(ValueError, match=r"unknown key `probe`"):
        SuiteSpec.from_dict({"probe": []})
    not_json = tmp_path / "not.json"
    not_json.write_text("{")
    with pytest.raises(ValueError, match=rf"^{not_json}: "):
        load_suite(not_json)
    with pytest.raises(FileNotFoundError) as err:
        load_suite(tmp_path / "missing.json")
    assert err.value.filename == str(tmp_path / "missing.json")


# ---- pages ----


def test_render_html_is_the_command_lines_page(tmp_path, monkeypatch):
    """The same files and SOURCE_DATE_EPOCH give the same bytes as `capkit report`: one report,
    and a report, a comparison and a typo score report on one page."""
    suite = CapabilitySuite(corruptions={"typo": keyboard_typo_corruption(0.2)}, probes=["good"])
    rule = lambda ts: ["pos" if "good" in t else "neg" for t in ts]  # noqa: E731
    report = tmp_path / "report.json"
    report.write_text(json.dumps(capture_profile_report(rule, rule, TEXTS, suite, student_name="s", teacher_name="t")))
    comparison = tmp_path / "comparison.json"
    comparison.write_text(json.dumps(compare_students(rule, {"x": rule, "y": rule}, TEXTS, suite), indent=2) + "\n")
    scores = tmp_path / "scores.json"
    scores.write_text(json.dumps({"scored": 2, "unpredicted": 0, "groups": [{"needs": "nothing", "tasks": [
        {"task": "co", "needs": "nothing", "n": 2, "exact_match": 0.5, "precision": 1.0, "recall": 0.5, "f1": 0.5}]}]}))
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    one = cli("report", report)
    assert render_html(report).encode() == one
    assert render_html(str(report)).encode() == one
    assert "2023-11-14 22:13 UTC" in one.decode()
    many = cli("report", report, comparison, scores, env=env)
    assert render_html([report, comparison, scores]).encode() == many
    out = tmp_path / "page.html"
    write_html(out, [report, comparison, scores])
    assert out.read_bytes() == many
    # A dict is the same document, shown under its place among the inputs.
    from_dict = render_html([json.loads(report.read_text()), comparison])
    assert "document 1" in from_dict and str(comparison) in from_dict
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_pages_name_the_models_given(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    suite = CapabilitySuite(corruptions={"typo": keyboard_typo_corruption(0.2)})
    rule = lambda ts: ["pos" if "good" in t else "neg" for t in ts]  # noqa: E731
    report = capture_profile_report(rule, rule, TEXTS, suite, student_name="tiny-student", teacher_name="big-teacher")
    assert report["models"] == {"student": "tiny-student", "teacher": "big-teacher"}
    page = render_html(report)
    assert "tiny-student" in page and "big-teacher" in page
    assert "1970-01-01 00:00 UTC" in page


def test_page_errors_name_the_input(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(ValueError, match=rf"^{bad}: not a document capkit can report on"):
        render_html([bad])
    bad.write_text("{")
    with pytest.raises(ValueError, match=rf"^{bad}: not JSON"):
        render_html(bad)
    with pytest.raises(ValueError, match=r"^document 2: "):
        render_html([{"scored": 0, "unpredicted": 0, "groups": []}, {"format": "nope"}])
    with pytest.raises(FileNotFoundError):
        render_html(tmp_path / "missing.json")
    with pytest.raises(TypeError, match="input 1 is int"):
        render_html([1])
    with pytest.raises(ValueError, match="at least one"):
        render_html([])
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    with pytest.raises(ValueError, match="SOURCE_DATE_EPOCH must be whole seconds"):
        render_html({"scored": 0, "unpredicted": 0, "groups": []})
    # A refused output is refused before any work, and an existing page stays as it was.
    page = tmp_path / "page.html"
    page.write_text("old")
    with pytest.raises(ValueError):
        write_html(page, bad)
    assert page.read_text() == "old"
    with pytest.raises(IsADirectoryError):
        write_html(tmp_path, {"scored": 0, "unpredicted": 0, "groups": []})
