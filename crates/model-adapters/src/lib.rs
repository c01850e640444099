//! `model_adapters` (package `capkit-model-adapters`): real models behind capkit's
//! [`suite_core::Model`], named by the specs `capkit profile --student/--teacher` accept.
//!
//! * `cmd:PROGRAM ARGS…` — a subprocess speaking JSONL on stdin/stdout (capkit's
//!   `docs/model-protocol.md`): `{"id", "text"}` lines in, `{"id", "label"}` (or `"record"`,
//!   plus an optional `"decision"`) lines out, in order; started once, never through a shell.
//! * `http:URL` (feature `http`) — POST `{"texts": […]}`, answer `{"labels": […]}` /
//!   `{"records": […]}` (optionally `"decisions"`), [`Settings::batch_size`] texts per request,
//!   [`Settings::concurrency`] requests at once, answers in input order.
//! * `openai:MODEL[@URL]` (feature `openai`) — an OpenAI-compatible chat API through
//!   the chat client of `capkit-chat-client` (timeouts, retries with jitter, `Retry-After`), one completion per
//!   text from [`Settings::prompt_template`]; the label is the trimmed reply (classify) or the
//!   reply as a JSON object (extract).
//! * `file:PREDICTIONS.jsonl` — precomputed `{"text", "label"}` lines.
//!
//! [`ModelSpec::parse`] reads a spec, [`ModelSpec::open`] opens its [`Adapter`] (a `Model`, with
//! the decision API of models that answer with decisions), and [`Cached`] keeps any model's
//! answers on disk keyed by blake3(model identity, text), so a second profile asks only about
//! texts the model has not answered; an `openai:` model opened with a cache directory
//! ([`ModelSpec::open_cached`]) also keeps its raw replies there ([`ReplyDatabase`]). https needs feature `tls`; with default features off only
//! `cmd:` and `file:` remain, and no HTTP client is compiled.
//!
//! The answer side of the protocol is pure and fuzzed: [`parse_answer_line`] (a `cmd:` answer
//! line), [`parse_batch_answer`] (an `http:` response), [`check_output`], refusing with a
//! [`ProtocolError`], so another host reads answers exactly as these adapters do. (Before 0.1
//! they were `suite_core::parse_answer_line` and friends; `suite_core::decision_of` stays.)
//!
//! ```no_run
//! use model_adapters::{ModelSpec, Settings};
//! use suite_core::Model;
//!
//! let settings = Settings::default();
//! let model = ModelSpec::parse("cmd:python3 model.py")?
//!     .open(&settings)?
//!     .cached(&model_adapters::default_cache_dir());
//! let labels = model.predict_batch(&["good food", "bad service"])?;
//! model.inner().finish()?;
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod adapter;
mod backend;
mod cache;
pub mod cache_admin;
mod cmd;
mod error;
mod file;
#[cfg(feature = "http")]
mod http;
mod open;
#[cfg(feature = "openai")]
mod openai;
mod protocol;
mod replies;
mod segment;
mod settings;
mod spec;

pub use adapter::Adapter;
pub use cache::{
    Cached, DATABASE, SEALED_FORMAT, STORE_FORMAT, answer_key, cache_size, default_cache_dir,
};
pub use error::Error;
pub use open::Progress;
pub use protocol::{
    AnswerKind, LineAnswer, ProtocolError, check_output, parse_answer_line, parse_batch_answer,
};
pub use replies::{ReplyDatabase, reply_cache_dir};
pub use settings::{Settings, Task};
pub use spec::{ModelSpec, scrub_userinfo};
// The model interface the adapters implement (the same crate `capture` and `extractive` use).
pub use suite_core;

// The README's example is a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
