//! Workload B (docs/performance.md#workloads): `extractive_capture_profile` on 20,000 texts with four
//! fields, four typo rates and two invariances, constant models. Upstream mixle: 1.2 s CPU.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use extractive::extractive_capture_profile;

mod support;
use support::{FIELDS, check, models, suite, texts};

fn bench(c: &mut Criterion) {
    let (texts, suite, (student, teacher)) = (texts(), suite(), models());
    check(&extractive_capture_profile(&student, &teacher, &texts, &suite, &FIELDS).unwrap());
    let mut group = c.benchmark_group("workload_b");
    group.sample_size(20);
    group.bench_function("extractive_capture_profile_20k", |b| {
        b.iter(|| extractive_capture_profile(&student, &teacher, &texts, &suite, &FIELDS).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
