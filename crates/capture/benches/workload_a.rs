//! Workload A (docs/performance.md#workloads): `capture_profile` on 100,000 texts with four typo rates,
//! two invariances, ten probes and constant models. Upstream mixle: 5.0 s CPU.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use capture::capture_profile;
use criterion::{Criterion, criterion_group, criterion_main};

mod support;
use support::{check, models, suite, texts};

fn bench(c: &mut Criterion) {
    let (texts, suite, (student, teacher)) = (texts(), suite(), models());
    check(&capture_profile(&student, &teacher, &texts, &suite).unwrap());
    let mut group = c.benchmark_group("workload_a");
    group.sample_size(10);
    group.bench_function("capture_profile_100k", |b| {
        b.iter(|| capture_profile(&student, &teacher, &texts, &suite).unwrap())
    });
    // The corruptions alone (each text hashed once per rate, as a standalone caller would).
    group.bench_function("typo_corruptions_only_100k_x4", |b| {
        let typos: Vec<_> = suite.corruptions().map(|(_, t)| t.clone()).collect();
        b.iter(|| {
            typos
                .iter()
                .flat_map(|t| texts.iter().map(|x| t.apply(x).len()))
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
