//! `capkit profile`: capability profiles of real models from the command line.
//!
//! `capkit profile classify --texts FILE --student MODEL --teacher MODEL [--suite SUITE.json]`
//! (and `capkit profile extract ... --fields a,b,c`) runs the library's `capture_profile` /
//! `extractive_capture_profile` with models reached through adapters named by a spec:
//!
//! * `cmd:PROGRAM ARGS…` — a subprocess speaking JSONL on stdin/stdout (`docs/model-protocol.md`);
//! * `http:URL` — POST `{"texts": […]}`, answer `{"labels": […]}` / `{"records": […]}`;
//! * `openai:MODEL` — an OpenAI-compatible chat API (`--base-url`, `--api-key-env`,
//!   `--prompt-template`), the reply trimmed (classify) or parsed as a JSON object (extract);
//! * `file:PREDICTIONS.jsonl` — precomputed `{"text", "label"}` lines.
//!
//! The adapters and the prediction cache are `model_adapters`' (crate `capkit-model-adapters`):
//! answers of `cmd`, `http` and `openai` models are kept on disk keyed by blake3(model identity,
//! text), so re-profiling with another suite never re-asks a model about a text it has answered. The profile JSON is exactly the library's; `--with-run-info` adds a
//! separate top-level `"run"` block. Nothing is written to `--out` unless the whole profile was
//! computed. `capkit profile default-suite` prints the default suite; `capkit profile texts`
//! lists every text a run would send (to precompute `file:` predictions).
//!
//! Beyond upstream's point estimates (`profile-stats`): `--report` writes the counts behind the
//! profile with intervals, paired tests, severity curves and the abstention analysis;
//! `capkit profile compare` profiles several students against one teacher (asked once per
//! text); `capkit profile merge` adds reports of shards; `capkit profile gate` fails a release
//! on conditions over a report's figures. Exit codes: 0 ok, 1 failed (one-line error), 2 usage
//! (and, for `gate` only, a gate that failed: its usage errors are 1).

mod catalogue;
mod compare;
mod gate;
mod merge;
pub(crate) mod model;
mod output;
pub(crate) mod progress;
mod report;
mod run_info;
mod slices;
pub(crate) mod suite;
mod texts;

use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Duration;

use anyhow::{Context as _, bail};

use model_adapters::{ModelSpec, Settings, Task};

use crate::profile::model::CliModel;
use crate::profile::progress::Progress;

/// Arguments of `capkit profile`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Profile a classifier student against its teacher (the `capture_profile` JSON).
    Classify(CommonArgs),
    /// Profile a field extractor student against its teacher (the `extractive_capture_profile` JSON).
    Extract(ExtractArgs),
    /// Print the default suite (used when --suite is not given) as a suite file.
    DefaultSuite,
    /// List the transform catalogue suites can name: each transform's level, kind
    /// (corruption with its severity parameter, or meaning-preserving), parameters with their
    /// defaults, description and an example.
    Transforms(catalogue::ListArgs),
    /// Apply one transform of the catalogue to texts given on the command line.
    Transform(catalogue::TryArgs),
    /// Print every distinct text a profile would send to the models, as `{"text"}` JSONL (to
    /// precompute predictions for `file:` models).
    Texts(TextsArgs),
    /// Profile several students against one teacher (asked once per text): each student's
    /// report and, per pair of students and stage, McNemar's score test and Tango's interval
    /// (Holm-adjusted over the comparison).
    Compare(compare::CompareArgs),
    /// Merge reports (or comparisons) of disjoint text shards into the report of all the texts.
    Merge(merge::MergeArgs),
    /// Check conditions over a report's figures: exit 0 when every gate passes, 2 when one
    /// fails, 1 on an error.
    Gate(gate::GateArgs),
    /// Find the slices of a per-text ledger (`classify --ledger`) where the student disagrees
    /// with its teacher more than on the rest: length bins, tokens, character classes, labels
    /// and pairs of them, Benjamini–Hochberg (or Holm) over every candidate tested.
    Slices(slices::SlicesArgs),
}

#[derive(Debug, clap::Args)]
struct TextsArgs {
    /// The texts (as for classify/extract).
    #[arg(long, value_name = "FILE")]
    texts: PathBuf,
    /// The suite file (default: the default suite).
    #[arg(long, value_name = "SUITE.json")]
    suite: Option<PathBuf>,
    /// The texts of an extract run (which ignores the probes).
    #[arg(long)]
    extract: bool,
}

#[derive(Debug, clap::Args)]
struct ExtractArgs {
    /// The expected fields, comma-separated (schema validity checks each one).
    #[arg(long, value_name = "a,b,c", value_delimiter = ',', required = true)]
    fields: Vec<String>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, clap::Args)]
struct CommonArgs {
    /// The texts: one per line, verbatim (only the line break is removed), or `.jsonl` with a
    /// `"text"` field per line.
    #[arg(long, value_name = "FILE")]
    texts: PathBuf,
    /// A suite file (the `SuiteSpec` JSON). Default: `capkit profile default-suite`.
    #[arg(long, value_name = "SUITE.json")]
    suite: Option<PathBuf>,
    /// The student model: cmd:PROGRAM ARGS…, http:URL, openai:MODEL or file:PREDICTIONS.jsonl.
    #[arg(long, value_name = "MODEL")]
    student: String,
    /// The teacher model (same forms as --student).
    #[arg(long, value_name = "MODEL")]
    teacher: String,
    /// Write the profile here (atomically: a temporary file renamed into place) instead of stdout.
    #[arg(long, value_name = "PROFILE.json")]
    out: Option<PathBuf>,
    /// Add a top-level "run" block: capkit version, suite and texts blake3, model specs.
    #[arg(long)]
    with_run_info: bool,
    /// Write the report (the counts behind the profile, intervals, paired tests, severity
    /// curves, abstention; `capkit-profile-report/1`) instead of the bare profile.
    #[arg(long)]
    report: bool,
    /// Confidence level of the report's intervals.
    #[arg(
        long,
        value_name = "LEVEL",
        default_value_t = 0.95,
        requires = "report"
    )]
    level: f64,
    /// Threshold of the report's break-even severities (agreement, or F1 for extract).
    #[arg(long, value_name = "T", default_value_t = 0.9, requires = "report")]
    break_even: f64,
    /// Example texts the report keeps per stage and kind of outcome (the student's answer
    /// changed alone, the teacher's alone, both; clean disagreements), chosen by content: the
    /// same for any chunks or shards. 0 keeps none. Classify only.
    #[arg(long, value_name = "K", default_value_t = profile_stats::DEFAULT_EXAMPLES)]
    examples: usize,
    /// Write the per-text ledger here (JSONL, atomically): one line per text and stage with
    /// the text's id and key, the transformed text, both sides' answers and what changed
    /// (docs/reports.md). Classify only.
    #[arg(long, value_name = "FILE.jsonl")]
    ledger: Option<PathBuf>,
    #[command(flatten)]
    reference: ReferenceArgs,
    #[command(flatten)]
    sample: SampleArgs,
    #[command(flatten)]
    run: RunArgs,
}

/// Which teacher answer a corruption's headline compares the student with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ReferenceArg {
    /// The teacher's answer on the corrupted text (mixle's definition).
    TeacherTransformed,
    /// The teacher's answer on the clean text (label-preserving corruptions).
    TeacherClean,
}

/// `--reference`, shared by classify and compare.
#[derive(Debug, clap::Args)]
pub(crate) struct ReferenceArgs {
    /// The reference of every corruption's headline (pages, curves, verdicts, gates), over
    /// what the suite's entries declare (`"reference"`): teacher-clean for label-preserving
    /// corruptions such as typos. The bare profile is mixle's whatever it says. Classify only.
    #[arg(long, value_enum, value_name = "REFERENCE")]
    reference: Option<ReferenceArg>,
}

impl ReferenceArgs {
    /// The reference asked for (`None`: each entry's own).
    pub(crate) fn get(&self) -> Option<suite_core::Reference> {
        self.reference.map(|r| match r {
            ReferenceArg::TeacherTransformed => suite_core::Reference::TeacherTransformed,
            ReferenceArg::TeacherClean => suite_core::Reference::TeacherClean,
        })
    }
}

/// Asking the teacher about a sample of the transformed texts only (classify).
#[derive(Debug, clap::Args)]
pub(crate) struct SampleArgs {
    /// Ask the teacher about the corrupted and rewritten versions of this fraction of the texts
    /// only (a seeded uniform sample, chosen per text by its content; the clean texts always
    /// reach it): the figures that need those answers become prediction-powered (PPI++)
    /// estimates with intervals in the report. Classify only.
    #[arg(long, value_name = "FRACTION", conflicts_with = "teacher_budget")]
    teacher_sample: Option<f64>,
    /// The same with a budget of teacher calls on transformed texts: the fraction is
    /// BUDGET / (stages x texts), at most 1 (deduplication only lowers the calls).
    #[arg(long, value_name = "CALLS")]
    teacher_budget: Option<u64>,
    /// The seed of the teacher's sample.
    #[arg(long, value_name = "N", default_value_t = 0)]
    teacher_seed: u64,
}

impl SampleArgs {
    /// The design asked for, if any: refused for extract (see the error), and a fraction out of
    /// (0, 1] or a zero budget is an error naming the flag.
    pub(crate) fn design(
        &self,
        task: Task,
        suite: &suite_core::CapabilitySuite,
        texts: u64,
    ) -> anyhow::Result<Option<suite_core::TeacherSample>> {
        let flag = match (self.teacher_sample, self.teacher_budget) {
            (None, None) => return Ok(None),
            (Some(_), _) => "--teacher-sample",
            (None, Some(_)) => "--teacher-budget",
        };
        if task == Task::Extract {
            bail!("{flag}: {}", capture::profile_stats::RATIO_SAMPLE_REFUSED);
        }
        let stages = suite.corruptions().count() + suite.invariances().count();
        let sample = match (self.teacher_sample, self.teacher_budget) {
            (Some(f), _) => suite_core::TeacherSample::new(f, self.teacher_seed),
            (None, Some(b)) => {
                suite_core::TeacherSample::for_budget(b, stages, texts, self.teacher_seed)
            }
            (None, None) => return Ok(None),
        };
        Ok(Some(sample.map_err(|e| anyhow::anyhow!("{flag}: {e}"))?))
    }
}

/// How models are reached: cache, batching, timeouts, the OpenAI-compatible API.
#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// Directory of the prediction cache (default: $XDG_CACHE_HOME/capkit or ~/.cache/capkit).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Neither read nor write the prediction cache.
    #[arg(long, conflicts_with = "cache_dir")]
    no_cache: bool,
    /// Texts per request for http: models.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    batch_size: u32,
    /// Requests in flight at once for http: and openai: models (results keep input order).
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    concurrency: u16,
    /// Seconds to wait for one answer (cmd: the next output line, the first one including the
    /// model's start-up; http/openai: one attempt).
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    timeout: f64,
    /// Retries of http:/openai: requests after 429, 5xx, timeouts and connection errors.
    #[arg(long, value_name = "N", default_value_t = 3)]
    retries: u32,
    /// Base URL of the OpenAI-compatible API of openai: models (one model can name its own:
    /// openai:MODEL@URL).
    #[arg(long, value_name = "URL", default_value = "http://localhost:8000/v1")]
    base_url: String,
    /// Environment variable holding the API key of openai: models (unset: no Authorization).
    #[arg(long, value_name = "VAR", default_value = "OPENAI_API_KEY")]
    api_key_env: String,
    /// Prompt template of openai: models: a text file with a `{text}` slot.
    #[arg(long, value_name = "FILE")]
    prompt_template: Option<PathBuf>,
    /// Texts read and profiled at once: each chunk goes through every stage (one batch per
    /// model and stage), then only its counts are kept, so memory is bounded by the chunk.
    #[arg(long, value_name = "N", default_value_t = suite_core::DEFAULT_CHUNK_SIZE, value_parser = parse_chunk_size)]
    pub(crate) chunk_size: usize,
}

fn parse_chunk_size(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{s}` is not a chunk size (a whole number >= 1)")),
    }
}

/// How a run reaches its models: the adapters' settings, and the prediction cache's directory
/// (`None`: `--no-cache`).
pub(crate) struct Reach {
    settings: Settings,
    cache_dir: Option<PathBuf>,
}

impl RunArgs {
    /// The adapters' settings for `task`.
    pub(crate) fn settings(&self, task: Task) -> anyhow::Result<Reach> {
        if !(self.timeout.is_finite() && self.timeout > 0.0) {
            bail!("--timeout must be a positive number of seconds");
        }
        let cache_dir = if self.no_cache {
            None
        } else {
            Some(match &self.cache_dir {
                Some(dir) => dir.clone(),
                None => model_adapters::default_cache_dir(),
            })
        };
        let prompt_template = match &self.prompt_template {
            Some(path) => Some(
                std::fs::read_to_string(path)
                    .with_context(|| format!("--prompt-template {}", path.display()))?,
            ),
            None => None,
        };
        let settings = Settings {
            task,
            batch_size: self.batch_size as usize,
            concurrency: usize::from(self.concurrency),
            timeout: Duration::from_secs_f64(self.timeout),
            retries: self.retries,
            base_url: self.base_url.clone(),
            api_key_env: self.api_key_env.clone(),
            prompt_template,
            // openai: replies go into the cache's database (`open_cached` with the cache dir).
            reply_cache: None,
        };
        Ok(Reach {
            settings,
            cache_dir,
        })
    }
}

/// Trims `--fields` and refuses an empty name.
fn checked_fields(fields: &[String]) -> anyhow::Result<Vec<String>> {
    let fields: Vec<String> = fields.iter().map(|f| f.trim().to_owned()).collect();
    if fields.iter().any(|f| f.is_empty()) {
        bail!("--fields: empty field name in {:?}", fields.join(","));
    }
    Ok(fields)
}

/// Opens the model `raw` names for `side` (`flag` names it in errors).
pub(crate) fn open_model(
    raw: &str,
    flag: &str,
    reach: &Reach,
    side: suite_core::Side,
    progress: &Rc<Progress>,
) -> anyhow::Result<(ModelSpec, CliModel)> {
    let spec = ModelSpec::parse(raw).with_context(|| flag.to_owned())?;
    if matches!(spec, ModelSpec::OpenAi { .. }) && reach.settings.prompt_template.is_none() {
        bail!(
            "{flag}: model `{spec}` needs --prompt-template FILE (a prompt with a {{text}} slot)"
        );
    }
    let model = CliModel::open(
        &spec,
        &reach.settings,
        reach.cache_dir.as_deref(),
        side,
        Rc::clone(progress),
    )
    .with_context(|| flag.to_owned())?;
    Ok((spec, model))
}

/// A profile error as one message (its text already names its sources).
fn flat(e: &dyn std::fmt::Display) -> anyhow::Error {
    anyhow::Error::msg(e.to_string())
}

/// Whether the command line is `capkit profile gate …`.
pub(crate) use gate::is_gate_command;

/// Runs `capkit profile …`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Classify(common) => profile(&common, Task::Classify, &[]),
        Command::Extract(extract) => profile(
            &extract.common,
            Task::Extract,
            &checked_fields(&extract.fields)?,
        ),
        Command::DefaultSuite => {
            let mut out = crate::stdout::Lines::default();
            out.line(suite::default_spec().to_json_string());
            out.print()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Transforms(args) => catalogue::list(&args).map(|()| ExitCode::SUCCESS),
        Command::Transform(args) => catalogue::try_one(&args).map(|()| ExitCode::SUCCESS),
        Command::Texts(args) => list_texts(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Merge(args) => merge::run(&args),
        Command::Gate(args) => gate::run(&args),
        Command::Slices(args) => slices::run(&args),
    }
}

/// Runs the profile with a model that records what it is asked (which texts a profile sends
/// depends only on the texts and the suite, never on the answers), each distinct text listed
/// once in the order first asked.
fn list_texts(args: &TextsArgs) -> anyhow::Result<ExitCode> {
    use std::cell::RefCell;
    let info = texts::scan(&args.texts)?;
    texts::warn_if_empty(&args.texts, &info);
    let (spec, source) = suite::load(args.suite.as_deref())?;
    let suite = spec
        .build_with(transforms::Catalogue::standard())
        .map_err(|e| source.error(&e))?;
    let seen = RefCell::new((std::collections::HashSet::<String>::new(), Vec::<u8>::new()));
    let recorder = suite_core::BatchFn::new(|batch: &[&str]| -> Vec<serde_json::Value> {
        let (known, out) = &mut *seen.borrow_mut();
        for text in batch {
            if known.insert((*text).to_owned()) {
                // A JSON string of a `str` never fails to serialise.
                let _ = serde_json::to_writer(&mut *out, &serde_json::json!({ "text": text }));
                out.push(b'\n');
            }
        }
        vec![serde_json::json!({}); batch.len()]
    });
    let silent =
        suite_core::BatchFn::new(|batch: &[&str]| vec![serde_json::json!({}); batch.len()]);
    let chunks = texts::chunks(&args.texts, suite_core::DEFAULT_CHUNK_SIZE)?;
    if args.extract {
        let no_fields: [&str; 0] = [];
        let mut run = extractive::ExtractRun::new(&recorder, &silent, &suite, &no_fields)
            .map_err(|e| flat(&e))?;
        for chunk in chunks {
            run.add(&chunk?).map_err(|e| flat(&e))?;
        }
        run.profile().map_err(|e| flat(&e))?;
    } else {
        let mut run = capture::CaptureRun::new(&recorder, &silent, &suite).map_err(|e| flat(&e))?;
        for chunk in chunks {
            run.add(&chunk?).map_err(|e| flat(&e))?;
        }
        run.profile().map_err(|e| flat(&e))?;
    }
    let out = std::mem::take(&mut seen.borrow_mut().1);
    output::write(None, &out)?;
    Ok(ExitCode::SUCCESS)
}

/// What every profile run reads before its models start: the texts, the suite and its
/// progress display. `--out` is checked first: a run must not fail at its end for a path it
/// could have refused.
struct Inputs {
    texts_path: PathBuf,
    texts: texts::TextsInfo,
    spec: suite_core::SuiteSpec,
    source: suite::SuiteSource,
    progress: Rc<Progress>,
    suite: suite_core::CapabilitySuite,
}

impl Inputs {
    /// The texts, `chunk_size` at a time, read as they are needed; each chunk starts the
    /// progress display's stages anew.
    fn chunks(
        &self,
        chunk_size: usize,
    ) -> anyhow::Result<impl Iterator<Item = anyhow::Result<Vec<String>>> + '_> {
        let chunks = texts::chunks(&self.texts_path, chunk_size)?;
        Ok(chunks.inspect(|_| self.progress.new_run()))
    }

    fn load(
        texts: &std::path::Path,
        suite: Option<&std::path::Path>,
        out: Option<&std::path::Path>,
        task: Task,
        reference: Option<suite_core::Reference>,
    ) -> anyhow::Result<Inputs> {
        if let Some(out) = out {
            crate::outfile::check(out, "--out")?;
        }
        if reference.is_some() && task == Task::Extract {
            bail!(
                "--reference: an extractor's corruptions are scored against the teacher's clean records already"
            );
        }
        let texts_read = texts::scan(texts)?;
        texts::warn_if_empty(texts, &texts_read);
        let (mut spec, source) = suite::load(suite)?;
        // In the spec, so that the suite's fingerprint says which references were used.
        if let Some(reference) = reference {
            for entry in &mut spec.corruptions {
                entry.reference = Some(reference);
            }
        }
        let progress = Rc::new(Progress::new(task, &spec));
        let suite = suite::build(&spec, &source, progress.tracker())?;
        Ok(Inputs {
            texts_path: texts.to_owned(),
            texts: texts_read,
            spec,
            source,
            progress,
            suite,
        })
    }
}

/// How a profile runs: its chunk size, the teacher's sample and the examples kept.
struct How {
    chunk_size: usize,
    sample: Option<suite_core::TeacherSample>,
    examples: usize,
}

/// Profiles with the library's report functions, the texts streamed in chunks: the bare
/// profile is the report's (the same profile `capture_profile` / `extractive_capture_profile`
/// return). An extractor's report comes with its per-field breakdown (computed in the same
/// pass).
fn profile_report(
    student: &CliModel,
    teacher: &CliModel,
    inputs: &Inputs,
    task: Task,
    fields: &[String],
    how: How,
    ledger: Option<&mut dyn std::io::Write>,
) -> anyhow::Result<(
    profile_stats::ProfileReport,
    Option<extractive::FieldBreakdown>,
)> {
    // The profile errors' messages already contain their sources: flattened to one message so
    // the one-line error does not repeat them.
    let suite = &inputs.suite;
    let How {
        chunk_size,
        sample,
        examples,
    } = how;
    Ok(match task {
        Task::Classify => {
            let mut run = capture::CaptureRun::new(student, teacher, suite)
                .map_err(|e| flat(&e))?
                .with_chunk_size(chunk_size)
                .with_teacher_sample(sample)
                .with_examples(examples);
            if let Some(ledger) = ledger {
                run = run.with_ledger(ledger);
            }
            for chunk in inputs.chunks(chunk_size)? {
                run.add(&chunk?).map_err(|e| flat(&e))?;
            }
            let saved = run.teacher_calls_saved();
            let report = run.report().map_err(|e| flat(&e))?;
            if let Some(sample) = sample {
                print_saved(&report, sample, saved);
            }
            (report, None)
        }
        Task::Extract => {
            let mut run = extractive::ExtractRun::new(student, teacher, suite, fields)
                .map_err(|e| flat(&e))?
                .with_chunk_size(chunk_size)
                .with_field_breakdown();
            for chunk in inputs.chunks(chunk_size)? {
                run.add(&chunk?).map_err(|e| flat(&e))?;
            }
            let (report, breakdown) = run.report_with_fields().map_err(|e| flat(&e))?;
            (report, Some(breakdown))
        }
    })
}

/// The line a sampled profile ends with, on stderr: the teacher calls the sample saved.
fn print_saved(
    report: &profile_stats::ProfileReport,
    sample: suite_core::TeacherSample,
    saved: u64,
) {
    let labelled = match &report.counts {
        profile_stats::Counts::Classify(c) => c.sample.as_ref().map_or(0, |s| s.labelled),
        profile_stats::Counts::Extract(_) => 0,
    };
    eprintln!(
        "capkit: teacher sample {}: {labelled} of {} texts sampled; {saved} teacher calls on \
         transformed texts saved",
        sample.fraction(),
        report.n()
    );
}

fn profile(args: &CommonArgs, task: Task, fields: &[String]) -> anyhow::Result<ExitCode> {
    let reach = args.run.settings(task)?;
    let stats = if args.report {
        Some(report::settings(args.level, args.break_even)?)
    } else {
        None
    };
    if task == Task::Extract && args.ledger.is_some() {
        bail!("--ledger is for classify (an extractor's per-text ledger is not written yet)");
    }
    let mut ledger = match &args.ledger {
        Some(path) => {
            if args.out.as_deref() == Some(path.as_path()) {
                bail!("--ledger {}: the same file as --out", path.display());
            }
            Some(std::io::BufWriter::new(crate::outfile::AtomicFile::create(
                path, "--ledger",
            )?))
        }
        None => None,
    };
    let inputs = Inputs::load(
        &args.texts,
        args.suite.as_deref(),
        args.out.as_deref(),
        task,
        args.reference.get(),
    )?;
    let Inputs {
        texts,
        spec,
        source: suite_source,
        progress,
        ..
    } = &inputs;
    let sample = args
        .sample
        .design(task, &inputs.suite, texts.count as u64)?;
    let (student_spec, student) = open_model(
        &args.student,
        "--student",
        &reach,
        suite_core::Side::Student,
        progress,
    )?;
    let (teacher_spec, teacher) = open_model(
        &args.teacher,
        "--teacher",
        &reach,
        suite_core::Side::Teacher,
        progress,
    )?;
    let examples = if args.report && task == Task::Classify {
        args.examples
    } else {
        0
    };
    let (report, breakdown) = profile_report(
        &student,
        &teacher,
        &inputs,
        task,
        fields,
        How {
            chunk_size: args.run.chunk_size,
            sample,
            examples,
        },
        ledger.as_mut().map(|l| l as &mut dyn std::io::Write),
    )?;
    if let (Some(ledger), Some(path)) = (ledger, &args.ledger) {
        let file = ledger.into_inner().map_err(|e| {
            anyhow::anyhow!("--ledger {}: cannot write: {}", path.display(), e.error())
        })?;
        file.commit()?;
    }
    let mut json = match stats {
        None => serde_json::to_value(report.profile())?,
        Some(stats) => {
            let mut json = report
                .with_models(
                    Some(student_spec.to_string()),
                    Some(teacher_spec.to_string()),
                )
                .with_settings(stats)
                .with_suite_fingerprint(Some(report::fingerprint(spec)))
                .with_suite_transforms(report::stage_transforms(spec))
                .with_stage_meta(report::stage_meta(spec))
                .with_probe_texts(spec.probes.iter().cloned())
                .to_json();
            // Beside the counts (not part of them: `capkit profile merge` drops it), the
            // per-field breakdown `capkit report` draws as a heat map.
            if let (Some(breakdown), serde_json::Value::Object(map)) = (breakdown, &mut json) {
                map.insert("fields".to_owned(), serde_json::to_value(breakdown)?);
            }
            if let serde_json::Value::Object(map) = &mut json {
                map.insert("texts".to_owned(), report::texts_block(texts));
            }
            json
        }
    };
    progress.finish();
    student.finish()?;
    teacher.finish()?;
    student.report_cache();
    teacher.report_cache();

    if args.with_run_info
        && let serde_json::Value::Object(map) = &mut json
    {
        let run = run_info::RunInfo {
            task,
            fields,
            suite: suite_source,
            texts_blake3: &texts.blake3,
            texts_count: texts.count,
            student: &student_spec,
            teacher: &teacher_spec,
            settings: &reach.settings,
        };
        map.insert("run".to_owned(), run.to_json());
    }
    report::write_json(args.out.as_deref(), &json)?;
    Ok(ExitCode::SUCCESS)
}
