//! `capkit augment` end to end on the offline example of `examples/profile` (Python `cmd:`
//! models): a report, then rows for the stage the student misses; the refused inputs. The
//! library's laws are tested in `capkit-augment`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use scenario_rules::{SystemNeed, system_has};
use serde_json::Value;

mod support;

use support::{capkit_in, failure, ok, output, root, scratch};

const TEACHER: &str = "cmd:python3 examples/profile/teacher.py";

/// The example's report (`--report`) in `dir`.
fn report(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("report.json");
    ok(&output(capkit_in(&root()).args([
        "profile",
        "classify",
        "--texts",
        "examples/profile/texts.txt",
        "--suite",
        "examples/profile/suite.json",
        "--student",
        "cmd:python3 examples/profile/student.py",
        "--teacher",
        TEACHER,
        "--report",
        "--no-cache",
        "--out",
        path.to_str().unwrap(),
    ])));
    path
}

/// Training texts that are not the evaluation texts (two of which they hold all the same).
fn training(dir: &Path) -> std::path::PathBuf {
    let words = [
        "good", "Bad", "food", "service", "coffee", "GOOD", "slow", "value",
    ];
    let mut lines: Vec<String> = (0..120)
        .map(|i| {
            (0..2 + i % 5)
                .map(|k| words[(i * 3 + k * 5 + i / 7) % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
                + &format!(" #{i}")
        })
        .collect();
    lines.push("The food was good and the staff were friendly".into());
    lines.push("really GOOD coffee, slow service".into());
    let path = dir.join("train.txt");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn augment(dir: &Path, report: &Path, train: &Path, out: &str, extra: &[&str]) -> Output {
    let mut cmd = capkit_in(&root());
    cmd.args(["augment", "--report"])
        .arg(report)
        .args(["--eval-texts", "examples/profile/texts.txt", "--train"])
        .arg(train)
        .args([
            "--suite",
            "examples/profile/suite.json",
            "--teacher",
            TEACHER,
        ])
        .arg("--out")
        .arg(dir.join(out))
        .args(["--no-cache"])
        .args(extra);
    output(&mut cmd)
}

#[test]
fn rows_for_the_stage_the_student_misses() {
    if !system_has(SystemNeed::Python3, "rows_for_the_stage_the_student_misses") {
        return;
    }
    let dir = scratch("augment", "rows");
    let report = report(dir.path());
    let train = training(dir.path());
    let out = augment(dir.path(), &report, &train, "rows.jsonl", &["--rows", "40"]);
    let stdout = String::from_utf8_lossy(&ok(&out).stdout).into_owned();
    assert!(
        stdout.contains("allocation (gap rule): 40 rows"),
        "{stdout}"
    );
    let bytes = std::fs::read(dir.path().join("rows.jsonl")).unwrap();
    let rows: Vec<Value> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    // The student ignores case (the report's only gap whose interval excludes 0).
    assert!(!rows.is_empty() && rows.iter().all(|r| r["stage"] == "case"));
    for r in &rows {
        let text = r["text"].as_str().unwrap();
        let clean_has_good = text.to_lowercase().contains("good");
        assert_eq!(
            r["label"],
            if clean_has_good { "pos" } else { "neg" },
            "{r}"
        );
        assert_eq!(r["reference"], "teacher_clean");
    }
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("rows.allocation.json")).unwrap())
            .unwrap();
    assert_eq!(summary["format"], "capkit-augment/1");
    let written = summary["rows"][2]["written"].as_u64().unwrap();
    assert_eq!(written as usize, rows.len());
    assert!(summary["teacher_calls"].as_u64().unwrap() <= 40);
    // Chunks change the teacher's batches, never the rows.
    let again = augment(
        dir.path(),
        &report,
        &train,
        "again.jsonl",
        &["--rows", "40", "--chunk-size", "3"],
    );
    ok(&again);
    assert_eq!(
        std::fs::read(dir.path().join("again.jsonl")).unwrap(),
        bytes
    );
}

#[test]
fn bad_inputs_are_refused_before_anything_is_written() {
    if !system_has(
        SystemNeed::Python3,
        "bad_inputs_are_refused_before_anything_is_written",
    ) {
        return;
    }
    let dir = scratch("augment", "refused");
    let report = report(dir.path());
    let train = training(dir.path());
    let eval = root().join("examples/profile/texts.txt");
    let refused = |out: Output, expected: &str| {
        let text = failure(&out);
        assert!(
            text.starts_with("exit Some(1)\n") && text.contains(expected),
            "{text}"
        );
    };
    refused(
        augment(dir.path(), &report, &eval, "a.jsonl", &[]),
        "texts.txt: training file is the evaluation file",
    );
    refused(
        augment(
            dir.path(),
            &report,
            &train,
            "b.jsonl",
            &["--stages", "case,typo_99"],
        ),
        "stage `typo_99`: the suite has no such stage (its stages: typo_05, typo_20, case, whitespace)",
    );
    refused(
        augment(
            dir.path(),
            &report,
            &train,
            "c.jsonl",
            &["--teacher-budget", "0"],
        ),
        "--teacher-budget: a budget of 0 teacher calls labels nothing",
    );
    refused(
        augment(dir.path(), &report, &train, "train.txt", &[]),
        "train.txt: the same file as --train",
    );
    refused(
        augment(dir.path(), &report, &train, "train.txt", &[]),
        "train.txt: the same file as --train",
    );
    let mut cmd = capkit_in(&root());
    cmd.args(["augment", "--report"])
        .arg(&report)
        .args(["--eval-texts", "examples/profile/texts.txt", "--train"])
        .arg(&train)
        .args(["--teacher", TEACHER, "--no-cache", "--out"])
        .arg(dir.path().join("d.jsonl"));
    refused(output(&mut cmd), "report.json: a report of another suite");
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "report.json" && n != "train.txt")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
