"""capkit_rs.mutator against the 54 upstream golden cases (LangState's LLMEvaluator), with sync
and async clients, and the dataset runner against `capkit mutator eval`.

The golden file is the copy the Rust tests read (crates/mutator-eval/tests/fixtures/cases.json),
reached by a path relative to this file.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import threading
import time
from pathlib import Path

import pytest

from capkit_cli import require_capkit
from capkit_rs import mutator
from capkit_rs.mutator import (
    EvaluationContext,
    Inference,
    InterpretiveFieldState,
    InterpretiveState,
    InvalidElementError,
    LLMEvaluator,
    LLMMutator,
    MutationContext,
    MutationResult,
    ReplyError,
    ReplyNotArrayError,
    ReplyNotJsonError,
    StructuredInput,
    ValueConfidence,
)

CRATES = Path(__file__).resolve().parents[2]
CASES = json.loads((CRATES / "mutator-eval" / "tests" / "fixtures" / "cases.json").read_text())["cases"]
EXAMPLE_CASES = CRATES / "mutator-eval" / "examples" / "cases.jsonl"
MUTATOR_ID = "<LLMMutator instance id>"


def exact(value) -> str:
    """JSON text that tells 1 from 1.0 from True (Python's == does not)."""
    return json.dumps(value, sort_keys=True)


def build_state(ops) -> InterpretiveState:
    state = InterpretiveState()
    for op in ops:
        if op["op"] == "add_value":
            state.add_value(op["path"], ValueConfidence(value=op["value"], confidence=op["confidence"]))
        elif op["op"] == "add_inference":
            state.add_inference(
                op["path"], Inference(op["content"], op["mutator_id"], op["message_id"])
            )
        else:
            raise AssertionError(op)
    return state


class SyncClient:
    """The goldens' fake client: ignores the prompt, returns the fixed reply, records calls."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.prompts: list[str] = []

    def generate(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.reply


class AsyncClient(SyncClient):
    async def generate(self, prompt: str) -> str:  # type: ignore[override]
        await asyncio.sleep(0)
        self.prompts.append(prompt)
        return self.reply


def run_case(case, mode: str):
    """Runs one golden case; returns (outcome, client, pre_state before, pre_state after)."""
    pre_state = build_state(case["pre_state_ops"])
    expected = build_state(case["expected_post_state_ops"])
    assert exact(pre_state.to_snapshot()) == exact(case["pre_state_snapshot"])
    assert exact(expected.to_snapshot()) == exact(case["expected_post_state_snapshot"])
    client = (AsyncClient if mode.startswith("async") else SyncClient)(case["client_reply"])
    before = pre_state.copy()
    inp = case["mutation_input"]
    ctx = EvaluationContext(
        mutator=LLMMutator(client, mutator_id=MUTATOR_ID),
        pre_state=pre_state,
        expected_post_state=expected,
        mutation_input=StructuredInput(prompt=inp["prompt"], message_id=inp["message_id"]),
        metadata=case["metadata"],
    )
    try:
        if mode in ("sync", "async-client-evaluate-sync"):
            outcome = LLMEvaluator().evaluate_sync(ctx)
        else:
            outcome = asyncio.run(LLMEvaluator().evaluate(ctx))
    except ReplyError as e:
        outcome = e
    return outcome, client, before, pre_state


@pytest.mark.parametrize("mode", ["sync", "async", "async-client-evaluate-sync", "sync-client-evaluate-async"])
def test_golden_every_upstream_case(mode):
    ok = errors = 0
    for case in CASES:
        cid = case["id"]
        outcome, client, before, after = run_case(case, mode)
        assert len(client.prompts) == case["client_called"] == 1, cid
        assert (case["mutation_input"]["prompt"] in client.prompts[0]) == case["prompt_checks"]["contains_user_prompt"]
        assert (after == before) == case["pre_state_unchanged"], cid
        assert exact(after.to_snapshot()) == exact(before.to_snapshot()), cid
        if case["outcome"] == "ok":
            ok += 1
            assert isinstance(outcome, mutator.EvaluationResult), (cid, outcome)
            want = case["result"]
            c = outcome.comparison
            got = (c.matching_fields, c.mismatched_fields, c.missing_fields, c.extra_fields, c.overall_match)
            assert got == (
                want["matching_fields"], want["mismatched_fields"], want["missing_fields"],
                want["extra_fields"], want["overall_match"],
            ), cid
            # Exact float equality, as Python computes it.
            assert outcome.accuracy_score == want["accuracy_score"], cid
            assert exact(outcome.metadata) == exact(want["metadata"]), cid
            assert exact(outcome.actual_post_state.to_snapshot()) == exact(want["actual_post_state_snapshot"]), cid
            assert len(c.fields) == len(want["fields"]), cid
            for f, w in zip(c.fields, want["fields"]):
                assert (f.field_path, f.matches, f.category, f.difference) == (
                    w["field_path"], w["matches"], w["category"], w["difference"],
                ), cid
                for ours, theirs in [(f.expected_value, w["expected_value"]), (f.actual_value, w["actual_value"])]:
                    assert exact(None if ours is None else ours.to_dict()) == exact(theirs), (cid, f.field_path)
            assert outcome.time_used >= 0
            d = outcome.to_dict()
            assert d["accuracy_score"] == want["accuracy_score"] and d["comparison"]["overall_match"] == want["overall_match"]
        else:
            errors += 1
            err = case["error"]
            assert isinstance(outcome, ValueError), (cid, outcome)
            first = err["message_first_line"]
            if err["python_type"] == "JSONDecodeError":
                assert isinstance(outcome, ReplyNotJsonError) and isinstance(outcome, json.JSONDecodeError), cid
                # Python's own json.loads is the oracle of the position.
                with pytest.raises(json.JSONDecodeError) as python:
                    json.loads(case["client_reply"])
                assert (outcome.lineno, outcome.colno, outcome.pos) == (
                    python.value.lineno, python.value.colno, python.value.pos,
                ), cid
                assert str(outcome).endswith(first.split(": ", 1)[1]), (cid, str(outcome))
                assert outcome.doc == case["client_reply"]
            elif err["python_type"] == "ValueError":
                assert isinstance(outcome, ReplyNotArrayError), cid
                assert str(outcome) == first, cid  # upstream's message, word for word
            elif err["python_type"] == "ValidationError":
                assert isinstance(outcome, InvalidElementError), cid
                loc = err["validation_errors"][0]["loc"]
                assert outcome.key == (loc[0] if loc else None), cid
                assert outcome.index >= 0 and outcome.problem
            else:
                raise AssertionError(err)
    assert (ok, errors) == (39, 15)


def test_upstream_runnable_example():
    """The seed's runnable example (apps/docs/guides/mutator-evaluation.mdx), imports changed."""

    class FixedClient(mutator.BaseLLMClient):
        async def generate(self, prompt: str) -> str:
            return json.dumps([{
                "path": "registrant.name",
                "value": "Ada Lovelace",
                "confidence": 0.95,
                "inference": "Extracted the stated name",
            }])

    async def main() -> None:
        pre_state = InterpretiveState()
        expected = InterpretiveState()
        expected.add_value("registrant.name", ValueConfidence(value="Ada Lovelace", confidence=0.95))
        result = await LLMEvaluator().evaluate(EvaluationContext(
            mutator=LLMMutator(FixedClient()),
            pre_state=pre_state,
            expected_post_state=expected,
            mutation_input=StructuredInput(prompt="My name is Ada Lovelace", message_id="message-1"),
        ))
        assert result.comparison.overall_match
        assert result.accuracy_score == 1.0
        assert result.comparison.matching_fields == 2  # the implicit parent `registrant` counts

    asyncio.run(main())


# --- the data model ----------------------------------------------------------------------


def test_value_confidence_rules():
    assert ValueConfidence("x").confidence == 0.0
    assert ValueConfidence(1, 0.5) == ValueConfidence(1.0, 0.5) == ValueConfidence(True, 0.5)
    assert ValueConfidence({"a": 1, "b": 2}, 1) == ValueConfidence({"b": 2, "a": 1}, 1.0)
    assert ValueConfidence([1, 2], 0.1) != ValueConfidence([2, 1], 0.1)
    assert ValueConfidence("42", 0.5) != ValueConfidence(42, 0.5)
    assert ValueConfidence("x", 0.3) != ValueConfidence("x", 0.1 + 0.2)
    assert ValueConfidence(None, -1).value is None and ValueConfidence(None, 1.0).confidence == 1.0
    assert repr(ValueConfidence("Alice", 0.8)) == "ValueConfidence(value='Alice', confidence=0.8)"
    for bad in (1.5, -1.01, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"\[-1, 1\]"):
            ValueConfidence("x", bad)
    with pytest.raises(TypeError, match="confidence must be a number"):
        ValueConfidence("x", "0.9")
    with pytest.raises(TypeError, match="tuple"):
        ValueConfidence((1, 2), 0.5)


def test_interpretive_state_rules():
    s = InterpretiveState()
    assert len(s) == 0 and s.is_complete()
    s.add_value("address.city", ValueConfidence("Oslo", 0.6))
    s.add_value("address.city", ValueConfidence("Bergen", 0.9))
    s.add_value("address.city", ValueConfidence("Tromsø", 0.9))
    assert s.paths() == ["address", "address.city"]
    assert s.get_best_value("address.city") == ValueConfidence("Bergen", 0.9)
    assert s.get_best_value("address") is None and s.get_best_value("nope") is None
    assert "address" in s and s.get_field("address") is None
    s.add_inference("address.city", Inference("first", "m"))
    s.add_inference("address.city", Inference("second", "m2", "msg"))
    field = s.get_field("address.city")
    assert isinstance(field, InterpretiveFieldState)
    assert field.inference == Inference("second", "m2", "msg") and len(field.values) == 3
    s.add_inference("why", Inference("only"))
    assert s.get_filled_fields() == ["address.city"]
    assert s.get_empty_fields() == ["address", "why"]
    assert not s.is_complete() and s.is_complete(["address.city"]) and not s.is_complete(["why"])
    copy = s.copy()
    copy.add_value("address.city", ValueConfidence("Bodø", 1.0))
    assert len(s.get_field("address.city").values) == 3 and copy != s
    assert list(s.get_all_fields()) == ["address", "address.city", "why"]
    assert [p for p, _ in s.iter_fields()] == ["address", "address.city", "why"]
    back = InterpretiveState.from_snapshot(s.to_snapshot())
    assert back == s and InterpretiveState.from_json(s.to_json(indent=2)) == s
    assert InterpretiveState.from_snapshot({"p.q": {"values": []}}).paths() == ["p", "p.q"]
    with pytest.raises(ValueError, match="snapshot"):
        InterpretiveState.from_snapshot({"p": {"values": [{"value": 1, "confidence": 2}]}})
    with pytest.raises(TypeError, match="prompt must be a str"):
        StructuredInput(3)


# --- the LLM mutator and the evaluator -----------------------------------------------------


def test_mutate_sync_and_async_leave_the_callers_state_alone():
    reply = '[{"path": "name", "value": "Ada", "confidence": 0.9, "inference": "said so"}]'
    state = InterpretiveState()
    state.add_value("seed", ValueConfidence("s", 1.0))
    ctx = MutationContext(input=StructuredInput("I am Ada", "m-1"), state=state)
    for client in (SyncClient(reply), AsyncClient(reply)):
        m = LLMMutator(client, mutator_id="m1")
        for result in (m.mutate_sync(ctx), asyncio.run(m.mutate(ctx))):
            assert isinstance(result, MutationResult)
            got = result.updated_state
            assert got.get_best_value("name") == ValueConfidence("Ada", 0.9)
            inference = got.get_field("name").inference
            assert (inference.mutator_id, inference.message_id) == ("m1", "m-1")
            assert state.paths() == ["seed"]
        assert client.prompts[0] == mutator.build_prompt(state, ctx.input)
    assert LLMMutator(SyncClient("[]")).mutator_id != LLMMutator(SyncClient("[]")).mutator_id
    with pytest.raises(TypeError, match="generate"):
        LLMMutator(object())


def test_parse_reply_and_prompt():
    got = mutator.parse_reply('[{"path": "a", "value": "x", "confidence": " -1 ", "inference": "r", "extra": 1}]')
    assert got == [mutator.Extraction("a", "x", -1.0, "r")]
    with pytest.raises(ReplyNotArrayError, match="got dict"):
        mutator.parse_reply("{}")
    with pytest.raises(InvalidElementError) as err:
        mutator.parse_reply('[{"path": "a", "value": 3, "confidence": 0.5, "inference": "r"}]')
    assert (err.value.index, err.value.key) == (0, "value")
    prompt = mutator.build_prompt(InterpretiveState(), StructuredInput("my {name} is \"Ann\""))
    assert 'my {name} is "Ann"' in prompt


def test_client_exceptions_propagate_unchanged():
    class Down:
        def generate(self, prompt):
            raise ConnectionError("provider down")

    class AsyncDown:
        async def generate(self, prompt):
            raise TimeoutError("slow provider")

    class NotText:
        def generate(self, prompt):
            return 42

    ctx = EvaluationContext(
        mutator=LLMMutator(Down()),
        pre_state=InterpretiveState(),
        expected_post_state=InterpretiveState(),
        mutation_input=StructuredInput("x"),
    )
    with pytest.raises(ConnectionError, match="provider down"):
        LLMEvaluator().evaluate_sync(ctx)
    ctx.mutator = LLMMutator(AsyncDown())
    with pytest.raises(TimeoutError, match="slow provider"):
        asyncio.run(LLMEvaluator().evaluate(ctx))
    with pytest.raises(TimeoutError, match="slow provider"):
        LLMEvaluator().evaluate_sync(ctx)
    ctx.mutator = LLMMutator(NotText())
    with pytest.raises(TypeError, match="must return a str, got int"):
        LLMEvaluator().evaluate_sync(ctx)


def test_custom_mutators_sync_and_async():
    class Sync(mutator.BaseMutator):
        def mutate(self, context):
            context.state.add_value("x", ValueConfidence(context.input.prompt, 0.5))
            return MutationResult(updated_state=context.state, metadata=context.metadata)

    class Async:
        async def mutate(self, context):
            await asyncio.sleep(0)
            context.state.add_value("x", ValueConfidence(context.input.prompt, 0.5))
            return MutationResult(updated_state=context.state)

    class Broken:
        def mutate(self, context):
            return {"updated_state": None}

    expected = InterpretiveState()
    expected.add_value("x", ValueConfidence("hi", 0.5))
    pre = InterpretiveState()
    for m in (Sync(), Async()):
        ctx = EvaluationContext(m, pre, expected, StructuredInput("hi"), {"k": [1]})
        for result in (LLMEvaluator().evaluate_sync(ctx), asyncio.run(LLMEvaluator().evaluate(ctx))):
            assert result.comparison.overall_match and result.metadata == {"k": [1]}
        assert len(pre) == 0
    with pytest.raises(AttributeError):
        LLMEvaluator().evaluate_sync(EvaluationContext(Broken(), pre, expected, StructuredInput("hi")))
    with pytest.raises(TypeError, match="mutate"):
        LLMEvaluator().evaluate_sync(EvaluationContext(object(), pre, expected, StructuredInput("hi")))
    with pytest.raises(TypeError):
        LLMEvaluator().evaluate_sync(EvaluationContext(Sync(), {}, expected, StructuredInput("hi")))


def test_sync_api_inside_a_running_loop_says_what_to_do():
    ctx = EvaluationContext(
        LLMMutator(AsyncClient("[]")), InterpretiveState(), InterpretiveState(), StructuredInput("x"),
    )

    async def inside():
        with pytest.raises(RuntimeError, match="await"):
            LLMEvaluator().evaluate_sync(ctx)
        return (await LLMEvaluator().evaluate(ctx)).comparison.overall_match

    assert asyncio.run(inside()) is True


# --- the dataset runner ----------------------------------------------------------------------


def golden_dataset(tmp_path: Path) -> Path:
    """The 54 golden cases in the runner's JSONL case format."""
    path = tmp_path / "golden_cases.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for case in CASES:
            f.write(json.dumps({
                "id": case["id"],
                "pre_state": case["pre_state_snapshot"],
                "input": case["mutation_input"],
                "expected_post_state": case["expected_post_state_snapshot"],
                "metadata": case["metadata"],
                "reply": case["client_reply"],
            }) + "\n")
    return path


class OrderedReplies:
    """Answers the golden replies in dataset order (concurrency 1 calls in that order)."""

    def __init__(self, replies, asynchronous: bool) -> None:
        self.replies = list(replies)
        self.calls = 0
        if asynchronous:
            self.generate = self._agenerate  # type: ignore[method-assign]

    def generate(self, prompt: str) -> str:
        self.calls += 1
        return self.replies.pop(0)

    async def _agenerate(self, prompt: str) -> str:
        await asyncio.sleep(0)
        return OrderedReplies.generate(self, prompt)


def check_golden_run(run) -> None:
    assert len(run.results) == 54
    for r, case in zip(run.results, CASES):
        assert r["id"] == case["id"]
        if case["outcome"] == "ok":
            want = case["result"]
            c = r["result"]["comparison"]
            assert (c["matching_fields"], c["mismatched_fields"], c["missing_fields"], c["extra_fields"]) == (
                want["matching_fields"], want["mismatched_fields"], want["missing_fields"], want["extra_fields"],
            ), case["id"]
            assert r["result"]["accuracy_score"] == want["accuracy_score"], case["id"]
            assert r["error"] is None
        else:
            assert r["result"] is None and r["error"]["kind"] == "reply", case["id"]
    s = run.summary
    assert (s["cases"], s["evaluated"], s["errors"], s["errors_by_kind"]) == (54, 39, 15, {"reply": 15})
    assert mutator.summarize(run.results) == {**s}


@pytest.mark.parametrize("source", ["replay", "sync", "async"])
def test_golden_cases_through_the_runner(tmp_path, source):
    path = golden_dataset(tmp_path)
    if source == "replay":
        run = mutator.run_dataset(path, concurrency=4)
    else:
        client = OrderedReplies((c["client_reply"] for c in CASES), asynchronous=source == "async")
        run = mutator.run_dataset(path, client, concurrency=1)
        assert client.calls == 54
    check_golden_run(run)
    # The dicts the runner returns are accepted as cases too.
    again = mutator.run_dataset([json.loads(line) for line in path.read_text().splitlines()])
    assert [r["id"] for r in again.results] == [c["id"] for c in CASES]


def normalise_times(line: str) -> str:
    return re.sub(r'"(time_used|latency_p50|latency_p95)":\s*[-0-9.e+]+', r'"\1":0', line)


def test_result_lines_equal_capkit_mutator_eval(tmp_path):
    """`run_dataset(out=...)` writes the lines `capkit mutator eval --replay --out` writes (timings
    aside), and `summary_out` its `--summary-out`."""
    exe = require_capkit()
    for cases in (EXAMPLE_CASES, golden_dataset(tmp_path)):
        cli_out, cli_summary = tmp_path / "cli.jsonl", tmp_path / "cli_summary.json"
        proc = subprocess.run(
            [exe, "mutator", "eval", str(cases), "--replay", "--out", str(cli_out), "--summary-out", str(cli_summary)],
            capture_output=True, text=True,
        )
        assert proc.returncode in (0, 1), proc.stderr
        py_out, py_summary = tmp_path / "py.jsonl", tmp_path / "py_summary.json"
        run = mutator.run_dataset(cases, out=py_out, summary_out=py_summary)
        cli_lines = cli_out.read_text().splitlines()
        py_lines = py_out.read_text().splitlines()
        assert [normalise_times(x) for x in py_lines] == [normalise_times(x) for x in cli_lines]
        assert [json.loads(x)["id"] for x in py_lines] == [r["id"] for r in run.results]
        assert normalise_times(py_summary.read_text()) == normalise_times(cli_summary.read_text())


def test_out_is_replaced_only_by_a_finished_run(tmp_path):
    """Issue 33: `run_dataset(out=...)` wrote its lines straight into `out` (an emptied file at the
    first line, a partial one on failure) though it says it writes as the command line does."""
    out = tmp_path / "results.jsonl"
    out.write_text("the previous run\n")
    seen = []

    def progress(done):
        # While the run works, `out` is still the previous file; the lines go to a temporary
        # file beside it.
        seen.append((out.read_text(), sorted(p for p in os.listdir(tmp_path) if p != "results.jsonl")))
        if done == 3:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        mutator.run_dataset(many_cases(6), concurrency=1, out=out, progress=progress)
    assert {text for text, _ in seen} == {"the previous run\n"}
    assert any(temps and temps[0].startswith(".results.jsonl.capkit-") for _, temps in seen)
    assert out.read_text() == "the previous run\n"
    assert os.listdir(tmp_path) == ["results.jsonl"], "no temporary file is left behind"
    run = mutator.run_dataset(many_cases(6), concurrency=1, out=out)
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == [r["id"] for r in run.results]
    assert os.listdir(tmp_path) == ["results.jsonl"]


def test_example_dataset_replay_figures(tmp_path):
    run = mutator.run_dataset(EXAMPLE_CASES, out=tmp_path / "r.jsonl")
    s = run.summary
    assert (s["cases"], s["evaluated"], s["errors"]) == (6, 6, 0)
    assert round(s["mean_accuracy"], 4) == 0.8611 and s["overall_match_rate"] == 0.5
    assert json.loads((tmp_path / "r.jsonl").read_text().splitlines()[0]) == run.results[0]


def test_runner_failures_are_counted_apart(tmp_path):
    class Flaky:
        def generate(self, prompt):
            if "fail" in prompt:
                raise ConnectionError("provider down")
            return "[]"

    cases = [
        {"id": "ok", "input": {"prompt": "fine"}, "expected_post_state": {}},
        {"id": "down", "input": {"prompt": "fail"}, "expected_post_state": {}},
        {"id": "typo", "input": {"prompt": "fine"}, "expected_post_stat": {}},
    ]
    run = mutator.run_dataset(cases, Flaky(), concurrency=2)
    kinds = [r["error"] and r["error"]["kind"] for r in run.results]
    assert kinds == [None, "client", "case"]
    assert "ConnectionError: provider down" in run.results[1]["error"]["message"]
    assert "expected_post_stat" in run.results[2]["error"]["message"]
    assert run.summary["errors_by_kind"] == {"client": 1, "case": 1}
    assert [r["id"] for r in run.errors] == ["down", "line-3"]
    with pytest.raises(FileNotFoundError) as err:
        mutator.run_dataset(tmp_path / "missing.jsonl")
    assert err.value.filename == str(tmp_path / "missing.jsonl")
    with pytest.raises(ValueError, match="concurrency"):
        mutator.run_dataset(cases, concurrency=0)
    with pytest.raises(TypeError, match="generate"):
        mutator.run_dataset(cases, object())
    with pytest.raises(FileNotFoundError):
        mutator.run_dataset(cases, out=tmp_path / "no" / "dir.jsonl")
    # Every output is checked before any is touched.
    out = tmp_path / "kept.jsonl"
    with pytest.raises(FileNotFoundError):
        mutator.run_dataset(cases, out=out, summary_out=tmp_path / "no" / "summary.json")
    assert not out.exists()
    with pytest.raises(IsADirectoryError):
        mutator.run_dataset(cases, out=tmp_path)
    assert sorted(os.listdir(tmp_path)) == [], "no temporary file is left behind"


def many_cases(n: int):
    return [
        {"id": f"c{i}", "input": {"prompt": f"case {i}"}, "expected_post_state": {}}
        for i in range(n)
    ]


def test_runner_concurrency_with_sync_and_async_clients():
    """A sync client that sleeps (releasing the GIL) and an async one that awaits both have several
    cases in flight at once: the runner's workers do not serialise on the interpreter."""

    class Counting:
        def __init__(self):
            self.lock = threading.Lock()
            self.in_flight = self.peak = 0

        def enter(self):
            with self.lock:
                self.in_flight += 1
                self.peak = max(self.peak, self.in_flight)

        def leave(self):
            with self.lock:
                self.in_flight -= 1

    class SleepySync(Counting):
        def generate(self, prompt):
            self.enter()
            time.sleep(0.02)
            self.leave()
            return "[]"

    class SleepyAsync(Counting):
        async def generate(self, prompt):
            self.enter()
            await asyncio.sleep(0.02)
            self.leave()
            return "[]"

    for client in (SleepySync(), SleepyAsync()):
        run = mutator.run_dataset(many_cases(24), client, concurrency=6)
        assert run.summary["evaluated"] == 24
        assert client.peak > 1, type(client).__name__

    async def inside_a_loop():
        client = SleepyAsync()
        run = await mutator.run_dataset_async(many_cases(12), client, concurrency=4)
        return run.summary["evaluated"], client.peak

    evaluated, peak = asyncio.run(inside_a_loop())
    assert evaluated == 12 and peak > 1


def test_keyboard_interrupt_stops_the_run_and_leaves_python_usable(tmp_path):
    class Interrupting:
        def __init__(self):
            self.calls = 0

        def generate(self, prompt):
            self.calls += 1
            if self.calls == 3:
                raise KeyboardInterrupt
            return "[]"

    client = Interrupting()
    out = tmp_path / "results.jsonl"
    out.write_text("the previous run\n")
    with pytest.raises(KeyboardInterrupt):
        mutator.run_dataset(many_cases(200), client, concurrency=1, out=out)
    assert client.calls < 200, "the rest of the run was cancelled"
    # Issue 33: `out` is written atomically, as `capkit mutator eval --out` writes it: an
    # interrupted run leaves the previous file as it was, and no partial or temporary one.
    assert out.read_text() == "the previous run\n"
    assert os.listdir(tmp_path) == ["results.jsonl"]
    # The interpreter (and the package) still work.
    assert mutator.run_dataset(many_cases(3)).summary["cases"] == 3


def test_ctrl_c_during_a_run_raises_keyboard_interrupt(python_sigint):
    """A real interrupt of the main thread (what Ctrl-C does) while the Rust runner works.

    The run itself sends the interrupt, from its tenth client call, so it always lands while the
    runner is working, whatever the machine's load (a timer could fire before or after the run).
    """
    import _thread

    class Interrupts:
        def __init__(self, at):
            self.calls = 0
            self.at = at
            self.lock = threading.Lock()

        def generate(self, prompt):
            with self.lock:
                self.calls += 1
                now = self.calls
            if now == self.at:
                # From another thread, as a terminal's SIGINT comes: the runner must notice it.
                sender = threading.Thread(target=_thread.interrupt_main)
                sender.start()
                sender.join()
            time.sleep(0.001)
            return "[]"

    client = Interrupts(at=10)
    with pytest.raises(KeyboardInterrupt):
        mutator.run_dataset(many_cases(5000), client, concurrency=2)
    assert 10 <= client.calls < 5000, "the rest of the run was cancelled"
    assert mutator.run_dataset(many_cases(2), Interrupts(at=None)).summary["evaluated"] == 2


def test_progress_is_reported():
    seen = []
    mutator.run_dataset(many_cases(10), concurrency=2, progress=seen.append)
    assert sorted(seen) == list(range(1, 11))

    def boom(n):
        raise RuntimeError("progress failed")

    with pytest.raises(RuntimeError, match="progress failed"):
        mutator.run_dataset(many_cases(3), progress=boom)


def test_help_explains_every_public_name():
    import inspect

    for name in mutator.__all__:
        obj = getattr(mutator, name)
        if inspect.isclass(obj) or inspect.isroutine(obj):
            assert obj.__doc__, name
            for attr, member in (vars(obj).items() if inspect.isclass(obj) else ()):
                if not attr.startswith("_") and (inspect.isroutine(member) or inspect.isdatadescriptor(member)):
                    assert member.__doc__, f"{name}.{attr}"
