//! `extractive`: work in progress (see the crate description).
#![forbid(unsafe_code)]
#![warn(missing_docs)]
