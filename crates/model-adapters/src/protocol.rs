//! The answer side of the JSONL/HTTP model protocol (`docs/model-protocol.md`), as pure parsers,
//! so every adapter (`cmd:`, `http:`, `file:`, `openai:`; other hosts) reads answers the same way
//! and the parsers can be fuzzed on their own. (They lived in `suite-core` until 0.1; the
//! adapters are their only user.)
//!
//! * A subprocess model answers each request line `{"id", "text"}` with one line
//!   `{"id": N, "label": …}` (classifiers) or `{"id": N, "record": {…}}` (extractors), plus an
//!   optional `"decision"` (`null` escalates, anything else answers): [`parse_answer_line`].
//! * An HTTP model answers a batch `{"texts": […]}` with `{"labels": […]}` or
//!   `{"records": […]}` and an optional `"decisions": […]` of the same length:
//!   [`parse_batch_answer`].

use serde::Deserialize;
use serde_json::Value;

use suite_core::{Decision, decision_of};

/// What a model answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerKind {
    /// A classifier's label: any JSON value.
    Label,
    /// An extractor's record: a JSON object.
    Record,
}

impl AnswerKind {
    /// The key of one answer (`label`, `record`).
    pub fn key(self) -> &'static str {
        match self {
            AnswerKind::Label => "label",
            AnswerKind::Record => "record",
        }
    }

    /// The key of a batch of answers (`labels`, `records`).
    pub fn batch_key(self) -> &'static str {
        match self {
            AnswerKind::Label => "labels",
            AnswerKind::Record => "records",
        }
    }
}

/// One parsed answer line.
#[derive(Debug, Clone, PartialEq)]
pub struct LineAnswer {
    /// The text id it answers.
    pub id: u64,
    /// The label or record.
    pub output: Value,
    /// The decision, when the line has a `"decision"` key.
    pub decision: Option<Decision>,
}

#[derive(Deserialize)]
struct Reply {
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    label: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    record: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    decision: Option<Value>,
}

/// `Some(value)` for a present key, `null` included (absent keys use the default, `None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Refuses a non-object where a record is expected, and an output holding a key capkit
/// reserves for the Python values it carries inside JSON (a NUL, then `capkit:`; see
/// `profile_types::py_value`): read as such, the answer would stand for a value the model never
/// gave (`{"\u0000capkit:py": ["int", "5"]}` would be the int 5).
pub fn check_output(kind: AnswerKind, output: &Value) -> Result<(), ProtocolError> {
    if kind == AnswerKind::Record && !output.is_object() {
        return Err(ProtocolError::NotARecord {
            got: output.to_string(),
        });
    }
    if let Some(key) = profile_types::py_value::reserved_key_in(output) {
        return Err(ProtocolError::ReservedKey {
            key: key.to_owned(),
        });
    }
    Ok(())
}

/// Parses one answer line (without its line break). Other keys are ignored; `label` and
/// `record` are interchangeable, but exactly one must be present.
pub fn parse_answer_line(line: &[u8], kind: AnswerKind) -> Result<LineAnswer, ProtocolError> {
    let reply: Reply = serde_json::from_slice(line).map_err(|e| ProtocolError::NotJson {
        error: e.to_string(),
        line: String::from_utf8_lossy(line).into_owned(),
    })?;
    let id = match &reply.id {
        Some(Value::Number(n)) => n.as_u64(),
        _ => None,
    }
    .ok_or(ProtocolError::NoId)?;
    let output = match (reply.label, reply.record) {
        (Some(v), None) | (None, Some(v)) => v,
        (Some(_), Some(_)) => return Err(ProtocolError::BothOutputs { id }),
        (None, None) => {
            return Err(ProtocolError::NoOutput {
                id,
                key: kind.key(),
            });
        }
    };
    check_output(kind, &output).map_err(|e| ProtocolError::InAnswer {
        id,
        error: Box::new(e),
    })?;
    Ok(LineAnswer {
        id,
        output,
        decision: reply.decision.map(decision_of),
    })
}

/// Parses the answer to a batch of `n` texts: `n` outputs under `labels` or `records` (the
/// other key is accepted too), and optionally `n` decisions.
pub fn parse_batch_answer(
    body: &str,
    kind: AnswerKind,
    n: usize,
) -> Result<Vec<(Value, Option<Decision>)>, ProtocolError> {
    let value: Value = serde_json::from_str(body).map_err(|e| ProtocolError::BodyNotJson {
        error: e.to_string(),
    })?;
    let key = kind.batch_key();
    let other = match kind {
        AnswerKind::Label => AnswerKind::Record.batch_key(),
        AnswerKind::Record => AnswerKind::Label.batch_key(),
    };
    let outputs = value
        .get(key)
        .or_else(|| value.get(other))
        .and_then(Value::as_array)
        .ok_or(ProtocolError::NoList { key })?;
    if outputs.len() != n {
        return Err(ProtocolError::WrongLength {
            key,
            got: outputs.len(),
            texts: n,
        });
    }
    let decisions = match value.get("decisions") {
        None => None,
        Some(Value::Array(d)) if d.len() == n => Some(d),
        Some(_) => return Err(ProtocolError::BadDecisions { texts: n }),
    };
    let mut out = Vec::with_capacity(n);
    for (i, output) in outputs.iter().enumerate() {
        check_output(kind, output).map_err(|e| ProtocolError::InBatch {
            index: i,
            error: Box::new(e),
        })?;
        let decision = decisions.and_then(|d| d.get(i)).cloned().map(decision_of);
        out.push((output.clone(), decision));
    }
    Ok(out)
}

/// Why an answer of the model protocol ([`parse_answer_line`], [`parse_batch_answer`]) is
/// refused. Messages name what is wrong; the caller adds the
/// model, the output line and the text id.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ProtocolError {
    /// An answer line is not a JSON object.
    #[error("not a JSON answer object ({error}): {line}")]
    NotJson {
        /// The JSON error.
        error: String,
        /// The line as received.
        line: String,
    },
    /// An answer line has no non-negative integer `id`.
    #[error("no integer \"id\"")]
    NoId,
    /// An answer line has both `label` and `record`.
    #[error("both \"label\" and \"record\"")]
    BothOutputs {
        /// The text id.
        id: u64,
    },
    /// An answer line has neither `label` nor `record`.
    #[error("no \"{key}\"")]
    NoOutput {
        /// The text id.
        id: u64,
        /// The expected key.
        key: &'static str,
    },
    /// A record is not a JSON object.
    #[error("a record must be a JSON object, got {got}")]
    NotARecord {
        /// The value received.
        got: String,
    },
    /// An output holds a key capkit reserves for Python values.
    #[error(
        "the answer holds the key {key:?}, which capkit reserves for the Python values it carries in JSON (a NUL, then \"capkit:\"); rename it"
    )]
    ReservedKey {
        /// The key.
        key: String,
    },
    /// An answer line's output is refused.
    #[error("{error}")]
    InAnswer {
        /// The text id.
        id: u64,
        /// Why.
        error: Box<ProtocolError>,
    },
    /// A batch answer is not JSON.
    #[error("the response is not JSON ({error})")]
    BodyNotJson {
        /// The JSON error.
        error: String,
    },
    /// A batch answer has no list of outputs.
    #[error("the response has no \"{key}\" list")]
    NoList {
        /// The expected key.
        key: &'static str,
    },
    /// A batch answer has the wrong number of outputs.
    #[error("{got} {key} for {texts} texts")]
    WrongLength {
        /// The key read.
        key: &'static str,
        /// Outputs received.
        got: usize,
        /// Texts sent.
        texts: usize,
    },
    /// A batch answer's `decisions` is not a list of one per text.
    #[error("\"decisions\" must be a list of {texts} items")]
    BadDecisions {
        /// Texts sent.
        texts: usize,
    },
    /// One output of a batch is refused.
    #[error("{error}")]
    InBatch {
        /// Its position in the batch.
        index: usize,
        /// Why.
        error: Box<ProtocolError>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answer_lines() {
        let a = parse_answer_line(
            br#"{"id": 3, "label": "pos", "decision": null}"#,
            AnswerKind::Label,
        );
        assert_eq!(
            a.ok(),
            Some(LineAnswer {
                id: 3,
                output: json!("pos"),
                decision: Some(Decision::Escalate)
            })
        );
        let err = |line: &[u8], kind| parse_answer_line(line, kind).err().map(|e| e.to_string());
        assert_eq!(
            err(br#"{"label": 1}"#, AnswerKind::Label).as_deref(),
            Some("no integer \"id\"")
        );
        assert_eq!(
            err(br#"{"id": 1, "label": 1, "record": {}}"#, AnswerKind::Label).as_deref(),
            Some("both \"label\" and \"record\"")
        );
        assert_eq!(
            err(br#"{"id": 1}"#, AnswerKind::Record).as_deref(),
            Some("no \"record\"")
        );
        assert_eq!(
            err(br#"{"id": 1, "record": 2}"#, AnswerKind::Record).as_deref(),
            Some("a record must be a JSON object, got 2")
        );
        assert!(
            err(b"[", AnswerKind::Label).is_some_and(|e| e.starts_with("not a JSON answer object"))
        );
        // A valid encoding of a Python value (here the int 5), in a record or a label.
        let reserved = "the answer holds the key \"\\0capkit:py\", which capkit reserves for the \
                        Python values it carries in JSON (a NUL, then \"capkit:\"); rename it";
        for (line, kind) in [
            (
                &br#"{"id": 1, "record": {"n": {"\u0000capkit:py": ["int", "5"]}}}"#[..],
                AnswerKind::Record,
            ),
            (
                br#"{"id": 1, "label": [{"\u0000capkit:py": ["float", "nan"]}]}"#,
                AnswerKind::Label,
            ),
        ] {
            assert_eq!(err(line, kind).as_deref(), Some(reserved));
        }
        assert!(
            err(
                br#"{"id": 1, "record": {"\u0000capkit:key:1": "x"}}"#,
                AnswerKind::Record
            )
            .is_some_and(|e| e.contains("\\0capkit:key:1"))
        );
    }

    #[test]
    fn batch_answers() {
        let got = parse_batch_answer(
            r#"{"labels": [1, 2], "decisions": [null, 0]}"#,
            AnswerKind::Label,
            2,
        );
        assert_eq!(
            got.ok(),
            Some(vec![
                (json!(1), Some(Decision::Escalate)),
                (json!(2), Some(Decision::Answer(json!(0))))
            ])
        );
        let err = |body: &str, n| {
            parse_batch_answer(body, AnswerKind::Record, n)
                .err()
                .map(|e| e.to_string())
        };
        assert_eq!(
            err(r#"{"records": [{}]}"#, 2).as_deref(),
            Some("1 records for 2 texts")
        );
        assert_eq!(
            err(r#"{"x": 1}"#, 1).as_deref(),
            Some("the response has no \"records\" list")
        );
        assert_eq!(
            err(r#"{"records": [{}], "decisions": 1}"#, 1).as_deref(),
            Some("\"decisions\" must be a list of 1 items")
        );
        let crafted = parse_batch_answer(
            r#"{"records": [{}, {"b": {"\u0000capkit:py": ["bytes", "00"]}}]}"#,
            AnswerKind::Record,
            2,
        );
        assert!(
            matches!(&crafted, Err(ProtocolError::InBatch { index: 1, error }) if matches!(**error, ProtocolError::ReservedKey { .. })),
            "{crafted:?}"
        );
    }
}
