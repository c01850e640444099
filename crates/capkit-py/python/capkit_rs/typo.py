"""Typo generators as exact, learnable tasks (the ``typo-tasks`` Rust crate).

Each of the 22 tasks (urlinsane's typo generators) is a total, deterministic map from one name to
the *set* of names it derives; ``task.expect(name)`` is the oracle a model is scored against.
Around the oracles: corpora (``emit``), stable train/val/test splits (``assign``), JSONL files
byte for byte those of the Rust writer and of upstream's Go ``WriteJSONL`` (``write_jsonl`` /
``read_jsonl``), strict scoring (``score``, ``summarize``) and corpus counts (``stats``)::

    from capkit_rs import typo

    registry = typo.Registry()                 # embedded English tables, QWERTY
    tasks = registry.select("co,hi,hr")
    corpus = typo.emit(tasks, ["google.com", "münchen.de"], source="demo")
    typo.assign(corpus)                        # 80/10/10, by SHA-256 of the name
    typo.write_jsonl("corpus.jsonl", corpus)   # atomic; returns "blake3:..."
    print(typo.stats(corpus))

A whole corpus straight to a file, as ``capkit typo emit`` writes it (names generated on every
core in bounded memory, the same bytes): ``typo.write_jsonl_stream(names, "corpus.jsonl",
tasks=tasks, source="demo")``.

Names are indexed by code point and never normalised. ``bf`` flips bits of the UTF-8 bytes, so
its variants may not be UTF-8: such a variant is ``bytes`` (every other variant is ``str``),
never a lossy replacement, and JSONL refuses it (``representable`` tells beforehand).

Everything runs in Rust with the GIL released around the heavy work.
"""

from __future__ import annotations

import enum
from typing import NamedTuple, Union

from . import _native
from ._reexport import adopt

__all__ = [
    "CATALOG",
    "Corpus",
    "DEFAULT_RATIO",
    "Data",
    "Example",
    "FIELDS",
    "Fingerprinter",
    "KEYBOARD_NAMES",
    "Keyboard",
    "Needs",
    "Ratio",
    "Registry",
    "ScoreResult",
    "Splitter",
    "Stats",
    "Summary",
    "TEST",
    "TRAIN",
    "Task",
    "TaskInfo",
    "Unregistered",
    "VAL",
    "Variant",
    "assign",
    "describe",
    "emit",
    "emit_with_empty",
    "filter",
    "fingerprint",
    "jsonl_bytes",
    "leakage",
    "read_jsonl",
    "representable",
    "score",
    "select",
    "split_hash",
    "split_position",
    "stats",
    "summarize",
    "task_info",
    "write_jsonl",
    "write_jsonl_stream",
]


#: A member of an expected set: ``str``, or ``bytes`` when it is not UTF-8 (only ``bf`` makes
#: those).
Variant = Union[str, bytes]


class Needs(str, enum.Enum):
    """What a task needs besides the name: what decides whether it can be *learned* from
    examples or only *memorised*.

    A ``str`` enum, so ``Needs.NOTHING == "nothing"`` and it serialises as its value.
    """

    #: A pure character rule (``co``, ``bf``, ``tos``, ...): learnable from examples alone.
    NOTHING = "nothing"
    #: A language table (graphemes, vowels, homoglyphs, homophones, misspellings, numerals, or
    #: ``sp``'s built-in inflection tables): reproducible by memorising data.
    LANGUAGE = "language"
    #: A keyboard layout (``acs``, ``aci``, ``rar``): reproducible by memorising a layout.
    KEYBOARD = "keyboard"

    def __str__(self) -> str:
        return self.value


class Ratio(NamedTuple):
    """Relative sizes of the train, val and test splits; they need not sum to 1
    (``Ratio(8, 1, 1)`` equals the default)."""

    train: float
    val: float
    test: float


#: Upstream's default ratio: 80 % train, 10 % val, 10 % test.
DEFAULT_RATIO = Ratio(*_native.typo_DEFAULT_RATIO)

#: The split names.
TRAIN: str = _native.typo_TRAIN
VAL: str = _native.typo_VAL
TEST: str = _native.typo_TEST

#: The top-level keys ``Data.from_json`` accepts.
FIELDS = _native.typo_FIELDS
#: The built-in keyboard layouts ``Keyboard.by_name`` knows, default first.
KEYBOARD_NAMES = _native.typo_KEYBOARD_NAMES

Data = _native.Data
Fingerprinter = _native.Fingerprinter
Keyboard = _native.Keyboard
Registry = _native.Registry
Task = _native.Task
TaskInfo = _native.TaskInfo
Unregistered = _native.Unregistered
Example = _native.Example
Corpus = _native.Corpus
Stats = _native.Stats
Splitter = _native.Splitter
ScoreResult = _native.ScoreResult
Summary = _native.Summary

select = _native.typo_select
task_info = _native.typo_task_info
emit = _native.typo_emit
emit_with_empty = _native.typo_emit_with_empty
assign = _native.typo_assign
leakage = _native.typo_leakage
representable = _native.typo_representable
filter = _native.typo_filter
write_jsonl = _native.typo_write_jsonl
write_jsonl_stream = _native.typo_write_jsonl_stream
read_jsonl = _native.typo_read_jsonl
jsonl_bytes = _native.typo_jsonl_bytes
stats = _native.typo_stats
#: The Rust crate's name for ``stats``.
describe = stats
split_hash = _native.typo_split_hash
split_position = _native.typo_split_position
fingerprint = _native.typo_fingerprint
score = _native.typo_score
summarize = _native.typo_summarize

#: The catalogue entry of all 22 tasks, registered or not, in id order.
CATALOG = tuple(Registry.catalog())

adopt(globals(), __all__)
