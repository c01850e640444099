"""Evaluating LLM "mutators" that fill an interpretive state (the ``mutator-eval`` Rust crate).

The API of LangState's ``LLMEvaluator`` / ``LLMMutator`` (the reference this port reproduces
exactly: implicit parent paths count, best candidate = highest confidence with ties to the
first, values compared with Python ``==``, confidences exactly), so upstream's runnable example
works with one import changed::

    import asyncio, json
    from capkit_rs.mutator import (EvaluationContext, LLMEvaluator, LLMMutator,
                                   InterpretiveState, StructuredInput, ValueConfidence)

    class FixedClient:
        async def generate(self, prompt: str) -> str:      # a plain ``def`` works too
            return json.dumps([{"path": "registrant.name", "value": "Ada Lovelace",
                                "confidence": 0.95, "inference": "Extracted the stated name"}])

    async def main() -> None:
        expected = InterpretiveState()
        expected.add_value("registrant.name", ValueConfidence(value="Ada Lovelace", confidence=0.95))
        result = await LLMEvaluator().evaluate(EvaluationContext(
            mutator=LLMMutator(FixedClient()),
            pre_state=InterpretiveState(),
            expected_post_state=expected,
            mutation_input=StructuredInput(prompt="My name is Ada Lovelace", message_id="message-1"),
        ))
        assert result.comparison.overall_match and result.accuracy_score == 1.0

    asyncio.run(main())

``evaluate`` and ``mutate`` are coroutines, as upstream's; ``evaluate_sync`` / ``mutate_sync``
do the same without ``await``. A client is any object with ``generate(prompt) -> str``, a plain
or an ``async`` method. The Rust evaluation runs in a worker thread with the GIL released;
an ``async`` client's coroutine runs on the caller's event loop.

Beyond upstream, ``run_dataset`` evaluates a JSONL file of cases with bounded concurrency and
returns (and optionally writes) exactly the result lines of ``capkit mutator eval``, with
failures (client, reply, mutator, case) counted apart from wrong answers.
"""

from __future__ import annotations

import abc
import asyncio
import functools
import inspect
import json
import os
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Optional, Union

from . import _native
from ._reexport import adopt

__all__ = [
    "BaseLLMClient",
    "BaseMutator",
    "DEFAULT_MUTATOR_ID",
    "DatasetRun",
    "EvaluationContext",
    "EvaluationResult",
    "Evaluator",
    "Extraction",
    "FieldComparison",
    "Inference",
    "InterpretiveFieldState",
    "InterpretiveState",
    "InvalidElementError",
    "LLMEvaluator",
    "LLMMutator",
    "MutationContext",
    "MutationResult",
    "ReplyError",
    "ReplyNotArrayError",
    "ReplyNotJsonError",
    "StateComparison",
    "StructuredInput",
    "ValueConfidence",
    "build_prompt",
    "compare_states",
    "parse_reply",
    "run_dataset",
    "run_dataset_async",
    "summarize",
]

ValueConfidence = _native.ValueConfidence
Inference = _native.Inference
InterpretiveFieldState = _native.InterpretiveFieldState
InterpretiveState = _native.InterpretiveState
StructuredInput = _native.StructuredInput

#: The mutator id the dataset runner writes into inferences unless told otherwise (fixed, so
#: re-runs are bit-identical).
DEFAULT_MUTATOR_ID: str = _native.mutator_DEFAULT_MUTATOR_ID


# --- errors -------------------------------------------------------------------------------


class ReplyError(ValueError):
    """The LLM's reply cannot be used: not JSON, not a JSON array, or an invalid element.

    A ``ValueError``, as every upstream reply error is. Nothing of the reply was applied.
    """


class ReplyNotJsonError(ReplyError, json.JSONDecodeError):
    """The reply is not JSON (a code fence, prose, an empty string...): upstream's
    ``json.JSONDecodeError``, with ``msg``, ``doc``, ``pos``, ``lineno`` and ``colno``."""


class ReplyNotArrayError(ReplyError):
    """The reply is JSON but not an array; ``found`` is the Python type name (``dict``...)."""

    found: str


class InvalidElementError(ReplyError):
    """An element of the reply array is not ``{path, value, confidence, inference}`` with string
    path/value/inference and a confidence in [-1, 1]: upstream's Pydantic ``ValidationError``.
    ``index`` is the 0-based element, ``key`` the offending key (``None`` when the element is
    not an object), ``problem`` what is wrong."""

    index: int
    key: Optional[str]
    problem: str


# --- clients and mutators -----------------------------------------------------------------


class BaseLLMClient(abc.ABC):
    """Optional base class of an LLM client: anything with ``generate(prompt) -> str`` (a plain
    method or a coroutine function) is a client; subclassing only documents it."""

    @abc.abstractmethod
    def generate(self, prompt: str) -> Union[str, Awaitable[str]]:
        """The model's reply to ``prompt``."""


class BaseMutator(abc.ABC):
    """Optional base class of a mutator: anything with ``mutate(context) -> MutationResult``
    (plain or ``async``) can be evaluated."""

    @abc.abstractmethod
    def mutate(self, context: "MutationContext") -> Union["MutationResult", Awaitable["MutationResult"]]:
        """Updates ``context.state`` (the mutator's own copy) from ``context.input``."""


@dataclass
class MutationContext:
    """What a mutator gets: the input, a state of its own to update, the caller's metadata."""

    input: StructuredInput
    state: InterpretiveState
    metadata: Optional[Dict[str, Any]] = None


@dataclass
class MutationResult:
    """What a mutator returns: the updated state, and anything it wants to report."""

    updated_state: InterpretiveState
    metadata: Optional[Dict[str, Any]] = None


def _is_async(method: Any) -> bool:
    return inspect.iscoroutinefunction(method) or inspect.iscoroutinefunction(
        getattr(method, "__call__", None)
    )


def _run_sync(make_coroutine: Callable[[], Awaitable[Any]], what: str) -> Any:
    """Runs the async variant on a new event loop, refusing inside a running one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_as_coroutine(make_coroutine()))
    raise RuntimeError(
        f"{what} was called inside a running event loop with an async client or mutator; "
        f"await the async variant instead"
    )


async def _as_coroutine(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _await_on_loop(awaitable: Awaitable[Any], loop: asyncio.AbstractEventLoop) -> Any:
    """Called from Rust, on a worker thread: runs ``awaitable`` on ``loop`` and waits."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        raise RuntimeError("an awaitable cannot be waited for on its own event loop's thread")
    return asyncio.run_coroutine_threadsafe(_as_coroutine(awaitable), loop).result()


def _await_in_new_loop(awaitable: Awaitable[Any]) -> Any:
    """Called from Rust when no loop was handed over: runs ``awaitable`` on a fresh loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_as_coroutine(awaitable))
    raise RuntimeError(
        "client.generate() returned an awaitable inside a running event loop; "
        "use the async API (await evaluator.evaluate(...))"
    )


async def _in_worker(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Runs ``fn`` (a native call that releases the GIL) in the loop's default executor, handing
    it the running loop so that awaitables it meets run here."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(
        None, functools.partial(fn, *args, event_loop=loop, **kwargs)
    )


class LLMMutator:
    """Upstream's ``LLMMutator``: one prompt (the state as JSON, the user's text verbatim, the
    reply format), one ``client.generate`` call, a strictly parsed JSON array of
    ``{path, value, confidence, inference}``, every element validated before any is applied.

    Parsing is strict: a code fence or prose around the array is a ``ReplyNotJsonError``. The
    caller's state is never touched, and a failure changes nothing.

    ``mutator_id`` is written into every inference; by default a fresh id per instance
    (upstream uses a UUID4).
    """

    def __init__(self, client: Any, *, mutator_id: Optional[str] = None) -> None:
        self._core = _native.LlmMutatorCore(client, mutator_id)

    @property
    def client(self) -> Any:
        """The client."""
        return self._core.client

    @property
    def mutator_id(self) -> str:
        """The id written into every inference this mutator produces."""
        return self._core.mutator_id

    def __repr__(self) -> str:
        return f"LLMMutator({self.client!r}, mutator_id={self.mutator_id!r})"

    async def mutate(self, context: MutationContext) -> MutationResult:
        """Runs the mutation on a copy of ``context.state`` (upstream's coroutine)."""
        state = await _in_worker(
            _native.mutator_mutate, self._core, context.state, context.input, context.metadata
        )
        return MutationResult(updated_state=state)

    def mutate_sync(self, context: MutationContext) -> MutationResult:
        """``mutate`` without ``await`` (an async client runs on a new event loop)."""
        if _is_async(getattr(self.client, "generate", None)):
            return _run_sync(lambda: self.mutate(context), "LLMMutator.mutate_sync")
        state = _native.mutator_mutate(self._core, context.state, context.input, context.metadata)
        return MutationResult(updated_state=state)


# --- evaluation ---------------------------------------------------------------------------


@dataclass
class EvaluationContext:
    """One evaluation to run: the mutator under test (an ``LLMMutator`` or any object with
    ``mutate``), the state before (never modified: the mutator gets a copy), the state it should
    produce, the input, and metadata forwarded to the mutator and echoed in the result."""

    mutator: Any
    pre_state: InterpretiveState
    expected_post_state: InterpretiveState
    mutation_input: StructuredInput
    metadata: Optional[Dict[str, Any]] = None


@dataclass(frozen=True)
class FieldComparison:
    """How one path compares: ``category`` is ``"matching"``, ``"mismatched"``, ``"missing"``
    or ``"extra"``; ``expected_value`` / ``actual_value`` are the best candidates (``None`` when
    absent or valueless); ``difference`` is upstream's text for a non-match."""

    field_path: str
    matches: bool
    category: str
    expected_value: Optional[ValueConfidence]
    actual_value: Optional[ValueConfidence]
    difference: Optional[str]


@dataclass(frozen=True)
class StateComparison:
    """The comparison over the sorted union of both states' paths, parents included."""

    fields: List[FieldComparison]
    matching_fields: int
    mismatched_fields: int
    missing_fields: int
    extra_fields: int
    overall_match: bool


@dataclass(frozen=True)
class EvaluationResult:
    """One evaluation: the comparison, the state the mutator produced, ``accuracy_score`` =
    matching / (matching + mismatched + missing) (0.0 when that is 0), ``time_used`` (seconds in
    the mutate call, monotonic clock) and the echoed metadata."""

    comparison: StateComparison
    actual_post_state: InterpretiveState
    accuracy_score: float
    time_used: float
    metadata: Optional[Dict[str, Any]]
    _json: Dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        """The result as the JSON ``dict`` of the Rust ``EvaluationResult`` (the ``result`` of a
        ``run_dataset`` line)."""
        return json.loads(json.dumps(self._json))


def _candidate(d: Optional[Dict[str, Any]]) -> Optional[ValueConfidence]:
    return None if d is None else ValueConfidence(d["value"], d["confidence"])


def _comparison(d: Dict[str, Any]) -> StateComparison:
    return StateComparison(
        fields=[
            FieldComparison(
                field_path=f["field_path"],
                matches=f["matches"],
                category=f["category"],
                expected_value=_candidate(f["expected_value"]),
                actual_value=_candidate(f["actual_value"]),
                difference=f["difference"],
            )
            for f in d["fields"]
        ],
        matching_fields=d["matching_fields"],
        mismatched_fields=d["mismatched_fields"],
        missing_fields=d["missing_fields"],
        extra_fields=d["extra_fields"],
        overall_match=d["overall_match"],
    )


def _result(d: Dict[str, Any]) -> EvaluationResult:
    return EvaluationResult(
        comparison=_comparison(d["comparison"]),
        actual_post_state=InterpretiveState.from_snapshot(d["actual_post_state"]),
        accuracy_score=d["accuracy_score"],
        time_used=d["time_used"],
        metadata=d["metadata"],
        _json=d,
    )


def _native_mutator(mutator: Any) -> Any:
    return mutator._core if isinstance(mutator, LLMMutator) else mutator


def _uses_async(mutator: Any) -> bool:
    if isinstance(mutator, LLMMutator):
        return _is_async(getattr(mutator.client, "generate", None))
    return _is_async(getattr(mutator, "mutate", None))


class LLMEvaluator:
    """Upstream's ``LLMEvaluator``: copies the pre-state, runs the mutator on the copy (timed on a
    monotonic clock), and compares the best candidate of every path with the expected state.

    An exception of the mutator or its client propagates unchanged (a failed run has no score);
    a reply the LLM mutator cannot use raises a ``ReplyError``.
    """

    async def evaluate(self, context: EvaluationContext) -> EvaluationResult:
        """Evaluates one case (upstream's coroutine). The Rust work runs in the loop's default
        executor, so the event loop stays free for an async client."""
        d = await _in_worker(
            _native.mutator_evaluate,
            _native_mutator(context.mutator),
            context.pre_state,
            context.expected_post_state,
            context.mutation_input,
            context.metadata,
        )
        return _result(d)

    def evaluate_sync(self, context: EvaluationContext) -> EvaluationResult:
        """``evaluate`` without ``await`` (an async client or mutator runs on a new event loop;
        inside a running loop, await ``evaluate`` instead)."""
        if _uses_async(context.mutator):
            return _run_sync(lambda: self.evaluate(context), "LLMEvaluator.evaluate_sync")
        return _result(
            _native.mutator_evaluate(
                _native_mutator(context.mutator),
                context.pre_state,
                context.expected_post_state,
                context.mutation_input,
                context.metadata,
            )
        )


#: The evaluator (the comparison is deterministic; any mutator works).
Evaluator = LLMEvaluator


def compare_states(expected: InterpretiveState, actual: InterpretiveState) -> StateComparison:
    """The comparison of two states, as ``LLMEvaluator`` computes it."""
    return _comparison(_native.mutator_compare_states(expected, actual))


def build_prompt(state: InterpretiveState, input: StructuredInput) -> str:
    """The prompt ``LLMMutator`` sends for ``state`` and ``input``."""
    return _native.mutator_build_prompt(state, input)


@dataclass(frozen=True)
class Extraction:
    """One validated element of an LLM reply."""

    path: str
    value: str
    confidence: float
    inference: str


def parse_reply(raw: str) -> List[Extraction]:
    """A reply parsed and validated exactly as ``LLMMutator`` does (raises a ``ReplyError``)."""
    return [Extraction(**e) for e in _native.mutator_parse_reply(raw)]


# --- datasets -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DatasetRun:
    """A dataset run: one result ``dict`` per case, in dataset order (the JSON of the lines
    ``capkit mutator eval --out`` writes: ``index``, ``id``, ``result`` (an evaluation result's
    JSON) or ``error`` (``kind``: ``client``/``reply``/``mutator``/``case``, ``message``)), and
    the aggregate (``cases``, ``evaluated``, ``errors``, ``errors_by_kind``, ``mean_accuracy``,
    ``overall_match_rate``, ``latency_p50``, ``latency_p95``)."""

    results: List[Dict[str, Any]]
    summary: Dict[str, Any]

    @property
    def errors(self) -> List[Dict[str, Any]]:
        """The results of the cases that failed."""
        return [r for r in self.results if r["error"] is not None]


PathLike = Union[str, "os.PathLike[str]"]


def _runner_args(
    cases: Any,
    client: Any,
    concurrency: int,
    mutator_id: str,
    out: Optional[PathLike],
    summary_out: Optional[PathLike],
    progress: Optional[Callable[[int], Any]],
) -> Dict[str, Any]:
    """The native runner's arguments: a path, or the cases as JSONL text."""
    args: Dict[str, Any] = {
        "client": client,
        "concurrency": concurrency,
        "mutator_id": mutator_id,
        "out": out,
        "summary_out": summary_out,
        "progress": progress,
    }
    if isinstance(cases, (str, os.PathLike)):
        return {"path": cases, **args}
    if isinstance(cases, (bytes, bytearray)):
        raise TypeError("cases must be a path or an iterable of case dicts, not bytes")
    lines = []
    for i, case in enumerate(cases):
        if not isinstance(case, dict):
            raise TypeError(f"cases[{i}] must be a dict, got {type(case).__name__}")
        lines.append(json.dumps(case, allow_nan=False))
    return {"text": "\n".join(lines) + "\n", **args}


def run_dataset(
    cases: Any,
    client: Any = None,
    *,
    concurrency: int = 4,
    mutator_id: str = DEFAULT_MUTATOR_ID,
    out: Optional[PathLike] = None,
    summary_out: Optional[PathLike] = None,
    progress: Optional[Callable[[int], Any]] = None,
) -> DatasetRun:
    """Evaluates every case of a JSONL dataset with an ``LLMMutator`` over ``client``, at most
    ``concurrency`` cases at a time, as ``capkit mutator eval`` does.

    ``cases`` is a path to a JSONL file (one ``{"id", "pre_state", "input": {"prompt",
    "message_id"}, "expected_post_state", "metadata", "reply"}`` per line) or an iterable of such
    dicts. ``client=None`` replays each case's own ``reply`` (offline, like ``--replay``); a
    client's ``generate`` may be sync or ``async`` (an async client's coroutines share one event
    loop). One failing case never stops the others: it becomes an error line.

    ``out`` receives one result per line, byte for byte the lines of ``capkit mutator eval
    --out``, written as the results come to a temporary file beside it that replaces ``out`` only
    when the run is complete (as the command line writes it): a failed or interrupted run leaves
    the previous file as it was and no partial one. ``summary_out`` receives the aggregate as
    JSON. ``progress(n)`` is called with the number of finished cases. Ctrl-C stops the run and
    raises ``KeyboardInterrupt``.
    """
    if client is not None and _is_async(getattr(client, "generate", None)):
        return _run_sync(
            lambda: run_dataset_async(
                cases,
                client,
                concurrency=concurrency,
                mutator_id=mutator_id,
                out=out,
                summary_out=summary_out,
                progress=progress,
            ),
            "run_dataset",
        )
    kwargs = _runner_args(cases, client, concurrency, mutator_id, out, summary_out, progress)
    return DatasetRun(*_native.mutator_run_dataset(**kwargs))


async def run_dataset_async(
    cases: Any,
    client: Any = None,
    *,
    concurrency: int = 4,
    mutator_id: str = DEFAULT_MUTATOR_ID,
    out: Optional[PathLike] = None,
    summary_out: Optional[PathLike] = None,
    progress: Optional[Callable[[int], Any]] = None,
) -> DatasetRun:
    """``run_dataset`` as a coroutine: the Rust runner works in the loop's default executor and
    an async client's coroutines run on this loop, up to ``concurrency`` at a time."""
    kwargs = _runner_args(cases, client, concurrency, mutator_id, out, summary_out, progress)
    return DatasetRun(*await _in_worker(_native.mutator_run_dataset, **kwargs))


def summarize(results: Any) -> Dict[str, Any]:
    """The aggregate of result dicts (as ``run_dataset`` returns them or as read back from its
    JSONL lines)."""
    return _native.mutator_summarize(results)


adopt(globals(), __all__)
