//! Rule-based classifiers and extractors.

use serde_json::{Map, Value, json};
use suite_core::{Decision, Label, Model, ModelError, is_py_whitespace};

/// A scenario description that does not follow the vocabulary.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleError(pub String);

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RuleError {}

fn err<T>(msg: impl Into<String>) -> Result<T, RuleError> {
    Err(RuleError(msg.into()))
}

fn field<'a>(v: &'a Value, key: &str) -> Result<&'a Value, RuleError> {
    v.get(key)
        .ok_or_else(|| RuleError(format!("missing `{key}` in {v}")))
}

fn str_field<'a>(v: &'a Value, key: &str) -> Result<&'a str, RuleError> {
    field(v, key)?
        .as_str()
        .ok_or_else(|| RuleError(format!("`{key}` must be a string in {v}")))
}

fn ascii_lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// Evaluates a predicate on a text.
fn predicate(p: &Value, text: &str) -> Result<bool, RuleError> {
    let threshold = || -> Result<usize, RuleError> {
        field(p, "threshold")?
            .as_u64()
            .map(|t| t as usize)
            .ok_or_else(|| RuleError("bad threshold".into()))
    };
    Ok(match str_field(p, "kind")? {
        "contains" => {
            let needle = str_field(p, "needle")?;
            if p.get("case_sensitive")
                .and_then(Value::as_bool)
                .unwrap_or(true)
            {
                text.contains(needle)
            } else {
                ascii_lower(text).contains(&ascii_lower(needle))
            }
        }
        "length_lt" => text.chars().count() < threshold()?,
        "length_gt" => text.chars().count() > threshold()?,
        "starts_with" => text.starts_with(str_field(p, "prefix")?),
        "ends_with" => text.ends_with(str_field(p, "suffix")?),
        "any_of" => {
            let ps = field(p, "predicates")?
                .as_array()
                .ok_or_else(|| RuleError("predicates".into()))?;
            let mut any = false;
            for q in ps {
                any |= predicate(q, text)?;
            }
            any
        }
        "not" => !predicate(field(p, "predicate")?, text)?,
        "never" => false,
        "always" => true,
        other => return err(format!("unknown predicate kind `{other}`")),
    })
}

/// The value after `marker`: skip spaces, take the run up to Python whitespace or `,.;:!?`.
fn after(text: &str, marker: &str) -> Option<String> {
    let start = text.find(marker)? + marker.len();
    let rest = text[start..].trim_start_matches(' ');
    let run: String = rest
        .chars()
        .take_while(|c| !is_py_whitespace(*c) && !",.;:!?".contains(*c))
        .collect();
    (!run.is_empty()).then_some(run)
}

fn extract(rule: &Value, text: &str) -> Result<Value, RuleError> {
    let mut record = Map::new();
    let fields = field(rule, "fields")?
        .as_array()
        .ok_or_else(|| RuleError("fields".into()))?;
    for f in fields {
        let name = str_field(f, "field")?.to_owned();
        match str_field(f, "op")? {
            "after" => {
                let mut value = after(text, str_field(f, "marker")?).map(Value::String);
                match f.get("post").and_then(Value::as_str) {
                    None => {}
                    Some("ascii_upper") => {
                        value = value
                            .map(|v| Value::String(v.as_str().unwrap_or("").to_ascii_uppercase()));
                    }
                    Some("int") => {
                        value = value.and_then(|v| {
                            let s = v.as_str().unwrap_or("");
                            let digits = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
                            // Leading zeros dropped, as Python's int("007") does.
                            digits
                                .then(|| s.parse::<u64>().ok().map(|n| json!(n)))
                                .flatten()
                        });
                    }
                    Some(other) => return err(format!("unknown post `{other}`")),
                }
                match (
                    value,
                    f.get("on_absent").and_then(Value::as_str).unwrap_or("omit"),
                ) {
                    (Some(v), _) => {
                        record.insert(name, v);
                    }
                    (None, "omit") => {}
                    (None, "null") => {
                        record.insert(name, Value::Null);
                    }
                    (None, "empty") => {
                        record.insert(name, json!(""));
                    }
                    (None, other) => return err(format!("unknown on_absent `{other}`")),
                }
            }
            "constant" => {
                record.insert(name, field(f, "value")?.clone());
            }
            "when" => {
                if predicate(field(f, "predicate")?, text)? {
                    record.insert(name, field(f, "value")?.clone());
                }
            }
            other => return err(format!("unknown field op `{other}`")),
        }
    }
    Ok(Value::Object(record))
}

fn label(rule: &Value, text: &str) -> Result<Label, RuleError> {
    Ok(match str_field(rule, "kind")? {
        "constant" => field(rule, "label")?.clone(),
        "if" => {
            if predicate(field(rule, "predicate")?, text)? {
                field(rule, "then")?.clone()
            } else {
                field(rule, "else")?.clone()
            }
        }
        "first_match" => {
            let cases = field(rule, "cases")?
                .as_array()
                .ok_or_else(|| RuleError("cases".into()))?;
            for case in cases {
                if predicate(field(case, "predicate")?, text)? {
                    return Ok(field(case, "label")?.clone());
                }
            }
            field(rule, "default")?.clone()
        }
        "word_count" => json!(
            text.split(is_py_whitespace)
                .filter(|w| !w.is_empty())
                .count()
        ),
        "length" => json!(text.chars().count()),
        "fields" => extract(rule, text)?,
        other => return err(format!("unknown rule kind `{other}`")),
    })
}

/// A scenario's student or teacher: a rule, and optionally a decision API that escalates when
/// `escalate_if` holds and otherwise answers with the rule's prediction.
#[derive(Debug, Clone)]
pub struct RuleModel {
    rule: Value,
    escalate_if: Option<Value>,
}

impl RuleModel {
    /// Builds the model from a scenario's `student` / `teacher` object.
    pub fn from_scenario(model: &Value) -> Result<RuleModel, RuleError> {
        let rule = field(model, "rule")?.clone();
        let escalate_if = match model.get("decision") {
            None | Some(Value::Null) => None,
            Some(d) => Some(field(d, "escalate_if")?.clone()),
        };
        // Validate once on an empty text so malformed rules fail here, not mid-profile.
        label(&rule, "")?;
        Ok(RuleModel { rule, escalate_if })
    }

    /// The rule's prediction for one text.
    pub fn predict(&self, text: &str) -> Result<Label, RuleError> {
        label(&self.rule, text)
    }

    /// The decision for one text, or `None` without a decision API.
    pub fn decide(&self, text: &str) -> Option<Result<Decision, RuleError>> {
        let p = self.escalate_if.as_ref()?;
        Some(predicate(p, text).and_then(|esc| {
            if esc {
                Ok(Decision::Escalate)
            } else {
                self.predict(text).map(Decision::Answer)
            }
        }))
    }
}

impl Model for RuleModel {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        texts
            .iter()
            .map(|t| self.predict(t).map_err(ModelError::from))
            .collect()
    }

    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        self.escalate_if.as_ref()?;
        Some(
            texts
                .iter()
                .map(|t| {
                    self.decide(t)
                        .unwrap_or(Ok(Decision::Escalate))
                        .map_err(ModelError::from)
                })
                .collect(),
        )
    }
}
