"""Every upstream capability golden, run from Python with the models as Python callables.

Fixtures are the upstream reference run's own outputs, shared with the Rust conformance tests
(``crates/{capture,extractive,suite-core}/tests/fixtures``): the 12 scenarios, the 26 schema
cases and the 100 mixle-mode typo cases. Each result must equal ``expected_profile`` as a ``dict``,
values and key order.
"""

from __future__ import annotations

import builtins
import json
import math
from pathlib import Path

import pytest

import capkit_rs
from scenario_models import key_paths, model, suite

CRATES = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(
    list((CRATES / "capture" / "tests" / "fixtures").glob("scenario_*.json"))
    + list((CRATES / "extractive" / "tests" / "fixtures").glob("scenario_*.json"))
)
SCHEMA_CASES = json.loads(
    (CRATES / "extractive" / "tests" / "fixtures" / "validate_extraction_schema_cases.json").read_text()
)["cases"]
TYPO_CASES = json.loads(
    (CRATES / "suite-core" / "tests" / "fixtures" / "keyboard_typo_cases.json").read_text()
)


def test_all_twelve_scenarios_are_present():
    assert len(SCENARIOS) == 12


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_golden_scenario(path):
    sc = json.loads(path.read_text())
    student, teacher = model(sc["student"]), model(sc["teacher"])
    s = suite(sc["suite"], capkit_rs)
    if sc["function"] == "capture_profile":
        got = capkit_rs.capture_profile(student, teacher, sc["texts"], s)
    else:
        got = capkit_rs.extractive_capture_profile(student, teacher, sc["texts"], s, fields=sc["fields"])
    assert got == sc["expected_profile"]
    assert key_paths(got) == key_paths(sc["expected_profile"])
    # Floats bit for bit, not merely ==.
    assert json.dumps(got) == json.dumps(sc["expected_profile"])


@pytest.mark.parametrize("case", SCHEMA_CASES, ids=lambda c: str(c["id"]))
def test_golden_validate_extraction_schema(case):
    if "python_raises" in case:
        exc = getattr(builtins, case["python_raises"])
        with pytest.raises(exc):
            capkit_rs.validate_extraction_schema(case["record"], case["source_text"], case["fields"])
        return
    got = capkit_rs.validate_extraction_schema(case["record"], case["source_text"], case["fields"])
    assert got == case["result"]
    assert list(got) == case["result_key_order"]


def test_golden_typo_rate_validation():
    assert len(TYPO_CASES["rate_validation"]) >= 9
    for case in TYPO_CASES["rate_validation"]:
        rate = float(case["rate"])
        if case["raises"]:
            with pytest.raises(ValueError) as err:
                capkit_rs.keyboard_typo_corruption(rate)
            assert str(err.value) == case["message"]
        else:
            capkit_rs.keyboard_typo_corruption(rate)


@pytest.mark.parametrize("rng", ["chacha", "mixle"])
def test_typo_rate_errors_use_the_rate_as_python_prints_it(rng):
    for rate, shown in [(2, "2"), (-1, "-1"), (10**400, str(10**400)), (math.inf, "inf")]:
        with pytest.raises(ValueError, match=r"^rate must be in \[0, 1\], got " + shown + "$"):
            capkit_rs.keyboard_typo_corruption(rate, rng=rng)
    with pytest.raises(TypeError):
        capkit_rs.keyboard_typo_corruption("0.5")
    # Upstream accepts bools and ints in range.
    capkit_rs.keyboard_typo_corruption(True)
    capkit_rs.keyboard_typo_corruption(0)


def test_golden_typo_cases_mixle_mode():
    cases = TYPO_CASES["cases"]
    assert len(cases) == 100
    for case in cases:
        typo = capkit_rs.keyboard_typo_corruption(case["rate"], seed=case["seed"], rng="mixle")
        assert typo(case["text"]) == case["output"], case
