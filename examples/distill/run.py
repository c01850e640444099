"""Distil VADER into two scikit-learn students and profile both against it with capkit.

    python examples/distill/run.py --out distill-out            # every fortune of `fortunes`
    python examples/distill/run.py --out DIR --texts FILE       # one text per line of FILE
    python examples/distill/run.py --out DIR --limit 3000       # a sample (the CI-sized run)

Writes into DIR: ``training.json`` (corpus size, the teacher's label counts, each student's
held-out accuracy against the teacher), ``students/*.pkl`` (the trained pipelines, which the
``cmd:`` model ``student.py`` loads), ``heldout.jsonl`` (the held-out texts, the profiles' texts),
``compare_default.json`` and ``compare_suite.json`` (``compare_students`` over the held-out
texts with the default suite and with ``suite.json``) and ``report.html`` (``capkit report`` of
both comparisons). Everything random takes ``--seed``: the same inputs give the same files.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

import distill  # noqa: E402  (the example's own module, beside this script)

from capkit_rs import compare_students  # noqa: E402

REPO = distill.HERE.parents[1]


def capkit_binary() -> Optional[str]:
    """``$CAPKIT_BIN``, else the checkout's ``target/{release,debug}/capkit``, else ``capkit`` on PATH."""
    if os.environ.get("CAPKIT_BIN"):
        return os.environ["CAPKIT_BIN"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        exe = target / profile / "capkit"
        if exe.exists():
            return str(exe)
    return shutil.which("capkit")


def write_json(path: Path, value: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def run(out: Path, texts_file: Optional[Path] = None, limit: int = 0, seed: int = 0,
        held_out: float = 0.2, suite_file: Path = distill.HERE / "suite.json",
        report: bool = True) -> Dict[str, Any]:
    """The whole pipeline; returns ``training.json``'s content."""
    out.mkdir(parents=True, exist_ok=True)
    corpus = distill.file_texts(texts_file) if texts_file else distill.fortune_texts()
    texts = distill.sample(corpus, limit, seed)
    teacher = distill.Teacher()
    labels = teacher.batch(texts)
    train_x, test_x, train_y, test_y = distill.split(texts, labels, held_out, seed)

    students: Dict[str, distill.Student] = {}
    accuracy: Dict[str, float] = {}
    (out / "students").mkdir(exist_ok=True)
    for name, pipeline in distill.student_pipelines(seed).items():
        pipeline.fit(train_x, train_y)
        students[name] = distill.Student(pipeline)
        predicted = students[name].batch(test_x)
        accuracy[name] = sum(p == t for p, t in zip(predicted, test_y)) / len(test_y)
        with open(out / "students" / f"{name}.pkl", "wb") as f:
            pickle.dump(pipeline, f)

    with open(out / "heldout.jsonl", "w", encoding="utf-8") as f:
        for text in test_x:
            f.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
    training = {
        "corpus": str(texts_file) if texts_file else str(distill.FORTUNES_DIR),
        "texts": len(texts), "train": len(train_x), "held_out": len(test_x), "seed": seed,
        "teacher_labels": dict(sorted(Counter(labels).items())),
        "held_out_accuracy": accuracy,
    }
    write_json(out / "training.json", training)

    suites = {"default": distill.DEFAULT_SUITE, "suite": distill.read_json(suite_file)}
    for name, spec in suites.items():
        comparison = compare_students(teacher, students, test_x, distill.load_suite(spec))
        write_json(out / f"compare_{name}.json", comparison)

    if report:
        exe = capkit_binary()
        if exe is None:
            raise SystemExit("run.py: no capkit binary for the HTML report: run "
                             "`cargo build --release -p capkit` or set CAPKIT_BIN")
        # Relative names: the page names its inputs, so the same run gives the same page anywhere.
        subprocess.run([exe, "report", "compare_default.json", "compare_suite.json",
                        "--out", "report.html"], cwd=out, check=True)
    return training


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument("--texts", type=Path, help="one text per line (default: Debian's fortunes)")
    parser.add_argument("--limit", type=int, default=0, help="sample this many texts (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--held-out", type=float, default=0.2, help="held-out fraction")
    parser.add_argument("--suite", type=Path, default=distill.HERE / "suite.json")
    parser.add_argument("--no-report", action="store_true", help="skip the HTML report")
    args = parser.parse_args(argv)
    training = run(args.out, args.texts, args.limit, args.seed, args.held_out, args.suite,
                   report=not args.no_report)
    print(json.dumps(training, indent=2))


if __name__ == "__main__":
    main()
