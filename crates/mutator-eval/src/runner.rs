//! The dataset runner: many cases, bounded concurrency, one result per case, an aggregate.

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use chat_client::{ClientError, for_each_ordered};
use profile_types::{CaseFailure, CaseResult, DatasetSummary, EvaluationResult, FailureKind};

use crate::dataset::{Case, CaseLine};
use crate::error::Error;
use crate::evaluator::{EvaluationContext, Evaluator};
use crate::mutator::{LlmClient, LlmMutator};

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
        let mut out = Vec::with_capacity(lines.len());
        self.run_each(lines, progress, |r| out.push(r));
        out
    }

    /// Like [`run`](Self::run), but hands each result to `sink` (on the calling thread, in
    /// dataset order) as soon as every earlier case is done, so results can be written while the
    /// run goes on and only a bounded window of them is held in memory.
    pub fn run_each(
        &self,
        lines: &[CaseLine],
        progress: &(dyn Fn(usize) + Sync),
        sink: impl FnMut(CaseResult),
    ) {
        self.drive(lines, progress, sink, |line| match &line.case {
            Ok(case) => (case.id.clone(), self.guarded(case)),
            Err(e) => (line.id(), Err(failure(e))),
        });
    }

    /// Runs a whole JSONL text (see [`read_cases`](crate::read_cases)): lines are parsed on the
    /// worker threads, and each parsed case is dropped once its result is out, so memory holds
    /// the text plus a bounded window of cases and results.
    pub fn run_jsonl_each(
        &self,
        text: &str,
        progress: &(dyn Fn(usize) + Sync),
        sink: impl FnMut(CaseResult),
    ) {
        let lines = crate::dataset::jsonl_lines(text);
        self.drive(
            &lines,
            progress,
            sink,
            |&(line, raw)| match Case::from_line(raw, line) {
                Ok(case) => (case.id.clone(), self.guarded(&case)),
                Err(e) => (format!("line-{line}"), Err(failure(&e))),
            },
        );
    }

    fn drive<T: Sync>(
        &self,
        items: &[T],
        progress: &(dyn Fn(usize) + Sync),
        mut sink: impl FnMut(CaseResult),
        one: impl Fn(&T) -> (String, Result<EvaluationResult, CaseFailure>) + Sync,
    ) {
        let finished = AtomicUsize::new(0);
        for_each_ordered(
            items,
            self.concurrency,
            |_, item| {
                let outcome = one(item);
                progress(finished.fetch_add(1, Ordering::Relaxed) + 1);
                outcome
            },
            |index, (id, outcome)| {
                let (result, error) = match outcome {
                    Ok(r) => (Some(r), None),
                    Err(f) => (None, Some(f)),
                };
                sink(CaseResult {
                    index,
                    id,
                    result,
                    error,
                });
            },
        );
    }

    /// One case, with a panicking client or mutator turned into a failure.
    fn guarded(&self, case: &Case) -> Result<EvaluationResult, CaseFailure> {
        panic::catch_unwind(AssertUnwindSafe(|| self.run_case(case)))
            .unwrap_or_else(|payload| Err(Error::Mutator(panic_message(&*payload))))
            .map_err(|e| failure(&e))
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
    let mut builder = SummaryBuilder::default();
    for r in results {
        builder.add(r);
    }
    builder.finish()
}

/// [`summarize`] one result at a time, keeping only what the aggregate needs (one latency per
/// evaluated case).
#[derive(Debug, Clone, Default)]
pub struct SummaryBuilder {
    cases: usize,
    accuracy_sum: f64,
    matched: usize,
    latencies: Vec<f64>,
    errors_by_kind: BTreeMap<FailureKind, usize>,
}

impl SummaryBuilder {
    /// Counts one result.
    pub fn add(&mut self, result: &CaseResult) {
        self.cases += 1;
        if let Some(r) = &result.result {
            self.accuracy_sum += r.accuracy_score;
            self.matched += usize::from(r.comparison.overall_match);
            self.latencies.push(r.time_used);
        }
        if let Some(f) = &result.error {
            *self.errors_by_kind.entry(f.kind).or_default() += 1;
        }
    }

    /// The aggregate of everything added.
    pub fn finish(mut self) -> DatasetSummary {
        let n = self.latencies.len();
        self.latencies.sort_by(f64::total_cmp);
        DatasetSummary {
            cases: self.cases,
            evaluated: n,
            errors: self.cases - n,
            errors_by_kind: self.errors_by_kind,
            mean_accuracy: (n > 0).then(|| self.accuracy_sum / n as f64),
            overall_match_rate: (n > 0).then(|| self.matched as f64 / n as f64),
            latency_p50: nearest_rank(&self.latencies, 0.50),
            latency_p95: nearest_rank(&self.latencies, 0.95),
        }
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

    #[test]
    fn streaming_from_text_equals_running_parsed_lines() {
        let text = concat!(
            r#"{"id": "a", "input": {"prompt": "p"}, "expected_post_state": {"x": {"values": [{"value": "v", "confidence": 0.5}]}}, "reply": "[{\"path\": \"x\", \"value\": \"v\", \"confidence\": 0.5, \"inference\": \"r\"}]"}"#,
            "\n\nnot json\n",
            r#"{"input": {"prompt": "p"}, "expected_post_state": {}}"#,
            "\n",
        );
        let strip = |mut rs: Vec<CaseResult>| {
            for r in &mut rs {
                if let Some(e) = &mut r.result {
                    e.time_used = 0.0;
                }
            }
            rs
        };
        let runner = Runner::new(Replies::Fixed).concurrency(2);
        let parsed = strip(runner.run(&crate::read_cases(text), &|_| {}));
        let mut streamed = Vec::new();
        runner.run_jsonl_each(text, &|_| {}, |r| streamed.push(r));
        assert_eq!(strip(streamed), parsed);
        let ids: Vec<&str> = parsed.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["a", "line-3", "line-4"]);
        let kinds: Vec<_> = parsed
            .iter()
            .map(|r| r.error.as_ref().map(|e| e.kind))
            .collect();
        assert_eq!(
            kinds,
            [None, Some(FailureKind::Case), Some(FailureKind::Client)]
        );
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
