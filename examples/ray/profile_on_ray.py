"""Profile a student against a teacher on Ray, then emit a typo corpus there.

Locally (a 2-CPU Ray started by the script):   python examples/ray/profile_on_ray.py
On a cluster: start Ray on the nodes (`ray start --head` / `ray start --address=HEAD:6379`),
then run this script on the head node with RAY_ADDRESS=auto; give the teacher its GPUs with
`capkit_ray.model(Teacher, num_gpus=1, concurrency=N, batch_size=256)` (N = GPUs to use), and set
`shards` to a few times the number of workers so the planning and folding spread out too.
Requires `pip install "capkit-rs[ray]"`.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

import ray

import capkit_rs
import capkit_rs.ray as capkit_ray
from capkit_rs import CapabilitySuite, keyboard_typo_corruption


class Teacher:
    """Stands in for a GPU model (e.g. vLLM) used the way Ray Data batch inference uses one."""

    def __init__(self, keyword: str):
        self.keyword = keyword

    def __call__(self, batch):
        return {"label": ["pos" if self.keyword in t.lower() else "neg" for t in batch["text"]]}


def student(batch):
    return {"label": ["pos" if "good" in t else "neg" for t in batch["text"]]}


def main() -> None:
    ray.init(address=os.environ.get("RAY_ADDRESS"), num_cpus=None if os.environ.get("RAY_ADDRESS") else 2)
    texts = [f"review {i}: the food was {['good', 'Good', 'bad'][i % 3]}" for i in range(10_000)]
    suite = CapabilitySuite(
        corruptions={"typo_05": keyboard_typo_corruption(0.05), "typo_20": keyboard_typo_corruption(0.2)},
        invariances={"case": capkit_rs.case_jitter_invariance},
        probes=["", "GOOD"],
    )
    teacher = capkit_ray.model(Teacher, fn_constructor_args=("good",), concurrency=1, batch_size=1024)
    report = capkit_ray.profile(texts, suite, student=student, teacher=teacher, shards=8)
    print(json.dumps(report["profile"], indent=2))
    print("case invariance, student vs teacher:", report["invariances"]["case"]["student_vs_teacher"])

    names = ["example.com", "capkit.dev", "distillation.org"] * 100
    with tempfile.TemporaryDirectory() as out:
        written = capkit_ray.write_typo_jsonl(names, out, source="names", shards=4)
        print("typo corpus", written["fingerprint"], sum(s["examples"] for s in written["shards"]), "examples")
    ray.shutdown()


if __name__ == "__main__":
    sys.exit(main())
