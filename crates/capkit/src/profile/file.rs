//! `file:` models: precomputed predictions, one `{"text", "label"}` (or `"record"`) per line.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context as _, bail};
use serde_json::Value;

use crate::profile::model::{Answer, Backend, Settings, check_record, decision_of, short};

pub(crate) struct FileBackend {
    name: String,
    answers: HashMap<String, Answer>,
}

impl FileBackend {
    /// Loads every line; a text given twice with different answers is an error.
    pub(crate) fn load(name: &str, path: &Path, settings: &Settings) -> anyhow::Result<Self> {
        let content = std::fs::read_to_string(path)
            .with_context(|| format!("model `{name}`: {}", path.display()))?;
        let mut answers: HashMap<String, Answer> = HashMap::new();
        let mut first_line: HashMap<String, usize> = HashMap::new();
        for (i, line) in content.lines().enumerate() {
            let n = i + 1;
            if line.trim().is_empty() {
                continue;
            }
            let at = || format!("model `{name}`: {}:{n}", path.display());
            let value: Value =
                serde_json::from_str(line).with_context(|| format!("{}: not valid JSON", at()))?;
            let Value::Object(mut obj) = value else {
                bail!("{}: expected a JSON object", at());
            };
            let Some(Value::String(text)) = obj.remove("text") else {
                bail!("{}: no string \"text\"", at());
            };
            let output = match (obj.remove("label"), obj.remove("record")) {
                (Some(v), None) | (None, Some(v)) => v,
                (Some(_), Some(_)) => bail!("{}: both \"label\" and \"record\"", at()),
                (None, None) => bail!("{}: no \"label\" (or \"record\")", at()),
            };
            check_record(settings.task, &output, &at).map_err(anyhow::Error::msg)?;
            let answer = Answer {
                output,
                decision: obj.remove("decision").map(decision_of),
            };
            if let Some(before) = answers.get(&text) {
                if *before != answer {
                    bail!(
                        "{}: a different prediction for {:?} than on line {}",
                        at(),
                        short(&text),
                        first_line.get(&text).copied().unwrap_or(0)
                    );
                }
                continue;
            }
            first_line.insert(text.clone(), n);
            answers.insert(text, answer);
        }
        let with = answers.values().filter(|a| a.decision.is_some()).count();
        if with != 0 && with != answers.len() {
            bail!(
                "model `{name}`: {} of {} predictions have a \"decision\"; give it on every line or none",
                with,
                answers.len()
            );
        }
        Ok(FileBackend {
            name: name.to_owned(),
            answers,
        })
    }
}

impl Backend for FileBackend {
    fn answer(&mut self, texts: &[&str], done: &mut dyn FnMut(u64)) -> Result<Vec<Answer>, String> {
        let mut out = Vec::with_capacity(texts.len());
        let mut missing = texts.iter().filter(|t| !self.answers.contains_key(**t));
        if let Some(first) = missing.next() {
            let more = missing.count();
            let others = match more {
                0 => String::new(),
                n => format!(" (and {n} more texts of this stage)"),
            };
            return Err(format!(
                "`{}` has no prediction for the text {:?}{others}",
                self.name,
                short(first)
            ));
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
