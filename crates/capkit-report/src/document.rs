//! The documents a page is made of, recognised from their JSON.

use profile_stats::{COMPARISON_FORMAT, Comparison, ProfileReport, REPORT_FORMAT};
use profile_types::value::json_kind;
use profile_types::{FieldBreakdown, TypoScoreReport};
use serde::Deserialize;
use serde_json::Value;

use crate::Error;

/// One document to render.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    /// A profile report (`capkit-profile-report/1`), classify or extract (boxed: it is much
    /// larger than the others).
    Profile(Box<ProfileDocument>),
    /// A comparison of students (`capkit-profile-comparison/1`).
    Comparison(ComparisonDocument),
    /// A typo score report (`capkit typo score --json`).
    TypoScore(TypoScoreReport),
}

/// A profile report with what the command line recorded of its run.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileDocument {
    /// The report (its figures are recomputed from its counts).
    pub report: ProfileReport,
    /// The `run` block (`--with-run-info`) or the `runs` of a merge.
    pub runs: Vec<RunInfo>,
    /// An extractor's per-field breakdown (a top-level `"fields"` object: TP/FP/FN per field
    /// per stage), when the report carries one.
    pub fields: Option<FieldBreakdown>,
}

/// A comparison with what the command line recorded of its runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ComparisonDocument {
    /// The comparison (figures recomputed from counts).
    pub comparison: Comparison,
    /// The `runs` blocks, one per student.
    pub runs: Vec<RunInfo>,
}

/// The `run` block `capkit profile … --with-run-info` writes: what produced a report. Every
/// key is optional; unknown keys are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct RunInfo {
    /// The capkit version that ran the profile.
    pub capkit_version: Option<String>,
    /// `classify` or `extract`.
    pub task: Option<String>,
    /// The suite file.
    pub suite: Option<FileInfo>,
    /// The texts file.
    pub texts: Option<TextsInfo>,
    /// The student's model spec.
    pub student: Option<String>,
    /// The teacher's model spec.
    pub teacher: Option<String>,
    /// An extractor's expected fields.
    pub fields: Option<Vec<String>>,
}

/// A file named in a run block.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct FileInfo {
    /// Its path (`None` for the built-in default suite).
    pub file: Option<String>,
    /// blake3 of its bytes.
    pub blake3: Option<String>,
}

/// The texts of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct TextsInfo {
    /// How many.
    pub count: Option<u64>,
    /// blake3 of the texts file: the texts' fingerprint.
    pub blake3: Option<String>,
}

impl Document {
    /// Recognises and reads a document: a `format` of `capkit-profile-report/1` or
    /// `capkit-profile-comparison/1` (checked by `profile-stats`, figures recomputed from the
    /// counts), or a typo score report (`scored`, `unpredicted`, `groups`). Errors name the
    /// field that is wrong.
    pub fn from_json(json: &Value) -> Result<Document, Error> {
        let Value::Object(obj) = json else {
            return Err(Error::Unrecognised {
                found: json_kind(json).to_owned(),
            });
        };
        match obj.get("format") {
            Some(Value::String(f)) if f == REPORT_FORMAT => {
                let fields = match obj.get("fields") {
                    Some(v) => Some(parse::<FieldBreakdown>(v, "fields")?),
                    None => None,
                };
                Ok(Document::Profile(Box::new(ProfileDocument {
                    report: ProfileReport::from_json(json)?,
                    runs: runs(obj)?,
                    fields,
                })))
            }
            Some(Value::String(f)) if f == COMPARISON_FORMAT => {
                Ok(Document::Comparison(ComparisonDocument {
                    comparison: Comparison::from_json(json)?,
                    runs: runs(obj)?,
                }))
            }
            Some(other) => Err(Error::Unrecognised {
                found: format!("its `format` is {other}"),
            }),
            None if obj.contains_key("groups") && obj.contains_key("scored") => {
                let report: TypoScoreReport = parse(json, "typo score report")?;
                Ok(Document::TypoScore(report))
            }
            None => Err(Error::Unrecognised {
                found: "an object without `format` or `groups`".to_owned(),
            }),
        }
    }

    /// What kind of document this is, in words.
    pub fn kind(&self) -> &'static str {
        match self {
            Document::Profile(p) => match p.report.task() {
                profile_stats::Task::Classify => "classifier profile",
                profile_stats::Task::Extract => "extractor profile",
            },
            Document::Comparison(_) => "student comparison",
            Document::TypoScore(_) => "typo-task scores",
        }
    }
}

fn runs(obj: &serde_json::Map<String, Value>) -> Result<Vec<RunInfo>, Error> {
    let mut runs = Vec::new();
    if let Some(run) = obj.get("run") {
        runs.push(parse(run, "run")?);
    }
    if let Some(more) = obj.get("runs") {
        let more: Vec<RunInfo> = parse(more, "runs")?;
        runs.extend(more);
    }
    Ok(runs)
}

fn parse<T: serde::de::DeserializeOwned>(v: &Value, at: &str) -> Result<T, Error> {
    T::deserialize(v).map_err(|e| Error::Invalid {
        at: at.to_owned(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_documents_are_named() {
        let e = Document::from_json(&json!([1]))
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("on: an array;")));
        let e = Document::from_json(&json!({"format": "x/1"}))
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("its `format` is \"x/1\"")));
        let e = Document::from_json(
            &json!({"scored": 1, "unpredicted": 0, "groups": [{"needs": "rules"}]}),
        )
        .err()
        .map(|e| e.to_string());
        assert!(
            e.as_deref()
                .is_some_and(|e| e.starts_with("typo score report: ")),
            "{e:?}"
        );
    }

    #[test]
    fn typo_reports_are_recognised() {
        let doc = Document::from_json(&json!({"scored": 2, "unpredicted": 0, "groups": []}));
        assert!(matches!(doc, Ok(Document::TypoScore(r)) if r.scored == 2));
    }
}
