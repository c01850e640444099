//! Model specs: `cmd:PROGRAM ARGS…`, `http:URL`, `openai:MODEL`, `file:PREDICTIONS.jsonl`.

use std::fmt;
use std::path::PathBuf;

use anyhow::bail;

/// A parsed `--student` / `--teacher` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ModelSpec {
    /// A subprocess: program and arguments, split like a shell would split words (quotes,
    /// backslashes) but never run through a shell.
    Cmd { raw: String, argv: Vec<String> },
    /// An HTTP endpoint taking `{"texts": […]}`.
    Http { url: String },
    /// A model name on an OpenAI-compatible API, optionally with its own base URL
    /// (`openai:MODEL@http://host/v1`; otherwise `--base-url`).
    OpenAi {
        model: String,
        base_url: Option<String>,
    },
    /// Precomputed predictions.
    File { path: PathBuf },
}

const FORMS: &str = "cmd:PROGRAM ARGS…, http:URL, openai:MODEL or file:PREDICTIONS.jsonl";

impl ModelSpec {
    /// Parses a spec; errors say which forms exist.
    pub(crate) fn parse(raw: &str) -> anyhow::Result<ModelSpec> {
        let Some((scheme, rest)) = raw.split_once(':') else {
            bail!("model spec {raw:?} has no scheme; expected {FORMS}");
        };
        Ok(match scheme {
            "cmd" => {
                let argv = split_words(rest)?;
                if argv.is_empty() {
                    bail!("model spec {raw:?}: no program after `cmd:`");
                }
                ModelSpec::Cmd {
                    raw: raw.to_owned(),
                    argv,
                }
            }
            // `http:URL` as documented, and a bare `http://…` / `https://…` URL too.
            "http" | "https" if rest.starts_with("//") => ModelSpec::Http {
                url: raw.to_owned(),
            },
            "http" if !rest.is_empty() => ModelSpec::Http {
                url: rest.to_owned(),
            },
            "openai" if !rest.is_empty() => {
                let (model, base_url) =
                    match rest.rfind("@http://").or_else(|| rest.rfind("@https://")) {
                        Some(at) => (&rest[..at], Some(rest[at + 1..].to_owned())),
                        None => (rest, None),
                    };
                if model.is_empty() {
                    bail!("model spec {raw:?}: no model name before `@`");
                }
                ModelSpec::OpenAi {
                    model: model.to_owned(),
                    base_url,
                }
            }
            "file" if !rest.is_empty() => ModelSpec::File {
                path: PathBuf::from(rest),
            },
            "openai" | "file" | "http" => bail!("model spec {raw:?}: nothing after `{scheme}:`"),
            other => bail!("model spec {raw:?}: unknown scheme `{other}:`; expected {FORMS}"),
        })
    }
}

impl fmt::Display for ModelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelSpec::Cmd { raw, .. } => f.write_str(raw),
            ModelSpec::Http { url } => write!(f, "http:{}", scrub_userinfo(url)),
            ModelSpec::OpenAi { model, base_url } => match base_url {
                Some(url) => write!(f, "openai:{model}@{}", scrub_userinfo(url)),
                None => write!(f, "openai:{model}"),
            },
            ModelSpec::File { path } => write!(f, "file:{}", path.display()),
        }
    }
}

/// `http://user:secret@host/x` → `http://***@host/x`: credentials never reach output.
pub(crate) fn scrub_userinfo(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://***{}", &rest[at..]),
        None => url.to_owned(),
    }
}

/// Splits a command line into words: whitespace separates, `'…'` is literal, `"…"` allows `\"`
/// and `\\`, a backslash outside quotes escapes the next character.
pub(crate) fn split_words(line: &str) -> anyhow::Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => bail!("unterminated ' in {line:?}"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => bail!("unterminated \" in {line:?}"),
                        },
                        Some(c) => word.push(c),
                        None => bail!("unterminated \" in {line:?}"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => bail!("trailing backslash in {line:?}"),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell_without_one() {
        assert_eq!(
            split_words(r#"python3 "my model.py" --x 'a b' c\ d "q\"" ''"#).unwrap(),
            ["python3", "my model.py", "--x", "a b", "c d", "q\"", ""]
        );
        assert!(split_words("a 'b").is_err());
    }

    #[test]
    fn specs_parse() {
        assert_eq!(
            ModelSpec::parse("cmd:python3 m.py").unwrap(),
            ModelSpec::Cmd {
                raw: "cmd:python3 m.py".into(),
                argv: vec!["python3".into(), "m.py".into()]
            }
        );
        assert_eq!(
            ModelSpec::parse("http://127.0.0.1:9/p").unwrap(),
            ModelSpec::Http {
                url: "http://127.0.0.1:9/p".into()
            }
        );
        assert_eq!(
            ModelSpec::parse("http:http://127.0.0.1:9/p").unwrap(),
            ModelSpec::Http {
                url: "http://127.0.0.1:9/p".into()
            }
        );
        assert_eq!(
            ModelSpec::parse("openai:org/m@v2@http://h:1/v1").unwrap(),
            ModelSpec::OpenAi {
                model: "org/m@v2".into(),
                base_url: Some("http://h:1/v1".into())
            }
        );
        assert!(ModelSpec::parse("gpt4").is_err());
        assert!(ModelSpec::parse("ftp:x").is_err());
        assert!(ModelSpec::parse("cmd:  ").is_err());
        assert_eq!(scrub_userinfo("http://u:p@h:1/x@y"), "http://***@h:1/x@y");
    }

    proptest::proptest! {
        /// Any argv survives being written as single-quoted words (a `'` as `\'` outside the
        /// quotes) and split again.
        #[test]
        fn quoted_words_round_trip(argv in proptest::collection::vec(".{0,12}", 1..6)) {
            let line: Vec<String> = argv
                .iter()
                .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
                .collect();
            proptest::prop_assert_eq!(split_words(&line.join(" ")).unwrap(), argv);
        }
    }
}
