//! Predictions files: one `{"task": …, "input": …, "predict": […]}` object per line.
//!
//! Strict on purpose: a row that is present but carries no usable prediction (no `predict`,
//! `"predict": null`, a misspelt key such as `"prediction"`) would otherwise be scored as an
//! empty answer and silently cost the model its recall. Every such row is refused, naming the
//! field; only a corpus example with no row at all counts as "no prediction".

use profile_types::value::json_kind;
use serde_json::Value;

use crate::{HarnessError, Variant};

/// One prediction row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prediction {
    /// The task id.
    pub task: String,
    /// The input name.
    pub input: String,
    /// The predicted variants, as given (scoring normalises them).
    pub predict: Vec<Variant>,
}

/// The keys a prediction row may have.
pub const PREDICTION_FIELDS: [&str; 3] = ["task", "input", "predict"];

fn bad(message: String) -> HarnessError {
    HarnessError::BadPrediction { message }
}

/// Parses one non-blank line of a predictions file (surrounding whitespace allowed). The error
/// names the field or column; the caller adds the file and line.
pub fn parse_prediction(line: &str) -> Result<Prediction, HarnessError> {
    let v: Value = serde_json::from_str(line).map_err(|e| {
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(at) => &message[..at],
            None => &message,
        };
        bad(format!("column {}: not JSON: {message}", e.column()))
    })?;
    let Value::Object(map) = v else {
        return Err(bad(format!(
            "expected an object with task, input and predict, found {}",
            json_kind(&v)
        )));
    };
    if let Some(key) = map
        .keys()
        .find(|k| !PREDICTION_FIELDS.contains(&k.as_str()))
    {
        return Err(bad(format!(
            "unknown field {key:?} (a prediction has exactly task, input and predict)"
        )));
    }
    let string = |field: &str| match map.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(bad(format!(
            "field \"{field}\": expected a string, found {}",
            json_kind(other)
        ))),
        None => Err(bad(format!("field \"{field}\" is missing"))),
    };
    let task = string("task")?;
    let input = string("input")?;
    let predict = match map.get("predict") {
        None => {
            return Err(bad(
                "field \"predict\" is missing (list the predicted variants; [] for none)"
                    .to_owned(),
            ));
        }
        Some(Value::Array(items)) => {
            let mut predict = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => predict.push(Variant::from(s.as_str())),
                    other => {
                        return Err(bad(format!(
                            "field \"predict\"[{i}]: expected a string, found {}",
                            json_kind(other)
                        )));
                    }
                }
            }
            predict
        }
        Some(other) => {
            return Err(bad(format!(
                "field \"predict\": expected an array of strings, found {} ([] for none)",
                json_kind(other)
            )));
        }
    };
    Ok(Prediction {
        task,
        input,
        predict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(line: &str) -> String {
        parse_prediction(line)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn a_row_without_a_usable_prediction_is_refused() {
        assert_eq!(
            err(r#"{"task":"co","input":"ab"}"#),
            "field \"predict\" is missing (list the predicted variants; [] for none)"
        );
        assert_eq!(
            err(r#"{"task":"co","input":"ab","predict":null}"#),
            "field \"predict\": expected an array of strings, found null ([] for none)"
        );
        assert_eq!(
            err(r#"{"task":"co","input":"ab","prediction":["a"]}"#),
            "unknown field \"prediction\" (a prediction has exactly task, input and predict)"
        );
        assert_eq!(
            err(r#"{"task":"co","input":"ab","predict":[],"split":"test"}"#),
            "unknown field \"split\" (a prediction has exactly task, input and predict)"
        );
        assert_eq!(
            err("[1]"),
            "expected an object with task, input and predict, found an array"
        );
        assert_eq!(
            err(r#"{"task":"co","predict":[]}"#),
            "field \"input\" is missing"
        );
        assert!(err("{").starts_with("column 1: not JSON: "));
    }

    #[test]
    fn a_well_formed_row_parses() {
        let p = parse_prediction(r#" {"predict":["b","a"],"input":"ab","task":"co"} "#);
        assert_eq!(
            p.ok(),
            Some(Prediction {
                task: "co".into(),
                input: "ab".into(),
                predict: vec![Variant::from("b"), Variant::from("a")],
            })
        );
        let empty = parse_prediction(r#"{"task":"co","input":"ab","predict":[]}"#);
        assert_eq!(empty.ok().map(|p| p.predict.len()), Some(0));
    }
}
