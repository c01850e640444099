//! Typo-task scoring results.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a typo task needs besides the input name: this is what separates a *rule* (learnable from
/// examples alone) from a *table* (only reproducible by memorising data).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Needs {
    /// A pure rule over the characters of the name (`co`, `bf`, `tos`, ...).
    Nothing,
    /// A language table: graphemes, vowels, homoglyphs, homophones, misspellings, numerals, or
    /// (for `sp`) the built-in English inflection tables.
    Language,
    /// A keyboard layout (`acs`, `aci`, `rar`).
    Keyboard,
}

impl Needs {
    /// `"nothing"`, `"language"` or `"keyboard"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Needs::Nothing => "nothing",
            Needs::Language => "language",
            Needs::Keyboard => "keyboard",
        }
    }

    /// The heading of the group of tasks that need this, in every report (the CLI's tables,
    /// the HTML page): rules and tables are always reported apart, under these words.
    pub fn heading(self) -> &'static str {
        match self {
            Needs::Nothing => "rules (needs nothing): learnable from examples alone",
            Needs::Language => "language tables (needs language): reproducible by memorising data",
            Needs::Keyboard => {
                "keyboard tables (needs keyboard): reproducible by memorising a layout"
            }
        }
    }
}

impl fmt::Display for Needs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One task's macro-averaged scores: each mean is over results, so F1 is the mean of per-result
/// F1 values, not F1 of the means (upstream urlinsane's `aitypo.Summary`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskSummary {
    /// The task id.
    pub task: String,
    /// Rule or table, from the registry: summaries never mix the two.
    pub needs: Needs,
    /// Results summarised.
    pub n: usize,
    /// Share of exact results.
    pub exact_match: f64,
    /// Mean precision.
    pub precision: f64,
    /// Mean recall.
    pub recall: f64,
    /// Mean F1.
    pub f1: f64,
}

/// `co    nothing   n=3      exact=0.667  P=1.000 R=0.500 F1=0.667` (upstream's layout).
impl fmt::Display for TaskSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:<5} {:<9} n={:<6} exact={:.3}  P={:.3} R={:.3} F1={:.3}",
            self.task,
            self.needs.as_str(),
            self.n,
            self.exact_match,
            self.precision,
            self.recall,
            self.f1
        )
    }
}

/// The summaries of the tasks that need one thing (rules, language tables or keyboard tables).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NeedsGroup {
    /// What every task of the group needs.
    pub needs: Needs,
    /// Its tasks, in id order.
    pub tasks: Vec<TaskSummary>,
}

/// A scored predictions file: rule tasks and table tasks reported apart, never one number across
/// both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypoScoreReport {
    /// Corpus examples that had a prediction.
    pub scored: usize,
    /// Corpus examples without a prediction (scored as empty answers).
    pub unpredicted: usize,
    /// One group per kind of need, in `nothing`, `language`, `keyboard` order.
    pub groups: Vec<NeedsGroup>,
    /// The corpus scored against, when known (`capkit typo score --json` names it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus: Option<InputFile>,
    /// The predictions scored, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predictions: Option<InputFile>,
    /// Per task id, the empty answers and the precision of the others, when known: upstream
    /// scores an empty answer (or a missing prediction) as precision 1, which the task's
    /// `precision` keeps so that it matches upstream; these say what that 1 stands for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<std::collections::BTreeMap<String, TaskAnswers>>,
}

/// A file a report was computed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// Its path, as given on the command line.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// A task's answers beyond its upstream scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskAnswers {
    /// Examples whose (normalised) answer was empty, missing predictions included: upstream
    /// counts each as precision 1 — it claims nothing false, and finds nothing.
    pub empty: usize,
    /// Mean precision over the examples with a non-empty answer (`None` when every answer was
    /// empty): precision as what it is, a property of the variants a model did claim.
    pub precision_of_answers: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_renders_lowercase_everywhere() {
        assert_eq!(Needs::Nothing.to_string(), "nothing");
        assert_eq!(format!("{:<9}|", Needs::Language), "language |");
        assert_eq!(
            serde_json::to_string(&Needs::Keyboard).ok().as_deref(),
            Some("\"keyboard\"")
        );
        let back: Result<Needs, _> = serde_json::from_str("\"language\"");
        assert_eq!(back.ok(), Some(Needs::Language));
    }
}
