//! The suite of a run: a suite file (`SuiteSpec` JSON) or the documented default, its
//! transforms resolved by the `capkit-transforms` catalogue, and what a report records of it
//! (fingerprint, each stage's transform, weights and tags, probe texts).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use suite_core::{CapabilitySuite, Reference, SuiteSpec, Transform};
use transforms::Catalogue;

use crate::error::Error;

/// The default suite, used when no suite file is given (`capkit profile default-suite` prints
/// it): keyboard typos at 0.05, 0.10 and 0.20 (seed 0), case jitter (`str.swapcase`), whitespace
/// collapse, and generic edge-case probes: empty, whitespace only, one letter, digits only,
/// punctuation only, accented Latin, CJK, emoji, mixed scripts, and a 1,000-letter text.
pub const DEFAULT_SUITE: &str = r#"{
  "corruptions": [
    {"name": "typo_05", "transform": "keyboard_typo", "rate": 0.05, "seed": 0},
    {"name": "typo_10", "transform": "keyboard_typo", "rate": 0.10, "seed": 0},
    {"name": "typo_20", "transform": "keyboard_typo", "rate": 0.20, "seed": 0}
  ],
  "invariances": [
    {"name": "case", "transform": "case_jitter"},
    {"name": "whitespace", "transform": "whitespace"}
  ],
  "probes": ["", "   ", "a", "1234567890", "?!.,;:", "ÀÉÎÕÜ çñß", "日本語のテキスト", "🙂👍", "Ωmega и текст 123"]
}"#;

/// The default suite's spec.
pub fn default_spec() -> SuiteSpec {
    let mut spec =
        SuiteSpec::from_json_str_with(DEFAULT_SUITE, Catalogue::standard()).unwrap_or_default();
    spec.probes.push("a".repeat(1000));
    spec
}

/// A suite as a run has it: its spec, where it came from, and the hash of its source.
#[derive(Debug, Clone)]
pub struct SuiteFile {
    /// The spec (with a run-wide reference applied, see [`SuiteFile::with_reference`]).
    pub spec: SuiteSpec,
    /// The file, or `None` for the default suite (or a suite given as a value).
    pub path: Option<String>,
    /// blake3 of the file's bytes (of the canonical spec for the default suite).
    pub source_blake3: String,
}

impl SuiteFile {
    /// Reads the suite file at `path`, or the default suite.
    pub fn load(path: Option<&Path>) -> Result<SuiteFile, Error> {
        let Some(path) = path else {
            return Ok(SuiteFile::from_spec(default_spec()));
        };
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| Error::SuiteRead {
            path: name.clone(),
            source,
        })?;
        let text = String::from_utf8_lossy(&bytes);
        let spec = SuiteSpec::from_json_str_with(&text, Catalogue::standard()).map_err(|e| {
            Error::Suite {
                path: Some(name.clone()),
                message: e.to_string(),
            }
        })?;
        Ok(SuiteFile {
            spec,
            path: Some(name),
            source_blake3: blake3::hash(&bytes).to_hex().to_string(),
        })
    }

    /// A suite given as a spec (the default suite, or one built in Python from a `dict`).
    pub fn from_spec(spec: SuiteSpec) -> SuiteFile {
        let source_blake3 = blake3::hash(spec.to_json_string().as_bytes())
            .to_hex()
            .to_string();
        SuiteFile {
            spec,
            path: None,
            source_blake3,
        }
    }

    /// Every corruption's headline against `reference` (the run-wide `--reference`), written
    /// into the spec so that the suite's fingerprint records it.
    pub fn with_reference(mut self, reference: Option<Reference>) -> SuiteFile {
        if let Some(reference) = reference {
            for entry in &mut self.spec.corruptions {
                entry.reference = Some(reference);
            }
        }
        self
    }

    /// A build error of this suite, naming its file like the parse errors do.
    fn error(&self, e: &dyn std::fmt::Display) -> Error {
        Error::Suite {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    /// The suite, its transforms built by the catalogue.
    pub fn build(&self) -> Result<CapabilitySuite, Error> {
        self.spec
            .build_with(Catalogue::standard())
            .map_err(|e| self.error(&e))
    }

    /// The suite with each transform recording in `tracker` which stage it belongs to (1 + its
    /// position among corruptions then invariances) when the profile applies it: the profile
    /// transforms a stage's texts just before it sends them to the models, so a model call can
    /// tell its stage (progress displays) without the engine knowing about them.
    pub fn build_tracked(&self, tracker: &Arc<AtomicUsize>) -> Result<CapabilitySuite, Error> {
        let built = self.build()?;
        let mut suite = CapabilitySuite::new();
        let mut stage = 0;
        for (name, transform) in built.corruptions() {
            stage += 1;
            suite.add_corruption(name, tracked(transform, stage, tracker));
        }
        for (name, transform) in built.invariances() {
            stage += 1;
            suite.add_invariance(name, tracked(transform, stage, tracker));
        }
        for probe in built.probes() {
            suite.add_probe(probe.clone());
        }
        Ok(suite)
    }

    /// `blake3:` of the suite's canonical JSON: equal for equal suites however their files are
    /// laid out, so reports of one suite merge and reports of two suites never do.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.spec)
    }

    /// The number of transformed stages (what a teacher budget is split over).
    pub fn stages(&self) -> usize {
        self.spec.corruptions.len() + self.spec.invariances.len()
    }
}

/// `blake3:` of `spec`'s canonical JSON (see [`SuiteFile::fingerprint`]).
pub fn fingerprint(spec: &SuiteSpec) -> String {
    spec.fingerprint()
}

fn tracked(original: &Transform, stage: usize, tracker: &Arc<AtomicUsize>) -> Transform {
    let inner = original.clone();
    let tracker = Arc::clone(tracker);
    let wrapped = if inner.uses_text_hash() {
        Transform::with_text_hash(move |text, hash| {
            tracker.store(stage, Ordering::Relaxed);
            inner.apply_with_hash(text, hash)
        })
    } else {
        Transform::new(move |text| {
            tracker.store(stage, Ordering::Relaxed);
            inner.apply(text)
        })
    };
    // Same transform, same place on a severity curve.
    wrapped.with_severity_of(original)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_suite_parses_and_builds() {
        let suite = SuiteFile::load(None).unwrap();
        assert_eq!(suite.spec.corruptions.len(), 3);
        assert_eq!(suite.spec.invariances.len(), 2);
        assert_eq!(suite.spec.probes.len(), 10);
        assert_eq!(suite.stages(), 5);
        let built = suite.build_tracked(&Arc::default()).unwrap();
        assert_eq!(
            built.corruption_names().collect::<Vec<_>>(),
            ["typo_05", "typo_10", "typo_20"]
        );
    }

    #[test]
    fn tracked_transforms_behave_like_the_originals() {
        let suite = SuiteFile::load(None).unwrap();
        let plain = suite.build().unwrap();
        let tracker = Arc::new(AtomicUsize::new(0));
        let wrapped = suite.build_tracked(&tracker).unwrap();
        let text = "The quick brown fox jumps over the lazy dog";
        for ((_, a), (_, b)) in plain.corruptions().zip(wrapped.corruptions()) {
            assert_eq!(a.apply(text), b.apply(text));
            assert_eq!(a.uses_text_hash(), b.uses_text_hash());
            assert_eq!(a.severity(), b.severity());
            assert!(b.severity().is_some(), "a typo keeps its rate as severity");
        }
        wrapped.invariance("whitespace").unwrap().apply(text);
        assert_eq!(tracker.load(Ordering::Relaxed), 5);
    }

    #[test]
    fn a_reference_changes_the_fingerprint() {
        let plain = SuiteFile::load(None).unwrap();
        let clean = SuiteFile::load(None)
            .unwrap()
            .with_reference(Some(Reference::TeacherClean));
        assert_ne!(plain.fingerprint(), clean.fingerprint());
        assert_eq!(
            plain.fingerprint(),
            SuiteFile::load(None).unwrap().fingerprint()
        );
    }
}
