//! `capkit typo score`: strict scores of predictions against a corpus.
//!
//! Every corpus example (of `--split`, if given) is scored: the oracle runs again and must agree
//! with the corpus's expected set (otherwise `--data`/`--keyboard` differ from the corpus's
//! registry, and the scores would be meaningless). An example with no prediction row is scored
//! as an empty answer; a row without a usable prediction (no `predict`, `null`, an unknown key)
//! is an error naming its line and field (`typo_tasks::parse_prediction`). A prediction for a
//! (task, input) the corpus does not have is an error.
//!
//! Memory: the predictions file is held in memory (it is indexed by (task, input)); the corpus
//! streams through in parallel batches, so its size does not matter.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;

use anyhow::Context as _;
use profile_types::{InputFile, NeedsGroup, TaskAnswers, TypoScoreReport};
use rayon::prelude::*;
use typo_tasks::{
    Example, JsonlReader, Needs, Registry, ScoreResult, Summarizer, Summary, Variant, score_against,
};

use super::{display, needs_heading};
use crate::stdout::Lines;

/// Examples scored per parallel batch.
const CHUNK: usize = 1024;

/// Arguments of `capkit typo score`.
#[derive(Debug, clap::Args)]
pub(crate) struct ScoreArgs {
    /// The JSONL corpus the predictions answer.
    #[arg(long, value_name = "FILE")]
    corpus: PathBuf,
    /// Predictions, one `{"task":…,"input":…,"predict":[…]}` per line.
    #[arg(long, value_name = "FILE")]
    predictions: PathBuf,
    #[command(flatten)]
    registry: super::RegistryArgs,
    /// Score only the corpus examples of this split (`train`, `val`, `test`).
    #[arg(long, value_name = "SPLIT")]
    split: Option<String>,
    /// Print the summaries as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Longest corpus input accepted, in bytes (the oracle runs again on each): as for emit.
    #[arg(long, value_name = "BYTES", default_value_t = typo_tasks::MAX_NAME_LEN)]
    max_name_len: usize,
}

/// One prediction, with the line it came from and whether a corpus example used it.
struct Prediction {
    line: usize,
    predict: Vec<Variant>,
    used: bool,
}

type Key = (String, String);

fn read_predictions(
    args: &ScoreArgs,
    registry: &Registry,
) -> anyhow::Result<HashMap<Key, Prediction>> {
    let label = display(&args.predictions);
    let file = File::open(&args.predictions).with_context(|| format!("{label}: cannot read"))?;
    let mut reader = BufReader::new(file);
    let mut out: HashMap<Key, Prediction> = HashMap::new();
    let mut buf = Vec::new();
    let mut line = 0;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .with_context(|| format!("{label}: line {}: cannot read", line + 1))?;
        if n == 0 {
            break;
        }
        line += 1;
        let text = std::str::from_utf8(&buf)
            .map_err(|e| {
                anyhow::anyhow!(
                    "{label}: line {line}: not valid UTF-8 at column {}",
                    e.valid_up_to() + 1
                )
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
            .map_err(|e| anyhow::anyhow!("{label}: line {line}: {e}"))?;
        if registry.get(&task).is_none() {
            anyhow::bail!(
                "{label}: line {line}: field \"task\": {task:?} is not a task of the registry (have: {})",
                registry.ids().join(", ")
            );
        }
        let key = (task, input);
        if let Some(first) = out.get(&key) {
            anyhow::bail!(
                "{label}: line {line}: a second prediction for {}/{:?} (the first is on line {})",
                key.0,
                key.1,
                first.line
            );
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

/// Runs `capkit typo score`.
pub(crate) fn run(args: &ScoreArgs) -> anyhow::Result<()> {
    let registry = args.registry.registry()?;
    let mut predictions = read_predictions(args, &registry)?;
    let label = display(&args.corpus);
    let file = File::open(&args.corpus).with_context(|| format!("{label}: cannot read"))?;
    let mut corpus = JsonlReader::new(BufReader::with_capacity(1 << 16, file));
    let mut summarizer = Summarizer::new();
    // Per task: empty answers, and the precision sum and count of the others.
    let mut answers: std::collections::BTreeMap<String, (usize, f64, usize)> =
        std::collections::BTreeMap::new();
    let mut scored = 0usize;
    let mut unpredicted = 0usize;
    let mut examples = 0usize;
    let mut batch: Vec<(usize, Example, Vec<Variant>)> = Vec::with_capacity(CHUNK);
    loop {
        batch.clear();
        for item in corpus.by_ref() {
            let (line, e) = item.map_err(|e| anyhow::anyhow!("{label}: {e}"))?;
            examples += 1;
            if args.split.as_ref().is_some_and(|s| *s != e.split) {
                continue;
            }
            if e.input.len() > args.max_name_len {
                anyhow::bail!(
                    "{label}: line {line}: field \"input\": longer than {} bytes (the maximum name length); raise it with --max-name-len",
                    args.max_name_len
                );
            }
            if registry.get(&e.task).is_none() {
                let why = registry
                    .why_unregistered(&e.task)
                    .map(|u| format!("{u}; "))
                    .unwrap_or_default();
                anyhow::bail!(
                    "{label}: line {line}: field \"task\": {:?} is not a task of the registry ({why}pass the --data/--keyboard the corpus was built with)",
                    e.task
                );
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
            let r = r.map_err(anyhow::Error::msg)?;
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
        let scope = args
            .split
            .as_ref()
            .map(|s| format!("'s {s} split"))
            .unwrap_or_default();
        anyhow::bail!(
            "{}: line {}: prediction for {task}/{input:?} is not in the corpus{scope} {label} ({} such predictions)",
            display(&args.predictions),
            p.line,
            strays.len()
        );
    }
    if examples == 0 {
        eprintln!("capkit: warning: {label}: the corpus has no examples; nothing was scored");
    }
    let summaries = summarizer.finish(&registry)?;
    if args.json {
        let file = |path: &std::path::Path| InputFile {
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
            corpus: Some(file(&args.corpus)),
            predictions: Some(file(&args.predictions)),
            answers: Some(answers),
        };
        let mut out = Lines::default();
        out.line(serde_json::to_string_pretty(&report)?);
        out.print()?;
    } else {
        print_table(&summaries)?;
        eprintln!(
            "capkit: scored {} of {label}; {} no prediction and were scored as empty answers",
            crate::words::count(scored, "example"),
            if unpredicted == 1 {
                "1 had".to_owned()
            } else {
                format!("{unpredicted} had")
            }
        );
    }
    Ok(())
}

fn groups(summaries: &[Summary]) -> Vec<(Needs, Vec<&Summary>)> {
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

fn print_table(summaries: &[Summary]) -> anyhow::Result<()> {
    let mut out = Lines::default();
    for (i, (needs, group)) in groups(summaries).into_iter().enumerate() {
        if i > 0 {
            out.line("");
        }
        out.line(needs_heading(needs));
        for s in group {
            out.line(format_args!("  {s}"));
        }
    }
    out.print()
}
