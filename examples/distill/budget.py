"""Profiles on a teacher budget: the distillation example's student profiled in full and with the
teacher asked about 5 %, 10 % and 25 % of the transformed texts (PPI++ estimates with intervals).

    python examples/distill/budget.py DIR [--student char_ngram] [--suite examples/distill/suite_budget.json]

DIR is a ``run.py --out DIR`` output (the trained students and ``heldout.jsonl``). The default
suite, ``suite_budget.json``, has twelve transformed stages (nine corruptions from the transform
catalogue, three invariances): a profile asks the teacher about ``1 + k`` texts per text for
``k`` transformed stages in full and about ``1 + f·k`` with a sample ``f``, so the whole saving
is ``(1 + k) / (1 + f·k)``, at most ``1 / f`` (at 10 %: 5.0x for eight stages, 5.9x for twelve,
less whatever the stages deduplicate). Prints a
Markdown table (teacher calls, then each stage's figure: the full profile's value and each
sample's estimate with its 95 % interval, ``*`` where the full value falls outside) and writes
``DIR/budget.json`` with every number. Everything is seeded: the same DIR gives the same table.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path
from typing import Any, Dict, List, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))

import distill  # noqa: E402  (the example's own module, beside this script)

from capkit_rs import CapabilitySuite, capture_profile_report  # noqa: E402

FRACTIONS = [0.05, 0.10, 0.25]


class CountingTeacher:
    """The teacher, counting the texts it is asked about."""

    def __init__(self) -> None:
        self.teacher = distill.Teacher()
        self.calls = 0

    def batch(self, texts: Sequence[str]) -> List[str]:
        self.calls += len(texts)
        return self.teacher.batch(texts)


def figures(report: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """Every figure that needs the teacher on transformed texts, by name."""
    out: Dict[str, Dict[str, Any]] = {}
    for name, c in report["corruptions"].items():
        out[f"{name}: agreement"] = c["agreement"]
    for name, i in report["invariances"].items():
        out[f"{name}: teacher violation"] = i["teacher_violation"]
        out[f"{name}: student - teacher violation"] = i["student_vs_teacher"]["difference"]
    return out


def run(directory: Path, student_name: str, suite_file: Path = distill.HERE / "suite_budget.json",
        seed: int = 0) -> Dict[str, Any]:
    texts = [json.loads(line)["text"] for line in (directory / "heldout.jsonl").open(encoding="utf-8")]
    with open(directory / "students" / f"{student_name}.pkl", "rb") as f:
        student = distill.Student(pickle.load(f))
    spec = distill.read_json(suite_file)
    suite = distill.load_suite(spec)
    # What every profile pays whatever its sample: the probes and the clean texts.
    base = CountingTeacher()
    capture_profile_report(student, base, texts, CapabilitySuite(probes=list(spec.get("probes", []))))
    runs: Dict[str, Any] = {}
    for fraction in [None] + FRACTIONS:
        teacher = CountingTeacher()
        options = {} if fraction is None else {"teacher_sample": fraction, "teacher_seed": seed}
        report = capture_profile_report(student, teacher, texts, suite, **options)
        runs["full" if fraction is None else f"{fraction:.0%}"] = {
            "teacher_calls": teacher.calls,
            "transformed_calls": teacher.calls - base.calls,
            "sampled_texts": report["counts"].get("sample", {}).get("labelled", len(texts)),
            "figures": figures(report),
        }
    return {"texts": len(texts), "student": student_name, "suite": suite_file.name,
            "transformed_stages": len(suite.corruptions) + len(suite.invariances),
            "clean_and_probe_calls": base.calls, "runs": runs}


def table(result: Dict[str, Any]) -> str:
    runs = result["runs"]
    names = list(runs)
    full = runs["full"]
    lines = ["| | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    lines.append("| teacher calls (all) | " + " | ".join(
        f"{r['teacher_calls']:,}" + ("" if n == "full" else f" ({full['teacher_calls'] / r['teacher_calls']:.1f}x fewer)")
        for n, r in runs.items()) + " |")
    lines.append("| teacher calls on transformed texts | " + " | ".join(
        f"{r['transformed_calls']:,}" + ("" if n == "full" else f" ({full['transformed_calls'] / r['transformed_calls']:.1f}x fewer)")
        for n, r in runs.items()) + " |")
    lines.append("| texts sampled | " + " | ".join(f"{r['sampled_texts']:,}" for r in runs.values()) + " |")
    for figure, value in full["figures"].items():
        truth = value["estimate"]
        cells = [f"{truth:.3f}"]
        for n in names[1:]:
            f = runs[n]["figures"][figure]
            inside = f["lower"] <= truth <= f["upper"]
            cells.append(f"{f['estimate']:.3f} [{f['lower']:.3f}, {f['upper']:.3f}]" + ("" if inside else " *"))
        lines.append(f"| {figure} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path, help="a run.py --out directory")
    parser.add_argument("--student", default="char_ngram")
    parser.add_argument("--suite", type=Path, default=distill.HERE / "suite_budget.json")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = run(args.directory, args.student, args.suite, args.seed)
    (args.directory / "budget.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(table(result))


if __name__ == "__main__":
    main()
