"""Profiles on a teacher budget from Python: the teacher_sample / teacher_budget options of
capture_profile_report and compare_students (the Rust engine's sampling; nothing re-implemented)."""

from __future__ import annotations

import pytest

import capkit_rs
from capkit_rs import CapabilitySuite, capture_profile_report, compare_students, keyboard_typo_corruption


def suite():
    return CapabilitySuite(
        corruptions={"typo_20": keyboard_typo_corruption(0.2, seed=1), "upper": str.upper},
        invariances={"case": capkit_rs.case_jitter_invariance},
        probes=["good"],
    )


def student(texts):
    return ["pos" if "good" in t else "neg" for t in texts]


def other(texts):
    return ["pos" if len(t) % 2 else "neg" for t in texts]


TEXTS = [f"{w} text number {i}" for i in range(400) for w in ["good"] if i % 3] + [
    f"plain text {i}" for i in range(200)
]


def test_the_teacher_answers_the_transformed_texts_of_the_sample_only():
    asked = []

    def teacher(texts):
        asked.extend(texts)
        return ["pos" if "good" in t.lower() else "neg" for t in texts]

    report = capture_profile_report(student, teacher, TEXTS, suite(), teacher_sample=0.1, teacher_seed=4)
    sample = report["counts"]["sample"]
    assert sample["design"] == {"fraction": 0.1, "seed": 4}
    assert 0 < sample["labelled"] < len(TEXTS) / 5
    # The probe, every clean text, and at most 3 stages of the sampled texts.
    assert len(asked) <= 1 + len(TEXTS) + 3 * sample["labelled"]
    upper = report["corruptions"]["upper"]
    assert upper["agreement"]["method"] == "ppi_power_tuned"
    assert upper["estimated"]["teacher_answers"] == sample["labelled"]
    assert upper["agreement"]["lower"] <= upper["agreement"]["estimate"] <= upper["agreement"]["upper"]
    assert report["invariances"]["case"]["estimated"]["figures"] == [
        "teacher_violation", "student_vs_teacher.difference"]
    assert report["clean"]["agreement"]["method"] == "wilson"
    # Sampled shards merge into the single run's report.
    half = len(TEXTS) // 2
    teacher_plain = lambda ts: ["pos" if "good" in t.lower() else "neg" for t in ts]  # noqa: E731
    parts = [capture_profile_report(student, teacher_plain, part, suite(), teacher_sample=0.1, teacher_seed=4)
             for part in (TEXTS[:half], TEXTS[half:])]
    # Equal but for the provenance: a merge lists each shard's texts fingerprint.
    merged = capkit_rs.merge_reports(parts)
    assert len(merged.pop("texts")) == 2
    assert merged == {k: v for k, v in report.items() if k != "texts"}


def test_a_budget_is_a_fraction_of_stages_times_texts():
    teacher = lambda ts: ["pos" if "good" in t.lower() else "neg" for t in ts]  # noqa: E731
    budget = len(TEXTS) * 3 // 4
    report = capture_profile_report(student, teacher, TEXTS, suite(), teacher_budget=budget)
    assert report["counts"]["sample"]["design"]["fraction"] == budget / (3 * len(TEXTS))
    with pytest.raises(ValueError, match="not both"):
        capture_profile_report(student, teacher, TEXTS, suite(), teacher_sample=0.1, teacher_budget=5)
    with pytest.raises(ValueError, match=r"fraction must be in \(0, 1\], got 1.5"):
        capture_profile_report(student, teacher, TEXTS, suite(), teacher_sample=1.5)


def test_compare_students_samples_the_teacher_and_extract_refuses():
    teacher = lambda ts: ["pos" if "good" in t.lower() else "neg" for t in ts]  # noqa: E731
    comparison = compare_students(teacher, {"a": student, "b": other}, TEXTS, suite(), teacher_sample=0.2)
    pair = comparison["pairs"][0]
    assert pair["corruptions"]["upper"]["difference"]["method"] == "ppi_power_tuned"
    assert pair["estimated"]["upper"]["texts"] == len(TEXTS)
    assert "ppi_power_tuned" in comparison["methods"]
    # Refused, saying why: micro F1 is a ratio, and only means get prediction-powered intervals.
    why = "an extract profile cannot sample its teacher: .*a ratio.*no valid interval"
    with pytest.raises(ValueError, match=why):
        compare_students(lambda ts: [{} for _ in ts], {"a": lambda ts: [{} for _ in ts]}, ["x"],
                         CapabilitySuite(), fields=["a"], teacher_sample=0.5)
    with pytest.raises(ValueError, match=why):
        capkit_rs.extractive_profile_report(lambda ts: [{} for _ in ts], lambda ts: [{} for _ in ts], ["x"],
                                            CapabilitySuite(), fields=["a"], teacher_budget=10)
