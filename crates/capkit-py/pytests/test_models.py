"""capkit_rs.models: capkit's model adapters as students and teachers.

A small Python script as a ``cmd:`` model (the adapters crate's test model), a 127.0.0.1 server as an ``http:`` model and as an
OpenAI-compatible chat API, precomputed answers as a ``file:`` model: each profiles exactly like
the same rule written as a Python model, decision API included; answers are cached on disk as
the command line caches them (the same directory rules and files, shared with ``capkit
profile``); errors say which model failed and why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from capkit_cli import REPO, capkit_binary, require_capkit

import capkit_rs
from capkit_rs import (
    CapabilitySuite,
    capture_profile,
    capture_profile_report,
    case_jitter_invariance,
    compare_students,
    extractive_capture_profile,
    cache,
    keyboard_typo_corruption,
    models,
    whitespace_invariance,
)

TEXTS = [
    "good food",
    "Good service and a smile",
    "bad  coffee",
    "the GOOD old days were good",
    "nothing to say here",
    "good",
    "  spaced   out  good text ",
]


def suite(probes=("", "good", "GOOD")):
    return CapabilitySuite(
        corruptions={"typo_20": keyboard_typo_corruption(0.2, seed=1)},
        invariances={"case": case_jitter_invariance, "space": whitespace_invariance},
        probes=list(probes),
    )


def rule(text: str) -> str:
    return "pos" if "good" in text.lower() else "neg"


def decision(text: str):
    """The teacher escalates (None) on texts of fewer than three words."""
    return None if len(text.split()) < 3 else rule(text)


def student(texts):
    """A case-sensitive student, in Python."""
    return ["pos" if "good" in t else "neg" for t in texts]


class RuleTeacher:
    """The rule with its decision API, in Python: the reference of every adapter below."""

    def batch(self, texts):
        return [rule(t) for t in texts]

    def batch_decide(self, texts):
        return [decision(t) for t in texts]


@pytest.fixture
def script():
    """The adapters crate's own test model: ``model.py MODE [LOG]``, MODE ``rule`` (labels and
    decisions as :class:`RuleTeacher`), ``plain`` (labels), ``record`` (``{"len": ...}``),
    ``crash`` (exits with status 3 at the third text); LOG collects every text asked."""
    return REPO / "crates" / "model-adapters" / "tests" / "fixtures" / "model.py"


def asked(log: Path):
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


# ---- cmd: ----


def test_a_cmd_teacher_profiles_like_the_same_rule_in_python(script):
    reference = capture_profile(student, RuleTeacher(), TEXTS, suite())
    assert reference["abstention"]["teacher_escalation_rate"] > 0
    with models.cmd([sys.executable, str(script), "rule"], cache=False) as teacher:
        assert capture_profile(student, teacher, TEXTS, suite()) == reference
        # Both sides subprocesses; the student has no decision API.
        with models.cmd([sys.executable, str(script), "plain"], cache=False) as plain:
            got = capture_profile(plain, teacher, TEXTS, suite())
        assert got == capture_profile(RuleTeacher().batch, RuleTeacher(), TEXTS, suite())


def test_a_cmd_extractor_answers_records(script):
    records = models.cmd([sys.executable, str(script), "record"], cache=False)
    fields = ["len"]
    reference = extractive_capture_profile(
        lambda ts: [{"len": len(t)} for t in ts], lambda ts: [{"len": len(t)} for t in ts],
        TEXTS, suite(), fields=fields,
    )
    assert extractive_capture_profile(records, records, TEXTS, suite(), fields=fields) == reference
    assert records.batch(["ab", "ünï"], task="extract") == [{"len": 2}, {"len": 3}]
    records.close()


def test_the_cmd_spec_and_the_spec_string_are_one_model(script):
    argv = [sys.executable, str(script), "rule", "a b"]
    model = models.cmd(argv, cache=False)
    assert model.spec == f"cmd:{sys.executable} {script} rule 'a b'"
    assert repr(model) == f"AdapterModel({model.spec!r})"
    same = models.parse(model.spec, cache=False)
    assert same.spec == model.spec


def test_close_ends_the_process_and_a_later_use_starts_it_again(script, tmp_path):
    log = tmp_path / "asked.log"
    model = models.cmd([sys.executable, str(script), "plain", str(log)], cache=False)
    assert model.batch(["good one"]) == ["pos"]
    model.close()
    assert model.cache_info() == {}
    assert model.batch(["bad one"]) == ["neg"]
    model.close()
    assert asked(log) == ["good one", "bad one"]


# ---- the prediction cache ----


def test_a_cached_second_profile_asks_the_model_nothing(script, tmp_path):
    log = tmp_path / "asked.log"
    cache = tmp_path / "cache"
    argv = [sys.executable, str(script), "rule", str(log)]
    first_model = models.cmd(argv, cache=cache)
    first = capture_profile(student, first_model, TEXTS, suite())
    first_model.close()
    n = len(asked(log))
    assert n > 0
    info = first_model.cache_info()
    assert info == {}, "closed: nothing opened"

    again = models.cmd(argv, cache=cache)
    assert capture_profile(student, again, TEXTS, suite()) == first
    assert len(asked(log)) == n, "the cached run asked the model"
    info = again.cache_info()["classify"]
    assert info["misses"] == 0 and info["hits"] > 0
    assert info["path"] == cache / "predictions.sqlite3"
    again.close()


def test_the_default_cache_is_the_command_lines(script, tmp_path, monkeypatch):
    """Same directory rule ($XDG_CACHE_HOME/capkit) and same files: a profile by `capkit profile`
    makes the Python profile of the same model a run of cache hits."""
    exe = require_capkit()
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    log = tmp_path / "asked.log"
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(TEXTS) + "\n")
    suite_file = tmp_path / "suite.json"
    suite_file.write_text(json.dumps({
        # The command line's default generator is ChaCha; the Python default is mixle's.
        "corruptions": [{"name": "typo_20", "transform": "keyboard_typo", "rate": 0.2, "seed": 1, "rng": "mixle"}],
        "invariances": [{"name": "case", "transform": "case_jitter"}],
        "probes": ["", "good"],
    }))
    argv = [sys.executable, str(script), "rule", str(log)]
    spec = models.cmd(argv).spec
    cli = subprocess.run(
        [exe, "profile", "classify", "--texts", str(texts), "--suite", str(suite_file),
         "--student", spec, "--teacher", spec],
        capture_output=True, text=True, env={**os.environ, "XDG_CACHE_HOME": str(xdg)},
    )
    assert cli.returncode == 0, cli.stderr
    n = len(asked(log))
    assert n > 0
    teacher = models.cmd(argv)
    py_suite = CapabilitySuite(
        corruptions={"typo_20": keyboard_typo_corruption(0.2, seed=1)},
        invariances={"case": case_jitter_invariance},
        probes=["", "good"],
    )
    profile = capture_profile(teacher, teacher, TEXTS, py_suite)
    assert profile == json.loads(cli.stdout)
    assert len(asked(log)) == n, "the Python run asked what the CLI had cached"
    info = teacher.cache_info()["classify"]
    assert info["misses"] == 0
    assert info["path"] == xdg / "capkit" / "predictions.sqlite3"
    teacher.close()


def test_an_unusable_cache_warns_and_the_profile_goes_on(script, tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    teacher = models.cmd([sys.executable, str(script), "rule"], cache=not_a_dir)
    with pytest.warns(RuntimeWarning, match="prediction cache of `cmd:.*` not used"):
        profile = capture_profile(student, teacher, TEXTS, suite())
    assert profile == capture_profile(student, RuleTeacher(), TEXTS, suite())
    teacher.close()


def test_the_cache_is_looked_after_from_python(script, tmp_path):
    """capkit_rs.cache is `capkit cache stats|verify|compact|export`: the same crate functions."""
    store = tmp_path / "cache"
    teacher = models.cmd([sys.executable, str(script), "rule"], cache=store)
    capture_profile(student, teacher, TEXTS, suite())
    teacher.close()

    info = cache.stats(store)
    assert info["path"] == store / "predictions.sqlite3"
    assert info["format"] == "capkit-prediction-cache/2 (sqlite)"
    assert info["answers"] > 0 and info["bytes"] > 0
    [model] = info["models"]
    assert model["answers"] == info["answers"] and "cmd" in model["identity"]
    assert cache.verify(store) == []

    out = tmp_path / "answers.jsonl"
    assert cache.export(out, dir=store) == info["answers"]
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == info["answers"]
    assert set(lines[0]) == {"model", "k", "label", "decision"}

    before, after = cache.compact(store)
    assert 0 < after <= before
    assert cache.stats(store)["answers"] == info["answers"]

    if (cli := capkit_binary()) is not None:
        shown = subprocess.run([cli, "cache", "stats", "--json", "--cache-dir", str(store)],
                               capture_output=True, text=True, check=True)
        assert json.loads(shown.stdout)["answers"] == info["answers"]


def test_a_missing_cache_is_named_created_by_nothing_and_overwrites_nothing(tmp_path):
    missing = tmp_path / "nowhere"
    for call in (cache.stats, cache.verify, cache.compact):
        with pytest.raises(FileNotFoundError, match="there is no prediction cache there"):
            call(missing)
    out = tmp_path / "answers.jsonl"
    out.write_text("kept\n")
    with pytest.raises(FileNotFoundError, match=str(missing / "predictions.sqlite3")):
        cache.export(out, dir=missing)
    assert out.read_text() == "kept\n", "a failed export must leave the file as it was"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answers.jsonl"], "nothing created"
    assert cache.default_dir() == models_default_dir()


def models_default_dir():
    """The default directory's rule, as documented: $XDG_CACHE_HOME/capkit, else ~/.cache/capkit."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "capkit"
    home = os.environ.get("HOME")
    return Path(home) / ".cache" / "capkit" if home else Path(".capkit-cache")


def test_cache_arguments_are_checked():
    with pytest.raises(TypeError, match="cache must be True, False or a directory"):
        models.cmd(["true"], cache=3)
    with pytest.raises(TypeError, match="a list of str"):
        models.cmd("python3 model.py")
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        models.http("http://127.0.0.1:9/", timeout=0)
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        models.http("http://127.0.0.1:9/", concurrency=0)


# ---- errors ----


def test_a_crashing_model_names_itself_its_exit_and_its_stderr(script):
    model = models.cmd([sys.executable, str(script), "crash"], cache=False)
    with pytest.raises(RuntimeError) as err:
        capture_profile(student, model, TEXTS, suite(probes=()))
    message = str(err.value)
    assert message.startswith("teacher model failed on the clean texts: `cmd:")
    assert "exited (exit status: 3) after 2 output lines, before answering text id 2" in message
    assert message.endswith("its last stderr line: RuntimeError: model fell over")


def test_a_missing_program_is_a_file_not_found_error():
    model = models.cmd(["./no-such-model", "--fast"], cache=False)
    with pytest.raises(FileNotFoundError, match=r"model `cmd:./no-such-model --fast`: cannot start `./no-such-model`"):
        capture_profile(student, model, TEXTS, suite())


def test_bad_specs_and_settings_are_value_errors():
    with pytest.raises(ValueError, match="has no scheme"):
        models.parse("python3 model.py")
    with pytest.raises(ValueError, match=r"the prompt template has no \{text\} slot"):
        models.openai("m", prompt_template="Label it")
    with pytest.raises(ValueError, match=r"needs a prompt template"):
        models.parse("openai:m")
    with pytest.raises(ValueError, match="must start with http:// or https://"):
        models.http("ftp://host/")


def test_adapters_take_text_only(script):
    model = models.cmd([sys.executable, str(script), "plain"], cache=False)
    with pytest.raises(TypeError, match="answers text: got int"):
        model.batch(["a", 1])
    with pytest.raises(TypeError, match="not one str"):
        model.batch("abc")
    with pytest.raises(ValueError, match='task must be "classify" or "extract"'):
        model.batch(["a"], task="label")
    model.close()


# ---- http: and openai: against a server on 127.0.0.1 ----


class Server:
    """A JSON server on 127.0.0.1 answering with ``handler(path, body) -> (status, dict)``; it
    keeps every request body."""

    def __init__(self, handler):
        self.bodies = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                outer.bodies.append(body)
                status, reply = handler(self.path, body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve():
    servers = []

    def start(handler):
        server = Server(handler)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def rule_endpoint(path, body):
    texts = body["texts"]
    return 200, {"labels": [rule(t) for t in texts], "decisions": [decision(t) for t in texts]}


@pytest.mark.parametrize("batch_size, concurrency", [(1, 1), (3, 4), (64, 8)])
def test_an_http_teacher_profiles_like_the_rule_for_any_batch_size(serve, batch_size, concurrency):
    server = serve(rule_endpoint)
    teacher = models.http(f"{server.url}/predict", batch_size=batch_size, concurrency=concurrency, cache=False)
    assert capture_profile(student, teacher, TEXTS, suite()) == capture_profile(
        student, RuleTeacher(), TEXTS, suite()
    )
    assert all(len(b["texts"]) <= batch_size for b in server.bodies)


def test_an_http_server_error_names_the_model_and_the_texts(serve):
    server = serve(lambda path, body: (400, {"error": "bad input"}))
    teacher = models.http(server.url, cache=False)
    with pytest.raises(RuntimeError) as err:
        capture_profile(student, teacher, ["a", "b"], suite(probes=()))
    assert str(err.value) == (
        f"teacher model failed on the clean texts: `http:{server.url}` (text ids 0..2): "
        'HTTP 400: {"error": "bad input"}'
    )


def chat_endpoint(answer):
    def handle(path, body):
        assert path == "/v1/chat/completions"
        prompt = body["messages"][0]["content"]
        text = prompt.removeprefix("Label this text:\n") if hasattr(prompt, "removeprefix") else prompt[len("Label this text:\n"):]
        return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": answer(text)}}]}

    return handle


def test_an_openai_teacher_profiles_like_the_rule_and_its_cache_sends_nothing_twice(serve, tmp_path):
    server = serve(chat_endpoint(lambda t: f"  {rule(t)}\n"))
    reference = capture_profile(student, RuleTeacher().batch, TEXTS, suite())
    teacher = models.openai(
        "teacher-model", base_url=f"{server.url}/v1", prompt_template="Label this text:\n{text}",
        concurrency=3, cache=tmp_path / "cache",
    )
    assert teacher.spec == f"openai:teacher-model@{server.url}/v1"
    assert capture_profile(student, teacher, TEXTS, suite()) == reference
    sent = len(server.bodies)
    assert sent > 0
    assert all(b["model"] == "teacher-model" and b["temperature"] == 0.0 for b in server.bodies)
    # A new object over the same model, prompt and cache: no request at all.
    again = models.parse(
        "openai:teacher-model", base_url=f"{server.url}/v1",
        prompt_template="Label this text:\n{text}", cache=tmp_path / "cache",
    )
    assert capture_profile(student, again, TEXTS, suite()) == reference
    assert len(server.bodies) == sent
    # The raw replies are in the cache's database (one per request sent), not files under chat/.
    store = tmp_path / "cache"
    assert not (store / "chat").exists()
    replies = cache.stats(store)["replies"]
    assert 0 < replies <= sent
    out = tmp_path / "replies.jsonl"
    assert cache.export(out, dir=store, replies=True) == replies
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == replies and all(line["model"] == "teacher-model" for line in lines)


def test_an_openai_extractor_reads_json_replies(serve):
    server = serve(chat_endpoint(lambda t: '```json\n{"name": "%s"}\n```' % t.split()[0] if t.strip() else "{}"))
    model = models.openai("m", base_url=f"{server.url}/v1", prompt_template="Label this text:\n{text}", cache=False)
    assert model.batch(["Ada Lovelace", "Grace Hopper"], task="extract") == [{"name": "Ada"}, {"name": "Grace"}]
    profile = extractive_capture_profile(
        model, lambda ts: [{"name": t.split()[0]} if t.strip() else {} for t in ts],
        ["Ada Lovelace wrote", "Grace Hopper found"], CapabilitySuite(), fields=["name"],
    )
    assert profile["clean_f1"] == 1.0


def test_https_base_urls_are_accepted():
    # The wheel is built with TLS: an https teacher opens (nothing is sent until a profile).
    model = models.openai("m", base_url="https://127.0.0.1:9/v1", prompt_template="{text}")
    assert model.spec == "openai:m@https://127.0.0.1:9/v1"


# ---- file: ----


def test_a_file_model_answers_from_precomputed_predictions(tmp_path):
    asked_texts = []

    def recorder(texts):
        asked_texts.extend(texts)
        return ["x"] * len(texts)

    capture_profile(student, recorder, TEXTS, suite())
    path = tmp_path / "teacher.jsonl"
    path.write_text("".join(
        json.dumps({"text": t, "label": rule(t), "decision": decision(t)}) + "\n" for t in dict.fromkeys(asked_texts)
    ))
    teacher = models.file(path)
    assert teacher.spec == f"file:{path}"
    assert capture_profile(student, teacher, TEXTS, suite()) == capture_profile(student, RuleTeacher(), TEXTS, suite())
    missing = models.file(path)
    with pytest.raises(RuntimeError, match=r'has no prediction for the text "unseen"'):
        missing.batch(["unseen"])


# ---- reports and comparisons ----


def test_reports_name_adapter_models_by_their_spec(script):
    teacher = models.cmd([sys.executable, str(script), "rule"], cache=False)
    report = capture_profile_report(student, teacher, TEXTS, suite(), student_name="py-student")
    assert report["models"] == {"student": "py-student", "teacher": teacher.spec}
    comparison = compare_students(teacher, {"a": student, "b": RuleTeacher().batch}, TEXTS, suite())
    assert set(comparison["students"]) == {"a", "b"}
    teacher.close()


def test_the_module_is_typed_and_documented():
    assert capkit_rs.models.__all__ == ["AdapterModel", "cmd", "file", "http", "openai", "parse"]
    assert models.cmd.__module__ == "capkit_rs.models"
    assert "JSONL protocol" in (models.__doc__ or "")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (Path(models.__file__).parent / "models.pyi").exists()
    assert REPO.exists()
