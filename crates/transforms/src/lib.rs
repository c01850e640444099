//! `capkit-transforms`: a catalogue of deterministic text transforms for capability suites.
//!
//! Every transform is a pure function of (text, parameters, seed): its randomness comes from a
//! ChaCha8 generator keyed by the text's blake3 hash and the transform's name, on the stream
//! numbered by the seed ([`TextRng`]), so an output never depends on call order, chunk size,
//! shard or process. Each has a stable name, declared parameters ([`Param`], checked with errors
//! naming the parameter), a one-line description, an example, a [`Level`] and a [`Kind`]: a
//! corruption (whose severity, for severity curves, is its rate or count) or a
//! meaning-preserving rewrite (usable as an invariance).
//!
//! The [`Catalogue`] lists them and resolves suite files through suite-core's extension point:
//!
//! ```
//! use suite_core::SuiteSpec;
//! use transforms::Catalogue;
//!
//! let catalogue = Catalogue::standard();
//! let spec = SuiteSpec::from_json_str_with(r#"{
//!   "corruptions": [{"name": "rep_10", "transform": "repeat_char", "rate": 0.1},
//!                   {"name": "typo_10", "transform": "keyboard_typo", "rate": 0.1}],
//!   "invariances": [{"name": "upper", "transform": "uppercase"}]
//! }"#, catalogue)?;
//! let suite = spec.build_with(catalogue)?;
//! let rep = suite.corruption("rep_10").and_then(|t| t.severity()).map(|s| (s.family.clone(), s.value));
//! assert_eq!(rep, Some(("repeat_char".to_owned(), 0.1)));
//! assert_eq!(suite.invariance("upper").map(|t| t.apply("ok")), Some("OK".to_owned()));
//!
//! // A corruption is refused as an invariance unless the entry allows it.
//! let err = SuiteSpec::from_json_str_with(
//!     r#"{"invariances": [{"name": "r", "transform": "repeat_char"}]}"#, catalogue)?
//!     .build_with(catalogue).unwrap_err();
//! assert!(err.to_string().contains("allow_corrupting"), "{err}");
//! # Ok::<(), suite_core::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The README's example is a doc test.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
struct ReadmeDoctests;

mod builtin;
mod catalogue;
mod character;
mod compose;
mod descriptor;
mod error;
mod param;
mod rng;
mod sentence;
mod word;

pub use catalogue::{Catalogue, MAX_DEPTH};
pub use descriptor::{BuildFn, Descriptor, Kind, Level};
pub use error::Error;
pub use param::{Param, ParamType, Params};
pub use rng::{Domain, Probability, TextRng, seeded};
pub use suite_core::{Error as SuiteError, ResolveError, Resolved, SuiteSpec};
