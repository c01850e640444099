//! The streaming parallel emitter: a whole corpus as JSONL, in bounded memory, on every core.
//!
//! The corpus streams through in chunks of names: each chunk is generated and encoded in
//! parallel (rayon, runs of [`BLOCK`] names per task, each run into one buffer that the writer
//! hands back for reuse, and one set buffer per run for every task's answer), then written in
//! corpus order by a writer thread, so memory is bounded by one chunk and the bytes are exactly
//! those of a single-threaded run ([`emit`](crate::emit), [`assign`](crate::assign) and
//! [`write_jsonl`](crate::write_jsonl) over the same names). `capkit typo emit` is this
//! function over a corpus file; callers with the names in memory use [`NameList`].

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Mutex, mpsc};

use rayon::prelude::*;

use crate::{
    ExampleRef, Fingerprint, FingerprintWriter, HarnessError, Splitter, Stats, StatsBuilder, Task,
    encode_example_ref,
};

/// Names generated and encoded per parallel batch: big enough to keep both cores busy, small
/// enough that a batch's output (a few MB) bounds memory.
const CHUNK: usize = 256;

/// Estimated output bytes per chunk (see [`name_estimate`]): chunks of long or numeral-dense
/// names hold fewer names, so memory stays bounded whatever the names.
const CHUNK_BUDGET: u64 = 32 << 20;

/// Names encoded by one parallel task: a run of consecutive names, their JSONL in one buffer.
const BLOCK: usize = 8;

/// Encoded blocks of buffers bigger than this are not kept for reuse (a name of the worst kind
/// writes tens of MB; memory goes back to the allocator with it).
const KEEP_BUFFER: usize = 8 << 20;

/// A corpus of names, read in corpus order a chunk at a time.
pub trait NameSource {
    /// What reading the names can fail with (a bad line of a corpus file, say).
    type Error;

    /// Appends `(line number, name)` pairs to `out` until it holds `max` names or their
    /// `weight_of`s (estimated output bytes) reach `budget` (at least one name is always
    /// taken); returns the progress made in the source's own unit (bytes read, names, …),
    /// 0 at the end. Empty names are the source's to skip.
    fn next_chunk(
        &mut self,
        max: usize,
        budget: u64,
        weight_of: &dyn Fn(&str) -> u64,
        out: &mut Vec<(usize, String)>,
    ) -> Result<u64, Self::Error>;
}

/// Names held in memory, as a [`NameSource`]: line numbers count from 1 in the list, `""` is
/// skipped (as [`emit`](crate::emit) skips it), and progress is counted in names.
#[derive(Debug, Clone)]
pub struct NameList<'a> {
    names: &'a [String],
    next: usize,
}

impl<'a> NameList<'a> {
    /// The names of `names`, in order.
    pub fn new(names: &'a [String]) -> Self {
        NameList { names, next: 0 }
    }
}

impl NameSource for NameList<'_> {
    type Error = std::convert::Infallible;

    fn next_chunk(
        &mut self,
        max: usize,
        budget: u64,
        weight_of: &dyn Fn(&str) -> u64,
        out: &mut Vec<(usize, String)>,
    ) -> Result<u64, Self::Error> {
        let start = self.next;
        let mut weight = 0u64;
        while out.len() < max && weight < budget {
            let Some(name) = self.names.get(self.next) else {
                break;
            };
            self.next += 1;
            if name.is_empty() {
                continue;
            }
            weight = weight.saturating_add(weight_of(name));
            out.push((self.next, name.clone()));
        }
        Ok((self.next - start) as u64)
    }
}

/// What every name of a streamed corpus shares.
#[derive(Debug, Clone, Copy)]
pub struct StreamOptions<'a> {
    /// The tasks, in the order their examples follow each name.
    pub tasks: &'a [&'a Task],
    /// Provenance written into every example.
    pub source: &'a str,
    /// The split of each name, or none (the `split` field left out).
    pub splitter: Option<&'a Splitter>,
    /// Also emit (name, task) pairs whose expected set is empty (`"expect":null`).
    pub with_empty: bool,
    /// Leave out examples JSONL cannot carry (and count them) instead of refusing the corpus.
    pub drop_unrepresentable: bool,
}

/// A corpus written by [`write_jsonl_stream`].
#[derive(Debug)]
pub struct Streamed<W> {
    /// The writer, every byte written to it (not flushed beyond what writing did).
    pub out: W,
    /// The fingerprint of the bytes written.
    pub fingerprint: Fingerprint,
    /// What the corpus holds.
    pub stats: Stats,
    /// Examples left out as unrepresentable, per task id.
    pub dropped: BTreeMap<&'static str, usize>,
}

/// Why [`write_jsonl_stream`] stopped. Whatever was written before is the caller's to discard
/// (write to a temporary file and keep it only on success).
#[derive(Debug, thiserror::Error)]
pub enum StreamError<E> {
    /// The name source failed.
    #[error("{0}")]
    Names(E),
    /// An example JSONL cannot carry, without `drop_unrepresentable`: the name's line and why.
    #[error("line {line}: {error}")]
    Refused {
        /// The line (as the source numbers it) of the name.
        line: usize,
        /// The refusal.
        error: HarnessError,
    },
    /// Writing failed.
    #[error("cannot write: {0}")]
    Write(#[source] std::io::Error),
    /// The writer thread panicked.
    #[error("the writer thread panicked")]
    WriterPanicked,
}

/// An upper estimate of the JSONL bytes `name` gives with these tasks: each task's estimate of
/// its expected set ([`Task::output_estimate`], which also bounds the set's own memory), plus the
/// rest of each line (the name and source, escaped at worst, and the rest). A name of the worst
/// kind (253 bytes with 17 or more numerals, see the generators' `limits`) is estimated above
/// the whole budget, so it forms a chunk of its own: memory then is that one name's output
/// (about 80 MB of variants and as much JSONL for `cns`/`ons`).
fn name_estimate(tasks: &[&Task], name: &str, source: &str) -> u64 {
    let line = 6 * (name.len() as u64 + source.len() as u64) + 64;
    tasks
        .iter()
        .map(|t| t.output_estimate(name).saturating_add(line))
        .fold(0u64, u64::saturating_add)
}

/// The encoded output of a run of consecutive names.
#[derive(Default)]
struct Block {
    bytes: Vec<u8>,
    /// `(line, split)` of each name, in order.
    names: Vec<(usize, &'static str)>,
    /// `(name index in the block, task index, variants)` of every example written.
    facts: Vec<(usize, usize, usize)>,
    /// Task index of every example dropped as unrepresentable.
    dropped: Vec<usize>,
    /// The first refused example (the block stops there): `(line, error)`.
    refused: Option<(usize, HarnessError)>,
}

impl StreamOptions<'_> {
    /// Encodes `names` into `block` (whose buffer is empty), stopping at a refusal.
    fn encode(&self, names: &[(usize, String)], block: &mut Block) {
        // One set buffer for every (name, task) of the block.
        let mut expect = Vec::new();
        for (line, name) in names {
            let split = self.splitter.map(|s| s.split_of(name)).unwrap_or("");
            let at = block.names.len();
            block.names.push((*line, split));
            for (i, task) in self.tasks.iter().enumerate() {
                task.expect_into(name, &mut expect);
                if expect.is_empty() && !self.with_empty {
                    continue;
                }
                let example = ExampleRef {
                    task: task.id,
                    input: name,
                    expect: (!expect.is_empty()).then_some(expect.as_slice()),
                    split,
                    source: self.source,
                };
                match encode_example_ref(&example, &mut block.bytes) {
                    Ok(()) => block.facts.push((at, i, expect.len())),
                    Err(_) if self.drop_unrepresentable => block.dropped.push(i),
                    Err(err) => {
                        block.refused = Some((*line, err));
                        return;
                    }
                }
            }
        }
    }
}

/// Byte buffers passed back from the writer for reuse, so encoding rarely allocates or grows one.
#[derive(Default)]
struct Buffers(Mutex<Vec<Vec<u8>>>);

impl Buffers {
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .ok()
            .and_then(|mut free| free.pop())
            .unwrap_or_default()
    }

    fn give(&self, mut buffer: Vec<u8>) {
        if buffer.capacity() <= KEEP_BUFFER {
            buffer.clear();
            if let Ok(mut free) = self.0.lock() {
                free.push(buffer);
            }
        }
    }
}

/// Writes the corpus of `names` with `options` to `out` as JSONL, chunk by chunk on every core
/// (see the module docs), calling `progress` with each chunk's progress in the source's unit.
///
/// On error the caller discards what was written. A refusal or a source error is reported before
/// a write error (a write error after a refusal is of no interest: the output is discarded).
pub fn write_jsonl_stream<N, W>(
    options: &StreamOptions<'_>,
    names: &mut N,
    out: W,
    mut progress: impl FnMut(u64),
) -> Result<Streamed<W>, StreamError<N::Error>>
where
    N: NameSource,
    W: Write + Send,
{
    let tasks = options.tasks;
    let mut stats = StatsBuilder::new();
    let mut dropped: BTreeMap<&'static str, usize> = BTreeMap::new();
    // A writer thread takes each chunk's bytes in corpus order, so writing (and fingerprinting)
    // overlaps the generation of the next chunk, and hands the buffers back for reuse. The
    // channel is bounded: memory is at most the chunk being generated, one queued and the one
    // being written.
    let buffers = Buffers::default();
    let (tx, rx) = mpsc::sync_channel::<Vec<Vec<u8>>>(1);
    let written = std::thread::scope(|scope| {
        let buffers = &buffers;
        let writer = scope.spawn(move || -> std::io::Result<FingerprintWriter<W>> {
            let mut out = FingerprintWriter::new(out);
            for chunk in rx {
                for bytes in chunk {
                    out.write_all(&bytes)?;
                    buffers.give(bytes);
                }
            }
            Ok(out)
        });
        let generated = (|| -> Result<(), StreamError<N::Error>> {
            let mut chunk = Vec::with_capacity(CHUNK);
            loop {
                chunk.clear();
                let weight = |name: &str| name_estimate(tasks, name, options.source);
                let consumed = names
                    .next_chunk(CHUNK, CHUNK_BUDGET, &weight, &mut chunk)
                    .map_err(StreamError::Names)?;
                if consumed == 0 {
                    return Ok(());
                }
                let blocks: Vec<Block> = chunk
                    .par_chunks(BLOCK)
                    .map(|names| {
                        let mut block = Block {
                            bytes: buffers.take(),
                            ..Block::default()
                        };
                        options.encode(names, &mut block);
                        block
                    })
                    .collect();
                let mut out = Vec::with_capacity(blocks.len());
                for (block, names_of) in blocks.into_iter().zip(chunk.chunks(BLOCK)) {
                    for &(at, i, variants) in &block.facts {
                        stats.add(tasks[i].id, &names_of[at].1, variants, block.names[at].1);
                    }
                    for &i in &block.dropped {
                        *dropped.entry(tasks[i].id).or_default() += 1;
                    }
                    if let Some((line, error)) = block.refused {
                        return Err(StreamError::Refused { line, error });
                    }
                    out.push(block.bytes);
                }
                if tx.send(out).is_err() {
                    // The writer stopped on an error; it is reported below.
                    return Ok(());
                }
                progress(consumed);
            }
        })();
        drop(tx);
        let out = writer.join().map_err(|_| StreamError::WriterPanicked)?;
        generated?;
        out.map_err(StreamError::Write)
    })?;
    Ok(Streamed {
        fingerprint: written.fingerprint(),
        out: written.into_inner(),
        stats: stats.finish(),
        dropped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DEFAULT_RATIO, Data, Registry, assign, emit, emit_with_empty, write_jsonl};

    /// The single-threaded harness's bytes for the same names and settings.
    fn reference(tasks: &[&Task], names: &[String], with_empty: bool, split: bool) -> Vec<u8> {
        let names = names.iter().map(String::as_str);
        let mut corpus = if with_empty {
            emit_with_empty(tasks, names, "test")
        } else {
            emit(tasks, names, "test")
        };
        if split {
            assign(&mut corpus, DEFAULT_RATIO, "");
        }
        let mut out = Vec::new();
        write_jsonl(&mut out, &corpus).unwrap();
        out
    }

    #[test]
    fn the_stream_writes_the_single_threaded_bytes() {
        let registry = Registry::new(&Data::english());
        let tasks: Vec<&Task> = registry.tasks().iter().filter(|t| t.id != "bf").collect();
        // More than one chunk and one block, an empty name, a repeat.
        let mut names: Vec<String> = (0..600).map(|i| format!("name{i}.example")).collect();
        names.insert(10, String::new());
        names.push("name1.example".to_owned());
        let splitter = Splitter::new(DEFAULT_RATIO, "");
        for (with_empty, split) in [(false, true), (true, false)] {
            let options = StreamOptions {
                tasks: &tasks,
                source: "test",
                splitter: split.then_some(&splitter),
                with_empty,
                drop_unrepresentable: false,
            };
            let mut progressed = 0;
            let streamed =
                write_jsonl_stream(&options, &mut NameList::new(&names), Vec::new(), |n| {
                    progressed += n
                })
                .unwrap();
            let want = reference(&tasks, &names, with_empty, split);
            assert!(
                streamed.out == want,
                "with_empty {with_empty}, split {split}"
            );
            assert_eq!(streamed.fingerprint, Fingerprint::of(&want));
            assert_eq!(streamed.stats.inputs, 600);
            assert_eq!(progressed, names.len() as u64);
        }
    }

    #[test]
    fn an_unrepresentable_example_is_refused_or_dropped() {
        let registry = Registry::new(&Data::english());
        let bf = registry.get("bf").unwrap();
        let tasks = [bf];
        let names = vec!["ab".to_owned(), "ü".to_owned()];
        let mut options = StreamOptions {
            tasks: &tasks,
            source: "",
            splitter: None,
            with_empty: false,
            drop_unrepresentable: false,
        };
        let err = write_jsonl_stream(&options, &mut NameList::new(&names), Vec::new(), |_| {})
            .unwrap_err();
        assert!(matches!(err, StreamError::Refused { line: 2, .. }), "{err}");
        options.drop_unrepresentable = true;
        let streamed =
            write_jsonl_stream(&options, &mut NameList::new(&names), Vec::new(), |_| {}).unwrap();
        assert_eq!(streamed.dropped.get("bf"), Some(&1));
        assert_eq!(streamed.stats.examples, 1);
    }
}
