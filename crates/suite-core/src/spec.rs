//! Suites described in JSON, so they can live in files.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{
    CapabilitySuite, Error, KeyboardTypo, Transform, TypoRng, case_jitter_invariance,
    whitespace_invariance,
};

/// A built-in transform with its parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "transform", rename_all = "snake_case", deny_unknown_fields)]
pub enum TransformSpec {
    /// [`crate::keyboard_typo_corruption`]: `rate` in `[0, 1]`, `seed` (default 0), `rng`
    /// (`"chacha"`, the default, or `"mixle"`).
    KeyboardTypo {
        /// Replacement probability per letter.
        rate: f64,
        /// Seed of the per-text generator.
        #[serde(default)]
        seed: u64,
        /// Which generator.
        #[serde(default)]
        rng: TypoRng,
    },
    /// [`crate::case_jitter_invariance`] (Python `str.swapcase`).
    CaseJitter,
    /// [`crate::whitespace_invariance`] (Python `" ".join(s.split())`).
    Whitespace,
    /// The text unchanged (a control).
    Identity,
}

/// The names [`TransformSpec`] accepts, for error messages.
const TRANSFORM_NAMES: [&str; 4] = ["keyboard_typo", "case_jitter", "whitespace", "identity"];

/// The parameters each transform takes besides `name` and `transform`. Checked by hand:
/// `#[serde(flatten)]` in [`NamedTransform`] defeats `deny_unknown_fields` for the variants
/// without fields, which would otherwise accept any key.
fn parameters(transform: &str) -> &'static [&'static str] {
    match transform {
        "keyboard_typo" => &["rate", "seed", "rng"],
        _ => &[],
    }
}

impl TransformSpec {
    /// Builds the transform.
    pub fn build(&self) -> Result<Transform, Error> {
        Ok(match self {
            TransformSpec::KeyboardTypo { rate, seed, rng } => KeyboardTypo::new(*rate, *seed)?
                .with_rng(*rng)?
                .into_transform(),
            TransformSpec::CaseJitter => case_jitter_invariance(),
            TransformSpec::Whitespace => whitespace_invariance(),
            TransformSpec::Identity => Transform::new(str::to_owned),
        })
    }
}

/// One named entry of a suite section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedTransform {
    /// The name the profile reports it under.
    pub name: String,
    /// The transform and its parameters.
    #[serde(flatten)]
    pub spec: TransformSpec,
    /// A corruption's declared severity (its place on a severity curve of its transform's
    /// family); without it a keyboard typo's severity is its rate, and other transforms have
    /// none. Invariances refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<f64>,
}

/// A suite as JSON: built-in transforms by name with their parameters, probes inline.
///
/// ```
/// use suite_core::SuiteSpec;
///
/// let spec = SuiteSpec::from_json_str(r#"{
///   "corruptions": [{"name": "typo_05", "transform": "keyboard_typo", "rate": 0.05, "seed": 0}],
///   "invariances": [{"name": "case", "transform": "case_jitter"},
///                   {"name": "space", "transform": "whitespace"}],
///   "probes": ["", "ß"]
/// }"#)?;
/// let suite = spec.build()?;
/// assert_eq!(suite.invariance_names().collect::<Vec<_>>(), ["case", "space"]);
///
/// let err = SuiteSpec::from_json_str(r#"{"corruptions": [{"name": "x", "transform": "typo"}]}"#).unwrap_err();
/// assert_eq!(err.to_string(), "corruptions[0]: unknown transform `typo`; valid transforms: \
///     keyboard_typo, case_jitter, whitespace, identity");
/// # Ok::<(), suite_core::Error>(())
/// ```
///
/// A corruption may declare a `"severity"` (a finite number `>= 0`): corruptions of one
/// transform with severities form a severity curve in reports. A keyboard typo's severity is
/// its `rate` unless it declares another:
///
/// ```
/// use suite_core::SuiteSpec;
///
/// let suite = SuiteSpec::from_json_str(r#"{"corruptions": [
///     {"name": "typo", "transform": "keyboard_typo", "rate": 0.1},
///     {"name": "none", "transform": "identity", "severity": 0}]}"#)?.build()?;
/// let severity = |name| suite.corruption(name).and_then(|t| t.severity()).map(|s| (s.family.clone(), s.value));
/// assert_eq!(severity("typo"), Some(("keyboard_typo".to_owned(), 0.1)));
/// assert_eq!(severity("none"), Some(("identity".to_owned(), 0.0)));
/// # Ok::<(), suite_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SuiteSpec {
    /// Corruptions, mildest first.
    #[serde(default)]
    pub corruptions: Vec<NamedTransform>,
    /// Invariances.
    #[serde(default)]
    pub invariances: Vec<NamedTransform>,
    /// Probes.
    #[serde(default)]
    pub probes: Vec<String>,
}

impl SuiteSpec {
    /// Parses a suite file. Errors name the entry (`corruptions[2]`) and what is wrong with it.
    pub fn from_json_str(json: &str) -> Result<SuiteSpec, Error> {
        let root: Value = serde_json::from_str(json).map_err(Error::SpecSyntax)?;
        let Value::Object(mut root) = root else {
            return Err(Error::TransformParameter {
                location: "suite".into(),
                transform: String::new(),
                message:
                    "a suite must be a JSON object with `corruptions`, `invariances` and `probes`"
                        .into(),
            });
        };
        let corruptions = section(&mut root, "corruptions")?;
        let invariances = section(&mut root, "invariances")?;
        let probes = match root.remove("probes") {
            None => Vec::new(),
            Some(v) => serde_json::from_value(v).map_err(Error::SpecSyntax)?,
        };
        if let Some(extra) = root.keys().next() {
            return Err(Error::TransformParameter {
                location: "suite".into(),
                transform: String::new(),
                message: format!(
                    "unknown key `{extra}` (expected corruptions, invariances, probes)"
                ),
            });
        }
        Ok(SuiteSpec {
            corruptions,
            invariances,
            probes,
        })
    }

    /// The spec as pretty JSON (what [`SuiteSpec::from_json_str`] reads back).
    pub fn to_json_string(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Builds the suite, validating every parameter (e.g. typo rates).
    pub fn build(&self) -> Result<CapabilitySuite, Error> {
        let mut suite = CapabilitySuite::new();
        for (i, entry) in self.corruptions.iter().enumerate() {
            suite.add_corruption(entry.name.clone(), build_at("corruptions", i, entry)?);
        }
        for (i, entry) in self.invariances.iter().enumerate() {
            suite.add_invariance(entry.name.clone(), build_at("invariances", i, entry)?);
        }
        for probe in &self.probes {
            suite.add_probe(probe.clone());
        }
        Ok(suite)
    }
}

fn build_at(section: &str, i: usize, entry: &NamedTransform) -> Result<Transform, Error> {
    let family = transform_name(&entry.spec);
    let built = entry.spec.build().and_then(|t| match entry.severity {
        Some(value) => t.with_severity(family, value),
        None => Ok(t),
    });
    built.map_err(|e| match e {
        Error::InvalidRate { .. } | Error::MixleCompatDisabled | Error::InvalidSeverity { .. } => {
            Error::TransformParameter {
                location: format!("{section}[{i}]"),
                transform: family.into(),
                message: e.to_string(),
            }
        }
        other => other,
    })
}

fn transform_name(spec: &TransformSpec) -> &'static str {
    match spec {
        TransformSpec::KeyboardTypo { .. } => "keyboard_typo",
        TransformSpec::CaseJitter => "case_jitter",
        TransformSpec::Whitespace => "whitespace",
        TransformSpec::Identity => "identity",
    }
}

fn section(root: &mut Map<String, Value>, key: &'static str) -> Result<Vec<NamedTransform>, Error> {
    let Some(value) = root.remove(key) else {
        return Ok(Vec::new());
    };
    let bad = |location: String, message: String| Error::TransformParameter {
        location,
        transform: String::new(),
        message,
    };
    let Value::Array(entries) = value else {
        return Err(bad(
            key.into(),
            "must be a list of {\"name\", \"transform\", ...} objects".into(),
        ));
    };
    let mut out: Vec<NamedTransform> = Vec::with_capacity(entries.len());
    for (i, mut entry) in entries.into_iter().enumerate() {
        let location = format!("{key}[{i}]");
        // `severity` belongs to the entry, not to the transform's parameters.
        let severity = entry.as_object_mut().and_then(|o| o.remove("severity"));
        let Value::Object(obj) = &entry else {
            return Err(bad(
                location,
                "must be an object with `name` and `transform`".into(),
            ));
        };
        let Some(Value::String(name)) = obj.get("name") else {
            return Err(bad(location, "needs a string `name`".into()));
        };
        let Some(Value::String(transform)) = obj.get("transform") else {
            return Err(bad(location, "needs a string `transform`".into()));
        };
        if !TRANSFORM_NAMES.contains(&transform.as_str()) {
            return Err(Error::UnknownTransform {
                location,
                name: transform.clone(),
                valid: TRANSFORM_NAMES.join(", "),
            });
        }
        let params = parameters(transform);
        if let Some(extra) = obj
            .keys()
            .find(|k| !matches!(k.as_str(), "name" | "transform") && !params.contains(&k.as_str()))
        {
            let mut expected = if params.is_empty() {
                format!("{transform} takes no parameters")
            } else {
                format!("{transform} takes {}", params.join(", "))
            };
            if key == "corruptions" {
                expected.push_str("; a corruption may also declare `severity`");
            }
            return Err(Error::TransformParameter {
                location,
                transform: transform.clone(),
                message: format!("unknown field `{extra}` ({expected})"),
            });
        }
        if out.iter().any(|e| &e.name == name) {
            return Err(Error::DuplicateName {
                section: key,
                name: name.clone(),
            });
        }
        let transform = transform.clone();
        let parameter = |message: String| Error::TransformParameter {
            location: location.clone(),
            transform: transform.clone(),
            message,
        };
        let severity = match severity {
            None => None,
            Some(_) if key == "invariances" => {
                return Err(parameter(
                    "`severity` is for corruptions only (an invariance has no severity)".into(),
                ));
            }
            Some(Value::Number(n)) => n.as_f64(),
            Some(other) => {
                return Err(parameter(format!(
                    "`severity` must be a number, got {other}"
                )));
            }
        };
        let mut parsed: NamedTransform =
            serde_json::from_value(entry).map_err(|e| Error::TransformParameter {
                location,
                transform,
                message: e.to_string(),
            })?;
        parsed.severity = severity;
        out.push(parsed);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_errors_name_the_entry() {
        let err = SuiteSpec::from_json_str(
            r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1},
                                {"name": "u", "transform": "keyboard_typo", "rate": 0.1, "sede": 1}]}"#,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("corruptions[1]: transform `keyboard_typo`: unknown field `sede`"),
            "{err}"
        );
        let spec = SuiteSpec::from_json_str(
            r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 1.5}]}"#,
        )
        .unwrap();
        let err = spec.build().unwrap_err();
        assert_eq!(
            err.to_string(),
            "corruptions[0]: transform `keyboard_typo`: rate must be in [0, 1], got 1.5"
        );
        let err = SuiteSpec::from_json_str(
            r#"{"invariances": [{"name": "a", "transform": "identity"}, {"name": "a", "transform": "whitespace"}]}"#,
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "invariances: the name `a` is used twice");
        let err = SuiteSpec::from_json_str(r#"{"probs": []}"#).unwrap_err();
        assert!(err.to_string().contains("unknown key `probs`"), "{err}");
    }

    /// Issue 13 item 11: parameterless transforms refused unknown keys only by accident of
    /// serde (never: `flatten` swallowed them).
    #[test]
    fn every_unknown_key_is_an_error_naming_it() {
        let err = |json: &str| SuiteSpec::from_json_str(json).unwrap_err().to_string();
        assert_eq!(
            err(r#"{"invariances": [{"name": "c", "transform": "case_jitter", "rate": 0.5}]}"#),
            "invariances[0]: transform `case_jitter`: unknown field `rate` (case_jitter takes no parameters)"
        );
        assert_eq!(
            err(r#"{"corruptions": [{"name": "i", "transform": "identity", "bogus": 1}]}"#),
            "corruptions[0]: transform `identity`: unknown field `bogus` (identity takes no parameters; \
             a corruption may also declare `severity`)"
        );
        assert_eq!(
            err(r#"{"invariances": [{"name": "w", "transform": "whitespace", "seed": 1}]}"#),
            "invariances[0]: transform `whitespace`: unknown field `seed` (whitespace takes no parameters)"
        );
        assert_eq!(
            err(
                r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1, "sede": 1}]}"#
            ),
            "corruptions[0]: transform `keyboard_typo`: unknown field `sede` (keyboard_typo takes rate, \
             seed, rng; a corruption may also declare `severity`)"
        );
    }

    /// Issue 13 item 8: a missing name does not read "transform ``".
    #[test]
    fn a_missing_name_is_named_plainly() {
        let err = SuiteSpec::from_json_str(r#"{"invariances": [{"transform": "identity"}]}"#)
            .unwrap_err();
        assert_eq!(err.to_string(), "invariances[0]: needs a string `name`");
    }

    #[test]
    fn severities_are_for_corruptions_and_validated() {
        let spec = SuiteSpec::from_json_str(
            r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1, "severity": 3},
                                {"name": "i", "transform": "identity"}]}"#,
        )
        .unwrap();
        assert_eq!(spec.corruptions[0].severity, Some(3.0));
        let suite = spec.build().unwrap();
        let t = suite.corruption("t").unwrap().severity().unwrap();
        assert_eq!((t.family.as_str(), t.value), ("keyboard_typo", 3.0));
        assert!(suite.corruption("i").unwrap().severity().is_none());
        let err = SuiteSpec::from_json_str(
            r#"{"invariances": [{"name": "c", "transform": "case_jitter", "severity": 1}]}"#,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invariances[0]: transform `case_jitter`: `severity` is for corruptions only (an invariance has no severity)"
        );
        let err = SuiteSpec::from_json_str(
            r#"{"corruptions": [{"name": "c", "transform": "identity", "severity": "high"}]}"#,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("`severity` must be a number, got \"high\""),
            "{err}"
        );
        let err = SuiteSpec::from_json_str(
            r#"{"corruptions": [{"name": "c", "transform": "identity", "severity": -1}]}"#,
        )
        .unwrap()
        .build()
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "corruptions[0]: transform `identity`: severity must be a finite number >= 0, got -1.0"
        );
        // Unknown keys are still refused.
        let err = SuiteSpec::from_json_str(
            r#"{"corruptions": [{"name": "c", "transform": "identity", "severty": 1}]}"#,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "corruptions[0]: transform `identity`: unknown field `severty` (identity takes no \
             parameters; a corruption may also declare `severity`)"
        );
        let err = SuiteSpec::from_json_str(
            r#"{"invariances": [{"name": "c", "transform": "case_jitter", "rate": 0.1}]}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown field `rate`"), "{err}");
    }

    #[test]
    fn round_trips_through_json() {
        let spec = SuiteSpec::from_json_str(
            r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.25, "seed": 3, "rng": "chacha"},
                                {"name": "u", "transform": "identity", "severity": 0.5}],
                "invariances": [{"name": "c", "transform": "case_jitter"}], "probes": ["x"]}"#,
        )
        .unwrap();
        assert_eq!(
            SuiteSpec::from_json_str(&spec.to_json_string()).unwrap(),
            spec
        );
    }
}
