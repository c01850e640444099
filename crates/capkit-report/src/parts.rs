//! The pieces every article shares: where its document came from ([`Source`]), its chart ids,
//! the "what was run" rows and the sideways-scrolling table box. The page and each article
//! (profile, comparison, typo scores, verdict) import them from here, so no article imports
//! the page that holds it.

use std::cell::Cell;

use maud::{Markup, html};

use crate::document::RunInfo;

/// Where a document came from, shown in the page's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Its name (the input file's path as given).
    pub name: String,
    /// blake3 of its bytes, when known.
    pub blake3: Option<String>,
}

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

    /// The anchor of a part of the article (`d2-stages`, `d2-pair-1`): ASCII names given by
    /// the page, never user text.
    pub(crate) fn section(&self, name: &str) -> String {
        format!("{}-{name}", self.prefix)
    }

    /// The article's own anchor.
    pub(crate) fn anchor(&self) -> &str {
        &self.prefix
    }
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

/// A name bidi-isolated where it needs to be: a name of ASCII characters only cannot reorder
/// the left-to-right text around it, so it goes bare (a 50-stage, five-student page repeats
/// each name hundreds of times); any other is wrapped in `<bdi>`.
pub(crate) fn iso(name: &str) -> Markup {
    html! {
        @if name.is_ascii() { (name) } @else { bdi { (name) } }
    }
}

/// A table inside a box that scrolls sideways on narrow screens.
pub(crate) fn scroll(table: Markup) -> Markup {
    html! { div.scroll { (table) } }
}

/// A stage's declared weight and tags, beside its name: ` (weight 2; typo, case)`. Weights
/// are shown on every stage once any stage declares one (an undeclared stage weighs 1, which
/// the reader of a weighted ranking needs to see); nothing when the suite declares neither.
pub(crate) fn stage_meta(suite: &profile_stats::SuiteDescriptor, stage: &str) -> Markup {
    let tags = suite.tags(stage);
    let weight = suite
        .has_weights()
        .then(|| crate::format::number(suite.weight(stage)));
    html! {
        @if weight.is_some() || !tags.is_empty() {
            " " span.stage-meta {
                "("
                @if let Some(w) = &weight { "weight " (w) }
                @if weight.is_some() && !tags.is_empty() { "; " }
                @for (k, t) in tags.iter().enumerate() {
                    @if k > 0 { ", " }
                    span.tag { bdi { (t) } }
                }
                ")"
            }
        }
    }
}
