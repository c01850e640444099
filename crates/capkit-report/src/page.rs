//! The page: one HTML document with its style sheet inline, a header saying what was rendered
//! when and by which capkit, and one article per input document.

use maud::{DOCTYPE, PreEscaped, html};

use crate::document::Document;
use crate::parts::{Ids, Source};
use crate::{compare, profile, style, typo};

/// A document to render, with its source.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// Where it came from.
    pub source: Source,
    /// The document.
    pub document: Document,
}

impl Input {
    /// A document file as `capkit report` reads it: `bytes` parsed as JSON and recognised
    /// ([`Document::from_json`]); its source is `name` (the path as given) and the blake3 of
    /// the bytes. The command line and the Python package read their inputs through this, so
    /// their pages of the same files are the same bytes.
    pub fn from_file_bytes(name: impl Into<String>, bytes: &[u8]) -> Result<Input, crate::Error> {
        let json: serde_json::Value =
            serde_json::from_slice(bytes).map_err(crate::Error::NotJson)?;
        Ok(Input {
            source: Source {
                name: name.into(),
                blake3: Some(blake3::hash(bytes).to_hex().to_string()),
            },
            document: Document::from_json(&json)?,
        })
    }
}

/// What the page says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// When the page was generated, as shown (e.g. [`crate::format::utc_date`]).
    pub generated: String,
    /// The capkit version that rendered it.
    pub capkit_version: String,
}

impl Meta {
    /// This crate's version, generated at `generated`.
    pub fn new(generated: impl Into<String>) -> Meta {
        Meta {
            generated: generated.into(),
            capkit_version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// The page's content security policy: nothing but the inline style sheet may load or run, so
/// even a string that escaped escaping could neither run a script nor reach the network.
const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/// The whole page for `inputs`, in order.
pub fn render(inputs: &[Input], meta: &Meta) -> String {
    let title = match inputs {
        [one] => format!(
            "capkit report: {} ({})",
            one.document.kind(),
            one.source.name
        ),
        many => format!("capkit report: {} documents", many.len()),
    };
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                meta name="generator" content=(format!("capkit {}", meta.capkit_version));
                title { (title) }
                style { (PreEscaped(style::CSS)) }
            }
            body {
                header.page {
                    h1 { "capkit report" }
                    p.sub {
                        "Generated " (meta.generated) " by capkit " (meta.capkit_version)
                        ". Self-contained: no script, nothing loaded from anywhere."
                    }
                    @if inputs.len() > 1 {
                        nav aria-label="Documents" {
                            ol {
                                @for (i, input) in inputs.iter().enumerate() {
                                    li { a href=(format!("#d{}", i + 1)) { (input.document.kind()) } " — " span.spec { (input.source.name) } }
                                }
                            }
                        }
                    }
                }
                main {
                    @for (i, input) in inputs.iter().enumerate() {
                        @let ids = Ids::new(i + 1);
                        article id=(ids.anchor()) {
                            @match &input.document {
                                Document::Profile(p) => (profile::article(p, &input.source, &ids)),
                                Document::Comparison(c) => (compare::article(c, &input.source, &ids)),
                                Document::TypoScore(t) => (typo::article(t, &input.source, &ids)),
                            }
                        }
                    }
                }
                footer {
                    p {
                        "capkit " (meta.capkit_version) ", " (meta.generated) ". "
                        "The figures of a profile or comparison are recomputed from the counts in its input file. "
                        "Every chart has its numbers in a table beside it."
                    }
                }
            }
        }
    }
    .into_string()
}
