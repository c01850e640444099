//! The profile and comparison jobs, over any [`Model`]s: the texts streamed in chunks through
//! the profile libraries, and the report file built from the result ([`crate::envelope`]).
//!
//! The command line runs them over `model-adapters`' models in their prediction cache, Python
//! over its callables; both get the same report file from the same texts, suite and models.

use std::io::Write;

use extractive::FieldBreakdown;
use profile_stats::{Comparison, ProfileReport, Settings, Task};
use suite_core::{CapabilitySuite, Model, SuiteSpec, TeacherSample};

use crate::envelope::{Document, ReportFile};
use crate::error::Error;
use crate::texts::TextsEntry;

/// How a profile runs: what it profiles and how its texts go through the engine.
#[derive(Debug, Clone)]
pub struct ProfileJob<'a> {
    /// Classifier or extractor.
    pub task: Task,
    /// An extractor's expected fields.
    pub fields: &'a [String],
    /// Texts per chunk (memory is bounded by the chunk).
    pub chunk_size: usize,
    /// The teacher's sample ([`crate::plan::teacher_design`]), classifiers only.
    pub sample: Option<TeacherSample>,
    /// Example texts kept per stage and kind (classifiers; 0: none).
    pub examples: usize,
}

/// What a profile computed.
#[derive(Debug)]
pub struct ProfileOutput {
    /// The counts (the bare profile is `report.profile()`).
    pub report: ProfileReport,
    /// An extractor's per-field breakdown.
    pub fields: Option<FieldBreakdown>,
    /// Teacher calls on transformed texts the sample saved.
    pub teacher_calls_saved: u64,
}

impl ProfileOutput {
    /// The texts sampled for the teacher (0 without a sample).
    pub fn sampled_texts(&self) -> u64 {
        match &self.report.counts {
            profile_stats::Counts::Classify(c) => c.sample.as_ref().map_or(0, |s| s.labelled),
            profile_stats::Counts::Extract(_) => 0,
        }
    }
}

/// Profiles `student` against `teacher` under `suite` over the texts of `chunks` (an error ends
/// the run with it), writing the per-text ledger to `ledger` (classifiers).
pub fn profile<I>(
    job: &ProfileJob<'_>,
    student: &dyn Model,
    teacher: &dyn Model,
    suite: &CapabilitySuite,
    chunks: I,
    ledger: Option<&mut dyn Write>,
) -> Result<ProfileOutput, Error>
where
    I: IntoIterator<Item = Result<Vec<String>, Error>>,
{
    match job.task {
        Task::Classify => {
            let mut run = capture::CaptureRun::new(student, teacher, suite)?
                .with_chunk_size(job.chunk_size)
                .with_teacher_sample(job.sample)
                .with_examples(job.examples);
            if let Some(ledger) = ledger {
                run = run.with_ledger(ledger);
            }
            for chunk in chunks {
                run.add(&chunk?)?;
            }
            let saved = run.teacher_calls_saved();
            Ok(ProfileOutput {
                report: run.report()?,
                fields: None,
                teacher_calls_saved: saved,
            })
        }
        Task::Extract => {
            if ledger.is_some() {
                return Err(Error::Usage(
                    "a ledger is for classifiers (an extractor's per-text ledger is not written yet)"
                        .to_owned(),
                ));
            }
            let mut run = extractive::ExtractRun::new(student, teacher, suite, job.fields)?
                .with_chunk_size(job.chunk_size)
                .with_field_breakdown();
            for chunk in chunks {
                run.add(&chunk?)?;
            }
            let (report, fields) = run.report_with_fields()?;
            Ok(ProfileOutput {
                report,
                fields: Some(fields),
                teacher_calls_saved: 0,
            })
        }
    }
}

/// Compares `students` (name, model) against one `teacher` under `suite` over the texts of
/// `chunks`: the teacher asked once per distinct text of a chunk. Also returns the teacher
/// calls on transformed texts the sample saved (0 without one).
pub fn compare<I>(
    job: &ProfileJob<'_>,
    teacher: &dyn Model,
    students: &[(&str, &dyn Model)],
    suite: &CapabilitySuite,
    chunks: I,
) -> Result<(Comparison, u64), Error>
where
    I: IntoIterator<Item = Result<Vec<String>, Error>>,
{
    if students.len() < 2 {
        return Err(Error::Usage(
            "give at least two students to compare".to_owned(),
        ));
    }
    for (k, (name, _)) in students.iter().enumerate() {
        if students[..k].iter().any(|(n, _)| n == name) {
            return Err(Error::Usage(format!("the student {name} is given twice")));
        }
    }
    // A read error ends the chunks; it is the run's error once the comparison returns.
    let mut failed = None;
    let chunks = chunks
        .into_iter()
        .map_while(|chunk| chunk.map_err(|e| failed = Some(e)).ok());
    let comparison = match job.task {
        Task::Classify => capture::compare_students_counted(
            teacher,
            students,
            chunks,
            suite,
            job.sample,
            job.examples,
        )
        .map_err(Error::from),
        Task::Extract => {
            extractive::compare_students_chunked(teacher, students, chunks, suite, job.fields)
                .map(|c| (c, 0))
                .map_err(Error::from)
        }
    };
    if let Some(e) = failed {
        return Err(e);
    }
    comparison
}

/// What a report file says of the run beside its counts.
#[derive(Debug, Clone, Default)]
pub struct Envelope<'a> {
    /// The suite's spec, when the suite has one (a suite file, the default suite, or a Python
    /// suite of catalogue transforms): its fingerprint, transforms, weights, tags and probes go
    /// into the report.
    pub suite: Option<&'a SuiteSpec>,
    /// The texts' fingerprint.
    pub texts: Option<TextsEntry>,
    /// The `run` block (`--with-run-info`), or one per student of a comparison.
    pub runs: Vec<serde_json::Value>,
}

/// The report file of a profile: the report with its models' names, settings and suite, the
/// per-field breakdown, and the envelope.
pub fn report_file(
    output: ProfileOutput,
    student: Option<String>,
    teacher: Option<String>,
    settings: Settings,
    envelope: Envelope<'_>,
) -> ReportFile {
    let report = output.report.with_models(student, teacher);
    let document = Document::Report(Box::new(report)).with_settings(settings);
    let mut file = file_of(document, envelope, false);
    file.fields = output.fields;
    file
}

/// The report file of a comparison: `aliases` (alias, student name) checked by the library, the
/// teacher's name, settings, suite and envelope.
pub fn comparison_file(
    comparison: Comparison,
    aliases: impl IntoIterator<Item = (String, String)>,
    teacher: Option<String>,
    settings: Settings,
    envelope: Envelope<'_>,
) -> Result<ReportFile, Error> {
    let comparison = comparison
        .with_aliases(aliases)
        .map_err(|e| Error::Aliases(e.to_string()))?;
    let comparison = match teacher {
        Some(name) => comparison.with_teacher(Some(name)),
        None => comparison,
    };
    let document = Document::Comparison(comparison).with_settings(settings);
    Ok(file_of(document, envelope, true))
}

/// The one place a document gets its suite description and envelope.
fn file_of(document: Document, envelope: Envelope<'_>, comparison: bool) -> ReportFile {
    let document = match envelope.suite {
        Some(spec) => document.describe_suite(spec),
        None => document,
    };
    let mut file = ReportFile::new(document);
    file.texts = envelope.texts.into_iter().collect();
    let mut runs = envelope.runs;
    if comparison {
        file.runs = runs;
    } else if !runs.is_empty() {
        file.run = Some(runs.remove(0));
    }
    file
}
