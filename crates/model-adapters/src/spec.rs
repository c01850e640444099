//! Model specs: `cmd:PROGRAM ARGS…`, `http:URL`, `openai:MODEL[@URL]`, `file:PREDICTIONS.jsonl`.

use std::fmt;
use std::path::PathBuf;

use crate::error::Error;

/// A model named by a spec: the strings `capkit profile --student/--teacher` accept.
///
/// ```
/// use model_adapters::ModelSpec;
///
/// let spec = ModelSpec::parse("cmd:python3 'my model.py' --fast")?;
/// assert_eq!(spec, ModelSpec::Cmd {
///     raw: "cmd:python3 'my model.py' --fast".into(),
///     argv: vec!["python3".into(), "my model.py".into(), "--fast".into()],
/// });
/// // Credentials in a URL never reach a message or a report.
/// let spec = ModelSpec::parse("openai:org/model@https://user:secret@host/v1")?;
/// assert_eq!(spec.to_string(), "openai:org/model@https://***@host/v1");
/// # Ok::<(), model_adapters::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelSpec {
    /// A subprocess: program and arguments, split like a shell splits words (quotes,
    /// backslashes) but never run through a shell.
    Cmd {
        /// The spec as given (`cmd:…`): the model's name in messages and reports.
        raw: String,
        /// The program and its arguments.
        argv: Vec<String>,
    },
    /// An HTTP endpoint taking `{"texts": […]}`.
    Http {
        /// The URL (`http://…` or `https://…`).
        url: String,
    },
    /// A model on an OpenAI-compatible chat API.
    OpenAi {
        /// The model name sent to the API.
        model: String,
        /// The model's own base URL (`openai:MODEL@http://host/v1`); `None`:
        /// [`Settings::base_url`](crate::Settings::base_url).
        base_url: Option<String>,
    },
    /// Precomputed predictions, one `{"text", "label"}` (or `"record"`) JSON object per line.
    File {
        /// The predictions file.
        path: PathBuf,
    },
}

impl ModelSpec {
    /// Parses a spec; errors say which forms exist. `http://…` and `https://…` alone are
    /// `http:` models too.
    pub fn parse(raw: &str) -> Result<ModelSpec, Error> {
        let bad = |problem: String| Error::BadSpec {
            raw: raw.to_owned(),
            problem,
        };
        let Some((scheme, rest)) = raw.split_once(':') else {
            return Err(Error::NoScheme {
                raw: raw.to_owned(),
            });
        };
        Ok(match scheme {
            "cmd" => {
                let argv = split_words(rest).map_err(bad)?;
                if argv.is_empty() {
                    return Err(bad("no program after `cmd:`".to_owned()));
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
                    return Err(bad("no model name before `@`".to_owned()));
                }
                ModelSpec::OpenAi {
                    model: model.to_owned(),
                    base_url,
                }
            }
            "file" if !rest.is_empty() => ModelSpec::File {
                path: PathBuf::from(rest),
            },
            "openai" | "file" | "http" => return Err(bad(format!("nothing after `{scheme}:`"))),
            other => {
                return Err(Error::UnknownScheme {
                    raw: raw.to_owned(),
                    scheme: other.to_owned(),
                });
            }
        })
    }

    /// The `cmd:` spec of a program and its arguments, written so that [`ModelSpec::parse`]
    /// reads the same words back (words with spaces or quotes are single-quoted).
    pub fn cmd<S: Into<String>>(argv: impl IntoIterator<Item = S>) -> Result<ModelSpec, Error> {
        let argv: Vec<String> = argv.into_iter().map(Into::into).collect();
        let words: Vec<String> = argv.iter().map(|w| quote_word(w)).collect();
        let raw = format!("cmd:{}", words.join(" "));
        if argv.is_empty() {
            return Err(Error::BadSpec {
                raw,
                problem: "no program after `cmd:`".to_owned(),
            });
        }
        Ok(ModelSpec::Cmd { raw, argv })
    }

    /// The model's name in messages and reports: the spec with URL credentials scrubbed.
    pub fn name(&self) -> String {
        self.to_string()
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
///
/// ```
/// assert_eq!(model_adapters::scrub_userinfo("http://u:p@h:1/x@y"), "http://***@h:1/x@y");
/// ```
pub fn scrub_userinfo(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://***{}", &rest[at..]),
        None => url.to_owned(),
    }
}

/// `word` as one shell-like word: as is when it needs no quoting, else single-quoted (a `'`
/// as `'\''`).
fn quote_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| !c.is_whitespace() && !matches!(c, '\'' | '"' | '\\'));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Splits a command line into words: whitespace separates, `'…'` is literal, `"…"` allows `\"`
/// and `\\`, a backslash outside quotes escapes the next character.
fn split_words(line: &str) -> Result<Vec<String>, String> {
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
                        None => return Err(format!("unterminated ' in {line:?}")),
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
                            None => return Err(format!("unterminated \" in {line:?}")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated \" in {line:?}")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err(format!("trailing backslash in {line:?}")),
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
    #![allow(clippy::unwrap_used)]
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
        assert_eq!(
            ModelSpec::parse("file:p.jsonl").unwrap(),
            ModelSpec::File {
                path: "p.jsonl".into()
            }
        );
        assert_eq!(scrub_userinfo("http://u:p@h:1/x@y"), "http://***@h:1/x@y");
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let message = |raw: &str| ModelSpec::parse(raw).unwrap_err().to_string();
        assert_eq!(
            message("gpt4"),
            "model spec \"gpt4\" has no scheme; expected cmd:PROGRAM ARGS…, http:URL, openai:MODEL or file:PREDICTIONS.jsonl"
        );
        assert!(message("ftp:x").contains("unknown scheme `ftp:`"));
        assert_eq!(
            message("cmd:  "),
            "model spec \"cmd:  \": no program after `cmd:`"
        );
        assert_eq!(
            message("cmd:a 'b"),
            "model spec \"cmd:a 'b\": unterminated ' in \"a 'b\""
        );
        assert_eq!(
            message("openai:"),
            "model spec \"openai:\": nothing after `openai:`"
        );
        assert_eq!(
            message("openai:@http://h/v1"),
            "model spec \"openai:@http://h/v1\": no model name before `@`"
        );
        assert!(ModelSpec::cmd(Vec::<String>::new()).is_err());
    }

    #[test]
    fn cmd_specs_of_an_argv_parse_back() {
        let spec = ModelSpec::cmd(["python3", "my model.py", "it's", ""]).unwrap();
        assert_eq!(
            spec.to_string(),
            r#"cmd:python3 'my model.py' 'it'\''s' ''"#
        );
        assert_eq!(ModelSpec::parse(&spec.to_string()).unwrap(), spec);
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

        /// The spec of any argv parses back to the same argv.
        #[test]
        fn cmd_specs_round_trip(argv in proptest::collection::vec(".{0,12}", 1..6)) {
            let spec = ModelSpec::cmd(argv.clone()).unwrap();
            proptest::prop_assert_eq!(ModelSpec::parse(&spec.to_string()).unwrap(), spec);
        }
    }
}
