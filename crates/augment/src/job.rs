//! The augmentation job: inputs checked, the plan (allocation and selection thresholds), the
//! rows written.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use suite_core::{
    CapabilitySuite, Label, Model, Reference, Resolver, SharedLabel, SuiteSpec, TextHash,
    Transform, labels_agree,
};

use crate::Error;
use crate::allocation::{Allocation, Limits, Rule, Total, allocate};
use crate::evaluation::{Evaluation, StageGap, StageKind, by_stage};
use crate::leak::{EvalTexts, Fingerprint, Leak, Set, fingerprint};
use crate::select::{Sketch, stage_key, text_key};
use crate::texts::{TextsFile, TrainingTexts};

/// The format of the summary written beside the rows.
pub const SUMMARY_FORMAT: &str = "capkit-augment/1";

/// The stage name of probe rows.
pub const PROBE_STAGE: &str = "probes";

/// Texts read at once by default: each chunk's rows are labelled with one teacher batch.
pub const DEFAULT_CHUNK_SIZE: usize = 4096;

/// What an augmentation is asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// How the total is shared between stages.
    pub rule: Rule,
    /// The total: rows, or a fraction of the training texts.
    pub total: Total,
    /// At most this many rows per stage.
    pub per_stage_cap: Option<u64>,
    /// At most this many teacher calls (texts asked; must not be 0).
    pub teacher_budget: Option<u64>,
    /// Stages named explicitly (they share the total equally, whatever their gaps).
    pub stages: Vec<String>,
    /// The seed of the selection.
    pub seed: u64,
    /// Training texts per teacher batch (the rows are the same for any size).
    pub chunk_size: usize,
    /// Add a row for each probe on which the report's student and teacher disagree, labelled
    /// by the teacher on the probe (the probes are then no longer held out).
    pub probes: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            rule: Rule::Gap,
            total: Total::Fraction(0.2),
            per_stage_cap: None,
            teacher_budget: None,
            stages: Vec::new(),
            seed: 0,
            chunk_size: DEFAULT_CHUNK_SIZE,
            probes: false,
        }
    }
}

/// `blake3:` of a suite's canonical JSON, the fingerprint every report's suite block holds
/// (suite-core's one rule, [`SuiteSpec::fingerprint`]).
pub fn suite_fingerprint(spec: &SuiteSpec) -> String {
    spec.fingerprint()
}

/// One stage of the job.
struct Stage {
    name: String,
    transform: Transform,
    label: Reference,
    key: u64,
}

/// A checked augmentation: the report, the suite it was measured with, the evaluation texts
/// (for the leak guard) and the options.
pub struct Job {
    gaps: Vec<StageGap>,
    stages: Vec<Stage>,
    eval: EvalTexts,
    options: Options,
    /// Probe texts whose report answers disagree.
    probes: Vec<(usize, String)>,
    student: Option<String>,
}

/// Each stage's row counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageRows {
    /// The stage.
    pub stage: String,
    /// (text, stage) pairs selected.
    pub selected: u64,
    /// Rows written.
    pub written: u64,
    /// Dropped: the clean or transformed text is an evaluation text, byte for byte.
    pub leak_exact: u64,
    /// Dropped: it is one after normalisation (`augment::normalise`).
    pub leak_normalised: u64,
    /// Dropped: an earlier row has the same text.
    pub duplicate: u64,
    /// Dropped: the transform left the text as it was.
    pub unchanged: u64,
}

impl StageRows {
    fn add(&mut self, o: &StageRows) {
        self.selected += o.selected;
        self.written += o.written;
        self.leak_exact += o.leak_exact;
        self.leak_normalised += o.leak_normalised;
        self.duplicate += o.duplicate;
        self.unchanged += o.unchanged;
    }
}

/// What a run did: the allocation and, per stage, the rows written and dropped; written as
/// JSON beside the rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// [`SUMMARY_FORMAT`].
    pub format: String,
    /// The seed.
    pub seed: u64,
    /// The report's student (a comparison's), when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub student: Option<String>,
    /// The allocation and why.
    pub allocation: Allocation,
    /// Per stage, in suite order (then the probes, when asked for).
    pub rows: Vec<StageRows>,
    /// Texts sent to the teacher (each distinct text once per chunk; the prediction cache of a
    /// real model absorbs repeats across chunks).
    pub teacher_calls: u64,
    /// Teacher batches.
    pub teacher_batches: u64,
}

impl Summary {
    /// Rows written, probes included.
    pub fn written(&self) -> u64 {
        self.rows.iter().map(|r| r.written).sum()
    }

    /// The allocation and the rows as text for a terminal.
    pub fn to_text(&self) -> String {
        let mut out = self.allocation.to_text();
        out.push_str(&format!(
            "{:<16} {:>9} {:>9} {:>11} {:>10} {:>10}\n",
            "stage", "selected", "written", "leaks", "duplicate", "unchanged"
        ));
        for r in &self.rows {
            out.push_str(&format!(
                "{:<16} {:>9} {:>9} {:>11} {:>10} {:>10}\n",
                r.stage,
                r.selected,
                r.written,
                format!("{}+{}", r.leak_exact, r.leak_normalised),
                r.duplicate,
                r.unchanged
            ));
        }
        out.push_str(&format!(
            "{} rows, {} teacher calls in {} batches\n",
            self.written(),
            self.teacher_calls,
            self.teacher_batches
        ));
        out
    }
}

/// A plan: the allocation and each stage's selection threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The allocation.
    pub allocation: Allocation,
    thresholds: Vec<Option<u64>>,
}

impl Plan {
    /// The plan of an allocation whose selection `sketch` found (over every training text, or
    /// merged from shards' sketches).
    pub fn new(allocation: Allocation, sketch: &Sketch) -> Plan {
        Plan {
            allocation,
            thresholds: sketch.thresholds(),
        }
    }
}

/// Refuses a training file that is the evaluation file, and evaluation texts that are not the
/// ones the report counted (when the report says which it counted).
pub fn check_files(
    evaluation: &Evaluation,
    eval_texts: &TextsFile,
    training: &TextsFile,
) -> Result<(), Error> {
    let eval = eval_texts.fingerprints()?;
    let train = training.fingerprints()?;
    let counted = |prints: &[String; 2]| prints.iter().any(|p| evaluation.texts_blake3.contains(p));
    if counted(&train) || train[0] == eval[0] {
        return Err(Error::TrainingIsEvaluation {
            file: training.name().to_owned(),
            blake3: train[0].clone(),
        });
    }
    if !evaluation.texts_blake3.is_empty() && !counted(&eval) {
        return Err(Error::EvaluationMismatch {
            file: eval_texts.name().to_owned(),
            found: eval[0].clone(),
            expected: evaluation.texts_blake3.join(", "),
        });
    }
    Ok(())
}

/// The suite the report was measured with: `spec` itself, or `spec` with every corruption's
/// reference set as `capkit profile --reference` sets it (its fingerprint says so).
fn matching_spec(evaluation: &Evaluation, spec: &SuiteSpec) -> Result<SuiteSpec, Error> {
    let given = suite_fingerprint(spec);
    let Some(report) = evaluation.suite_fingerprint() else {
        // A suite built in code: its stages must be the suite's.
        let d = &evaluation.report.suite;
        let same = d
            .corruptions
            .iter()
            .map(|c| c.name.as_str())
            .eq(spec.corruptions.iter().map(|c| c.name.as_str()))
            && d.invariances
                .iter()
                .eq(spec.invariances.iter().map(|i| &i.name));
        return if same {
            Ok(spec.clone())
        } else {
            Err(Error::SuiteMismatch {
                file: evaluation.file.clone(),
                report: "none (its stages differ)".into(),
                given,
            })
        };
    };
    if report == given {
        return Ok(spec.clone());
    }
    for reference in [Reference::TeacherClean, Reference::TeacherTransformed] {
        let mut s = spec.clone();
        for c in &mut s.corruptions {
            c.reference = Some(reference);
        }
        if suite_fingerprint(&s) == report {
            return Ok(s);
        }
    }
    Err(Error::SuiteMismatch {
        file: evaluation.file.clone(),
        report: report.to_owned(),
        given,
    })
}

impl Job {
    /// Checks the inputs: the options, that `evaluation` was measured with the suite `spec`
    /// (its fingerprint; a report of `capkit profile --reference` matches the suite file it
    /// was run with), that every named stage is the suite's; builds the suite with `resolver`
    /// (the command line's is `transforms::Catalogue::standard()`), and reads the evaluation
    /// texts into the leak guard with their transformed versions and the suite's probes.
    pub fn new(
        evaluation: &Evaluation,
        spec: &SuiteSpec,
        resolver: &dyn Resolver,
        eval_texts: &dyn TrainingTexts,
        options: Options,
    ) -> Result<Job, Error> {
        if options.teacher_budget == Some(0) {
            return Err(Error::Option {
                option: "teacher_budget",
                message: "a budget of 0 teacher calls labels nothing; give at least 1".into(),
            });
        }
        match options.total {
            Total::Fraction(f) if !(f.is_finite() && f > 0.0 && f <= 1.0) => {
                return Err(Error::Option {
                    option: "fraction",
                    message: format!("must be in (0, 1], got {f}"),
                });
            }
            _ => {}
        }
        if options.chunk_size == 0 {
            return Err(Error::Option {
                option: "chunk_size",
                message: "must be at least 1".into(),
            });
        }
        let spec = matching_spec(evaluation, spec)?;
        let names: Vec<&str> = spec
            .corruptions
            .iter()
            .chain(&spec.invariances)
            .map(|e| e.name.as_str())
            .collect();
        if let Some(bad) = options.stages.iter().find(|s| !names.contains(&s.as_str())) {
            return Err(Error::UnknownStage {
                stage: bad.clone(),
                known: names.join(", "),
            });
        }
        let suite: CapabilitySuite = spec.build_with(resolver)?;
        let mut gaps = by_stage(evaluation.gaps());
        let mut stages = Vec::new();
        let mut ordered = Vec::new();
        for (entry, kind) in spec
            .corruptions
            .iter()
            .map(|e| (e, StageKind::Corruption))
            .chain(spec.invariances.iter().map(|e| (e, StageKind::Invariance)))
        {
            let transform = match kind {
                StageKind::Corruption => suite.corruption(&entry.name),
                StageKind::Invariance => suite.invariance(&entry.name),
            };
            let (Some(transform), Some(gap)) = (transform, gaps.shift_remove(&entry.name)) else {
                return Err(Error::Report {
                    file: evaluation.file.clone(),
                    message: format!("has no stage `{}`", entry.name),
                });
            };
            // Label-changing is declared, never guessed: an explicit
            // `"reference": "teacher_transformed"` on the corruption's suite entry.
            let label = match (kind, entry.reference) {
                (StageKind::Corruption, Some(Reference::TeacherTransformed)) => {
                    Reference::TeacherTransformed
                }
                _ => Reference::TeacherClean,
            };
            stages.push(Stage {
                name: entry.name.clone(),
                transform: transform.clone(),
                label,
                key: stage_key(options.seed, &entry.name),
            });
            ordered.push(gap);
        }
        let mut eval = EvalTexts::new();
        eval_texts.visit(&mut |_, text| {
            eval.insert(text);
            let hash = TextHash::of(text);
            for s in &stages {
                eval.insert(&s.transform.apply_with_hash(text, &hash));
            }
            Ok(())
        })?;
        for probe in &spec.probes {
            eval.insert(probe);
        }
        let probes = match (&evaluation.report.probes, options.probes) {
            (Some(p), true) => spec
                .probes
                .iter()
                .enumerate()
                .filter(|(i, _)| match (p.student.get(*i), p.teacher.get(*i)) {
                    (Some(s), Some(t)) => !labels_agree(s, t),
                    _ => false,
                })
                .map(|(i, t)| (i, t.clone()))
                .collect(),
            _ => Vec::new(),
        };
        Ok(Job {
            gaps: ordered,
            stages,
            eval,
            options,
            probes,
            student: evaluation.student.clone(),
        })
    }

    /// The evaluation texts the leak guard holds (with their transformed versions and probes).
    pub fn eval_texts(&self) -> &EvalTexts {
        &self.eval
    }

    /// Each stage's gap, in suite order.
    pub fn gaps(&self) -> &[StageGap] {
        &self.gaps
    }

    /// The allocation over `training_texts` texts.
    pub fn allocation(&self, training_texts: u64) -> Allocation {
        let labels: Vec<Reference> = self.stages.iter().map(|s| s.label).collect();
        let limits = Limits {
            total: self.options.total,
            per_stage_cap: self.options.per_stage_cap,
            teacher_budget: self.options.teacher_budget,
            probe_rows: self.probe_rows(),
            stages: self.options.stages.clone(),
        };
        allocate(
            self.options.rule,
            &self.gaps,
            &labels,
            &limits,
            training_texts,
        )
    }

    /// Probe rows the run writes (within the budget).
    fn probe_rows(&self) -> u64 {
        let n = self.probes.len() as u64;
        self.options.teacher_budget.map_or(n, |b| n.min(b))
    }

    /// The selection sketch of `training` for `allocation` (one pass).
    pub fn sketch(
        &self,
        allocation: &Allocation,
        training: &dyn TrainingTexts,
    ) -> Result<Sketch, Error> {
        let rows: Vec<u64> = allocation.stages.iter().map(|s| s.rows).collect();
        let mut sketch = Sketch::new(&rows);
        let wanted: Vec<usize> = (0..self.stages.len())
            .filter(|&i| sketch.wants(i))
            .collect();
        if wanted.is_empty() {
            return Ok(sketch);
        }
        training.visit(&mut |_, text| {
            let hash = blake3::hash(text.as_bytes());
            for &i in &wanted {
                sketch.add(i, text_key(hash.as_bytes(), self.stages[i].key));
            }
            Ok(())
        })?;
        Ok(sketch)
    }

    /// The plan over all of `training`: count, allocate, select (two passes).
    pub fn plan(&self, training: &dyn TrainingTexts) -> Result<Plan, Error> {
        let allocation = self.allocation(training.count()?);
        let sketch = self.sketch(&allocation, training)?;
        Ok(Plan::new(allocation, &sketch))
    }

    /// Writes the rows of `training` (all of it, or one shard of a plan made over all) to
    /// `out` as JSONL, labelled by `teacher`, in the defined order: training texts in order,
    /// each text's rows in suite order. Returns the counts per stage (probes not included: see
    /// [`Job::write_probes`]).
    pub fn write_rows(
        &self,
        plan: &Plan,
        training: &dyn TrainingTexts,
        teacher: &dyn Model,
        out: &mut dyn Write,
    ) -> Result<Summary, Error> {
        let mut run = Run {
            job: self,
            plan,
            teacher,
            out,
            seen: Set::default(),
            chunk: Chunk::default(),
            texts_in_chunk: 0,
            rows: self
                .stages
                .iter()
                .map(|s| StageRows {
                    stage: s.name.clone(),
                    ..StageRows::default()
                })
                .collect(),
            calls: 0,
            batches: 0,
            written_to: training.name().to_owned(),
            buf: String::new(),
        };
        if plan.thresholds.iter().any(Option::is_some) {
            training.visit(&mut |id, text| run.text(id, text))?;
            run.flush()?;
        }
        Ok(Summary {
            format: SUMMARY_FORMAT.to_owned(),
            seed: self.options.seed,
            student: self.student.clone(),
            allocation: plan.allocation.clone(),
            rows: run.rows,
            teacher_calls: run.calls,
            teacher_batches: run.batches,
        })
    }

    /// Writes the rows of the probes on which the report's student and teacher disagree (when
    /// asked for), labelled by `teacher` on the probe itself, and adds them to `summary`.
    pub fn write_probes(
        &self,
        teacher: &dyn Model,
        out: &mut dyn Write,
        summary: &mut Summary,
    ) -> Result<(), Error> {
        if !self.options.probes {
            return Ok(());
        }
        let take = usize::try_from(self.probe_rows()).unwrap_or(usize::MAX);
        let probes = &self.probes[..take.min(self.probes.len())];
        let mut rows = StageRows {
            stage: PROBE_STAGE.to_owned(),
            selected: probes.len() as u64,
            ..StageRows::default()
        };
        if !probes.is_empty() {
            let texts: Vec<&str> = probes.iter().map(|(_, t)| t.as_str()).collect();
            let labels = ask(teacher, &texts, PROBE_STAGE)?;
            summary.teacher_calls += texts.len() as u64;
            summary.teacher_batches += 1;
            for ((i, text), label) in probes.iter().zip(&labels) {
                let source = format!("probe:{i}");
                let id = format!("{PROBE_STAGE}-{i}");
                write_row(
                    out,
                    &id,
                    PROBE_STAGE,
                    text,
                    label,
                    &source,
                    Reference::TeacherClean,
                )
                .map_err(|e| Error::io("rows", e))?;
                rows.written += 1;
            }
        }
        summary.rows.push(rows);
        Ok(())
    }

    /// The whole run over `training`: plan, rows, probes.
    pub fn run(
        &self,
        training: &dyn TrainingTexts,
        teacher: &dyn Model,
        out: &mut dyn Write,
    ) -> Result<Summary, Error> {
        let plan = self.plan(training)?;
        let mut summary = self.write_rows(&plan, training, teacher, out)?;
        self.write_probes(teacher, out, &mut summary)?;
        Ok(summary)
    }
}

/// The teacher's answers on `texts`, checked for length.
fn ask(teacher: &dyn Model, texts: &[&str], stage: &str) -> Result<Vec<SharedLabel>, Error> {
    let labels = teacher.predict_shared(texts).map_err(|e| Error::Teacher {
        stage: stage.to_owned(),
        message: e.to_string(),
    })?;
    if labels.len() != texts.len() {
        return Err(Error::Teacher {
            stage: stage.to_owned(),
            message: format!("{} answers for {} texts", labels.len(), texts.len()),
        });
    }
    Ok(labels)
}

/// One output row, in the key order of the format.
#[derive(Serialize)]
struct Row<'a> {
    id: &'a str,
    text: &'a str,
    label: &'a Label,
    stage: &'a str,
    source_id: &'a str,
    reference: &'static str,
}

fn write_row(
    out: &mut dyn Write,
    id: &str,
    stage: &str,
    text: &str,
    label: &Label,
    source_id: &str,
    reference: Reference,
) -> std::io::Result<()> {
    let row = Row {
        id,
        text,
        label,
        stage,
        source_id,
        reference: reference.name(),
    };
    serde_json::to_writer(&mut *out, &row).map_err(std::io::Error::other)?;
    out.write_all(b"\n")
}

/// A pending row of the chunk.
struct Pending {
    stage: usize,
    source: usize,
    text: String,
}

/// A training text with pending rows.
struct Source {
    /// Its id (given, or `blake3:` and its key).
    id: String,
    /// 16 hex digits of its blake3: the rows' ids are the stage and this (one row per text and
    /// stage at most; a repeated text's rows are duplicates, dropped).
    key: String,
    /// The text.
    text: String,
}

#[derive(Default)]
struct Chunk {
    sources: Vec<Source>,
    rows: Vec<Pending>,
}

struct Run<'a> {
    job: &'a Job,
    plan: &'a Plan,
    teacher: &'a dyn Model,
    out: &'a mut dyn Write,
    seen: Set,
    chunk: Chunk,
    texts_in_chunk: usize,
    rows: Vec<StageRows>,
    calls: u64,
    batches: u64,
    written_to: String,
    /// Scratch space for normal forms.
    buf: String,
}

impl Run<'_> {
    fn text(&mut self, id: Option<&str>, text: &str) -> Result<(), Error> {
        let hash = blake3::hash(text.as_bytes());
        let mut source: Option<usize> = None;
        let mut clean_leak: Option<Option<Leak>> = None;
        for (i, stage) in self.job.stages.iter().enumerate() {
            let Some(threshold) = self.plan.thresholds.get(i).copied().flatten() else {
                continue;
            };
            if text_key(hash.as_bytes(), stage.key) > threshold {
                continue;
            }
            let counts = &mut self.rows[i];
            counts.selected += 1;
            let leak = match clean_leak {
                Some(leak) => leak,
                None => *clean_leak.insert(self.job.eval.leak_of(
                    text,
                    fingerprint(text),
                    &mut self.buf,
                )),
            };
            if count_leak(counts, leak) {
                continue;
            }
            let transformed = stage
                .transform
                .apply_with_hash(text, &TextHash(*hash.as_bytes()));
            if transformed == text {
                counts.unchanged += 1;
                continue;
            }
            let fp: Fingerprint = fingerprint(&transformed);
            if count_leak(
                counts,
                self.job.eval.leak_of(&transformed, fp, &mut self.buf),
            ) {
                continue;
            }
            if !self.seen.insert(fp) {
                counts.duplicate += 1;
                continue;
            }
            let s = *source.get_or_insert_with(|| {
                let key = hash.to_hex();
                let key = key[..16].to_owned();
                let sid = match id {
                    Some(id) => id.to_owned(),
                    None => format!("blake3:{key}"),
                };
                self.chunk.sources.push(Source {
                    id: sid,
                    key,
                    text: text.to_owned(),
                });
                self.chunk.sources.len() - 1
            });
            self.chunk.rows.push(Pending {
                stage: i,
                source: s,
                text: transformed,
            });
        }
        self.texts_in_chunk += 1;
        if self.texts_in_chunk >= self.job.options.chunk_size {
            self.flush()?;
        }
        Ok(())
    }

    /// Labels the chunk's rows with one teacher batch and writes them.
    fn flush(&mut self) -> Result<(), Error> {
        self.texts_in_chunk = 0;
        let chunk = std::mem::take(&mut self.chunk);
        if chunk.rows.is_empty() {
            return Ok(());
        }
        let stages = &self.job.stages;
        fn asked<'c>(stages: &[Stage], chunk: &'c Chunk, p: &'c Pending) -> &'c str {
            match stages[p.stage].label {
                Reference::TeacherClean => &chunk.sources[p.source].text,
                Reference::TeacherTransformed => &p.text,
            }
        }
        let mut index: HashMap<&str, usize, foldhash::fast::FixedState> = HashMap::default();
        let mut batch: Vec<&str> = Vec::new();
        let slots: Vec<usize> = chunk
            .rows
            .iter()
            .map(|p| {
                let t = asked(stages, &chunk, p);
                *index.entry(t).or_insert_with(|| {
                    batch.push(t);
                    batch.len() - 1
                })
            })
            .collect();
        if let Some(budget) = self.job.options.teacher_budget
            && self.calls + batch.len() as u64 > budget
        {
            // The allocation keeps the rows within the budget; this guards the invariant.
            return Err(Error::Option {
                option: "teacher_budget",
                message: format!("{budget} teacher calls would be exceeded"),
            });
        }
        let first_stage = &self.job.stages[chunk.rows[0].stage].name;
        let labels: Vec<Arc<Label>> = ask(self.teacher, &batch, first_stage)?;
        self.calls += batch.len() as u64;
        self.batches += 1;
        for (p, slot) in chunk.rows.iter().zip(slots) {
            let stage = &self.job.stages[p.stage];
            let source = &chunk.sources[p.source];
            let id = format!("{}-{}", stage.name, source.key);
            write_row(
                self.out,
                &id,
                &stage.name,
                &p.text,
                &labels[slot],
                &source.id,
                stage.label,
            )
            .map_err(|e| Error::io(&format!("rows of {}", self.written_to), e))?;
            self.rows[p.stage].written += 1;
        }
        Ok(())
    }
}

/// Counts a leak; whether there was one.
fn count_leak(counts: &mut StageRows, leak: Option<Leak>) -> bool {
    match leak {
        Some(Leak::Exact) => counts.leak_exact += 1,
        Some(Leak::Normalised) => counts.leak_normalised += 1,
        None => return false,
    }
    true
}

/// Concatenates the rows of shards (each written by [`Job::write_rows`] with one plan over all
/// the training texts, the shards contiguous pieces of it, in order), dropping a row whose text
/// an earlier shard wrote: the bytes one run over all the texts writes. Adds the shards'
/// summaries (the duplicates found here counted to their stages); returns the merged summary.
pub fn merge_shards(
    shards: &[(&[u8], &Summary)],
    out: &mut dyn Write,
) -> Result<Option<Summary>, Error> {
    let mut seen = Set::default();
    let mut merged: Option<Summary> = None;
    for (bytes, summary) in shards {
        let mut rows = summary.rows.clone();
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            #[derive(Deserialize)]
            struct Key {
                text: String,
                stage: String,
            }
            let key: Key = serde_json::from_slice(line).map_err(|e| Error::Line {
                file: "shard rows".into(),
                line: 0,
                message: e.to_string(),
            })?;
            if seen.insert(fingerprint(&key.text)) {
                out.write_all(line).map_err(|e| Error::io("rows", e))?;
            } else if let Some(r) = rows.iter_mut().find(|r| r.stage == key.stage) {
                r.written -= 1;
                r.duplicate += 1;
            }
        }
        match &mut merged {
            None => {
                let mut first = (*summary).clone();
                first.rows = rows;
                merged = Some(first);
            }
            Some(m) => {
                for (a, b) in m.rows.iter_mut().zip(&rows) {
                    a.add(b);
                }
                m.teacher_calls += summary.teacher_calls;
                m.teacher_batches += summary.teacher_batches;
            }
        }
    }
    Ok(merged)
}

/// Where the summary of rows written to `rows` goes: beside it, `NAME.allocation.json` for
/// `NAME.jsonl` (or for `NAME` without that extension).
pub fn summary_path(rows: &Path) -> PathBuf {
    let name = rows
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "augment".to_owned());
    let stem = name.strip_suffix(".jsonl").unwrap_or(&name);
    rows.with_file_name(format!("{stem}.allocation.json"))
}

/// The summary as pretty JSON with a final line break.
pub fn summary_json(summary: &Summary) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(summary).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Runs `job` and writes the rows to `rows` and the summary beside it ([`summary_path`]), each
/// atomically (a temporary file renamed into place once complete): on any error neither is
/// written and what was there stays.
pub fn write_files(
    job: &Job,
    training: &dyn TrainingTexts,
    teacher: &dyn Model,
    rows: &Path,
) -> Result<Summary, Error> {
    let name = rows.display().to_string();
    let mut summary = None;
    outfile::write_atomically(rows, |w| {
        let s = job.run(training, teacher, w)?;
        summary = Some(s);
        Ok::<(), Error>(())
    })
    .map_err(|e| match e {
        outfile::WriteError::Refused(e) => e,
        outfile::WriteError::Io(at, e, what) => Error::Io {
            file: at.display().to_string(),
            error: std::io::Error::new(e.kind(), format!("{what}: {e}")),
        },
    })?;
    let summary = summary.ok_or_else(|| Error::io(&name, std::io::Error::other("no summary")))?;
    let path = summary_path(rows);
    outfile::write_atomically(&path, |w| w.write_all(&summary_json(&summary))).map_err(|e| {
        Error::io(
            &path.display().to_string(),
            std::io::Error::other(e.to_string()),
        )
    })?;
    Ok(summary)
}
