//! What the report commands share: settings from flags, the suite's fingerprint, JSON files.

use std::path::Path;

use anyhow::Context as _;
use extractive::FieldBreakdown;
use profile_stats::{COMPARISON_FORMAT, Comparison, ProfileReport, REPORT_FORMAT, Settings};
use serde::Deserialize as _;
use serde_json::Value;
use suite_core::SuiteSpec;

use crate::profile::output;

/// `--level` and `--break-even`, validated.
pub(crate) fn settings(level: f64, break_even: f64) -> anyhow::Result<Settings> {
    profile_stats::Level::new(level).map_err(|e| anyhow::anyhow!("--level: {e}"))?;
    Settings::new(level, break_even).map_err(|e| anyhow::anyhow!("--break-even: {e}"))
}

/// `blake3:` of the suite's canonical JSON: equal for equal suites however their files are laid
/// out, so reports of one suite merge and reports of two suites never do.
pub(crate) fn fingerprint(spec: &SuiteSpec) -> String {
    format!(
        "blake3:{}",
        blake3::hash(spec.to_json_string().as_bytes()).to_hex()
    )
}

/// Each stage's transform and canonical parameters, by stage name (`{"transform": NAME, ...}`),
/// for the report's suite block: what the page shows beside each stage.
pub(crate) fn stage_transforms(spec: &SuiteSpec) -> Vec<(String, Value)> {
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

/// Each stage's declared weight and tags, from the suite file, for the report's suite
/// descriptor (stages that declare neither are left out, so their reports are unchanged).
pub(crate) fn stage_meta(spec: &SuiteSpec) -> Vec<(String, profile_stats::StageMeta)> {
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

/// Pretty JSON and a line break, to `out` (atomically) or stdout.
pub(crate) fn write_json(out: Option<&Path>, json: &Value) -> anyhow::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(json)?;
    bytes.push(b'\n');
    output::write(out, &bytes)
}

/// A report or a comparison read from a file.
pub(crate) enum Document {
    /// `capkit-profile-report/1`.
    Report(Box<ProfileReport>),
    /// `capkit-profile-comparison/1`.
    Comparison(Comparison),
}

impl Document {
    /// The document as JSON, its figures recomputed from its counts.
    pub(crate) fn to_json(&self) -> Value {
        match self {
            Document::Report(r) => r.to_json(),
            Document::Comparison(c) => c.to_json(),
        }
    }
}

/// The `texts` block every report and comparison carries: the fingerprint of the texts it
/// counts, `[{"count", "blake3"}]` (one entry per shard once merged), so that `capkit profile
/// merge` can refuse a shard given twice.
pub(crate) fn texts_block(texts: &crate::profile::texts::TextsInfo) -> Value {
    serde_json::json!([{"count": texts.count, "blake3": texts.blake3}])
}

/// The `run` block of a single run, or the `runs` of a merge: where a report came from, and the
/// `texts` fingerprints of its shards. Not counts: kept as they are (gates can read them),
/// collected by merges.
#[derive(Default)]
pub(crate) struct Provenance {
    run: Option<Value>,
    runs: Vec<Value>,
    texts: Vec<Value>,
}

impl Provenance {
    /// The texts' fingerprints (blake3) of the shards behind the document: its `texts` block, or
    /// for a report written before it existed, its run blocks' `texts.blake3`. Each once.
    pub(crate) fn fingerprints(&self) -> Vec<String> {
        let from_runs = self
            .run
            .iter()
            .chain(&self.runs)
            .filter_map(|r| r.get("texts"));
        let blocks: Vec<&Value> = if self.texts.is_empty() {
            from_runs.collect()
        } else {
            self.texts.iter().collect()
        };
        let mut out: Vec<String> = Vec::new();
        for b in blocks {
            // No texts, nothing counted twice: empty shards may repeat.
            let empty = b.get("count").and_then(Value::as_u64) == Some(0);
            if let Some(h) = b.get("blake3").and_then(Value::as_str)
                && !empty
                && !out.iter().any(|o| o == h)
            {
                out.push(h.to_owned());
            }
        }
        out
    }

    /// The `texts` entries, in order.
    pub(crate) fn texts(&self) -> Vec<Value> {
        self.texts.clone()
    }

    /// Every run block, in order.
    pub(crate) fn runs(self) -> Vec<Value> {
        self.run.into_iter().chain(self.runs).collect()
    }

    /// Puts the blocks back into `json` under their own keys.
    pub(crate) fn restore(self, json: &mut Value) {
        if let Value::Object(map) = json {
            if let Some(run) = self.run {
                map.insert("run".to_owned(), run);
            }
            if !self.runs.is_empty() {
                map.insert("runs".to_owned(), self.runs.into());
            }
            if !self.texts.is_empty() {
                map.insert("texts".to_owned(), self.texts.into());
            }
        }
    }
}

/// Reads a report or comparison file (checked: format, shape, consistent counts) and where it
/// came from.
///
/// An extractor report's per-field breakdown (`fields`, beside the counts) comes third.
pub(crate) fn read(path: &Path) -> anyhow::Result<(Document, Provenance, Option<FieldBreakdown>)> {
    let at = || path.display().to_string();
    let bytes = std::fs::read(path).with_context(at)?;
    let json: Value =
        serde_json::from_slice(&bytes).map_err(|e| anyhow::anyhow!("{}: not JSON: {e}", at()))?;
    let format = json.get("format").and_then(Value::as_str);
    let document = match format {
        Some(COMPARISON_FORMAT) => Comparison::from_json(&json).map(Document::Comparison),
        Some(REPORT_FORMAT) => {
            ProfileReport::from_json(&json).map(|r| Document::Report(Box::new(r)))
        }
        other => anyhow::bail!(
            "{}: not a capkit report: its `format` is {}; this capkit reads {REPORT_FORMAT} and \
             {COMPARISON_FORMAT} (a bare profile has no counts: write one with `--report`)",
            at(),
            other.map_or("missing".to_owned(), |f| format!("{f:?}"))
        ),
    }
    .map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
    let provenance = Provenance {
        run: json.get("run").cloned(),
        runs: match json.get("runs") {
            Some(Value::Array(runs)) => runs.clone(),
            _ => Vec::new(),
        },
        texts: match json.get("texts") {
            Some(Value::Array(texts)) => texts.clone(),
            _ => Vec::new(),
        },
    };
    let fields = match json.get("fields") {
        Some(f) => Some(
            FieldBreakdown::deserialize(f).map_err(|e| anyhow::anyhow!("{}: fields: {e}", at()))?,
        ),
        None => None,
    };
    Ok((document, provenance, fields))
}
