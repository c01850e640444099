//! Reading `--texts`: verbatim lines, or JSONL with a `"text"` field.

use std::path::Path;

use anyhow::{Context as _, bail};
use serde_json::Value;

/// The texts of a run and the blake3 of the file they came from.
pub(crate) struct Texts {
    pub texts: Vec<String>,
    pub blake3: String,
}

/// Reads `path`: a `.jsonl` file gives one `"text"` per line (blank lines skipped); any other file
/// gives one text per line, verbatim (only the line break is removed, see [`crate::lines`]; an
/// empty line is an empty text; a final line break does not start another text).
pub(crate) fn read(path: &Path) -> anyhow::Result<Texts> {
    let bytes = std::fs::read(path).with_context(|| format!("--texts {}", path.display()))?;
    let blake3 = blake3::hash(&bytes).to_hex().to_string();
    let Ok(content) = std::str::from_utf8(&bytes) else {
        let valid = match std::str::from_utf8(&bytes) {
            Err(e) => e.valid_up_to(),
            Ok(_) => 0,
        };
        let line = bytes[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
        bail!("{}:{line}: not valid UTF-8", path.display());
    };
    let jsonl = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"));
    let texts = if jsonl {
        parse_jsonl(path, content)?
    } else {
        split_lines(content)
    };
    Ok(Texts { texts, blake3 })
}

/// An empty texts file is not an error (the profile is well defined: every rate over no texts),
/// but it is almost never what was meant: say so on stderr.
pub(crate) fn warn_if_empty(path: &Path, texts: &Texts) {
    if texts.texts.is_empty() {
        eprintln!(
            "capkit: warning: --texts {}: no texts (the file is empty); the profile covers the probes only",
            path.display()
        );
    }
}

fn split_lines(content: &str) -> Vec<String> {
    let body = content.strip_suffix('\n').unwrap_or(content);
    if content.is_empty() {
        return Vec::new();
    }
    body.split('\n')
        .map(|line| {
            let text = crate::lines::strip_line_break(line.as_bytes());
            // Only ASCII bytes were removed: still UTF-8.
            String::from_utf8_lossy(text).into_owned()
        })
        .collect()
}

fn parse_jsonl(path: &Path, content: &str) -> anyhow::Result<Vec<String>> {
    let mut texts = Vec::new();
    for (i, line) in content.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{}:{}", path.display(), i + 1);
        let value: Value =
            serde_json::from_str(line).with_context(|| format!("{}: not valid JSON", at()))?;
        match value.get("text") {
            Some(Value::String(text)) => texts.push(text.clone()),
            Some(other) => bail!("{}: \"text\" must be a string, got {other}", at()),
            None => bail!("{}: no \"text\" field", at()),
        }
    }
    Ok(texts)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let p = Path::new("t.jsonl");
        assert_eq!(
            parse_jsonl(p, "{\"text\": \"a\\n\"}\n\n{\"text\": \"b\"}").unwrap(),
            ["a\n", "b"]
        );
        let err = parse_jsonl(p, "{\"text\": \"a\"}\n{\"txt\": 1}").unwrap_err();
        assert_eq!(err.to_string(), "t.jsonl:2: no \"text\" field");
        let err = parse_jsonl(p, "{\"text\": 3}").unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.jsonl:1: \"text\" must be a string, got 3"
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
