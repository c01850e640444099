"""Type stubs of the native module ``capkit_rs._native`` (the Rust side of the package)."""

import asyncio
import os
from typing import IO, Any, Callable, Dict, Iterable, List, Literal, Optional, Protocol, Tuple, Union, final

from typing_extensions import Self

from .mutator import (
    Inference as Inference,
    InterpretiveFieldState as InterpretiveFieldState,
    InterpretiveState as InterpretiveState,
    StructuredInput as StructuredInput,
    ValueConfidence as ValueConfidence,
)
from .typo import (
    Corpus as Corpus,
    Data as Data,
    Example as Example,
    Keyboard as Keyboard,
    Registry as Registry,
    ScoreResult as ScoreResult,
    Splitter as Splitter,
    Stats as Stats,
    Summary as Summary,
    Task as Task,
    TaskInfo as TaskInfo,
    Unregistered as Unregistered,
    Variant as _Variant,
    _Examples,
)

_PathLike = Union[str, "os.PathLike[str]"]

__version__: str

@final
class Transform:
    """A built-in text transform implemented in Rust; call it like a function."""

    def __call__(self, text: str, /) -> str:
        """Applies the transform to one text (the GIL is released while it runs)."""

def keyboard_typo_corruption(rate: float, *, seed: object = ..., rng: Literal["mixle", "chacha"] = "mixle") -> Transform:
    """Each letter (Unicode 14.0 category L) becomes a random ``a``-``z`` with probability ``rate``.

    ``ValueError("rate must be in [0, 1], got ...")`` outside ``[0, 1]`` or for NaN. The output
    depends only on (seed, text); ``seed`` defaults to 0. By default it draws exactly as mixle 0.7 (Python's MT19937
    seeded with ``f"{seed}:{text}"``): any seed mixle takes (``-1``, ``2**70``, ``"abc"``,
    ``1.5``, ``True``, ``None``...) with mixle's meaning. ``rng="chacha"`` is the faster generator
    of the Rust API and the command line (an int seed in ``[0, 2**64)``).
    """

case_jitter_invariance: Transform
"""Python's ``str.swapcase()`` (full case mappings: ``ß`` -> ``SS``, final sigma)."""

whitespace_invariance: Transform
"""Python's ``" ".join(text.split())``."""

class _SuiteRecord(Protocol):
    corruptions: Dict[Any, Callable[[str], str]]
    invariances: Dict[Any, Callable[[str], str]]
    probes: List[Any]

@final
class SuiteSpec:
    """The suite a suite file describes (``capkit profile --suite FILE``), built by the transform
    catalogue with every entry's declared severity, family and reference; accepted wherever a
    ``CapabilitySuite`` is. Made by :func:`load_suite` or :meth:`from_dict`."""

    @staticmethod
    def from_dict(d: Dict[str, Any]) -> SuiteSpec:
        """The suite a suite file holding ``d`` describes (``{"corruptions": [{"name",
        "transform", ...parameters}], "invariances": [...], "probes": [...]}``); a
        ``ValueError`` names the entry that is wrong (``corruptions[1]: ...``)."""
    @property
    def corruptions(self) -> Dict[str, Transform]:
        """The corruptions, mildest first, as built."""
    @property
    def invariances(self) -> Dict[str, Transform]:
        """The invariances, as built."""
    @property
    def probes(self) -> List[str]:
        """The probes."""
    @property
    def path(self) -> Optional[str]:
        """The file it was read from (``None``: made from a ``dict``)."""
    def to_dict(self) -> Dict[str, Any]:
        """The canonical spec (every parameter written out), which :meth:`from_dict` reads back."""
    def to_json(self) -> str:
        """The canonical spec as a suite file's (indented) JSON."""
    def __eq__(self, other: object, /) -> bool: ...

_Suite = Union[_SuiteRecord, SuiteSpec]

def load_suite(path: _PathLike) -> SuiteSpec:
    """The suite the suite file at ``path`` describes, as ``capkit profile --suite path`` builds it.
    An unreadable file is an ``OSError``; a bad entry a ``ValueError`` naming the file and the entry
    (``suite.json: corruptions[1]: ...``)."""

@final
class per_item:
    """Marks ``f`` as a per-item model: profiles call it with one text (or probe) at a time, never
    with the list of texts. Calling the mark calls ``f``; its other attributes are ``f``'s."""

    def __new__(cls, f: Callable[..., Any]) -> Self: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    @property
    def __wrapped__(self) -> Callable[..., Any]:
        """The callable marked."""

_Document = Union[Dict[str, Any], _PathLike]

def render_html(documents: Union[_Document, Iterable[_Document]]) -> str:
    """The self-contained HTML page ``capkit report`` makes: one profile report, comparison or typo
    score report, or a list of them (in order), each a ``dict`` or the path of its JSON file. The
    same files and ``SOURCE_DATE_EPOCH`` give the command line's page byte for byte; a ``dict`` is
    shown as ``document N``."""

def write_html(path: _PathLike, documents: Union[_Document, Iterable[_Document]]) -> None:
    """:func:`render_html`'s page written to ``path`` atomically, as ``capkit report --out`` writes it."""

def capture_profile(student: Any, teacher: Any, texts: Iterable[Any], suite: _Suite) -> Dict[str, Any]:
    """Classifier capture profile, exactly as mixle's ``capture_profile`` returns it.

    Keys in order: ``clean_agreement``, ``corruptions`` (name -> agreement), ``invariances``
    (name -> ``student_violation_rate``/``teacher_violation_rate``), ``probes`` (raw predictions,
    only with probes) and ``abstention`` (escalation rates, only when a side has a decision API).
    Labels agree when their ``str()`` forms are equal. Each distinct text reaches each model once.
    """

def extractive_capture_profile(
    student: Any, teacher: Any, texts: Iterable[Any], suite: _Suite, *, fields: Iterable[Any]
) -> Dict[str, Any]:
    """Extractive capture profile (micro field-level F1 against the teacher's clean extraction), as
    mixle's ``extractive_capture_profile`` returns it: ``clean_f1``, ``schema_validity``,
    ``corruptions``, ``invariances`` and, when a side has a decision API, ``abstention``."""

def validate_extraction_schema(
    record: Dict[Any, Any], source_text: str, fields: Iterable[Any]
) -> Dict[str, Union[bool, List[Any]]]:
    """``{"complete", "grounded", "missing", "ungrounded"}`` for one record against its source text
    (``missing`` holds objects of ``fields``, ``ungrounded`` the record's own keys)."""

# --- typo (re-exported by capkit_rs.typo without the prefix) ---------------------------------

typo_DEFAULT_RATIO: Tuple[float, float, float]
typo_TRAIN: str
typo_VAL: str
typo_TEST: str
typo_FIELDS: Tuple[str, ...]
typo_KEYBOARD_NAMES: Tuple[str, ...]

def typo_select(registry: Registry, *ids: str) -> List[Task]: ...
def typo_task_info(id: str) -> Optional[TaskInfo]: ...
def typo_emit(tasks: Iterable[Task], corpus: Iterable[str], source: str = "") -> Corpus: ...
def typo_emit_with_empty(tasks: Iterable[Task], corpus: Iterable[str], source: str = "") -> Corpus: ...
def typo_assign(corpus: Corpus, ratio: Any = None, salt: str = "") -> None: ...
def typo_leakage(examples: _Examples) -> List[str]: ...
def typo_representable(example: Example) -> bool: ...
def typo_filter(examples: _Examples, split: str) -> Corpus: ...
def typo_write_jsonl(dest: Union[_PathLike, IO[bytes]], examples: _Examples) -> str: ...
def typo_write_jsonl_stream(
    names: Iterable[str],
    dest: Union[_PathLike, IO[bytes]],
    *,
    tasks: Optional[Iterable[Task]] = None,
    source: str = "",
    split: bool = True,
    ratio: Any = None,
    salt: str = "",
    with_empty: bool = False,
    drop_unrepresentable: bool = False,
) -> Dict[str, Any]: ...
def typo_read_jsonl(src: Union[_PathLike, IO[bytes]]) -> Corpus: ...
def typo_jsonl_bytes(examples: _Examples) -> bytes: ...
def typo_stats(examples: _Examples) -> Stats: ...
def typo_split_hash(salt: str, input: str) -> int: ...
def typo_split_position(hash: int) -> float: ...
def typo_fingerprint(jsonl: bytes) -> str: ...
def typo_score(task: Task, input: str, predict: Iterable[_Variant]) -> ScoreResult: ...
def typo_summarize(results: Iterable[ScoreResult], registry: Registry) -> List[Summary]: ...

# --- mutator (wrapped by capkit_rs.mutator) ---------------------------------------------------

mutator_DEFAULT_MUTATOR_ID: str

@final
class LlmMutatorCore:
    """The Rust half of ``capkit_rs.mutator.LLMMutator``: the client and the mutator id."""

    def __new__(cls, client: Any, mutator_id: Optional[str] = None) -> Self: ...
    @property
    def client(self) -> Any: ...
    @property
    def mutator_id(self) -> str: ...

def mutator_evaluate(
    mutator: Any,
    pre_state: InterpretiveState,
    expected_post_state: InterpretiveState,
    mutation_input: StructuredInput,
    metadata: Optional[Dict[str, Any]] = None,
    event_loop: Optional[asyncio.AbstractEventLoop] = None,
) -> Dict[str, Any]: ...
def mutator_mutate(
    core: LlmMutatorCore,
    state: InterpretiveState,
    input: StructuredInput,
    metadata: Optional[Dict[str, Any]] = None,
    event_loop: Optional[asyncio.AbstractEventLoop] = None,
) -> InterpretiveState: ...
def mutator_compare_states(expected: InterpretiveState, actual: InterpretiveState) -> Dict[str, Any]: ...
def mutator_build_prompt(state: InterpretiveState, input: StructuredInput) -> str: ...
def mutator_parse_reply(raw: str) -> List[Dict[str, Any]]: ...
def mutator_run_dataset(
    path: Optional[_PathLike] = None,
    *,
    text: Optional[str] = None,
    client: Any = None,
    event_loop: Optional[asyncio.AbstractEventLoop] = None,
    concurrency: int = 4,
    mutator_id: str = ...,
    out: Optional[_PathLike] = None,
    summary_out: Optional[_PathLike] = None,
    progress: Optional[Callable[[int], Any]] = None,
) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]: ...
def mutator_summarize(results: Iterable[Dict[str, Any]]) -> Dict[str, Any]: ...

def capture_profile_report(
    student: Any,
    teacher: Any,
    texts: Iterable[Any],
    suite: _Suite,
    *,
    student_name: Optional[str] = None,
    teacher_name: Optional[str] = None,
    level: float = 0.95,
    break_even: float = 0.9,
    teacher_sample: Optional[float] = None,
    teacher_budget: Optional[int] = None,
    teacher_seed: int = 0,
    examples: int = 5,
    ledger: Optional[Union[str, "os.PathLike[str]"]] = None,
    reference: Optional[str] = None,
    progress: Optional[Callable[[Dict[str, Any]], Any]] = None,
) -> Dict[str, Any]:
    """The counts behind ``capture_profile`` with every figure derived from them (Wilson intervals,
    McNemar score tests with Tango intervals, Holm-adjusted, severity curves): the ``capkit-profile-report/1``
    JSON as a ``dict``. ``report["profile"]`` is the profile (probe predictions as ``str()``).
    With ``teacher_sample`` (a fraction) or ``teacher_budget`` (teacher calls on transformed
    texts), the teacher answers the transformed texts of a seeded sample only and the figures
    needing them are prediction-powered (PPI++) estimates with intervals. ``examples``: example
    texts per stage and kind of outcome (0: none); ``ledger``: the per-text ledger's path (JSONL,
    written atomically); ``reference``: ``"teacher_clean"`` or ``"teacher_transformed"`` for
    every corruption's headline; ``progress``: a callable told before each model call
    ``{"side", "model", "stage", "texts"}`` (the stage as the engine names it, e.g.
    ``"corruption `typo_05`"``); an exception it raises stops the profile."""

def extractive_profile_report(
    student: Any,
    teacher: Any,
    texts: Iterable[Any],
    suite: _Suite,
    *,
    fields: Iterable[str],
    student_name: Optional[str] = None,
    teacher_name: Optional[str] = None,
    level: float = 0.95,
    break_even: float = 0.9,
    teacher_sample: Optional[float] = None,
    teacher_budget: Optional[int] = None,
    teacher_seed: int = 0,
) -> Dict[str, Any]:
    """The counts behind ``extractive_capture_profile`` (micro TP/FP/FN and the sums behind the F1 intervals).
    A teacher sample is refused (``ValueError``): micro F1 is a ratio whose prediction-powered
    interval is not implemented."""

def merge_reports(reports: Iterable[Dict[str, Any]], *, dedupe: bool = False) -> Dict[str, Any]:
    """The report over all the reports' texts (counts added), by ``capkit profile merge``'s rule:
    refuses reports of different suites, models, settings or tasks, naming what differs, and a
    report whose texts were merged already (its ``texts`` fingerprint repeats) unless ``dedupe``,
    which drops it with a ``UserWarning`` when all its texts were merged already."""

def write_report(path: Union[str, "os.PathLike[str]"], report: Dict[str, Any]) -> None:
    """Writes a report or comparison as ``capkit profile --report --out`` writes it (the same
    bytes for the same report), atomically."""

def compare_students(
    teacher: Any,
    students: Dict[str, Any],
    texts: Iterable[Any],
    suite: _Suite,
    *,
    fields: Optional[Iterable[str]] = None,
    teacher_sample: Optional[float] = None,
    teacher_budget: Optional[int] = None,
    teacher_seed: int = 0,
    examples: int = 5,
    reference: Optional[str] = None,
    aliases: Optional[Dict[str, str]] = None,
    teacher_name: Optional[str] = None,
    level: float = 0.95,
    break_even: float = 0.9,
    progress: Optional[Callable[[Dict[str, Any]], Any]] = None,
) -> Dict[str, Any]:
    """Several students against one teacher (the teacher's answers computed once): each student's
    report and, for every pair, McNemar score tests and Tango intervals of the differences (Holm-adjusted).
    ``teacher_sample`` / ``teacher_budget`` as for ``capture_profile_report`` (classifiers only).
    ``aliases``: ``{alias: student name}`` short names for pages and gates (others A, B, C…);
    ``teacher_name``: the teacher's name (an adapter model's spec without it); ``progress`` as
    for ``capture_profile_report`` (``model``: the student's name)."""
