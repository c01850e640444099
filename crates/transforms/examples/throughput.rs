//! Throughput of catalogue transforms: texts per second over a corpus, one JSON line per
//! transform (for `scripts/bench_transforms_vs_nlpaug.py`, which runs nlpaug's counterparts on
//! the same corpus in the same run).
//!
//! ```text
//! cargo run --release -p capkit-transforms --example throughput -- CORPUS NAME PARAMS_JSON [NAME PARAMS_JSON]...
//! ```
//!
//! `CORPUS` has one text per line. Each transform is built once (as a suite builds it), then
//! applied to every text (hashing included, as a profile pays it) until at least half a second
//! of this thread's CPU time has passed; the figure is texts / CPU seconds of those passes (CPU
//! time, not wall time: the neighbours' load on a shared machine does not count). A second
//! figure, `shared_hash_texts_per_s`, is the same with each text's blake3 hash computed once
//! beforehand, as a profile does (one hash per text shared by every seeded stage).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use cpu_time::ThreadTime;

use serde_json::{Map, Value, json};
use suite_core::{TextHash, Transform};
use transforms::Catalogue;

/// Texts per CPU second of `f` over passes of `n` texts, for at least half a second.
fn rate(n: usize, mut f: impl FnMut() -> usize) -> (f64, usize) {
    let (mut done, mut bytes) = (0usize, 0usize);
    let start = ThreadTime::now();
    while start.elapsed() < Duration::from_millis(500) {
        bytes += f();
        done += n;
    }
    (done as f64 / start.elapsed().as_secs_f64(), bytes)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 || args.len().is_multiple_of(2) {
        eprintln!("usage: throughput CORPUS NAME PARAMS_JSON [NAME PARAMS_JSON]...");
        std::process::exit(2);
    }
    let corpus = std::fs::read_to_string(&args[0]).expect("read the corpus");
    let texts: Vec<&str> = corpus.lines().collect();
    for pair in args[1..].chunks(2) {
        let params: Map<String, Value> = serde_json::from_str(&pair[1]).expect("params JSON");
        let transform = Catalogue::standard()
            .build(&pair[0], &params)
            .unwrap_or_else(|e| panic!("{e}"))
            .transform;
        let hashes: Vec<TextHash> = texts.iter().map(|t| TextHash::of(t)).collect();
        let apply = |t: &Transform| texts.iter().map(|x| t.apply(x).len()).sum();
        let (per_s, bytes) = rate(texts.len(), || apply(&transform));
        let (shared, _) = rate(texts.len(), || {
            texts
                .iter()
                .zip(&hashes)
                .map(|(x, h)| transform.apply_with_hash(x, h).len())
                .sum()
        });
        println!(
            "{}",
            json!({"transform": pair[0], "params": params, "texts_per_s": per_s,
                   "shared_hash_texts_per_s": shared, "output_bytes": bytes})
        );
    }
}
