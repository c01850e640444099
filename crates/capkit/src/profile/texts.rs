//! Reading `--texts`: verbatim lines, or JSONL with a `"text"` field, streamed in chunks.
//!
//! A run reads the file twice: [`scan`] checks every line and hashes the file before any model
//! starts (a bad line is refused before any work), then [`chunks`] hands the texts to the
//! profile a chunk at a time, so memory is bounded by the chunk, not the file.

use std::fs::File;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use serde_json::Value;

/// What the first pass learns of a texts file.
pub(crate) struct TextsInfo {
    /// blake3 of the file's bytes.
    pub blake3: String,
    /// Number of texts.
    pub count: usize,
}

/// The lines of a texts file, as the line rule reads them.
struct Lines {
    path: PathBuf,
    reader: BufReader<File>,
    jsonl: bool,
    line: usize,
    buf: Vec<u8>,
}

impl Lines {
    fn open(path: &Path) -> anyhow::Result<Lines> {
        let file = File::open(path).with_context(|| format!("--texts {}", path.display()))?;
        let jsonl = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"));
        Ok(Lines {
            path: path.to_owned(),
            reader: BufReader::with_capacity(1 << 16, file),
            jsonl,
            line: 0,
            buf: Vec::new(),
        })
    }

    /// The next text, with the raw bytes of its line (for hashing); `None` at the end.
    fn next_text(&mut self, raw: Option<&mut blake3::Hasher>) -> anyhow::Result<Option<String>> {
        let mut raw = raw;
        loop {
            self.buf.clear();
            let read = self
                .reader
                .read_until(b'\n', &mut self.buf)
                .with_context(|| format!("--texts {}", self.path.display()))?;
            if read == 0 {
                return Ok(None);
            }
            self.line += 1;
            if let Some(h) = raw.as_deref_mut() {
                h.update(&self.buf);
            }
            let Ok(line) = std::str::from_utf8(&self.buf) else {
                bail!("{}:{}: not valid UTF-8", self.path.display(), self.line);
            };
            if !self.jsonl {
                // Only ASCII bytes are removed: still UTF-8.
                let text = crate::lines::strip_line_break(line.as_bytes());
                return Ok(Some(String::from_utf8_lossy(text).into_owned()));
            }
            let line = line.strip_suffix('\n').unwrap_or(line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.trim().is_empty() {
                continue;
            }
            return parse_jsonl_line(&self.path, self.line, line).map(Some);
        }
    }
}

/// Checks every line of `path` (UTF-8; in a `.jsonl` file, a JSON object with a string
/// `"text"`) and hashes the file. A `.jsonl` file gives one `"text"` per line (blank lines
/// skipped); any other file gives one text per line, verbatim (only the line break is removed,
/// see [`crate::lines`]; an empty line is an empty text; a final line break does not start
/// another text).
pub(crate) fn scan(path: &Path) -> anyhow::Result<TextsInfo> {
    let mut lines = Lines::open(path)?;
    let mut hasher = blake3::Hasher::new();
    let mut count = 0;
    while lines.next_text(Some(&mut hasher))?.is_some() {
        count += 1;
    }
    Ok(TextsInfo {
        blake3: hasher.finalize().to_hex().to_string(),
        count,
    })
}

/// The texts of `path` (checked by [`scan`]), `chunk_size` at a time.
pub(crate) fn chunks(
    path: &Path,
    chunk_size: usize,
) -> anyhow::Result<impl Iterator<Item = anyhow::Result<Vec<String>>>> {
    let mut lines = Lines::open(path)?;
    let chunk_size = chunk_size.max(1);
    Ok(std::iter::from_fn(move || {
        let mut chunk = Vec::new();
        while chunk.len() < chunk_size {
            match lines.next_text(None) {
                Ok(Some(text)) => chunk.push(text),
                Ok(None) => break,
                Err(e) => return Some(Err(e)),
            }
        }
        (!chunk.is_empty()).then_some(Ok(chunk))
    }))
}

/// An empty texts file is not an error (the profile is well defined: every rate over no texts),
/// but it is almost never what was meant: say so on stderr.
pub(crate) fn warn_if_empty(path: &Path, texts: &TextsInfo) {
    if texts.count == 0 {
        eprintln!(
            "capkit: warning: --texts {}: no texts (the file is empty); the profile covers the probes only",
            path.display()
        );
    }
}

fn parse_jsonl_line(path: &Path, line: usize, content: &str) -> anyhow::Result<String> {
    let at = || format!("{}:{line}", path.display());
    let value: Value =
        serde_json::from_str(content).with_context(|| format!("{}: not valid JSON", at()))?;
    match value {
        Value::Object(mut obj) => match obj.remove("text") {
            Some(Value::String(text)) => Ok(text),
            Some(other) => bail!("{}: \"text\" must be a string, got {other}", at()),
            None => bail!("{}: no \"text\" field", at()),
        },
        _ => bail!("{}: no \"text\" field", at()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every text of `path` in one pass.
    fn read_all(path: &Path) -> anyhow::Result<Vec<String>> {
        let mut lines = Lines::open(path)?;
        let mut texts = Vec::new();
        while let Some(text) = lines.next_text(None)? {
            texts.push(text);
        }
        Ok(texts)
    }

    /// The texts of a file with `content`, named `name`.
    fn read(name: &str, content: &str) -> anyhow::Result<Vec<String>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join(name);
        std::fs::write(&path, content)?;
        let all = read_all(&path)?;
        let chunked: Vec<String> = chunks(&path, 2)?
            .collect::<anyhow::Result<Vec<_>>>()?
            .concat();
        assert_eq!(all, chunked, "chunks read what one pass reads");
        assert_eq!(scan(&path)?.count, all.len());
        Ok(all)
    }

    fn split_lines(content: &str) -> Vec<String> {
        read("t.txt", content).unwrap()
    }

    #[test]
    fn lines_are_verbatim() {
        assert_eq!(split_lines(""), Vec::<String>::new());
        assert_eq!(split_lines("a\n"), ["a"]);
        assert_eq!(split_lines("a"), ["a"]);
        assert_eq!(split_lines(" a \r\n\n\tb"), [" a ", "", "\tb"]);
        assert_eq!(split_lines("\n"), [""]);
    }

    #[test]
    fn jsonl_errors_name_the_line() {
        assert_eq!(
            read("t.jsonl", "{\"text\": \"a\\n\"}\n\n{\"text\": \"b\"}").unwrap(),
            ["a\n", "b"]
        );
        let err = read("t.jsonl", "{\"text\": \"a\"}\n{\"txt\": 1}").unwrap_err();
        assert!(
            err.to_string().ends_with("t.jsonl:2: no \"text\" field"),
            "{err}"
        );
        let err = read("t.jsonl", "{\"text\": 3}").unwrap_err();
        assert!(
            err.to_string()
                .ends_with("t.jsonl:1: \"text\" must be a string, got 3"),
            "{err}"
        );
        let err = read("t.txt", "ok\n\u{e9}\nb").map(drop);
        assert!(err.is_ok());
    }

    #[test]
    fn invalid_utf8_names_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        std::fs::write(&path, b"a\nb\n\xff\n").unwrap();
        let err = scan(&path).err().unwrap();
        assert!(
            err.to_string().ends_with("t.txt:3: not valid UTF-8"),
            "{err}"
        );
    }

    proptest::proptest! {
        /// Lines joined with line breaks split back verbatim. Without a final line break the last
        /// line must not be empty: `"a\n"` is the one text `a`, and the empty file has none.
        #[test]
        fn lines_round_trip(lines in proptest::collection::vec("[^\r\n]{0,10}", 1..8), final_break: bool) {
            let mut content = lines.join("\n");
            if final_break {
                content.push('\n');
            }
            proptest::prop_assume!(final_break || lines.last().is_some_and(|l| !l.is_empty()));
            proptest::prop_assert_eq!(split_lines(&content), lines);
        }
    }
}
