//! What every adapter implements, and the pieces they share. Backends import this module;
//! it imports none of them.

use std::time::Duration;

use suite_core::{Decision, Label};

use crate::ProtocolError;

use crate::error::Error;

/// One answer of an adapter: the label (or record) and, when the model has a decision API, its
/// decision on the same text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub output: Label,
    pub decision: Option<Decision>,
}

/// What every adapter does: answer a batch of texts, in order.
pub(crate) trait Backend: Send {
    /// Answers `texts` (in order, one each). `done(n)` reports `n` more texts answered.
    fn answer(&mut self, texts: &[&str], done: &mut dyn FnMut(u64)) -> Result<Vec<Answer>, Error>;

    /// Ends the run cleanly (a subprocess gets end-of-input and is waited for).
    fn finish(&mut self) -> Result<(), Error> {
        Ok(())
    }

    /// What the answers depend on besides the text: the cache key's model part. `None`: the
    /// adapter is not worth caching (precomputed predictions).
    fn identity(&self) -> Option<String>;
}

/// Calls `call` on every item, at most `concurrency` at once, and gathers the answers in item
/// order (so the result does not depend on `concurrency`). The first failure in item order is
/// the error; `done` counts the answers gathered before it.
#[cfg(any(feature = "http", feature = "openai"))]
pub(crate) fn gather_ordered<T: Sync>(
    items: &[T],
    concurrency: usize,
    call: impl Fn(usize, &T) -> Result<Vec<Answer>, Error> + Sync,
    done: &mut dyn FnMut(u64),
) -> Result<Vec<Answer>, Error> {
    let mut out = Vec::new();
    let mut failed = None;
    chat_client::for_each_ordered(items, concurrency, call, |_, result| match result {
        Ok(answers) if failed.is_none() => {
            done(answers.len() as u64);
            out.extend(answers);
        }
        Ok(_) => {}
        Err(e) => {
            failed.get_or_insert(e);
        }
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// A protocol error's message, values cut to 60 characters.
pub(crate) fn protocol_message(e: &ProtocolError) -> String {
    match e {
        ProtocolError::NotARecord { got } => {
            format!("a record must be a JSON object, got {}", short(got))
        }
        ProtocolError::NotJson { error, line } => {
            format!("not a JSON answer object ({error}): {}", short(line))
        }
        ProtocolError::InAnswer { error, .. } | ProtocolError::InBatch { error, .. } => {
            protocol_message(error)
        }
        other => other.to_string(),
    }
}

/// `s` cut to 60 characters for a message.
pub(crate) fn short(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_owned()
    } else {
        let mut out: String = s.chars().take(57).collect();
        out.push('…');
        out
    }
}

/// `n` and `noun`, plural unless `n` is one: "1 output line", "2 attempts".
pub(crate) fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A duration in seconds for a message: "3 s", "0.5 s".
pub(crate) fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_cut_values_and_count_nouns() {
        assert_eq!(short(&"x".repeat(60)), "x".repeat(60));
        assert_eq!(short(&"x".repeat(61)), format!("{}…", "x".repeat(57)));
        assert_eq!(count(1, "attempt"), "1 attempt");
        assert_eq!(count(0, "output line"), "0 output lines");
        assert_eq!(secs(Duration::from_millis(500)), "0.5 s");
    }
}
