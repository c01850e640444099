//! The dataset runner: many cases, bounded concurrency, one result per case, an aggregate.

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};

use profile_types::{CaseFailure, CaseResult, DatasetSummary, EvaluationResult, FailureKind};

use crate::dataset::{Case, CaseLine};
use crate::error::{ClientError, Error};
use crate::evaluator::{EvaluationContext, Evaluator};
use crate::mutator::{LlmClient, LlmMutator};
use crate::pool::map_bounded;

/// Where the runner's LLM mutator gets its replies.
#[derive(Clone, Copy)]
pub enum Replies<'a> {
    /// Offline: each case's own `reply` (a case without one fails as a client error).
    Fixed,
    /// A live (or cached) client shared by all workers.
    Client(&'a dyn LlmClient),
}

/// Evaluates datasets of [`Case`]s with an [`LlmMutator`].
///
/// Per-case results are exactly what [`Evaluator::evaluate`] returns; the runner only adds
/// concurrency, failure capture and the aggregate. A case that fails (unreadable line, client
/// error, malformed reply, even a panicking client) becomes a failure line and never stops or
/// loses the others.
///
/// ```
/// use mutator_eval::{read_cases, summarize, Replies, Runner};
///
/// let lines = read_cases(concat!(
///     r#"{"id": "ok", "input": {"prompt": "I am Ada"}, "reply": "[{\"path\": \"name\", \"value\": \"Ada\", \"confidence\": 0.9, \"inference\": \"r\"}]","#,
///     r#" "expected_post_state": {"name": {"values": [{"value": "Ada", "confidence": 0.9}]}}}"#, "\n",
///     r#"{"id": "fenced", "input": {"prompt": "I am Ada"}, "reply": "```json\n[]\n```", "expected_post_state": {}}"#,
/// ));
/// let results = Runner::new(Replies::Fixed).run(&lines, &|_| {});
/// let summary = summarize(&results);
/// assert_eq!((summary.cases, summary.evaluated, summary.errors), (2, 1, 1));
/// assert_eq!(summary.mean_accuracy, Some(1.0));
/// ```
pub struct Runner<'a> {
    replies: Replies<'a>,
    concurrency: usize,
    mutator_id: String,
}

impl<'a> Runner<'a> {
    /// A runner with 4 workers and the mutator id `capkit-llm-mutator`.
    pub fn new(replies: Replies<'a>) -> Self {
        Runner {
            replies,
            concurrency: 4,
            mutator_id: "capkit-llm-mutator".to_owned(),
        }
    }

    /// At most `n` cases in flight (at least 1).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// The mutator id written into inferences (fixed, so re-runs are bit-identical).
    pub fn mutator_id(mut self, id: impl Into<String>) -> Self {
        self.mutator_id = id.into();
        self
    }

    /// Runs one case.
    pub fn run_case(&self, case: &Case) -> Result<EvaluationResult, Error> {
        match self.replies {
            Replies::Fixed => {
                let reply = case.reply.as_deref().ok_or(ClientError::NoReply)?;
                self.evaluate(
                    case,
                    &LlmMutator::with_id(ReplyRef(reply), &*self.mutator_id),
                )
            }
            Replies::Client(client) => {
                self.evaluate(case, &LlmMutator::with_id(client, &*self.mutator_id))
            }
        }
    }

    fn evaluate<C: LlmClient>(
        &self,
        case: &Case,
        mutator: &LlmMutator<C>,
    ) -> Result<EvaluationResult, Error> {
        Evaluator.evaluate(EvaluationContext {
            mutator,
            pre_state: &case.pre_state,
            expected_post_state: &case.expected_post_state,
            mutation_input: &case.input,
            metadata: case.metadata.as_ref(),
        })
    }

    /// Runs every line; results come back in dataset order. `progress` is called once per
    /// finished case, from the worker threads, with the number of cases finished so far.
    pub fn run(&self, lines: &[CaseLine], progress: &(dyn Fn(usize) + Sync)) -> Vec<CaseResult> {
        let finished = std::sync::atomic::AtomicUsize::new(0);
        map_bounded(lines, self.concurrency, |index, line| {
            let outcome = match &line.case {
                Err(e) => Err(failure(e)),
                Ok(case) => panic::catch_unwind(AssertUnwindSafe(|| self.run_case(case)))
                    .unwrap_or_else(|payload| Err(Error::Mutator(panic_message(&*payload))))
                    .map_err(|e| failure(&e)),
            };
            let (result, error) = match outcome {
                Ok(r) => (Some(r), None),
                Err(f) => (None, Some(f)),
            };
            progress(finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
            CaseResult {
                index,
                id: line.id(),
                result,
                error,
            }
        })
    }
}

/// A fixed reply borrowed from its case (no copy per worker).
struct ReplyRef<'r>(&'r str);

impl LlmClient for ReplyRef<'_> {
    fn generate(&self, _prompt: &str) -> Result<String, ClientError> {
        Ok(self.0.to_owned())
    }
}

fn failure(e: &Error) -> CaseFailure {
    CaseFailure {
        kind: e.kind(),
        message: e.to_string(),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".to_owned());
    format!("panicked: {text}")
}

/// The aggregate of a run. Accuracy, match rate and latency are over evaluated cases only;
/// failures are counted apart, per kind. Percentiles use the nearest-rank method.
pub fn summarize(results: &[CaseResult]) -> DatasetSummary {
    let evaluated: Vec<&EvaluationResult> =
        results.iter().filter_map(|r| r.result.as_ref()).collect();
    let mut errors_by_kind: BTreeMap<FailureKind, usize> = BTreeMap::new();
    for failure in results.iter().filter_map(|r| r.error.as_ref()) {
        *errors_by_kind.entry(failure.kind).or_default() += 1;
    }
    let n = evaluated.len();
    let mean = |f: &dyn Fn(&EvaluationResult) -> f64| {
        (n > 0).then(|| evaluated.iter().map(|r| f(r)).sum::<f64>() / n as f64)
    };
    let mut latencies: Vec<f64> = evaluated.iter().map(|r| r.time_used).collect();
    latencies.sort_by(f64::total_cmp);
    DatasetSummary {
        cases: results.len(),
        evaluated: n,
        errors: results.len() - n,
        errors_by_kind,
        mean_accuracy: mean(&|r| r.accuracy_score),
        overall_match_rate: mean(&|r| f64::from(u8::from(r.comparison.overall_match))),
        latency_p50: nearest_rank(&latencies, 0.50),
        latency_p95: nearest_rank(&latencies, 0.95),
    }
}

/// The smallest value with at least `p` of the sorted sample at or below it.
fn nearest_rank(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let xs: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(nearest_rank(&xs, 0.5), Some(10.0));
        assert_eq!(nearest_rank(&xs, 0.95), Some(19.0));
        assert_eq!(nearest_rank(&[3.0], 0.95), Some(3.0));
        assert_eq!(nearest_rank(&[], 0.5), None);
    }

    struct Panicky;
    impl LlmClient for Panicky {
        fn generate(&self, prompt: &str) -> Result<String, ClientError> {
            if prompt.contains("boom") {
                panic!("client exploded");
            }
            Ok("[]".to_owned())
        }
    }

    #[test]
    fn a_panicking_case_does_not_stop_the_others() {
        let lines = crate::read_cases(concat!(
            r#"{"input": {"prompt": "boom"}, "expected_post_state": {}}"#,
            "\n",
            r#"{"input": {"prompt": "fine"}, "expected_post_state": {}}"#,
        ));
        let client = Panicky;
        let results = Runner::new(Replies::Client(&client))
            .concurrency(2)
            .run(&lines, &|_| {});
        assert_eq!(
            results[0].error.as_ref().unwrap().kind,
            FailureKind::Mutator
        );
        assert!(
            results[0]
                .error
                .as_ref()
                .unwrap()
                .message
                .contains("client exploded")
        );
        assert!(results[1].result.as_ref().unwrap().comparison.overall_match);
    }
}
