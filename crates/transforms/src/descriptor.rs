//! What the catalogue knows of each transform.

use suite_core::{ResolveError, Transform};

use crate::param::{Param, Params};

/// The level a transform works at (for listings and the docs' tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Characters inside words.
    Character,
    /// Whole words.
    Word,
    /// The whole text: case, punctuation, layout, normalisation, context.
    Sentence,
    /// Combinations of other transforms.
    Composition,
}

impl Level {
    /// `character`, `word`, `sentence` or `composition`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Character => "character",
            Level::Word => "word",
            Level::Sentence => "sentence",
            Level::Composition => "composition",
        }
    }
}

/// Whether a transform corrupts (and how severely) or preserves meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A corruption; its severity (for severity curves) is the value of the named parameter
    /// (its rate or count), its family the transform's name. A suite refuses it as an
    /// invariance unless the entry says `"allow_corrupting": true`.
    Corruption {
        /// The parameter whose value is the severity.
        severity: &'static str,
    },
    /// A meaning-preserving rewrite, usable as an invariance.
    MeaningPreserving,
    /// A composition: a corruption when any part is. It has no severity of its own (its parts'
    /// measure different things); a suite entry may declare one, and its family is the entry's
    /// name unless declared.
    Composite,
}

impl Kind {
    /// `corruption`, `meaning-preserving` or `composite`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Corruption { .. } => "corruption",
            Kind::MeaningPreserving => "meaning-preserving",
            Kind::Composite => "composite",
        }
    }
}

/// Builds a transform from its canonical parameters.
pub type BuildFn = fn(&Params<'_>) -> Result<Transform, ResolveError>;

/// One transform of the catalogue: its stable name, what it does, its parameters, its kind, an
/// example and its builder.
#[derive(Debug, Clone, Copy)]
pub struct Descriptor {
    /// The stable name suites use (`"transform": NAME`).
    pub name: &'static str,
    /// Its level.
    pub level: Level,
    /// Corruption (with its severity parameter) or meaning-preserving.
    pub kind: Kind,
    /// One line: what it does.
    pub description: &'static str,
    /// Its parameters, in canonical order.
    pub params: &'static [Param],
    /// An example input.
    pub example: &'static str,
    /// The parameters of the example (a JSON object; `{}` for the defaults).
    pub example_params: &'static str,
    /// The builder.
    pub build: BuildFn,
}

impl Descriptor {
    /// The outside data its example reads, which a machine may lack: `Some("WordNet")` for the
    /// transforms that take a `wordnet` database directory (their example names Debian's
    /// `/usr/share/wordnet`), else `None`. A listing marks such an example instead of showing
    /// the error of running it where the data is missing.
    pub fn needs(&self) -> Option<&'static str> {
        self.params
            .iter()
            .any(|p| p.name == "wordnet")
            .then_some("WordNet")
    }
}
