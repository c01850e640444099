//! `cargo run --release -p capkit-slices --example scan -- LEDGER.jsonl [MIN_SUPPORT]`: the
//! library over a ledger file, with its wall time and a one-line summary per stage on stderr
//! (the benchmark of docs/reports.md's "Slices"; measure CPU and peak RSS with
//! `/usr/bin/time -v`).

use std::fs::File;
use std::io::BufReader;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: scan LEDGER.jsonl [MIN_SUPPORT]")?;
    let min_support = match args.next() {
        Some(n) => n.parse()?,
        None => 20,
    };
    let options = slices::Options {
        min_support,
        ..slices::Options::default()
    };
    let start = Instant::now();
    let report = slices::find_slices(|| File::open(&path).map(BufReader::new), &path, &options)?;
    eprintln!(
        "{} texts, {} candidates, {} conjunctions, {} tests in {:.2?}",
        report.texts,
        report.candidates,
        report.conjunctions,
        report.tested,
        start.elapsed()
    );
    for ((stage, total), (_, shown)) in report.totals.0.iter().zip(&report.stages.0) {
        let top = shown.first().map_or("-", |s| s.name.as_str());
        eprintln!(
            "{stage}: {} lines, {} significant, {} shown, first {top}",
            total.lines,
            total.significant,
            shown.len()
        );
    }
    Ok(())
}
