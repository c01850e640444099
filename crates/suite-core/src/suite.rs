//! The capability suite.

use indexmap::IndexMap;

use crate::Transform;

/// Named corruptions (mildest first), named invariances and probes.
///
/// Both maps keep insertion order, which is the order of the profile's maps. Re-adding an
/// existing name keeps its position and replaces its transform (upstream's dict semantics).
#[derive(Debug, Clone, Default)]
pub struct CapabilitySuite {
    corruptions: IndexMap<String, Transform>,
    invariances: IndexMap<String, Transform>,
    probes: Vec<String>,
}

impl CapabilitySuite {
    /// An empty suite.
    pub fn new() -> CapabilitySuite {
        CapabilitySuite::default()
    }

    /// Adds (or replaces) a corruption. Add them mildest first.
    pub fn add_corruption(&mut self, name: impl Into<String>, transform: Transform) -> &mut Self {
        self.corruptions.insert(name.into(), transform);
        self
    }

    /// Adds (or replaces) an invariance.
    pub fn add_invariance(&mut self, name: impl Into<String>, transform: Transform) -> &mut Self {
        self.invariances.insert(name.into(), transform);
        self
    }

    /// Appends a probe.
    pub fn add_probe(&mut self, probe: impl Into<String>) -> &mut Self {
        self.probes.push(probe.into());
        self
    }

    /// The corruptions, in insertion order.
    pub fn corruptions(&self) -> impl Iterator<Item = (&str, &Transform)> {
        self.corruptions.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The invariances, in insertion order.
    pub fn invariances(&self) -> impl Iterator<Item = (&str, &Transform)> {
        self.invariances.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The corruptions with their place on a severity curve (family, severity), in insertion
    /// order; `None` for a corruption without a severity.
    pub fn corruption_severities(&self) -> impl Iterator<Item = (&str, Option<(&str, f64)>)> {
        self.corruptions().map(|(name, t)| {
            let severity = t.severity().map(|s| (s.family.as_str(), s.value));
            (name, severity)
        })
    }

    /// The corruptions with the reference of their headline figure, in insertion order.
    pub fn corruption_references(&self) -> impl Iterator<Item = (&str, crate::Reference)> {
        self.corruptions().map(|(name, t)| (name, t.reference()))
    }

    /// Every corruption's headline compared with `reference` (the command line's
    /// `--reference`): a suite-wide choice over what each entry declared.
    pub fn set_reference(&mut self, reference: crate::Reference) -> &mut Self {
        for t in self.corruptions.values_mut() {
            *t = t.clone().with_reference(reference);
        }
        self
    }

    /// The corruption names, in insertion order.
    pub fn corruption_names(&self) -> impl Iterator<Item = &str> {
        self.corruptions.keys().map(String::as_str)
    }

    /// The invariance names, in insertion order.
    pub fn invariance_names(&self) -> impl Iterator<Item = &str> {
        self.invariances.keys().map(String::as_str)
    }

    /// One corruption by name.
    pub fn corruption(&self, name: &str) -> Option<&Transform> {
        self.corruptions.get(name)
    }

    /// One invariance by name.
    pub fn invariance(&self, name: &str) -> Option<&Transform> {
        self.invariances.get(name)
    }

    /// The probes, in order.
    pub fn probes(&self) -> &[String] {
        &self.probes
    }
}
