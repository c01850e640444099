//! `mutator-eval`: evaluate LLM "mutators" that fill an interpretive state.
//!
//! A mutator reads a [`StructuredInput`] and fills an [`InterpretiveState`]: dotted paths mapped
//! to candidate values with confidence. The [`Evaluator`] copies a pre-state, runs the mutator on
//! the copy, and compares the best candidate of every path with an expected state. This is a port
//! of LangState's `LLMEvaluator` that reproduces its scores exactly (54 golden cases, see
//! `tests/golden.rs`):
//!
//! * [`InterpretiveState`]: flat dotted paths with implicit parent nodes that *count* in
//!   comparisons; `add_value` appends, `add_inference` replaces, best = highest confidence with
//!   ties to the earliest candidate.
//! * [`LlmMutator`] over any [`LlmClient`]: one prompt, one call, a strictly parsed JSON array,
//!   every element validated before any is applied ([`parse_reply`]).
//! * [`Evaluator`] and [`compare_states`]: matching / mismatched / missing / extra over the sorted
//!   union of paths, values compared with Python `==` ([`profile_types::value::py_eq`]),
//!   confidences exactly; `accuracy_score = matching / (matching + mismatched + missing)`.
//!
//! Beyond upstream, for what its users otherwise write by hand:
//!
//! * a JSONL [`Case`] format and a [`Runner`] with bounded concurrency ([`map_bounded`]) that
//!   yields one [`CaseResult`](profile_types::CaseResult) per case and a
//!   [`DatasetSummary`](profile_types::DatasetSummary) ([`summarize`]), with provider failures,
//!   bad replies and wrong answers kept apart;
//! * with feature `http`, `ChatClient` as an [`LlmClient`]: the OpenAI-compatible
//!   chat-completions client of `capkit-chat-client` (re-exported here with its [`ResponseCache`],
//!   [`CanonicalRequest`], [`ClientError`] and pool) with timeouts, bounded retries with backoff,
//!   and replies cached by the blake3 hash of the request. Feature `tls` adds https.
//!
//! Everything is blocking and `Send + Sync`; there is no async runtime. The result types live in
//! `profile-types`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod dataset;
mod error;
mod evaluator;
mod mutator;
mod pyjson;
mod runner;
mod state;

pub use chat_client::{
    CanonicalRequest, ChatMessage, ClientError, ResponseCache, for_each_ordered, map_bounded,
};
#[cfg(feature = "http")]
pub use chat_client::{ChatClient, ChatConfig};
pub use dataset::{Case, CaseLine, read_cases, read_cases_file};
pub use error::Error;
pub use evaluator::{
    EvaluationContext, Evaluator, accuracy_score, candidates_equal, compare_states,
};
pub use mutator::{
    Extraction, FixedReply, LlmClient, LlmMutator, MutationContext, MutationResult, Mutator,
    StructuredInput, build_prompt, parse_reply,
};
pub use pyjson::parse_json;
pub use runner::{Replies, Runner, SummaryBuilder, summarize};
pub use state::InterpretiveState;
