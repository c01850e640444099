//! `capkit profile compare`: several students against one teacher.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use model_adapters::Task;
use suite_core::{Model, Side};

use crate::profile::{
    Inputs, ProgressArgs, ReferenceArgs, RunArgs, SampleArgs, TextsFileArgs, checked_fields,
    cli_error, open_model, output, print_saved, profile_task, report,
};

/// Which profile a comparison computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TaskArg {
    /// Classifiers (`capture_profile`): agreement with the teacher's labels.
    Classify,
    /// Field extractors (`extractive_capture_profile`): exact matches of the teacher's records.
    Extract,
}

/// Arguments of `capkit profile compare`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompareArgs {
    #[command(flatten)]
    texts: TextsFileArgs,
    /// A suite file. Default: `capkit profile default-suite`.
    #[arg(long, value_name = "SUITE.json")]
    suite: Option<PathBuf>,
    /// The teacher model (cmd:…, http:…, openai:… or file:…); it answers each text once.
    #[arg(long, value_name = "MODEL")]
    teacher: String,
    /// A student model; give two or more (each pair of students is compared).
    #[arg(long = "student", value_name = "MODEL", required = true, num_args = 1)]
    students: Vec<String>,
    /// What the models do.
    #[arg(long, value_enum, default_value = "classify")]
    task: TaskArg,
    /// The expected fields of `--task extract`, comma-separated.
    #[arg(long, value_name = "a,b,c", value_delimiter = ',')]
    fields: Vec<String>,
    /// Write the comparison here (atomically) instead of stdout.
    #[arg(long, value_name = "COMPARISON.json")]
    out: Option<PathBuf>,
    /// A short name for a student, `ALIAS=MODEL` (MODEL exactly as given to --student), used
    /// on the page and by gates (`students.ALIAS`); repeatable. Students without one are
    /// A, B, C… in order (skipping aliases given).
    #[arg(long = "alias", value_name = "ALIAS=MODEL")]
    aliases: Vec<String>,
    /// Add a top-level "run" block per student (as `--with-run-info` of classify/extract).
    #[arg(long)]
    with_run_info: bool,
    /// Confidence level of the intervals.
    #[arg(long, value_name = "LEVEL", default_value_t = 0.95)]
    level: f64,
    /// Threshold of the break-even severities.
    #[arg(long, value_name = "T", default_value_t = 0.9)]
    break_even: f64,
    /// Example texts each student's report keeps per stage and kind of outcome (as for
    /// classify); 0 keeps none. Classify only.
    #[arg(long, value_name = "K", default_value_t = profile_stats::DEFAULT_EXAMPLES)]
    examples: usize,
    #[command(flatten)]
    reference: ReferenceArgs,
    #[command(flatten)]
    sample: SampleArgs,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    progress: ProgressArgs,
}

/// Runs `capkit profile compare`.
pub(crate) fn run(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let task = match args.task {
        TaskArg::Classify => Task::Classify,
        TaskArg::Extract => Task::Extract,
    };
    let fields = checked_fields(&args.fields)?;
    match (task, fields.is_empty()) {
        (Task::Extract, true) => bail!("--task extract needs --fields a,b,c"),
        (Task::Classify, false) => bail!("--fields is for --task extract"),
        _ => {}
    }
    if args.students.len() < 2 {
        bail!("give at least two --student models to compare");
    }
    // Checked before any model runs: (alias, index of its --student).
    let aliases = args
        .aliases
        .iter()
        .map(|raw| {
            let Some((alias, model)) = raw.split_once('=') else {
                bail!("--alias {raw}: expected ALIAS=MODEL");
            };
            if let Err(message) = profile_stats::check_alias(alias) {
                bail!("--alias {raw}: the alias {message}");
            }
            match args.students.iter().position(|s| s == model) {
                Some(k) => Ok((alias.to_owned(), k)),
                None => bail!("--alias {raw}: {model} is not one of the --student models"),
            }
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let reach = args.run.settings(task)?;
    let stats = report::settings(args.level, args.break_even)?;
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
    let (teacher_spec, teacher) =
        open_model(&args.teacher, "--teacher", &reach, Side::Teacher, progress)?;
    let mut students = Vec::with_capacity(args.students.len());
    for raw in &args.students {
        let (spec, model) = open_model(raw, "--student", &reach, Side::Student, progress)?;
        let name = spec.to_string();
        if students.iter().any(|(n, _, _): &(String, _, _)| *n == name) {
            bail!("--student {name} is given twice");
        }
        students.push((name, spec, model));
    }
    let named: Vec<(&str, &dyn Model)> = students
        .iter()
        .map(|(name, _, model)| (name.as_str(), model as &dyn Model))
        .collect();
    let job = runner::ProfileJob {
        task: profile_task(task),
        fields: &fields,
        chunk_size: args.run.chunk_size,
        sample,
        examples: args.examples,
    };
    let (comparison, saved) = runner::job::compare(
        &job,
        &teacher,
        &named,
        &inputs.built,
        inputs.chunks(job.chunk_size)?,
    )
    .map_err(cli_error)?;
    if let Some(sample) = sample {
        // Each student's report holds the same sample of the teacher's texts.
        let sampled = comparison
            .students
            .values()
            .next()
            .and_then(|r| match &r.counts {
                profile_stats::Counts::Classify(c) => c.sample.as_ref().map(|s| s.labelled),
                profile_stats::Counts::Extract(_) => None,
            })
            .unwrap_or(0);
        let texts = inputs.texts.count() as u64;
        print_saved(sample, sampled, texts, saved);
    }
    progress.finish();
    teacher.finish()?;
    for (_, _, model) in &students {
        model.finish()?;
    }
    teacher.report_cache();
    for (_, _, model) in &students {
        model.report_cache();
    }
    let given = aliases
        .iter()
        .filter_map(|(alias, k)| students.get(*k).map(|s| (alias.clone(), s.0.clone())));
    let runs = if args.with_run_info {
        students
            .iter()
            .map(|(_, spec, _)| inputs.run_block(task, &fields, spec, &teacher_spec, &reach))
            .collect()
    } else {
        Vec::new()
    };
    let file = runner::job::comparison_file(
        comparison,
        given,
        Some(teacher_spec.to_string()),
        stats,
        inputs.envelope(runs),
    )
    .map_err(cli_error)?;
    output::write(args.out.as_deref(), &file.to_bytes())?;
    Ok(ExitCode::SUCCESS)
}
