//! The JSONL dataset format: one evaluation case per line.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::mutator::StructuredInput;
use crate::pyjson;
use crate::state::InterpretiveState;

/// One dataset case (one JSON object per line of a `.jsonl` file).
///
/// ```json
/// {"id": "greeting-1",
///  "pre_state": {"registrant": null, "registrant.name": {"inference": null, "values": []}},
///  "input": {"prompt": "Hi, I'm Ada Lovelace", "message_id": "m-1"},
///  "expected_post_state": {"registrant.name": {"values": [{"value": "Ada Lovelace", "confidence": 0.9}]}},
///  "metadata": {"language": "en"},
///  "reply": "[{\"path\": \"registrant.name\", \"value\": \"Ada Lovelace\", \"confidence\": 0.9, \"inference\": \"stated\"}]"}
/// ```
///
/// States are snapshots: path → `{"inference": {...}|null, "values": [{"value", "confidence"}]}`,
/// or `null` for a parent node; dotted paths create their parents, so parents may be left out.
/// Candidate order is kept (it decides ties). `pre_state`, `metadata` and `reply` are optional;
/// `reply` is the fixed model answer an offline (`--replay`) run uses. Unknown keys are refused,
/// so a misspelt key is an error rather than a silently empty state. Numbers are read with
/// correctly rounded floats, because confidences are compared exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// A stable name; `line-N` when the line has none.
    #[serde(default)]
    pub id: String,
    /// The state before the mutation (empty when absent).
    #[serde(default)]
    pub pre_state: InterpretiveState,
    /// The input and its message id.
    pub input: StructuredInput,
    /// The state the mutator should produce.
    pub expected_post_state: InterpretiveState,
    /// Free-form metadata (language, interaction type...), forwarded and echoed.
    #[serde(default)]
    pub metadata: Option<Value>,
    /// A fixed model reply, for offline runs.
    #[serde(default)]
    pub reply: Option<String>,
}

impl Case {
    /// Reads one JSONL line (`line` is its 1-based number, used in errors and default ids).
    pub fn from_line(text: &str, line: usize) -> Result<Case, Error> {
        let case_error = |message: String| Error::Case { line, message };
        let value = pyjson::parse_value(text).map_err(case_error)?;
        let mut case: Case =
            serde_json::from_value(value).map_err(|e| case_error(e.to_string()))?;
        if case.id.is_empty() {
            case.id = format!("line-{line}");
        }
        Ok(case)
    }
}

/// A dataset line: its number and the case, or why it could not be read.
#[derive(Debug)]
pub struct CaseLine {
    /// 1-based line number in the file.
    pub line: usize,
    /// The case, or the reading error (kept, so one bad line does not stop the others).
    pub case: Result<Case, Error>,
}

impl CaseLine {
    /// The case id, or `line-N` for a line that could not be read.
    pub fn id(&self) -> String {
        match &self.case {
            Ok(case) => case.id.clone(),
            Err(_) => format!("line-{}", self.line),
        }
    }
}

/// The non-blank lines of a JSONL text with their 1-based numbers (a leading BOM is skipped).
pub(crate) fn jsonl_lines(text: &str) -> Vec<(usize, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
        .collect()
}

/// Reads every non-blank line of a JSONL text. Bad lines are kept as errors in place.
pub fn read_cases(text: &str) -> Vec<CaseLine> {
    jsonl_lines(text)
        .into_iter()
        .map(|(line, l)| CaseLine {
            line,
            case: Case::from_line(l, line),
        })
        .collect()
}

/// Reads a JSONL file (see [`read_cases`]); fails only when the file cannot be read.
pub fn read_cases_file(path: &Path) -> Result<Vec<CaseLine>, Error> {
    let text = std::fs::read_to_string(path).map_err(|cause| Error::Io {
        path: path.to_owned(),
        cause,
    })?;
    Ok(read_cases(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cases_and_keeps_bad_lines() {
        let text = concat!(
            r#"{"id": "a", "input": {"prompt": "p"}, "expected_post_state": {"x.y": {"values": [{"value": "v", "confidence": 0.30000000000000004}]}}}"#,
            "\n\n",
            r#"{"input": {"prompt": "p"}, "expected_post_state": {}, "reply": "[]"}"#,
            "\n",
            r#"{"input": {"prompt": "p"}, "expected_post_stat": {}}"#,
            "\nnot json\n"
        );
        let lines = read_cases(text);
        assert_eq!(
            lines.iter().map(|l| l.line).collect::<Vec<_>>(),
            [1, 3, 4, 5]
        );
        let a = lines[0].case.as_ref().unwrap();
        assert_eq!(
            a.expected_post_state.paths().collect::<Vec<_>>(),
            ["x", "x.y"]
        );
        assert_eq!(
            a.expected_post_state
                .best_value("x.y")
                .unwrap()
                .confidence(),
            0.1 + 0.2
        );
        assert_eq!(lines[1].case.as_ref().unwrap().id, "line-3");
        let e = lines[2].case.as_ref().unwrap_err().to_string();
        assert!(
            e.starts_with("case line 4: unknown field `expected_post_stat`"),
            "{e}"
        );
        let e = lines[3].case.as_ref().unwrap_err().to_string();
        assert!(e.starts_with("case line 5: not JSON"), "{e}");
        assert_eq!(lines[3].id(), "line-5");
    }
}
