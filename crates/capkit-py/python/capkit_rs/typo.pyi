"""Typo generators as exact, learnable tasks (type stubs of ``capkit_rs.typo``)."""

import enum
import os
from typing import (
    IO,
    Any,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
    final,
    overload,
)

from typing_extensions import Self

__all__ = [
    "CATALOG", "Corpus", "DEFAULT_RATIO", "Data", "Example", "FIELDS", "Fingerprinter", "KEYBOARD_NAMES",
    "Keyboard", "Needs", "Ratio", "Registry", "ScoreResult", "Splitter", "Stats", "Summary",
    "TEST", "TRAIN", "Task", "TaskInfo", "Unregistered", "VAL", "Variant", "assign", "describe",
    "emit", "emit_with_empty", "filter", "fingerprint", "jsonl_bytes", "leakage", "read_jsonl",
    "representable", "score", "select", "split_hash", "split_position", "stats", "summarize",
    "task_info", "write_jsonl", "write_jsonl_stream",
]

#: A member of an expected set: ``str``, or ``bytes`` when not UTF-8 (only ``bf`` makes those).
Variant = Union[str, bytes]
_PathLike = Union[str, "os.PathLike[str]"]
_RatioLike = Union["Ratio", Tuple[float, float, float], Sequence[float]]

class Needs(str, enum.Enum):
    """What a task needs besides the name (rule or table)."""

    NOTHING = "nothing"
    LANGUAGE = "language"
    KEYBOARD = "keyboard"

class Ratio(NamedTuple):
    """Relative sizes of the train, val and test splits."""

    train: float
    val: float
    test: float

DEFAULT_RATIO: Ratio
TRAIN: str
VAL: str
TEST: str
FIELDS: Tuple[str, ...]
KEYBOARD_NAMES: Tuple[str, ...]
CATALOG: Tuple["TaskInfo", ...]

@final
class Data:
    """The reference tables of the table tasks and the keyboard layout."""

    def __new__(
        cls,
        *,
        graphemes: Optional[Sequence[str]] = ...,
        vowels: Optional[Sequence[str]] = ...,
        homoglyphs: Optional[Mapping[str, Sequence[str]]] = ...,
        homophones: Optional[Sequence[Sequence[str]]] = ...,
        misspellings: Optional[Sequence[Sequence[str]]] = ...,
        numerals: Optional[Mapping[str, Sequence[str]]] = ...,
        keyboard: Optional[Sequence[str]] = ...,
    ) -> Self: ...
    @staticmethod
    def english() -> "Data":
        """The shipped English tables with the 4-row QWERTY layout."""
    @staticmethod
    def from_json(text: str) -> "Data":
        """Tables from JSON text in the shape of ``data.json``."""
    @staticmethod
    def from_file(path: _PathLike) -> "Data":
        """Tables from a JSON file."""
    def with_keyboard(self, keyboard: Union["Keyboard", str, Sequence[str]]) -> "Data":
        """These tables with the keyboard replaced."""
    def to_json(self) -> str:
        """The tables as JSON text."""
    @property
    def graphemes(self) -> List[str]: ...
    @property
    def vowels(self) -> List[str]: ...
    @property
    def homoglyphs(self) -> Dict[str, List[str]]: ...
    @property
    def homophones(self) -> List[List[str]]: ...
    @property
    def misspellings(self) -> List[List[str]]: ...
    @property
    def numerals(self) -> Dict[str, List[str]]: ...
    @property
    def keyboard(self) -> List[str]: ...

@final
class Keyboard:
    """A keyboard layout as rows of keys, top row first (a space is padding)."""

    def __new__(cls, rows: Optional[Sequence[str]] = None) -> Self: ...
    @staticmethod
    def by_name(name: str) -> "Keyboard":
        """A built-in layout: one of ``KEYBOARD_NAMES``."""
    @property
    def rows(self) -> List[str]: ...

@final
class TaskInfo:
    """Static facts about one task id."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def needs(self) -> Needs: ...
    @property
    def table(self) -> Optional[str]: ...

@final
class Unregistered:
    """A task a registry does not have, and the empty table that is why."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def needs(self) -> Needs: ...
    @property
    def table(self) -> str: ...

@final
class Task:
    """One typo generator as an exact task."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def needs(self) -> Needs: ...
    @property
    def table(self) -> Optional[str]: ...
    def expect(self, input: str) -> List[Variant]:
        """Every name this task derives from ``input``, sorted bytewise, unique."""
    def expect_bytes(self, input: str) -> List[bytes]:
        """``expect(input)`` with every member as raw bytes."""

@final
class Registry:
    """The tasks one ``Data`` supports, by id."""

    def __new__(
        cls, data: Optional[Data] = None, *, keyboard: Union[Keyboard, str, Sequence[str], None] = None
    ) -> Self: ...
    def get(self, id: str) -> Optional[Task]: ...
    def __getitem__(self, id: str, /) -> Task: ...
    def __contains__(self, id: object, /) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Task]: ...
    def ids(self) -> List[str]: ...
    def tasks(self) -> List[Task]: ...
    def unregistered(self) -> List[Unregistered]: ...
    def why_unregistered(self, id: str) -> Optional[Unregistered]: ...
    def select(self, *ids: str) -> List[Task]: ...
    @staticmethod
    def catalog() -> List[TaskInfo]: ...

@final
class Example:
    """One (input, task) pair with the task's whole expected set."""

    def __new__(
        cls,
        task: str,
        input: str,
        expect: Optional[Iterable[Variant]] = None,
        split: str = "",
        source: str = "",
    ) -> Self: ...
    @property
    def task(self) -> str: ...
    @property
    def input(self) -> str: ...
    @property
    def expect(self) -> Optional[List[Variant]]: ...
    @property
    def expect_set(self) -> List[Variant]: ...
    @property
    def split(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def group(self) -> str: ...
    def with_split(self, split: str) -> "Example": ...
    def to_jsonl(self) -> bytes: ...
    def to_dict(self) -> Dict[str, object]: ...

_Examples = Union["Corpus", Iterable[Example]]

@final
class Corpus:
    """A list of examples held in Rust."""

    def __new__(cls, examples: Optional[Iterable[Example]] = None) -> Self: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int, /) -> Example: ...
    @overload
    def __getitem__(self, index: slice, /) -> "Corpus": ...
    def __iter__(self) -> Iterator[Example]: ...
    def append(self, example: Example) -> None: ...
    def extend(self, examples: _Examples) -> None: ...
    def filter(self, split: str) -> "Corpus": ...
    def assign(self, ratio: Optional[_RatioLike] = None, salt: str = "") -> None: ...
    def leakage(self) -> List[str]: ...
    def stats(self) -> "Stats": ...
    def representable_only(self) -> "Corpus": ...
    def write_jsonl(self, dest: Union[_PathLike, IO[bytes]]) -> str: ...
    def to_jsonl(self) -> bytes: ...

@final
class Stats:
    """Counts over a corpus."""

    @property
    def examples(self) -> int: ...
    @property
    def variants(self) -> int: ...
    @property
    def inputs(self) -> int: ...
    @property
    def tasks(self) -> int: ...
    @property
    def by_task(self) -> Dict[str, int]: ...
    @property
    def splits(self) -> Dict[str, int]: ...
    def to_dict(self) -> Dict[str, object]: ...

@final
class Splitter:
    """A ratio and a salt with the cuts computed once."""

    def __new__(cls, ratio: Optional[_RatioLike] = None, salt: str = "") -> Self: ...
    def split_of(self, input: str) -> str: ...

@final
class ScoreResult:
    """One scored prediction."""

    @property
    def task(self) -> str: ...
    @property
    def input(self) -> str: ...
    @property
    def expect(self) -> List[Variant]: ...
    @property
    def predict(self) -> List[Variant]: ...
    @property
    def hit(self) -> List[Variant]: ...
    @property
    def missed(self) -> List[Variant]: ...
    @property
    def spurious(self) -> List[Variant]: ...
    @property
    def exact(self) -> bool: ...
    @property
    def precision(self) -> float: ...
    @property
    def recall(self) -> float: ...
    @property
    def f1(self) -> float: ...
    def to_dict(self) -> Dict[str, object]: ...

@final
class Summary:
    """One task's macro-averaged scores."""

    @property
    def task(self) -> str: ...
    @property
    def needs(self) -> Needs: ...
    @property
    def n(self) -> int: ...
    @property
    def exact_match(self) -> float: ...
    @property
    def precision(self) -> float: ...
    @property
    def recall(self) -> float: ...
    @property
    def f1(self) -> float: ...
    def to_dict(self) -> Dict[str, object]: ...

def select(registry: Registry, *ids: str) -> List[Task]:
    """The tasks named by ``ids`` (comma-separated allowed), in id order; none selects all."""

def task_info(id: str) -> Optional[TaskInfo]:
    """The catalogue entry of ``id``, if it is one of the 22."""

def emit(tasks: Iterable[Task], corpus: Iterable[str], source: str = "") -> Corpus:
    """One example per (name, task) whose expected set is non-empty."""

def emit_with_empty(tasks: Iterable[Task], corpus: Iterable[str], source: str = "") -> Corpus:
    """As ``emit``, keeping empty sets as ``expect=None``."""

def assign(corpus: Corpus, ratio: Optional[_RatioLike] = None, salt: str = "") -> None:
    """Sets every example's split in place, by SHA-256 of salt and input."""

def leakage(examples: _Examples) -> List[str]:
    """The inputs whose examples carry two or more splits."""

def representable(example: Example) -> bool:
    """Whether the example survives JSONL (every member UTF-8)."""

def filter(examples: _Examples, split: str) -> Corpus:
    """The examples whose split is exactly ``split``."""

def write_jsonl(dest: Union[_PathLike, IO[bytes]], examples: _Examples) -> str:
    """Writes JSONL byte for byte as the Rust writer (atomically to a path); returns the
    fingerprint."""

def write_jsonl_stream(
    names: Iterable[str],
    dest: Union[_PathLike, IO[bytes]],
    *,
    tasks: Optional[Iterable[Task]] = None,
    source: str = "",
    split: bool = True,
    ratio: Optional[_RatioLike] = None,
    salt: str = "",
    with_empty: bool = False,
    drop_unrepresentable: bool = False,
) -> Dict[str, Any]:
    """The corpus of ``names`` written as JSONL by ``capkit typo emit``'s streaming emitter (the
    bytes of ``emit``, ``assign`` and ``write_jsonl``); returns ``fingerprint``, ``stats`` and
    ``dropped``."""

def read_jsonl(src: Union[_PathLike, IO[bytes]]) -> Corpus:
    """Reads a JSONL corpus; a bad line is a ``ValueError`` naming file, line and column."""

def jsonl_bytes(examples: _Examples) -> bytes:
    """What ``write_jsonl`` would write."""

def stats(examples: _Examples) -> Stats:
    """Counts over a corpus."""

def describe(examples: _Examples) -> Stats:
    """The Rust crate's name for ``stats``."""

def split_hash(salt: str, input: str) -> int:
    """The first 8 bytes of SHA-256(salt ‖ 0x00 ‖ input), big-endian."""

def split_position(hash: int) -> float:
    """The hash's top 53 bits over 2**53."""

def fingerprint(jsonl: bytes) -> str:
    """``"blake3:<hex>"`` of JSONL bytes."""

def score(task: Task, input: str, predict: Iterable[Variant]) -> ScoreResult:
    """Strict whole-set scoring of a prediction."""

def summarize(results: Iterable[ScoreResult], registry: Registry) -> List[Summary]:
    """Per-task macro averages labelled with their needs."""

@final
class Fingerprinter:
    """Feed JSONL bytes in corpus order with ``update``; ``hexdigest()`` is the corpus
    fingerprint (``blake3:...``), the same as ``fingerprint(all_bytes)``."""

    def __new__(cls) -> Self: ...
    def update(self, data: bytes) -> None: ...
    def hexdigest(self) -> str: ...
