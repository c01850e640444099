"""capkit_rs against upstream mixle 0.7.0 on workloads A and B (docs/performance.md#workloads), side by side.

Run with the test venv (it has mixle==0.7.0 and the installed wheel)::

    target/py/venv/bin/python crates/capkit-py/bench/bench_vs_mixle.py [--reps 3]

CPU: both implementations in ONE process, interleaved (mixle, ours, mixle, ours, ...), each call
timed with ``time.process_time()``; the median of ``--reps`` is reported with the ratio.
Memory: peak RSS growth of the call over the same process before it (the texts, suite and models
already built), measured in a fresh subprocess per (implementation, workload) so each peak belongs
to one call. Profiles are checked equal before anything is timed. Models are upstream's Python
lambdas: workload A's student is a per-item ``lambda t: "pos"`` (mixle's list-first fallback),
its teacher a batch lambda; workload B's records are ``dict(R)``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

import mixle.task.capability as mcap
import mixle.task.generative_capability as mgen

import capkit_rs

W = ["good", "bad", "great", "awful", "fine"]
PROBES = ["", "good", "bad", "GOOD!!!", "  spaced   out  ", "ß", "日本語", "1234", "a" * 100, "the service was fine"]
R = {"name": "user", "city": "City", "item": "widget", "qty": "1"}
FIELDS = ["name", "city", "item", "qty"]


def texts_a():
    return [f"sample {i}: the service was {W[i % 5]} and the food was {W[(i * 7) % 5]} overall" for i in range(100_000)]


def texts_b():
    return [f"ticket {j} name: user{j} city: City{j % 50} item: widget{j % 7} qty: {j % 9 + 1}" for j in range(20_000)]


def suite(lib, rng):
    def typo(r):
        if lib is capkit_rs and rng != "default":
            return capkit_rs.keyboard_typo_corruption(r, seed=0, rng=rng)
        # mixle's own call: capkit_rs's default generator is mixle's (MT19937, exact).
        return lib.keyboard_typo_corruption(r, seed=0)

    return lib.CapabilitySuite(
        corruptions={f"typo_{int(r * 100):02d}": typo(r) for r in (0.05, 0.1, 0.2, 0.4)},
        invariances={"case": lib.case_jitter_invariance, "space": lib.whitespace_invariance},
        probes=list(PROBES),
    )


def call(impl, workload, rng="chacha"):
    """A zero-argument function running one profile (everything else already built)."""
    if workload == "A":
        texts = texts_a()
        student = lambda t: "pos"  # noqa: E731 - upstream's model, as upstream writes it
        teacher = lambda ts: ["pos"] * len(ts)  # noqa: E731
        if impl == "mixle":
            s = suite(mcap, rng)
            return lambda: mcap.capture_profile(student, teacher, texts, s)
        s = suite(capkit_rs, rng)
        return lambda: capkit_rs.capture_profile(student, teacher, texts, s)
    texts = texts_b()
    student = lambda t: dict(R)  # noqa: E731
    teacher = lambda ts: [dict(R) for _ in ts]  # noqa: E731
    if impl == "mixle":
        s = suite(mcap, rng)
        return lambda: mgen.extractive_capture_profile(student, teacher, texts, s, fields=FIELDS)
    s = suite(capkit_rs, rng)
    return lambda: capkit_rs.extractive_capture_profile(student, teacher, texts, s, fields=FIELDS)


def rss_mib():
    """Peak RSS of this process image. VmHWM, not ru_maxrss: Linux carries ru_maxrss across
    exec, so a child started by a big parent would inherit the parent's peak."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory_child(impl, workload, rng):
    fn = call(impl, workload, rng)
    before = rss_mib()
    fn()
    print(json.dumps({"before": before, "after": rss_mib()}))


def memory(impl, workload, rng):
    out = subprocess.run(
        [sys.executable, __file__, "--memory", impl, workload, rng], check=True, capture_output=True, text=True
    ).stdout
    m = json.loads(out)
    return m["after"] - m["before"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument(
        "--rng",
        choices=["default", "chacha", "mixle"],
        action="append",
        help='capkit_rs typo generator(s) to time: "default" is the call without rng= (mixle-exact); default: default and chacha',
    )
    ap.add_argument("--memory", nargs=3, metavar=("IMPL", "WORKLOAD", "RNG"))
    ap.add_argument("--workload", choices=["A", "B"], action="append", help="default: both")
    args = ap.parse_args()
    if args.memory:
        memory_child(*args.memory)
        return
    for workload in args.workload or ["A", "B"]:
        for rng in args.rng or ["default", "chacha"]:
            fns = {impl: call(impl, workload, rng) for impl in ("mixle", "capkit_rs")}
            results = {impl: fn() for impl, fn in fns.items()}
            assert results["mixle"] == results["capkit_rs"], f"profiles differ on {workload}"
            assert json.dumps(results["mixle"]) == json.dumps(results["capkit_rs"])
            cpu = {impl: [] for impl in fns}
            for _ in range(args.reps):
                for impl, fn in fns.items():
                    t0 = time.process_time()
                    fn()
                    cpu[impl].append(time.process_time() - t0)
            med = {impl: statistics.median(v) for impl, v in cpu.items()}
            mem = {impl: memory(impl, workload, rng) for impl in fns}
            print(
                f"workload {workload} (capkit_rs typo rng={rng}): CPU s median of {args.reps}: "
                f"mixle {med['mixle']:.3f} {[round(x, 3) for x in cpu['mixle']]}, "
                f"capkit_rs {med['capkit_rs']:.3f} {[round(x, 3) for x in cpu['capkit_rs']]}, "
                f"ratio {med['mixle'] / med['capkit_rs']:.1f}x; "
                f"peak RSS growth MiB: mixle {mem['mixle']:.1f}, capkit_rs {mem['capkit_rs']:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
