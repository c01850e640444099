//! Memory and CPU of a classifier profile against the number of texts, in process:
//! `cargo run --release -p capkit-capture --example scaling -- N [CHUNK] [LEDGER]`.
//!
//! With a third argument, the run also writes its per-text ledger there (`/dev/null` measures
//! the ledger's memory and CPU without the disk: at 10 million texts and seven stages a real
//! ledger is some 20 GB).
//!
//! Profiles N mostly distinct texts (workload A's sentence with its number `i`, so every text is
//! new; every 10th text repeats an earlier one) under the workloads' suite and constant shared-label
//! models, the texts generated a chunk at a time and handed to `CaptureRun::add`, so the only
//! memory that grows with N is the profile's own. Prints one line of `key=value`: texts, CPU
//! seconds, CPU µs per text, peak RSS before the profile and at its end (MB, from
//! `/proc/self/status`). `scripts/profile_scaling.sh` runs it for 10k to 10M texts.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../benches/support/mod.rs"]
mod support;

use capture::CaptureRun;
use scenario_rules::{peak_rss_mb, thread_cpu_ns};
use support::{models, suite};

fn text(i: usize) -> String {
    const W: [&str; 5] = ["good", "bad", "great", "awful", "fine"];
    // Every 10th text repeats one from earlier (a clean text seen in an earlier chunk).
    let i = if i % 10 == 9 { i / 2 } else { i };
    format!(
        "sample {i}: the service was {} and the food was {} overall",
        W[i % 5],
        W[(i * 7) % 5]
    )
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let chunk: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(suite_core::DEFAULT_CHUNK_SIZE);
    let ledger_path = args.next();
    let (suite, (student, teacher)) = (suite(), models());
    let mut ledger = ledger_path
        .as_ref()
        .map(|p| std::io::BufWriter::new(std::fs::File::create(p).unwrap()));
    let before = peak_rss_mb();
    let t0 = thread_cpu_ns();
    let mut run = CaptureRun::new(&student, &teacher, &suite)
        .unwrap()
        .with_chunk_size(chunk);
    if let Some(l) = ledger.as_mut() {
        run = run.with_ledger(l);
    }
    let mut start = 0;
    while start < n {
        let end = (start + chunk).min(n);
        let texts: Vec<String> = (start..end).map(text).collect();
        run.add(&texts).unwrap();
        start = end;
    }
    let profile = run.profile().unwrap();
    let cpu = (thread_cpu_ns() - t0) as f64 / 1e9;
    support::check(&profile);
    println!(
        "texts={n} chunk={chunk} ledger={} cpu_s={cpu:.3} cpu_us_per_text={:.3} rss_before_mb={before:.1} peak_rss_mb={:.1}",
        ledger_path.as_deref().unwrap_or("none"),
        cpu * 1e6 / n.max(1) as f64,
        peak_rss_mb()
    );
}
