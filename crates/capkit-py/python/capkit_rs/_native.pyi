"""Type stubs of the native module ``capkit_rs._native`` (the Rust side of the package)."""

from typing import Any, Callable, Dict, Iterable, List, Literal, Optional, Protocol, Union

__version__: str

class Transform:
    """A built-in text transform implemented in Rust; call it like a function."""

    def __call__(self, text: str, /) -> str:
        """Applies the transform to one text (the GIL is released while it runs)."""

def keyboard_typo_corruption(
    rate: float, *, seed: int = 0, rng: Literal["chacha", "mixle"] = "chacha"
) -> Transform:
    """Each letter (Unicode 14.0 category L) becomes a random ``a``-``z`` with probability ``rate``.

    ``ValueError("rate must be in [0, 1], got ...")`` outside ``[0, 1]`` or for NaN. The output
    depends only on (seed, text). ``rng="mixle"`` draws exactly as mixle 0.7 (Python's MT19937
    seeded with ``f"{seed}:{text}"``); ``"chacha"`` (default) is faster.
    """

case_jitter_invariance: Transform
"""Python's ``str.swapcase()`` (full case mappings: ``ß`` -> ``SS``, final sigma)."""

whitespace_invariance: Transform
"""Python's ``" ".join(text.split())``."""

class _Suite(Protocol):
    corruptions: Dict[str, Callable[[str], str]]
    invariances: Dict[str, Callable[[str], str]]
    probes: List[Any]

def capture_profile(student: Any, teacher: Any, texts: Iterable[Any], suite: _Suite) -> Dict[str, Any]:
    """Classifier capture profile, exactly as mixle's ``capture_profile`` returns it.

    Keys in order: ``clean_agreement``, ``corruptions`` (name -> agreement), ``invariances``
    (name -> ``student_violation_rate``/``teacher_violation_rate``), ``probes`` (raw predictions,
    only with probes) and ``abstention`` (escalation rates, only when a side has a decision API).
    Labels agree when their ``str()`` forms are equal. Each distinct text reaches each model once.
    """

def extractive_capture_profile(
    student: Any, teacher: Any, texts: Iterable[Any], suite: _Suite, *, fields: Iterable[str]
) -> Dict[str, Any]:
    """Extractive capture profile (micro field-level F1 against the teacher's clean extraction), as
    mixle's ``extractive_capture_profile`` returns it: ``clean_f1``, ``schema_validity``,
    ``corruptions``, ``invariances`` and, when a side has a decision API, ``abstention``."""

def validate_extraction_schema(
    record: Dict[str, Any], source_text: str, fields: Iterable[str]
) -> Dict[str, Union[bool, List[str]]]:
    """``{"complete", "grounded", "missing", "ungrounded"}`` for one record against its source text."""
