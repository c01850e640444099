//! The page: one HTML document with its style sheet inline, a header saying what was rendered
//! when and by which capkit, and one article per input document.

use std::cell::Cell;

use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::document::{Document, RunInfo};
use crate::{compare, profile, style, typo};

/// Where a document came from, shown in the page's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Its name (the input file's path as given).
    pub name: String,
    /// blake3 of its bytes, when known.
    pub blake3: Option<String>,
}

/// A document to render, with its source.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// Where it came from.
    pub source: Source,
    /// The document.
    pub document: Document,
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

/// Element ids of one article's charts: `d2-c1`, `d2-c2`, … (ASCII, never user text).
pub(crate) struct Ids {
    prefix: String,
    next: Cell<usize>,
}

impl Ids {
    pub(crate) fn new(article: usize) -> Ids {
        Ids {
            prefix: format!("d{article}"),
            next: Cell::new(1),
        }
    }

    /// A fresh id.
    pub(crate) fn next(&self) -> String {
        let k = self.next.get();
        self.next.set(k + 1);
        format!("{}-c{k}", self.prefix)
    }

    /// The article's own anchor.
    pub(crate) fn anchor(&self) -> &str {
        &self.prefix
    }
}

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

/// The "what was run" list shared by the profile and comparison articles: one `dt`/`dd` pair
/// per known fact, nothing for what the input does not record.
pub(crate) fn source_rows(source: &Source) -> Markup {
    html! {
        dt { "Input file" }
        dd { span.spec { (source.name) } @if let Some(b) = &source.blake3 { br; span.spec { "blake3:" (b) } } }
    }
}

/// Facts from the run blocks, each shown once however many runs record it.
pub(crate) fn run_rows(runs: &[RunInfo]) -> Markup {
    let distinct = |f: &dyn Fn(&RunInfo) -> Option<String>| {
        let mut seen: Vec<String> = Vec::new();
        for v in runs.iter().filter_map(f) {
            if !seen.contains(&v) {
                seen.push(v);
            }
        }
        seen
    };
    let suite_files = distinct(&|r| {
        r.suite.as_ref().map(|s| {
            let file = s
                .file
                .clone()
                .unwrap_or_else(|| "built-in default suite".to_owned());
            match &s.blake3 {
                Some(b) => format!("{file} (blake3:{b})"),
                None => file,
            }
        })
    });
    let texts = distinct(&|r| {
        r.texts.as_ref().map(|t| {
            let count = t.count.map_or(String::new(), |c| format!("{c} texts, "));
            format!("{count}blake3:{}", t.blake3.as_deref().unwrap_or("unknown"))
        })
    });
    let versions = distinct(&|r| r.capkit_version.clone());
    let fields = distinct(&|r| r.fields.as_ref().map(|f| f.join(", ")));
    html! {
        @if !suite_files.is_empty() {
            dt { "Suite file" }
            dd { @for s in &suite_files { span.spec { (s) } br; } }
        }
        @if !texts.is_empty() {
            dt { "Texts (fingerprint)" }
            dd { @for t in &texts { span.spec { (t) } br; } }
        }
        @if !fields.is_empty() {
            dt { "Expected fields" }
            dd { @for f in &fields { span.spec { (f) } br; } }
        }
        @if !versions.is_empty() {
            dt { "Run by capkit" }
            dd { (versions.join(", ")) }
        }
    }
}

/// A table inside a box that scrolls sideways on narrow screens.
pub(crate) fn scroll(table: Markup) -> Markup {
    html! { div.scroll { (table) } }
}
