//! Generating all 22 tasks' expected sets over `bench_domains2000.txt` with `data.json` (typo-tasks'
//! upstream fixtures, their one copy)
//! (upstream Go: 36,658 non-empty examples, 2,293,745 variants, 2.55 s single-threaded).
//!
//! `cargo bench -p capkit-typo-generators --bench generate -- --warm-up-time 1 --measurement-time 3`
//! runs the total (`generate/all_22`) and one group per task (`per_task/<id>`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use typo_generators::{Data, Registry};

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../typo-tasks/tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn setup() -> (Registry, Vec<String>) {
    let data = Data::from_json_str(&fixture("data.json")).unwrap();
    let registry = Registry::new(&data);
    assert_eq!(registry.len(), 22);
    let names: Vec<String> = fixture("bench_domains2000.txt")
        .split('\n')
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    assert_eq!(names.len(), 2_000);
    // Same counts as upstream, or the timing compares different work.
    let (mut examples, mut variants) = (0usize, 0usize);
    for name in &names {
        for task in &registry {
            let set = task.expect(name);
            if !set.is_empty() {
                examples += 1;
                variants += set.len();
            }
        }
    }
    assert_eq!((examples, variants), (36_658, 2_293_745));
    (registry, names)
}

fn bench(c: &mut Criterion) {
    let (registry, names) = setup();
    c.bench_function("generate/all_22", |b| {
        b.iter(|| {
            let mut variants = 0usize;
            for name in &names {
                for task in &registry {
                    variants += black_box(task.expect(name)).len();
                }
            }
            variants
        })
    });
    let mut group = c.benchmark_group("per_task");
    for task in &registry {
        group.bench_function(task.id, |b| {
            b.iter(|| {
                let mut variants = 0usize;
                for name in &names {
                    variants += black_box(task.expect(name)).len();
                }
                variants
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
