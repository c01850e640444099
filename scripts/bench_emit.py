#!/usr/bin/env python3
"""CPU of `capkit typo emit` on the 2,000-name bench corpus, old build against new (issue 16).

    python3 scripts/bench_emit.py --old OLD/capkit [--new target/release/capkit] [--runs 7]
                                  [--corpus FILE] [--tasks all]

Runs both binaries interleaved (old, new, old, new, ...) with the same command line,

    capkit typo emit --corpus FILE --tasks all --no-split --drop-unrepresentable --out TMP

(a command line every capkit since 7b17ed4 accepts; the output of the previous run is removed
before each run, outside the measurement, unless --replace), and reports for each the median, minimum and
maximum CPU seconds (user + sys of the process and its threads, from wait4's rusage, microsecond
resolution) and the median wall time, the ratio old / new of the CPU medians, and the load
average before and after. (Peak RSS is not reported: ru_maxrss survives exec, so a child of this
script inherits the script's own peak; use `/usr/bin/time -v` for memory.) Both outputs must be byte for byte identical; the script checks
each run's output against the first one and fails otherwise.

Build the new one with `cargo build --release -p capkit`; the old one from a worktree of the
commit to compare with (`git worktree add /tmp/base COMMIT && cd /tmp/base && cargo build
--release -p capkit`), copied out before the worktree is removed.
"""

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run_once(exe, corpus, tasks, out, replace=False):
    """CPU seconds, wall seconds and output digest of one run."""
    cmd = [exe, "typo", "emit", "--corpus", corpus, "--tasks", tasks, "--no-split",
           "--drop-unrepresentable", "--out", out]
    # Every run writes a new file: replacing the previous run's output would charge the
    # process for dropping that file's pages (and ext4's flush on rename-over); --replace
    # measures that case.
    if os.path.exists(out) and not replace:
        os.unlink(out)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stderr = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{exe} failed:\n{stderr}")
    with open(out, "rb") as f:
        digest = hashlib.blake2b(f.read()).hexdigest()
    return usage.ru_utime + usage.ru_stime, wall, digest


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="the baseline capkit binary")
    ap.add_argument("--new", default=os.path.join(ROOT, "target", "release", "capkit"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--corpus", default=os.path.join(
        ROOT, "crates", "typo-tasks", "tests", "fixtures", "bench_domains2000.txt"))
    ap.add_argument("--tasks", default="all")
    ap.add_argument("--replace", action="store_true",
                    help="leave the previous run's output in place, so each run replaces it")
    args = ap.parse_args()
    builds = {"old": args.old, "new": args.new}
    print(f"load before: {load()} on {os.cpu_count()} cores")
    results = {name: [] for name in builds}
    digests = set()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "corpus.jsonl")
        # One untimed run each: page cache, binaries loaded.
        for exe in builds.values():
            digests.add(run_once(exe, args.corpus, args.tasks, out, args.replace)[2])
        for _ in range(args.runs):
            for name, exe in builds.items():
                cpu, wall, digest = run_once(exe, args.corpus, args.tasks, out, args.replace)
                digests.add(digest)
                results[name].append((cpu, wall))
    print(f"load after:  {load()}")
    if len(digests) != 1:
        sys.exit("the outputs differ between builds or runs")
    print(f"outputs identical (blake2b {digests.pop()[:16]}…), {args.runs} runs each, interleaved")
    medians = {}
    for name, rows in results.items():
        cpus = [r[0] for r in rows]
        medians[name] = statistics.median(cpus)
        print(f"{name}: CPU median {medians[name]:.3f} s (min {min(cpus):.3f}, max {max(cpus):.3f}), "
              f"wall median {statistics.median(r[1] for r in rows):.3f} s  [{builds[name]}]")
    print(f"ratio old/new CPU: {medians['old'] / medians['new']:.2f}x")


if __name__ == "__main__":
    main()
