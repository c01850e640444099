//! The report: counts plus what they were measured on, and the JSON every figure is written to.

use profile_types::{CaptureProfile, ExtractiveProfile, ProbePredictions};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Error;
use crate::analysis;
use crate::counts::{ClassifyCounts, ExtractCounts};
use crate::examples::Examples;
use crate::interval::Method;
use crate::paired::{AdjustMethod, TestMethod};
use crate::settings::Settings;
use crate::suite::SuiteDescriptor;

/// The `format` of a report; a reader refuses any other.
pub const REPORT_FORMAT: &str = "capkit-profile-report/1";

/// Which profile a report belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    /// A classifier (`capture_profile`).
    Classify,
    /// A field extractor (`extractive_capture_profile`).
    Extract,
}

/// Who was profiled: names of the models (the command line's model specs), when known.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Models {
    /// The student.
    pub student: Option<String>,
    /// The teacher.
    pub teacher: Option<String>,
}

/// The counts of a report, by task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counts {
    /// A classifier's counts.
    Classify(ClassifyCounts),
    /// An extractor's counts.
    Extract(ExtractCounts),
}

/// The upstream-shaped profile a report's counts give.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Profile {
    /// `capture_profile`'s.
    Capture(CaptureProfile),
    /// `extractive_capture_profile`'s.
    Extractive(ExtractiveProfile),
}

/// A profile report: the counts behind every rate of a profile, what they were measured on
/// (suite, models) and how figures are derived from them (settings).
///
/// [`ProfileReport::to_json`] writes the counts with every figure derived from them: the
/// upstream-shaped profile, Wilson and delta-method intervals, paired tests, severity curves
/// and the abstention analysis. [`ProfileReport::merge`] adds the counts of two reports over
/// other texts; the merged report is exactly the report over all the texts.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileReport {
    /// The suite.
    pub suite: SuiteDescriptor,
    /// The models.
    pub models: Models,
    /// Level and break-even threshold.
    pub settings: Settings,
    /// The counts.
    pub counts: Counts,
    /// A classifier's raw probe predictions (not counts: they are the same for every shard of
    /// one suite and models, and merging checks that they are).
    pub probes: Option<ProbePredictions>,
    /// Up to `k` example texts per stage and kind of outcome (not counts, but chosen by content
    /// so that merging keeps exactly those of one run over all the texts); `None` when off.
    pub examples: Option<Examples>,
}

impl ProfileReport {
    /// A report with unnamed models and the default settings.
    pub fn new(
        suite: SuiteDescriptor,
        counts: Counts,
        probes: Option<ProbePredictions>,
    ) -> ProfileReport {
        ProfileReport {
            suite,
            models: Models::default(),
            settings: Settings::default(),
            counts,
            probes,
            examples: None,
        }
    }

    /// The report with its examples.
    pub fn with_examples(mut self, examples: Option<Examples>) -> Self {
        self.examples = examples;
        self
    }

    /// Which profile this is.
    pub fn task(&self) -> Task {
        match self.counts {
            Counts::Classify(_) => Task::Classify,
            Counts::Extract(_) => Task::Extract,
        }
    }

    /// Whether a corruption is known to have changed no text (a classifier report that counted
    /// it; `false` otherwise).
    pub fn corruption_changed_nothing(&self, name: &str) -> bool {
        match &self.counts {
            Counts::Classify(c) => c
                .corruptions
                .get(name)
                .and_then(|k| k.change)
                .is_some_and(|k| k.texts_changed == 0),
            Counts::Extract(_) => false,
        }
    }

    /// Whether an invariance is known to have changed no text.
    pub fn invariance_changed_nothing(&self, name: &str) -> bool {
        match &self.counts {
            Counts::Classify(c) => c
                .invariances
                .get(name)
                .and_then(|i| i.texts_changed)
                .is_some_and(|k| k == 0),
            Counts::Extract(_) => false,
        }
    }

    /// Number of texts.
    pub fn n(&self) -> u64 {
        match &self.counts {
            Counts::Classify(c) => c.n,
            Counts::Extract(c) => c.n,
        }
    }

    /// The upstream-shaped profile, computed from the counts.
    pub fn profile(&self) -> Profile {
        match &self.counts {
            Counts::Classify(c) => Profile::Capture(c.profile(self.probes.clone())),
            Counts::Extract(c) => Profile::Extractive(c.profile()),
        }
    }

    /// The classifier profile, or `None` for an extractor report.
    pub fn capture_profile(&self) -> Option<CaptureProfile> {
        match &self.counts {
            Counts::Classify(c) => Some(c.profile(self.probes.clone())),
            Counts::Extract(_) => None,
        }
    }

    /// The extractor profile, or `None` for a classifier report.
    pub fn extractive_profile(&self) -> Option<ExtractiveProfile> {
        match &self.counts {
            Counts::Extract(c) => Some(c.profile()),
            Counts::Classify(_) => None,
        }
    }

    /// The report with its models named.
    pub fn with_models(mut self, student: Option<String>, teacher: Option<String>) -> Self {
        self.models = Models { student, teacher };
        self
    }

    /// The report with other settings.
    pub fn with_settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// The report with each stage's transform and parameters (see
    /// [`SuiteDescriptor::transforms`]).
    pub fn with_suite_transforms(
        mut self,
        transforms: impl IntoIterator<Item = (String, Value)>,
    ) -> Self {
        self.suite.transforms = Some(transforms.into_iter().collect());
        self
    }

    /// The report with its stages' declared weights and tags (see
    /// [`crate::SuiteDescriptor::with_stage_meta`]).
    pub fn with_stage_meta(
        mut self,
        meta: impl IntoIterator<Item = (String, crate::StageMeta)>,
    ) -> Self {
        self.suite.set_stage_meta(meta);
        self
    }

    /// The report with its suite's probe texts (see [`SuiteDescriptor::probe_texts`]).
    pub fn with_probe_texts(mut self, texts: impl IntoIterator<Item = String>) -> Self {
        self.suite.probe_texts = Some(texts.into_iter().collect());
        self
    }

    /// The report with its suite's fingerprint.
    pub fn with_suite_fingerprint(mut self, fingerprint: Option<String>) -> Self {
        self.suite.fingerprint = fingerprint;
        self
    }

    /// The whole report as JSON: `format`, `task`, `suite`, `models`, `settings`, `counts`, the
    /// upstream-shaped `profile`, then the figures (`clean`, `corruptions`, `invariances`,
    /// `curves`, `abstention`) and a glossary of the `methods` they name. No number in it is
    /// NaN or infinite; an undefined estimate (no texts) is `null`.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("format".into(), REPORT_FORMAT.into());
        out.insert("task".into(), value(&self.task()));
        out.insert("suite".into(), value(&self.suite));
        out.insert("models".into(), value(&self.models));
        out.insert("settings".into(), value(&self.settings));
        let figures = match &self.counts {
            Counts::Classify(c) => {
                out.insert("counts".into(), value(c));
                value(&analysis::classify(c, &self.suite, &self.settings))
            }
            Counts::Extract(c) => {
                out.insert("counts".into(), value(c));
                value(&analysis::extract(c, &self.suite, &self.settings))
            }
        };
        out.insert("profile".into(), value(&self.profile()));
        if let Value::Object(figures) = figures {
            out.extend(figures);
        }
        if let Some(examples) = &self.examples {
            out.insert("examples".into(), value(examples));
        }
        let mut glossary = methods();
        if let (Counts::Classify(c), Value::Object(g)) = (&self.counts, &mut glossary)
            && c.sample.is_some()
        {
            g.insert(
                Method::PpiPowerTuned.name().into(),
                Method::PpiPowerTuned.description().into(),
            );
            g.insert(
                TestMethod::PpiWald.name().into(),
                TestMethod::PpiWald.description().into(),
            );
        }
        out.insert("methods".into(), glossary);
        Value::Object(out)
    }

    /// Reads a report written by [`ProfileReport::to_json`]: its `format`, `task`, `suite`,
    /// `models`, `settings`, `counts` and the profile's probes (the figures are recomputed, never
    /// read). Errors name the field that is missing, malformed or inconsistent.
    pub fn from_json(json: &Value) -> Result<ProfileReport, Error> {
        let obj = json.as_object().ok_or_else(|| Error::Invalid {
            at: "report".into(),
            message: "must be a JSON object".into(),
        })?;
        check_format(obj, REPORT_FORMAT)?;
        let task: Task = field(obj, "task", "task")?;
        let counts = match task {
            Task::Classify => Counts::Classify(field(obj, "counts", "counts")?),
            Task::Extract => Counts::Extract(field(obj, "counts", "counts")?),
        };
        let probes = match (task, obj.get("profile").and_then(|p| p.get("probes"))) {
            (Task::Classify, Some(p)) => Some(parse(p.clone(), "profile.probes")?),
            _ => None,
        };
        let report = ProfileReport {
            suite: field(obj, "suite", "suite")?,
            models: field(obj, "models", "models")?,
            settings: field(obj, "settings", "settings")?,
            counts,
            probes,
            examples: match obj.get("examples") {
                Some(e) => Some(parse(e.clone(), "examples")?),
                None => None,
            },
        };
        report.validate()?;
        Ok(report)
    }

    /// Checks the report's internal consistency: settings in range, the counts' stages are the
    /// suite's, every table counts `n` texts.
    pub fn validate(&self) -> Result<(), Error> {
        self.settings.validate()?;
        let (corruptions, invariances): (Vec<&str>, Vec<&str>) = match &self.counts {
            Counts::Classify(c) => {
                c.validate()?;
                (
                    c.corruptions.keys().map(String::as_str).collect(),
                    c.invariances.keys().map(String::as_str).collect(),
                )
            }
            Counts::Extract(c) => {
                c.validate()?;
                (
                    c.corruptions.keys().map(String::as_str).collect(),
                    c.invariances.keys().map(String::as_str).collect(),
                )
            }
        };
        let suite_corruptions: Vec<&str> = self
            .suite
            .corruptions
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        let suite_invariances: Vec<&str> =
            self.suite.invariances.iter().map(String::as_str).collect();
        if corruptions != suite_corruptions || invariances != suite_invariances {
            return Err(Error::Invalid {
                at: "counts".into(),
                message: format!(
                    "its stages (corruptions [{}], invariances [{}]) are not the suite's \
                     (corruptions [{}], invariances [{}])",
                    corruptions.join(", "),
                    invariances.join(", "),
                    suite_corruptions.join(", "),
                    suite_invariances.join(", ")
                ),
            });
        }
        if let Some(e) = &self.examples {
            let names =
                |m: &indexmap::IndexMap<String, _>| -> Vec<String> { m.keys().cloned().collect() };
            if names(&e.corruptions) != suite_corruptions
                || names(&e.invariances) != suite_invariances
            {
                return Err(Error::Invalid {
                    at: "examples".into(),
                    message: "its stages are not the suite's".into(),
                });
            }
            e.validate()?;
        }
        if let Some(texts) = &self.suite.probe_texts
            && texts.len() != self.suite.probes
        {
            return Err(Error::Invalid {
                at: "suite.probe_texts".into(),
                message: format!(
                    "has {} texts for the suite's {} probes",
                    texts.len(),
                    self.suite.probes
                ),
            });
        }
        for c in &self.suite.corruptions {
            if let Some(s) = c.severity
                && !(s.is_finite() && s >= 0.0)
            {
                return Err(Error::Invalid {
                    at: format!("suite.corruptions.{}.severity", c.name),
                    message: format!("must be a finite number >= 0, got {s}"),
                });
            }
        }
        // A weight scales a stage in a comparison's standing: one <= 0 would turn it around.
        let weights = self
            .suite
            .corruptions
            .iter()
            .map(|c| (format!("suite.corruptions.{}.weight", c.name), c.weight))
            .chain(
                self.suite
                    .invariance_meta
                    .iter()
                    .map(|(k, m)| (format!("suite.invariance_meta.{k}.weight"), m.weight)),
            );
        for (at, weight) in weights {
            if let Some(w) = weight
                && !(w.is_finite() && w > 0.0)
            {
                return Err(Error::Invalid {
                    at,
                    message: format!("must be a finite number > 0, got {w}"),
                });
            }
        }
        if let Some(name) = self
            .suite
            .invariance_meta
            .keys()
            .find(|k| !self.suite.invariances.contains(k))
        {
            return Err(Error::Invalid {
                at: format!("suite.invariance_meta.{name}"),
                message: "names no invariance of the suite".into(),
            });
        }
        Ok(())
    }

    /// The report over both reports' texts: counts added. Refuses (naming what differs) unless
    /// the task, suite, models, settings and probe predictions are the same.
    ///
    /// Counts are per text position, so merging reports over overlapping text sets gives the
    /// report of the concatenated sets (duplicates counted twice, as in one run over both).
    pub fn merge(&self, other: &ProfileReport) -> Result<ProfileReport, Error> {
        same("tasks", &self.task(), &other.task(), |t| {
            serde_json::to_string(t).unwrap_or_default()
        })?;
        same(
            "suites",
            &self.suite,
            &other.suite,
            SuiteDescriptor::describe,
        )?;
        same("models", &self.models, &other.models, |m| {
            format!(
                "student {}, teacher {}",
                m.student.as_deref().unwrap_or("unnamed"),
                m.teacher.as_deref().unwrap_or("unnamed")
            )
        })?;
        same("settings", &self.settings, &other.settings, |s| {
            format!("level {}, break-even {}", s.level.get(), s.break_even)
        })?;
        same("probe predictions", &self.probes, &other.probes, |p| {
            serde_json::to_string(p).unwrap_or_default()
        })?;
        let mut merged = self.clone();
        match (&mut merged.examples, &other.examples) {
            (None, None) => {}
            (Some(a), Some(b)) => a.merge(b)?,
            (a, b) => {
                let d = |e: bool| {
                    if e {
                        "examples"
                    } else {
                        "no examples (--examples 0)"
                    }
                };
                return Err(Error::Mismatch {
                    what: "examples".into(),
                    left: d(a.is_some()).into(),
                    right: d(b.is_some()).into(),
                });
            }
        }
        match (&mut merged.counts, &other.counts) {
            (Counts::Classify(a), Counts::Classify(b)) => a.merge(b)?,
            (Counts::Extract(a), Counts::Extract(b)) => a.merge(b)?,
            // Tasks were compared above.
            _ => {}
        }
        Ok(merged)
    }
}

/// The glossary of every method a report names.
pub(crate) fn methods() -> Value {
    let mut m = Map::new();
    for method in Method::ALL {
        m.insert(method.name().into(), method.description().into());
    }
    m.insert(
        TestMethod::McnemarScore.name().into(),
        TestMethod::McnemarScore.description().into(),
    );
    m.insert(
        AdjustMethod::Holm.name().into(),
        AdjustMethod::Holm.description().into(),
    );
    Value::Object(m)
}

/// Serialises a value that cannot fail to serialise (plain structs with string keys).
pub(crate) fn value<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap_or(Value::Null)
}

pub(crate) fn check_format(obj: &Map<String, Value>, expected: &'static str) -> Result<(), Error> {
    match obj.get("format") {
        Some(Value::String(f)) if f == expected => Ok(()),
        found => Err(Error::Format {
            found: found.map_or("missing".into(), |f| format!("`{f}`")),
            expected,
        }),
    }
}

pub(crate) fn field<T: DeserializeOwned>(
    obj: &Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<T, Error> {
    let v = obj.get(key).ok_or_else(|| Error::Invalid {
        at: at.to_owned(),
        message: "missing".into(),
    })?;
    parse(v.clone(), at)
}

pub(crate) fn parse<T: DeserializeOwned>(v: Value, at: &str) -> Result<T, Error> {
    serde_json::from_value(v).map_err(|e| Error::Invalid {
        at: at.to_owned(),
        message: e.to_string(),
    })
}

pub(crate) fn same<T: PartialEq>(
    what: &str,
    a: &T,
    b: &T,
    describe: impl Fn(&T) -> String,
) -> Result<(), Error> {
    if a == b {
        Ok(())
    } else {
        Err(Error::Mismatch {
            what: what.to_owned(),
            left: describe(a),
            right: describe(b),
        })
    }
}
