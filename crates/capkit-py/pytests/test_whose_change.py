"""Issue 32 from Python: whose change, changed-text counts, examples, the per-text ledger and the
clean reference, each against a recomputation from the models' own answers (and the ledger
against the command line's bytes)."""

from __future__ import annotations

import json
import subprocess

import pytest
from capkit_rs import (
    CapabilitySuite,
    capture_profile_report,
    case_jitter_invariance,
    compare_students,
    keyboard_typo_corruption,
    merge_reports,
    whitespace_invariance,
)

from capkit_cli import REPO, require_capkit

# Repeats, non-ASCII, a long line, and texts the whitespace rewrite leaves alone.
TEXTS = [
    "good food",
    "Good service and a smile",
    "bad coffee",
    "the GOOD old days were good",
    "naïve crème brûlée, good",
    "good food",
    "日本語 good",
    " ".join(["good"] * 150),
    "bad coffee",
    "fine",
]


def suite():
    return CapabilitySuite(
        corruptions={
            "typo_10": keyboard_typo_corruption(0.1, seed=0),
            "typo_30": keyboard_typo_corruption(0.3, seed=0),
            "upper": lambda t: t.upper(),
            "same": lambda t: t,
        },
        invariances={"case": case_jitter_invariance, "space": whitespace_invariance},
    )


def teacher(text: str) -> str:
    # mixle's rule: a callable is first called with the list of texts and taken per item unless
    # it returns a list of as many answers; a list of texts reads as "" here.
    return "pos" if "good" in str(text).lower() and isinstance(text, str) else "neg"


def student(text: str) -> str:
    words = text.split() if isinstance(text, str) else []
    return "pos" if any(w.startswith("g") for w in words) else "neg"


def test_whose_change_counts_equal_a_recomputation_from_the_answers():
    s = suite()
    report = capture_profile_report(student, teacher, TEXTS, s)
    transforms = {**s.corruptions}
    for name, transform in transforms.items():
        counts = report["counts"]["corruptions"][name]["change"]
        changed = {"both": 0, "student_only": 0, "teacher_only": 0, "neither": 0}
        reference = {"both": 0, "clean_only": 0, "corrupted_only": 0, "neither": 0}
        new = {"teacher_only": 0, "student_only": 0, "both": 0}
        texts_changed = 0
        for t in TEXTS:
            x = transform(t)
            sc, tc, sx, tx = student(t), teacher(t), student(x), teacher(x)
            texts_changed += x != t
            key = {(True, True): "both", (True, False): "student_only", (False, True): "teacher_only", (False, False): "neither"}
            changed[key[(sx != sc, tx != tc)]] += 1
            rkey = {(True, True): "both", (True, False): "clean_only", (False, True): "corrupted_only", (False, False): "neither"}
            reference[rkey[(sc == tc, sx == tc)]] += 1
            if sc == tc and sx != tx:
                new[{(True, True): "both", (True, False): "student_only", (False, True): "teacher_only"}[(sx != sc, tx != tc)]] += 1
        assert counts == {"texts_changed": texts_changed, "reference": reference, "changed": changed, "new_disagreements": new}, name
    assert report["examples"]["k"] == 5  # the command line's default (profile_stats::DEFAULT_EXAMPLES)
    assert report["corruptions"]["same"]["texts_changed"] == 0
    assert report["invariances"]["case"]["texts_changed"] == len(TEXTS)
    # Shards merge exactly, examples included.
    halves = [capture_profile_report(student, teacher, part, s) for part in (TEXTS[:4], TEXTS[4:])]
    # Equal but for the provenance: a merge lists each shard's texts fingerprint.
    merged = merge_reports(halves)
    assert [t["count"] for t in merged.pop("texts")] == [4, 6]
    assert merged == {k: v for k, v in report.items() if k != "texts"}
    # A comparison's students carry the same counts.
    comparison = compare_students(teacher, {"a": student, "b": teacher}, TEXTS, s)
    assert comparison["students"]["a"]["counts"] == report["counts"]


def test_examples_and_reference_from_python():
    report = capture_profile_report(student, teacher, TEXTS, suite(), examples=2, reference="teacher_clean")
    assert report["examples"]["k"] == 2
    upper = report["examples"]["corruptions"]["upper"]
    for e in upper["student_only"] + upper["teacher_only"] + upper["both"]:
        assert e["transformed"] == e["text"].upper() or e.get("text_cut")
    assert report["corruptions"]["typo_30"]["reference"] == "teacher_clean"
    assert "examples" not in capture_profile_report(student, teacher, TEXTS, suite(), examples=0)
    with pytest.raises(ValueError, match="reference must be"):
        capture_profile_report(student, teacher, TEXTS, suite(), reference="clean")


def test_the_ledger_from_python_is_written_atomically(tmp_path):
    path = tmp_path / "ledger.jsonl"
    capture_profile_report(student, teacher, TEXTS, suite(), ledger=path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == len(TEXTS) * (1 + 4 + 2)
    assert [line["id"] for line in lines[:: 1 + 4 + 2]] == list(range(1, len(TEXTS) + 1))
    assert lines[5 * 7].get("repeat") is True  # "good food" again
    # A failing student leaves no ledger and no temporary file.
    failing = tmp_path / "never.jsonl"

    def broken(text):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        capture_profile_report(broken, teacher, TEXTS, suite(), ledger=failing)
    assert list(tmp_path.iterdir()) == [path]


def test_the_ledger_is_the_command_lines(tmp_path):
    """The same texts, suite and models through `capkit profile classify --ledger` and through
    Python write the same ledger bytes."""
    exe = require_capkit()
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    suite_file = tmp_path / "suite.json"
    suite_file.write_text(
        json.dumps(
            {
                "corruptions": [{"name": "typo_10", "transform": "keyboard_typo", "rate": 0.1, "seed": 0, "rng": "mixle"}],
                "invariances": [{"name": "case", "transform": "case_jitter"}],
            }
        ),
        encoding="utf-8",
    )
    model = tmp_path / "model.py"
    model.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    r = json.loads(line)\n"
        "    label = 'pos' if 'good' in r['text'].lower() else 'neg'\n"
        "    print(json.dumps({'id': r['id'], 'label': label}), flush=True)\n",
        encoding="utf-8",
    )
    cli = tmp_path / "cli.jsonl"
    subprocess.run(
        [exe, "profile", "classify", "--texts", str(texts), "--suite", str(suite_file), "--student", f"cmd:python3 {model}",
         "--teacher", f"cmd:python3 {model}", "--no-cache", "--ledger", str(cli)],
        check=True, cwd=REPO, capture_output=True,
    )
    py = tmp_path / "py.jsonl"
    s = CapabilitySuite(corruptions={"typo_10": keyboard_typo_corruption(0.1, seed=0)}, invariances={"case": case_jitter_invariance})
    capture_profile_report(teacher, teacher, TEXTS, s, ledger=py)
    assert py.read_bytes() == cli.read_bytes()


def test_compare_students_names_the_teacher_and_aliases_students():
    """Issue 33's naming drift: pages and gates used A, B and "unnamed" for Python comparisons."""
    comparison = compare_students(
        teacher, {"word-student": student, "copy": teacher}, TEXTS, suite(), aliases={"w": "word-student"}, teacher_name="vader"
    )
    assert comparison["teacher"] == "vader"
    assert comparison["aliases"] == {"w": "word-student", "A": "copy"}
    assert comparison["students"]["copy"]["models"] == {"student": "copy", "teacher": "vader"}
    with pytest.raises(ValueError, match="aliases"):
        compare_students(teacher, {"a": student, "b": teacher}, TEXTS, suite(), aliases={"x": "nobody"})
