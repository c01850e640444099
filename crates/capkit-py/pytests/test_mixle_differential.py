"""Differential property tests: capkit_rs against upstream mixle 0.7.0 itself.

``mixle==0.7.0`` is exactly the reference version of ``mixle.task.capability`` and
``mixle.task.generative_capability`` (it imports without torch). It is installed in the test
environment only. Hypothesis draws texts (any Unicode, empty, duplicates, every kind of
whitespace), suites of the built-in transforms (typos in the mixle RNG mode, case jitter,
whitespace) and Python-lambda transforms, and rule-like models (labels of mixed types: str, int,
bool, None, dicts; reached as per-item callables, batch callables, ``.batch`` and ``.task.batch``
objects, with and without decision APIs). Our result must equal mixle's as a ``dict``, key order
included -- or both must raise the same exception class.
"""

from __future__ import annotations

import os
import string
from pathlib import Path
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import capkit_rs
from scenario_models import NAMED, key_paths, model

# `cargo xtask test` sets CAPKIT_REQUIRE_ORACLE: there a missing oracle fails instead of skipping.
if os.environ.get("CAPKIT_REQUIRE_ORACLE"):
    import mixle.task.capability as mixle_cap
    import mixle.task.generative_capability as mixle_gen

    assert unicodedata.unidata_version == "14.0.0", "the mixle oracle must run on CPython 3.11 (Unicode 14.0)"
else:
    mixle_cap = pytest.importorskip("mixle.task.capability")
    mixle_gen = pytest.importorskip("mixle.task.generative_capability")
    if unicodedata.unidata_version != "14.0.0":
        pytest.skip("upstream ran on CPython 3.11 (Unicode 14.0)", allow_module_level=True)

EXAMPLES = int(os.environ.get("CAPKIT_DIFF_EXAMPLES", "300"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Every character Python's str.split() treats as whitespace, plus near-misses that are not.
WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\u200b\u180e"
SPECIAL = "ßſﬁİıΣσςǅǈ" + "éÉñÑ" + "日本語" + "😀" + "\u0301\u093e"

text_chars = st.one_of(
    st.characters(codec="utf-8", exclude_categories=("Cs",)),
    st.sampled_from(WHITESPACE),
    st.sampled_from(SPECIAL),
    st.sampled_from(string.ascii_letters + "  ?!.,:"),
)
words = st.sampled_from(["good", "Good", "GOOD", "bad", "name:", "age:", "id:", "?", "huh", "42", "0"])
text = st.one_of(
    st.text(text_chars, max_size=30),
    st.lists(st.one_of(words, st.text(text_chars, max_size=5)), max_size=6).map(" ".join),
)
texts = st.lists(text, max_size=12).flatmap(
    lambda base: st.lists(st.sampled_from(base), max_size=6).map(lambda dup: base + dup) if base else st.just(base)
)

label = st.recursive(
    st.one_of(
        st.text(st.sampled_from("ab1 N'"), max_size=3),
        st.sampled_from(["None", "True", "1", "pos", "neg"]),
        st.integers(-3, 3),
        st.booleans(),
        st.none(),
        st.floats(allow_nan=False, allow_infinity=False, width=32),
    ),
    lambda inner: st.dictionaries(st.sampled_from(["k", "n", "v"]), inner, max_size=3),
    max_leaves=4,
)
needle = st.sampled_from(["good", "?", "name:", "a", " ", "ß", "", "\t"])
pred = st.recursive(
    st.one_of(
        st.builds(lambda n, cs: {"kind": "contains", "needle": n, "case_sensitive": cs}, needle, st.booleans()),
        st.builds(lambda t: {"kind": "length_lt", "threshold": t}, st.integers(0, 12)),
        st.builds(lambda t: {"kind": "length_gt", "threshold": t}, st.integers(0, 12)),
    ),
    lambda inner: st.one_of(
        st.builds(lambda p: {"kind": "not", "predicate": p}, inner),
        st.builds(lambda ps: {"kind": "any_of", "predicates": ps}, st.lists(inner, min_size=1, max_size=3)),
    ),
    max_leaves=4,
)
classify_rule = st.one_of(
    st.builds(lambda l: {"kind": "constant", "label": l}, label),
    st.builds(lambda p, a, b: {"kind": "if", "predicate": p, "then": a, "else": b}, pred, label, label),
    st.just({"kind": "word_count"}),
    st.just({"kind": "length"}),
)
interface = st.sampled_from(["per_item_callable", "batch_callable", "batch_method", "task_batch"])
decision = st.one_of(
    st.none(),
    st.builds(lambda api, p: {"api": api, "escalate_if": p}, st.sampled_from(["decide", "batch_decide", "both"]), pred),
)


def model_spec(rule):
    return st.builds(
        lambda r, i, d: {"rule": r, "interface": i, **({"decision": d} if d else {})}, rule, interface, decision
    )


TRANSFORMS = sorted(NAMED)
# Every seed mixle takes: mixle seeds random.Random(f"{seed}:{text}"), so any object with a str
# form is a seed, and only that form matters.
seeds = st.one_of(
    st.integers(0, 2**32),
    st.integers(),
    st.sampled_from([-1, 2**70, -(2**70), "abc", "", 1.5, True, False, None, float("nan"), float("inf")]),
    st.text(max_size=4),
    st.floats(),
    st.booleans(),
)
# (kind, parameters): the built-ins and the scenario vocabulary's Python lambdas.
transform_spec = st.one_of(
    st.builds(lambda r, s: ("typo", r, s), st.sampled_from([0.0, 0.05, 0.1, 0.5, 1.0]) | st.floats(0, 1), seeds),
    st.just(("case",)),
    st.just(("space",)),
    st.sampled_from(TRANSFORMS).map(lambda n: ("named", n)),
)
names = st.text(st.sampled_from("abcxyz_0"), min_size=1, max_size=4)
suite_spec = st.fixed_dictionaries(
    {
        "corruptions": st.dictionaries(names, transform_spec, max_size=4),
        "invariances": st.dictionaries(names, transform_spec, max_size=3),
        "probes": st.lists(text, max_size=3),
    }
)


def build(kind, lib):
    if kind[0] == "typo":
        # mixle's own call, default generator: no rng= on either side.
        return lib.keyboard_typo_corruption(kind[1], seed=kind[2])
    if kind[0] == "case":
        return lib.case_jitter_invariance
    if kind[0] == "space":
        return lib.whitespace_invariance
    return NAMED[kind[1]]


def suites(spec):
    ours = capkit_rs.CapabilitySuite(
        corruptions={k: build(v, capkit_rs) for k, v in spec["corruptions"].items()},
        invariances={k: build(v, capkit_rs) for k, v in spec["invariances"].items()},
        probes=list(spec["probes"]),
    )
    theirs = mixle_cap.CapabilitySuite(
        corruptions={k: build(v, mixle_cap) for k, v in spec["corruptions"].items()},
        invariances={k: build(v, mixle_cap) for k, v in spec["invariances"].items()},
        probes=list(spec["probes"]),
    )
    return ours, theirs


def outcome(fn, *args, **kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - the class is what is compared
        return ("raised", type(exc))


def assert_same(ours, theirs):
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "ok":
        assert ours[1] == theirs[1]
        assert key_paths(ours[1]) == key_paths(theirs[1])
    else:
        assert ours[1] is theirs[1]


@SETTINGS
@given(texts=texts, student=model_spec(classify_rule), teacher=model_spec(classify_rule), spec=suite_spec)
def test_capture_profile_equals_mixle(texts, student, teacher, spec):
    s, t = model(student), model(teacher)
    ours_suite, their_suite = suites(spec)
    assert_same(
        outcome(capkit_rs.capture_profile, s, t, texts, ours_suite),
        outcome(mixle_cap.capture_profile, s, t, texts, their_suite),
    )


field_name = st.sampled_from(["name", "age", "id", "city"])
field_spec = st.one_of(
    st.builds(
        lambda f, m, post, absent: {
            "field": f,
            "op": "after",
            "marker": m,
            **({"post": post} if post else {}),
            "on_absent": absent,
        },
        field_name,
        st.sampled_from(["name:", "age:", "id:", "a", " "]),
        st.sampled_from([None, "ascii_upper", "int"]),
        st.sampled_from(["omit", "null", "empty"]),
    ),
    st.builds(lambda f, v: {"field": f, "op": "constant", "value": v}, field_name, label),
    st.builds(lambda f, v, p: {"field": f, "op": "when", "value": v, "predicate": p}, field_name, label, pred),
)
extract_rule = st.lists(field_spec, max_size=4).map(lambda fs: {"kind": "fields", "fields": fs})


@SETTINGS
@given(
    texts=texts,
    student=model_spec(extract_rule),
    teacher=model_spec(extract_rule),
    spec=suite_spec,
    fields=st.lists(field_name, max_size=4),
)
def test_extractive_capture_profile_equals_mixle(texts, student, teacher, spec, fields):
    s, t = model(student), model(teacher)
    ours_suite, their_suite = suites(spec)
    assert_same(
        outcome(capkit_rs.extractive_capture_profile, s, t, texts, ours_suite, fields=fields),
        outcome(mixle_gen.extractive_capture_profile, s, t, texts, their_suite, fields=fields),
    )


# Hashable values mixle's records may use as keys (and `fields` may name): 1, 1.0 and True are one.
hashable_key = st.one_of(
    st.integers(-2, 2),
    st.sampled_from([1.0, 0.0, 2**70, -(2**64), True, None, b"k", (1, 2), (1.0, 2), ("a",), ()]),
)
record_value = st.recursive(
    st.one_of(
        st.text(text_chars, max_size=6),
        st.integers(-1000, 1000),
        # Every value mixle takes that JSON cannot hold: ints beyond 64 bits, NaN, infinities, bytes.
        st.integers(-(2**80), 2**80),
        st.floats(),
        st.booleans(),
        st.none(),
        st.binary(max_size=4),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=2), inner, max_size=2),
        st.dictionaries(hashable_key, inner, max_size=2),
    ),
    max_leaves=4,
)


@SETTINGS
@given(
    record=st.dictionaries(st.one_of(field_name, st.text(max_size=3), hashable_key), record_value, max_size=5),
    source=st.one_of(text, st.lists(st.one_of(words, st.text(text_chars, max_size=4), st.integers(0, 99).map(str)), max_size=8).map(" ".join)),
    fields=st.one_of(st.lists(st.one_of(field_name, st.text(max_size=2), hashable_key), max_size=5), st.text(max_size=4)),
)
def test_validate_extraction_schema_equals_mixle(record, source, fields):
    ours = outcome(capkit_rs.validate_extraction_schema, record, source, fields)
    theirs = outcome(mixle_gen.validate_extraction_schema, record, source, fields)
    assert_same(ours, theirs)


# Every code point Unicode 14.0 assigns (what CPython 3.11 knows), surrogates aside.
UNICODE14 = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Cs")]
# Final sigma's context: cased letters, case-ignorable marks and punctuation around a capital sigma.
SIGMA_CONTEXT = "Σσς" + "αΑωΩaZ" + "\u0345\u0301\u00ad'.:\u02b9\u1d2c" + " 1"
# The code points where Unicode 14.0's rules and Rust std's newer Unicode disagree (case pairs,
# Cased / Case_Ignorable, letters): the fixture crates/suite-core/tests/unicode_since_14.rs keeps.
_FIXTURE = Path(__file__).resolve().parents[2] / "suite-core/tests/fixtures/unicode_changed_since_14.txt"
CHANGED = [
    chr(c)
    for line in _FIXTURE.read_text().splitlines()
    if not line.startswith("#")
    for c in range(int(line.split()[0], 16), int(line.split()[1], 16) + 1)
]
changed_text = st.text(st.one_of(st.sampled_from(CHANGED), st.sampled_from(SIGMA_CONTEXT)), max_size=12)
unicode14_text = st.one_of(
    st.text(st.sampled_from(UNICODE14), max_size=40),
    st.text(st.one_of(st.sampled_from(SIGMA_CONTEXT), st.sampled_from(UNICODE14)), max_size=12),
    changed_text,
    text,
)


@SETTINGS
@given(t=changed_text)
def test_case_rules_are_unicode_14_where_std_differs(t):
    # Issue 21: the final sigma used std's newer Cased / Case_Ignorable ("ʕΣ" -> "ʕσ").
    assert capkit_rs.case_jitter_invariance(t) == t.swapcase()
    assert capkit_rs.keyboard_typo_corruption(1.0)(t) == mixle_cap.keyboard_typo_corruption(1.0)(t)


def test_final_sigma_examples_from_cpython():
    for t in ["ʕΣ", "A\u0345Σ", "Aʰ Σ", "aΣ\u00ad", "AΣ'B", "ΣΣ", "ƛΣ", "ɤΣ"]:
        assert capkit_rs.case_jitter_invariance(t) == t.swapcase(), t


@SETTINGS
@given(t=unicode14_text, rate=st.floats(0, 1), seed=seeds)
def test_builtin_transforms_equal_mixle(t, rate, seed):
    # mixle's API with mixle's default arguments only.
    assert capkit_rs.keyboard_typo_corruption(rate, seed=seed)(t) == mixle_cap.keyboard_typo_corruption(rate, seed=seed)(t)
    assert capkit_rs.keyboard_typo_corruption(rate)(t) == mixle_cap.keyboard_typo_corruption(rate)(t)
    assert capkit_rs.case_jitter_invariance(t) == mixle_cap.case_jitter_invariance(t)
    assert capkit_rs.whitespace_invariance(t) == mixle_cap.whitespace_invariance(t)


@pytest.mark.parametrize("seed", [0, -1, 2**70, "abc", 1.5, True, None, "\x00", 2**64, 2**64 - 1])
def test_every_seed_mixle_takes_draws_as_mixle(seed):
    # Issue 21: the default generator was ChaCha, and these seeds were refused.
    t = "The quick brown fox jumps over the lazy dog, ΣΊΣΥΦΟΣ straße"
    for rate in (0.05, 0.5, 1.0):
        assert capkit_rs.keyboard_typo_corruption(rate, seed=seed)(t) == mixle_cap.keyboard_typo_corruption(rate, seed=seed)(t)


# Models answering from a pool of Python objects, the same objects again and again: the profile
# converts an object (or a record of the very same entry objects) once per batch and shares it,
# which must never change a result.
class _Str(str):
    pass


class _Int(int):
    pass


class _Shown:
    """A label whose str() is its own (upstream compares classifier labels by str())."""

    def __init__(self, shown):
        self.shown = shown

    def __str__(self):
        return self.shown


atom = st.one_of(
    label.filter(lambda v: not isinstance(v, dict)),
    st.builds(_Str, st.sampled_from(["a", "1", "", "None"])),
    st.builds(_Int, st.integers(-2, 2)),
)
entry_value = st.one_of(atom, st.lists(atom, max_size=2), st.dictionaries(st.sampled_from(["k", "n"]), atom, max_size=2))
any_record = st.dictionaries(st.one_of(field_name, st.builds(_Str, field_name)), entry_value, max_size=4)
# Records of the very same key objects in the same order, told apart by their values only.
same_keys = st.lists(field_name, unique=True, min_size=1, max_size=4).flatmap(
    lambda keys: st.lists(
        st.lists(entry_value, min_size=len(keys), max_size=len(keys)).map(lambda vs: dict(zip(keys, vs))),
        min_size=1,
        max_size=4,
    )
)
record_pool = st.one_of(same_keys, st.lists(any_record, min_size=1, max_size=4))
# The student and teacher answer from one pool (as shared objects on one side, rebuilt as new
# objects on the other, any conflation of two records shows) or from a pool each.
record_pools = st.one_of(record_pool.map(lambda p: (p, p)), st.tuples(record_pool, record_pool))
shape = st.sampled_from(["same", "copy", "reversed", "rebuilt"])


def _pick(pool, shapes, t):
    n = sum(map(ord, t))
    return pool[n % len(pool)], shapes[(n // len(pool)) % len(shapes)]


def _shaped(item, how):
    if how == "same":
        return item
    if isinstance(item, dict):
        if how == "copy":
            return dict(item)
        if how == "reversed":
            return dict(reversed(list(item.items())))
        # Equal keys and values, but new objects where Python makes new ones.
        return {"".join(k): ("".join(v) if type(v) is str else v) for k, v in item.items()}
    if isinstance(item, list):
        return list(item)
    if type(item) is str and how == "rebuilt":
        return "".join(list(item))
    return item


def pooled(pool, shapes, per_item):
    def one(t):
        return _shaped(*_pick(pool, shapes, t))

    if per_item:
        return lambda t: "<not-a-batch>" if isinstance(t, list) else one(t)
    return lambda ts: [one(t) for t in ts]


@SETTINGS
@given(
    texts=texts,
    pools=record_pools,
    shapes=st.tuples(st.lists(shape, min_size=1, max_size=4), st.lists(shape, min_size=1, max_size=4)),
    per_item=st.tuples(st.booleans(), st.booleans()),
    spec=suite_spec,
    fields=st.lists(field_name, max_size=4),
)
def test_extractors_answering_with_shared_objects_equal_mixle(texts, pools, shapes, per_item, spec, fields):
    s, t = (pooled(pools[i], shapes[i], per_item[i]) for i in (0, 1))
    ours_suite, their_suite = suites(spec)
    assert_same(
        outcome(capkit_rs.extractive_capture_profile, s, t, texts, ours_suite, fields=fields),
        outcome(mixle_gen.extractive_capture_profile, s, t, texts, their_suite, fields=fields),
    )


class_label = st.one_of(
    label,
    atom,
    st.lists(atom, max_size=2),
    st.tuples(atom, atom),
    st.builds(_Shown, st.sampled_from(["pos", "1", "None", ""])),
)


@SETTINGS
@given(
    texts=texts,
    pools=st.tuples(st.lists(class_label, min_size=1, max_size=4), st.lists(class_label, min_size=1, max_size=4)),
    shapes=st.tuples(st.lists(shape, min_size=1, max_size=4), st.lists(shape, min_size=1, max_size=4)),
    per_item=st.tuples(st.booleans(), st.booleans()),
    spec=suite_spec,
)
def test_classifiers_answering_with_shared_objects_equal_mixle(texts, pools, shapes, per_item, spec):
    s, t = (pooled(pools[i], shapes[i], per_item[i]) for i in (0, 1))
    ours_suite, their_suite = suites(spec)
    assert_same(
        outcome(capkit_rs.capture_profile, s, t, texts, ours_suite),
        outcome(mixle_cap.capture_profile, s, t, texts, their_suite),
    )


def test_numpy_record_values_are_their_python_values():
    # Issue 21: numpy scalars and arrays in records were refused; mixle compares them as values.
    np = pytest.importorskip("numpy")
    texts = ["name: ann age: 3", "name: bob age: 4", "name: cy age: 5"]

    def student(ts):
        return [{"name": np.str_(t.split()[1]), "age": np.int64(int(t.split()[-1])), "ok": np.bool_(True)} for t in ts]

    def teacher(ts):
        return [{"name": t.split()[1], "age": int(t.split()[-1]), "ok": True} for t in ts]

    fields = ["name", "age"]
    ours_suite, their_suite = suites({"corruptions": {"t": ("typo", 0.3, 0)}, "invariances": {"c": ("case",)}, "probes": []})
    assert capkit_rs.extractive_capture_profile(student, teacher, texts, ours_suite, fields=fields) == mixle_gen.extractive_capture_profile(
        student, teacher, texts, their_suite, fields=fields
    )
    record = {"name": np.str_("ann"), "age": np.int64(3), "tags": np.array([1, 2])}
    assert capkit_rs.validate_extraction_schema(record, "ann 3 [1 2]", ["name", "age"]) == mixle_gen.validate_extraction_schema(
        record, "ann 3 [1 2]", ["name", "age"]
    )


# Issue 21: record values mixle takes that JSON cannot hold, and non-str suite names; each was
# refused (TypeError/ValueError) before capkit_rs carried them as Python values.
NO_STAGES = {"corruptions": {"t": ("typo", 0.3, 0)}, "invariances": {"c": ("case",)}, "probes": []}
VALUE_TEXTS = ["name: ann age: 3", "name: bob age: 4", "NAME: cy age: 5", "name: ann age: 3"]


def assert_extractors_equal_mixle(student, teacher, fields, spec=NO_STAGES):
    ours_suite, their_suite = suites(spec)
    ours = capkit_rs.extractive_capture_profile(student, teacher, VALUE_TEXTS, ours_suite, fields=fields)
    theirs = mixle_gen.extractive_capture_profile(student, teacher, VALUE_TEXTS, their_suite, fields=fields)
    assert ours == theirs
    assert key_paths(ours) == key_paths(theirs)


def assert_schema_equal_mixle(record, source, fields):
    ours = capkit_rs.validate_extraction_schema(record, source, fields)
    theirs = mixle_gen.validate_extraction_schema(record, source, fields)
    assert ours == theirs
    # The lists hold the very objects mixle's do (fields given, the record's own keys).
    for key in ("missing", "ungrounded"):
        assert [type(x) for x in ours[key]] == [type(x) for x in theirs[key]]


def _age(t):
    return int(t.split()[-1])


def test_ints_beyond_64_bits_in_records_equal_mixle():
    big = 2**70
    student = lambda ts: [{"name": "ann", "n": big + _age(t) % 2, "f": float(big)} for t in ts]  # noqa: E731
    teacher = lambda ts: [{"name": "ann", "n": big, "f": big} for t in ts]  # noqa: E731
    assert_extractors_equal_mixle(student, teacher, ["name", "n", "f"])
    assert_schema_equal_mixle({"n": 2**70}, f"x {2**70} y", ["n"])
    assert_schema_equal_mixle({"n": -(2**70), "m": 2**64}, "-1180591620717411303424", ["n", "m"])


def test_tuples_in_records_equal_mixle():
    student = lambda ts: [{"pair": (t.split()[1], _age(t)), "list": [1, 2]} for t in ts]  # noqa: E731
    teacher = lambda ts: [{"pair": (t.split()[1], float(_age(t))), "list": (1, 2)} for t in ts]  # noqa: E731
    assert_extractors_equal_mixle(student, teacher, ["pair", "list"])
    assert_schema_equal_mixle({"p": ("ann", 3), "e": (), "one": (1,)}, "('ann', 3) (1,)", ["p", "e", "one"])


def test_bytes_in_records_equal_mixle():
    student = lambda ts: [{"raw": t.split()[1].encode(), "s": "b'x'"} for t in ts]  # noqa: E731
    teacher = lambda ts: [{"raw": t.split()[1].lower().encode(), "s": b"x"} for t in ts]  # noqa: E731
    assert_extractors_equal_mixle(student, teacher, ["raw", "s"])
    assert_schema_equal_mixle({"b": b"ann", "q": b"it's \"x\"\n\x00\xff", "e": b""}, "b'ann'", ["b", "q", "e"])


def test_nan_and_infinities_in_records_equal_mixle():
    inf = float("inf")
    # A NaN equals nothing, itself included: never a TP, even in one shared record.
    shared = {"x": float("nan"), "y": inf}
    student = lambda ts: [{"x": float("nan"), "y": inf, "z": [float("nan")]} for t in ts]  # noqa: E731
    teacher = lambda ts: [{"x": float("nan"), "y": inf, "z": [float("nan")]} for t in ts]  # noqa: E731
    assert_extractors_equal_mixle(student, teacher, ["x", "y", "z"])
    same = lambda ts: [shared for _ in ts]  # noqa: E731
    assert_extractors_equal_mixle(same, same, ["x", "y"])
    assert_extractors_equal_mixle(lambda ts: [{"y": -inf} for _ in ts], lambda ts: [{"y": -inf} for _ in ts], ["y"])
    assert_schema_equal_mixle({"x": float("nan"), "y": inf, "z": -inf}, "nan -inf", ["x", "y", "z"])


def test_non_str_keys_in_records_and_fields_equal_mixle():
    # Python's dict lookup takes 1, 1.0 and True for one key; (1, 2) and (1.0, 2) too.
    student = lambda ts: [{1: t.split()[1], (1, 2): "p", None: _age(t)} for t in ts]  # noqa: E731
    teacher = lambda ts: [{True: t.split()[1], (1.0, 2): "p", None: 3, "1": "s"} for t in ts]  # noqa: E731
    assert_extractors_equal_mixle(student, teacher, [1, (1, 2), None, "1"])
    assert_schema_equal_mixle({1: "a", (1, 2): "b", b"k": "", 2**70: "c"}, "a c", [1.0, True, (1, 2), b"k", 2**70, "1"])
    # Nested dicts with such keys print and compare as Python's do.
    assert_schema_equal_mixle({"d": {1.0: "x", (1, "a"): b"\x00'"}}, "{1.0: 'x', (1, 'a'): b\"\\x00'\"}", ["d"])
    nested = lambda ts: [{"d": {1: "x"}} for _ in ts]  # noqa: E731
    assert_extractors_equal_mixle(nested, lambda ts: [{"d": {1.0: "x"}} for _ in ts], ["d"])


def test_non_str_suite_names_equal_mixle():
    spec = {
        "corruptions": {1: ("typo", 0.1, 0), "1": ("typo", 0.2, 0), (2, "x"): ("typo", 0.3, 0), None: ("space",)},
        "invariances": {0.5: ("case",), False: ("space",)},
        "probes": ["a"],
    }
    ours_suite, their_suite = suites(spec)
    texts = ["good food", "bad Food", "fine"]
    clf = lambda ts: [t[:2].lower() for t in ts]  # noqa: E731
    ours = capkit_rs.capture_profile(clf, clf, texts, ours_suite)
    theirs = mixle_cap.capture_profile(clf, clf, texts, their_suite)
    assert ours == theirs and key_paths(ours) == key_paths(theirs)
    assert list(ours["corruptions"]) == [1, "1", (2, "x"), None]
    rec = lambda ts: [{"w": t.split()[0].lower()} for t in ts]  # noqa: E731
    assert_extractors_equal_mixle(rec, rec, ["w"], spec)
