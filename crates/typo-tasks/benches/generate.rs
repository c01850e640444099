//! Placeholder; the real bench lands with the generators.
#![allow(missing_docs)]
fn main() {}
