//! Workload A (docs/performance.md#workloads) through `capkit profile classify` with both models `cmd:` subprocesses
//! running the `jsonl_model` example (a constant `"pos"`), as a process: the JSONL protocol's
//! cost is this minus the in-process profile (`cargo bench -p capkit-capture --bench workload_a`).
//!
//! Run with `cargo bench -p capkit --bench profile_cmd` (the example model is built by
//! `cargo build --release -p capkit --example jsonl_model` first, if missing).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

fn example_model() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let path = dir.join("examples/jsonl_model");
    if !path.exists() {
        let target = dir.join("profile-example-build");
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args([
                "build",
                "--release",
                "-p",
                "capkit",
                "--example",
                "jsonl_model",
            ])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(status.success());
        return target.join("release/examples/jsonl_model");
    }
    path
}

/// Writes the workload's texts, suite and model file; returns the directory.
fn workload(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    const W: [&str; 5] = ["good", "bad", "great", "awful", "fine"];
    let texts: String = (0..100_000)
        .map(|i| {
            format!(
                "sample {i}: the service was {} and the food was {} overall\n",
                W[i % 5],
                W[(i * 7) % 5]
            )
        })
        .collect();
    std::fs::write(dir.join("texts.txt"), texts).unwrap();
    let typo = |name: &str, rate: f64| json!({"name": name, "transform": "keyboard_typo", "rate": rate, "seed": 0});
    let suite = json!({
        "corruptions": [typo("typo_05", 0.05), typo("typo_10", 0.1), typo("typo_20", 0.2), typo("typo_40", 0.4)],
        "invariances": [{"name": "case", "transform": "case_jitter"}, {"name": "space", "transform": "whitespace"}],
        "probes": ["", "good", "bad", "GOOD!!!", "  spaced   out  ", "ß", "日本語", "1234", "a".repeat(100), "the service was fine"],
    });
    std::fs::write(dir.join("suite.json"), suite.to_string()).unwrap();
    let model = json!({"task": "classify", "rule": {"kind": "constant", "label": "pos"}});
    std::fs::write(dir.join("pos.json"), model.to_string()).unwrap();
}

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join("capkit-bench-profile-cmd");
    workload(&dir);
    let model = format!("cmd:{} pos.json", example_model().display());
    let mut g = c.benchmark_group("capkit_profile_cmd");
    g.sample_size(10);
    g.bench_function("workload_a_two_cmd_models", |b| {
        b.iter(|| {
            let out = Command::new(env!("CARGO_BIN_EXE_capkit"))
                .args([
                    "profile",
                    "classify",
                    "--texts",
                    "texts.txt",
                    "--suite",
                    "suite.json",
                ])
                .args(["--student", &model, "--teacher", &model, "--no-cache"])
                .args(["--out", "profile.json"])
                .current_dir(&dir)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        });
    });
    g.finish();
    let profile: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("profile.json")).unwrap()).unwrap();
    assert_eq!(profile["clean_agreement"], 1.0);
    assert_eq!(profile["corruptions"]["typo_40"], 1.0);
}

criterion_group!(benches, bench);
criterion_main!(benches);
