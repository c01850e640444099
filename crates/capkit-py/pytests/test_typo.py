"""capkit_rs.typo against the typo goldens (urlinsane's generators and its aitypo harness).

The fixtures are the copies the Rust tests read (crates/typo-tasks/tests/fixtures, themselves
copied from the reference goldens), reached by a path relative to this file so that a clone of
the repository is all the tests need.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from capkit_cli import require_capkit
from capkit_rs import typo

FIXTURES = Path(__file__).resolve().parents[2] / "typo-tasks" / "tests" / "fixtures"
ALL_IDS = [
    "aci", "acs", "bf", "cm", "cns", "co", "cr", "cs", "dhs", "di", "do",
    "gi", "gr", "hi", "ho", "hr", "hs", "ons", "rar", "sp", "tos", "vs",
]


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def jsonl(name: str):
    return [json.loads(line) for line in fixture(name).splitlines()]


@pytest.fixture(scope="module")
def data() -> typo.Data:
    return typo.Data.from_file(FIXTURES / "data.json")


@pytest.fixture(scope="module")
def registry(data) -> typo.Registry:
    return typo.Registry(data)


@pytest.fixture(scope="module")
def harness():
    return json.loads(fixture("harness.json"))


def member(v) -> bytes:
    """A golden member: a JSON string, or {"hex": ...} for bytes that are not UTF-8."""
    if isinstance(v, str):
        return v.encode("utf-8")
    return bytes.fromhex(v["hex"])


def as_bytes(v) -> bytes:
    return v if isinstance(v, bytes) else v.encode("utf-8")


# --- the generators ---------------------------------------------------------------------


def test_golden_expect_every_line_of_every_task(registry):
    """Every line of expect.jsonl (457 inputs × all 22 tasks), through Task.expect."""
    seen = set()
    lines = jsonl("expect.jsonl")
    assert len(lines) == 10_054
    for rec in lines:
        task = registry[rec["task"]]
        got = task.expect(rec["input"])
        want = [member(v) for v in rec["expect"]]
        assert [as_bytes(v) for v in got] == want, (rec["task"], rec["input"])
        # str exactly when UTF-8: nothing is replaced lossily.
        for v in got:
            if isinstance(v, bytes):
                with pytest.raises(UnicodeDecodeError):
                    v.decode("utf-8")
        seen.add(rec["task"])
    assert sorted(seen) == ALL_IDS


def test_golden_bf_bytes_are_bytes_never_replaced(registry):
    bf = registry["bf"]
    lines = jsonl("expect_bf_bytes.jsonl")
    assert len(lines) == 457
    invalid_inputs = 0
    for rec in lines:
        got = bf.expect(rec["input"])
        assert [as_bytes(v) for v in got] == [bytes.fromhex(h) for h in rec["expect_hex"]]
        assert bf.expect_bytes(rec["input"]) == [bytes.fromhex(h) for h in rec["expect_hex"]]
        all_valid = all(isinstance(v, str) for v in got)
        assert all_valid == rec["all_valid_utf8"], rec["input"]
        for v in got:
            if isinstance(v, str):
                assert "\ufffd" not in v or "\ufffd" in rec["input"]
        invalid_inputs += not all_valid
    assert invalid_inputs > 0, "the goldens include inputs with non-UTF-8 flips"
    # A concrete one: flipping bits of "ü" (C3 BC) leaves orphaned bytes.
    got = bf.expect("ü")
    assert b"\xc3<" in got and all(isinstance(v, bytes) for v in got if v == b"\xc3<")


def test_golden_expect_alt_data():
    alt = typo.Data.from_file(FIXTURES / "data_alt.json")
    assert alt.keyboard == typo.Keyboard.by_name("qwerty3").rows
    reg = typo.Registry(alt)
    lines = jsonl("expect_alt.jsonl")
    assert len(lines) == 2_742
    for rec in lines[::7]:
        got = reg[rec["task"]].expect(rec["input"])
        assert [as_bytes(v) for v in got] == [member(v) for v in rec["expect"]], rec


def test_golden_expect_keyboards(data):
    lines = jsonl("expect_keyboards.jsonl")
    assert len(lines) == 1_422
    regs = {name: typo.Registry(data, keyboard=name) for name in ("azerty", "qwertz", "dvorak")}
    # The same registries built the other ways give the same answers.
    assert regs["azerty"]["acs"].expect("azerty.fr") == typo.Registry(
        data.with_keyboard(typo.Keyboard.by_name("azerty"))
    )["acs"].expect("azerty.fr")
    for rec in lines[::3]:
        got = regs[rec["layout"]][rec["task"]].expect(rec["input"])
        assert got == rec["expect"], rec


def test_expect_is_sorted_bytewise_unique_and_excludes_the_input(registry):
    for task in registry:
        for name in ["google.com", "münchen.de", "a", "日本.jp"]:
            got = [as_bytes(v) for v in task.expect(name)]
            assert got == sorted(set(got)), task.id
            assert name.encode() not in got and b"" not in got


# --- data, keyboards, registry -----------------------------------------------------------


def test_embedded_english_data_and_layouts():
    english = typo.Data.english()
    assert english.vowels == ["a", "e", "i", "o", "u"]
    assert len(english.graphemes) == 26
    assert english.homoglyphs and english.homophones and english.misspellings and english.numerals
    assert english.keyboard == typo.Keyboard().rows == typo.Keyboard.by_name("qwerty").rows
    assert typo.KEYBOARD_NAMES == ("qwerty", "qwerty3", "azerty", "qwertz", "dvorak")
    for name in typo.KEYBOARD_NAMES:
        assert typo.Keyboard.by_name(name).rows
    assert typo.Keyboard.by_name("azerty").rows[1] == "azertyuiop"
    assert len(typo.Registry()) == 22
    assert typo.Registry().ids() == ALL_IDS
    assert typo.Data.from_json(english.to_json()) == english
    assert typo.FIELDS == (
        "graphemes", "vowels", "homoglyphs", "homophones", "misspellings", "numerals", "keyboard",
    )


def test_golden_registry_contents_and_needs(harness, data):
    for key, d in [("registry_with_data_json", data), ("registry_with_empty_Data", typo.Data())]:
        got = [{"ID": t.id, "Title": t.title, "Needs": t.needs.value} for t in typo.Registry(d)]
        assert got == harness[key], key
    assert [n.value for n in typo.Needs] == [harness["needs_strings"][k] for k in "012"]
    assert typo.Needs.NOTHING == "nothing" and str(typo.Needs.KEYBOARD) == "keyboard"
    empty = typo.Registry(typo.Data())
    assert empty.ids() == ["bf", "co", "cr", "cs", "dhs", "di", "do", "hi", "ho", "sp", "tos"]
    why = empty.why_unregistered("hr")
    assert str(why) == "hr (Homoglyph Replacement): the `homoglyphs` table is empty"
    assert why.table == "homoglyphs" and why.needs is typo.Needs.LANGUAGE
    assert [u.id for u in empty.unregistered()] == sorted(set(ALL_IDS) - set(empty.ids()))
    assert empty.get("hr") is None and "hr" not in empty and "co" in empty
    with pytest.raises(KeyError, match="the `homoglyphs` table is empty"):
        empty["hr"]
    with pytest.raises(KeyError, match="unknown task 'zz'|unknown task \"zz\""):
        empty["zz"]
    catalog = typo.CATALOG
    assert [i.id for i in catalog] == ALL_IDS
    assert typo.task_info("sp").needs is typo.Needs.LANGUAGE and typo.task_info("sp").table is None
    assert typo.task_info("acs").table == "keyboard"
    assert typo.task_info("nope") is None
    task = typo.Registry()["co"]
    assert (task.id, task.title, task.needs, task.table) == (
        "co", "Character Omission", typo.Needs.NOTHING, None,
    )


def test_golden_select_results_and_errors(harness, registry):
    cases = harness["select"]
    assert len(cases) == 10
    for case in cases:
        args = case["args"] or []
        if case["error"] is None:
            assert [t.id for t in registry.select(*args)] == case["ids"], args
            assert [t.id for t in typo.select(registry, *args)] == case["ids"], args
        else:
            with pytest.raises(ValueError) as err:
                registry.select(*args)
            assert "aitypo: " + str(err.value) == case["error"], args


def test_data_errors_name_the_field(tmp_path):
    with pytest.raises(ValueError, match=r"homophones\[0\]\[1\]"):
        typo.Data(homophones=[("to", 2)])
    with pytest.raises(ValueError, match="`vowels`"):
        typo.Data(vowels="aeiou")
    with pytest.raises(ValueError, match="unknown field"):
        typo.Data(keyboards=["qwe"])
    with pytest.raises(ValueError, match=r"keyboard\[1\]"):
        typo.Keyboard(["abc", "   "])
    with pytest.raises(ValueError, match="colemak"):
        typo.Keyboard.by_name("colemak")
    with pytest.raises(TypeError, match="homoglyphs"):
        typo.Data(homoglyphs={"o": {1, 2}})
    bad = tmp_path / "data.json"
    bad.write_text('{"numerals": {"4": ["four", 4]}}')
    with pytest.raises(ValueError) as err:
        typo.Data.from_file(bad)
    assert str(bad) in str(err.value) and 'numerals["4"][1]' in str(err.value)
    with pytest.raises(FileNotFoundError) as err:
        typo.Data.from_file(tmp_path / "missing.json")
    assert err.value.filename == str(tmp_path / "missing.json")
    # Tuples are lists, and tables round-trip.
    d = typo.Data(homophones=[("to", "two")], vowels=("a",), keyboard=["qwe", "asd"])
    assert d.homophones == [["to", "two"]] and d.vowels == ["a"]
    assert typo.Registry(d)["hs"].expect("to.com") == ["two.com"]


# --- corpora, splits, JSONL ----------------------------------------------------------------


def unit_sample(registry) -> typo.Corpus:
    """The sample of harness.json: EmitWithEmpty of co, cs, rar over google, example, "", aab,
    source "unit", assigned with the default ratio and salt ""."""
    corpus = typo.emit_with_empty(registry.select("co,cs,rar"), ["google", "example", "", "aab"], "unit")
    typo.assign(corpus, typo.DEFAULT_RATIO, "")
    return corpus


def test_golden_emit_describe_filter_leakage(harness, registry):
    corpus = unit_sample(registry)
    want = harness["emitwithempty_sample"]
    assert len(corpus) == len(want)
    for e, w in zip(corpus, want):
        assert (e.task, e.input, e.split, e.source) == (w["task"], w["input"], w["split"], w["source"])
        assert (e.expect is None) == w["expect_is_nil"]
        assert e.expect_set == (w["expect"] or [])
    tasks = typo.select(registry, "co", "cs", "rar")
    assert len(typo.emit(tasks, ["google", "example", "aab"], "unit")) == harness["emit_sample_count"]

    stats = typo.stats(corpus)
    d = harness["describe"]
    assert str(stats) == d["String"]
    assert (stats.examples, stats.inputs, stats.tasks, stats.variants) == (
        d["Examples"], d["Inputs"], d["Tasks"], d["Variants"],
    )
    assert stats.by_task == d["ByTask"] and stats.splits == d["Splits"]
    assert corpus.stats() == stats == typo.describe(list(corpus))
    assert str(typo.stats([])) == harness["describe_empty_string"]
    unassigned = typo.emit_with_empty(tasks, ["google"], "unit")
    assert str(typo.stats(unassigned)) == harness["describe_unassigned_string"]

    with_unassigned = typo.Corpus(corpus)
    with_unassigned.append(unassigned[0])
    for split, n in harness["filter_counts"].items():
        assert len(typo.filter(with_unassigned, split)) == n, split
        assert len(with_unassigned.filter(split)) == n, split

    assert typo.leakage(corpus) == (harness["leakage_clean"] or [])
    leaky = typo.Corpus(corpus)
    leaky.append(corpus[0].with_split("zzz"))
    assert typo.leakage(leaky) == harness["leakage_after_adding_google_in_split_zzz"]
    assert leaky.leakage() == typo.leakage(list(leaky))


def test_golden_splits_every_hash_and_split():
    default = typo.Splitter(typo.DEFAULT_RATIO, "")
    salted = typo.Splitter(typo.DEFAULT_RATIO, "exp-7")
    eight = typo.Splitter(typo.Ratio(8, 1, 1), "")
    half = typo.Splitter((0.5, 0.25, 0.25), "")
    lines = jsonl("splits.jsonl")
    assert len(lines) == 457
    for rec in lines:
        name = rec["input"]
        for key, salt, splitter in [("salt_empty", "", default), ("salt_exp-7", "exp-7", salted)]:
            want = rec[key]
            h = typo.split_hash(salt, name)
            assert str(h) == want["hash_u64"] and f"{h:016x}" == want["hash_hex"]
            assert typo.split_position(h) == want["f"]
            assert splitter.split_of(name) == want["split"]
        assert eight.split_of(name) == rec["salt_empty_ratio_8_1_1"]
        assert half.split_of(name) == rec["salt_empty_ratio_0.5_0.25_0.25"]
    assert typo.DEFAULT_RATIO == typo.Ratio(0.8, 0.1, 0.1)
    assert (typo.TRAIN, typo.VAL, typo.TEST) == ("train", "val", "test")


def test_assign_is_by_input_and_in_place(registry):
    corpus = typo.emit(registry.select(), ["google.com", "example.org", "münchen.de"])
    assert {e.split for e in corpus} == {""}
    corpus.assign(typo.Ratio(1, 1, 1), salt="s")
    splitter = typo.Splitter(typo.Ratio(1, 1, 1), "s")
    for e in corpus:
        assert e.split == splitter.split_of(e.input)
    assert typo.leakage(corpus) == []
    with pytest.raises(TypeError, match="in place"):
        typo.assign(list(corpus))
    with pytest.raises(ValueError, match="three weights"):
        typo.assign(corpus, (1, 2))
    with pytest.raises(ValueError, match="not a finite number"):
        typo.assign(corpus, (1, float("nan"), 1))


def test_golden_writejsonl_bytes_sample(harness, tmp_path):
    examples = [
        typo.Example("co", "a&b<c>.com"),
        typo.Example("co", "x", [], "train", "s"),
        typo.Example("co", "\u2028é\x7f\x01\"\\/", ["\t"]),
    ]
    want = harness["writejsonl_bytes_sample"]["bytes"].encode("utf-8")
    assert typo.jsonl_bytes(examples) == want
    assert b"".join(e.to_jsonl() for e in examples) == want
    out = tmp_path / "sample.jsonl"
    fp = typo.write_jsonl(out, examples)
    assert out.read_bytes() == want
    assert fp == typo.fingerprint(want) and fp.startswith("blake3:") and len(fp) == 7 + 64
    buf = io.BytesIO()
    assert typo.write_jsonl(buf, examples) == fp
    assert buf.getvalue() == want


def test_golden_corpus_writejsonl_byte_for_byte(registry, tmp_path):
    """The Rust golden (upstream's WriteJSONL output), rebuilt through the Python API."""
    tasks = [t for t in registry if t.id not in ("gi", "gr")]
    names = fixture("inputs.txt").split("\n")[:20] + ["a&b<c>.com", "münchen.de", "日本.jp"]
    corpus = typo.emit_with_empty(tasks, names, "inputs.txt")
    typo.assign(corpus, typo.DEFAULT_RATIO, "")
    kept = corpus.representable_only()
    assert len(corpus) - len(kept) == 2, "the bf examples of the two non-ASCII inputs"
    assert [e for e in corpus if not typo.representable(e)] == [
        e for e in corpus if e.task == "bf" and e.input in ("münchen.de", "日本.jp")
    ]
    want = (FIXTURES / "corpus_writejsonl.jsonl").read_bytes()
    out = tmp_path / "corpus.jsonl"
    typo.write_jsonl(out, kept)
    assert out.read_bytes() == want
    assert kept.to_jsonl() == want
    # ... and it reads back to the same examples, and writes back to the same bytes.
    back = typo.read_jsonl(out)
    assert back == kept
    assert typo.jsonl_bytes(back) == want
    with open(out, "rb") as f:
        assert typo.read_jsonl(f) == kept


def capkit_typo_emit(tmp_path):
    """`capkit typo emit` of the 457-name golden corpus (salt s1, ratio 7,2,1, unrepresentable
    examples dropped): the file it wrote and its stderr."""
    cli_out = tmp_path / "cli.jsonl"
    proc = subprocess.run(
        [require_capkit(), "typo", "emit", "--corpus", str(FIXTURES / "inputs.txt"),
         "--drop-unrepresentable", "--salt", "s1", "--ratio", "7,2,1", "--out", str(cli_out)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return cli_out, proc


def test_jsonl_equals_capkit_typo_emit(tmp_path):
    """The whole 457-name golden corpus × the embedded English registry, written by the Python
    API, is byte for byte what `capkit typo emit` writes (splits, source and all)."""
    cli_out, proc = capkit_typo_emit(tmp_path)
    corpus_file = FIXTURES / "inputs.txt"
    registry = typo.Registry()
    corpus = typo.emit(registry.select(), corpus_file.read_text().split("\n"), source="inputs.txt")
    typo.assign(corpus, (7, 2, 1), salt="s1")
    py_out = tmp_path / "py.jsonl"
    fingerprint = typo.write_jsonl(py_out, corpus.representable_only())
    assert py_out.read_bytes() == cli_out.read_bytes()
    assert f"fingerprint {fingerprint}" in proc.stderr
    assert str(typo.stats(corpus.representable_only())) in proc.stderr


def test_emit_releases_the_gil():
    """While a large emit runs in Rust, another Python thread keeps running."""
    names = fixture("bench_domains2000.txt").split("\n") * 2
    tasks = typo.Registry().select()
    ticks = []
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        time.sleep(0.01)
        start = time.perf_counter()
        corpus = typo.emit(tasks, names)
        end = time.perf_counter()
    finally:
        stop.set()
        spinner.join()
    assert len(corpus) > 10_000
    inside = [t for t in ticks if start < t < end]
    assert len(inside) >= 3, (end - start, len(inside))


def test_golden_writejsonl_refuses_bf_having_written_nothing(harness, registry, tmp_path):
    examples = list(typo.emit([registry["co"]], ["example"] * 200))
    examples += list(typo.emit([registry["bf"]], ["münchen"]))
    assert not typo.representable(examples[-1])
    out = tmp_path / "refused.jsonl"
    with pytest.raises(ValueError) as err:
        typo.write_jsonl(out, examples)
    assert harness["writejsonl_bf_munchen_error"].removeprefix("aitypo: ") in str(err.value)
    assert "nothing was written" in str(err.value)
    assert not out.exists()
    assert os.listdir(tmp_path) == [], "no temporary file is left behind"
    # An existing file is left as it was.
    out.write_bytes(b"precious\n")
    with pytest.raises(ValueError):
        typo.write_jsonl(out, examples)
    assert out.read_bytes() == b"precious\n"
    assert os.listdir(tmp_path) == ["refused.jsonl"]
    buf = io.BytesIO()
    with pytest.raises(ValueError):
        typo.write_jsonl(buf, examples)
    assert buf.getvalue() == b""
    with pytest.raises(ValueError, match="not valid UTF-8"):
        examples[-1].to_jsonl()
    # bf over ASCII writes fine.
    typo.write_jsonl(out, typo.emit([registry["bf"]], ["example"]))
    assert out.read_bytes().startswith(b'{"task":"bf","input":"example"')


def test_write_jsonl_io_errors_name_the_file(tmp_path):
    missing_dir = tmp_path / "no" / "such" / "dir" / "corpus.jsonl"
    with pytest.raises(FileNotFoundError) as err:
        typo.write_jsonl(missing_dir, [typo.Example("co", "a", ["x"])])
    assert str(tmp_path / "no" / "such" / "dir") in str(err.value)
    with pytest.raises(TypeError, match="path .* or a binary file object"):
        typo.write_jsonl(42, [])
    with pytest.raises(TypeError, match="Example"):
        typo.write_jsonl(tmp_path / "x.jsonl", [{"task": "co"}])


def test_golden_readjsonl_behaviour(harness, tmp_path):
    ok = typo.read_jsonl(io.BytesIO(
        b'{"task":"co","input":"a","expect":null,"split":"train"}\n\n{"task":"co","input":"b","expect":["x"]}\r\n'
    ))
    want = harness["readjsonl_ok"]["examples"]
    assert len(ok) == len(want)
    for e, w in zip(ok, want):
        assert (e.task, e.input, e.split) == (w["task"], w["input"], w["split"])
        assert (e.expect is None) == w["expect_is_nil"]
        assert e.expect_set == (w["expect"] or [])
    ci = typo.read_jsonl(io.BytesIO(b'{"TASK":"cs","Input":"x","ExPeCt":["y"],"other":{}}'))
    w = harness["readjsonl_case_insensitive_keys"]
    assert (ci[0].task, ci[0].input, ci[0].expect) == (w["task"], w["input"], w["expect"])

    def prefix(golden: str) -> str:
        return "".join(golden.split(": ")[1:2]) + ": "  # "line N: "

    path = tmp_path / "bad.jsonl"
    for text, key in [
        (b'{"task":"co","input":"a"}\nnope\n', "readjsonl_malformed_line2"),
        (b'{"task":"co","input":"a"}\n\n  \n\r\n{"task":\n', "readjsonl_blank_lines_count"),
        (b'{"task":"co","input":"a","expect":"x"}', "readjsonl_wrong_type_error"),
    ]:
        path.write_bytes(text)
        with pytest.raises(ValueError) as err:
            typo.read_jsonl(path)
        assert str(err.value).startswith(f"{path}: {prefix(harness[key])}"), (str(err.value), key)
    assert 'field "expect"' in str(err.value)
    with pytest.raises(FileNotFoundError) as err:
        typo.read_jsonl(tmp_path / "missing.jsonl")
    assert err.value.filename == str(tmp_path / "missing.jsonl")
    huge = b'{"task":"co","input":"' + b"a" * (9 * 1024 * 1024) + b'"}\n'
    with pytest.raises(ValueError, match="token too long"):
        typo.read_jsonl(io.BytesIO(huge))


# --- scoring -------------------------------------------------------------------------------


def golden_results(registry):
    results = []
    for case in jsonl("scores.jsonl"):
        r = typo.score(registry[case["task"]], case["input"], case["predict"] or [])
        w = case["result"]
        assert (r.task, r.input) == (w["task"], w["input"]), case["name"]
        for key in ("expect", "predict", "hit", "missed", "spurious"):
            assert getattr(r, key) == (w[key] or []), (case["name"], key)
        assert r.exact == w["exact"], case["name"]
        assert (r.precision, r.recall, r.f1) == (w["precision"], w["recall"], w["f1"]), case["name"]
        assert r.to_dict()["f1"] == w["f1"]
        results.append(r)
    return results


def test_golden_scores_every_case(registry):
    assert len(golden_results(registry)) == 48


def test_golden_summaries(registry, harness):
    results = golden_results(registry)
    want = json.loads(fixture("summaries.json"))
    got = typo.summarize(results, registry)
    assert len(got) == len(want["summaries"])
    for s, w in zip(got, want["summaries"]):
        assert s.task == w["task"] and s.needs == w["needs"] and s.needs.value == w["needs"]
        assert (s.n, s.exact_match, s.precision, s.recall, s.f1) == (
            w["n"], w["exact_match"], w["precision"], w["recall"], w["f1"],
        )
        assert str(s) == w["string"]
        assert s.to_dict()["needs"] == w["needs"]
    with pytest.raises(ValueError) as err:
        typo.summarize(results, typo.Registry(typo.Data()))
    assert "aitypo: " + str(err.value) == want["error_against_Tasks(Data{})"]
    assert len(typo.summarize([], registry)) == want["summarize_no_results"]["len"]
    with pytest.raises(TypeError, match="ScoreResult"):
        typo.summarize([{"task": "co"}], registry)


def test_score_takes_bytes_for_bf(registry):
    bf = registry["bf"]
    want = bf.expect("aü")
    assert {type(v) for v in want} == {str, bytes}
    r = typo.score(bf, "aü", want)
    assert r.exact and r.hit == want
    r = typo.score(bf, "aü", [v for v in want if isinstance(v, bytes)])
    assert not r.exact and r.missed and all(isinstance(v, str) for v in r.missed)
    # A bytes prediction equal to a str member is the same name.
    r = typo.score(bf, "aü", [v.encode() if isinstance(v, str) else v for v in want])
    assert r.exact
    with pytest.raises(TypeError, match="str or bytes"):
        typo.score(bf, "ü", [1])
    with pytest.raises(TypeError, match="not a single str"):
        typo.score(bf, "ü", "abc")


# --- the Python face ------------------------------------------------------------------------


def test_corpus_is_a_sequence(registry):
    corpus = typo.emit(registry.select("co,hi"), ["ab", "x.io"], "demo")
    assert len(corpus) == 4
    assert corpus[0] == typo.Example("co", "ab", ["a", "b"], "", "demo")
    assert corpus[-1].task == "hi" and corpus[-1].input == "x.io"
    assert list(corpus[1:3]) == list(corpus)[1:3]
    assert list(corpus[::-1]) == list(corpus)[::-1]
    with pytest.raises(IndexError):
        corpus[4]
    with pytest.raises(TypeError):
        corpus["a"]
    assert repr(corpus[0]) == "Example(task='co', input='ab', expect=['a', 'b'], split='', source='demo')"
    assert corpus[0].to_dict() == {
        "task": "co", "input": "ab", "expect": ["a", "b"], "split": "", "source": "demo",
    }
    with pytest.raises(TypeError, match="Task objects"):
        typo.emit(["co"], ["ab"])
    with pytest.raises(TypeError, match="not a single str"):
        typo.emit(registry.select("co"), "ab")


def test_threads_share_registries_and_release_the_gil(registry):
    """Tasks are shared across threads; emit and expect run with the GIL released, so threads
    give the same answers as one thread."""
    names = fixture("inputs.txt").split("\n")[:100]
    tasks = registry.select()
    want = typo.jsonl_bytes(typo.emit(tasks, names))
    got = [None] * 4

    def work(i: int) -> None:
        got[i] = typo.jsonl_bytes(typo.emit(tasks, names))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want] * 4


def test_help_explains_every_public_name():
    import inspect

    documented = 0
    for name in typo.__all__:
        obj = getattr(typo, name)
        if inspect.isclass(obj) or inspect.isroutine(obj):
            assert obj.__doc__, name
            for attr, member in (vars(obj).items() if inspect.isclass(obj) else ()):
                if not attr.startswith("_") and (inspect.isroutine(member) or inspect.isdatadescriptor(member)):
                    assert member.__doc__, f"{name}.{attr}"
            documented += 1
    assert documented > 30


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664)])
def test_written_files_get_the_umask_mode_of_a_new_file(tmp_path, umask, mode):
    # Issue 21: every file was 0600 whatever the umask (the temporary file's mode, kept by the
    # rename into place).
    examples = typo.emit(typo.Registry().select("co"), ["google.com"])
    old = os.umask(umask)
    try:
        typo.write_jsonl(tmp_path / "c.jsonl", examples)
    finally:
        os.umask(old)
    assert (tmp_path / "c.jsonl").stat().st_mode & 0o777 == mode


def test_write_jsonl_stream_writes_capkit_typo_emits_bytes(tmp_path):
    """The streaming emitter from Python (issue 24: one emitter for the CLI, Python and Ray):
    the bytes `capkit typo emit` writes, and those of emit + assign + write_jsonl."""
    cli_out, proc = capkit_typo_emit(tmp_path)
    names = (FIXTURES / "inputs.txt").read_text().split("\n")
    out = tmp_path / "stream.jsonl"
    written = typo.write_jsonl_stream(
        names, out, source="inputs.txt", ratio=(7, 2, 1), salt="s1", drop_unrepresentable=True
    )
    assert out.read_bytes() == cli_out.read_bytes()
    assert f"fingerprint {written['fingerprint']}" in proc.stderr
    assert str(written["stats"]) in proc.stderr
    assert written["dropped"] == {"bf": sum(1 for e in typo.emit([typo.Registry()["bf"]], names) if not typo.representable(e))}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cli.jsonl", "stream.jsonl"]

    # Some tasks, no split, empty sets kept, to a file object: the single-process bytes.
    tasks = typo.Registry().select("co,hi,tos")
    buf = io.BytesIO()
    written = typo.write_jsonl_stream(names, buf, tasks=tasks, source="s", split=False, with_empty=True)
    expected = typo.jsonl_bytes(typo.emit_with_empty(tasks, names, source="s"))
    assert buf.getvalue() == expected
    assert written["fingerprint"] == typo.fingerprint(expected) and written["dropped"] == {}


def test_write_jsonl_stream_refusals_and_errors(tmp_path):
    names = ["google.com", "münchen.de"]
    bf = [typo.Registry()["bf"]]
    out = tmp_path / "c.jsonl"
    out.write_bytes(b"precious\n")
    with pytest.raises(ValueError, match=r"names\[1\]: bf/\"münchen.de\" .*not valid UTF-8.*nothing was written"):
        typo.write_jsonl_stream(names, out, tasks=bf)
    assert out.read_bytes() == b"precious\n" and os.listdir(tmp_path) == ["c.jsonl"]
    with pytest.raises(ValueError, match="need split=True"):
        typo.write_jsonl_stream(names, out, split=False, salt="s")
    with pytest.raises(TypeError, match="path .* or a binary file object"):
        typo.write_jsonl_stream(names, 42)
    with pytest.raises(TypeError, match="not a single str"):
        typo.write_jsonl_stream("google.com", out)

    class Full(io.RawIOBase):
        def writable(self):
            return True

        def write(self, b):
            raise OSError(28, "No space left on device")

    # The file object's own exception reaches the caller.
    with pytest.raises(OSError, match="No space left"):
        typo.write_jsonl_stream(names, Full(), tasks=typo.Registry().select("co"))
