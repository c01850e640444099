//! `file:` models at scale: writes a synthetic predictions file of N lines (a two-label
//! classifier), then, in another process, opens it as a `file:` model and measures the open, the
//! lookups of every text from one thread, and the process's peak RSS (VmHWM).
//!
//! ```sh
//! cargo run --release -p capkit-model-adapters --example file_scale -- make 1000000 /tmp/p.jsonl
//! cargo run --release -p capkit-model-adapters --example file_scale -- open /tmp/p.jsonl [CACHE_DIR]
//! ```
//!
//! `open` with a CACHE_DIR opens the model as `capkit profile` does (`open_cached`): run it
//! twice to see the lookup file built, then reused. The peak RSS is one process's, so each
//! measurement is its own run. Only the public API is used, so the same file measures an earlier
//! capkit (which loaded the whole file into memory).

use std::io::{BufWriter, Read as _, Write as _};
use std::path::Path;
use std::time::Instant;

use model_adapters::{ModelSpec, Settings};
use serde_json::json;
use suite_core::Model;

mod measure;

use measure::{cpu_seconds, peak_rss_mib};

const BATCH: usize = 4096;

fn text(i: u64) -> String {
    format!("synthetic text number {i}, long enough to look like a short review")
}

fn make(n: u64, path: &Path) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut out = BufWriter::new(std::fs::File::create(path)?);
    for i in 0..n {
        let label = if i % 2 == 0 { "pos" } else { "neg" };
        writeln!(out, "{}", json!({"text": text(i), "label": label}))?;
    }
    out.flush()?;
    println!("{n} lines, {} bytes", std::fs::metadata(path)?.len());
    Ok(())
}

/// The file's lines, read in chunks (this process's memory is what is measured).
fn count_lines(path: &Path) -> std::io::Result<u64> {
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut lines = 0;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(lines);
        }
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
    }
}

fn open(path: &Path, cache: Option<&Path>) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let lines = count_lines(path)?;
    let spec = ModelSpec::parse(&format!("file:{}", path.display()))?;
    let settings = Settings::default();
    let (t, c) = (Instant::now(), cpu_seconds());
    let model = spec.open_cached(&settings, cache, None)?;
    let (open_s, open_cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
    let rss_open = peak_rss_mib();
    // Every text once (7,919 is prime), in an order unrelated to the file's, made batch by batch
    // (a list of 10 million would weigh in the peak RSS measured).
    let stride = 7_919u64;
    let (t, c) = (Instant::now(), cpu_seconds());
    let mut wrong = 0u64;
    for start in (0..lines).step_by(BATCH) {
        let chunk: Vec<u64> = (start..lines.min(start + BATCH as u64))
            .map(|i| (i * stride) % lines)
            .collect();
        let texts: Vec<String> = chunk.iter().map(|&i| text(i)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let labels = model.predict_batch(&refs)?;
        for (&i, label) in chunk.iter().zip(&labels) {
            let expected = if i % 2 == 0 { "pos" } else { "neg" };
            wrong += u64::from(label != &json!(expected));
        }
    }
    let (look_s, look_cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
    println!("open {open_s:.2} s wall, {open_cpu:.2} s CPU; peak RSS after open {rss_open:.1} MiB");
    println!(
        "{lines} lookups: {look_s:.2} s wall, {look_cpu:.2} s CPU ({:.0}/s wall, {:.0} per CPU s), \
         {wrong} wrong; peak RSS {:.1} MiB",
        lines as f64 / look_s,
        lines as f64 / look_cpu.max(0.01),
        peak_rss_mib()
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["make", n, path] => make(n.parse()?, Path::new(path)),
        ["open", path] => open(Path::new(path), None),
        ["open", path, cache] => open(Path::new(path), Some(Path::new(cache))),
        _ => Err("usage: file_scale make N FILE | file_scale open FILE [CACHE_DIR]".into()),
    }
}
