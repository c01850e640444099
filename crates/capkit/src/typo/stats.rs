//! `capkit typo stats`: what a JSONL corpus holds, and its fingerprint.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::PathBuf;

use anyhow::Context as _;
use typo_tasks::{Fingerprint, JsonlReader, Needs, StatsBuilder, task_info};

use super::{display, needs_heading};
use crate::stdout::Lines;

/// Arguments of `capkit typo stats`.
#[derive(Debug, clap::Args)]
pub(crate) struct StatsArgs {
    /// The JSONL corpus (as `capkit typo emit` writes it).
    #[arg(value_name = "CORPUS")]
    corpus: PathBuf,
}

/// A reader that fingerprints every byte read through it.
struct HashingReader<R> {
    inner: R,
    hasher: blake3::Hasher,
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// Runs `capkit typo stats`.
pub(crate) fn run(args: &StatsArgs) -> anyhow::Result<()> {
    let label = display(&args.corpus);
    let file = File::open(&args.corpus).with_context(|| format!("{label}: cannot read"))?;
    let mut hashing = HashingReader {
        inner: file,
        hasher: blake3::Hasher::new(),
    };
    let mut stats = StatsBuilder::new();
    for item in JsonlReader::new(BufReader::with_capacity(1 << 16, &mut hashing)) {
        let (_, e) = item.map_err(|e| anyhow::anyhow!("{label}: {e}"))?;
        stats.add(&e.task, &e.input, e.expect_set().len(), &e.split);
    }
    let fingerprint = Fingerprint(hashing.hasher.finalize());
    let stats = stats.finish();
    if stats.examples == 0 {
        eprintln!("capkit: warning: {label}: the corpus has no examples");
    }
    let mut out = Lines::default();
    out.line(super::stats_line(&stats));
    out.line(format_args!("fingerprint {fingerprint}"));
    // Rules and tables apart: one line per needs group, tasks the catalogue lacks on their own.
    let mut groups: BTreeMap<Option<Needs>, Vec<String>> = BTreeMap::new();
    for (task, n) in &stats.by_task {
        let needs = task_info(task).map(|t| t.needs);
        groups.entry(needs).or_default().push(format!("{task}={n}"));
    }
    for (needs, counts) in &groups {
        let heading = needs
            .map(needs_heading)
            .unwrap_or("unknown task ids (not in the catalogue)");
        out.line(format_args!("{heading}: {}", counts.join(" ")));
    }
    out.print()
}
