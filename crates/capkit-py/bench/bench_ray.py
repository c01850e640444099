"""The Ray path's overhead over the single-process path (docs/performance.md#workloads: workload A, constant models).

    target/py/venv/bin/python crates/capkit-py/bench/bench_ray.py [--texts 100000] [--shards 1 4 16]

Prints wall seconds of `capture_profile_report` in this process and of `capkit_rs.ray.profile`
on a local `ray.init(num_cpus=2)` for each shard count (after one warm-up run that starts the
workers), checks the reports are equal, and counts the planned rows (texts sent to each model).
"""

from __future__ import annotations

import argparse
import time

import ray

import capkit_rs
import capkit_rs.ray as capkit_ray
from capkit_rs import CapabilitySuite, keyboard_typo_corruption

W = ["good", "bad", "great", "awful", "fine"]


def const_fn(batch):
    return {"label": ["pos"] * len(batch["text"])}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--texts", type=int, default=100_000)
    ap.add_argument("--shards", type=int, nargs="+", default=[1, 4, 16])
    args = ap.parse_args()
    texts = [f"sample {i}: the service was {W[i % 5]} and the food was {W[(i * 7) % 5]} overall" for i in range(args.texts)]
    suite = CapabilitySuite(
        corruptions={f"typo_{int(r * 100):02d}": keyboard_typo_corruption(r) for r in (0.05, 0.1, 0.2, 0.4)},
        invariances={"case": capkit_rs.case_jitter_invariance, "space": capkit_rs.whitespace_invariance},
    )
    const = lambda ts: ["pos"] * len(ts)  # noqa: E731
    t = time.perf_counter()
    expected = capkit_rs.capture_profile_report(const, const, texts, suite)
    single = time.perf_counter() - t
    print(f"single process: {single:.2f} s wall for {args.texts} texts")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    capkit_ray.profile(texts[:100], suite, student=const_fn, teacher=const_fn, shards=2)  # warm-up
    for shards in args.shards:
        parts = capkit_ray._shards(texts, shards)
        planned = sum(len(capkit_rs._native._plan_texts(p, suite)) for p in parts)
        t = time.perf_counter()
        got = capkit_ray.profile(texts, suite, student=const_fn, teacher=const_fn, shards=shards)
        wall = time.perf_counter() - t
        assert got == expected
        print(f"ray, {shards:3d} shards: {wall:.2f} s wall ({wall / single:.1f}x single), {planned} planned texts per model")
    ray.shutdown()


if __name__ == "__main__":
    main()
