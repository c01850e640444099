//! `capkit profile merge`: reports of text shards into the report of all the texts.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use crate::profile::report::{self, Document};

/// Arguments of `capkit profile merge`.
#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {
    /// The reports (or comparisons) to merge: same format, suite, models and settings.
    #[arg(value_name = "REPORT.json", num_args = 2.., required = true)]
    reports: Vec<PathBuf>,
    /// Write the merged report here (atomically) instead of stdout.
    #[arg(long, value_name = "MERGED.json")]
    out: Option<PathBuf>,
    /// Drop a shard whose texts (its `texts` fingerprints) are all in a shard already merged,
    /// with a warning, instead of refusing it.
    #[arg(long)]
    dedupe: bool,
}

/// Runs `capkit profile merge`.
pub(crate) fn run(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    if let Some(out) = &args.out {
        crate::outfile::check(out, "--out")?;
    }
    let mut paths = args.reports.iter();
    let Some(first) = paths.next() else {
        bail!("give the reports to merge");
    };
    let (mut merged, provenance, mut fields) = report::read(first)?;
    // Which file brought each texts fingerprint: the same shard given twice would count its
    // texts twice.
    let mut seen: Vec<(String, String)> = provenance
        .fingerprints()
        .into_iter()
        .map(|h| (h, first.display().to_string()))
        .collect();
    let mut texts = provenance.texts();
    let mut runs = provenance.runs();
    // Extractor reports' per-field breakdowns add up like their counts; one shard without a
    // breakdown leaves the merged report without one.
    let mut without_fields = fields.is_none().then(|| first.display().to_string());
    for path in paths {
        let (next, more, next_fields) = report::read(path)?;
        let prints = more.fingerprints();
        let repeated: Vec<&(String, String)> =
            seen.iter().filter(|(h, _)| prints.contains(h)).collect();
        if let Some((hash, earlier)) = repeated.first() {
            if args.dedupe && repeated.len() == prints.len() {
                eprintln!(
                    "capkit: warning: {} counts the same texts as {earlier} (blake3 {hash}); \
                     dropped (--dedupe)",
                    path.display()
                );
                continue;
            }
            bail!(
                "{} and {earlier}: the same texts (blake3 {hash}) are in both; merging would \
                 count them twice{}",
                path.display(),
                if args.dedupe {
                    " (--dedupe drops a shard only when all its texts were merged already)"
                } else {
                    "; pass --dedupe to drop the repeated shard"
                }
            );
        }
        seen.extend(prints.into_iter().map(|h| (h, path.display().to_string())));
        texts.extend(more.texts());
        fields = match (fields, next_fields) {
            (Some(a), Some(b)) => Some(extractive::merge_field_breakdowns(&a, &b)),
            (a, b) => {
                if b.is_none() && without_fields.is_none() {
                    without_fields = Some(path.display().to_string());
                }
                a.and(b)
            }
        };
        let refused = |e: profile_stats::Error| {
            anyhow::anyhow!("{} and {}: {e}", first.display(), path.display())
        };
        merged = match (merged, next) {
            (Document::Report(a), Document::Report(b)) => {
                Document::Report(Box::new(a.merge(&b).map_err(refused)?))
            }
            (Document::Comparison(a), Document::Comparison(b)) => {
                Document::Comparison(a.merge(&b).map_err(refused)?)
            }
            _ => bail!(
                "{} and {}: cannot merge a report with a comparison",
                first.display(),
                path.display()
            ),
        };
        runs.extend(more.runs());
    }
    let mut json = merged.to_json();
    if let serde_json::Value::Object(map) = &mut json {
        let extract =
            matches!(&merged, Document::Report(r) if r.task() == profile_stats::Task::Extract);
        match (fields, without_fields) {
            (Some(fields), _) => {
                map.insert("fields".to_owned(), serde_json::to_value(fields)?);
            }
            (None, Some(path)) if extract => eprintln!(
                "capkit: warning: {path} has no per-field breakdown (`fields`); the merged \
                 report has none"
            ),
            _ => {}
        }
        if !runs.is_empty() {
            map.insert("runs".to_owned(), runs.into());
        }
        if !texts.is_empty() {
            map.insert("texts".to_owned(), texts.into());
        }
    }
    report::write_json(args.out.as_deref(), &json)?;
    Ok(ExitCode::SUCCESS)
}
