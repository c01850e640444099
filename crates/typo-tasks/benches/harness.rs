//! The harness's own costs over `bench_domains2000.txt` (2,000 names, all 22 tasks, with the
//! upstream data fixture so the counts match upstream's 36,658 examples / 2,293,745 variants):
//! JSONL encoding of the whole corpus, split assignment, and scoring. Generation itself is
//! measured by the `generate` bench.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use typo_tasks::{
    DEFAULT_RATIO, Data, Registry, assign, describe, emit, score, select, write_jsonl,
};

fn bench(c: &mut Criterion) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let data =
        Data::from_json_str(&std::fs::read_to_string(format!("{dir}/data.json")).unwrap()).unwrap();
    let names = std::fs::read_to_string(format!("{dir}/bench_domains2000.txt")).unwrap();
    let registry = Registry::new(&data);
    let tasks = select::<&str>(&registry, &[]).unwrap();
    let mut examples = emit(&tasks, names.lines(), "bench");
    assert_eq!(examples.len(), 36_658);
    assert_eq!(describe(&examples).variants, 2_293_745);

    let mut g = c.benchmark_group("harness_2000");
    g.sample_size(20);
    g.bench_function("assign_default_ratio", |b| {
        b.iter(|| assign(black_box(&mut examples), DEFAULT_RATIO, ""));
    });
    let mut sink = Vec::with_capacity(64 << 20);
    g.bench_function("write_jsonl_36658_examples", |b| {
        b.iter(|| {
            sink.clear();
            write_jsonl(&mut sink, black_box(&examples)).unwrap();
            sink.len()
        });
    });
    g.bench_function("fingerprint_blake3", |b| {
        b.iter(|| blake3::hash(black_box(&sink)))
    });
    let co = registry.get("co").unwrap();
    g.bench_function("score_co_2000_names", |b| {
        b.iter(|| {
            names
                .lines()
                .map(|n| score(co, n, co.expect(n)).f1())
                .sum::<f64>()
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
