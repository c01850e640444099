//! The name corpus `emit` reads: one name per line, taken verbatim.

use std::fs::File;
use std::io::{BufRead, BufReader, Read as _};
use std::path::Path;

use anyhow::Context as _;
use typo_tasks::NameSource;

use super::display;

/// The embedded default corpus: real, well-known domain names across categories and countries,
/// IDNs included, curated for capkit (`crates/capkit/data/domains.txt`).
pub(crate) const DEFAULT_CORPUS: &str = include_str!("../../data/domains.txt");

/// A stream of names. Lines end at `\n` or `\r\n` (see [`crate::lines`]) and nothing else is
/// trimmed; empty lines give no name. A line that is not UTF-8, or longer than the maximum name
/// length, is an error naming the file and line (reading stops there: an endless line is never
/// held in memory).
pub(crate) struct Names {
    reader: Box<dyn BufRead + Send>,
    label: String,
    line: usize,
    buf: Vec<u8>,
    max_len: usize,
    /// Names read so far.
    pub(crate) count: usize,
    /// Total bytes, when known, for progress.
    pub(crate) total_bytes: u64,
}

impl Names {
    /// Opens `--corpus FILE`, or the embedded default; names longer than `max_len` bytes are
    /// refused.
    pub(crate) fn open(path: Option<&Path>, max_len: usize) -> anyhow::Result<Names> {
        let (reader, label, total_bytes): (Box<dyn BufRead + Send>, String, u64) = match path {
            None => (
                Box::new(DEFAULT_CORPUS.as_bytes()),
                "(embedded domains.txt)".to_owned(),
                DEFAULT_CORPUS.len() as u64,
            ),
            Some(p) => {
                let file = File::open(p).with_context(|| format!("{}: cannot read", display(p)))?;
                let total = file.metadata().map(|m| m.len()).unwrap_or(0);
                (
                    Box::new(BufReader::with_capacity(1 << 16, file)),
                    display(p),
                    total,
                )
            }
        };
        Ok(Names {
            reader,
            label,
            line: 0,
            buf: Vec::new(),
            max_len,
            count: 0,
            total_bytes,
        })
    }

    /// Reads the whole corpus once, checking every line: lets a caller that streams straight to
    /// stdout refuse a bad corpus before writing anything.
    pub(crate) fn check_all(mut self) -> anyhow::Result<()> {
        let mut chunk = Vec::new();
        loop {
            chunk.clear();
            if self.next_chunk(4096, u64::MAX, &|_| 0, &mut chunk)? == 0 {
                return Ok(());
            }
        }
    }

    /// The corpus name for messages.
    pub(crate) fn label(&self) -> &str {
        &self.label
    }
}

/// The corpus file as the harness's emitter reads it (progress in bytes read).
impl NameSource for Names {
    type Error = anyhow::Error;

    /// Appends `(line number, name)` pairs to `out` until it holds `max` names or their
    /// `weight`s (estimated output bytes) reach `budget` (at least one name is always taken);
    /// returns the bytes consumed (0 at the end).
    fn next_chunk(
        &mut self,
        max: usize,
        budget: u64,
        weight_of: &dyn Fn(&str) -> u64,
        out: &mut Vec<(usize, String)>,
    ) -> anyhow::Result<u64> {
        let mut consumed = 0u64;
        let mut weight = 0u64;
        while out.len() < max && weight < budget {
            self.buf.clear();
            // At most the longest allowed name and its `\r\n`: a longer line is refused unread.
            let limit = u64::try_from(self.max_len)
                .unwrap_or(u64::MAX)
                .saturating_add(2);
            let n = (&mut self.reader)
                .take(limit)
                .read_until(b'\n', &mut self.buf)
                .with_context(|| format!("{}: line {}: cannot read", self.label, self.line + 1))?;
            if n == 0 {
                break;
            }
            consumed += n as u64;
            self.line += 1;
            let line = runner::texts::strip_line_break(&self.buf);
            if line.len() > self.max_len || (n as u64 == limit && !self.buf.ends_with(b"\n")) {
                anyhow::bail!(
                    "{}: line {}: name longer than {} bytes (the maximum name length; DNS names have at most 253); raise it with --max-name-len, knowing that output and memory per name grow with the square of its length",
                    self.label,
                    self.line,
                    self.max_len
                );
            }
            if line.is_empty() {
                continue;
            }
            let name = match std::str::from_utf8(line) {
                Ok(name) => name.to_owned(),
                Err(e) => {
                    let at = e.valid_up_to();
                    let byte = line.get(at).copied().unwrap_or(0);
                    anyhow::bail!(
                        "{}: line {}: not valid UTF-8 (byte 0x{byte:02x} at column {}); corpus names must be UTF-8 text",
                        self.label,
                        self.line,
                        at + 1
                    );
                }
            };
            self.count += 1;
            weight = weight.saturating_add(weight_of(&name));
            out.push((self.line, name));
        }
        Ok(consumed)
    }
}
