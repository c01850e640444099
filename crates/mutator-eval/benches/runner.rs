//! Throughput of the dataset runner on 10,000 replayed (offline) cases.
//!
//! `cargo bench -p capkit-mutator-eval --bench runner`. The cases come from
//! `examples/generate_cases.rs`: a booking form, a fixed reply of four extractions per case (a
//! quarter with one wrong value, one in fifty malformed).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mutator_eval::{Replies, Runner, SummaryBuilder, read_cases, summarize};

// The case generator is shared with `examples/generate_cases.rs` (its `main` is unused here).
#[path = "../examples/generate_cases.rs"]
#[allow(dead_code)]
mod generate;
use generate::generate_cases;

fn bench_runner(c: &mut Criterion) {
    const N: usize = 10_000;
    let text = generate_cases(N);
    let lines = read_cases(&text);
    let summary = summarize(&Runner::new(Replies::Fixed).run(&lines, &|_| {}));
    assert_eq!((summary.cases, summary.errors), (N, N / 50));

    let mut group = c.benchmark_group("runner");
    group.sample_size(10);
    group.throughput(Throughput::Elements(N as u64));
    group.bench_function("read_10k_jsonl", |b| {
        b.iter(|| read_cases(black_box(&text)))
    });
    for workers in [1, 2, 4] {
        group.bench_function(format!("replay_10k_concurrency_{workers}"), |b| {
            b.iter(|| {
                let results = Runner::new(Replies::Fixed)
                    .concurrency(workers)
                    .run(black_box(&lines), &|_| {});
                summarize(&results)
            })
        });
    }
    for workers in [1, 2] {
        group.bench_function(format!("jsonl_text_10k_concurrency_{workers}"), |b| {
            b.iter(|| {
                let mut summary = SummaryBuilder::default();
                Runner::new(Replies::Fixed)
                    .concurrency(workers)
                    .run_jsonl_each(black_box(&text), &|_| {}, |r| summary.add(&r));
                summary.finish()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_runner);
criterion_main!(benches);
