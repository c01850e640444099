//! The per-text ledger: one JSON line per text and stage, written as the profile streams.
//!
//! A report counts; the ledger lists. For each text (in input order) it writes a `clean` line,
//! then one line per corruption and per invariance in suite order, each with the text's `id`
//! (its 1-based position among the texts added), its `key` (16 hex digits of blake3(text), the
//! key examples are chosen by) and what happened to it on that stage. The first occurrence of a
//! text carries the transformed text and both sides' answers; a later repeat of the same text
//! carries `"repeat": true` and its outcome only (the answers are those of the line with the
//! same key, which the profile does not keep). So the bytes depend on the texts alone, never on
//! the chunk size, and memory stays bounded by what one `add` call holds.
//!
//! Lines (keys in this order; optional ones absent, never `null`):
//! * `clean`: `id`, `key`, `stage`, `kind` ("clean"), `text`, [`student`, `teacher`: the clean
//!   answers], `agree`, [`student_escalated`, `teacher_escalated`: with a decision API], [`repeat`];
//! * a corruption: `id`, `key`, `stage`, `kind` ("corruption"), `text`, [`transformed`,
//!   `student`, `student_transformed`, `teacher`, `teacher_transformed`], [`agree`: the labels agree
//!   on the corrupted text], `teacher_clean_agree` (the student's corrupted answer equals the
//!   teacher's clean answer), `student_changed`, [`teacher_changed`], `text_changed`,
//!   [`in_sample`: false for a text outside the teacher's sample, whose teacher fields are absent],
//!   [`repeat`];
//! * an invariance: as a corruption without `agree` and `teacher_clean_agree`.

use std::collections::VecDeque;
use std::io::Write;

use crate::Error;

/// What kind of stage a line is of.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum StageKind {
    Corruption,
    Invariance,
}

/// The answers of a text's first occurrence, kept from its chunk until its lines are written.
pub(crate) struct Answers {
    /// The text's key (see [`profile_stats::key_hex`]).
    pub key: u64,
    pub student: String,
    pub teacher: String,
    pub stages: Vec<StageAnswers>,
}

/// One stage's transformed text and answers (the teacher's `None` outside its sample).
pub(crate) struct StageAnswers {
    pub transformed: String,
    pub student: String,
    pub teacher: Option<String>,
}

/// What happened to a text on one stage: its outcome bits (an invariance's `agree` and
/// `teacher_clean` are unused).
#[derive(Clone, Copy)]
pub(crate) struct StageOutcome {
    pub agree: bool,
    pub teacher_clean: bool,
    pub student_changed: bool,
    pub teacher_changed: bool,
    pub text_changed: bool,
}

/// What happened to a text (from its outcome bits).
pub(crate) struct TextOutcome {
    pub clean_agree: bool,
    /// `false` outside the teacher's sample (always `true` without one).
    pub in_sample: bool,
    pub sampled: bool,
    pub escalated: [Option<bool>; 2],
    pub stages: Vec<StageOutcome>,
}

/// A ledger being written: the sink, the stages' names and kinds, and the answers of texts whose
/// lines are not written yet (by position).
pub(crate) struct Ledger<'w> {
    out: &'w mut dyn Write,
    stages: Vec<(String, StageKind)>,
    pending: VecDeque<(usize, Answers)>,
    line: Vec<u8>,
    /// Lines written so far.
    pub lines: u64,
}

fn push_str(out: &mut Vec<u8>, s: &str) {
    // A JSON string of a `str` never fails to serialise.
    let _ = serde_json::to_writer(&mut *out, s);
}

fn push_field(out: &mut Vec<u8>, name: &str, value: &str) {
    out.push(b',');
    push_str(out, name);
    out.push(b':');
    push_str(out, value);
}

fn push_bool(out: &mut Vec<u8>, name: &str, value: bool) {
    out.push(b',');
    push_str(out, name);
    out.extend_from_slice(if value { b":true" } else { b":false" });
}

impl<'w> Ledger<'w> {
    pub(crate) fn new(out: &'w mut dyn Write, stages: Vec<(String, StageKind)>) -> Ledger<'w> {
        Ledger {
            out,
            stages,
            pending: VecDeque::new(),
            line: Vec::new(),
            lines: 0,
        }
    }

    /// Keeps the answers of the text at `position` (its first occurrence) for its lines.
    pub(crate) fn keep(&mut self, position: usize, answers: Answers) {
        self.pending.push_back((position, answers));
    }

    /// Writes the lines of the text at `position`: with the answers kept for it, if any (its
    /// first occurrence), else as a repeat (its key computed here).
    pub(crate) fn write(
        &mut self,
        position: usize,
        text: &str,
        outcome: &TextOutcome,
    ) -> Result<(), Error> {
        // Kept answers are in position order, and texts are written in position order.
        let answers = match self.pending.front() {
            Some((p, _)) if *p == position => self.pending.pop_front().map(|a| a.1),
            _ => None,
        };
        let key = profile_stats::key_hex(match &answers {
            Some(a) => a.key,
            None => profile_stats::example_key(&suite_core::TextHash::of(text).0),
        });
        let key = key.as_str();
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let head = |line: &mut Vec<u8>, stage: &str, kind: &str| {
            line.extend_from_slice(b"{\"id\":");
            line.extend_from_slice((position + 1).to_string().as_bytes());
            push_field(line, "key", key);
            push_field(line, "stage", stage);
            push_field(line, "kind", kind);
            push_field(line, "text", text);
        };
        head(&mut line, "clean", "clean");
        if let Some(a) = &answers {
            push_field(&mut line, "student", &a.student);
            push_field(&mut line, "teacher", &a.teacher);
        }
        push_bool(&mut line, "agree", outcome.clean_agree);
        for (name, e) in ["student_escalated", "teacher_escalated"]
            .iter()
            .zip(outcome.escalated)
        {
            if let Some(e) = e {
                push_bool(&mut line, name, e);
            }
        }
        if answers.is_none() {
            push_bool(&mut line, "repeat", true);
        }
        line.extend_from_slice(b"}\n");
        for (s, ((name, kind), o)) in self.stages.iter().zip(&outcome.stages).enumerate() {
            let corruption = *kind == StageKind::Corruption;
            head(
                &mut line,
                name,
                if corruption {
                    "corruption"
                } else {
                    "invariance"
                },
            );
            if let Some(a) = answers.as_ref().and_then(|a| Some((a, a.stages.get(s)?))) {
                let (clean, stage) = a;
                push_field(&mut line, "transformed", &stage.transformed);
                push_field(&mut line, "student", &clean.student);
                push_field(&mut line, "student_transformed", &stage.student);
                push_field(&mut line, "teacher", &clean.teacher);
                if let Some(t) = &stage.teacher {
                    push_field(&mut line, "teacher_transformed", t);
                }
            }
            if corruption {
                if outcome.in_sample {
                    push_bool(&mut line, "agree", o.agree);
                }
                push_bool(&mut line, "teacher_clean_agree", o.teacher_clean);
            }
            push_bool(&mut line, "student_changed", o.student_changed);
            if outcome.in_sample {
                push_bool(&mut line, "teacher_changed", o.teacher_changed);
            }
            push_bool(&mut line, "text_changed", o.text_changed);
            if outcome.sampled && !outcome.in_sample {
                push_bool(&mut line, "in_sample", false);
            }
            if answers.is_none() {
                push_bool(&mut line, "repeat", true);
            }
            line.extend_from_slice(b"}\n");
        }
        self.out.write_all(&line).map_err(Error::Ledger)?;
        self.lines += 1 + self.stages.len() as u64;
        self.line = line;
        Ok(())
    }

    /// Flushes the sink.
    pub(crate) fn flush(&mut self) -> Result<(), Error> {
        self.out.flush().map_err(Error::Ledger)
    }
}
