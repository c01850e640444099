"""Test support: the upstream capability scenarios' rule models and named transforms, as Python.

The scenarios (``fixtures/capability/scenario_*.json``, copied from the upstream reference run)
describe their models in a small vocabulary (``vocabulary.json``); this module turns those
descriptions into Python objects reached the way each scenario says (per-item callable, batch
callable, ``.batch`` method, ``.task.batch``, with ``decide``/``batch_decide``), so the goldens
exercise the binding's model dispatch, not only the Rust engine.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List

PUNCT = set(",.;:!?")


def _ascii_lower(s: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def _ascii_upper(s: str) -> str:
    return "".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in s)


def predicate(p: Dict[str, Any]) -> Callable[[str], bool]:
    kind = p["kind"]
    if kind == "contains":
        needle = p["needle"]
        if p.get("case_sensitive", True):
            return lambda t: needle in t
        low = _ascii_lower(needle)
        return lambda t: low in _ascii_lower(t)
    if kind == "length_lt":
        return lambda t: len(t) < p["threshold"]
    if kind == "length_gt":
        return lambda t: len(t) > p["threshold"]
    if kind == "starts_with":
        return lambda t: t.startswith(p["prefix"])
    if kind == "ends_with":
        return lambda t: t.endswith(p["suffix"])
    if kind == "any_of":
        inner = [predicate(q) for q in p["predicates"]]
        return lambda t: any(q(t) for q in inner)
    if kind == "not":
        inner_one = predicate(p["predicate"])
        return lambda t: not inner_one(t)
    if kind == "never":
        return lambda t: False
    if kind == "always":
        return lambda t: True
    raise ValueError(f"unknown predicate kind {kind!r}")


def _after(text: str, marker: str):
    i = text.find(marker)
    if i < 0:
        return None
    j = i + len(marker)
    while j < len(text) and text[j] == " ":
        j += 1
    k = j
    while k < len(text) and not text[k].isspace() and text[k] not in PUNCT:
        k += 1
    return text[j:k] or None


def rule(r: Dict[str, Any]) -> Callable[[str], Any]:
    kind = r["kind"]
    if kind == "constant":
        return lambda t: r["label"]
    if kind == "if":
        p = predicate(r["predicate"])
        return lambda t: r["then"] if p(t) else r["else"]
    if kind == "first_match":
        cases = [(predicate(c["predicate"]), c["label"]) for c in r["cases"]]

        def first(t):
            for p, label in cases:
                if p(t):
                    return label
            return r["default"]

        return first
    if kind == "word_count":
        return lambda t: len(t.split())
    if kind == "length":
        return lambda t: len(t)
    if kind == "fields":
        specs = r["fields"]

        def extract(t):
            rec: Dict[str, Any] = {}
            for f in specs:
                op = f["op"]
                if op == "constant":
                    rec[f["field"]] = f["value"]
                elif op == "when":
                    if predicate(f["predicate"])(t):
                        rec[f["field"]] = f["value"]
                elif op == "after":
                    v = _after(t, f["marker"])
                    post = f.get("post")
                    if v is not None and post == "ascii_upper":
                        v = _ascii_upper(v)
                    elif v is not None and post == "int":
                        v = int(v) if re.fullmatch(r"[0-9]+", v) else None
                    if v is None:
                        absent = f.get("on_absent", "omit")
                        if absent == "null":
                            rec[f["field"]] = None
                        elif absent == "empty":
                            rec[f["field"]] = ""
                    else:
                        rec[f["field"]] = v
                else:
                    raise ValueError(f"unknown field op {op!r}")
            return rec

        return extract
    raise ValueError(f"unknown rule kind {kind!r}")


class _Batch:
    def __init__(self, fn):
        self._fn = fn

    def batch(self, texts):
        return [self._fn(t) for t in texts]


class _Task:
    def __init__(self, fn):
        self.task = _Batch(fn)


def model(spec: Dict[str, Any]) -> Any:
    """A Python model object shaped as the scenario's ``interface`` says."""
    fn = rule(spec["rule"])
    interface = spec["interface"]
    decision = spec.get("decision")
    escalate = predicate(decision["escalate_if"]) if decision else None

    def decided(t):
        return None if escalate(t) else fn(t)

    if interface == "per_item_callable" and not decision:
        return lambda t: "<not-a-batch>" if isinstance(t, list) else fn(t)
    if interface == "batch_callable" and not decision:
        return lambda ts: [fn(t) for t in ts]

    # Objects: a class per interface/decision combination.
    attrs: Dict[str, Any] = {}
    if interface == "per_item_callable":
        attrs["__call__"] = lambda self, t: "<not-a-batch>" if isinstance(t, list) else fn(t)
    elif interface == "batch_callable":
        attrs["__call__"] = lambda self, ts: [fn(t) for t in ts]
    elif interface == "batch_method":
        attrs["batch"] = lambda self, ts: [fn(t) for t in ts]
    elif interface == "task_batch":
        pass
    else:
        raise ValueError(f"unknown interface {interface!r}")
    if decision:
        api = decision["api"]
        if api in ("batch_decide", "both"):
            attrs["batch_decide"] = lambda self, ts: [decided(t) for t in ts]
        if api == "decide":
            attrs["decide"] = lambda self, t: decided(t)
        if api == "both":
            attrs["decide"] = lambda self, t: "DECIDE-WAS-CALLED"
    obj = type("ScenarioModel", (), attrs)()
    if interface == "task_batch":
        obj.task = _Batch(fn)
    return obj


def _drop_every_3rd(t: str) -> str:
    return "".join(c for i, c in enumerate(t) if i % 3 != 2)


NAMED: Dict[str, Callable[[str], str]] = {
    "identity": lambda t: t,
    "drop_every_3rd": _drop_every_3rd,
    "ascii_upper": _ascii_upper,
    "ascii_lower": _ascii_lower,
    "vowels_to_star": lambda t: "".join("*" if c in "aeiouAEIOU" else c for c in t),
    "append_bangs": lambda t: t + " !!!",
    "double_spaces": lambda t: t.replace(" ", "  "),
    "pad_tabs": lambda t: "\t" + t + " \n",
    "o_to_zero": lambda t: t.replace("o", "0").replace("O", "0"),
    "reverse": lambda t: t[::-1],
    "truncate_8": lambda t: t[:8],
    "strip_digits": lambda t: "".join(c for c in t if not ("0" <= c <= "9")),
}

TYPO = re.compile(r"typo_r([0-9.]+)_s([0-9]+)")


def transform(name: str, lib: Any) -> Callable[[str], str]:
    """A named scenario transform; ``lib`` (capkit_rs or mixle's module) supplies the shipped ones."""
    if name == "case_jitter":
        return lib.case_jitter_invariance
    if name == "whitespace":
        return lib.whitespace_invariance
    m = TYPO.fullmatch(name)
    if m:
        rate, seed = float(m.group(1)), int(m.group(2))
        return lib.keyboard_typo_corruption(rate, seed=seed)
    return NAMED[name]


def suite(spec: Dict[str, Any], lib: Any) -> Any:
    return lib.CapabilitySuite(
        corruptions={c["name"]: transform(c["transform"], lib) for c in spec["corruptions"]},
        invariances={c["name"]: transform(c["transform"], lib) for c in spec["invariances"]},
        probes=list(spec["probes"]),
    )


def key_paths(value: Any, path: str = "$") -> List[Any]:
    """Every dict's key order, depth first, so two results can be compared for key order too."""
    out: List[Any] = []
    if isinstance(value, dict):
        out.append((path, list(value.keys())))
        for k, v in value.items():
            out.extend(key_paths(v, f"{path}.{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(key_paths(v, f"{path}[{i}]"))
    return out
