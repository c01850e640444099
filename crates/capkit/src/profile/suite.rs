//! The suite of a run: a `SuiteSpec` file or the documented default, its transforms resolved
//! by the `capkit-transforms` catalogue, built with stage tracking.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context as _;
use suite_core::{CapabilitySuite, SuiteSpec, Transform};
use transforms::Catalogue;

/// The default suite, used without `--suite` (`capkit profile default-suite` prints it):
/// keyboard typos at 0.05, 0.10 and 0.20 (seed 0), case jitter (`str.swapcase`), whitespace
/// collapse, and generic edge-case probes: empty, whitespace only, one letter, digits only,
/// punctuation only, accented Latin, CJK, emoji, mixed scripts, and a 1,000-letter text.
pub(crate) const DEFAULT_SUITE: &str = r#"{
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

/// Where the suite came from, for the run block.
pub(crate) struct SuiteSource {
    /// The file, or `None` for the default suite.
    pub path: Option<String>,
    /// blake3 of the file's bytes (of [`DEFAULT_SUITE`] plus the long probe for the default).
    pub blake3: String,
}

impl SuiteSource {
    /// A build error of this suite, naming its file like the parse errors do.
    pub(crate) fn error(&self, e: &dyn std::fmt::Display) -> anyhow::Error {
        match &self.path {
            Some(path) => anyhow::anyhow!("--suite {path}: {e}"),
            None => anyhow::anyhow!("the default suite: {e}"),
        }
    }
}

/// The default suite's spec.
pub(crate) fn default_spec() -> SuiteSpec {
    let mut spec =
        SuiteSpec::from_json_str_with(DEFAULT_SUITE, Catalogue::standard()).unwrap_or_default();
    spec.probes.push("a".repeat(1000));
    spec
}

/// Reads `--suite`, or the default suite.
pub(crate) fn load(path: Option<&Path>) -> anyhow::Result<(SuiteSpec, SuiteSource)> {
    match path {
        None => {
            let spec = default_spec();
            let blake3 = blake3::hash(spec.to_json_string().as_bytes())
                .to_hex()
                .to_string();
            Ok((spec, SuiteSource { path: None, blake3 }))
        }
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("--suite {}", path.display()))?;
            let text = String::from_utf8_lossy(&bytes);
            // The spec error's message contains its source: one message, not a repeated chain.
            let spec = SuiteSpec::from_json_str_with(&text, Catalogue::standard())
                .map_err(|e| anyhow::anyhow!("--suite {}: {e}", path.display()))?;
            Ok((
                spec,
                SuiteSource {
                    path: Some(path.display().to_string()),
                    blake3: blake3::hash(&bytes).to_hex().to_string(),
                },
            ))
        }
    }
}

/// Builds the suite, each transform wrapped to record in `tracker` which stage it belongs to
/// (1 + its position among corruptions then invariances) when the profile applies it. The
/// profile transforms a stage's texts just before it sends them to the models, so a model call
/// can tell its stage for the progress bars without the library knowing about them.
pub(crate) fn build(
    spec: &SuiteSpec,
    source: &SuiteSource,
    tracker: Arc<AtomicUsize>,
) -> anyhow::Result<CapabilitySuite> {
    let built = spec
        .build_with(Catalogue::standard())
        .map_err(|e| source.error(&e))?;
    let mut suite = CapabilitySuite::new();
    let mut stage = 0;
    for (name, transform) in built.corruptions() {
        stage += 1;
        suite.add_corruption(name, tracked(transform, stage, &tracker));
    }
    for (name, transform) in built.invariances() {
        stage += 1;
        suite.add_invariance(name, tracked(transform, stage, &tracker));
    }
    for probe in built.probes() {
        suite.add_probe(probe.clone());
    }
    Ok(suite)
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
        let spec = default_spec();
        assert_eq!(spec.corruptions.len(), 3);
        assert_eq!(spec.invariances.len(), 2);
        assert_eq!(spec.probes.len(), 10);
        let (_, source) = load(None).unwrap();
        let suite = build(&spec, &source, Arc::default()).unwrap();
        assert_eq!(
            suite.corruption_names().collect::<Vec<_>>(),
            ["typo_05", "typo_10", "typo_20"]
        );
    }

    #[test]
    fn tracked_transforms_behave_like_the_originals() {
        let spec = default_spec();
        let plain = spec.build().unwrap();
        let tracker = Arc::new(AtomicUsize::new(0));
        let (_, source) = load(None).unwrap();
        let wrapped = build(&spec, &source, Arc::clone(&tracker)).unwrap();
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
}
