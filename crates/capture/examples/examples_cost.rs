//! What examples cost (issue 32): workload A's report (docs/performance.md#workloads) with
//! examples off (`k` = 0) and on (`k` = 5), side by side in one process, runs interleaved so
//! that the machine's load falls on both alike; each run's CPU time is this thread's
//! (`/proc/thread-self/schedstat`). Then the same with label-dependent models, whose answers
//! change under typos and case, so that every kind of example is offered and kept:
//! `cargo run --release -p capkit-capture --example examples_cost [RUNS]`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../benches/support/mod.rs"]
mod support;

use capture::CaptureRun;
use scenario_rules::thread_cpu_ns;
use serde_json::json;
use suite_core::{Model, PerItemFn};
use support::{models, suite, texts};

fn cpu_ms(student: &dyn Model, teacher: &dyn Model, texts: &[String], k: usize) -> f64 {
    let suite = suite();
    let t0 = thread_cpu_ns();
    let mut run = CaptureRun::new(student, teacher, &suite)
        .unwrap()
        .with_examples(k);
    run.add(texts).unwrap();
    let report = run.report().unwrap();
    let t1 = thread_cpu_ns();
    assert_eq!(report.examples.is_some(), k > 0);
    (t1 - t0) as f64 / 1e6
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn compare(what: &str, student: &dyn Model, teacher: &dyn Model, texts: &[String], runs: usize) {
    let (mut off, mut on) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        off.push(cpu_ms(student, teacher, texts, 0));
        on.push(cpu_ms(student, teacher, texts, 5));
    }
    let (a, b) = (median(off), median(on));
    println!(
        "{what}: report cpu median {a:.1} ms without examples, {b:.1} ms with k = 5: ratio {:.3}",
        b / a
    );
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(7);
    let texts = texts();
    let (student, teacher) = models();
    compare(
        "workload A (constant models)",
        &student,
        &teacher,
        &texts,
        runs,
    );
    let student = PerItemFn::new(|t: &str| json!(t.contains("good")));
    let teacher = PerItemFn::new(|t: &str| json!(t.to_lowercase().contains("goo")));
    compare("label-dependent models", &student, &teacher, &texts, runs);
}
