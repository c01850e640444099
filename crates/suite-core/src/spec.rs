//! Suites described in JSON, so they can live in files.
//!
//! An entry keeps its transform's name and raw parameters ([`NamedTransform`]); a [`Resolver`]
//! turns them into transforms. suite-core's own resolver, [`BuiltIns`], knows the four built-in
//! transforms ([`TransformSpec`]); a catalogue of more transforms (the `capkit-transforms`
//! crate) is another resolver, handed to [`SuiteSpec::from_json_str_with`] and
//! [`SuiteSpec::build_with`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use profile_types::Reference;

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

/// The names [`TransformSpec`] accepts, in listing order.
pub const BUILT_IN_TRANSFORMS: [&str; 4] =
    ["keyboard_typo", "case_jitter", "whitespace", "identity"];

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

    /// The transform's name (its `"transform"` tag).
    pub fn name(&self) -> &'static str {
        match self {
            TransformSpec::KeyboardTypo { .. } => "keyboard_typo",
            TransformSpec::CaseJitter => "case_jitter",
            TransformSpec::Whitespace => "whitespace",
            TransformSpec::Identity => "identity",
        }
    }

    /// Whether the transform is a corruption (only the keyboard typo is; the others are
    /// meaning-preserving and may serve as invariances).
    pub fn is_corrupting(&self) -> bool {
        matches!(self, TransformSpec::KeyboardTypo { .. })
    }

    /// The parameters each built-in takes besides `name` and `transform`.
    fn parameters(transform: &str) -> &'static [&'static str] {
        match transform {
            "keyboard_typo" => &["rate", "seed", "rng"],
            _ => &[],
        }
    }
}

/// Why a [`Resolver`] refused a transform; suite parsing and building add the entry's location
/// and the transform's name.
#[derive(Debug, Clone, PartialEq)]
pub enum ResolveError {
    /// The resolver knows no transform of that name.
    UnknownTransform,
    /// A parameter the transform does not take.
    UnknownParameter {
        /// The key.
        key: String,
        /// The parameters the transform takes, in declaration order.
        takes: Vec<String>,
    },
    /// A parameter is missing, ill-typed or out of range (the message names it).
    Invalid(String),
}

/// A transform built by a [`Resolver`], with its kind.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The transform (a corruption carries its severity).
    pub transform: Transform,
    /// Whether it is declared a corruption: a suite refuses it as an invariance unless the entry
    /// says `"allow_corrupting": true`.
    pub corrupting: bool,
    /// Whether it is a composition (`chain`, `one_of`): its family is then the suite entry's
    /// own name unless the entry declares one, because two compositions of unrelated parts are
    /// not points of one curve.
    pub composite: bool,
}

/// Turns a suite entry's transform name and parameters into a transform: the extension point
/// of [`SuiteSpec`]. [`BuiltIns`] resolves suite-core's four built-ins; the `capkit-transforms`
/// catalogue resolves every transform it lists.
pub trait Resolver {
    /// Every transform name, in listing order (for the "valid transforms" of an error).
    fn names(&self) -> Vec<String>;

    /// Checks `params` (the entry's keys other than `name`, `transform`, `severity` and
    /// `allow_corrupting`) against the transform's declaration: names and types, and fills in
    /// defaults. The result is the canonical form a suite's fingerprint hashes, so two files
    /// that spell one suite differently have one fingerprint.
    fn canonical(
        &self,
        transform: &str,
        params: Map<String, Value>,
    ) -> Result<Map<String, Value>, ResolveError>;

    /// Builds the transform from canonical parameters, checking their values.
    fn resolve(
        &self,
        transform: &str,
        params: &Map<String, Value>,
    ) -> Result<Resolved, ResolveError>;
}

/// suite-core's own [`Resolver`]: the four transforms of [`TransformSpec`].
#[derive(Debug, Clone, Copy, Default)]
pub struct BuiltIns;

impl BuiltIns {
    /// The typed spec of a built-in entry.
    pub fn spec(
        transform: &str,
        params: &Map<String, Value>,
    ) -> Result<TransformSpec, ResolveError> {
        if !BUILT_IN_TRANSFORMS.contains(&transform) {
            return Err(ResolveError::UnknownTransform);
        }
        let takes = TransformSpec::parameters(transform);
        if let Some(key) = params.keys().find(|k| !takes.contains(&k.as_str())) {
            return Err(ResolveError::UnknownParameter {
                key: key.clone(),
                takes: takes.iter().map(|s| (*s).to_owned()).collect(),
            });
        }
        let mut tagged = params.clone();
        tagged.insert("transform".into(), Value::String(transform.to_owned()));
        serde_json::from_value(Value::Object(tagged))
            .map_err(|e| ResolveError::Invalid(e.to_string()))
    }
}

impl Resolver for BuiltIns {
    fn names(&self) -> Vec<String> {
        BUILT_IN_TRANSFORMS
            .iter()
            .map(|s| (*s).to_owned())
            .collect()
    }

    fn canonical(
        &self,
        transform: &str,
        params: Map<String, Value>,
    ) -> Result<Map<String, Value>, ResolveError> {
        let spec = BuiltIns::spec(transform, &params)?;
        match serde_json::to_value(spec) {
            Ok(Value::Object(mut map)) => {
                map.remove("transform");
                Ok(map)
            }
            _ => Ok(params),
        }
    }

    fn resolve(
        &self,
        transform: &str,
        params: &Map<String, Value>,
    ) -> Result<Resolved, ResolveError> {
        let spec = BuiltIns::spec(transform, params)?;
        let transform = spec
            .build()
            .map_err(|e| ResolveError::Invalid(e.to_string()))?;
        Ok(Resolved {
            transform,
            corrupting: spec.is_corrupting(),
            composite: false,
        })
    }
}

/// One named entry of a suite section: the transform's name and its parameters as written
/// (canonicalised by the resolver that parsed the suite).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedTransform {
    /// The name the profile reports it under.
    pub name: String,
    /// The transform's name (e.g. `keyboard_typo`).
    pub transform: String,
    /// The transform's parameters.
    #[serde(flatten)]
    pub params: Map<String, Value>,
    /// A corruption's declared severity (its place on a severity curve of its transform's
    /// family); without it a corrupting transform's severity is its own (a keyboard typo's is
    /// its rate), and other transforms have none. Invariances refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<f64>,
    /// A corruption's declared family (which severity curve it is a point of), overriding its
    /// transform's (a keyboard typo's is `keyboard_typo`; a composition's is the entry's own
    /// name). It needs a severity, the transform's or a declared one. Invariances refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// A corruption's declared reference (`"reference": "teacher_clean"` for a
    /// label-preserving corruption): which teacher answer its headline figure compares the
    /// student with. Absent: the teacher's answer on the transformed text, mixle's definition.
    /// Invariances refuse it (a violation is always against the side's own clean answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Reference>,
    /// An invariance whose transform is declared corrupting is refused unless this is `true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_corrupting: bool,
    /// The stage's declared weight (a finite number > 0; absent: 1): how much it counts in a
    /// comparison's overall standing. It changes no figure of the stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// The stage's declared tags (`["typo"]`), which reports show beside it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// A suite as JSON: transforms by name with their parameters, probes inline.
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
/// [`SuiteSpec::from_json_str`] and [`SuiteSpec::build`] know suite-core's four built-ins
/// ([`BuiltIns`]); [`SuiteSpec::from_json_str_with`] and [`SuiteSpec::build_with`] take any
/// [`Resolver`], such as the `capkit-transforms` catalogue.
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
///
/// An invariance whose transform is declared corrupting is refused unless the entry says
/// `"allow_corrupting": true`:
///
/// ```
/// use suite_core::SuiteSpec;
///
/// let typo = r#"{"invariances": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1}]}"#;
/// let err = SuiteSpec::from_json_str(typo)?.build().unwrap_err();
/// assert!(err.to_string().contains("is a corruption"), "{err}");
/// let allowed = r#"{"invariances": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1,
///                                    "allow_corrupting": true}]}"#;
/// assert!(SuiteSpec::from_json_str(allowed)?.build().is_ok());
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
    /// Parses a suite file of built-in transforms ([`BuiltIns`]). Errors name the entry
    /// (`corruptions[2]`) and what is wrong with it.
    pub fn from_json_str(json: &str) -> Result<SuiteSpec, Error> {
        SuiteSpec::from_json_str_with(json, &BuiltIns)
    }

    /// Parses a suite file whose transforms `resolver` knows: names, parameter names and types
    /// are checked here, parameter values when the suite is built.
    pub fn from_json_str_with(json: &str, resolver: &dyn Resolver) -> Result<SuiteSpec, Error> {
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
        let corruptions = section(&mut root, "corruptions", resolver)?;
        let invariances = section(&mut root, "invariances", resolver)?;
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

    /// `blake3:` and the hash of the spec's canonical JSON ([`SuiteSpec::to_json_string`]):
    /// equal for equal suites however their files are laid out, so reports of one suite merge
    /// and reports of two suites never do. Every report's suite block holds it.
    pub fn fingerprint(&self) -> String {
        format!(
            "blake3:{}",
            blake3::hash(self.to_json_string().as_bytes()).to_hex()
        )
    }

    /// Builds the suite of built-in transforms, validating every parameter (e.g. typo rates).
    pub fn build(&self) -> Result<CapabilitySuite, Error> {
        self.build_with(&BuiltIns)
    }

    /// Builds the suite through `resolver`, validating every parameter.
    pub fn build_with(&self, resolver: &dyn Resolver) -> Result<CapabilitySuite, Error> {
        let mut suite = CapabilitySuite::new();
        for (i, entry) in self.corruptions.iter().enumerate() {
            suite.add_corruption(
                entry.name.clone(),
                build_at("corruptions", i, entry, resolver)?,
            );
        }
        for (i, entry) in self.invariances.iter().enumerate() {
            suite.add_invariance(
                entry.name.clone(),
                build_at("invariances", i, entry, resolver)?,
            );
        }
        for probe in &self.probes {
            suite.add_probe(probe.clone());
        }
        Ok(suite)
    }
}

/// The message of a [`ResolveError`] for entry `location` of `section`.
fn resolve_error(
    section: &str,
    location: String,
    transform: &str,
    resolver: &dyn Resolver,
    e: ResolveError,
) -> Error {
    let parameter = |message: String| Error::TransformParameter {
        location: location.clone(),
        transform: transform.to_owned(),
        message,
    };
    match e {
        ResolveError::UnknownTransform => Error::UnknownTransform {
            name: transform.to_owned(),
            valid: resolver.names().join(", "),
            location,
        },
        ResolveError::UnknownParameter { key, takes } => {
            let mut expected = if takes.is_empty() {
                format!("{transform} takes no parameters")
            } else {
                format!("{transform} takes {}", takes.join(", "))
            };
            if section == "corruptions" {
                expected
                    .push_str("; a corruption may also declare `severity`, `family`, `reference`");
            }
            // Every stage may weigh and tag itself; saying so keeps a misspelt `wieght` from
            // reading as a transform parameter the user forgot.
            expected.push_str("; any stage may declare `weight`, `tags`");
            parameter(format!("unknown field `{key}` ({expected})"))
        }
        ResolveError::Invalid(message) => parameter(message),
    }
}

fn build_at(
    section: &str,
    i: usize,
    entry: &NamedTransform,
    resolver: &dyn Resolver,
) -> Result<Transform, Error> {
    let location = || format!("{section}[{i}]");
    let family = entry.transform.as_str();
    let parameter = |message: String| Error::TransformParameter {
        location: location(),
        transform: family.to_owned(),
        message,
    };
    let resolved = resolver
        .resolve(family, &entry.params)
        .map_err(|e| resolve_error(section, location(), family, resolver, e))?;
    if section == "invariances" && resolved.corrupting && !entry.allow_corrupting {
        return Err(parameter(format!(
            "{family} is a corruption, not a meaning-preserving rewrite; an invariance may use \
             it only with \"allow_corrupting\": true"
        )));
    }
    // The family: the declared one, else a composition's own stage name (two chains never
    // pool), else the transform's (a keyboard typo's is `keyboard_typo`).
    let own = resolved.transform.severity().map(|s| s.value);
    let named = match (&entry.family, resolved.composite) {
        (Some(f), _) => f.clone(),
        (None, true) => entry.name.clone(),
        (None, false) => resolved
            .transform
            .severity()
            .map_or_else(|| family.to_owned(), |s| s.family.clone()),
    };
    // A composition's severity is what the entry declares, or none: its parts' severities
    // measure different things (a rate, a count) and their sum or maximum is no severity.
    let value = match (entry.severity, resolved.composite) {
        (Some(v), _) => Some(v),
        (None, true) => None,
        (None, false) => own,
    };
    let transform = match value {
        Some(value) => resolved
            .transform
            .with_severity(named, value)
            .map_err(|e| parameter(e.to_string()))?,
        None if entry.family.is_some() => {
            return Err(parameter(format!(
                "`family` places a corruption on a severity curve, and {family} has no \
                 severity of its own: declare a `severity` too"
            )));
        }
        None => resolved.transform.without_severity(),
    };
    Ok(match entry.reference {
        Some(reference) => transform.with_reference(reference),
        None => transform,
    })
}

fn section(
    root: &mut Map<String, Value>,
    key: &'static str,
    resolver: &dyn Resolver,
) -> Result<Vec<NamedTransform>, Error> {
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
    for (i, entry) in entries.into_iter().enumerate() {
        let location = format!("{key}[{i}]");
        let Value::Object(mut obj) = entry else {
            return Err(bad(
                location,
                "must be an object with `name` and `transform`".into(),
            ));
        };
        let Some(Value::String(name)) = obj.remove("name") else {
            return Err(bad(location, "needs a string `name`".into()));
        };
        let Some(Value::String(transform)) = obj.remove("transform") else {
            return Err(bad(location, "needs a string `transform`".into()));
        };
        // `severity` and `allow_corrupting` belong to the entry, not to the transform.
        let severity = obj.remove("severity");
        let declared_family = obj.remove("family");
        let reference = obj.remove("reference");
        let allow_corrupting = obj.remove("allow_corrupting");
        let weight = obj.remove("weight");
        let tags = obj.remove("tags");
        let params = resolver
            .canonical(&transform, obj)
            .map_err(|e| resolve_error(key, location.clone(), &transform, resolver, e))?;
        if out.iter().any(|e| e.name == name) {
            return Err(Error::DuplicateName { section: key, name });
        }
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
        let family = match declared_family {
            None => None,
            Some(_) if key == "invariances" => {
                return Err(parameter(
                    "`family` is for corruptions only (an invariance is on no severity curve)"
                        .into(),
                ));
            }
            Some(Value::String(f)) if !f.trim().is_empty() => Some(f),
            Some(other) => {
                return Err(parameter(format!(
                    "`family` must be a non-empty string, got {other}"
                )));
            }
        };
        let reference = match reference {
            None => None,
            Some(_) if key == "invariances" => {
                return Err(parameter(
                    "`reference` is for corruptions only (an invariance's violation is always \
                     against the side's own clean answer)"
                        .into(),
                ));
            }
            Some(Value::String(r)) => match Reference::from_name(&r) {
                Some(r) => Some(r),
                None => {
                    return Err(parameter(format!(
                        "`reference` must be \"teacher_transformed\" or \"teacher_clean\", got {r:?}"
                    )));
                }
            },
            Some(other) => {
                return Err(parameter(format!(
                    "`reference` must be \"teacher_transformed\" or \"teacher_clean\", got {other}"
                )));
            }
        };
        let allow_corrupting = match allow_corrupting {
            None => false,
            Some(_) if key == "corruptions" => {
                return Err(parameter(
                    "`allow_corrupting` is for invariances only (a corruption may corrupt)".into(),
                ));
            }
            Some(Value::Bool(b)) => b,
            Some(other) => {
                return Err(parameter(format!(
                    "`allow_corrupting` must be true or false, got {other}"
                )));
            }
        };
        let weight = match weight {
            None => None,
            Some(Value::Number(n)) if n.as_f64().is_some_and(|w| w.is_finite() && w > 0.0) => {
                n.as_f64()
            }
            Some(other) => {
                return Err(parameter(format!(
                    "`weight` must be a finite number > 0, got {other}"
                )));
            }
        };
        let tags = match tags {
            None => Vec::new(),
            Some(Value::Array(items)) => {
                let mut tags = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        Value::String(t) if !t.trim().is_empty() => tags.push(t),
                        other => {
                            return Err(parameter(format!(
                                "`tags` must be a list of non-empty strings, got {other} in it"
                            )));
                        }
                    }
                }
                tags
            }
            Some(other) => {
                return Err(parameter(format!(
                    "`tags` must be a list of strings, got {other}"
                )));
            }
        };
        out.push(NamedTransform {
            name,
            transform,
            params,
            severity,
            family,
            reference,
            allow_corrupting,
            weight,
            tags,
        });
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
            "invariances[0]: transform `case_jitter`: unknown field `rate` (case_jitter takes no parameters; any stage may declare `weight`, `tags`)"
        );
        assert_eq!(
            err(r#"{"corruptions": [{"name": "i", "transform": "identity", "bogus": 1}]}"#),
            "corruptions[0]: transform `identity`: unknown field `bogus` (identity takes no parameters; \
             a corruption may also declare `severity`, `family`, `reference`; any stage may declare `weight`, `tags`)"
        );
        assert_eq!(
            err(r#"{"invariances": [{"name": "w", "transform": "whitespace", "seed": 1}]}"#),
            "invariances[0]: transform `whitespace`: unknown field `seed` (whitespace takes no parameters; any stage may declare `weight`, `tags`)"
        );
        assert_eq!(
            err(
                r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1, "sede": 1}]}"#
            ),
            "corruptions[0]: transform `keyboard_typo`: unknown field `sede` (keyboard_typo takes rate, \
             seed, rng; a corruption may also declare `severity`, `family`, `reference`; any stage may declare `weight`, `tags`)"
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
    fn references_are_for_corruptions_and_named() {
        let spec = SuiteSpec::from_json_str(
            r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1, "reference": "teacher_clean"},
                                {"name": "u", "transform": "keyboard_typo", "rate": 0.2}]}"#,
        )
        .unwrap();
        assert_eq!(spec.corruptions[0].reference, Some(Reference::TeacherClean));
        // The canonical form keeps it (the suite fingerprint changes with it).
        assert!(
            spec.to_json_string()
                .contains(r#""reference": "teacher_clean""#)
        );
        let suite = spec.build().unwrap();
        let references: Vec<_> = suite.corruption_references().collect();
        assert_eq!(
            references,
            [
                ("t", Reference::TeacherClean),
                ("u", Reference::TeacherTransformed)
            ]
        );
        let err = |json: &str| SuiteSpec::from_json_str(json).unwrap_err().to_string();
        assert_eq!(
            err(
                r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1, "reference": "clean"}]}"#
            ),
            "corruptions[0]: transform `keyboard_typo`: `reference` must be \"teacher_transformed\" or \"teacher_clean\", got \"clean\""
        );
        assert!(
            err(r#"{"invariances": [{"name": "c", "transform": "case_jitter", "reference": "teacher_clean"}]}"#)
                .contains("`reference` is for corruptions only")
        );
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
             parameters; a corruption may also declare `severity`, `family`, `reference`; any stage may declare `weight`, `tags`)"
        );
        let err = SuiteSpec::from_json_str(
            r#"{"invariances": [{"name": "c", "transform": "case_jitter", "rate": 0.1}]}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown field `rate`"), "{err}");
    }

    /// Issue 36: any corruption may declare its family; invariances refuse it; a family needs
    /// a severity; errors name the entry.
    #[test]
    fn families_are_declared_on_corruptions() {
        let spec = SuiteSpec::from_json_str(
            r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1, "family": "typos"},
                                {"name": "i", "transform": "identity", "severity": 0.5, "family": "typos"},
                                {"name": "u", "transform": "keyboard_typo", "rate": 0.2}]}"#,
        )
        .unwrap();
        assert_eq!(spec.corruptions[0].family.as_deref(), Some("typos"));
        assert!(spec.to_json_string().contains(r#""family": "typos""#));
        assert_eq!(
            SuiteSpec::from_json_str(&spec.to_json_string()).unwrap(),
            spec
        );
        let suite = spec.build().unwrap();
        let severities: Vec<_> = suite.corruption_severities().collect();
        assert_eq!(
            severities,
            [
                ("t", Some(("typos", 0.1))),
                ("i", Some(("typos", 0.5))),
                ("u", Some(("keyboard_typo", 0.2)))
            ]
        );
        let err = |json: &str| match SuiteSpec::from_json_str(json) {
            Err(e) => e.to_string(),
            Ok(spec) => spec.build().unwrap_err().to_string(),
        };
        assert_eq!(
            err(r#"{"invariances": [{"name": "c", "transform": "case_jitter", "family": "x"}]}"#),
            "invariances[0]: transform `case_jitter`: `family` is for corruptions only (an \
             invariance is on no severity curve)"
        );
        assert_eq!(
            err(
                r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1},
                                    {"name": "c", "transform": "identity", "family": 3}]}"#
            ),
            "corruptions[1]: transform `identity`: `family` must be a non-empty string, got 3"
        );
        assert_eq!(
            err(r#"{"corruptions": [{"name": "c", "transform": "identity", "family": "x"}]}"#),
            "corruptions[0]: transform `identity`: `family` places a corruption on a severity \
             curve, and identity has no severity of its own: declare a `severity` too"
        );
    }

    /// A resolver's composition: its family is the entry's name unless declared, and its
    /// severity the entry's or none (never one its resolver computed from its parts).
    #[test]
    fn a_composition_is_its_own_family() {
        struct Composer;
        impl Resolver for Composer {
            fn names(&self) -> Vec<String> {
                vec!["pair".into()]
            }
            fn canonical(
                &self,
                _: &str,
                params: Map<String, Value>,
            ) -> Result<Map<String, Value>, ResolveError> {
                Ok(params)
            }
            fn resolve(&self, _: &str, _: &Map<String, Value>) -> Result<Resolved, ResolveError> {
                let transform = Transform::new(str::to_owned)
                    .with_severity("pair", 0.30000000000000004)
                    .map_err(|e| ResolveError::Invalid(e.to_string()))?;
                Ok(Resolved {
                    transform,
                    corrupting: true,
                    composite: true,
                })
            }
        }
        let spec = SuiteSpec::from_json_str_with(
            r#"{"corruptions": [{"name": "a", "transform": "pair"},
                                {"name": "b", "transform": "pair", "severity": 1},
                                {"name": "c", "transform": "pair", "severity": 2, "family": "pairs"}]}"#,
            &Composer,
        )
        .unwrap();
        let suite = spec.build_with(&Composer).unwrap();
        let severities: Vec<_> = suite.corruption_severities().collect();
        assert_eq!(
            severities,
            [
                ("a", None),
                ("b", Some(("b", 1.0))),
                ("c", Some(("pairs", 2.0)))
            ]
        );
    }

    /// Issue 36: any stage may declare a weight (finite, > 0) and tags (strings); both are
    /// kept in the canonical form and validated with the entry named.
    #[test]
    fn weights_and_tags_are_declared_and_validated() {
        let spec = SuiteSpec::from_json_str(
            r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1, "weight": 2, "tags": ["typo"]}],
                "invariances": [{"name": "c", "transform": "case_jitter", "weight": 0.5, "tags": ["case", "cheap"]},
                                {"name": "w", "transform": "whitespace"}]}"#,
        )
        .unwrap();
        assert_eq!(spec.corruptions[0].weight, Some(2.0));
        assert_eq!(spec.corruptions[0].tags, ["typo"]);
        assert_eq!(spec.invariances[0].tags, ["case", "cheap"]);
        assert_eq!(
            (spec.invariances[1].weight, spec.invariances[1].tags.len()),
            (None, 0)
        );
        assert_eq!(
            SuiteSpec::from_json_str(&spec.to_json_string()).unwrap(),
            spec
        );
        assert!(spec.build().is_ok());
        // A suite that declares neither serialises as before (its fingerprint is unchanged).
        let plain = SuiteSpec::from_json_str(
            r#"{"invariances": [{"name": "w", "transform": "whitespace"}]}"#,
        )
        .unwrap();
        assert!(!plain.to_json_string().contains("weight"));
        assert!(!plain.to_json_string().contains("tags"));
        let err = |json: &str| SuiteSpec::from_json_str(json).unwrap_err().to_string();
        for bad in ["0", "-1", "\"heavy\"", "null"] {
            assert_eq!(
                err(&format!(
                    r#"{{"invariances": [{{"name": "w", "transform": "whitespace"}},
                                        {{"name": "c", "transform": "case_jitter", "weight": {bad}}}]}}"#
                )),
                format!(
                    "invariances[1]: transform `case_jitter`: `weight` must be a finite number > 0, got {bad}"
                )
            );
        }
        assert_eq!(
            err(
                r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1, "tags": "typo"}]}"#
            ),
            "corruptions[0]: transform `keyboard_typo`: `tags` must be a list of strings, got \"typo\""
        );
        assert_eq!(
            err(
                r#"{"corruptions": [{"name": "t", "transform": "keyboard_typo", "rate": 0.1, "tags": ["a", 1]}]}"#
            ),
            "corruptions[0]: transform `keyboard_typo`: `tags` must be a list of non-empty strings, got 1 in it"
        );
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
