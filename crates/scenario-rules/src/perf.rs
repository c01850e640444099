//! The suite of workloads A and B (docs/performance.md#workloads), and CPU time for profiling on
//! a busy machine.

use suite_core::{
    CapabilitySuite, case_jitter_invariance, keyboard_typo_corruption, whitespace_invariance,
};

/// The suite of workloads A and B (docs/performance.md#workloads): `typo_05`, `typo_10`,
/// `typo_20`, `typo_40` (seed 0), then `case` and `space`; with `probes`, its ten probes too.
#[allow(clippy::expect_used)]
pub fn workload_suite(probes: bool) -> CapabilitySuite {
    let mut suite = CapabilitySuite::new();
    for (name, rate) in [
        ("typo_05", 0.05),
        ("typo_10", 0.1),
        ("typo_20", 0.2),
        ("typo_40", 0.4),
    ] {
        suite.add_corruption(name, keyboard_typo_corruption(rate, 0).expect("valid rate"));
    }
    suite.add_invariance("case", case_jitter_invariance());
    suite.add_invariance("space", whitespace_invariance());
    if probes {
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
    }
    suite
}

/// CPU time of the calling thread in nanoseconds, from `/proc/thread-self/schedstat` (Linux;
/// 0 elsewhere). Unlike wall time, other processes on the machine do not inflate it.
pub fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// This process's peak resident set size so far, in MB (`VmHWM` of `/proc/self/status`; 0 where
/// there is none).
pub fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}
