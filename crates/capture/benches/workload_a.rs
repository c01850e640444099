//! Workload A of the reference PERF.md: `capture_profile` on 100,000 texts with four typo rates,
//! two invariances, ten probes and constant models. Upstream mixle: 5.0 s CPU.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use capture::capture_profile;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use suite_core::{
    BatchFn, CapabilitySuite, PerItemFn, case_jitter_invariance, keyboard_typo_corruption,
    whitespace_invariance,
};

fn texts() -> Vec<String> {
    const W: [&str; 5] = ["good", "bad", "great", "awful", "fine"];
    (0..100_000)
        .map(|i| {
            format!(
                "sample {i}: the service was {} and the food was {} overall",
                W[i % 5],
                W[(i * 7) % 5]
            )
        })
        .collect()
}

fn suite() -> CapabilitySuite {
    let mut suite = CapabilitySuite::new();
    for (name, rate) in [
        ("typo_05", 0.05),
        ("typo_10", 0.1),
        ("typo_20", 0.2),
        ("typo_40", 0.4),
    ] {
        suite.add_corruption(name, keyboard_typo_corruption(rate, 0).unwrap());
    }
    suite.add_invariance("case", case_jitter_invariance());
    suite.add_invariance("space", whitespace_invariance());
    let a100 = "a".repeat(100);
    for p in [
        "",
        "good",
        "bad",
        "GOOD!!!",
        "  spaced   out  ",
        "ß",
        "日本語",
        "1234",
        &a100,
        "the service was fine",
    ] {
        suite.add_probe(p);
    }
    suite
}

fn bench(c: &mut Criterion) {
    let texts = texts();
    let suite = suite();
    let student = PerItemFn::new(|_: &str| json!("pos"));
    let teacher = BatchFn::new(|ts: &[&str]| vec![json!("pos"); ts.len()]);
    // Check the profile once so the bench cannot silently skip work.
    let p = capture_profile(&student, &teacher, &texts, &suite).unwrap();
    assert_eq!(p.clean_agreement, 1.0);
    assert!(p.corruptions.values().all(|&a| a == 1.0) && p.corruptions.len() == 4);
    assert!(
        p.invariances
            .values()
            .all(|v| v.student_violation_rate == 0.0 && v.teacher_violation_rate == 0.0)
    );
    assert_eq!(p.probes.as_ref().unwrap().student, vec![json!("pos"); 10]);

    let neg = BatchFn::new(|ts: &[&str]| vec![json!("neg"); ts.len()]);
    let q = capture_profile(&teacher, &neg, &texts, &suite).unwrap();
    assert_eq!(q.clean_agreement, 0.0);

    let mut group = c.benchmark_group("workload_a");
    group.sample_size(10);
    group.bench_function("capture_profile_100k", |b| {
        b.iter(|| capture_profile(&student, &teacher, &texts, &suite).unwrap())
    });
    group.bench_function("typo_corruptions_only_100k_x4", |b| {
        let typos: Vec<_> = suite.corruptions().map(|(_, t)| t.clone()).collect();
        b.iter(|| {
            let mut n = 0usize;
            for t in &typos {
                for text in &texts {
                    n += t.apply(text).len();
                }
            }
            n
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
