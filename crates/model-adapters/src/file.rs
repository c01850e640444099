//! `file:` models: precomputed predictions, one `{"text", "label"}` (or `"record"`) per line.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;
use suite_core::decision_of;

use crate::backend::{Answer, Backend, protocol_message, short};
use crate::error::Error;
use crate::settings::Settings;

pub(crate) struct FileBackend {
    name: String,
    answers: HashMap<String, Answer>,
}

impl FileBackend {
    /// Loads every line; a text given twice with different answers is an error.
    pub(crate) fn load(name: &str, path: &Path, settings: &Settings) -> Result<Self, Error> {
        let content = std::fs::read_to_string(path).map_err(|source| Error::ReadPredictions {
            model: name.to_owned(),
            path: path.to_owned(),
            source,
        })?;
        let mut answers: HashMap<String, Answer> = HashMap::new();
        let mut first_line: HashMap<String, usize> = HashMap::new();
        for (i, line) in content.lines().enumerate() {
            let n = i + 1;
            if line.trim().is_empty() {
                continue;
            }
            let bad = |problem: String| Error::Predictions {
                model: name.to_owned(),
                path: path.to_owned(),
                line: n,
                problem,
            };
            let value: Value =
                serde_json::from_str(line).map_err(|e| bad(format!("not valid JSON: {e}")))?;
            let Value::Object(mut obj) = value else {
                return Err(bad("expected a JSON object".to_owned()));
            };
            let Some(Value::String(text)) = obj.remove("text") else {
                return Err(bad("no string \"text\"".to_owned()));
            };
            let output = match (obj.remove("label"), obj.remove("record")) {
                (Some(v), None) | (None, Some(v)) => v,
                (Some(_), Some(_)) => return Err(bad("both \"label\" and \"record\"".to_owned())),
                (None, None) => return Err(bad("no \"label\" (or \"record\")".to_owned())),
            };
            crate::check_output(settings.task.answer_kind(), &output)
                .map_err(|e| bad(protocol_message(&e)))?;
            let answer = Answer {
                output,
                decision: obj.remove("decision").map(decision_of),
            };
            if let Some(before) = answers.get(&text) {
                if *before != answer {
                    return Err(bad(format!(
                        "a different prediction for {:?} than on line {}",
                        short(&text),
                        first_line.get(&text).copied().unwrap_or(0)
                    )));
                }
                continue;
            }
            first_line.insert(text.clone(), n);
            answers.insert(text, answer);
        }
        let with = answers.values().filter(|a| a.decision.is_some()).count();
        if with != 0 && with != answers.len() {
            return Err(Error::PartialDecisions {
                model: name.to_owned(),
                with,
                total: answers.len(),
            });
        }
        Ok(FileBackend {
            name: name.to_owned(),
            answers,
        })
    }
}

impl Backend for FileBackend {
    fn answer(&mut self, texts: &[&str], done: &mut dyn FnMut(u64)) -> Result<Vec<Answer>, Error> {
        let mut out = Vec::with_capacity(texts.len());
        let mut missing = texts.iter().filter(|t| !self.answers.contains_key(**t));
        if let Some(first) = missing.next() {
            let more = missing.count();
            let others = match more {
                0 => String::new(),
                n => format!(" (and {n} more texts of this stage)"),
            };
            return Err(Error::Model(format!(
                "`{}` has no prediction for the text {:?}{others}",
                self.name,
                short(first)
            )));
        }
        for t in texts {
            if let Some(a) = self.answers.get(*t) {
                out.push(a.clone());
            }
        }
        done(texts.len() as u64);
        Ok(out)
    }

    fn identity(&self) -> Option<String> {
        None
    }
}
