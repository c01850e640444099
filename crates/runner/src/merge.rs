//! Merging report files of disjoint text shards into the report of all the texts.
//!
//! Counts add up, so a merge equals one run over every text — unless a shard is given twice.
//! Each shard's `texts` fingerprints say which texts it counted: a shard whose texts were
//! merged already is refused (its texts would count twice), or with `dedupe` dropped with a
//! warning when *all* its texts were merged already.

use crate::envelope::{Document, ReportFile};
use crate::error::Error;
use crate::texts::TextsEntry;

/// What a merge says without failing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeWarning {
    /// A shard whose texts were all merged already, dropped (`dedupe`).
    Dropped {
        /// The shard dropped.
        name: String,
        /// The shard that brought its texts first.
        earlier: String,
        /// The repeated fingerprint.
        blake3: String,
    },
    /// An extractor shard without a per-field breakdown: the merged report has none.
    NoFields {
        /// The shard without one.
        name: String,
    },
}

impl std::fmt::Display for MergeWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MergeWarning::Dropped {
                name,
                earlier,
                blake3,
            } => write!(
                f,
                "{name} counts the same texts as {earlier} (blake3 {blake3}); dropped (--dedupe)"
            ),
            MergeWarning::NoFields { name } => write!(
                f,
                "{name} has no per-field breakdown (`fields`); the merged report has none"
            ),
        }
    }
}

/// A merged report file and what the merge warned about.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The report of every shard's texts.
    pub file: ReportFile,
    /// Shards dropped, breakdowns lost.
    pub warnings: Vec<MergeWarning>,
}

/// Merges `files` (each with the name errors and warnings call it by), in order: same format,
/// suite, models and settings; a shard whose texts were merged already is refused, or with
/// `dedupe` dropped when all its texts were.
pub fn merge(files: Vec<(String, ReportFile)>, dedupe: bool) -> Result<Merged, Error> {
    let mut files = files.into_iter();
    let Some((first_name, first)) = files.next() else {
        return Err(Error::Usage("give the reports to merge".to_owned()));
    };
    let mut warnings = Vec::new();
    // Which file brought each texts fingerprint.
    let mut seen: Vec<(String, String)> = first
        .fingerprints()
        .into_iter()
        .map(|h| (h, first_name.clone()))
        .collect();
    // Extractor reports' breakdowns add up like their counts; one shard without a breakdown
    // leaves the merged report without one.
    let mut without_fields = first.fields.is_none().then(|| first_name.clone());
    let mut merged = first;
    for (name, next) in files {
        let prints = next.fingerprints();
        let repeated: Vec<&(String, String)> =
            seen.iter().filter(|(h, _)| prints.contains(h)).collect();
        if let Some((hash, earlier)) = repeated.first() {
            if dedupe && repeated.len() == prints.len() {
                warnings.push(MergeWarning::Dropped {
                    name,
                    earlier: earlier.clone(),
                    blake3: hash.clone(),
                });
                continue;
            }
            return Err(Error::RepeatedShard {
                name,
                earlier: earlier.clone(),
                blake3: hash.clone(),
                dedupe,
            });
        }
        seen.extend(prints.into_iter().map(|h| (h, name.clone())));
        let refused = |e: profile_stats::Error| Error::Merge {
            first: first_name.clone(),
            other: name.clone(),
            message: e.to_string(),
        };
        let document = match (merged.document, next.document) {
            (Document::Report(a), Document::Report(b)) => {
                Document::Report(Box::new(a.merge(&b).map_err(refused)?))
            }
            (Document::Comparison(a), Document::Comparison(b)) => {
                Document::Comparison(a.merge(&b).map_err(refused)?)
            }
            _ => {
                return Err(Error::Merge {
                    first: first_name.clone(),
                    other: name,
                    message: "cannot merge a report with a comparison".to_owned(),
                });
            }
        };
        let fields = match (merged.fields, next.fields) {
            (Some(a), Some(b)) => Some(extractive::merge_field_breakdowns(&a, &b)),
            (a, b) => {
                if b.is_none() && without_fields.is_none() {
                    without_fields = Some(name.clone());
                }
                a.and(b)
            }
        };
        let mut texts = merged.texts;
        texts.extend(next.texts);
        let mut runs: Vec<_> = merged.run.into_iter().chain(merged.runs).collect();
        runs.extend(next.run.into_iter().chain(next.runs));
        merged = ReportFile {
            document,
            fields,
            texts,
            run: None,
            runs,
        };
    }
    // A merge lists every shard's run block under `runs`, a lone file's too.
    if let Some(run) = merged.run.take() {
        merged.runs.insert(0, run);
    }
    if merged.fields.is_none()
        && merged.document.is_extract_report()
        && let Some(name) = without_fields
    {
        warnings.push(MergeWarning::NoFields { name });
    }
    Ok(Merged {
        file: merged,
        warnings,
    })
}

/// Merges the reports of the shards of *one* run (cut by position, as Ray cuts a list): their
/// texts are disjoint by construction even when two shards hold the same texts, so no shard is
/// refused; the merged file's `texts` block is `texts`, the fingerprint of the whole run's
/// texts — the block a single process over every text writes.
pub fn merge_shards(
    files: Vec<(String, ReportFile)>,
    texts: TextsEntry,
) -> Result<ReportFile, Error> {
    let files = files
        .into_iter()
        .map(|(name, mut file)| {
            file.texts.clear();
            (name, file)
        })
        .collect();
    let mut merged = merge(files, false)?.file;
    merged.texts = vec![texts];
    Ok(merged)
}
