//! `capkit typo emit`: the main job.
//!
//! The corpus streams through in chunks of names: each chunk is generated and encoded in
//! parallel (rayon, runs of [`BLOCK`] names per task, each run into one buffer that the writer
//! hands back for reuse, and one set buffer per run for every task's answer), then written in
//! corpus order, so memory is bounded by one chunk and the bytes are exactly those of a
//! single-threaded run.

use std::collections::BTreeMap;
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::{Mutex, mpsc};

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use typo_tasks::{
    ExampleRef, FingerprintWriter, HarnessError, Needs, Ratio, Splitter, StatsBuilder, Task,
    encode_example_ref,
};

use super::names::Names;
use super::output::Sink;
use super::{RegistryArgs, display, needs_heading, select_tasks};

/// Names generated and encoded per parallel batch: big enough to keep both cores busy, small
/// enough that a batch's output (a few MB) bounds memory.
const CHUNK: usize = 256;

/// Estimated output bytes per chunk (see [`name_estimate`]): chunks of long or numeral-dense
/// names hold fewer names, so memory stays bounded whatever the names.
const CHUNK_BUDGET: u64 = 32 << 20;

/// An upper estimate of the JSONL bytes `name` gives with these tasks: each task's estimate of
/// its expected set ([`Task::output_estimate`], which also bounds the set's own memory), plus the
/// rest of each line (the name and source, escaped at worst, and the rest). A name of the worst
/// kind (253 bytes with 17 or more numerals, see `typo_tasks::limits`) is estimated above the
/// whole budget, so it forms a chunk of its own: memory then is that one name's output
/// (about 80 MB of variants and as much JSONL for `cns`/`ons`).
fn name_estimate(tasks: &[&Task], name: &str, source: &str) -> u64 {
    let line = 6 * (name.len() as u64 + source.len() as u64) + 64;
    tasks
        .iter()
        .map(|t| t.output_estimate(name).saturating_add(line))
        .fold(0u64, u64::saturating_add)
}

/// Arguments of `capkit typo emit`.
#[derive(Debug, clap::Args)]
pub(crate) struct EmitArgs {
    /// Tasks to emit: comma-separated ids (`co,cs,hr`), or `all`. May be repeated.
    #[arg(long, value_name = "IDS", default_value = "all")]
    tasks: Vec<String>,
    /// Names to emit for, one per line, taken verbatim (no trimming). Default: the embedded
    /// corpus of well-known domain names, whose unrepresentable examples (bf of its IDNs) are
    /// dropped as with --drop-unrepresentable.
    #[arg(long, value_name = "FILE")]
    corpus: Option<PathBuf>,
    #[command(flatten)]
    registry: RegistryArgs,
    /// Also emit (name, task) pairs whose expected set is empty (`"expect":null`).
    #[arg(long)]
    with_empty: bool,
    /// Assign no train/val/test split (the `split` field is left out).
    #[arg(long, conflicts_with_all = ["salt", "ratio"])]
    no_split: bool,
    /// Salt of the split hash: a different salt gives a different, equally stable split.
    #[arg(long, value_name = "S", default_value = "")]
    salt: String,
    /// Train,val,test weights of the split.
    #[arg(long, value_name = "T,V,T", default_value = "0.8,0.1,0.1", value_parser = parse_ratio)]
    ratio: Ratio,
    /// Provenance written into every example's `source` (default: the corpus file's name, or
    /// `capkit:domains.txt` for the embedded corpus).
    #[arg(long, value_name = "S")]
    source: Option<String>,
    /// Write the corpus to FILE, atomically (temp file and rename), instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Leave out examples JSONL cannot carry (bf variants that are not UTF-8) and say how many,
    /// instead of refusing the corpus.
    #[arg(long)]
    drop_unrepresentable: bool,
    /// Longest name accepted, in bytes; a longer corpus line is refused, naming it. Output and
    /// memory per name grow with the square of its length (and cns/ons exponentially in its
    /// numerals): see the worst cases in docs/typo-tasks.md.
    #[arg(long, value_name = "BYTES", default_value_t = typo_tasks::MAX_NAME_LEN)]
    max_name_len: usize,
}

/// `--ratio T,V,T`: three finite, non-negative weights.
fn parse_ratio(s: &str) -> Result<Ratio, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [train, val, test] = parts.as_slice() else {
        return Err(format!(
            "expected three comma-separated weights such as 0.8,0.1,0.1, got {s:?}"
        ));
    };
    let weight = |name: &str, v: &str| -> Result<f64, String> {
        match v.parse::<f64>() {
            Ok(w) if w.is_finite() && w >= 0.0 => Ok(w),
            _ => Err(format!("{name} weight {v:?} is not a non-negative number")),
        }
    };
    let ratio = Ratio {
        train: weight("train", train)?,
        val: weight("val", val)?,
        test: weight("test", test)?,
    };
    if ratio.train + ratio.val + ratio.test <= 0.0 {
        return Err("the weights sum to zero".to_owned());
    }
    Ok(ratio)
}

/// Names encoded by one parallel task: a run of consecutive names, their JSONL in one buffer.
const BLOCK: usize = 8;

/// Encoded blocks of buffers bigger than this are not kept for reuse (a name of the worst kind
/// writes tens of MB; memory goes back to the allocator with it).
const KEEP_BUFFER: usize = 8 << 20;

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

/// What every name of a run shares.
struct Emitter<'a> {
    tasks: &'a [&'a Task],
    source: &'a str,
    splitter: Option<&'a Splitter>,
    with_empty: bool,
    drop: bool,
}

impl Emitter<'_> {
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
                    Err(_) if self.drop => block.dropped.push(i),
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

fn progress(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} emit [{bar:30}] {bytes}/{total_bytes} {msg} ({elapsed}, eta {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Runs `capkit typo emit`.
pub(crate) fn run(args: &EmitArgs) -> anyhow::Result<()> {
    let registry = args.registry.registry()?;
    let tasks = select_tasks(&registry, &args.tasks)?;
    let mut names = Names::open(args.corpus.as_deref(), args.max_name_len)?;
    // The embedded corpus has IDNs, whose bf variants JSONL cannot carry: the default run drops
    // them (and says so) rather than refusing the project's main job.
    let drop_unrepresentable = args.drop_unrepresentable || args.corpus.is_none();
    let source = match (&args.source, &args.corpus) {
        (Some(s), _) => s.clone(),
        (None, Some(path)) => path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| display(path)),
        (None, None) => "capkit:domains.txt".to_owned(),
    };
    let splitter = (!args.no_split).then(|| Splitter::new(args.ratio, &args.salt));

    // Streaming straight to stdout (nothing can be refused for representability) must still
    // write nothing when a corpus line is refused: check the whole corpus first, which is cheap
    // next to generating it. (Otherwise the output is staged and a refusal discards it.)
    let direct_stdout = drop_unrepresentable && args.out.is_none();
    if direct_stdout && args.corpus.is_some() {
        Names::open(args.corpus.as_deref(), args.max_name_len)?.check_all()?;
    }
    let sink = Sink::create(args.out.as_deref(), !drop_unrepresentable)?;
    let bar = progress(names.total_bytes);
    let mut stats = StatsBuilder::new();
    let mut dropped: BTreeMap<&str, usize> = BTreeMap::new();
    let target = args
        .out
        .as_deref()
        .map(display)
        .unwrap_or_else(|| "stdout".to_owned());
    // A writer thread takes each block's bytes in corpus order, so writing (and fingerprinting)
    // overlaps the generation of the next chunk, and hands the buffers back for reuse. The
    // channel is bounded: memory is at most the chunk being generated, one queued and the one
    // being written.
    let emitter = Emitter {
        tasks: &tasks,
        source: &source,
        splitter: splitter.as_ref(),
        with_empty: args.with_empty,
        drop: drop_unrepresentable,
    };
    let buffers = Buffers::default();
    let (tx, rx) = mpsc::sync_channel::<Vec<Vec<u8>>>(1);
    let written = std::thread::scope(|scope| -> anyhow::Result<FingerprintWriter<Sink>> {
        let buffers = &buffers;
        let writer = scope.spawn(move || -> std::io::Result<FingerprintWriter<Sink>> {
            let mut out = FingerprintWriter::new(sink);
            for chunk in rx {
                for bytes in chunk {
                    out.write_all(&bytes)?;
                    buffers.give(bytes);
                }
            }
            Ok(out)
        });
        let generated = (|| -> anyhow::Result<()> {
            let mut chunk = Vec::with_capacity(CHUNK);
            loop {
                chunk.clear();
                let weight = |name: &str| name_estimate(&tasks, name, &source);
                let consumed = names.next_chunk(CHUNK, CHUNK_BUDGET, &weight, &mut chunk)?;
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
                        emitter.encode(names, &mut block);
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
                    if let Some((line, err)) = block.refused {
                        let what = match &err {
                            HarnessError::NotRepresentable { task, input } => format!(
                                "{task}/{input:?} has a variant that is not valid UTF-8 and cannot survive JSONL; \
                                 pass --drop-unrepresentable to leave such examples out, or leave {task} out of --tasks"
                            ),
                            other => other.to_string(),
                        };
                        anyhow::bail!(
                            "{}: line {line}: {what} (nothing was written)",
                            names.label()
                        );
                    }
                    out.push(block.bytes);
                }
                if tx.send(out).is_err() {
                    // The writer stopped on an error; it is reported below.
                    return Ok(());
                }
                bar.inc(consumed);
            }
        })();
        drop(tx);
        let out = writer
            .join()
            .map_err(|_| anyhow::anyhow!("{target}: the writer thread panicked"))?;
        // A refusal first (the writer's output is discarded with the temporary file), then a
        // write error.
        generated?;
        out.with_context(|| format!("{target}: cannot write"))
    })?;
    bar.finish_and_clear();
    let fingerprint = written.fingerprint();
    written.into_inner().commit()?;

    let stats = stats.finish();
    let mut per_needs: BTreeMap<Needs, usize> = BTreeMap::new();
    for task in &tasks {
        *per_needs.entry(task.needs).or_default() +=
            stats.by_task.get(task.id).copied().unwrap_or(0);
    }
    let mut err = std::io::stderr().lock();
    if names.count == 0 {
        let _ = writeln!(
            err,
            "capkit: warning: {}: the corpus has no names (empty lines only, or an empty file); the output is empty",
            names.label()
        );
    }
    let _ = writeln!(err, "capkit: wrote {target}: {}", super::stats_line(&stats));
    for (needs, n) in &per_needs {
        let ids: Vec<&str> = tasks
            .iter()
            .filter(|t| t.needs == *needs)
            .map(|t| t.id)
            .collect();
        let _ = writeln!(
            err,
            "  {}: {} ({})",
            needs_heading(*needs),
            crate::words::count(*n, "example"),
            ids.join(" ")
        );
    }
    if !dropped.is_empty() {
        let total: usize = dropped.values().sum();
        let by: Vec<String> = dropped.iter().map(|(t, n)| format!("{t}={n}")).collect();
        let _ = writeln!(
            err,
            "  dropped {} (variants that are not UTF-8: {})",
            crate::words::count(total, "unrepresentable example"),
            by.join(" ")
        );
    }
    let _ = writeln!(err, "  fingerprint {fingerprint}");
    Ok(())
}
