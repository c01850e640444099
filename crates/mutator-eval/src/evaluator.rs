//! The evaluator: run a mutator on a copy of a pre-state and compare with an expected state.

use std::collections::BTreeSet;
use std::time::Instant;

use profile_types::value::{py_eq, py_float_repr, py_repr};
use profile_types::{
    EvaluationResult, FieldCategory, FieldComparison, StateComparison, ValueConfidence,
};
use serde_json::Value;

use crate::error::Error;
use crate::mutator::{MutationContext, Mutator, StructuredInput};
use crate::state::InterpretiveState;

/// One evaluation to run.
#[derive(Clone, Copy)]
pub struct EvaluationContext<'a> {
    /// The mutator under test.
    pub mutator: &'a dyn Mutator,
    /// The state before the mutation (never modified: the mutator gets a copy).
    pub pre_state: &'a InterpretiveState,
    /// The state the mutator should produce.
    pub expected_post_state: &'a InterpretiveState,
    /// The input given to the mutator.
    pub mutation_input: &'a StructuredInput,
    /// Forwarded to the mutator and echoed in the result.
    pub metadata: Option<&'a Value>,
}

/// The upstream `LLMEvaluator` (any [`Mutator`] works; the comparison is deterministic).
///
/// ```
/// use mutator_eval::{EvaluationContext, Evaluator, FixedReply, InterpretiveState, LlmMutator, StructuredInput};
/// use profile_types::ValueConfidence;
/// use serde_json::json;
///
/// let mut expected = InterpretiveState::new();
/// expected.add_value("registrant.name", ValueConfidence::new(json!("Ada"), 0.9)?);
/// let reply = r#"[{"path": "registrant.name", "value": "Ada", "confidence": 0.9, "inference": "r"}]"#;
/// let mutator = LlmMutator::new(FixedReply(reply.into()));
/// let input = StructuredInput::new("I am Ada");
/// let result = Evaluator.evaluate(EvaluationContext {
///     mutator: &mutator,
///     pre_state: &InterpretiveState::new(),
///     expected_post_state: &expected,
///     mutation_input: &input,
///     metadata: None,
/// })?;
/// // The implicit parent `registrant` is compared too.
/// assert_eq!(result.comparison.matching_fields, 2);
/// assert_eq!(result.accuracy_score, 1.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Evaluator;

impl Evaluator {
    /// Copies the pre-state, times the mutate call on a monotonic clock, and compares the
    /// mutator's state with the expected one. A mutator error is returned unchanged: a failed
    /// run has no score.
    pub fn evaluate(&self, ctx: EvaluationContext<'_>) -> Result<EvaluationResult, Error> {
        let copy = ctx.pre_state.clone();
        let started = Instant::now();
        let result = ctx.mutator.mutate(MutationContext {
            input: ctx.mutation_input,
            state: copy,
            metadata: ctx.metadata,
        })?;
        let time_used = started.elapsed().as_secs_f64();
        let actual = result.updated_state;
        let comparison = compare_states(ctx.expected_post_state, &actual);
        Ok(EvaluationResult {
            accuracy_score: accuracy_score(&comparison),
            comparison,
            actual_post_state: actual.into_snapshot(),
            time_used,
            metadata: ctx.metadata.cloned(),
        })
    }
}

/// `matching / (matching + mismatched + missing)`; extra paths do not count; 0.0 when the
/// denominator is 0.
pub fn accuracy_score(comparison: &StateComparison) -> f64 {
    let n = comparison.matching_fields + comparison.mismatched_fields + comparison.missing_fields;
    if n == 0 {
        0.0
    } else {
        comparison.matching_fields as f64 / n as f64
    }
}

/// Whether two best candidates are equal: both absent, or Python `==` on the values and exact
/// equality of the confidences.
pub fn candidates_equal(a: Option<&ValueConfidence>, b: Option<&ValueConfidence>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => py_eq(a.value(), b.value()) && a.confidence() == b.confidence(),
        _ => false,
    }
}

/// Compares the best candidate of every path in the sorted (code point) union of both states'
/// paths, implicit parents included.
pub fn compare_states(expected: &InterpretiveState, actual: &InterpretiveState) -> StateComparison {
    let paths: BTreeSet<&str> = expected.paths().chain(actual.paths()).collect();
    let mut out = StateComparison {
        fields: Vec::with_capacity(paths.len()),
        matching_fields: 0,
        mismatched_fields: 0,
        missing_fields: 0,
        extra_fields: 0,
        overall_match: false,
    };
    for path in paths {
        let e = expected.best_value(path);
        let a = actual.best_value(path);
        let (category, difference) = match (expected.contains(path), actual.contains(path)) {
            (true, false) => {
                out.missing_fields += 1;
                (
                    FieldCategory::Missing,
                    Some(format!("Field '{path}' missing from actual state.")),
                )
            }
            (false, _) => {
                out.extra_fields += 1;
                (
                    FieldCategory::Extra,
                    Some(format!("Field '{path}' is extra in actual state.")),
                )
            }
            (true, true) if candidates_equal(e, a) => {
                out.matching_fields += 1;
                (FieldCategory::Matching, None)
            }
            (true, true) => {
                out.mismatched_fields += 1;
                (
                    FieldCategory::Mismatched,
                    Some(format!(
                        "Field '{path}': expected {}, got {}.",
                        render(e),
                        render(a)
                    )),
                )
            }
        };
        out.fields.push(FieldComparison {
            field_path: path.to_owned(),
            matches: category == FieldCategory::Matching,
            category,
            expected_value: e.cloned(),
            actual_value: a.cloned(),
            difference,
        });
    }
    out.overall_match =
        out.mismatched_fields == 0 && out.missing_fields == 0 && out.extra_fields == 0;
    out
}

/// A candidate the way upstream prints it (Pydantic's `value='x' confidence=0.8`, or `None`).
fn render(vc: Option<&ValueConfidence>) -> String {
    match vc {
        None => "None".to_owned(),
        Some(vc) => format!(
            "value={} confidence={}",
            py_repr(vc.value()),
            py_float_repr(vc.confidence())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state(entries: &[(&str, Value, f64)]) -> InterpretiveState {
        let mut s = InterpretiveState::new();
        for (p, v, c) in entries {
            s.add_value(p, ValueConfidence::new(v.clone(), *c).unwrap());
        }
        s
    }

    #[test]
    fn categories_and_score() {
        let expected = state(&[
            ("match", json!("s"), 0.9),
            ("mismatch", json!("a"), 0.9),
            ("missing", json!("m"), 0.9),
        ]);
        let actual = state(&[
            ("match", json!("s"), 0.9),
            ("mismatch", json!("b"), 0.9),
            ("extra", json!("e"), 0.9),
        ]);
        let c = compare_states(&expected, &actual);
        let cats: Vec<_> = c
            .fields
            .iter()
            .map(|f| (f.field_path.as_str(), f.category))
            .collect();
        assert_eq!(
            cats,
            [
                ("extra", FieldCategory::Extra),
                ("match", FieldCategory::Matching),
                ("mismatch", FieldCategory::Mismatched),
                ("missing", FieldCategory::Missing)
            ]
        );
        assert_eq!(
            (
                c.matching_fields,
                c.mismatched_fields,
                c.missing_fields,
                c.extra_fields
            ),
            (1, 1, 1, 1)
        );
        assert!(!c.overall_match);
        assert_eq!(accuracy_score(&c), 1.0 / 3.0);
        assert_eq!(
            c.fields[2].difference.as_deref(),
            Some(
                "Field 'mismatch': expected value='a' confidence=0.9, got value='b' confidence=0.9."
            )
        );
    }

    #[test]
    fn empty_states_match_with_zero_score() {
        let c = compare_states(&InterpretiveState::new(), &InterpretiveState::new());
        assert!(c.overall_match && c.fields.is_empty());
        assert_eq!(accuracy_score(&c), 0.0);
    }

    #[test]
    fn value_on_one_side_only_is_a_mismatch() {
        let mut expected = InterpretiveState::new();
        expected.add_node("a");
        let actual = state(&[("a", json!("x"), 0.5)]);
        let c = compare_states(&expected, &actual);
        assert_eq!(c.mismatched_fields, 1);
        assert_eq!(
            c.fields[0].difference.as_deref(),
            Some("Field 'a': expected None, got value='x' confidence=0.5.")
        );
    }
}
