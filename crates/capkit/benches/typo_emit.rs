//! The whole main-job command, as a process, over the 2,000-name bench corpus:
//! `capkit typo emit --corpus bench_domains2000.txt --tasks all --no-split
//! --drop-unrepresentable --out /tmp/…` (embedded English data, both cores).
//!
//! Run with `cargo bench -p capkit --bench typo_emit` (it builds the release binary). For peak
//! RSS, see the `/usr/bin/time -v` commands in `docs/performance.md` ("capkit typo emit").
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../typo-tasks/tests/fixtures/bench_domains2000.txt");
    let out = std::env::temp_dir().join("capkit-bench-typo-emit.jsonl");
    let mut g = c.benchmark_group("capkit_typo_emit");
    g.sample_size(10);
    g.bench_function("bench_domains2000_all_tasks", |b| {
        b.iter(|| {
            let status = Command::new(env!("CARGO_BIN_EXE_capkit"))
                .args(["typo", "emit", "--corpus"])
                .arg(&corpus)
                .args([
                    "--tasks",
                    "all",
                    "--no-split",
                    "--drop-unrepresentable",
                    "--out",
                ])
                .arg(&out)
                .stderr(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(status.success());
        });
    });
    g.finish();
    let _ = std::fs::remove_file(&out);
}

criterion_group!(benches, bench);
criterion_main!(benches);
