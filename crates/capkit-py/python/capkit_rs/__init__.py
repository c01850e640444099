"""capkit_rs: what a distilled student really captured from its teacher, computed in Rust.

A drop-in replacement for mixle 0.7's capability API -- switch with one import line::

    from capkit_rs import (CapabilitySuite, capture_profile, case_jitter_invariance,
                           keyboard_typo_corruption, whitespace_invariance)

Same names, parameters and returned ``dict`` s (values and key order) as
``mixle.task.capability`` and ``mixle.task.generative_capability``; the built-in transforms run
in Rust with the GIL released, each distinct text is sent to each model once, and any Python
callable still works as a corruption or invariance.

Beyond mixle: :func:`capture_profile_report` / :func:`extractive_profile_report` return the
counts behind a profile with intervals, paired tests and severity curves (the JSON of
``capkit profile --report``), :func:`merge_reports` adds reports over other texts, and
:func:`compare_students` runs several students against one teacher; :func:`render_html` /
:func:`write_html` make the page of ``capkit report``, :func:`load_suite` reads the suite
files of ``capkit profile --suite``, and :func:`per_item` marks a model called one text at a
time. Real models (the
``cmd:``, ``http:``, ``openai:`` and ``file:`` models of ``capkit profile``, cached on disk) are in
:mod:`capkit_rs.models` (the cache's upkeep in :mod:`capkit_rs.cache`), the transform catalogue (every perturbation suite files name, as
factories: ``transforms.homoglyph(rate=0.1)``) in :mod:`capkit_rs.transforms`, typo tasks in
:mod:`capkit_rs.typo`, mutator evaluation in
:mod:`capkit_rs.mutator`, profiles on Ray in :mod:`capkit_rs.ray` (optional extra
``capkit-rs[ray]``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List

from ._native import (
    SuiteSpec,
    Transform,
    __version__,
    capture_profile,
    capture_profile_report,
    case_jitter_invariance,
    compare_students,
    extractive_capture_profile,
    extractive_profile_report,
    keyboard_typo_corruption,
    load_suite,
    merge_reports,
    per_item,
    render_html,
    validate_extraction_schema,
    whitespace_invariance,
    write_html,
    write_report,
)
from . import transforms

__all__ = [
    "CapabilitySuite",
    "SuiteSpec",
    "Transform",
    "__version__",
    "capture_profile",
    "capture_profile_report",
    "case_jitter_invariance",
    "compare_students",
    "extractive_capture_profile",
    "extractive_profile_report",
    "keyboard_typo_corruption",
    "load_suite",
    "merge_reports",
    "per_item",
    "render_html",
    "transforms",
    "validate_extraction_schema",
    "whitespace_invariance",
    "write_html",
    "write_report",
]


@dataclass
class CapabilitySuite:
    """Named corruptions (mildest first), named invariances and probes.

    The same plain record as mixle's: ``corruptions`` and ``invariances`` map a name to a text
    transform (a built-in :class:`Transform` or any ``str -> str`` callable), in the order the
    profile reports them; ``probes`` are fixed inputs whose raw predictions are recorded. Any
    object with these three attributes (mixle's own suites included) is accepted by the profiles.
    """

    corruptions: Dict[Any, Callable[[str], str]] = field(default_factory=dict)
    invariances: Dict[Any, Callable[[str], str]] = field(default_factory=dict)
    probes: List[Any] = field(default_factory=list)
