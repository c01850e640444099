"""Mutator evaluation (type stubs of ``capkit_rs.mutator``)."""

import abc
import json
import os
from dataclasses import dataclass
from typing import (
    Any,
    Awaitable,
    Callable,
    Dict,
    Iterable,
    List,
    Optional,
    Protocol,
    Tuple,
    Union,
    final,
    type_check_only,
)

from typing_extensions import Self

__all__ = [
    "BaseLLMClient", "BaseMutator", "DEFAULT_MUTATOR_ID", "DatasetRun", "EvaluationContext",
    "EvaluationResult", "Evaluator", "Extraction", "FieldComparison", "Inference",
    "InterpretiveFieldState", "InterpretiveState", "InvalidElementError", "LLMEvaluator",
    "LLMMutator", "MutationContext", "MutationResult", "ReplyError", "ReplyNotArrayError",
    "ReplyNotJsonError", "StateComparison", "StructuredInput", "ValueConfidence", "build_prompt",
    "compare_states", "parse_reply", "run_dataset", "run_dataset_async", "summarize",
]

_PathLike = Union[str, "os.PathLike[str]"]
_JsonValue = Any

DEFAULT_MUTATOR_ID: str

@type_check_only
class _LLMClient(Protocol):
    """Anything with ``generate(prompt) -> str``, plain or ``async``."""

    def generate(self, prompt: str) -> Union[str, Awaitable[str]]: ...

@final
class ValueConfidence:
    """One candidate value with its confidence in [-1, 1]."""

    def __new__(cls, value: _JsonValue, confidence: float = ...) -> Self: ...
    @property
    def value(self) -> _JsonValue: ...
    @property
    def confidence(self) -> float: ...
    def to_dict(self) -> Dict[str, Any]: ...

@final
class Inference:
    """The reasoning of the mutator that wrote a field last."""

    def __new__(
        cls, content: str, mutator_id: Optional[str] = None, message_id: Optional[str] = None
    ) -> Self: ...
    @property
    def content(self) -> str: ...
    @property
    def mutator_id(self) -> Optional[str]: ...
    @property
    def message_id(self) -> Optional[str]: ...
    def to_dict(self) -> Dict[str, Any]: ...

@final
class InterpretiveFieldState:
    """A field's latest inference and its candidates."""

    def __new__(
        cls, inference: Optional[Inference] = None, values: Optional[Iterable[ValueConfidence]] = None
    ) -> Self: ...
    @property
    def inference(self) -> Optional[Inference]: ...
    @property
    def values(self) -> List[ValueConfidence]: ...
    def to_dict(self) -> Dict[str, Any]: ...

@final
class InterpretiveState:
    """Dotted paths mapped to field states, with implicit parent nodes."""

    def __new__(cls) -> Self: ...
    def add_value(self, path: str, value: ValueConfidence) -> None: ...
    def add_inference(self, path: str, inference: Inference) -> None: ...
    def set_field(self, path: str, field: InterpretiveFieldState) -> None: ...
    def add_node(self, path: str) -> None: ...
    def get_field(self, path: str) -> Optional[InterpretiveFieldState]: ...
    def get_best_value(self, path: str) -> Optional[ValueConfidence]: ...
    def get_all_fields(self) -> Dict[str, Optional[InterpretiveFieldState]]: ...
    def iter_fields(self) -> List[Tuple[str, Optional[InterpretiveFieldState]]]: ...
    def get_filled_fields(self) -> List[str]: ...
    def get_empty_fields(self) -> List[str]: ...
    def is_complete(self, required: Optional[List[str]] = None) -> bool: ...
    def paths(self) -> List[str]: ...
    def copy(self) -> "InterpretiveState": ...
    def __copy__(self) -> "InterpretiveState": ...
    def __deepcopy__(self, memo: Any, /) -> "InterpretiveState": ...
    def __len__(self) -> int: ...
    def __contains__(self, path: object, /) -> bool: ...
    def to_snapshot(self) -> Dict[str, Optional[Dict[str, Any]]]: ...
    @staticmethod
    def from_snapshot(snapshot: Dict[str, Any]) -> "InterpretiveState": ...
    def to_json(self, indent: Optional[int] = None) -> str: ...
    @staticmethod
    def from_json(text: str) -> "InterpretiveState": ...

@final
class StructuredInput:
    """The input a mutator interprets."""

    def __new__(cls, prompt: str, message_id: Optional[str] = None) -> Self: ...
    @property
    def prompt(self) -> str: ...
    @property
    def message_id(self) -> Optional[str]: ...

class ReplyError(ValueError):
    """The LLM's reply cannot be used."""

class ReplyNotJsonError(ReplyError, json.JSONDecodeError):
    """The reply is not JSON."""

class ReplyNotArrayError(ReplyError):
    """The reply is JSON but not an array."""

    found: str

class InvalidElementError(ReplyError):
    """An element of the reply array is invalid."""

    index: int
    key: Optional[str]
    problem: str

class BaseLLMClient(abc.ABC):
    """Optional base class of an LLM client."""

    @abc.abstractmethod
    def generate(self, prompt: str) -> Union[str, Awaitable[str]]: ...

class BaseMutator(abc.ABC):
    """Optional base class of a mutator."""

    @abc.abstractmethod
    def mutate(
        self, context: "MutationContext"
    ) -> Union["MutationResult", Awaitable["MutationResult"]]: ...

@dataclass
class MutationContext:
    input: StructuredInput
    state: InterpretiveState
    metadata: Optional[Dict[str, Any]] = ...

@dataclass
class MutationResult:
    updated_state: InterpretiveState
    metadata: Optional[Dict[str, Any]] = ...

class LLMMutator:
    """Upstream's ``LLMMutator`` over any client."""

    def __init__(self, client: _LLMClient, *, mutator_id: Optional[str] = None) -> None: ...
    @property
    def client(self) -> _LLMClient: ...
    @property
    def mutator_id(self) -> str: ...
    async def mutate(self, context: MutationContext) -> MutationResult: ...
    def mutate_sync(self, context: MutationContext) -> MutationResult: ...

@dataclass
class EvaluationContext:
    mutator: Any
    pre_state: InterpretiveState
    expected_post_state: InterpretiveState
    mutation_input: StructuredInput
    metadata: Optional[Dict[str, Any]] = ...

@dataclass(frozen=True)
class FieldComparison:
    field_path: str
    matches: bool
    category: str
    expected_value: Optional[ValueConfidence]
    actual_value: Optional[ValueConfidence]
    difference: Optional[str]

@dataclass(frozen=True)
class StateComparison:
    fields: List[FieldComparison]
    matching_fields: int
    mismatched_fields: int
    missing_fields: int
    extra_fields: int
    overall_match: bool

@dataclass(frozen=True)
class EvaluationResult:
    comparison: StateComparison
    actual_post_state: InterpretiveState
    accuracy_score: float
    time_used: float
    metadata: Optional[Dict[str, Any]]
    _json: Dict[str, Any] = ...
    def to_dict(self) -> Dict[str, Any]: ...

class LLMEvaluator:
    """Upstream's ``LLMEvaluator``."""

    async def evaluate(self, context: EvaluationContext) -> EvaluationResult: ...
    def evaluate_sync(self, context: EvaluationContext) -> EvaluationResult: ...

Evaluator = LLMEvaluator

def compare_states(expected: InterpretiveState, actual: InterpretiveState) -> StateComparison: ...
def build_prompt(state: InterpretiveState, input: StructuredInput) -> str: ...
@dataclass(frozen=True)
class Extraction:
    path: str
    value: str
    confidence: float
    inference: str

def parse_reply(raw: str) -> List[Extraction]: ...
@dataclass(frozen=True)
class DatasetRun:
    results: List[Dict[str, Any]]
    summary: Dict[str, Any]
    @property
    def errors(self) -> List[Dict[str, Any]]: ...

_Cases = Union[_PathLike, Iterable[Dict[str, Any]]]

def run_dataset(
    cases: _Cases,
    client: Optional[_LLMClient] = None,
    *,
    concurrency: int = 4,
    mutator_id: str = ...,
    out: Optional[_PathLike] = None,
    summary_out: Optional[_PathLike] = None,
    progress: Optional[Callable[[int], Any]] = None,
) -> DatasetRun: ...
async def run_dataset_async(
    cases: _Cases,
    client: Optional[_LLMClient] = None,
    *,
    concurrency: int = 4,
    mutator_id: str = ...,
    out: Optional[_PathLike] = None,
    summary_out: Optional[_PathLike] = None,
    progress: Optional[Callable[[int], Any]] = None,
) -> DatasetRun: ...
def summarize(results: Iterable[Dict[str, Any]]) -> Dict[str, Any]: ...
