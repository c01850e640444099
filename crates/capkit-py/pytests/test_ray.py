"""Profiles on a local Ray (ray.init(num_cpus=2)): equal to the single-process report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

if not os.environ.get("CAPKIT_REQUIRE_ORACLE"):
    pytest.importorskip("ray")
import ray  # noqa: E402

import capkit_rs  # noqa: E402
from capkit_cli import require_capkit  # noqa: E402
import capkit_rs.ray as capkit_ray  # noqa: E402
from capkit_rs import CapabilitySuite, keyboard_typo_corruption  # noqa: E402

WORDS = ["good", "bad", "Good", "fine", "GOOD", "awful"]
TEXTS = [f"review {i % 997}: the food was {WORDS[i % 6]} and {WORDS[(i * 7) % 6]}" for i in range(10_000)]


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    # Workers import this module (its functions and classes are the models) from its directory.
    here = os.path.dirname(os.path.abspath(__file__))
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        runtime_env={"env_vars": {"PYTHONPATH": here}},
    )
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


def suite():
    return CapabilitySuite(
        corruptions={"typo_05": keyboard_typo_corruption(0.05), "typo_20": keyboard_typo_corruption(0.2), "upper": str.upper},
        invariances={"case": capkit_rs.case_jitter_invariance, "space": capkit_rs.whitespace_invariance},
        probes=["", "good", "GOOD!!!"],
    )


def student_labels(texts):
    return ["pos" if "good" in t else "neg" for t in texts]


def student_fn(batch):
    """What a Ray Data user writes: a function over a dict batch."""
    return {"label": student_labels(batch["text"])}


class Teacher:
    """A callable class (an actor per worker), constructed with arguments."""

    def __init__(self, word):
        self.word = word

    def __call__(self, batch):
        return {"label": [1 if self.word in t.lower() else 0 for t in batch["text"]]}


def records(texts):
    return [{"food": t.split()[-3], "id": t.split(":")[0]} for t in texts]


def test_classify_report_on_ray_equals_single_process():
    expected = capkit_rs.capture_profile_report(
        lambda ts: student_labels(ts), lambda ts: Teacher("good")({"text": ts})["label"], TEXTS, suite()
    )
    teacher = capkit_ray.model(Teacher, fn_constructor_args=("good",), concurrency=1, batch_size=512)
    got = capkit_ray.profile(TEXTS, suite(), student=student_fn, teacher=teacher, shards=4)
    assert got == expected
    profile = capkit_rs.capture_profile(
        lambda ts: student_labels(ts), lambda ts: Teacher("good")({"text": ts})["label"], TEXTS, suite()
    )
    # A report keeps probe predictions as their str() forms.
    profile["probes"] = {side: [str(p) for p in preds] for side, preds in profile["probes"].items()}
    assert got["profile"] == profile
    # Another shard count, the same report (no output depends on the split).
    assert capkit_ray.profile(TEXTS[:3000], suite(), student=student_fn, teacher=teacher, shards=7) == (
        capkit_rs.capture_profile_report(
            lambda ts: student_labels(ts), lambda ts: Teacher("good")({"text": ts})["label"], TEXTS[:3000], suite()
        )
    )


def test_a_suite_file_on_ray_equals_single_process(tmp_path):
    """Issue 33: a suite file's suite (`load_suite`) travels to the workers as it is, with what
    its entries declare (severity, family, reference)."""
    path = tmp_path / "suite.json"
    path.write_text(json.dumps({
        "corruptions": [
            {"name": "glyph", "transform": "homoglyph", "rate": 0.3, "severity": 2, "family": "glyphs"},
            {"name": "typo", "transform": "keyboard_typo", "rate": 0.2, "reference": "teacher_clean"},
        ],
        "invariances": [{"name": "nfkc", "transform": "normalize", "form": "NFKC"}],
        "probes": ["", "good"],
    }))
    spec = capkit_rs.load_suite(path)
    texts = TEXTS[:600]
    expected = capkit_rs.capture_profile_report(
        lambda ts: student_labels(ts), lambda ts: Teacher("good")({"text": ts})["label"], texts, spec
    )
    teacher = capkit_ray.model(Teacher, fn_constructor_args=("good",), concurrency=1, batch_size=128)
    got = capkit_ray.profile(texts, spec, student=student_fn, teacher=teacher, shards=3)
    assert got == expected
    assert got["suite"]["corruptions"][1]["reference"] == "teacher_clean"


def test_whose_change_examples_and_ledgers_on_ray(tmp_path):
    """Issue 32 on Ray: the whose-change counts and the examples merge to the single process's
    (the report equality above covers them), and each shard writes the single-process ledger of
    its texts."""
    student = lambda ts: student_labels(ts)  # noqa: E731
    teacher = lambda ts: Teacher("good")({"text": ts})["label"]  # noqa: E731
    texts = TEXTS[:900]
    expected = capkit_rs.capture_profile_report(student, teacher, texts, suite(), examples=3, reference="teacher_clean")
    got = capkit_ray.profile(
        texts, suite(), student=student_fn, teacher=capkit_ray.model(Teacher, fn_constructor_args=("good",)),
        shards=3, examples=3, reference="teacher_clean", ledger=str(tmp_path / "ledger"),
    )
    assert got == expected
    assert got["examples"]["k"] == 3 and got["corruptions"]["typo_20"]["reference"] == "teacher_clean"
    offsets = capkit_ray.ledger_offsets(texts, shards=3)
    bounds = offsets + [len(texts)]
    for k in range(3):
        alone = tmp_path / f"alone-{k}.jsonl"
        capkit_rs.capture_profile_report(student, teacher, texts[bounds[k] : bounds[k + 1]], suite(), ledger=alone)
        assert (tmp_path / "ledger" / f"shard-{k:05d}.jsonl").read_bytes() == alone.read_bytes()
    with pytest.raises(ValueError, match="ledger and reference are for classifiers"):
        capkit_ray.profile(texts, suite(), student=records, teacher=records, fields=["food"], ledger=str(tmp_path))


class OnlyThese:
    """A teacher that fails when asked about a text outside `allowed` (what the single process asked)."""

    def __init__(self, allowed):
        self.allowed = set(allowed)

    def __call__(self, batch):
        extra = [str(t) for t in batch["text"] if str(t) not in self.allowed]
        if extra:
            raise ValueError(f"asked about {len(extra)} texts the single process never asked, e.g. {extra[0]!r}")
        return Teacher("good")(batch)


def test_a_sampled_teacher_on_ray_equals_single_process_and_is_asked_the_sample_only():
    texts = TEXTS[:4000]
    asked = []

    def teacher(ts):
        asked.extend(ts)
        return Teacher("good")({"text": ts})["label"]

    # A budget is split over every text (not per shard): 2,000 calls over 5 stages of 4,000 texts.
    expected = capkit_rs.capture_profile_report(
        lambda ts: student_labels(ts), teacher, texts, suite(), teacher_budget=2000, teacher_seed=3
    )
    design = expected["counts"]["sample"]["design"]
    assert design == {"fraction": 0.1, "seed": 3}
    full_calls = len(capkit_rs._native._plan_texts(texts, suite()))
    assert len(set(asked)) < full_calls / 2, (len(set(asked)), full_calls)
    only = capkit_ray.model(OnlyThese, fn_constructor_args=(sorted(set(asked)),), concurrency=1, batch_size=256)
    got = capkit_ray.profile(texts, suite(), student=student_fn, teacher=only, shards=3, teacher_budget=2000, teacher_seed=3)
    assert got == expected
    # The same fraction, given as one, on another shard count; and the plan asks the teacher
    # about exactly the transformed texts of sampled texts.
    assert capkit_ray.profile(texts, suite(), student=student_fn, teacher=only, shards=5, teacher_sample=0.1, teacher_seed=3) == expected
    planned = capkit_rs._native._plan_texts(texts, suite(), teacher_sample=0.1, teacher_seed=3)
    assert {t for t, _, ask in planned if ask} == set(asked) - set(suite().probes)
    assert all(ask for _, stage, ask in planned if stage == "clean")


def test_an_extract_profile_on_ray_refuses_a_teacher_sample_before_any_work():
    s = CapabilitySuite(corruptions={"typo": keyboard_typo_corruption(0.1)}, invariances={}, probes=[])
    with pytest.raises(ValueError, match="an extract profile cannot sample its teacher: .*a ratio.*no valid interval"):
        capkit_ray.profile(TEXTS[:10], s, student=lambda b: {"record": records(b["text"])},
                           teacher=lambda b: {"record": records(b["text"])}, fields=["food"], teacher_sample=0.1)


def test_extract_report_on_ray_equals_single_process():
    s = CapabilitySuite(corruptions={"typo": keyboard_typo_corruption(0.1)}, invariances={"space": capkit_rs.whitespace_invariance})
    expected = capkit_rs.extractive_profile_report(lambda ts: records(ts), lambda ts: records([t.lower() for t in ts]), TEXTS, s, fields=["food", "id"])
    got = capkit_ray.profile(
        ray.data.from_items([{"text": t} for t in TEXTS]),
        s,
        student=lambda b: {"record": records(b["text"])},
        teacher=lambda b: {"record": records([t.lower() for t in b["text"]])},
        fields=["food", "id"],
        shards=4,
    )
    assert got == expected


def test_a_failing_model_fails_the_job_with_side_stage_and_text_ids():
    def flaky(batch):
        if any("BOOM" in t for t in batch["text"]):
            raise ValueError("cannot read capitals")
        return {"label": ["x"] * len(batch["text"])}

    s = CapabilitySuite(corruptions={"shout": lambda t: t.replace("food", "BOOM")})
    with pytest.raises(RuntimeError) as err:
        capkit_ray.profile(TEXTS[:200], s, student=lambda b: {"label": ["x"] * len(b["text"])}, teacher=flaky, shards=2)
    message = str(err.value)
    assert message.startswith("teacher model failed on a batch of ")
    assert "shard 0: clean, corruption:shout" in message
    assert "ValueError: cannot read capitals" in message
    assert "text ids shard:position 0:" in message


def test_importing_capkit_rs_does_not_import_ray():
    code = (
        "import importlib, pkgutil, sys, capkit_rs\n"
        "for m in pkgutil.iter_modules(capkit_rs.__path__):\n"
        "    if m.name != 'ray': importlib.import_module('capkit_rs.' + m.name)\n"
        "print('ray' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "False"


BENCH = Path(__file__).resolve().parents[2] / "typo-tasks" / "tests" / "fixtures" / "bench_domains2000.txt"


def test_typo_corpus_on_ray_is_byte_identical_to_capkit_typo_emit(tmp_path):
    names = BENCH.read_text().splitlines()
    assert len(names) == 2000
    single = subprocess.run(
        [require_capkit(), "typo", "emit", "--corpus", str(BENCH)], check=True, capture_output=True
    ).stdout
    out = capkit_ray.write_typo_jsonl(names, str(tmp_path / "shards"), source="bench_domains2000.txt", shards=7)
    parts = sorted((tmp_path / "shards").glob("part-*.jsonl"))
    assert len(parts) == 7 and [p["path"] for p in out["shards"]] == [str(p) for p in parts]
    assert b"".join(p.read_bytes() for p in parts) == single
    assert out["fingerprint"] == capkit_rs.typo.fingerprint(single)
    assert not list((tmp_path / "shards").glob(".*.tmp"))

    # The Dataset of examples, and a Parquet round trip.
    ds = capkit_ray.typo_corpus(names, source="bench_domains2000.txt", shards=7)
    ds.write_parquet(str(tmp_path / "parquet"))
    back = ray.data.read_parquet(str(tmp_path / "parquet")).take_all()
    rows = sorted(back, key=lambda r: (r["shard"], r["position"]))
    expected = [json.loads(line) for line in single.splitlines()]
    assert len(rows) == len(expected)
    got = [{k: (list(v) if k == "expect" else v) for k, v in r.items() if k not in ("shard", "position")} for r in rows]
    assert got == expected


@pytest.mark.parametrize("empty", ["list", "dataset"])
def test_no_texts_give_the_single_process_report(empty):
    # Issue 21: an empty list or Dataset crashed inside Ray ("Invalid sort key column").
    texts = [] if empty == "list" else ray.data.from_items([{"text": "x"}]).limit(0)
    expected = capkit_rs.capture_profile_report(
        lambda ts: student_labels(ts), lambda ts: Teacher("good")({"text": ts})["label"], [], suite()
    )
    teacher = capkit_ray.model(Teacher, fn_constructor_args=("good",), concurrency=1)
    assert capkit_ray.profile(texts, suite(), student=student_fn, teacher=teacher, shards=2) == expected


@pytest.mark.parametrize("shards", [0, -1, True, 1.5])
def test_shards_must_be_a_positive_int(tmp_path, shards):
    # Issue 21: 0 and negative counts were silently 1.
    with pytest.raises(ValueError, match="shards must be a positive int"):
        capkit_ray.profile(TEXTS[:10], suite(), student=student_fn, teacher=student_fn, shards=shards)
    with pytest.raises(ValueError, match="shards must be a positive int"):
        capkit_ray.write_typo_jsonl(["a.com"], str(tmp_path / "out"), shards=shards)


def test_write_typo_jsonl_refuses_older_parts_and_leaves_nothing_on_failure(tmp_path):
    # Issue 21: older part files stayed (the concatenation was then not the corpus), and a
    # failed write left the shards written before it.
    out = tmp_path / "out"
    out.mkdir()
    (out / "part-00007.jsonl").write_text("old\n")
    with pytest.raises(FileExistsError, match="part-00007.jsonl"):
        capkit_ray.write_typo_jsonl(["google.com"], str(out), shards=1)
    assert sorted(p.name for p in out.iterdir()) == ["part-00007.jsonl"]
    fresh = tmp_path / "fresh"
    # The third shard cannot be JSONL (a bit flip of "ü" is not UTF-8), the first two can.
    names = ["google.com", "example.org", "münchen.de", "a.b"]
    with pytest.raises(RuntimeError, match="typo shard 2"):
        capkit_ray.write_typo_jsonl(names, str(fresh), shards=4, tasks=["bf"], in_flight=1)
    assert list(fresh.iterdir()) == []


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664)])
def test_ray_shards_get_the_umask_mode_of_a_new_file(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        result = capkit_ray.write_typo_jsonl(["google.com", "example.org"], str(tmp_path / "out"), shards=2)
    finally:
        os.umask(old)
    for shard in result["shards"]:
        assert os.stat(shard["path"]).st_mode & 0o777 == mode


def test_class_models_use_ray_datas_current_options(caplog):
    # Issue 21: every class model went through map_batches(concurrency=...), deprecated since
    # Ray 2.51 (a warning per call); the options are now `compute` strategies.
    import logging

    caplog.set_level(logging.WARNING)
    for name in ("ray", "ray.data", "ray.data._internal.util"):
        logging.getLogger(name).propagate = True
    teacher = capkit_ray.model(Teacher, fn_constructor_args=("good",), concurrency=1, batch_size=64)
    got = capkit_ray.profile(TEXTS[:50], suite(), student=student_fn, teacher=teacher, shards=2)
    assert got == capkit_rs.capture_profile_report(
        lambda ts: student_labels(ts), lambda ts: Teacher("good")({"text": ts})["label"], TEXTS[:50], suite()
    )
    assert "concurrency`` is deprecated" not in caplog.text


class Broken:
    def __init__(self):
        raise OSError("no weights here")

    def __call__(self, batch):
        return {"label": ["x"] * len(batch["text"])}


def _raising_corruption(t):
    if "review 7:" in t:
        raise KeyError("cannot corrupt")
    return t.upper()


def test_errors_outside_model_batches_name_side_shard_stage_and_texts():
    # Issue 21: a raising corruption, a record Ray would accept but the single process refuses (a
    # set, any custom object) and a failing constructor came back as raw multi-line Ray errors.
    s = CapabilitySuite(corruptions={"bad": _raising_corruption})
    with pytest.raises(RuntimeError) as err:
        capkit_ray.profile(TEXTS[:20], s, student=student_fn, teacher=student_fn, shards=2)
    message = str(err.value)
    assert message.startswith("planning shard 0 failed (the corruption `bad` failed on text 7; text ids shard:position 0:0..0:9)")
    assert "\n" not in message

    def set_records(batch):
        return {"record": [{"food": {"a", "b"}} for _ in batch["text"]]}

    with pytest.raises(TypeError):
        capkit_rs.extractive_profile_report(lambda ts: [{"food": {"a", "b"}} for _ in ts], records, TEXTS[:4], suite(), fields=["food"])
    for bad in (set_records, lambda b: {"record": [{"food": object()} for _ in b["text"]]}):
        with pytest.raises(RuntimeError) as err:
            capkit_ray.profile(TEXTS[:4], suite(), student=bad, teacher=lambda b: {"record": records(b["text"])}, fields=["food"], shards=1)
        assert str(err.value).startswith("student model failed on a batch of ")
        assert "text ids shard:position 0:0" in str(err.value)

    with pytest.raises(RuntimeError, match="^teacher model failed on a batch of 0 texts .*OSError: no weights here"):
        capkit_ray.profile(TEXTS[:4], suite(), student=student_fn, teacher=Broken, shards=1)


def python_records(texts):
    """Records of the values JSON cannot hold and mixle compares: tuples, bytes, NaN, infinity,
    ints beyond 64 bits, non-str keys."""
    return [
        {"food": (t.split()[-3], 1), 1: t.split()[-3].encode(), "n": 2**70, "x": float("nan"), "y": float("inf")}
        for t in texts
    ]


def test_records_of_python_values_on_ray_equal_single_process():
    # Issue 21: records went to the driver as JSON, which turns a tuple into a list (and cannot
    # hold bytes or a non-str key); they travel pickled now.
    teacher = lambda ts: [{**r, "food": (r["food"][0].lower(), 1.0)} for r in python_records(ts)]  # noqa: E731
    fields = ["food", 1, "n", "x", "y"]
    expected = capkit_rs.extractive_profile_report(python_records, teacher, TEXTS[:200], suite(), fields=fields)
    got = capkit_ray.profile(
        TEXTS[:200],
        suite(),
        student=lambda b: {"record": python_records(b["text"])},
        teacher=lambda b: {"record": teacher(b["text"])},
        fields=fields,
        shards=2,
    )
    assert got == expected
