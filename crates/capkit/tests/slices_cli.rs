//! `capkit profile slices` end to end, on a ledger `capkit profile classify --ledger` writes for
//! `examples/profile` (its ten texts ten times over: repeats count like any other line).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use scenario_rules::{SystemNeed, system_has};
use serde_json::Value;

mod support;

use support::{capkit_in, ok, output, root, scratch, stderr};

fn capkit(args: &[&str], dir: &Path) -> Output {
    output(capkit_in(dir).args(args))
}

#[test]
fn slices_of_the_example_ledger() {
    if !system_has(SystemNeed::Python3, "slices_of_the_example_ledger") {
        return;
    }
    let dir = scratch("slices", "example");
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let texts = std::fs::read_to_string(root().join("examples/profile/texts.txt")).unwrap();
    std::fs::write(path("texts.txt"), texts.repeat(10)).unwrap();
    let ledger = path("ledger.jsonl");
    ok(&capkit(
        &[
            "profile",
            "classify",
            "--texts",
            &path("texts.txt"),
            "--suite",
            "examples/profile/suite.json",
            "--student",
            "cmd:python3 examples/profile/student.py",
            "--teacher",
            "cmd:python3 examples/profile/teacher.py",
            "--no-cache",
            "--ledger",
            &ledger,
            "--out",
            &path("profile.json"),
        ],
        &root(),
    ));
    let slices = |extra: &[&str]| {
        let mut args = vec!["profile", "slices", &ledger, "--min-support", "5"];
        args.extend_from_slice(extra);
        capkit(&args, &root())
    };
    let out_path = path("slices.json");
    let with_out = slices(&["--out", &out_path]);
    ok(&with_out);
    let table = String::from_utf8_lossy(&with_out.stdout).into_owned();
    assert!(
        table.starts_with("100 texts; ") && table.contains("\nclean: 30 of 100 lines disagree"),
        "{table}"
    );
    let bytes = std::fs::read(&out_path).unwrap();
    let json: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(json["format"], "capkit-slices/1");
    assert_eq!(
        (json["method"].as_str(), json["level"].as_f64()),
        (Some("bh"), Some(0.95))
    );
    assert_eq!(json["q"], 0.05);
    assert!(json["tested"].as_u64().unwrap() > 100);
    let stages: Vec<&str> = json["stages"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        stages,
        ["clean", "typo_05", "typo_20", "case", "whitespace"]
    );
    // The student reads "good" case-sensitively: every text with a capitalised GOOD disagrees
    // on the clean stage, and nothing disagrees under whitespace.
    let top = &json["stages"]["clean"][0];
    assert_eq!(top["name"], "has:upper_word");
    assert_eq!(
        (top["size"].as_u64(), top["disagree"].as_u64()),
        (Some(20), Some(20))
    );
    assert!(top["log10_adjusted_p"].as_f64().unwrap() < -2.0);
    let examples = top["examples"].as_array().unwrap();
    assert_eq!(
        examples.len(),
        2,
        "two distinct texts (the other 18 lines are repeats)"
    );
    assert!(
        examples
            .iter()
            .all(|e| e["text"].as_str().unwrap().contains("GOOD"))
    );
    // "really GOOD coffee, slow service": its four words hold the same ten lines, one slice.
    let clean = json["stages"]["clean"].as_array().unwrap();
    let coffee = clean.iter().find(|s| s["name"] == "token:coffee").unwrap();
    let folded: Vec<&str> = coffee["folded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    for alias in ["token:really", "token:service", "token:slow"] {
        assert!(folded.contains(&alias), "{folded:?}");
        assert!(clean.iter().all(|s| s["name"] != alias));
    }
    assert_eq!(json["stages"]["whitespace"], Value::Array(vec![]));
    assert!(json["stages"]["clean"].as_array().unwrap().len() <= 15);

    // Without --out: the same JSON on stdout, the table on stderr.
    let plain = slices(&[]);
    ok(&plain);
    assert_eq!(plain.stdout, bytes);
    assert!(stderr(&plain).starts_with("100 texts; "));
    // --max and Holm: fewer shown, no more significant than Benjamini–Hochberg.
    let holm = slices(&["--method", "holm", "--max", "2"]);
    let holm: Value = serde_json::from_slice(&ok(&holm).stdout).unwrap();
    assert_eq!(holm["method"], "holm");
    for (stage, total) in holm["totals"].as_object().unwrap() {
        assert!(holm["stages"][stage].as_array().unwrap().len() <= 2);
        assert!(total["significant"].as_u64() <= json["totals"][stage]["significant"].as_u64());
    }

    // A bad line is named by its number, and no --out file is left.
    let mut broken = std::fs::read(&ledger).unwrap();
    broken.extend_from_slice(b"{\"id\": 101}\n");
    std::fs::write(path("broken.jsonl"), broken).unwrap();
    let bad_out = path("bad.json");
    let bad = capkit(
        &[
            "profile",
            "slices",
            &path("broken.jsonl"),
            "--out",
            &bad_out,
        ],
        &root(),
    );
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains("broken.jsonl:501: not a ledger line"),
        "{}",
        stderr(&bad)
    );
    assert!(!Path::new(&bad_out).exists());
    let level = slices(&["--level", "1.5"]);
    assert_eq!(level.status.code(), Some(1));
    assert!(stderr(&level).contains("--level"), "{}", stderr(&level));
    let missing = capkit(&["profile", "slices", &path("none.jsonl")], &root());
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("cannot open"),
        "{}",
        stderr(&missing)
    );
}

/// `capkit profile breakdown` on the example ledger: the groups of one dimension add up to the
/// profile's own counts (clean agreement, each corruption's agreement), repeats included.
#[test]
fn breakdown_of_the_example_ledger_adds_up_to_the_profile() {
    if !system_has(SystemNeed::Python3, "breakdown_of_the_example_ledger") {
        return;
    }
    let dir = scratch("breakdown", "example");
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let texts = std::fs::read_to_string(root().join("examples/profile/texts.txt")).unwrap();
    std::fs::write(path("texts.txt"), texts.repeat(3)).unwrap();
    let ledger = path("ledger.jsonl");
    ok(&capkit(
        &[
            "profile",
            "classify",
            "--report",
            "--texts",
            &path("texts.txt"),
            "--suite",
            "examples/profile/suite.json",
            "--student",
            "cmd:python3 examples/profile/student.py",
            "--teacher",
            "cmd:python3 examples/profile/teacher.py",
            "--no-cache",
            "--ledger",
            &ledger,
            "--out",
            &path("report.json"),
        ],
        &root(),
    ));
    let out = capkit(
        &[
            "profile",
            "breakdown",
            &ledger,
            "--group-by",
            "teacher-label",
            "--group-by",
            "length-bin",
            "--out",
            &path("breakdown.json"),
        ],
        &root(),
    );
    ok(&out);
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(table.starts_with("30 texts\nby teacher_label:"), "{table}");
    let b: Value =
        serde_json::from_str(&std::fs::read_to_string(path("breakdown.json")).unwrap()).unwrap();
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(path("report.json")).unwrap()).unwrap();
    assert_eq!(b["format"], "capkit-breakdown/1");
    assert_eq!(b["texts"], 30);
    let clean_agree = report["profile"]["clean_agreement"].as_f64().unwrap();
    for dimension in b["dimensions"].as_array().unwrap() {
        let groups = dimension["groups"].as_array().unwrap();
        let sum = |stage: &str, field: &str| -> u64 {
            groups
                .iter()
                .map(|g| g["stages"][stage][field].as_u64().unwrap())
                .sum()
        };
        assert_eq!(sum("clean", "lines"), 30, "{dimension}");
        assert_eq!(
            sum("clean", "hits") as f64 / 30.0,
            clean_agree,
            "{dimension}"
        );
        for stage in ["typo_05", "typo_20"] {
            let agree = report["profile"]["corruptions"][stage].as_f64().unwrap();
            assert_eq!(sum(stage, "hits") as f64 / 30.0, agree, "{stage}");
        }
    }
    // Clean disagreements, read off the confusions, are the profile's.
    let clean = &b["confusion"]["clean"];
    assert_eq!(
        clean["disagreements"].as_u64().unwrap() as f64,
        ((1.0 - clean_agree) * 30.0).round()
    );
    assert!(stderr(&out).is_empty() || !stderr(&out).contains("error"));
}
