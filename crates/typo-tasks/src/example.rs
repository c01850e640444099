//! One training example: a task, an input, and the task's whole expected set.

use crate::Variant;

/// One (input, task) pair with its expected set, as written to and read from JSONL.
///
/// `task`, `input`, `split` and `source` are Rust strings, so they are valid UTF-8 by
/// construction; only an `expect` member (a `bf` variant) can hold bytes JSONL cannot carry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Example {
    /// The task id, e.g. `co`.
    pub task: String,
    /// The name the task was applied to.
    pub input: String,
    /// The expected set, sorted bytewise and unique. `None` is upstream's nil set, written as
    /// `null`; `Some(vec![])` is written as `[]`.
    pub expect: Option<Vec<Variant>>,
    /// `train`, `val`, `test`, or empty when no split has been assigned.
    pub split: String,
    /// Where the input came from (a file name, a dataset id), or empty.
    pub source: String,
}

impl Example {
    /// The grouping key that splits are assigned by: the input.
    pub fn group(&self) -> &str {
        &self.input
    }

    /// The expected set, empty when it is `None`.
    pub fn expect_set(&self) -> &[Variant] {
        self.expect.as_deref().unwrap_or(&[])
    }

    /// A borrowed view of this example.
    pub fn view(&self) -> ExampleRef<'_> {
        ExampleRef {
            task: &self.task,
            input: &self.input,
            expect: self.expect.as_deref(),
            split: &self.split,
            source: &self.source,
        }
    }
}

/// An [`Example`] by reference: what a streaming writer encodes without copying the input,
/// task id and source into every example.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExampleRef<'a> {
    /// The task id.
    pub task: &'a str,
    /// The input name.
    pub input: &'a str,
    /// The expected set; `None` is written as `null`.
    pub expect: Option<&'a [Variant]>,
    /// The split, or empty.
    pub split: &'a str,
    /// The source, or empty.
    pub source: &'a str,
}

/// The examples whose split is exactly `split`, in order. `filter(x, "")` gives the examples
/// that have no split yet.
pub fn filter<'a>(examples: &'a [Example], split: &str) -> Vec<&'a Example> {
    examples.iter().filter(|e| e.split == split).collect()
}
