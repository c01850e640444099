//! The downstream program profiles the README's offline example exactly as `capkit profile
//! classify` does, and its dependency tree holds no HTTP client.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use scenario_rules::{SystemNeed, system_has};
use std::path::Path;
use std::process::{Command, Output};

use capture::serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Runs the program on the offline example's texts and suite with these models.
fn profile(student: &str, teacher: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capkit-downstream-example"))
        .args([
            "examples/profile/texts.txt",
            "examples/profile/suite.json",
            student,
            teacher,
        ])
        .current_dir(root())
        .output()
        .unwrap()
}

#[test]
fn profiles_the_offline_example_with_cmd_models() {
    if !system_has(
        SystemNeed::Python3,
        "profiles_the_offline_example_with_cmd_models",
    ) {
        return;
    }
    let out = profile(
        "cmd:python3 examples/profile/student.py",
        "cmd:python3 examples/profile/teacher.py",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let profile: Value = capture::serde_json::from_slice(&out.stdout).unwrap();
    // The numbers the README gives for `capkit profile classify` on the same inputs.
    assert_eq!(profile["clean_agreement"], json!(0.7));
    assert_eq!(
        profile["invariances"]["case"],
        json!({"student_violation_rate": 0.6, "teacher_violation_rate": 0.0})
    );
    assert_eq!(
        profile["abstention"],
        json!({"student_escalation_rate": null, "teacher_escalation_rate": 0.1})
    );
}

#[test]
fn a_bad_spec_is_a_clear_error() {
    let out = profile(
        "python3 student.py",
        "cmd:python3 examples/profile/teacher.py",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has no scheme"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn no_http_client_is_compiled_for_cmd_models() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-p",
            "capkit-downstream-example",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).unwrap();
    assert!(tree.contains("capkit-model-adapters"), "{tree}");
    for http in ["ureq ", "rustls ", "capkit-report ", "capkit-mutator-eval "] {
        assert!(!tree.contains(http), "{http}in the tree:\n{tree}");
    }
}
