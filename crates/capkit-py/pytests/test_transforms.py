"""capkit_rs.transforms: the catalogue's factories (generated, in sync), their examples, pickling,
errors, and a profile with ten catalogue families identical from the CLI, Python and Ray."""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import re
import pickle
import subprocess

import pytest

import capkit_rs
from capkit_rs import CapabilitySuite, _native, models, transforms
from capkit_cli import REPO, require_capkit

CATALOGUE = json.loads(_native._catalogue())


def _generator():
    spec = importlib.util.spec_from_file_location("gen_py_transforms", REPO / "scripts/gen_py_transforms.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_factories_are_up_to_date():
    py, pyi = _generator().render(CATALOGUE)
    here = REPO / "crates/capkit-py/python/capkit_rs"
    stale = "out of date: cargo run -p capkit -- profile transforms --json | python3 scripts/gen_py_transforms.py"
    assert (here / "transforms.py").read_text(encoding="utf-8") == py, stale
    assert (here / "transforms.pyi").read_text(encoding="utf-8") == pyi, stale
    doc = (REPO / "docs/transforms.md").read_text(encoding="utf-8")
    assert _generator().render_doc(CATALOGUE, doc) == doc, stale
    assert sorted(transforms.__all__) == sorted(e["name"] for e in CATALOGUE)
    assert capkit_rs.transforms is transforms


def factory(entry_or_name, **params):
    name = entry_or_name if isinstance(entry_or_name, str) else entry_or_name["name"]
    f = getattr(transforms, name)
    steps = {k: [factory(s.pop("transform"), **s) for s in v] for k, v in params.items() if k in ("steps", "choices")}
    return f(**{**params, **steps})


@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda e: e["name"])
def test_every_factory_reproduces_its_example_and_pickles(entry):
    example = entry["example"]
    if example["output"] is None:
        pytest.skip(f"example not run here: {example['error']}")
    t = factory(entry, **json.loads(json.dumps(example["params"])))
    assert t(example["text"]) == example["output"]
    again = pickle.loads(pickle.dumps(t))
    assert repr(again) == repr(t)
    for text in [example["text"], "", "ß 日本 🙂 שלום", "The quick brown fox, 42 times!"]:
        assert again(text) == t(text)
    # Parameters are the catalogue's, in its order, with its defaults.
    sig = inspect.signature(getattr(transforms, entry["name"]))
    assert list(sig.parameters) == [p["name"] for p in entry["params"]]


def test_errors_are_the_catalogues():
    with pytest.raises(ValueError, match=r"^transform `homoglyph`: rate must be in \[0, 1\], got 2$"):
        transforms.homoglyph(rate=2)
    with pytest.raises(ValueError, match="layout must be one of qwerty"):
        transforms.keyboard(layout="colemak")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed must be an integer"):
        transforms.char_delete(seed=-1)
    with pytest.raises(TypeError, match="composition steps must be capkit_rs Transforms"):
        transforms.chain([str.upper])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="steps must list at least one transform"):
        transforms.chain([])


def test_old_pickles_of_the_built_ins_still_load():
    # The spec of suite-core's TransformSpec, as pickles made before the catalogue hold it.
    t = _native._transform_from_spec('{"transform": "keyboard_typo", "rate": 0.2, "seed": 3, "rng": "chacha"}', "k")
    assert t("hello world") == capkit_rs.keyboard_typo_corruption(0.2, seed=3, rng="chacha")("hello world")
    assert t("hello world") == transforms.keyboard_typo(0.2, seed=3)("hello world")


def test_a_corruption_carries_its_severity_into_reports():
    suite = CapabilitySuite(corruptions={"g10": transforms.homoglyph(rate=0.1), "g30": transforms.homoglyph(rate=0.3)})
    texts = ["good food", "bad food", "good service"]
    report = capkit_rs.capture_profile_report(lambda ts: ["x"] * len(ts), lambda ts: ["x"] * len(ts), texts, suite)
    assert report["suite"]["corruptions"] == [
        {"name": "g10", "family": "homoglyph", "severity": 0.1},
        {"name": "g30", "family": "homoglyph", "severity": 0.3},
    ]


SUITE_FILE = REPO / "examples/profile/suite_catalogue.json"
TEXTS_FILE = REPO / "examples/profile/texts.txt"


def suite_from_file():
    """The suite file's entries as Python factories: one mapping from names to factories."""
    spec = json.loads(SUITE_FILE.read_text())

    def build(entry):
        params = {k: v for k, v in entry.items() if k not in ("name", "transform")}
        return factory(entry["transform"], **params)

    return CapabilitySuite(
        corruptions={e["name"]: build(e) for e in spec["corruptions"]},
        invariances={e["name"]: build(e) for e in spec["invariances"]},
        probes=spec["probes"],
    )


def comparable(report):
    """What the three runs must agree on: counts and figures (not the models' names, the suite
    file's fingerprint, nor the decision API, which Ray does not reach)."""
    out = {k: report[k] for k in ("counts", "profile", "clean", "corruptions", "invariances", "curves")}
    out["counts"] = {k: v for k, v in out["counts"].items() if k != "abstention"}
    out["profile"] = {k: v for k, v in out["profile"].items() if k != "abstention"}
    out["suite"] = report["suite"]["corruptions"], report["suite"]["invariances"]
    return out


def student_rule(texts):
    return ["pos" if "good" in t else "neg" for t in texts]


def teacher_rule(texts):
    return ["pos" if "good" in t.lower() else "neg" for t in texts]


def test_ten_catalogue_families_profile_identically_from_the_cli_python_and_ray(tmp_path):
    spec = json.loads(SUITE_FILE.read_text())
    families = {e["transform"] for e in spec["corruptions"] + spec["invariances"]}
    assert len(families - {"keyboard_typo", "case_jitter", "whitespace", "identity"}) >= 10
    exe = require_capkit()
    student = f"cmd:python3 {REPO}/examples/profile/student.py"
    teacher = f"cmd:python3 {REPO}/examples/profile/teacher.py"
    cli = subprocess.run(
        [exe, "profile", "classify", "--report", "--no-cache", "--texts", str(TEXTS_FILE), "--suite", str(SUITE_FILE),
         "--student", student, "--teacher", teacher],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert cli.returncode == 0, cli.stderr
    from_cli = json.loads(cli.stdout)
    # The report names each stage's transform and parameters, and the page shows them.
    assert from_cli["suite"]["transforms"]["glyph_10"] == {"transform": "homoglyph", "rate": 0.1, "seed": 0}
    assert from_cli["suite"]["transforms"]["nfkc"] == {"transform": "normalize", "form": "NFKC"}
    (tmp_path / "report.json").write_text(cli.stdout)
    page = subprocess.run([exe, "report", str(tmp_path / "report.json")], capture_output=True, text=True)
    assert page.returncode == 0, page.stderr
    # Stage names are user strings, bidi-isolated on the page (<bdi>NAME</bdi>).
    shown = re.sub(r"</?bdi>", "", page.stdout)
    assert "glyph_10 (homoglyph rate=0.1 seed=0; severity 0.1)" in shown
    assert "nfkc (normalize form=&quot;NFKC&quot;)" in shown or 'nfkc (normalize form="NFKC")' in shown
    texts = TEXTS_FILE.read_text().splitlines()
    with models.cmd(["python3", str(REPO / "examples/profile/student.py")], cache=False) as s, \
         models.cmd(["python3", str(REPO / "examples/profile/teacher.py")], cache=False) as t:
        from_python = capkit_rs.capture_profile_report(s, t, texts, suite_from_file())
    assert comparable(from_python) == comparable(from_cli)
    # The same rules as plain functions: the same report.
    assert comparable(capkit_rs.capture_profile_report(student_rule, teacher_rule, texts, suite_from_file())) == comparable(from_cli)
    if not os.environ.get("CAPKIT_REQUIRE_ORACLE"):
        pytest.importorskip("ray")
    import ray
    import capkit_rs.ray as capkit_ray

    # Workers import this module (the models are its functions) from its directory.
    here = os.path.dirname(os.path.abspath(__file__))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"PYTHONPATH": here}})
    try:
        ray.data.DataContext.get_current().enable_progress_bars = False
        from_ray = capkit_ray.profile(
            texts, suite_from_file(),
            student=lambda b: {"label": student_rule(b["text"])},
            teacher=lambda b: {"label": teacher_rule(b["text"])},
            shards=3,
        )
    finally:
        ray.shutdown()
    assert comparable(from_ray) == comparable(from_cli)
