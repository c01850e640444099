//! What a report knows of its suite: the stages in order, each corruption's family and
//! severity, the probes, and a fingerprint of the suite file. A leaf: the figures
//! (`analysis`) and the report both read it.

use profile_types::Reference;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A corruption of the suite, with its place on a severity curve.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
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
    /// Its declared weight in a comparison's overall standing (a finite number > 0); absent:
    /// 1, and absent from reports written before weights existed, which still read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// Its declared tags (`["typo"]`), shown beside it; empty when none were declared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// A stage's declared weight and tags (see [`CorruptionInfo::weight`] and
/// [`CorruptionInfo::tags`]): what [`SuiteDescriptor::invariance_meta`] keeps for each
/// invariance that declared either.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageMeta {
    /// The declared weight; absent: 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// The declared tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

impl StageMeta {
    /// Whether nothing was declared (such a stage is not listed).
    pub fn is_empty(&self) -> bool {
        self.weight.is_none() && self.tags.is_empty()
    }
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
    /// Each invariance's declared weight and tags, by name, for the invariances that declared
    /// either (a map beside [`SuiteDescriptor::invariances`], which stays a list of names so
    /// that older reports read and reports of suites without weights are unchanged).
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub invariance_meta: indexmap::IndexMap<String, StageMeta>,
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
                    ..CorruptionInfo::default()
                })
                .collect(),
            invariances: invariances.into_iter().map(str::to_owned).collect(),
            probes,
            transforms: None,
            probe_texts: None,
            invariance_meta: indexmap::IndexMap::new(),
        }
    }

    /// The descriptor with each named stage's declared weight and tags (corruptions' on their
    /// [`CorruptionInfo`], invariances' in [`SuiteDescriptor::invariance_meta`]; names it does
    /// not have are ignored, and a stage that declared nothing is left as it is).
    pub fn with_stage_meta(
        mut self,
        meta: impl IntoIterator<Item = (String, StageMeta)>,
    ) -> SuiteDescriptor {
        self.set_stage_meta(meta);
        self
    }

    /// [`SuiteDescriptor::with_stage_meta`] in place.
    pub fn set_stage_meta(&mut self, meta: impl IntoIterator<Item = (String, StageMeta)>) {
        for (name, m) in meta {
            if m.is_empty() {
                continue;
            }
            if let Some(c) = self.corruptions.iter_mut().find(|c| c.name == name) {
                c.weight = m.weight;
                c.tags = m.tags;
            } else if self.invariances.contains(&name) {
                self.invariance_meta.insert(name, m);
            }
        }
    }

    /// A stage's weight: declared, else 1 (the clean texts, and any name it does not have).
    pub fn weight(&self, stage: &str) -> f64 {
        self.meta(stage).and_then(|m| m.weight).unwrap_or(1.0)
    }

    /// A stage's declared tags (empty when none).
    pub fn tags(&self, stage: &str) -> Vec<String> {
        self.meta(stage).map(|m| m.tags).unwrap_or_default()
    }

    /// Whether any stage declared a weight (a page then says how it used them).
    pub fn has_weights(&self) -> bool {
        self.corruptions.iter().any(|c| c.weight.is_some())
            || self.invariance_meta.values().any(|m| m.weight.is_some())
    }

    fn meta(&self, stage: &str) -> Option<StageMeta> {
        match self.corruptions.iter().find(|c| c.name == stage) {
            Some(c) => Some(StageMeta {
                weight: c.weight,
                tags: c.tags.clone(),
            }),
            None => self.invariance_meta.get(stage).cloned(),
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

    /// Issue 36: weights and tags travel to corruptions and invariances, old descriptors
    /// (without them) read, and a descriptor without them serialises as before.
    #[test]
    fn weights_and_tags_are_optional() {
        let plain = SuiteDescriptor::new([("c", None)], ["i", "j"], 0);
        let before = serde_json::to_string(&plain).unwrap();
        assert!(!before.contains("weight") && !before.contains("tags") && !before.contains("meta"));
        let meta = |weight: Option<f64>, tags: &[&str]| StageMeta {
            weight,
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        };
        let d = plain.clone().with_stage_meta([
            ("c".to_owned(), meta(Some(2.0), &["typo"])),
            ("i".to_owned(), meta(None, &["case"])),
            ("j".to_owned(), meta(None, &[])),
            ("nope".to_owned(), meta(Some(3.0), &[])),
        ]);
        assert_eq!((d.weight("c"), d.tags("c")), (2.0, vec!["typo".to_owned()]));
        assert_eq!((d.weight("i"), d.tags("i")), (1.0, vec!["case".to_owned()]));
        assert_eq!((d.weight("clean"), d.weight("j")), (1.0, 1.0));
        assert!(d.has_weights() && !plain.has_weights());
        assert_eq!(d.invariance_meta.len(), 1);
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(serde_json::from_str::<SuiteDescriptor>(&json).unwrap(), d);
        assert_eq!(
            serde_json::from_str::<SuiteDescriptor>(&before).unwrap(),
            plain
        );
    }

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
