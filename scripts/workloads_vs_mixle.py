"""Workloads A and B (docs/performance.md#workloads): capkit (Rust, in process) against upstream mixle 0.7.0, side by side.

    python3 scripts/workloads_vs_mixle.py --mixle-python VENV/bin/python [--old TARGET/release] [--reps 3]

Each repetition runs, one after the other (interleaved, so machine load hits all alike): mixle's
call in a fresh Python process (the workloads' texts, suite and lambdas; CPU by time.process_time()
around the call), then the release `workload_a_cpu` / `workload_b_cpu` examples of this tree
(thread CPU around the call, constant shared-label models) and, with --old, the same examples of
another build (a baseline commit). Medians of the CPU seconds and their ratios are printed, and
the added peak RSS of the call (VmHWM after minus before, the texts already built) of each.
Build first: cargo build --release -p capkit-capture --example workload_a_cpu
             cargo build --release -p capkit-extractive --example workload_b_cpu
mixle: `python3 -m venv V && V/bin/pip install mixle==0.7.0` (without torch).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess

MIXLE = r'''
import json, time
import mixle.task.capability as mcap
import mixle.task.generative_capability as mgen
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
W = ["good", "bad", "great", "awful", "fine"]
PROBES = ["", "good", "bad", "GOOD!!!", "  spaced   out  ", "ß", "日本語", "1234", "a" * 100, "the service was fine"]
R = {"name": "user", "city": "City", "item": "widget", "qty": "1"}
suite = mcap.CapabilitySuite(
    corruptions={f"typo_{int(r * 100):02d}": mcap.keyboard_typo_corruption(r, seed=0) for r in (0.05, 0.1, 0.2, 0.4)},
    invariances={"case": mcap.case_jitter_invariance, "space": mcap.whitespace_invariance},
    probes=list(PROBES) if WORKLOAD == "A" else [])
if WORKLOAD == "A":
    texts = [f"sample {i}: the service was {W[i % 5]} and the food was {W[(i * 7) % 5]} overall" for i in range(100_000)]
    call = lambda: mcap.capture_profile(lambda t: "pos", lambda ts: ["pos"] * len(ts), texts, suite)
else:
    texts = [f"ticket {j} name: user{j} city: City{j % 50} item: widget{j % 7} qty: {j % 9 + 1}" for j in range(20_000)]
    call = lambda: mgen.extractive_capture_profile(lambda t: dict(R), lambda ts: [dict(R) for _ in ts], texts, suite,
                                                  fields=["name", "city", "item", "qty"])
before = hwm()
t0 = time.process_time()
call()
cpu = time.process_time() - t0
print(json.dumps({"cpu": cpu, "rss": hwm() - before}))
'''


def mixle(python: str, workload: str) -> tuple[float, float]:
    out = subprocess.run([python, "-c", f"WORKLOAD = {workload!r}\n" + MIXLE], check=True, capture_output=True, text=True)
    m = json.loads(out.stdout.strip().splitlines()[-1])
    return m["cpu"], m["rss"]


def rust(target: str, workload: str) -> tuple[float, float | None]:
    exe = os.path.join(target, "examples", "workload_a_cpu" if workload == "A" else "workload_b_cpu")
    out = subprocess.run([exe, "1"], check=True, capture_output=True, text=True).stdout
    cpu = float(re.search(r"cpu ([0-9.]+) ms", out).group(1)) / 1e3
    rss = re.search(r"added_peak_rss ([0-9.-]+) MB", out)
    return cpu, float(rss.group(1)) if rss else None


def main() -> None:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--mixle-python", default="python3")
    ap.add_argument("--new", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(here, "target")), "release"))
    ap.add_argument("--old", help="another build's target/release (a baseline)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--workloads", default="AB")
    args = ap.parse_args()
    print("load:", open("/proc/loadavg").read().split()[:3], "on", os.cpu_count(), "cores", flush=True)
    for w in args.workloads:
        runs: dict[str, list[tuple[float, float | None]]] = {"mixle": [], "new": [], "old": []}
        for _ in range(args.reps):
            runs["mixle"].append(mixle(args.mixle_python, w))
            runs["new"].append(rust(args.new, w))
            if args.old:
                runs["old"].append(rust(args.old, w))
        med = {k: statistics.median(c for c, _ in v) for k, v in runs.items() if v}
        rss = {k: statistics.median(r for _, r in v) for k, v in runs.items() if v and v[0][1] is not None}
        parts = [f"{k} {med[k]:.3f} s {[round(c, 3) for c, _ in runs[k]]}" for k in med]
        print(f"workload {w}: CPU median of {args.reps}: " + ", ".join(parts), flush=True)
        print(f"  mixle / new = {med['mixle'] / med['new']:.1f}x"
              + (f", old / new = {med['old'] / med['new']:.2f}x, mixle / old = {med['mixle'] / med['old']:.1f}x" if "old" in med else ""))
        print("  added peak RSS MB: " + ", ".join(f"{k} {v:.1f}" for k, v in rss.items()), flush=True)


if __name__ == "__main__":
    main()
