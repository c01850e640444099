//! [`Catalogue`]: every transform by name, and the suite resolver over them.

use std::sync::OnceLock;

use serde_json::{Map, Value};
use suite_core::{ResolveError, Resolved, Resolver, Transform};

use crate::descriptor::{Descriptor, Kind};
use crate::param::{ParamType, Params, Steps, canonicalise, takes_list};
use crate::{Error, builtin, character, compose, sentence, word};

/// How deeply compositions may nest (a `chain` in a `one_of` in a `chain`...).
pub const MAX_DEPTH: usize = 8;

/// The catalogue of transforms: a list of [`Descriptor`]s, looked up by name. It is a
/// [`suite_core::Resolver`], so `SuiteSpec::from_json_str_with(json, Catalogue::standard())`
/// reads suite files naming any of them.
#[derive(Debug, Clone)]
pub struct Catalogue {
    descriptors: Vec<&'static Descriptor>,
}

impl Catalogue {
    /// Every built-in transform (those of the enabled features): suite-core's four first, then
    /// character, word, sentence level, then composition.
    pub fn standard() -> &'static Catalogue {
        static STANDARD: OnceLock<Catalogue> = OnceLock::new();
        STANDARD.get_or_init(|| {
            Catalogue::from_descriptors(
                builtin::DESCRIPTORS
                    .iter()
                    .chain(character::DESCRIPTORS)
                    .chain(word::descriptors())
                    .chain(sentence::DESCRIPTORS)
                    .chain(compose::DESCRIPTORS),
            )
        })
    }

    /// A catalogue of these descriptors (a later one of a repeated name is ignored).
    pub fn from_descriptors(
        descriptors: impl IntoIterator<Item = &'static Descriptor>,
    ) -> Catalogue {
        let mut out: Vec<&'static Descriptor> = Vec::new();
        for d in descriptors {
            if !out.iter().any(|o| o.name == d.name) {
                out.push(d);
            }
        }
        Catalogue { descriptors: out }
    }

    /// The descriptors, in listing order.
    pub fn descriptors(&self) -> impl Iterator<Item = &'static Descriptor> + '_ {
        self.descriptors.iter().copied()
    }

    /// The descriptor of `name`.
    pub fn get(&self, name: &str) -> Option<&'static Descriptor> {
        self.descriptors.iter().copied().find(|d| d.name == name)
    }

    /// Builds `name` with `params` (missing ones take their defaults).
    ///
    /// ```
    /// use transforms::Catalogue;
    ///
    /// let catalogue = Catalogue::standard();
    /// let params = serde_json::json!({"rate": 1.0}).as_object().cloned().unwrap_or_default();
    /// let repeat = catalogue.build("repeat_char", &params)?;
    /// assert_eq!(repeat.transform.apply("ab c"), "aabb cc");
    /// assert!(repeat.corrupting);
    /// let upper = catalogue.build("uppercase", &Default::default())?;
    /// assert_eq!(upper.transform.apply("Straße"), "STRASSE");
    /// assert!(catalogue.build("repeat_char", &serde_json::json!({"rate": 2}).as_object().cloned().unwrap_or_default())
    ///     .unwrap_err().to_string().contains("rate must be in [0, 1], got 2"));
    /// # Ok::<(), transforms::Error>(())
    /// ```
    pub fn build(&self, name: &str, params: &Map<String, Value>) -> Result<Resolved, Error> {
        self.resolve(name, params).map_err(|e| self.error(name, e))
    }

    /// The canonical parameters of `name` (defaults filled in, types checked).
    pub fn canonical_params(
        &self,
        name: &str,
        params: Map<String, Value>,
    ) -> Result<Map<String, Value>, Error> {
        self.canonical(name, params)
            .map_err(|e| self.error(name, e))
    }

    /// `name`'s example: (input, parameters, output).
    pub fn example(&self, name: &str) -> Result<(String, Map<String, Value>, String), Error> {
        let d = self
            .get(name)
            .ok_or_else(|| self.error(name, ResolveError::UnknownTransform))?;
        let params = match serde_json::from_str(d.example_params) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        let params = self.canonical_params(name, params)?;
        let built = self.build(name, &params)?;
        Ok((
            d.example.to_owned(),
            params,
            built.transform.apply(d.example),
        ))
    }

    /// `name`'s descriptor as JSON, with its example run: `name`, `level`, `kind`, `severity`
    /// (the severity parameter of a corruption, else `null`), `description`, `params` (each
    /// `name`, `type` (for people), `json` (its JSON shape, `ParamType::json_kind`), `choices`
    /// (or `null`), `default` or `null` when required, `doc`) and `example` (`params`,
    /// `text`, `output`; `output` is `null` and `error` says why when the example cannot run
    /// here, e.g. without its WordNet directory, and `needs` names the missing data,
    /// [`Descriptor::needs`], or is `null`). What `capkit profile transforms --json` prints and Python's
    /// `capkit_rs.transforms` is generated from.
    pub fn describe(&self, name: &str) -> Result<Value, Error> {
        let d = self
            .get(name)
            .ok_or_else(|| self.error(name, ResolveError::UnknownTransform))?;
        let params: Vec<Value> = d
            .params
            .iter()
            .map(|p| {
                let choices = match p.ty {
                    ParamType::Choice(c) => Value::from(c.to_vec()),
                    _ => Value::Null,
                };
                serde_json::json!({
                    "name": p.name,
                    "type": p.ty.describe(),
                    "json": p.ty.json_kind(),
                    "choices": choices,
                    "default": p.default.and_then(|j| serde_json::from_str::<Value>(j).ok()),
                    "doc": p.doc,
                })
            })
            .collect();
        // An example that needs data the machine lacks (a WordNet directory) is described with
        // its error, so the listing still works there.
        let example = match self.example(name) {
            Ok((text, params, output)) => {
                serde_json::json!({"params": params, "text": text, "output": output})
            }
            Err(e) => {
                let params = serde_json::from_str::<Value>(d.example_params).unwrap_or_default();
                serde_json::json!({"params": params, "text": d.example, "output": null,
                                   "error": e.to_string(), "needs": d.needs()})
            }
        };
        let severity = match d.kind {
            Kind::Corruption { severity } => Value::from(severity),
            _ => Value::Null,
        };
        Ok(serde_json::json!({
            "name": d.name,
            "level": d.level.as_str(),
            "kind": d.kind.as_str(),
            "severity": severity,
            "description": d.description,
            "params": params,
            "example": example,
        }))
    }

    /// Every descriptor as JSON ([`Catalogue::describe`]), in listing order.
    pub fn describe_all(&self) -> Result<Value, Error> {
        self.descriptors()
            .map(|d| self.describe(d.name))
            .collect::<Result<Vec<Value>, Error>>()
            .map(Value::Array)
    }

    /// A [`ResolveError`] about `name` as this crate's [`Error`].
    pub fn error(&self, name: &str, e: ResolveError) -> Error {
        match e {
            ResolveError::UnknownTransform => Error::UnknownTransform {
                name: name.to_owned(),
                valid: self.names().join(", "),
            },
            ResolveError::UnknownParameter { key, takes } => Error::UnknownParameter {
                transform: name.to_owned(),
                key,
                takes: takes_list(&takes),
            },
            ResolveError::Invalid(message) => Error::Parameter {
                transform: name.to_owned(),
                message,
            },
        }
    }

    fn canonical_at(
        &self,
        name: &str,
        params: Map<String, Value>,
        depth: usize,
    ) -> Result<Map<String, Value>, ResolveError> {
        let d = self.get(name).ok_or(ResolveError::UnknownTransform)?;
        canonicalise(d.params, params, self, depth)
    }

    fn resolve_at(
        &self,
        name: &str,
        params: &Map<String, Value>,
        depth: usize,
    ) -> Result<Resolved, ResolveError> {
        if depth > MAX_DEPTH {
            return Err(ResolveError::Invalid(format!(
                "compositions nest at most {MAX_DEPTH} deep"
            )));
        }
        let d = self.get(name).ok_or(ResolveError::UnknownTransform)?;
        let map = canonicalise(d.params, params.clone(), self, depth)?;
        let view = Params {
            map: &map,
            steps: self,
            depth,
            corrupting_parts: std::cell::Cell::new(false),
        };
        let transform: Transform = (d.build)(&view)?;
        Ok(match d.kind {
            Kind::Corruption { severity } => {
                let value = view.f64(severity)?;
                Resolved {
                    transform: transform
                        .with_severity(d.name, value)
                        .map_err(|e| ResolveError::Invalid(e.to_string()))?,
                    corrupting: true,
                    composite: false,
                }
            }
            Kind::MeaningPreserving => Resolved {
                transform,
                corrupting: false,
                composite: false,
            },
            Kind::Composite => Resolved {
                corrupting: view.corrupting_parts.get(),
                transform,
                composite: true,
            },
        })
    }
}

impl Steps for Catalogue {
    /// One step of a composition: an object `{"transform": NAME, ...params}`, canonicalised.
    fn canonical_step(
        &self,
        step: Value,
        depth: usize,
    ) -> Result<Map<String, Value>, ResolveError> {
        if depth > MAX_DEPTH {
            return Err(ResolveError::Invalid(format!(
                "compositions nest at most {MAX_DEPTH} deep"
            )));
        }
        let (name, params) = split_step(step)?;
        let mut out = Map::new();
        let canonical = self
            .canonical_at(&name, params, depth)
            .map_err(|e| name_unknown(e, &name))?;
        out.insert("transform".into(), Value::String(name));
        out.extend(canonical);
        Ok(out)
    }

    /// One step of a composition, built.
    fn resolve_step(&self, step: &Value, depth: usize) -> Result<Resolved, ResolveError> {
        let (name, params) = split_step(step.clone())?;
        self.resolve_at(&name, &params, depth)
            .map_err(|e| name_unknown(e, &name))
    }
}

fn split_step(step: Value) -> Result<(String, Map<String, Value>), ResolveError> {
    let Value::Object(mut params) = step else {
        return Err(ResolveError::Invalid(format!(
            "must be an object {{\"transform\": NAME, ...}}, got {step}"
        )));
    };
    let Some(Value::String(name)) = params.remove("transform") else {
        return Err(ResolveError::Invalid("needs a string `transform`".into()));
    };
    Ok((name, params))
}

/// Inside a composition an unknown name is a message naming it (the entry's own name is the
/// composition's).
fn name_unknown(e: ResolveError, name: &str) -> ResolveError {
    match e {
        ResolveError::UnknownTransform => {
            ResolveError::Invalid(format!("unknown transform `{name}`"))
        }
        ResolveError::Invalid(m) => ResolveError::Invalid(format!("{name}: {m}")),
        other => other,
    }
}

impl Resolver for Catalogue {
    fn names(&self) -> Vec<String> {
        self.descriptors.iter().map(|d| d.name.to_owned()).collect()
    }

    fn canonical(
        &self,
        transform: &str,
        params: Map<String, Value>,
    ) -> Result<Map<String, Value>, ResolveError> {
        self.canonical_at(transform, params, 0)
    }

    fn resolve(
        &self,
        transform: &str,
        params: &Map<String, Value>,
    ) -> Result<Resolved, ResolveError> {
        self.resolve_at(transform, params, 0)
    }
}
