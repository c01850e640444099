//! The report file: a counts document (`capkit-profile-report/1` or
//! `capkit-profile-comparison/1`) in its envelope, built in one place for every front end.
//!
//! A report file is the document's JSON (its counts, settings, models and the suite descriptor:
//! fingerprint, each stage's transform, weights and tags, probe texts) followed by the envelope's
//! own keys, always in this order:
//!
//! * `fields` — an extractor report's per-field breakdown (beside the counts: it adds up like
//!   them, but is not part of them);
//! * `texts` — `[{"count", "blake3"}]`, the fingerprint of the texts counted (one entry per
//!   shard once merged; see [`crate::texts::TextsFingerprint`]), so a merge refuses a shard
//!   given twice;
//! * `run` / `runs` — where the report came from (capkit version, suite and texts files, model
//!   specs): provenance, never counts, kept as they are and collected by merges.
//!
//! Two reports of the same texts, suite, models and settings are byte-equal apart from `run`,
//! whichever front end made them.

use std::path::Path;

use extractive::FieldBreakdown;
use profile_stats::{COMPARISON_FORMAT, Comparison, ProfileReport, REPORT_FORMAT, Settings};
use serde::Deserialize as _;
use serde_json::Value;
use suite_core::SuiteSpec;

use crate::error::Error;
use crate::texts::TextsEntry;

/// The counts document of a report file.
#[derive(Debug, Clone)]
pub enum Document {
    /// `capkit-profile-report/1`.
    Report(Box<ProfileReport>),
    /// `capkit-profile-comparison/1`.
    Comparison(Comparison),
}

impl Document {
    /// The document as JSON, its figures recomputed from its counts.
    pub fn to_json(&self) -> Value {
        match self {
            Document::Report(r) => r.to_json(),
            Document::Comparison(c) => c.to_json(),
        }
    }

    /// Whether this is an extractor's report.
    pub fn is_extract_report(&self) -> bool {
        matches!(self, Document::Report(r) if r.task() == profile_stats::Task::Extract)
    }

    /// The document with `suite` described in it: its fingerprint, each stage's transform and
    /// canonical parameters, declared weights and tags, and probe texts.
    pub fn describe_suite(self, suite: &SuiteSpec) -> Document {
        let fingerprint = Some(crate::suite::fingerprint(suite));
        match self {
            Document::Report(r) => Document::Report(Box::new(
                r.with_suite_fingerprint(fingerprint)
                    .with_suite_transforms(stage_transforms(suite))
                    .with_stage_meta(stage_meta(suite))
                    .with_probe_texts(suite.probes.iter().cloned()),
            )),
            Document::Comparison(c) => Document::Comparison(
                c.with_suite_fingerprint(fingerprint)
                    .with_suite_transforms(stage_transforms(suite))
                    .with_stage_meta(stage_meta(suite))
                    .with_probe_texts(suite.probes.iter().cloned()),
            ),
        }
    }

    /// The document with its intervals' level and break-even threshold.
    pub fn with_settings(self, settings: Settings) -> Document {
        match self {
            Document::Report(r) => Document::Report(Box::new(r.with_settings(settings))),
            Document::Comparison(c) => Document::Comparison(c.with_settings(settings)),
        }
    }
}

/// Each stage's transform and canonical parameters, by stage name (`{"transform": NAME, ...}`),
/// for the report's suite block: what the page shows beside each stage.
fn stage_transforms(spec: &SuiteSpec) -> Vec<(String, Value)> {
    spec.corruptions
        .iter()
        .chain(&spec.invariances)
        .map(|e| {
            let mut t = serde_json::Map::new();
            t.insert("transform".into(), Value::String(e.transform.clone()));
            t.extend(e.params.clone());
            (e.name.clone(), Value::Object(t))
        })
        .collect()
}

/// Each stage's declared weight and tags (stages that declare neither are left out, so their
/// reports are unchanged).
fn stage_meta(spec: &SuiteSpec) -> Vec<(String, profile_stats::StageMeta)> {
    spec.corruptions
        .iter()
        .chain(&spec.invariances)
        .map(|e| {
            let meta = profile_stats::StageMeta {
                weight: e.weight,
                tags: e.tags.clone(),
            };
            (e.name.clone(), meta)
        })
        .filter(|(_, m)| !m.is_empty())
        .collect()
}

/// A report file: the document and its envelope.
#[derive(Debug, Clone)]
pub struct ReportFile {
    /// The counts document.
    pub document: Document,
    /// An extractor report's per-field breakdown.
    pub fields: Option<FieldBreakdown>,
    /// The fingerprints of the texts counted, one entry per run (shard).
    pub texts: Vec<TextsEntry>,
    /// The `run` block of a single run (`--with-run-info`).
    pub run: Option<Value>,
    /// The `run` blocks of a merge's shards, or a comparison's students.
    pub runs: Vec<Value>,
}

impl ReportFile {
    /// A document with an empty envelope.
    pub fn new(document: Document) -> ReportFile {
        ReportFile {
            document,
            fields: None,
            texts: Vec::new(),
            run: None,
            runs: Vec::new(),
        }
    }

    /// The file's JSON: the document's, then `fields`, `texts`, `run`, `runs` when present.
    pub fn to_json(&self) -> Value {
        let mut json = self.document.to_json();
        if let Value::Object(map) = &mut json {
            if let Some(fields) = &self.fields {
                // A breakdown of counts and names always serialises.
                map.insert(
                    "fields".to_owned(),
                    serde_json::to_value(fields).unwrap_or(Value::Null),
                );
            }
            if !self.texts.is_empty() {
                let texts: Vec<Value> = self
                    .texts
                    .iter()
                    .map(|t| serde_json::json!({"count": t.count, "blake3": t.blake3}))
                    .collect();
                map.insert("texts".to_owned(), texts.into());
            }
            if let Some(run) = &self.run {
                map.insert("run".to_owned(), run.clone());
            }
            if !self.runs.is_empty() {
                map.insert("runs".to_owned(), self.runs.clone().into());
            }
        }
        json
    }

    /// The file's bytes: pretty JSON and a line break (what every front end writes).
    pub fn to_bytes(&self) -> Vec<u8> {
        json_bytes(&self.to_json())
    }

    /// Reads a report or comparison file (checked: format, shape, consistent counts).
    pub fn read(path: &Path) -> Result<ReportFile, Error> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| Error::ReportRead {
            path: name.clone(),
            source,
        })?;
        let json: Value = serde_json::from_slice(&bytes).map_err(|e| Error::Report {
            name: name.clone(),
            message: format!("not JSON: {e}"),
        })?;
        ReportFile::from_json(&json, &name)
    }

    /// A report file from its JSON; `name` names it in errors.
    pub fn from_json(json: &Value, name: &str) -> Result<ReportFile, Error> {
        let bad = |message: String| Error::Report {
            name: name.to_owned(),
            message,
        };
        let format = json.get("format").and_then(Value::as_str);
        let document = match format {
            Some(COMPARISON_FORMAT) => Comparison::from_json(json).map(Document::Comparison),
            Some(REPORT_FORMAT) => {
                ProfileReport::from_json(json).map(|r| Document::Report(Box::new(r)))
            }
            other => {
                return Err(bad(format!(
                    "not a capkit report: its `format` is {}; this capkit reads {REPORT_FORMAT} \
                     and {COMPARISON_FORMAT} (a bare profile has no counts: write one with \
                     `--report`)",
                    other.map_or("missing".to_owned(), |f| format!("{f:?}"))
                )));
            }
        }
        .map_err(|e| bad(e.to_string()))?;
        let fields = match json.get("fields") {
            Some(f) => {
                Some(FieldBreakdown::deserialize(f).map_err(|e| bad(format!("fields: {e}")))?)
            }
            None => None,
        };
        let texts = match json.get("texts") {
            Some(Value::Array(texts)) => texts
                .iter()
                .map(|t| TextsEntry::deserialize(t).map_err(|e| bad(format!("texts: {e}"))))
                .collect::<Result<Vec<_>, _>>()?,
            Some(_) => return Err(bad("texts: expected a list of {count, blake3}".to_owned())),
            None => Vec::new(),
        };
        Ok(ReportFile {
            document,
            fields,
            texts,
            run: json.get("run").cloned(),
            runs: match json.get("runs") {
                Some(Value::Array(runs)) => runs.clone(),
                _ => Vec::new(),
            },
        })
    }

    /// The texts' fingerprints of the shards behind the file: its `texts` block, or for a report
    /// written before it existed, its run blocks' `texts.blake3`. Each once; empty shards (no
    /// texts, nothing counted twice) are left out.
    pub fn fingerprints(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut push = |count: Option<u64>, hash: Option<&str>| {
            if let Some(h) = hash
                && count != Some(0)
                && !out.iter().any(|o| o == h)
            {
                out.push(h.to_owned());
            }
        };
        if self.texts.is_empty() {
            for t in self
                .run
                .iter()
                .chain(&self.runs)
                .filter_map(|r| r.get("texts"))
            {
                push(
                    t.get("count").and_then(Value::as_u64),
                    t.get("blake3").and_then(Value::as_str),
                );
            }
        } else {
            for t in &self.texts {
                push(Some(t.count as u64), Some(&t.blake3));
            }
        }
        out
    }
}

/// Pretty JSON and a line break.
pub fn json_bytes(json: &Value) -> Vec<u8> {
    // A `Value` always serialises.
    let mut bytes = serde_json::to_vec_pretty(json).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
