//! What a report knows of its suite: the stages in order, each corruption's family and
//! severity, the probes, and a fingerprint of the suite file. A leaf: the figures
//! (`analysis`) and the report both read it.

use profile_types::Reference;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A corruption of the suite, with its place on a severity curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorruptionInfo {
    /// The corruption's name.
    pub name: String,
    /// Its family (e.g. `keyboard_typo`); corruptions of one family form a curve.
    pub family: Option<String>,
    /// Its severity (a typo rate, or a declared `severity`); `None` keeps it off the curves.
    pub severity: Option<f64>,
    /// Which teacher answer its headline figure compares the student with (absent: the
    /// teacher's answer on the corrupted text, mixle's definition).
    #[serde(default, skip_serializing_if = "Reference::is_default")]
    pub reference: Reference,
}

/// What a report needs to know of its suite: stage names in order, severities, and (from the
/// command line) a fingerprint of the suite file, so reports of different suites never merge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteDescriptor {
    /// A fingerprint of the suite's definition (`blake3:…` of its canonical JSON), when known.
    pub fingerprint: Option<String>,
    /// The corruptions, in suite order.
    pub corruptions: Vec<CorruptionInfo>,
    /// The invariance names, in suite order.
    pub invariances: Vec<String>,
    /// Number of probes.
    pub probes: usize,
    /// Each stage's transform and its parameters (`{"transform": NAME, ...}`, canonical), by
    /// stage name, when known: the command line records them from the suite file. Absent from
    /// reports of suites built in code (and from reports written before it existed, which
    /// still read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transforms: Option<indexmap::IndexMap<String, Value>>,
    /// The probe texts, in order, when known (the command line records them from the suite
    /// file, so that a page shows each probe's text beside its predictions, not its number).
    /// Absent from reports of suites built in code and from older reports, which still read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_texts: Option<Vec<String>>,
}

/// A severity to ten significant digits, shortest form: `0.15`, never the `0.15000000000000002`
/// of float arithmetic, in the messages that name a suite's stages.
fn display(value: f64) -> String {
    let rounded = format!("{value:.9e}").parse::<f64>().unwrap_or(value);
    format!("{rounded}")
}

impl SuiteDescriptor {
    /// A descriptor without fingerprint: corruptions as (name, optional (family, severity)),
    /// invariance names, and the number of probes.
    pub fn new<'a>(
        corruptions: impl IntoIterator<Item = (&'a str, Option<(&'a str, f64)>)>,
        invariances: impl IntoIterator<Item = &'a str>,
        probes: usize,
    ) -> SuiteDescriptor {
        SuiteDescriptor {
            fingerprint: None,
            corruptions: corruptions
                .into_iter()
                .map(|(name, severity)| CorruptionInfo {
                    name: name.to_owned(),
                    family: severity.map(|s| s.0.to_owned()),
                    severity: severity.map(|s| s.1),
                    reference: Reference::default(),
                })
                .collect(),
            invariances: invariances.into_iter().map(str::to_owned).collect(),
            probes,
            transforms: None,
            probe_texts: None,
        }
    }

    /// The descriptor with each named corruption's headline reference (names it does not have
    /// are ignored).
    pub fn with_references<'a>(
        mut self,
        references: impl IntoIterator<Item = (&'a str, Reference)>,
    ) -> SuiteDescriptor {
        for (name, reference) in references {
            if let Some(c) = self.corruptions.iter_mut().find(|c| c.name == name) {
                c.reference = reference;
            }
        }
        self
    }

    /// The reference of a corruption's headline (the default for a name it does not have).
    pub fn reference(&self, corruption: &str) -> Reference {
        self.corruptions
            .iter()
            .find(|c| c.name == corruption)
            .map_or(Reference::default(), |c| c.reference)
    }

    /// The family and severity of a corruption (both `None` when it has no severity).
    pub fn severity(&self, corruption: &str) -> (Option<String>, Option<f64>) {
        self.corruptions
            .iter()
            .find(|c| c.name == corruption)
            .map_or((None, None), |c| (c.family.clone(), c.severity))
    }

    pub(crate) fn describe(&self) -> String {
        let corruptions: Vec<String> = self
            .corruptions
            .iter()
            .map(|c| {
                let name = match (&c.family, c.severity) {
                    (Some(f), Some(s)) => format!("{} ({f} {})", c.name, display(s)),
                    _ => c.name.clone(),
                };
                if c.reference.is_default() {
                    name
                } else {
                    format!("{name} against the {}", c.reference.name())
                }
            })
            .collect();
        format!(
            "{}corruptions [{}], invariances [{}], {} probes",
            self.fingerprint
                .as_ref()
                .map_or(String::new(), |f| format!("{f}: ")),
            corruptions.join(", "),
            self.invariances.join(", "),
            self.probes
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 36: a severity of float arithmetic is named rounded.
    #[test]
    fn severities_are_described_rounded() {
        let d = SuiteDescriptor::new([("c", Some(("chain", 0.05 + 0.1)))], ["i"], 0);
        assert_eq!(
            d.describe(),
            "corruptions [c (chain 0.15)], invariances [i], 0 probes"
        );
    }
}
