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

mod breakdown;
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

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
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
    /// Break a ledger (`classify --ledger`) down by groups of texts — the teacher's or the
    /// student's clean label, the length bin — with each stage's rate and Wilson interval per
    /// group and, per corruption, the paired clean-vs-corrupted test; and the confusions of
    /// student against teacher labels, clean and per corruption.
    Breakdown(breakdown::BreakdownArgs),
}

#[derive(Debug, clap::Args)]
struct TextsArgs {
    #[command(flatten)]
    texts: TextsFileArgs,
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
    #[command(flatten)]
    texts: TextsFileArgs,
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
    #[command(flatten)]
    progress: ProgressArgs,
}

/// How progress is shown on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ProgressMode {
    /// A bar per model call (the default on a terminal).
    Bar,
    /// A line every few seconds with the stage, texts done, rate and ETA (the default when
    /// stderr is not a terminal: CI, nohup, a log file).
    Lines,
    /// Nothing.
    None,
}

/// `--progress` and `--progress-every`, shared by classify, extract and compare.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct ProgressArgs {
    /// How progress is shown on stderr (default: bar on a terminal, lines otherwise).
    #[arg(long, value_enum, value_name = "MODE")]
    progress: Option<ProgressMode>,
    /// Seconds between two progress lines (`--progress lines`).
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = parse_seconds)]
    progress_every: f64,
}

impl ProgressArgs {
    fn mode(&self) -> ProgressMode {
        use std::io::IsTerminal as _;
        self.progress.unwrap_or(if std::io::stderr().is_terminal() {
            ProgressMode::Bar
        } else {
            ProgressMode::Lines
        })
    }
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("`{s}` is not a number of seconds (> 0)")),
    }
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
    /// The design asked for, if any, by the runner's one rule (refused for extract; a fraction
    /// out of (0, 1] or a zero budget is an error naming the flag).
    pub(crate) fn design(
        &self,
        task: Task,
        suite: &runner::SuiteFile,
        texts: u64,
    ) -> anyhow::Result<Option<suite_core::TeacherSample>> {
        let request = match (self.teacher_sample, self.teacher_budget) {
            (Some(f), _) => Some(runner::SampleRequest::Fraction(f)),
            (None, Some(b)) => Some(runner::SampleRequest::Budget(b)),
            (None, None) => None,
        };
        runner::plan::teacher_design(
            request,
            self.teacher_seed,
            task == Task::Extract,
            suite.stages(),
            texts,
        )
        .map_err(cli_error)
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
    progress: &Arc<Progress>,
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
        Arc::clone(progress),
    )
    .with_context(|| flag.to_owned())?;
    Ok((spec, model))
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
            out.line(runner::suite::default_spec().to_json_string());
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
        Command::Breakdown(args) => breakdown::run(&args),
    }
}

/// Runs the profile with a model that records what it is asked (which texts a profile sends
/// depends only on the texts and the suite, never on the answers), each distinct text listed
/// once in the order first asked.
fn list_texts(args: &TextsArgs) -> anyhow::Result<ExitCode> {
    use std::cell::RefCell;
    let format = args.texts.format();
    let info = args.texts.scan()?;
    let suite = runner::SuiteFile::load(args.suite.as_deref()).map_err(cli_error)?;
    let built = suite.build().map_err(cli_error)?;
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
    let job = runner::ProfileJob {
        task: if args.extract {
            profile_stats::Task::Extract
        } else {
            profile_stats::Task::Classify
        },
        fields: &[],
        chunk_size: suite_core::DEFAULT_CHUNK_SIZE,
        sample: None,
        examples: 0,
    };
    let chunks = runner::texts::chunks(&info.path, &format, job.chunk_size).map_err(cli_error)?;
    runner::job::profile(&job, &recorder, &silent, &built, chunks, None).map_err(cli_error)?;
    let out = std::mem::take(&mut seen.borrow_mut().1);
    output::write(None, &out)?;
    Ok(ExitCode::SUCCESS)
}

/// `--texts FILE` with how to read it: what every command that reads texts takes.
#[derive(Debug, clap::Args)]
pub(crate) struct TextsFileArgs {
    /// The texts: one per line, verbatim (only the line break is removed), or `.jsonl` records
    /// with a text field (and optionally an id and other columns) per line.
    #[arg(long, value_name = "FILE")]
    texts: PathBuf,
    /// The field of a JSONL record holding the text.
    #[arg(long, value_name = "NAME", default_value = "text")]
    text_field: String,
    /// The field of a JSONL record holding its id (unique in the file).
    #[arg(long, value_name = "NAME")]
    id_field: Option<String>,
}

impl TextsFileArgs {
    fn format(&self) -> runner::TextsFormat {
        runner::TextsFormat {
            jsonl: None,
            text_field: self.text_field.clone(),
            id_field: self.id_field.clone(),
        }
    }

    /// Checks every line and fingerprints the texts; an empty file is allowed, with a warning.
    fn scan(&self) -> anyhow::Result<runner::TextsInfo> {
        let info = runner::texts::scan(&self.texts, &self.format()).map_err(cli_error)?;
        // An empty texts file is not an error (the profile is well defined: every rate over no
        // texts), but it is almost never what was meant.
        if info.count() == 0 {
            eprintln!(
                "capkit: warning: --texts {}: no texts (the file is empty); the profile covers the probes only",
                self.texts.display()
            );
        }
        Ok(info)
    }
}

/// A runner error as the command line says it: naming the flag that gave what was wrong.
pub(crate) fn cli_error(e: runner::Error) -> anyhow::Error {
    use runner::Error;
    let flag = match &e {
        Error::Texts { .. } => "--texts ",
        Error::SuiteRead { .. } | Error::Suite { path: Some(_), .. } => "--suite ",
        Error::Sample { budget: false, .. } => "--teacher-sample: ",
        Error::Sample { budget: true, .. } => "--teacher-budget: ",
        Error::Aliases(_) => "--alias: ",
        _ => "",
    };
    anyhow::anyhow!("{flag}{e}")
}

/// What every profile run reads before its models start: the texts and the suite. `--out` is
/// checked first: a run must not fail at its end for a path it could have refused.
struct Inputs {
    texts: runner::TextsInfo,
    format: runner::TextsFormat,
    suite: runner::SuiteFile,
    built: suite_core::CapabilitySuite,
    progress: Arc<Progress>,
}

impl Inputs {
    /// The texts, `chunk_size` at a time, read as they are needed.
    fn chunks(
        &self,
        chunk_size: usize,
    ) -> anyhow::Result<impl Iterator<Item = Result<Vec<String>, runner::Error>> + use<>> {
        runner::texts::chunks(&self.texts.path, &self.format, chunk_size).map_err(cli_error)
    }

    fn load(
        texts: &TextsFileArgs,
        suite: Option<&std::path::Path>,
        out: Option<&std::path::Path>,
        task: Task,
        reference: Option<suite_core::Reference>,
        progress: ProgressArgs,
    ) -> anyhow::Result<Inputs> {
        if let Some(out) = out {
            crate::outfile::check(out, "--out")?;
        }
        if reference.is_some() && task == Task::Extract {
            bail!(
                "--reference: an extractor's corruptions are scored against the teacher's clean records already"
            );
        }
        let info = texts.scan()?;
        let suite = runner::SuiteFile::load(suite)
            .map_err(cli_error)?
            .with_reference(reference);
        let built = suite.build().map_err(cli_error)?;
        let progress = Arc::new(Progress::new(
            progress.mode(),
            progress.progress_every,
            &suite.spec,
        ));
        Ok(Inputs {
            texts: info,
            format: texts.format(),
            suite,
            built,
            progress,
        })
    }

    /// The report file's envelope of this run: the suite, the texts' fingerprint, run blocks.
    fn envelope(&self, runs: Vec<serde_json::Value>) -> runner::Envelope<'_> {
        runner::Envelope {
            suite: Some(&self.suite.spec),
            texts: Some(self.texts.texts.clone()),
            runs,
        }
    }

    /// The `run` block of `--with-run-info` for one student.
    fn run_block(
        &self,
        task: Task,
        fields: &[String],
        student: &ModelSpec,
        teacher: &ModelSpec,
        reach: &Reach,
    ) -> serde_json::Value {
        run_info::RunInfo {
            task,
            fields,
            suite: &self.suite,
            texts: &self.texts,
            student,
            teacher,
            settings: &reach.settings,
        }
        .to_json()
    }
}

/// The line a sampled profile ends with, on stderr: the teacher calls the sample saved.
pub(crate) fn print_saved(sample: suite_core::TeacherSample, sampled: u64, texts: u64, saved: u64) {
    eprintln!(
        "capkit: teacher sample {}: {sampled} of {texts} texts sampled; {saved} teacher calls on \
         transformed texts saved",
        sample.fraction(),
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
        args.progress,
    )?;
    let sample = args
        .sample
        .design(task, &inputs.suite, inputs.texts.count() as u64)?;
    let progress = &inputs.progress;
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
    let job = runner::ProfileJob {
        task: profile_task(task),
        fields,
        chunk_size: args.run.chunk_size,
        sample,
        examples: if args.report && task == Task::Classify {
            args.examples
        } else {
            0
        },
    };
    let output = runner::job::profile(
        &job,
        &student,
        &teacher,
        &inputs.built,
        inputs.chunks(job.chunk_size)?,
        ledger.as_mut().map(|l| l as &mut dyn std::io::Write),
    )
    .map_err(cli_error)?;
    if let Some(sample) = sample {
        print_saved(
            sample,
            output.sampled_texts(),
            output.report.n(),
            output.teacher_calls_saved,
        );
    }
    if let (Some(ledger), Some(path)) = (ledger, &args.ledger) {
        let file = ledger.into_inner().map_err(|e| {
            anyhow::anyhow!("--ledger {}: cannot write: {}", path.display(), e.error())
        })?;
        file.commit()?;
    }
    progress.finish();
    student.finish()?;
    teacher.finish()?;
    student.report_cache();
    teacher.report_cache();
    let run = args
        .with_run_info
        .then(|| inputs.run_block(task, fields, &student_spec, &teacher_spec, &reach));
    let bytes = match stats {
        None => {
            let mut json = serde_json::to_value(output.report.profile())?;
            if let (Some(run), serde_json::Value::Object(map)) = (run, &mut json) {
                map.insert("run".to_owned(), run);
            }
            runner::envelope::json_bytes(&json)
        }
        Some(stats) => runner::job::report_file(
            output,
            Some(student_spec.to_string()),
            Some(teacher_spec.to_string()),
            stats,
            inputs.envelope(run.into_iter().collect()),
        )
        .to_bytes(),
    };
    output::write(args.out.as_deref(), &bytes).map(|()| ExitCode::SUCCESS)
}

/// The statistics crate's name of a task.
pub(crate) fn profile_task(task: Task) -> profile_stats::Task {
    match task {
        Task::Classify => profile_stats::Task::Classify,
        Task::Extract => profile_stats::Task::Extract,
    }
}
