//! Texts files: verbatim lines, or JSONL records with a text, an id and columns, streamed in
//! chunks; and the fingerprint of a run's texts that every report carries.
//!
//! A run reads its file twice: [`scan`] checks every line and fingerprints the texts before any
//! model starts (a bad line is refused before any work), then [`chunks`] hands the texts to the
//! profile a chunk at a time, so memory is bounded by the chunk, not the file.
//!
//! The fingerprint ([`TextsFingerprint`]) is of the *texts*, not of the file's bytes: a plain
//! file, its JSONL twin and a Python list of the same texts have the same one, so a report made
//! in Python and one made from a file by the command line carry the same `texts` block, and a
//! shard is recognised however it was given.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
pub use suite_core::TextsFingerprint;

use crate::error::Error;

/// The one line rule of every capkit text-file reader (texts, corpora, JSONL inputs): a line
/// ends at `\n`, and a `\r` just before it is part of the line break, so a CRLF file reads
/// exactly as its LF twin. Nothing else is trimmed. (JSONL readers get the same result from
/// JSON, which treats `\r` as whitespace.)
pub fn strip_line_break(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// How a texts file is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextsFormat {
    /// JSONL records (`None`: by the file's extension, `.jsonl`).
    pub jsonl: Option<bool>,
    /// The field of a JSONL record holding the text.
    pub text_field: String,
    /// The field of a JSONL record holding its id (a string or a number), if any: ids must be
    /// unique in the file.
    pub id_field: Option<String>,
}

impl Default for TextsFormat {
    fn default() -> Self {
        TextsFormat {
            jsonl: None,
            text_field: "text".to_owned(),
            id_field: None,
        }
    }
}

/// One text of a texts file with what its line carried beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The text.
    pub text: String,
    /// Its id (JSONL with an id field), as text.
    pub id: Option<String>,
    /// The record's other fields (JSONL), in file order.
    pub columns: Map<String, Value>,
}

/// One entry of a report's `texts` block: the texts one run counted (a merged report lists one
/// per shard), so that a merge can refuse a shard given twice.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TextsEntry {
    /// The number of texts.
    pub count: usize,
    /// Their fingerprint ([`TextsFingerprint`]).
    pub blake3: String,
}

impl TextsEntry {
    /// The entry of the texts `print` fingerprinted.
    pub fn of(print: &TextsFingerprint) -> TextsEntry {
        TextsEntry {
            count: print.count(),
            blake3: print.hex(),
        }
    }
}

/// What the first pass learns of a texts file.
#[derive(Debug, Clone)]
pub struct TextsInfo {
    /// The file, as given.
    pub path: PathBuf,
    /// blake3 of the file's bytes (the `run` block's provenance).
    pub file_blake3: String,
    /// The texts' fingerprint (the report's `texts` block).
    pub texts: TextsEntry,
}

impl TextsInfo {
    /// The number of texts.
    pub fn count(&self) -> usize {
        self.texts.count
    }
}

/// The records of a texts file, as the line rule reads them.
struct Lines {
    path: PathBuf,
    reader: BufReader<File>,
    format: TextsFormat,
    jsonl: bool,
    line: usize,
    buf: Vec<u8>,
}

fn at(path: &Path) -> String {
    path.display().to_string()
}

impl Lines {
    fn open(path: &Path, format: &TextsFormat) -> Result<Lines, Error> {
        let file = File::open(path).map_err(|source| Error::Texts {
            path: at(path),
            source,
        })?;
        let jsonl = format.jsonl.unwrap_or_else(|| {
            path.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
        });
        Ok(Lines {
            path: path.to_owned(),
            reader: BufReader::with_capacity(1 << 16, file),
            format: format.clone(),
            jsonl,
            line: 0,
            buf: Vec::new(),
        })
    }

    fn bad(&self, message: impl Into<String>) -> Error {
        Error::TextsLine {
            path: at(&self.path),
            line: self.line,
            message: message.into(),
        }
    }

    /// The next record, the raw bytes of its line fed to `raw` (for hashing); `None` at the end.
    fn next_record(
        &mut self,
        mut raw: Option<&mut blake3::Hasher>,
    ) -> Result<Option<Record>, Error> {
        loop {
            self.buf.clear();
            let read = self
                .reader
                .read_until(b'\n', &mut self.buf)
                .map_err(|source| Error::Texts {
                    path: at(&self.path),
                    source,
                })?;
            if read == 0 {
                return Ok(None);
            }
            self.line += 1;
            if let Some(h) = raw.as_deref_mut() {
                h.update(&self.buf);
            }
            let Ok(line) = std::str::from_utf8(&self.buf) else {
                return Err(self.bad("not valid UTF-8"));
            };
            if !self.jsonl {
                // Only ASCII bytes are removed: still UTF-8.
                let text = String::from_utf8_lossy(strip_line_break(line.as_bytes())).into_owned();
                return Ok(Some(Record {
                    text,
                    id: None,
                    columns: Map::new(),
                }));
            }
            let line = line.strip_suffix('\n').unwrap_or(line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.trim().is_empty() {
                continue;
            }
            return self.parse_record(line).map(Some);
        }
    }

    fn parse_record(&self, content: &str) -> Result<Record, Error> {
        let value: Value =
            serde_json::from_str(content).map_err(|e| self.bad(format!("not valid JSON: {e}")))?;
        let field = &self.format.text_field;
        let Value::Object(mut columns) = value else {
            return Err(self.bad(format!("no {field:?} field")));
        };
        let text = match columns.shift_remove(field) {
            Some(Value::String(text)) => text,
            Some(other) => return Err(self.bad(format!("{field:?} must be a string, got {other}"))),
            None => return Err(self.bad(format!("no {field:?} field"))),
        };
        let id = match &self.format.id_field {
            None => None,
            Some(name) => Some(match columns.shift_remove(name) {
                Some(Value::String(id)) => id,
                Some(Value::Number(n)) => n.to_string(),
                Some(other) => {
                    return Err(self.bad(format!(
                        "{name:?} (the id) must be a string or a number, got {other}"
                    )));
                }
                None => return Err(self.bad(format!("no {name:?} field (the id)"))),
            }),
        };
        Ok(Record { text, id, columns })
    }
}

/// Checks every line of `path` (UTF-8; in a JSONL file, an object with a string text field and,
/// when an id field is named, a unique id) and fingerprints the file and its texts. A JSONL file
/// gives one record per line (blank lines skipped); any other file gives one text per line,
/// verbatim (only the line break is removed, see [`strip_line_break`]; an empty line is an empty
/// text; a final line break does not start another text).
pub fn scan(path: &Path, format: &TextsFormat) -> Result<TextsInfo, Error> {
    let mut lines = Lines::open(path, format)?;
    let mut file = blake3::Hasher::new();
    let mut texts = TextsFingerprint::default();
    // Ids name texts in ledgers and slices: two lines with one id would be told apart by nothing.
    let mut ids: HashMap<String, usize> = HashMap::new();
    while let Some(record) = lines.next_record(Some(&mut file))? {
        if let Some(id) = record.id
            && let Some(first) = ids.insert(id.clone(), lines.line)
        {
            return Err(lines.bad(format!("id {id:?} is also the id of line {first}")));
        }
        texts.add(&record.text);
    }
    Ok(TextsInfo {
        path: path.to_owned(),
        file_blake3: file.finalize().to_hex().to_string(),
        texts: TextsEntry::of(&texts),
    })
}

/// The records of `path` (checked by [`scan`]), `chunk_size` at a time.
pub fn records(
    path: &Path,
    format: &TextsFormat,
    chunk_size: usize,
) -> Result<impl Iterator<Item = Result<Vec<Record>, Error>> + use<>, Error> {
    let mut lines = Lines::open(path, format)?;
    let chunk_size = chunk_size.max(1);
    Ok(std::iter::from_fn(move || {
        let mut chunk = Vec::new();
        while chunk.len() < chunk_size {
            match lines.next_record(None) {
                Ok(Some(record)) => chunk.push(record),
                Ok(None) => break,
                Err(e) => return Some(Err(e)),
            }
        }
        (!chunk.is_empty()).then_some(Ok(chunk))
    }))
}

/// The texts of `path` (checked by [`scan`]), `chunk_size` at a time.
pub fn chunks(
    path: &Path,
    format: &TextsFormat,
    chunk_size: usize,
) -> Result<impl Iterator<Item = Result<Vec<String>, Error>> + use<>, Error> {
    Ok(records(path, format, chunk_size)?
        .map(|chunk| chunk.map(|records| records.into_iter().map(|r| r.text).collect())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of a file with `content`, named `name`, read whole and in chunks of two.
    fn read_with(name: &str, content: &[u8], format: &TextsFormat) -> Result<Vec<Record>, Error> {
        let dir = tempfile::tempdir().map_err(|source| Error::Texts {
            path: name.into(),
            source,
        })?;
        let path = dir.path().join(name);
        std::fs::write(&path, content).map_err(|source| Error::Texts {
            path: name.into(),
            source,
        })?;
        let info = scan(&path, format)?;
        let all: Vec<Record> = records(&path, format, usize::MAX)?
            .collect::<Result<Vec<_>, _>>()?
            .concat();
        let chunked: Vec<String> = chunks(&path, format, 2)?
            .collect::<Result<Vec<_>, _>>()?
            .concat();
        assert_eq!(
            all.iter().map(|r| r.text.clone()).collect::<Vec<_>>(),
            chunked,
            "chunks read what one pass reads"
        );
        assert_eq!(info.count(), all.len());
        assert_eq!(
            info.texts,
            TextsEntry::of(&TextsFingerprint::of(chunked.iter().map(String::as_str)))
        );
        Ok(all)
    }

    fn read(name: &str, content: &str) -> Result<Vec<String>, Error> {
        read_with(name, content.as_bytes(), &TextsFormat::default())
            .map(|r| r.into_iter().map(|r| r.text).collect())
    }

    #[test]
    fn crlf_and_lf_lines_are_the_same() {
        assert_eq!(strip_line_break(b"ab\r\n"), b"ab");
        assert_eq!(strip_line_break(b"ab\n"), b"ab");
        assert_eq!(strip_line_break(b"ab\r"), b"ab");
        assert_eq!(strip_line_break(b"ab"), b"ab");
        assert_eq!(strip_line_break(b" a\tb \n"), b" a\tb ");
        assert_eq!(strip_line_break(b"a\r\r\n"), b"a\r");
    }

    #[test]
    fn lines_are_verbatim() {
        assert_eq!(read("t.txt", "").unwrap(), Vec::<String>::new());
        assert_eq!(read("t.txt", "a\n").unwrap(), ["a"]);
        assert_eq!(read("t.txt", "a").unwrap(), ["a"]);
        assert_eq!(read("t.txt", " a \r\n\n\tb").unwrap(), [" a ", "", "\tb"]);
        assert_eq!(read("t.txt", "\n").unwrap(), [""]);
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
        assert!(read("t.txt", "ok\n\u{e9}\nb").is_ok());
    }

    #[test]
    fn invalid_utf8_names_its_line() {
        let err = read_with("t.txt", b"a\nb\n\xff\n", &TextsFormat::default()).unwrap_err();
        assert!(
            err.to_string().ends_with("t.txt:3: not valid UTF-8"),
            "{err}"
        );
    }

    #[test]
    fn records_carry_ids_and_columns() {
        let format = TextsFormat {
            jsonl: None,
            text_field: "body".into(),
            id_field: Some("id".into()),
        };
        let got = read_with(
            "t.jsonl",
            br#"{"id": 7, "body": "hola", "lang": "es"}
{"lang": "pt", "body": "ola", "id": "b"}"#,
            &format,
        )
        .unwrap();
        assert_eq!(got[0].id.as_deref(), Some("7"));
        assert_eq!(got[0].columns["lang"], "es");
        assert_eq!(got[1].text, "ola");
        assert_eq!(got[1].id.as_deref(), Some("b"));
        let err = read_with(
            "t.jsonl",
            b"{\"id\": 1, \"body\": \"a\"}\n{\"id\": 1, \"body\": \"b\"}",
            &format,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .ends_with("t.jsonl:2: id \"1\" is also the id of line 1"),
            "{err}"
        );
        let err = read_with("t.jsonl", b"{\"body\": \"a\"}", &format).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("t.jsonl:1: no \"id\" field (the id)"),
            "{err}"
        );
    }

    #[test]
    fn a_plain_file_and_its_jsonl_twin_have_one_fingerprint() {
        let plain = read_with("t.txt", b"a\nb c\n", &TextsFormat::default()).unwrap();
        assert_eq!(plain.len(), 2);
        let one = TextsEntry::of(&TextsFingerprint::of(["a", "b c"]));
        let two = TextsEntry::of(&TextsFingerprint::of(["a", "b", "c"]));
        let joined = TextsEntry::of(&TextsFingerprint::of(["ab c"]));
        assert_ne!(one.blake3, two.blake3);
        assert_ne!(one.blake3, joined.blake3);
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
            proptest::prop_assert_eq!(read("t.txt", &content).unwrap(), lines);
        }
    }
}
