//! The prediction cache at scale: fills a cache with N synthetic answers (a two-label classifier,
//! batches of 4,096 as a profile sends them), then measures opening it, lookups of stored texts
//! from one thread, the bytes per answer on disk and the process's peak RSS.
//!
//! ```sh
//! cargo run --release -p capkit-model-adapters --example cache_scale -- 10000000 /path/to/dir
//! ```
//!
//! An existing cache in DIR with at least N answers is reused (nothing is inserted), so the
//! lookups can be measured again on a warm or a cold page cache.

use std::time::Instant;

use model_adapters::{Cached, cache_admin};
use serde_json::json;
use suite_core::{Model, PerItemFn};

const BATCH: usize = 4096;

fn text(i: u64) -> String {
    format!("synthetic text number {i}, long enough to look like a short review")
}

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).map(str::to_owned))
        })
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().as_deref().unwrap_or("1000000").parse()?;
    let dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| "cache-scale".into()));
    let model = PerItemFn::new(|t: &str| {
        json!(if t.len().is_multiple_of(2) {
            "pos"
        } else {
            "neg"
        })
    });
    let identity = "classify\0cmd\0[\"scale\"]";

    let have = cache_admin::stats(&dir).map(|s| s.answers).unwrap_or(0);
    if have < n {
        let started = Instant::now();
        let cached = Cached::new(&model, &dir, identity);
        let mut batch: Vec<String> = Vec::with_capacity(BATCH);
        let mut i = have;
        while i < n {
            batch.clear();
            batch.extend((i..n.min(i + BATCH as u64)).map(text));
            let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
            cached.predict_batch(&refs)?;
            i += refs.len() as u64;
        }
        if let Some(w) = cached.take_warning() {
            return Err(w.into());
        }
        let secs = started.elapsed().as_secs_f64();
        println!(
            "filled {} answers in {secs:.1} s ({:.0} answers/s)",
            n - have,
            (n - have) as f64 / secs
        );
    }
    let stats = cache_admin::stats(&dir)?;
    println!(
        "cache {}: {} answers, {:.1} MiB, {:.1} bytes per answer",
        stats.path.display(),
        stats.answers,
        stats.bytes as f64 / (1024.0 * 1024.0),
        stats.bytes as f64 / stats.answers.max(1) as f64
    );

    let started = Instant::now();
    let cached = Cached::new(&model, &dir, identity);
    println!(
        "opened in {:.1} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );

    // Lookups of stored texts spread over the whole key range, one thread, in profile-sized
    // batches; the texts are made before the clock starts.
    let lookups: u64 = 1_000_000.min(n);
    let stride = (n / lookups).max(1);
    let texts: Vec<String> = (0..lookups).map(|j| text(j * stride)).collect();
    let started = Instant::now();
    for chunk in texts.chunks(BATCH) {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        cached.predict_shared(&refs)?;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} lookups ({} hits, {} misses) in {secs:.2} s: {:.0} lookups/s",
        lookups,
        cached.hits(),
        cached.misses(),
        lookups as f64 / secs
    );
    println!("peak RSS {:.1} MiB", peak_rss_mib());
    Ok(())
}
