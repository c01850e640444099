//! `capkit-report`: one self-contained HTML page per capability profile, student comparison and
//! typo score report.
//!
//! A profile read as JSON is read by nobody but its author; this crate gives each result a page
//! a reviewer opens from a CI artefact or an e-mail, with nothing to install and nothing
//! fetched. The page is one file: an inline style sheet, inline SVG charts, no script, no URL
//! outside the page (a content security policy forbids loading anything at all). Every string
//! that came from a user — labels, stage and field names, model specs, file names — is
//! HTML-escaped by the templating ([maud]), and every chart has its numbers in a table beside
//! it and a `<title>`/`<desc>`; series differ by dash and marker shape as well as colour.
//!
//! * [`Document::from_json`] recognises a profile report (`capkit-profile-report/1`, classify
//!   or extract), a comparison (`capkit-profile-comparison/1`) — both read by `profile-stats`,
//!   which recomputes every figure from the counts — or a typo score report
//!   (`capkit typo score --json`).
//! * [`render`] writes the page for one or more documents.
//!
//! Each page opens with a recommendation ([`recommend`]: the order of a comparison's students
//! by weighted significant wins minus losses, or a profile's student against its teacher, and a
//! sentence to paste into a review), the models called by short names ([`short_names`]).
//!
//! What each page shows: severity curves with interval bands, the clean point and break-even
//! severity; invariances, student against teacher, with intervals and the paired test's
//! verdict in words; abstention; for extractors schema validity and a heat map of F1 per field
//! and stage; probe predictions with differing rows highlighted; for classifier reports that
//! count them, how many texts each stage changed (a stage that changed none is marked and left
//! out of rankings and verdicts), each corruption's headline against the reference it declares,
//! the teacher's own change beside the student's, who moved on each new disagreement (a
//! stacked bar) and the example texts of each stage and kind; typo scores per task with rules
//! and tables in separate sections. This crate does no I/O and depends on no capkit crate
//! but `profile-types` and `profile-stats`; `capkit report` and Python's `render_html` read the
//! files and write the page, both through [`Input::from_file_bytes`] (a file's bytes as a
//! document with its source) and [`format::page_time`] (the page's date, `SOURCE_DATE_EPOCH`
//! first), so their pages of the same files are the same bytes.
//!
//! ```
//! use capkit_report::serde_json::json;
//! use capkit_report::{Document, Input, Meta, Source, render};
//!
//! let scores = json!({"scored": 2, "unpredicted": 0, "groups": [{"needs": "nothing", "tasks": [
//!     {"task": "co", "needs": "nothing", "n": 2, "exact_match": 0.5, "precision": 1.0, "recall": 0.5, "f1": 0.5}
//! ]}]});
//! let input = Input {
//!     source: Source { name: "scores.json".into(), blake3: None },
//!     document: Document::from_json(&scores)?,
//! };
//! let html = render(&[input], &Meta::new("2026-12-01 12:00 UTC"));
//! assert!(html.starts_with("<!DOCTYPE html>"));
//! assert!(html.contains("Rules (needs nothing): learnable from examples alone"));
//! assert!(!html.contains("<script"));
//! # Ok::<(), capkit_report::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod compare;
mod document;
mod error;
mod figures;
pub mod format;
mod names;
mod page;
mod parts;
mod profile;
pub mod recommend;
mod style;
pub mod svg;
mod typo;
mod verdict;
mod whose;

pub use document::{ComparisonDocument, Document, FileInfo, ProfileDocument, RunInfo, TextsInfo};
pub use error::Error;
pub use names::{ModelName, short_names};
pub use page::{Input, Meta, render};
pub use parts::Source;
// Documents are JSON: a crate that depends on `capkit-report` alone can build them.
pub use serde_json;

// The README's example is a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
