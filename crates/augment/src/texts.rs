//! Texts in: the training texts (read once per pass, streamed) and texts files, by capkit's
//! line rule.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::Error;

/// What a visitor of training texts is called with: each text's id (when the source has one)
/// and the text.
pub type Visitor<'v> = dyn FnMut(Option<&str>, &str) -> Result<(), Error> + 'v;

/// Training texts, read as often as a run needs (an augmentation reads them three times: to
/// count, to find each stage's selection threshold, to write rows), in the same order each
/// time. Memory is the source's business: a file is streamed line by line.
pub trait TrainingTexts {
    /// The source's name, for errors.
    fn name(&self) -> &str;
    /// Calls `visit` with every text, in order.
    fn visit(&self, visit: &mut Visitor<'_>) -> Result<(), Error>;

    /// The number of texts (by default a pass of [`TrainingTexts::visit`]; a source that can
    /// count faster says so).
    fn count(&self) -> Result<u64, Error> {
        let mut n = 0u64;
        self.visit(&mut |_, _| {
            n += 1;
            Ok(())
        })?;
        Ok(n)
    }
}

/// Training texts held in memory, with optional ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InMemory {
    /// The name errors use.
    pub name: String,
    /// `(id, text)` in order.
    pub texts: Vec<(Option<String>, String)>,
}

impl InMemory {
    /// Texts without ids.
    pub fn new<S: Into<String>>(texts: impl IntoIterator<Item = S>) -> InMemory {
        InMemory {
            name: "texts".into(),
            texts: texts.into_iter().map(|t| (None, t.into())).collect(),
        }
    }
}

impl TrainingTexts for InMemory {
    fn name(&self) -> &str {
        &self.name
    }
    fn visit(&self, visit: &mut Visitor<'_>) -> Result<(), Error> {
        for (id, text) in &self.texts {
            visit(id.as_deref(), text)?;
        }
        Ok(())
    }
}

/// A texts file by capkit's rule: a `.jsonl` file has one JSON object per line with a string
/// `"text"` (and, for training texts, an optional `"id"`, a string or a number; blank lines are
/// skipped); any other file has one text per line, verbatim (only the line break, `\n` or
/// `\r\n`, is removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextsFile {
    path: PathBuf,
    name: String,
}

impl TextsFile {
    /// The file at `path`.
    pub fn new(path: impl Into<PathBuf>) -> TextsFile {
        let path = path.into();
        let name = path.display().to_string();
        TextsFile { path, name }
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn jsonl(&self) -> bool {
        self.path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
    }

    /// The fingerprints a report may name this file by: the texts' (`suite_core`'s
    /// `TextsFingerprint`, a report's `texts` block), then the file's bytes (an older report's
    /// run blocks).
    pub fn fingerprints(&self) -> Result<[String; 2], Error> {
        let mut texts = suite_core::TextsFingerprint::default();
        self.visit(&mut |_, text| {
            texts.add(text);
            Ok(())
        })?;
        let file = File::open(&self.path).map_err(|e| Error::io(&self.name, e))?;
        let mut hasher = blake3::Hasher::new();
        hasher
            .update_reader(file)
            .map_err(|e| Error::io(&self.name, e))?;
        Ok([texts.hex(), hasher.finalize().to_hex().to_string()])
    }
}

impl TrainingTexts for TextsFile {
    fn name(&self) -> &str {
        &self.name
    }

    /// A file of one text per line is counted by its line breaks, without decoding (its lines
    /// are checked when they are read); a `.jsonl` file (which skips blank lines) by a pass.
    fn count(&self) -> Result<u64, Error> {
        if self.jsonl() {
            let mut n = 0u64;
            self.visit(&mut |_, _| {
                n += 1;
                Ok(())
            })?;
            return Ok(n);
        }
        let mut file = File::open(&self.path).map_err(|e| Error::io(&self.name, e))?;
        let mut buf = vec![0u8; 1 << 16];
        let (mut n, mut last) = (0u64, b'\n');
        loop {
            let read =
                std::io::Read::read(&mut file, &mut buf).map_err(|e| Error::io(&self.name, e))?;
            if read == 0 {
                // A last line without a line break is a text too.
                return Ok(n + u64::from(last != b'\n'));
            }
            n += buf[..read].iter().filter(|&&b| b == b'\n').count() as u64;
            last = buf[read - 1];
        }
    }

    fn visit(&self, visit: &mut Visitor<'_>) -> Result<(), Error> {
        let file = File::open(&self.path).map_err(|e| Error::io(&self.name, e))?;
        let jsonl = self.jsonl();
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let mut buf = Vec::new();
        let mut line = 0u64;
        let mut id = String::new();
        loop {
            buf.clear();
            let read = reader
                .read_until(b'\n', &mut buf)
                .map_err(|e| Error::io(&self.name, e))?;
            if read == 0 {
                return Ok(());
            }
            line += 1;
            let at = |message: String| Error::Line {
                file: self.name.clone(),
                line,
                message,
            };
            let content = strip_line_break(&buf);
            let Ok(content) = std::str::from_utf8(content) else {
                return Err(at("not valid UTF-8".into()));
            };
            if !jsonl {
                visit(None, content)?;
                continue;
            }
            if content.trim().is_empty() {
                continue;
            }
            let value: Value =
                serde_json::from_str(content).map_err(|e| at(format!("not valid JSON: {e}")))?;
            let Value::Object(obj) = value else {
                return Err(at("no \"text\" field".into()));
            };
            let text = match obj.get("text") {
                Some(Value::String(t)) => t,
                Some(other) => return Err(at(format!("\"text\" must be a string, got {other}"))),
                None => return Err(at("no \"text\" field".into())),
            };
            let has_id = match obj.get("id") {
                None | Some(Value::Null) => false,
                Some(Value::String(s)) => {
                    id.clear();
                    id.push_str(s);
                    true
                }
                Some(Value::Number(n)) => {
                    id.clear();
                    id.push_str(&n.to_string());
                    true
                }
                Some(other) => {
                    return Err(at(format!(
                        "\"id\" must be a string or a number, got {other}"
                    )));
                }
            };
            visit(has_id.then_some(id.as_str()), text)?;
        }
    }
}

/// `line` without its line break (`\n`, `\r\n`, or a `\r` ending the file).
fn strip_line_break(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, content: &str) -> Result<Vec<(Option<String>, String)>, Error> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("tmp", e))?;
        let path = dir.path().join(name);
        std::fs::write(&path, content).map_err(|e| Error::io("tmp", e))?;
        let mut out = Vec::new();
        let file = TextsFile::new(&path);
        file.visit(&mut |id, t| {
            out.push((id.map(str::to_owned), t.to_owned()));
            Ok(())
        })?;
        assert_eq!(
            file.count()?,
            out.len() as u64,
            "the count is the texts read"
        );
        Ok(out)
    }

    #[test]
    fn lines_and_jsonl_read_like_capkit_profile() {
        assert_eq!(read("t.txt", "").unwrap(), []);
        assert_eq!(read("t.txt", "a\n").unwrap(), [(None, "a".into())]);
        let plain = read("t.txt", " a \r\n\nb").unwrap();
        assert_eq!(
            plain,
            [(None, " a ".into()), (None, "".into()), (None, "b".into())]
        );
        let jsonl = read(
            "t.jsonl",
            "{\"text\": \"x\", \"id\": 7}\n\n{\"text\": \"y\", \"id\": \"k\"}\n{\"text\": \"z\"}",
        )
        .unwrap();
        assert_eq!(
            jsonl,
            [
                (Some("7".into()), "x".into()),
                (Some("k".into()), "y".into()),
                (None, "z".into())
            ]
        );
    }

    #[test]
    fn bad_lines_are_named() {
        let err = read("t.jsonl", "{\"text\": \"x\"}\n{\"txt\": 1}")
            .unwrap_err()
            .to_string();
        assert!(err.ends_with("t.jsonl:2: no \"text\" field"), "{err}");
        let err = read("t.jsonl", "{\"text\": \"x\", \"id\": [1]}")
            .unwrap_err()
            .to_string();
        assert!(
            err.ends_with("t.jsonl:1: \"id\" must be a string or a number, got [1]"),
            "{err}"
        );
    }
}
