//! Workload B of the reference PERF.md: `extractive_capture_profile` on 20,000 texts with four
//! fields, four typo rates and two invariances, constant models. Upstream mixle: 1.2 s CPU.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use extractive::extractive_capture_profile;
use serde_json::{Value, json};
use suite_core::{
    BatchFn, CapabilitySuite, PerItemFn, case_jitter_invariance, keyboard_typo_corruption,
    whitespace_invariance,
};

fn bench(c: &mut Criterion) {
    let texts: Vec<String> = (0..20_000)
        .map(|j| {
            format!(
                "ticket {j} name: user{j} city: City{} item: widget{} qty: {}",
                j % 50,
                j % 7,
                j % 9 + 1
            )
        })
        .collect();
    let fields = ["name", "city", "item", "qty"];
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
    let record: Value = json!({"name": "user", "city": "City", "item": "widget", "qty": "1"});
    let student = PerItemFn::new(|_: &str| record.clone());
    let teacher = BatchFn::new(|ts: &[&str]| vec![record.clone(); ts.len()]);

    // Check the profile once (PERF.md's expected values) so the bench cannot skip work.
    let p = extractive_capture_profile(&student, &teacher, &texts, &suite, &fields).unwrap();
    assert_eq!(p.clean_f1, 1.0);
    assert_eq!(
        (p.schema_validity.student, p.schema_validity.teacher),
        (0.77795, 0.77795)
    );
    assert!(
        p.corruptions
            .values()
            .chain(p.invariances.values())
            .all(|f| f.student_f1 == 1.0 && f.teacher_f1 == 1.0)
    );

    let mut group = c.benchmark_group("workload_b");
    group.sample_size(20);
    group.bench_function("extractive_capture_profile_20k", |b| {
        b.iter(|| extractive_capture_profile(&student, &teacher, &texts, &suite, &fields).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
