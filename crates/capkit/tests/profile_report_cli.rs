//! `capkit profile … --report`, `compare`, `merge` and `gate` end to end: docs/reports.md's offline
//! example (Python models), the merge property over random shards (precomputed `file:` models),
//! comparisons, refusals, and the gate's exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use scenario_rules::{SystemNeed, system_has};
use std::path::{Path, PathBuf};
use std::process::Output;

use proptest::prelude::*;
use serde_json::{Value, json};

mod support;

use support::{capkit_in, ok, output, root, stderr};

fn capkit(args: &[&str], dir: &Path) -> Output {
    output(capkit_in(dir).args(args))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const PY_STUDENT: &str = "cmd:python3 examples/profile/student.py";
const PY_STUDENT_B: &str = "cmd:python3 examples/profile/student_b.py";
const PY_TEACHER: &str = "cmd:python3 examples/profile/teacher.py";

/// `capkit profile classify --report` on the README's example models and suite, from the
/// repository root.
fn example_report(texts: &str, student: &str, out: &str) {
    ok(&capkit(
        &[
            "profile",
            "classify",
            "--report",
            "--texts",
            texts,
            "--suite",
            "examples/profile/suite.json",
            "--student",
            student,
            "--teacher",
            PY_TEACHER,
            "--no-cache",
            "--out",
            out,
        ],
        &root(),
    ));
}

/// docs/reports.md's commands, run from the repository root.
#[test]
fn readme_report_example_runs_offline_and_a_failing_gate_exits_2() {
    if !system_has(
        SystemNeed::Python3,
        "readme_report_example_runs_offline_and_a_failing_gate_exits_2",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let report = report.to_str().unwrap();
    example_report("examples/profile/texts.txt", PY_STUDENT, report);
    let json = read_json(Path::new(report));
    assert_eq!(json["format"], "capkit-profile-report/1");
    assert_eq!(
        json["models"],
        json!({"student": PY_STUDENT, "teacher": PY_TEACHER})
    );
    // The profile inside is the bare profile the README's first example prints.
    assert_eq!(json["profile"]["clean_agreement"], 0.7);
    assert_eq!(
        json["counts"]["invariances"]["case"]["changed"],
        json!({"both": 0, "student_only": 6, "teacher_only": 0, "neither": 4})
    );
    let case = &json["invariances"]["case"]["student_vs_teacher"];
    // The whitespace invariance changes none of the ten (already clean) texts: it measures
    // nothing and is left out of the Holm family, which holds the other three tests.
    assert_eq!(json["invariances"]["whitespace"]["texts_changed"], 0);
    assert_eq!(json["invariances"]["case"]["texts_changed"], 10);
    assert_eq!(case["p"], 0.04291763530628956);
    assert_eq!(case["p_unadjusted"], 0.014305878435429853);
    assert_eq!(case["adjustment"], json!({"method": "holm", "family": 3}));
    assert_eq!(case["significant"], true);
    assert_eq!(case["difference"]["estimate"], 0.6);
    assert_eq!(case["difference"]["method"], "tango_score");
    assert!(case["difference"]["lower"].as_f64().unwrap() > 0.0);
    assert_eq!(json["clean"]["agreement"]["method"], "wilson");
    assert_eq!(
        json["curves"]["keyboard_typo"]["points"][2]["severity"],
        0.2
    );
    assert_eq!(json["abstention"]["teacher"]["escalation"]["estimate"], 0.1);

    let gate = capkit(
        &[
            "profile",
            "gate",
            report,
            "--fail-on",
            "invariances.case.student_vs_teacher.p < 0.1",
            "--fail-on",
            "clean.agreement.lower < 0.3",
        ],
        &root(),
    );
    assert_eq!(gate.status.code(), Some(2), "{}", stderr(&gate));
    assert_eq!(
        String::from_utf8_lossy(&gate.stdout),
        "FAIL  invariances.case.student_vs_teacher.p = 0.0429176 (fails when < 0.1)\n\
         pass  clean.agreement.lower = 0.396778 (fails when < 0.3)\n"
    );
    assert!(
        stderr(&gate).contains("1 of 2 gates failed"),
        "{}",
        stderr(&gate)
    );
    let pass = capkit(
        &[
            "profile",
            "gate",
            report,
            "--fail-on",
            "invariances.whitespace.student_vs_teacher.p < 0.05",
        ],
        &root(),
    );
    assert_eq!(pass.status.code(), Some(0), "{}", stderr(&pass));

    // docs/reports.md's shards: the first five texts and the rest, merged, give report.json.
    let lines: Vec<String> = std::fs::read_to_string(root().join("examples/profile/texts.txt"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let mut parts = Vec::new();
    for (name, part) in [("part1", &lines[..5]), ("part2", &lines[5..])] {
        let texts = dir.path().join(format!("{name}.txt"));
        std::fs::write(&texts, part.join("\n") + "\n").unwrap();
        let out = dir.path().join(format!("{name}.json"));
        example_report(texts.to_str().unwrap(), PY_STUDENT, out.to_str().unwrap());
        parts.push(out.display().to_string());
    }
    let merged = ok(&capkit(
        &["profile", "merge", &parts[0], &parts[1]],
        &root(),
    ))
    .stdout
    .clone();
    let mut merged: Value = serde_json::from_slice(&merged).unwrap();
    // The texts' fingerprints are the shards' (provenance, not counts).
    assert_eq!(merged["texts"].as_array().map(Vec::len), Some(2));
    assert_eq!(json["texts"][0]["count"], 10);
    assert_eq!(without_texts(&mut merged), without_texts(&mut json.clone()));
    // The same shard twice is refused (it would count its texts twice); --dedupe drops it.
    let twice = capkit(
        &["profile", "merge", &parts[0], &parts[1], &parts[0]],
        &root(),
    );
    assert_eq!(twice.status.code(), Some(1));
    assert!(
        stderr(&twice).contains("the same texts (blake3 ")
            && stderr(&twice).contains("pass --dedupe"),
        "{}",
        stderr(&twice)
    );
    let deduped = ok(&capkit(
        &[
            "profile", "merge", "--dedupe", &parts[0], &parts[1], &parts[0],
        ],
        &root(),
    ))
    .clone();
    assert!(stderr(&deduped).contains("dropped (--dedupe)"));
    let mut deduped: Value = serde_json::from_slice(&deduped.stdout).unwrap();
    assert_eq!(
        without_texts(&mut deduped),
        without_texts(&mut json.clone())
    );
}

/// A document without its `texts` fingerprints.
fn without_texts(json: &mut Value) -> Value {
    if let Value::Object(map) = json {
        map.remove("texts");
    }
    json.clone()
}

/// `capkit profile gate REPORT --fail-on EXPR`.
fn gate(dir: &Path, report: &str, expression: &str) -> Output {
    capkit(&["profile", "gate", report, "--fail-on", expression], dir)
}

/// `capkit profile classify` with `models` (student, teacher) and `extra` arguments.
fn classify(dir: &Path, texts: &str, models: &(String, String), extra: &[&str]) -> Output {
    let mut args = vec!["profile", "classify", "--texts", texts];
    args.extend(["--student", &models.0, "--teacher", &models.1]);
    args.extend(extra);
    capkit(&args, dir)
}

#[test]
fn gate_errors_exit_1_and_name_the_valid_paths() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    let r = path.to_str().unwrap();
    let (texts, suite) = inputs(dir.path(), &TEXTS);
    let models = file_models(dir.path(), &texts, &suite, Task::Classify);
    ok(&classify(
        dir.path(),
        &texts,
        &models,
        &["--report", "--suite", &suite, "--out", r],
    ));
    let unknown = gate(dir.path(), r, "corruptions.typo_1.agreement.lower < 0.9");
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains(
            "unknown path `corruptions.typo_1.agreement.lower`: `corruptions` has no `typo_1`; \
             valid: corruptions.typo_05, corruptions.typo_20, corruptions.drop"
        ),
        "{}",
        stderr(&unknown)
    );
    let syntax = gate(dir.path(), r, "clean.agreement.lower ~ 0.9");
    assert_eq!(syntax.status.code(), Some(1));
    assert!(
        stderr(&syntax).contains("no comparison operator"),
        "{}",
        stderr(&syntax)
    );
    // A usage error of `gate` is an error (1), never "a gate failed" (2).
    let usage = capkit(&["profile", "gate", r], dir.path());
    assert_eq!(usage.status.code(), Some(1), "{}", stderr(&usage));
    assert_eq!(
        gate(dir.path(), "nope.json", "n < 1").status.code(),
        Some(1)
    );
    let list = ok(&capkit(&["profile", "gate", r, "--list"], dir.path()))
        .stdout
        .clone();
    let list = String::from_utf8(list).unwrap();
    assert!(
        list.lines()
            .any(|l| l == "invariances.case.student_vs_teacher.p"),
        "{list}"
    );
    assert!(list.lines().any(|l| l == "counts.n"), "{list}");
    // A bare profile has no counts to gate on.
    let bare = dir.path().join("bare.json");
    ok(&classify(
        dir.path(),
        &texts,
        &models,
        &["--suite", &suite, "--out", bare.to_str().unwrap()],
    ));
    let refused = gate(dir.path(), bare.to_str().unwrap(), "n < 1");
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("a bare profile has no counts: write one with `--report`"),
        "{}",
        stderr(&refused)
    );
    // --level belongs to --report.
    let usage = classify(dir.path(), &texts, &models, &["--level", "0.9"]);
    assert_eq!(usage.status.code(), Some(2));
    let bad_level = classify(dir.path(), &texts, &models, &["--report", "--level", "95"]);
    assert_eq!(bad_level.status.code(), Some(1));
    assert!(
        stderr(&bad_level)
            .contains("--level: the confidence level must be strictly between 0 and 1, got 95"),
        "{}",
        stderr(&bad_level)
    );
}

const TEXTS: [&str; 16] = [
    "good food",
    "Good service",
    "not good at all",
    "bad",
    "the GOOD news",
    "fine, good",
    "nothing special",
    "good good good",
    "awful",
    "a good day, mostly",
    "terrible wait",
    "GOOD",
    "",
    "good value for money",
    "cold soup",
    "really good coffee",
];

#[derive(Clone, Copy, PartialEq)]
enum Task {
    Classify,
    Extract,
}

/// Writes `texts` (JSONL) and a suite with two typo rates, a declared-severity corruption and
/// two invariances into `dir`.
fn inputs(dir: &Path, texts: &[&str]) -> (String, String) {
    let texts_path = dir.join("texts.jsonl");
    let lines: String = texts
        .iter()
        .map(|t| format!("{}\n", json!({ "text": t })))
        .collect();
    std::fs::write(&texts_path, lines).unwrap();
    let suite_path = dir.join("suite.json");
    let suite = json!({
        "corruptions": [
            {"name": "typo_05", "transform": "keyboard_typo", "rate": 0.05},
            {"name": "typo_20", "transform": "keyboard_typo", "rate": 0.2},
            {"name": "drop", "transform": "identity", "severity": 1}
        ],
        "invariances": [
            {"name": "case", "transform": "case_jitter"},
            {"name": "whitespace", "transform": "whitespace"}
        ],
        "probes": ["", "good"]
    });
    std::fs::write(&suite_path, suite.to_string()).unwrap();
    (
        texts_path.display().to_string(),
        suite_path.display().to_string(),
    )
}

fn label(student: bool, text: &str) -> Value {
    let good = if student {
        text.contains("good")
    } else {
        text.to_lowercase().contains("good")
    };
    json!(if good { "pos" } else { "neg" })
}

fn record(student: bool, text: &str) -> Value {
    let words: Vec<&str> = text.split_whitespace().collect();
    if student {
        json!({"first": words.first(), "n": words.len()})
    } else {
        json!({"first": words.first().map(|w| w.to_lowercase()), "n": words.len()})
    }
}

/// `file:` predictions of a student (with a decision API) and a teacher for every text a run
/// over `texts` and `suite` asks about (`capkit profile texts` lists them), for any shard of
/// the texts.
fn file_models(dir: &Path, texts: &str, suite: &str, task: Task) -> (String, String) {
    let mut args = vec!["profile", "texts", "--texts", texts, "--suite", suite];
    if task == Task::Extract {
        args.push("--extract");
    }
    let listed = ok(&capkit(&args, dir)).stdout.clone();
    let mut specs = Vec::new();
    for (name, student) in [("student", true), ("teacher", false)] {
        let mut lines = String::new();
        for line in String::from_utf8(listed.clone()).unwrap().lines() {
            let text = serde_json::from_str::<Value>(line).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_owned();
            let mut answer = match task {
                Task::Classify => json!({"text": text, "label": label(student, &text)}),
                Task::Extract => json!({"text": text, "record": record(student, &text)}),
            };
            if student {
                answer["decision"] = if text.contains(',') {
                    Value::Null
                } else {
                    answer["label"].clone()
                };
                if task == Task::Extract {
                    answer["decision"] = if text.contains(',') {
                        Value::Null
                    } else {
                        answer["record"].clone()
                    };
                }
            }
            lines.push_str(&format!("{answer}\n"));
        }
        let path = dir.join(format!("{name}.jsonl"));
        std::fs::write(&path, lines).unwrap();
        specs.push(format!("file:{}", path.display()));
    }
    (specs[0].clone(), specs[1].clone())
}

/// Writes `texts` as a `.jsonl` texts file `name` in `dir`.
fn write_texts(dir: &Path, name: &str, texts: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let lines: String = texts
        .iter()
        .map(|t| format!("{}\n", json!({ "text": t })))
        .collect();
    std::fs::write(&path, lines).unwrap();
    path
}

/// Runs `--report` over `texts` (a shard) and returns the report file's path.
fn report(
    dir: &Path,
    name: &str,
    texts: &[&str],
    suite: &str,
    models: &(String, String),
    task: Task,
) -> String {
    let path = write_texts(dir, &format!("{name}.texts.jsonl"), texts);
    let out = dir.join(format!("{name}.json"));
    let mut args = vec!["profile".to_owned()];
    match task {
        Task::Classify => args.push("classify".into()),
        Task::Extract => args.extend(["extract".into(), "--fields".into(), "first,n".into()]),
    }
    for a in [
        "--report",
        "--texts",
        path.to_str().unwrap(),
        "--suite",
        suite,
        "--student",
        &models.0,
        "--teacher",
        &models.1,
        "--out",
        out.to_str().unwrap(),
    ] {
        args.push(a.to_owned());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&capkit(&args, dir));
    out.display().to_string()
}

proptest! {
    // Each case runs capkit a few times: few cases, and no regression file in the source tree.
    #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]

    /// `capkit profile merge` of the reports of random shards is the report of all the texts.
    #[test]
    fn merged_shard_reports_are_the_report_of_all_texts(
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 1..3),
        extract in any::<bool>(),
    ) {
        let task = if extract { Task::Extract } else { Task::Classify };
        let dir = tempfile::tempdir().unwrap();
        let (texts, suite) = inputs(dir.path(), &TEXTS);
        let models = file_models(dir.path(), &texts, &suite, task);
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(TEXTS.len() + 1)).collect();
        cuts.sort();
        let mut bounds = vec![0];
        bounds.extend(cuts);
        bounds.push(TEXTS.len());
        let shards: Vec<String> = bounds
            .windows(2)
            .enumerate()
            .map(|(i, w)| report(dir.path(), &format!("shard{i}"), &TEXTS[w[0]..w[1]], &suite, &models, task))
            .collect();
        let whole = report(dir.path(), "whole", &TEXTS, &suite, &models, task);
        let merged = dir.path().join("merged.json");
        let mut args = vec!["profile", "merge"];
        args.extend(shards.iter().map(String::as_str));
        args.extend(["--out", merged.to_str().unwrap()]);
        ok(&capkit(&args, dir.path()));
        prop_assert_eq!(
            without_texts(&mut read_json(&merged)),
            without_texts(&mut read_json(Path::new(&whole)))
        );
    }
}

#[test]
fn merge_refuses_reports_of_other_suites_or_models_naming_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let (texts, suite) = inputs(dir.path(), &TEXTS);
    let models = file_models(dir.path(), &texts, &suite, Task::Classify);
    let a = report(
        dir.path(),
        "a",
        &TEXTS[..8],
        &suite,
        &models,
        Task::Classify,
    );
    let swapped = (models.1.clone(), models.0.clone());
    let b = report(
        dir.path(),
        "b",
        &TEXTS[8..],
        &suite,
        &swapped,
        Task::Classify,
    );
    let refused = capkit(&["profile", "merge", &a, &b], dir.path());
    assert_eq!(refused.status.code(), Some(1));
    let message = stderr(&refused);
    assert!(
        message.contains("a.json and ")
            && message.contains("b.json: cannot merge: the models differ"),
        "{message}"
    );
    // Another suite: one more invariance.
    let other_suite = dir.path().join("other-suite.json");
    let mut spec = read_json(Path::new(&suite));
    spec["invariances"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "same", "transform": "identity"}));
    std::fs::write(&other_suite, spec.to_string()).unwrap();
    let c = report(
        dir.path(),
        "c",
        &TEXTS[8..],
        other_suite.to_str().unwrap(),
        &models,
        Task::Classify,
    );
    let refused = capkit(&["profile", "merge", &a, &c], dir.path());
    assert!(
        stderr(&refused).contains("cannot merge: the suites differ (blake3:"),
        "{}",
        stderr(&refused)
    );
    let one = capkit(&["profile", "merge", &a], dir.path());
    assert_eq!(one.status.code(), Some(2), "merge needs two reports");
}

#[test]
fn compare_pairs_the_readme_students_and_merges_over_shards() {
    if !system_has(
        SystemNeed::Python3,
        "compare_pairs_the_readme_students_and_merges_over_shards",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("comparison.json");
    ok(&capkit(
        &[
            "profile",
            "compare",
            "--texts",
            "examples/profile/texts.txt",
            "--suite",
            "examples/profile/suite.json",
            "--teacher",
            PY_TEACHER,
            "--student",
            PY_STUDENT,
            "--student",
            PY_STUDENT_B,
            "--no-cache",
            "--out",
            out.to_str().unwrap(),
        ],
        &root(),
    ));
    let json = read_json(&out);
    assert_eq!(json["format"], "capkit-profile-comparison/1");
    assert_eq!(json["teacher"], PY_TEACHER);
    let pair = &json["pairs"][0];
    assert_eq!(
        (pair["first"].as_str(), pair["second"].as_str()),
        (Some(PY_STUDENT), Some(PY_STUDENT_B))
    );
    assert_eq!(
        pair["counts"]["clean"]["agree"],
        json!({"both": 6, "first_only": 1, "second_only": 3, "neither": 0})
    );
    assert_eq!(pair["clean"]["p"], 0.9519315235887428);
    assert_eq!(pair["clean"]["p_unadjusted"], 0.31731050786291426);
    let b = &json["students"][PY_STUDENT_B];
    assert_eq!(b["profile"]["clean_agreement"], 0.9);
    // Student B escalates three texts, among them the one it gets wrong.
    assert_eq!(
        b["counts"]["abstention"]["student_only_escalated"],
        json!({"agree": 2, "disagree": 1})
    );
    assert_eq!(
        b["abstention"]["student"]["disagreements_escalated"]["estimate"],
        1.0
    );
    // Each student's report is the report `classify --report` writes for it.
    let alone = dir.path().join("alone.json");
    example_report(
        "examples/profile/texts.txt",
        PY_STUDENT_B,
        alone.to_str().unwrap(),
    );
    // (but for its `texts` fingerprint, which the comparison carries once, at its top level).
    assert_eq!(&without_texts(&mut read_json(&alone)), b);
    // A gate reads a comparison too.
    let gate = capkit(
        &[
            "profile",
            "gate",
            out.to_str().unwrap(),
            "--fail-on",
            "pairs.0.clean.p < 0.05",
            "--fail-on",
            "students.B.clean.agreement.estimate < 0.9",
            "--fail-on",
            "students.0.clean.agreement.estimate < 0.9",
        ],
        &root(),
    );
    // Students by alias (B: the second) and by position (0: the first), no spec quoted.
    assert_eq!(gate.status.code(), Some(2), "{}", stderr(&gate));
    assert_eq!(
        String::from_utf8_lossy(&gate.stdout),
        "pass  pairs.0.clean.p = 0.951932 (fails when < 0.05)\n\
         pass  students.B.clean.agreement.estimate = 0.9 (fails when < 0.9)\n\
         FAIL  students.0.clean.agreement.estimate = 0.7 (fails when < 0.9)\n"
    );
    assert_eq!(json["aliases"], json!({"A": PY_STUDENT, "B": PY_STUDENT_B}));
}

#[test]
fn compare_shards_merge_into_the_comparison_of_all_texts() {
    let dir = tempfile::tempdir().unwrap();
    let (texts, suite) = inputs(dir.path(), &TEXTS);
    let (student, teacher) = file_models(dir.path(), &texts, &suite, Task::Classify);
    let compare = |name: &str, shard: &[&str]| {
        let path = dir.path().join(format!("{name}.jsonl"));
        let lines: String = shard
            .iter()
            .map(|t| format!("{}\n", json!({ "text": t })))
            .collect();
        std::fs::write(&path, lines).unwrap();
        let out = dir.path().join(format!("{name}.json"));
        ok(&capkit(
            &[
                "profile",
                "compare",
                "--texts",
                path.to_str().unwrap(),
                "--suite",
                &suite,
                "--teacher",
                &teacher,
                "--student",
                &student,
                "--student",
                &teacher,
                "--out",
                out.to_str().unwrap(),
            ],
            dir.path(),
        ));
        out.display().to_string()
    };
    let a = compare("a", &TEXTS[..5]);
    let b = compare("b", &TEXTS[5..]);
    let whole = compare("whole", &TEXTS);
    let merged = ok(&capkit(&["profile", "merge", &a, &b], dir.path()))
        .stdout
        .clone();
    let mut merged: Value = serde_json::from_slice(&merged).unwrap();
    assert_eq!(
        without_texts(&mut merged),
        without_texts(&mut read_json(Path::new(&whole)))
    );
    // A report and a comparison do not merge.
    let r = report(
        dir.path(),
        "r",
        &TEXTS,
        &suite,
        &(student.clone(), teacher.clone()),
        Task::Classify,
    );
    let mixed = capkit(&["profile", "merge", &a, &r], dir.path());
    assert!(
        stderr(&mixed).contains("cannot merge a report with a comparison"),
        "{}",
        stderr(&mixed)
    );
    let twice = capkit(
        &[
            "profile",
            "compare",
            "--texts",
            &texts,
            "--teacher",
            &teacher,
            "--student",
            &student,
            "--student",
            &student,
        ],
        dir.path(),
    );
    assert!(
        stderr(&twice).contains("is given twice"),
        "{}",
        stderr(&twice)
    );
}

#[test]
fn run_blocks_survive_merges_and_gates_can_read_them() {
    let dir = tempfile::tempdir().unwrap();
    let (texts, suite) = inputs(dir.path(), &TEXTS);
    let models = file_models(dir.path(), &texts, &suite, Task::Classify);
    let shard = |name: &str, part: &[&str]| {
        let path = write_texts(dir.path(), &format!("{name}.jsonl"), part);
        let out = dir.path().join(format!("{name}.json"));
        let extra = [
            "--report",
            "--with-run-info",
            "--suite",
            &suite,
            "--out",
            out.to_str().unwrap(),
        ];
        ok(&classify(
            dir.path(),
            path.to_str().unwrap(),
            &models,
            &extra,
        ));
        out.display().to_string()
    };
    let a = shard("a", &TEXTS[..6]);
    let b = shard("b", &TEXTS[6..]);
    assert_eq!(read_json(Path::new(&a))["run"]["texts"]["count"], 6);
    let gate_a = gate(dir.path(), &a, "run.texts.count != 6");
    assert_eq!(gate_a.status.code(), Some(0), "{}", stderr(&gate_a));
    let merged = dir.path().join("merged.json");
    ok(&capkit(
        &[
            "profile",
            "merge",
            &a,
            &b,
            "--out",
            merged.to_str().unwrap(),
        ],
        dir.path(),
    ));
    let json = read_json(&merged);
    assert_eq!(json["runs"].as_array().unwrap().len(), 2);
    assert_eq!(json["runs"][1]["texts"]["count"], 10);
    assert_eq!(json["counts"]["n"], 16);
    let failing = gate(
        dir.path(),
        merged.to_str().unwrap(),
        "runs.1.texts.count > 5",
    );
    assert_eq!(failing.status.code(), Some(2), "{}", stderr(&failing));
}

/// `--teacher-sample`: the report says what it estimated, the saved teacher calls are printed,
/// sampled shards merge into the sampled report of all texts, and extract refuses.
#[test]
fn a_teacher_sample_estimates_prints_the_calls_saved_and_merges_over_shards() {
    let dir = tempfile::tempdir().unwrap();
    let (texts, suite) = inputs(dir.path(), &TEXTS);
    let models = file_models(dir.path(), &texts, &suite, Task::Classify);
    let sampled = |name: &str, shard: &[&str]| {
        let path = write_texts(dir.path(), &format!("{name}.texts.jsonl"), shard);
        let out = dir.path().join(format!("{name}.json"));
        let p = path.to_str().unwrap();
        let o = out.to_str().unwrap();
        let extra = [
            "--report",
            "--suite",
            &suite,
            "--teacher-sample",
            "0.5",
            "--out",
            o,
        ];
        let run = classify(dir.path(), p, &models, &extra);
        ok(&run);
        (out.display().to_string(), stderr(&run))
    };
    let (whole, said) = sampled("whole", &TEXTS);
    assert!(
        said.contains("teacher calls on transformed texts saved"),
        "{said}"
    );
    let report = read_json(Path::new(&whole));
    assert_eq!(report["counts"]["sample"]["design"]["fraction"], 0.5);
    assert_eq!(
        report["corruptions"]["typo_20"]["agreement"]["method"],
        "ppi_power_tuned"
    );
    let gated = gate(
        dir.path(),
        &whole,
        "corruptions.typo_20.agreement.estimate < 0",
    );
    let said = String::from_utf8_lossy(&ok(&gated).stdout).into_owned();
    assert!(said.contains("[estimated: interval "), "{said}");
    let half = TEXTS.len() / 2;
    let (a, _) = sampled("a", &TEXTS[..half]);
    let (b, _) = sampled("b", &TEXTS[half..]);
    let merged = dir.path().join("merged.json");
    let m = merged.to_str().unwrap();
    ok(&capkit(
        &["profile", "merge", &a, &b, "--out", m],
        dir.path(),
    ));
    assert_eq!(
        without_texts(&mut read_json(&merged)),
        without_texts(&mut report.clone())
    );
    let refused = capkit(
        &[
            "profile",
            "extract",
            "--fields",
            "first",
            "--texts",
            &texts,
            "--student",
            &models.0,
            "--teacher",
            &models.1,
            "--teacher-budget",
            "10",
        ],
        dir.path(),
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("--teacher-budget: an extract profile cannot sample its teacher"),
        "{}",
        stderr(&refused)
    );
    let bad = classify(dir.path(), &texts, &models, &["--teacher-sample", "0"]);
    assert!(
        stderr(&bad)
            .contains("--teacher-sample: the teacher sample fraction must be in (0, 1], got 0"),
        "{}",
        stderr(&bad)
    );
}

/// Issue 32 on the command line: `--ledger` (the same bytes for any chunk size, atomic),
/// `--examples` (default 5, 0 turns them off) and `--reference teacher-clean`.
#[test]
fn ledger_examples_and_reference_from_the_command_line() {
    if !system_has(
        SystemNeed::Python3,
        "ledger_examples_and_reference_from_the_command_line",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let classify = |extra: &[&str]| {
        let mut args = vec![
            "profile",
            "classify",
            "--report",
            "--texts",
            "examples/profile/texts.txt",
            "--suite",
            "examples/profile/suite.json",
            "--student",
            PY_STUDENT,
            "--teacher",
            PY_TEACHER,
            "--no-cache",
        ];
        args.extend_from_slice(extra);
        capkit(&args, &root())
    };
    let (a, b, r) = (path("a.jsonl"), path("b.jsonl"), path("r.json"));
    ok(&classify(&["--ledger", &a, "--out", &r]));
    ok(&classify(&[
        "--ledger",
        &b,
        "--chunk-size",
        "1",
        "--out",
        &path("r1.json"),
    ]));
    let ledger = std::fs::read(&a).unwrap();
    assert_eq!(ledger, std::fs::read(&b).unwrap(), "chunk size 1 and 4096");
    let lines: Vec<Value> = ledger
        .split(|&c| c == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    // Ten texts, five lines each (clean, two typo rates, case, whitespace).
    assert_eq!(lines.len(), 50);
    assert_eq!(lines[3]["stage"], "case");
    assert_eq!(
        lines[3]["transformed"],
        "tHE FOOD WAS GOOD AND THE STAFF WERE FRIENDLY"
    );
    let report = read_json(Path::new(&r));
    // Default: up to 5 examples per kind; the case rewrite changed only the student's answers.
    let case = &report["examples"]["invariances"]["case"];
    assert_eq!(report["examples"]["k"], 5);
    assert_eq!(case["student_only"].as_array().unwrap().len(), 5);
    assert_eq!(case["teacher_only"], json!([]));
    // The report reads back with its examples (and `capkit report` renders it).
    ok(&capkit(&["report", &r, "--out", &path("r.html")], &root()));
    // --examples 0: none; --reference teacher-clean: the suite records it for every corruption.
    ok(&classify(&[
        "--examples",
        "0",
        "--reference",
        "teacher-clean",
        "--out",
        &path("clean.json"),
    ]));
    let clean = read_json(&dir.path().join("clean.json"));
    assert!(clean.get("examples").is_none());
    assert_eq!(
        clean["corruptions"]["typo_20"]["reference"],
        "teacher_clean"
    );
    assert_ne!(
        clean["suite"]["fingerprint"],
        report["suite"]["fingerprint"]
    );
    // A ledger on the --out path is refused before anything runs; a failed run leaves no ledger.
    let same = classify(&["--ledger", &r, "--out", &r]);
    assert_eq!(same.status.code(), Some(1));
    assert!(
        stderr(&same).contains("the same file as --out"),
        "{}",
        stderr(&same)
    );
    let failed = capkit(
        &[
            "profile",
            "classify",
            "--texts",
            "examples/profile/texts.txt",
            "--student",
            "cmd:false",
            "--teacher",
            PY_TEACHER,
            "--no-cache",
            "--ledger",
            &path("never.jsonl"),
        ],
        &root(),
    );
    assert_eq!(failed.status.code(), Some(1));
    assert!(!dir.path().join("never.jsonl").exists());
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("never"))
        .collect();
    assert!(left.is_empty(), "a temporary ledger was left behind");
}

/// Issue 36 end to end: a suite file's families, weights and tags reach the comparison's suite
/// descriptor (two chains, two families, each at its declared severity) and its page, whose
/// ranking says it is weighted.
#[test]
fn a_suite_files_weights_tags_and_chain_families_reach_the_page() {
    if !system_has(
        SystemNeed::Python3,
        "a_suite_files_weights_tags_and_chain_families_reach_the_page",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.json");
    std::fs::write(
        &suite,
        json!({
            "corruptions": [
                {"name": "typo_05", "transform": "keyboard_typo", "rate": 0.05, "weight": 3, "tags": ["typo"]},
                {"name": "loud", "transform": "chain", "severity": 0.05,
                 "steps": [{"transform": "uppercase"}, {"transform": "repeat_char", "rate": 0.1}]},
                {"name": "messy", "transform": "chain",
                 "steps": [{"transform": "char_delete", "rate": 0.05}, {"transform": "repeat_char", "rate": 0.1}]}
            ],
            "invariances": [{"name": "case", "transform": "case_jitter", "tags": ["case"]}]
        })
        .to_string(),
    )
    .unwrap();
    let out = dir.path().join("comparison.json");
    let page = dir.path().join("comparison.html");
    ok(&capkit(
        &[
            "profile",
            "compare",
            "--texts",
            "examples/profile/texts.txt",
            "--suite",
            suite.to_str().unwrap(),
            "--teacher",
            PY_TEACHER,
            "--student",
            PY_STUDENT,
            "--student",
            PY_STUDENT_B,
            "--no-cache",
            "--out",
            out.to_str().unwrap(),
        ],
        &root(),
    ));
    let json = read_json(&out);
    let described = &json["students"][PY_STUDENT]["suite"];
    assert_eq!(
        described["corruptions"],
        json!([
            {"name": "typo_05", "family": "keyboard_typo", "severity": 0.05, "weight": 3.0, "tags": ["typo"]},
            {"name": "loud", "family": "loud", "severity": 0.05},
            {"name": "messy", "family": null, "severity": null}
        ])
    );
    assert_eq!(
        described["invariance_meta"],
        json!({"case": {"tags": ["case"]}})
    );
    ok(&capkit(
        &[
            "report",
            out.to_str().unwrap(),
            "--out",
            page.to_str().unwrap(),
        ],
        &root(),
    ));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("all stages, weighted"));
    assert!(html.contains("(weight 3; <span class=\"tag\"><bdi>typo</bdi></span>)"));
    assert!(html.contains("<figure class=\"dots\">") && !html.contains("<figure class=\"curve\""));
}
