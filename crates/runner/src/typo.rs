//! Typo-task jobs: the name corpus `emit` reads, and strict scores of predictions against a
//! corpus (`capkit typo score`).
//!
//! Scoring: every corpus example (of the split, if given) is scored: the oracle runs again and
//! must agree with the corpus's expected set (otherwise the data or keyboard differ from the
//! corpus's registry, and the scores would be meaningless). An example with no prediction row is
//! scored as an empty answer; a row without a usable prediction (no `predict`, `null`, an
//! unknown key) is an error naming its line and field (`typo_tasks::parse_prediction`). A
//! prediction for a (task, input) the corpus does not have is an error.
//!
//! Memory: the predictions file is held in memory (it is indexed by (task, input)); the corpus
//! streams through in parallel batches, so its size does not matter.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, Read as _};
use std::path::Path;

use profile_types::{InputFile, NeedsGroup, TaskAnswers, TypoScoreReport};
use rayon::prelude::*;
use typo_tasks::{
    Example, JsonlReader, NameSource, Needs, Registry, ScoreResult, Summarizer, Summary, Variant,
    score_against,
};

use crate::error::Error;

/// A path as the user wrote it, for messages.
fn display(path: &Path) -> String {
    path.display().to_string()
}

/// A read error of `label` (at `line`), as every typo job says it.
fn cannot_read(label: &str, line: Option<usize>, e: &std::io::Error) -> Error {
    match line {
        Some(line) => Error::Input(format!("{label}: line {line}: cannot read: {e}")),
        None => Error::Input(format!("{label}: cannot read: {e}")),
    }
}

/// The embedded default corpus: real, well-known domain names across categories and countries,
/// IDNs included, curated for capkit (`crates/runner/data/domains.txt`).
pub const DEFAULT_CORPUS: &str = include_str!("../data/domains.txt");

/// A stream of names. Lines end at `\n` or `\r\n` (see [`crate::texts::strip_line_break`]) and nothing else is
/// trimmed; empty lines give no name. A line that is not UTF-8, or longer than the maximum name
/// length, is an error naming the file and line (reading stops there: an endless line is never
/// held in memory).
pub struct Names {
    reader: Box<dyn BufRead + Send>,
    label: String,
    line: usize,
    buf: Vec<u8>,
    max_len: usize,
    /// Names read so far.
    pub count: usize,
    /// Total bytes, when known, for progress.
    pub total_bytes: u64,
}

impl Names {
    /// Opens `--corpus FILE`, or the embedded default; names longer than `max_len` bytes are
    /// refused.
    pub fn open(path: Option<&Path>, max_len: usize) -> Result<Names, Error> {
        let (reader, label, total_bytes): (Box<dyn BufRead + Send>, String, u64) = match path {
            None => (
                Box::new(DEFAULT_CORPUS.as_bytes()),
                "(embedded domains.txt)".to_owned(),
                DEFAULT_CORPUS.len() as u64,
            ),
            Some(p) => {
                let file = File::open(p).map_err(|e| cannot_read(&display(p), None, &e))?;
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
    pub fn check_all(mut self) -> Result<(), Error> {
        let mut chunk = Vec::new();
        loop {
            chunk.clear();
            if self.next_chunk(4096, u64::MAX, &|_| 0, &mut chunk)? == 0 {
                return Ok(());
            }
        }
    }

    /// The corpus name for messages.
    pub fn label(&self) -> &str {
        &self.label
    }
}

/// The corpus file as the harness's emitter reads it (progress in bytes read).
impl NameSource for Names {
    type Error = Error;

    /// Appends `(line number, name)` pairs to `out` until it holds `max` names or their
    /// `weight`s (estimated output bytes) reach `budget` (at least one name is always taken);
    /// returns the bytes consumed (0 at the end).
    fn next_chunk(
        &mut self,
        max: usize,
        budget: u64,
        weight_of: &dyn Fn(&str) -> u64,
        out: &mut Vec<(usize, String)>,
    ) -> Result<u64, Error> {
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
                .map_err(|e| cannot_read(&self.label, Some(self.line + 1), &e))?;
            if n == 0 {
                break;
            }
            consumed += n as u64;
            self.line += 1;
            let line = crate::texts::strip_line_break(&self.buf);
            if line.len() > self.max_len || (n as u64 == limit && !self.buf.ends_with(b"\n")) {
                return Err(Error::Input(format!(
                    "{}: line {}: name longer than {} bytes (the maximum name length; DNS names have at most 253); raise it with --max-name-len, knowing that output and memory per name grow with the square of its length",
                    self.label, self.line, self.max_len
                )));
            }
            if line.is_empty() {
                continue;
            }
            let name = match std::str::from_utf8(line) {
                Ok(name) => name.to_owned(),
                Err(e) => {
                    let at = e.valid_up_to();
                    let byte = line.get(at).copied().unwrap_or(0);
                    return Err(Error::Input(format!(
                        "{}: line {}: not valid UTF-8 (byte 0x{byte:02x} at column {}); corpus names must be UTF-8 text",
                        self.label,
                        self.line,
                        at + 1
                    )));
                }
            };
            self.count += 1;
            weight = weight.saturating_add(weight_of(&name));
            out.push((self.line, name));
        }
        Ok(consumed)
    }
}

/// Examples scored per parallel batch.
const CHUNK: usize = 1024;

/// One prediction, with the line it came from and whether a corpus example used it.
struct Prediction {
    line: usize,
    predict: Vec<Variant>,
    used: bool,
}

type Key = (String, String);

fn read_predictions(path: &Path, registry: &Registry) -> Result<HashMap<Key, Prediction>, Error> {
    let label = display(path);
    let file = File::open(path).map_err(|e| cannot_read(&label, None, &e))?;
    let mut reader = BufReader::new(file);
    let mut out: HashMap<Key, Prediction> = HashMap::new();
    let mut buf = Vec::new();
    let mut line = 0;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| cannot_read(&label, Some(line + 1), &e))?;
        if n == 0 {
            break;
        }
        line += 1;
        let text = std::str::from_utf8(&buf)
            .map_err(|e| {
                Error::Input(format!(
                    "{label}: line {line}: not valid UTF-8 at column {}",
                    e.valid_up_to() + 1
                ))
            })?
            .trim();
        if text.is_empty() {
            continue;
        }
        let typo_tasks::Prediction {
            task,
            input,
            predict,
        } = typo_tasks::parse_prediction(text)
            .map_err(|e| Error::Input(format!("{label}: line {line}: {e}")))?;
        if registry.get(&task).is_none() {
            return Err(Error::Input(format!(
                "{label}: line {line}: field \"task\": {task:?} is not a task of the registry (have: {})",
                registry.ids().join(", ")
            )));
        }
        let key = (task, input);
        if let Some(first) = out.get(&key) {
            return Err(Error::Input(format!(
                "{label}: line {line}: a second prediction for {}/{:?} (the first is on line {})",
                key.0, key.1, first.line
            )));
        }
        out.insert(
            key,
            Prediction {
                line,
                predict,
                used: false,
            },
        );
    }
    Ok(out)
}

/// What `capkit typo score` scores.
#[derive(Debug, Clone, Copy)]
pub struct ScoreJob<'a> {
    /// The JSONL corpus the predictions answer.
    pub corpus: &'a Path,
    /// Predictions, one `{"task":…,"input":…,"predict":[…]}` per line.
    pub predictions: &'a Path,
    /// Only the corpus examples of this split.
    pub split: Option<&'a str>,
    /// Longest corpus input accepted, in bytes (the oracle runs again on each).
    pub max_name_len: usize,
}

/// What a score run found.
#[derive(Debug, Clone)]
pub struct Scored {
    /// Per task, in registry order.
    pub summaries: Vec<Summary>,
    /// Examples scored.
    pub scored: usize,
    /// Examples scored without a prediction row (empty answers).
    pub unpredicted: usize,
    /// Corpus examples read (all splits).
    pub examples: usize,
    /// The report `--json` prints.
    pub report: TypoScoreReport,
}

/// The summaries of each group of tasks by what they need, in the order they are shown.
pub fn groups(summaries: &[Summary]) -> Vec<(Needs, Vec<&Summary>)> {
    [Needs::Nothing, Needs::Language, Needs::Keyboard]
        .into_iter()
        .map(|n| {
            (
                n,
                summaries
                    .iter()
                    .filter(|s| s.needs == n)
                    .collect::<Vec<_>>(),
            )
        })
        .filter(|(_, g)| !g.is_empty())
        .collect()
}

/// Scores the predictions of `job` against its corpus under `registry`.
pub fn score(job: &ScoreJob<'_>, registry: &Registry) -> Result<Scored, Error> {
    let mut predictions = read_predictions(job.predictions, registry)?;
    let label = display(job.corpus);
    let file = File::open(job.corpus).map_err(|e| cannot_read(&label, None, &e))?;
    let mut corpus = JsonlReader::new(BufReader::with_capacity(1 << 16, file));
    let mut summarizer = Summarizer::new();
    // Per task: empty answers, and the precision sum and count of the others.
    let mut answers: BTreeMap<String, (usize, f64, usize)> = BTreeMap::new();
    let mut scored = 0usize;
    let mut unpredicted = 0usize;
    let mut examples = 0usize;
    let mut batch: Vec<(usize, Example, Vec<Variant>)> = Vec::with_capacity(CHUNK);
    loop {
        batch.clear();
        for item in corpus.by_ref() {
            let (line, e) = item.map_err(|e| Error::Input(format!("{label}: {e}")))?;
            examples += 1;
            if job.split.is_some_and(|s| s != e.split) {
                continue;
            }
            if e.input.len() > job.max_name_len {
                return Err(Error::Input(format!(
                    "{label}: line {line}: field \"input\": longer than {} bytes (the maximum name length); raise it with --max-name-len",
                    job.max_name_len
                )));
            }
            if registry.get(&e.task).is_none() {
                let why = registry
                    .why_unregistered(&e.task)
                    .map(|u| format!("{u}; "))
                    .unwrap_or_default();
                return Err(Error::Input(format!(
                    "{label}: line {line}: field \"task\": {:?} is not a task of the registry ({why}pass the --data/--keyboard the corpus was built with)",
                    e.task
                )));
            }
            let predict = match predictions.get_mut(&(e.task.clone(), e.input.clone())) {
                Some(p) => {
                    p.used = true;
                    p.predict.clone()
                }
                None => {
                    unpredicted += 1;
                    Vec::new()
                }
            };
            batch.push((line, e, predict));
            if batch.len() == CHUNK {
                break;
            }
        }
        if batch.is_empty() {
            break;
        }
        let results: Vec<Result<ScoreResult, String>> = batch
            .par_iter()
            .map(|(line, e, predict)| {
                let Some(task) = registry.get(&e.task) else {
                    return Err(format!("{label}: line {line}: field \"task\": {:?} is not registered", e.task));
                };
                let expect = task.expect(&e.input);
                if expect.as_slice() != e.expect_set() {
                    return Err(format!(
                        "{label}: line {line}: field \"expect\": {}/{:?} has {} variants but the oracle gives {}; pass the --data/--keyboard the corpus was built with",
                        e.task,
                        e.input,
                        e.expect_set().len(),
                        expect.len()
                    ));
                }
                Ok(score_against(&e.task, &e.input, expect, predict.iter().cloned()))
            })
            .collect();
        for r in results {
            let r = r.map_err(Error::Input)?;
            summarizer.add(&r);
            let a = answers.entry(r.task.clone()).or_default();
            if r.predict.is_empty() {
                a.0 += 1;
            } else {
                a.1 += r.hit.len() as f64 / r.predict.len() as f64;
                a.2 += 1;
            }
            scored += 1;
        }
    }
    let mut strays: Vec<(&Key, &Prediction)> =
        predictions.iter().filter(|(_, p)| !p.used).collect();
    strays.sort_by_key(|(_, p)| p.line);
    if let Some(((task, input), p)) = strays.first() {
        let scope = job
            .split
            .map(|s| format!("'s {s} split"))
            .unwrap_or_default();
        return Err(Error::Input(format!(
            "{}: line {}: prediction for {task}/{input:?} is not in the corpus{scope} {label} ({} such predictions)",
            display(job.predictions),
            p.line,
            strays.len()
        )));
    }
    let summaries = summarizer
        .finish(registry)
        .map_err(|e| Error::Input(e.to_string()))?;
    let file = |path: &Path| InputFile {
        path: path.display().to_string(),
        bytes: std::fs::metadata(path).map_or(0, |m| m.len()),
    };
    let answers = answers
        .into_iter()
        .map(|(task, (empty, sum, n))| {
            let precision_of_answers = (n > 0).then(|| sum / n as f64);
            (
                task,
                TaskAnswers {
                    empty,
                    precision_of_answers,
                },
            )
        })
        .collect();
    let report = TypoScoreReport {
        scored,
        unpredicted,
        groups: groups(&summaries)
            .into_iter()
            .map(|(needs, group)| NeedsGroup {
                needs,
                tasks: group.into_iter().cloned().collect(),
            })
            .collect(),
        corpus: Some(file(job.corpus)),
        predictions: Some(file(job.predictions)),
        answers: Some(answers),
    };
    Ok(Scored {
        summaries,
        scored,
        unpredicted,
        examples,
        report,
    })
}
