//! Runs workload A (docs/performance.md#workloads) and prints each run's CPU time from `/proc/thread-self/schedstat`
//! (Linux), which a busy machine does not inflate the way it inflates wall time, and the growth
//! of the process's peak RSS since the texts were built (`/proc/self/status` VmHWM):
//! `cargo run --release -p capkit-capture --example workload_a_cpu [RUNS]`. The criterion bench
//! (`benches/workload_a.rs`) is the reference measurement.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../benches/support/mod.rs"]
mod support;

use capture::capture_profile;
use scenario_rules::{peak_rss_mb, thread_cpu_ns};
use support::{check, models, suite, texts};

fn main() {
    let (texts, suite, (student, teacher)) = (texts(), suite(), models());
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let before = peak_rss_mb();
    for _ in 0..runs {
        let t0 = thread_cpu_ns();
        let p = capture_profile(&student, &teacher, &texts, &suite).unwrap();
        let t1 = thread_cpu_ns();
        check(&p);
        println!(
            "capture_profile cpu {:.1} ms added_peak_rss {:.1} MB",
            (t1 - t0) as f64 / 1e6,
            peak_rss_mb() - before
        );
    }
}
