//! What a corpus holds ([`describe`], [`Stats`]) and which corpus it is ([`Fingerprint`]).

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io::{self, Write};

use crate::Example;
use crate::split::{TEST, TRAIN, VAL};

/// Counts over a corpus.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Number of examples.
    pub examples: usize,
    /// Sum of the expected sets' sizes.
    pub variants: usize,
    /// Number of distinct inputs.
    pub inputs: usize,
    /// Number of distinct tasks (`by_task.len()`).
    pub tasks: usize,
    /// Examples per task id.
    pub by_task: BTreeMap<String, usize>,
    /// Examples per non-empty split value (any string, not only train/val/test).
    pub splits: BTreeMap<String, usize>,
}

/// `9 examples, 3 inputs, 3 tasks, 32 variants [train=6 test=3]`: upstream's text form. The
/// bracket lists train, val and test, in that order, only those present.
impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let splits: Vec<String> = [TRAIN, VAL, TEST]
            .iter()
            .filter_map(|s| self.splits.get(*s).map(|n| format!("{s}={n}")))
            .collect();
        write!(
            f,
            "{} examples, {} inputs, {} tasks, {} variants [{}]",
            self.examples,
            self.inputs,
            self.tasks,
            self.variants,
            splits.join(" ")
        )
    }
}

/// Counts the examples, variants, distinct inputs, tasks and splits of a corpus.
pub fn describe(examples: &[Example]) -> Stats {
    let mut b = StatsBuilder::new();
    for e in examples {
        b.add(&e.task, &e.input, e.expect_set().len(), &e.split);
    }
    b.finish()
}

/// [`describe`] for a corpus that streams past: add each example's facts, then finish.
///
/// Distinct inputs are remembered as 128-bit BLAKE3 digests, not as strings, so memory stays
/// small for very large corpora (a collision would need ~2^64 distinct inputs).
#[derive(Debug, Default)]
pub struct StatsBuilder {
    stats: Stats,
    seen: HashSet<u128>,
    /// The input of the previous example: consecutive examples usually share one, and this
    /// skips re-hashing it.
    last_input: String,
}

impl StatsBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one example's facts.
    pub fn add(&mut self, task: &str, input: &str, variants: usize, split: &str) {
        let s = &mut self.stats;
        s.examples += 1;
        s.variants += variants;
        match s.by_task.get_mut(task) {
            Some(n) => *n += 1,
            None => {
                s.by_task.insert(task.to_owned(), 1);
            }
        }
        if !split.is_empty() {
            match s.splits.get_mut(split) {
                Some(n) => *n += 1,
                None => {
                    s.splits.insert(split.to_owned(), 1);
                }
            }
        }
        if s.examples > 1 && self.last_input == input {
            return;
        }
        input.clone_into(&mut self.last_input);
        let digest = blake3::hash(input.as_bytes());
        let mut first = [0u8; 16];
        first.copy_from_slice(&digest.as_bytes()[..16]);
        self.seen.insert(u128::from_le_bytes(first));
    }

    /// The counts so far.
    pub fn finish(mut self) -> Stats {
        self.stats.inputs = self.seen.len();
        self.stats.tasks = self.stats.by_task.len();
        self.stats
    }
}

/// A corpus's identity: the BLAKE3 hash of its JSONL bytes. Since writing is byte-identical to
/// upstream, the same corpus has the same fingerprint whichever implementation built it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub blake3::Hash);

impl Fingerprint {
    /// The fingerprint of `jsonl` bytes.
    pub fn of(jsonl: &[u8]) -> Self {
        Fingerprint(blake3::hash(jsonl))
    }
}

/// `blake3:<64 hex digits>`.
impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "blake3:{}", self.0.to_hex())
    }
}

/// A writer that fingerprints every byte it passes on.
#[derive(Debug)]
pub struct FingerprintWriter<W> {
    inner: W,
    hasher: blake3::Hasher,
    written: u64,
}

impl<W: Write> FingerprintWriter<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        FingerprintWriter {
            inner,
            hasher: blake3::Hasher::new(),
            written: 0,
        }
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The fingerprint of the bytes written so far.
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint(self.hasher.finalize())
    }

    /// The inner writer back.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for FingerprintWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
