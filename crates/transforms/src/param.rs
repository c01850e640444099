//! Declared parameters: their types, defaults and checks, and the typed view builders read.

use serde_json::{Map, Value};
use suite_core::{ResolveError, Resolved};

/// What checks and builds the steps of a composition (the [`Catalogue`](crate::Catalogue)):
/// parameters of type [`ParamType::Transforms`] go through it, so this module needs nothing of
/// the catalogue's and the imports between the two point one way (catalogue to param).
pub(crate) trait Steps: std::fmt::Debug + Sync {
    /// One step, an object `{"transform": NAME, ...params}`, canonicalised, at nesting `depth`.
    fn canonical_step(&self, step: Value, depth: usize)
    -> Result<Map<String, Value>, ResolveError>;

    /// One step, built, at nesting `depth`.
    fn resolve_step(&self, step: &Value, depth: usize) -> Result<Resolved, ResolveError>;
}

/// What values a parameter takes. Checked (and canonicalised) before any builder runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamType {
    /// A probability: a number in `[0, 1]`.
    Rate,
    /// A number in `[min, max]`.
    Number {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
    /// An integer in `[min, max]`.
    Count {
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
    },
    /// A seed: an integer in `[0, 2^64)`.
    Seed,
    /// One of a fixed list of strings.
    Choice(&'static [&'static str]),
    /// Any string.
    Text,
    /// A list of strings.
    Texts,
    /// `true` or `false`.
    Flag,
    /// A list of transforms, each an object `{"transform": NAME, ...its parameters}`
    /// (composition).
    Transforms,
}

impl ParamType {
    /// The JSON shape of its values, for tools and generated bindings: `number`, `integer`,
    /// `string`, `strings`, `boolean` or `transforms`.
    pub fn json_kind(&self) -> &'static str {
        match self {
            ParamType::Rate | ParamType::Number { .. } => "number",
            ParamType::Count { .. } | ParamType::Seed => "integer",
            ParamType::Choice(_) | ParamType::Text => "string",
            ParamType::Texts => "strings",
            ParamType::Flag => "boolean",
            ParamType::Transforms => "transforms",
        }
    }

    /// A short human description (`capkit profile transforms` shows it).
    pub fn describe(&self) -> String {
        match self {
            ParamType::Rate => "rate in [0, 1]".into(),
            ParamType::Number { min, max } => format!("number in [{min}, {max}]"),
            ParamType::Count { min, max } => format!("integer in [{min}, {max}]"),
            ParamType::Seed => "seed (integer >= 0)".into(),
            ParamType::Choice(c) => format!("one of {}", c.join(", ")),
            ParamType::Text => "string".into(),
            ParamType::Texts => "list of strings".into(),
            ParamType::Flag => "true or false".into(),
            ParamType::Transforms => "list of transforms {\"transform\": NAME, ...}".into(),
        }
    }
}

/// One declared parameter of a transform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Param {
    /// Its key in a suite entry.
    pub name: &'static str,
    /// Its type.
    pub ty: ParamType,
    /// Its default as JSON text (`None`: required).
    pub default: Option<&'static str>,
    /// What it does, in a few words.
    pub doc: &'static str,
}

impl Param {
    /// The usual `rate` parameter: probability per unit (character, word, gap) of a change.
    pub const fn rate(doc: &'static str, default: &'static str) -> Param {
        Param {
            name: "rate",
            ty: ParamType::Rate,
            default: Some(default),
            doc,
        }
    }

    /// The usual `seed` parameter (default 0).
    pub const fn seed() -> Param {
        Param {
            name: "seed",
            ty: ParamType::Seed,
            default: Some("0"),
            doc: "seed of the per-text generator",
        }
    }
}

fn invalid(message: String) -> ResolveError {
    ResolveError::Invalid(message)
}

/// Checks one value against its declared type; returns the canonical value.
fn check(
    param: &Param,
    value: Value,
    steps: &dyn Steps,
    depth: usize,
) -> Result<Value, ResolveError> {
    let name = param.name;
    match param.ty {
        ParamType::Rate | ParamType::Number { .. } => {
            let (min, max) = match param.ty {
                ParamType::Number { min, max } => (min, max),
                _ => (0.0, 1.0),
            };
            let Some(x) = value.as_f64() else {
                return Err(invalid(format!("{name} must be a number, got {value}")));
            };
            if !(min..=max).contains(&x) {
                return Err(invalid(format!(
                    "{name} must be in [{min}, {max}], got {value}"
                )));
            }
            Ok(Value::from(x))
        }
        ParamType::Count { min, max } => match value.as_u64() {
            Some(n) if (min..=max).contains(&n) => Ok(Value::from(n)),
            _ => Err(invalid(format!(
                "{name} must be an integer in [{min}, {max}], got {value}"
            ))),
        },
        ParamType::Seed => match value.as_u64() {
            Some(n) => Ok(Value::from(n)),
            None => Err(invalid(format!(
                "{name} must be an integer in [0, 2^64), got {value}"
            ))),
        },
        ParamType::Choice(choices) => match &value {
            Value::String(s) if choices.contains(&s.as_str()) => Ok(value),
            _ => Err(invalid(format!(
                "{name} must be one of {}, got {value}",
                choices.join(", ")
            ))),
        },
        ParamType::Text => match value {
            Value::String(_) => Ok(value),
            other => Err(invalid(format!("{name} must be a string, got {other}"))),
        },
        ParamType::Texts => match &value {
            Value::Array(items) if items.iter().all(Value::is_string) => Ok(value),
            _ => Err(invalid(format!(
                "{name} must be a list of strings, got {value}"
            ))),
        },
        ParamType::Flag => match value {
            Value::Bool(_) => Ok(value),
            other => Err(invalid(format!(
                "{name} must be true or false, got {other}"
            ))),
        },
        ParamType::Transforms => {
            let Value::Array(items) = value else {
                return Err(invalid(format!(
                    "{name} must be a list of {{\"transform\": NAME, ...}} objects, got {value}"
                )));
            };
            if items.is_empty() {
                return Err(invalid(format!("{name} must list at least one transform")));
            }
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                let at = |e: ResolveError| nested(name, i, e);
                out.push(Value::Object(
                    steps.canonical_step(item, depth + 1).map_err(at)?,
                ));
            }
            Ok(Value::Array(out))
        }
    }
}

/// An error inside `name[i]` of a composition, located.
pub(crate) fn nested(name: &str, i: usize, e: ResolveError) -> ResolveError {
    invalid(match e {
        ResolveError::Invalid(m) => format!("{name}[{i}]: {m}"),
        ResolveError::UnknownTransform => format!("{name}[{i}]: unknown transform"),
        ResolveError::UnknownParameter { key, takes } => format!(
            "{name}[{i}]: unknown field `{key}` (takes {})",
            takes_list(&takes)
        ),
    })
}

/// "a, b, c" or "no parameters".
pub(crate) fn takes_list(takes: &[String]) -> String {
    if takes.is_empty() {
        "no parameters".into()
    } else {
        takes.join(", ")
    }
}

/// Checks `params` against `declared`: unknown keys, types and ranges; fills in defaults, in
/// declaration order (the canonical form).
pub(crate) fn canonicalise(
    declared: &[Param],
    mut params: Map<String, Value>,
    steps: &dyn Steps,
    depth: usize,
) -> Result<Map<String, Value>, ResolveError> {
    if let Some(key) = params
        .keys()
        .find(|k| !declared.iter().any(|p| p.name == k.as_str()))
    {
        return Err(ResolveError::UnknownParameter {
            key: key.clone(),
            takes: declared.iter().map(|p| p.name.to_owned()).collect(),
        });
    }
    let mut out = Map::new();
    for param in declared {
        let value = match params.remove(param.name) {
            Some(v) => v,
            None => match param.default {
                Some(json) => serde_json::from_str(json)
                    .map_err(|e| invalid(format!("{}: bad default {json}: {e}", param.name)))?,
                None => return Err(invalid(format!("missing parameter `{}`", param.name))),
            },
        };
        out.insert(param.name.to_owned(), check(param, value, steps, depth)?);
    }
    Ok(out)
}

/// The canonical parameters of one transform, as builders read them. Every accessor checks the
/// type again and names the parameter, so a builder never panics on a hand-made map.
#[derive(Debug, Clone)]
pub struct Params<'a> {
    pub(crate) map: &'a Map<String, Value>,
    pub(crate) steps: &'a dyn Steps,
    pub(crate) depth: usize,
    /// Set by [`Params::transforms`] when a part it resolved is a corruption: what makes a
    /// composition one (its severity no longer does, since a composition has none of its own).
    pub(crate) corrupting_parts: std::cell::Cell<bool>,
}

impl<'a> Params<'a> {
    fn get(&self, name: &str) -> Result<&'a Value, ResolveError> {
        self.map
            .get(name)
            .ok_or_else(|| invalid(format!("missing parameter `{name}`")))
    }

    /// A number (`Rate`, `Number`, `Count` as a float).
    pub fn f64(&self, name: &str) -> Result<f64, ResolveError> {
        self.get(name)?
            .as_f64()
            .ok_or_else(|| invalid(format!("{name} must be a number")))
    }

    /// An integer (`Count`, `Seed`).
    pub fn u64(&self, name: &str) -> Result<u64, ResolveError> {
        self.get(name)?
            .as_u64()
            .ok_or_else(|| invalid(format!("{name} must be an integer")))
    }

    /// A string (`Choice`, `Text`).
    pub fn str(&self, name: &str) -> Result<&'a str, ResolveError> {
        self.get(name)?
            .as_str()
            .ok_or_else(|| invalid(format!("{name} must be a string")))
    }

    /// A flag.
    pub fn bool(&self, name: &str) -> Result<bool, ResolveError> {
        self.get(name)?
            .as_bool()
            .ok_or_else(|| invalid(format!("{name} must be true or false")))
    }

    /// A list of strings.
    pub fn texts(&self, name: &str) -> Result<Vec<String>, ResolveError> {
        let err = || invalid(format!("{name} must be a list of strings"));
        self.get(name)?
            .as_array()
            .ok_or_else(err)?
            .iter()
            .map(|v| v.as_str().map(str::to_owned).ok_or_else(err))
            .collect()
    }

    /// A list of transforms, each built through the catalogue.
    pub fn transforms(&self, name: &str) -> Result<Vec<suite_core::Resolved>, ResolveError> {
        let err = || invalid(format!("{name} must be a list of transforms"));
        let parts = self
            .get(name)?
            .as_array()
            .ok_or_else(err)?
            .iter()
            .enumerate()
            .map(|(i, step)| {
                self.steps
                    .resolve_step(step, self.depth + 1)
                    .map_err(|e| nested(name, i, e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if parts.iter().any(|r| r.corrupting) {
            self.corrupting_parts.set(true);
        }
        Ok(parts)
    }
}
