"""A pytest plugin: mixle 0.7.0's own capability test files, run against capkit_rs.

Loaded with ``-p capkit_mixle_shim`` (before pytest imports any test module), it puts two
modules into ``sys.modules`` under mixle's names, ``mixle.task.capability`` and
``mixle.task.generative_capability``, holding capkit_rs's functions: the test files, and mixle's
own ``mixle.task`` package that re-exports them, then get capkit_rs where they import mixle.
Everything else (mixle's torch distillation of the students, its conftest) is mixle's own.

At the end of the session it checks that every test module collected took the capability
functions from capkit_rs (a shim that did not take is a failure, not a silent run of mixle's
own code), and a test that skipped (torch or safetensors missing: the files ``importorskip``
them) fails the session: this plugin is only loaded where torch is meant to be there.

Used by ``test_mixle_own_tests.py``; ours, not mixle's code.
"""

from __future__ import annotations

import sys
import types

import pytest

import capkit_rs

SHIMS = {
    "mixle.task.capability": (
        "CapabilitySuite",
        "capture_profile",
        "case_jitter_invariance",
        "keyboard_typo_corruption",
        "whitespace_invariance",
    ),
    "mixle.task.generative_capability": ("extractive_capture_profile", "validate_extraction_schema"),
}

_imported = sorted(name for name in SHIMS if name in sys.modules)
if _imported or "mixle.task" in sys.modules:
    raise RuntimeError(f"mixle.task was imported before the capkit_rs shim could stand in for {_imported or 'it'}")

for _name, _names in SHIMS.items():
    _module = types.ModuleType(_name, f"capkit_rs standing in for {_name} (capkit_mixle_shim)")
    for _attr in _names:
        setattr(_module, _attr, getattr(capkit_rs, _attr))
    _module.__all__ = list(_names)
    sys.modules[_name] = _module

_skipped: list[str] = []


def pytest_runtest_logreport(report):
    if report.skipped:
        _skipped.append(f"{report.nodeid}: {report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr}")


def _not_ours(session) -> list[str]:
    """Names a collected test module holds that should be capkit_rs's and are not."""
    wrong = []
    modules = {item.module for item in session.items if getattr(item, "module", None) is not None}
    every = {n for names in SHIMS.values() for n in names}
    for module in modules:
        for attr in sorted(every & set(vars(module))):
            if getattr(module, attr) is not getattr(capkit_rs, attr):
                wrong.append(f"{module.__name__}.{attr}")
    if not modules:
        wrong.append("no test module was collected")
    return wrong


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    problems = [f"skipped: {s}" for s in _skipped]
    problems += [f"not capkit_rs's: {w}" for w in _not_ours(session)]
    if problems:
        print("\ncapkit_mixle_shim: " + "; ".join(problems), file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
