//! Runs PERF.md workload A a few times and prints the CPU time of each run, read from
//! `/proc/thread-self/schedstat` (Linux), so the figure does not depend on what else the machine
//! is doing. `cargo run --release -p capture --example workload_a_cpu`. The criterion bench
//! (`benches/workload_a.rs`) is the reference measurement; this is for profiling on a busy box.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use capture::capture_profile;
use serde_json::json;
use suite_core::{
    BatchFn, CapabilitySuite, PerItemFn, case_jitter_invariance, keyboard_typo_corruption,
    whitespace_invariance,
};

fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    const W: [&str; 5] = ["good", "bad", "great", "awful", "fine"];
    let texts: Vec<String> = (0..100_000)
        .map(|i| {
            format!(
                "sample {i}: the service was {} and the food was {} overall",
                W[i % 5],
                W[(i * 7) % 5]
            )
        })
        .collect();
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
    let student = PerItemFn::new(|_: &str| json!("pos"));
    let teacher = BatchFn::new(|ts: &[&str]| vec![json!("pos"); ts.len()]);
    let typos: Vec<_> = suite.corruptions().map(|(_, t)| t.clone()).collect();
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    for _ in 0..runs {
        let t0 = cpu_ns();
        let p = capture_profile(&student, &teacher, &texts, &suite).unwrap();
        let t1 = cpu_ns();
        let mut n = 0;
        for t in typos.iter().filter(|_| std::env::args().nth(2).is_none()) {
            for text in &texts {
                n += t.apply(text).len();
            }
        }
        let t2 = cpu_ns();
        assert_eq!(p.clean_agreement, 1.0);
        println!(
            "capture_profile cpu {:.1} ms; typo corruptions alone {:.1} ms ({n} bytes)",
            (t1 - t0) as f64 / 1e6,
            (t2 - t1) as f64 / 1e6
        );
    }
}
