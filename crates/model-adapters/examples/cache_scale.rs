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
//!
//! With `--sealed` (after DIR) the lookups are measured twice in one run: from the database,
//! then after `cache compact` has sealed the answers into a segment, from the segment (the
//! compaction's time is printed too). A cache already sealed is measured from its segment only.
//! A sealed run ends with the floor under a segment lookup on this machine: the CPU time of one
//! positioned 1 KiB read of the segment alone, at random pages and at one page.
//!
//! With `--bulk` (after DIR) the synthetic answers are written straight into the store's table
//! in key order, in transactions of a million rows, instead of through [`Cached`] as a profile
//! writes them: the same rows (same keys, labels and model), so the lookups that follow hit
//! them, but a 100-million-answer cache fills in minutes rather than hours.

use std::time::Instant;

use model_adapters::{Cached, DATABASE, answer_key, cache_admin};
use rusqlite::params;
use serde_json::json;
use suite_core::{Model, PerItemFn};

mod measure;

use measure::{cpu_seconds, peak_rss_mib};

const BATCH: usize = 4096;

fn text(i: u64) -> String {
    format!("synthetic text number {i}, long enough to look like a short review")
}

/// The synthetic model's answer to `text` (what `main`'s `PerItemFn` says).
fn label(text: &str) -> &'static str {
    if text.len().is_multiple_of(2) {
        "pos"
    } else {
        "neg"
    }
}

/// Writes the answers of texts `have..n` into the store directly (see the module doc).
fn bulk_fill(
    dir: &std::path::Path,
    identity: &str,
    have: u64,
    n: u64,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut conn = rusqlite::Connection::open(dir.join(DATABASE))?;
    conn.pragma_update(None, "synchronous", "OFF")?;
    let model: i64 = conn.query_row(
        "SELECT id FROM models WHERE identity = ?1",
        params![identity],
        |r| r.get(0),
    )?;
    let mut keys: Vec<([u8; 32], bool)> = (have..n)
        .map(|i| {
            let t = text(i);
            (answer_key(identity, &t), label(&t) == "pos")
        })
        .collect();
    keys.sort_unstable();
    for rows in keys.chunks(1_000_000) {
        let tx = conn.transaction()?;
        {
            let mut st = tx.prepare_cached(
                "INSERT OR IGNORE INTO answers(k, model, label, decision) VALUES (?1, ?2, ?3, NULL)",
            )?;
            for (key, pos) in rows {
                st.execute(params![
                    &key[..],
                    model,
                    if *pos { "\"pos\"" } else { "\"neg\"" }
                ])?;
            }
        }
        tx.commit()?;
    }
    Ok(())
}

/// The floor under a segment lookup on this machine: the CPU cost of the one positioned read it
/// makes, with nothing else around it. Reads 1 KiB (a page) at a million random page offsets of
/// the largest segment, then a million times at offset 0 (the same page, always in the CPU's
/// caches: the system call alone).
#[cfg(unix)]
fn read_floor(dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use std::os::unix::fs::FileExt as _;
    let Some(path) = std::fs::read_dir(dir.join("segments"))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .max_by_key(|p| p.metadata().map_or(0, |m| m.len()))
    else {
        return Ok(());
    };
    let file = std::fs::File::open(&path)?;
    let pages = (file.metadata()?.len() / 1024).max(1);
    let mut buf = [0u8; 1024];
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for (what, random) in [("a random page", true), ("one page again", false)] {
        let cpu_started = cpu_seconds();
        for _ in 0..1_000_000 {
            // xorshift: a cheap spread of offsets.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let page = if random { state % pages } else { 0 };
            file.read_exact_at(&mut buf, page * 1024)?;
        }
        let cpu = cpu_seconds() - cpu_started;
        println!(
            "floor: a million 1 KiB positioned reads of {what} of the segment: {cpu:.2} s CPU, \
             {:.0} ns each",
            cpu * 1000.0
        );
    }
    Ok(())
}

#[cfg(not(unix))]
fn read_floor(_: &std::path::Path) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().as_deref().unwrap_or("1000000").parse()?;
    let dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| "cache-scale".into()));
    let flags: Vec<String> = args.collect();
    let bulk = flags.iter().any(|f| f == "--bulk");
    let sealed = flags.iter().any(|f| f == "--sealed");
    let model = PerItemFn::new(|t: &str| json!(label(t)));
    let identity = "classify\0cmd\0[\"scale\"]";

    let have = cache_admin::stats(&dir).map(|s| s.answers).unwrap_or(0);
    if have < n {
        let started = Instant::now();
        let cpu_started = cpu_seconds();
        let cached = Cached::new(&model, &dir, identity);
        if let Some(w) = cached.take_warning() {
            return Err(w.into());
        }
        if bulk {
            drop(cached);
            bulk_fill(&dir, identity, have, n)?;
        } else {
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
        }
        let secs = started.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu_started;
        println!(
            "filled {} answers in {secs:.1} s wall, {cpu:.1} s CPU ({:.0} answers/s, {:.0} per CPU \
             second)",
            n - have,
            (n - have) as f64 / secs,
            (n - have) as f64 / cpu.max(0.01)
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

    // Lookups of stored texts spread over the whole key range, one thread, in profile-sized
    // batches; the texts are made before the clock starts.
    let lookups: u64 = 1_000_000.min(n);
    let stride = (n / lookups).max(1);
    let texts: Vec<String> = (0..lookups).map(|j| text(j * stride)).collect();
    let measure = |from: &str| -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let started = Instant::now();
        let cached = Cached::new(&model, &dir, identity);
        println!(
            "opened in {:.1} ms",
            started.elapsed().as_secs_f64() * 1000.0
        );
        let started = Instant::now();
        let cpu_started = cpu_seconds();
        for chunk in texts.chunks(BATCH) {
            let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
            cached.predict_shared(&refs)?;
        }
        let secs = started.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu_started;
        println!(
            "{from}: {} lookups ({} hits, {} misses) in {secs:.2} s wall, {cpu:.2} s CPU: {:.0} \
             lookups/s, {:.0} per CPU second",
            lookups,
            cached.hits(),
            cached.misses(),
            lookups as f64 / secs,
            lookups as f64 / cpu.max(0.01)
        );
        Ok(())
    };
    if stats.format != model_adapters::SEALED_FORMAT {
        measure("database")?;
    }
    if sealed || stats.format == model_adapters::SEALED_FORMAT {
        if stats.format != model_adapters::SEALED_FORMAT {
            let started = Instant::now();
            let cpu_started = cpu_seconds();
            let (before, after) = cache_admin::compact(&dir)?;
            println!(
                "compacted in {:.1} s wall, {:.1} s CPU: {:.1} MiB -> {:.1} MiB, {:.1} bytes per \
                 answer",
                started.elapsed().as_secs_f64(),
                cpu_seconds() - cpu_started,
                before as f64 / (1024.0 * 1024.0),
                after as f64 / (1024.0 * 1024.0),
                after as f64 / stats.answers.max(1) as f64
            );
        }
        measure("sealed segment")?;
    }
    if sealed || stats.format == model_adapters::SEALED_FORMAT {
        read_floor(&dir)?;
    }
    println!("peak RSS {:.1} MiB", peak_rss_mib());
    Ok(())
}
