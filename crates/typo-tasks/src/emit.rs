//! Corpus emission: one example per (input, task), with the task's whole expected set.

use crate::{Example, Task};

/// One example per (input, task) whose expected set is non-empty, in corpus order and then task
/// order. An input that is exactly `""` is skipped (`" "` is kept); duplicates are not removed.
/// Every example carries `source` and no split.
pub fn emit<'a, I>(tasks: &[&Task], corpus: I, source: &str) -> Vec<Example>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut out = Vec::new();
    for input in corpus {
        emit_input(tasks, input, source, false, &mut out);
    }
    out
}

/// As [`emit`], but keeps the pairs whose expected set is empty, with `expect: None`.
pub fn emit_with_empty<'a, I>(tasks: &[&Task], corpus: I, source: &str) -> Vec<Example>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut out = Vec::new();
    for input in corpus {
        emit_input(tasks, input, source, true, &mut out);
    }
    out
}

/// Appends the examples of one input to `out`: the building block of [`emit`], for callers that
/// stream a corpus in chunks.
pub fn emit_input(
    tasks: &[&Task],
    input: &str,
    source: &str,
    with_empty: bool,
    out: &mut Vec<Example>,
) {
    if input.is_empty() {
        return;
    }
    for task in tasks {
        let expect = task.expect(input);
        if expect.is_empty() && !with_empty {
            continue;
        }
        out.push(Example {
            task: task.id.to_owned(),
            input: input.to_owned(),
            expect: if expect.is_empty() {
                None
            } else {
                Some(expect)
            },
            split: String::new(),
            source: source.to_owned(),
        });
    }
}
