//! `chat_client` (package `capkit-chat-client`): a blocking client for OpenAI-compatible chat
//! completions (vLLM, llama.cpp, Ollama, hosted APIs), and the pieces that make many calls
//! reproducible and cheap.
//!
//! * [`ChatClient`] (feature `http`, on by default; https with feature `tls`): one POST per
//!   prompt with a whole-attempt timeout, bounded retries of 408, 429, 5xx, connection failures
//!   and timeouts with exponential backoff and deterministic jitter, a server's `Retry-After`
//!   honoured in both its forms ([`parse_retry_after`]: seconds or an HTTP date), and an API key
//!   that is never printed (it is scrubbed from every error message and hidden from `Debug`).
//! * [`CanonicalRequest`] and [`ReplyStore`]: the exact request body, and where replies keyed
//!   by its blake3 hash are kept, so a re-run answers repeats offline: [`ResponseCache`] (a
//!   directory of reply files, `DIR/<2 hex>/<key hex>.json`) or any other store
//!   ([`ChatClient::with_reply_store`]; capkit's `openai:` models keep replies in their
//!   prediction cache's database, `capkit-model-adapters`' `ReplyDatabase`, which imports such
//!   a directory once and leaves its files in place).
//! * [`for_each_ordered`] and [`map_bounded`]: a bounded pool of worker threads that delivers
//!   results in input order within a bounded window.
//!
//! ```no_run
//! use chat_client::{ChatClient, ChatConfig, ResponseCache};
//!
//! let client = ChatClient::new(ChatConfig::new("http://localhost:8000/v1", "my-model"))?
//!     .with_cache(ResponseCache::new("chat-cache"));
//! let prompts = ["Say hi", "Say bye"];
//! let replies = chat_client::map_bounded(&prompts, 4, |_, p| client.complete(p));
//! # Ok::<(), chat_client::ClientError>(())
//! ```
//!
//! Everything is blocking and `Send + Sync`; there is no async runtime.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cache;
#[cfg(feature = "http")]
mod client;
mod error;
mod pool;
mod retry_after;

pub use cache::{CanonicalRequest, ChatMessage, ReplyEntry, ReplyStore, ResponseCache};
#[cfg(feature = "http")]
pub use client::{ChatClient, ChatConfig};
pub use error::ClientError;
pub use pool::{for_each_ordered, map_bounded};
pub use retry_after::parse_retry_after;
