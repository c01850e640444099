//! JSONL corpora that never lie: the bytes upstream's Go `WriteJSONL` writes, and a reader whose
//! errors name the line.
//!
//! Writing is byte-identical to Go `encoding/json` (HTML escaping on, `\u2028`/`\u2029`
//! escaped, field order `task, input, expect, split, source`, `null` for a nil set), so a corpus
//! hashes the same whichever implementation built it. A corpus that cannot round-trip (a `bf`
//! variant that is not UTF-8) is refused before a single byte is written.

use std::fmt;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

use typo_generators::{push_json_member, push_json_str};

use crate::{Example, ExampleRef, HarnessError, Variant};

/// The longest JSONL line [`JsonlReader`] accepts, newline included: 8 MiB, as upstream.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// True when every member of the example's expected set is valid UTF-8 (the string fields are
/// UTF-8 by construction), so the example survives a JSONL round trip.
pub fn representable(example: &Example) -> bool {
    example.expect_set().iter().all(member_is_utf8)
}

/// Whether a variant is valid UTF-8; the ASCII check is the fast path (nearly every member).
fn member_is_utf8(v: &Variant) -> bool {
    let bytes = v.as_bytes();
    bytes.is_ascii() || std::str::from_utf8(bytes).is_ok()
}

/// `Ok` when [`representable`]; otherwise the refusal naming the task and input.
pub fn check_representable(example: &Example) -> Result<(), HarnessError> {
    if representable(example) {
        Ok(())
    } else {
        Err(not_representable(&example.view()))
    }
}

fn not_representable(example: &ExampleRef<'_>) -> HarnessError {
    HarnessError::NotRepresentable {
        task: example.task.to_owned(),
        input: example.input.to_owned(),
    }
}

/// Appends one JSONL line (the object and its `\n`) for `example` to `out`, or refuses an
/// unrepresentable example, leaving `out` as it was.
///
/// ```
/// use typo_tasks::{Example, encode_example};
/// let e = Example { task: "co".into(), input: "a&b".into(), ..Example::default() };
/// let mut out = Vec::new();
/// encode_example(&e, &mut out).unwrap();
/// assert_eq!(out, b"{\"task\":\"co\",\"input\":\"a\\u0026b\",\"expect\":null}\n");
/// ```
pub fn encode_example(example: &Example, out: &mut Vec<u8>) -> Result<(), HarnessError> {
    encode_example_ref(&example.view(), out)
}

/// [`encode_example`] for a borrowed example.
pub fn encode_example_ref(example: &ExampleRef<'_>, out: &mut Vec<u8>) -> Result<(), HarnessError> {
    // One pass: encode while noting non-ASCII members, validate only those, and roll back on
    // refusal.
    let start = out.len();
    if encode_raw(example, out, true) {
        Ok(())
    } else {
        out.truncate(start);
        Err(not_representable(example))
    }
}

/// Encodes `e`; with `validate`, returns false when a member of its set is not valid UTF-8 (the
/// bytes written are then not valid JSON and must be discarded).
fn encode_raw(e: &ExampleRef<'_>, out: &mut Vec<u8>, validate: bool) -> bool {
    let mut valid = true;
    out.extend_from_slice(b"{\"task\":");
    push_json_str(out, e.task);
    out.extend_from_slice(b",\"input\":");
    push_json_str(out, e.input);
    out.extend_from_slice(b",\"expect\":");
    match e.expect {
        None => out.extend_from_slice(b"null"),
        Some([]) => out.extend_from_slice(b"[]"),
        Some(set) => {
            // The quotes and commas between members are the same whatever the members hold.
            out.reserve(set.iter().map(|v| v.len() + 3).sum::<usize>() + 1);
            out.extend_from_slice(b"[\"");
            for (i, v) in set.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b"\",\"");
                }
                valid &= push_json_member(out, v) || !validate;
            }
            out.extend_from_slice(b"\"]");
        }
    }
    if !e.split.is_empty() {
        out.extend_from_slice(b",\"split\":");
        push_json_str(out, e.split);
    }
    if !e.source.is_empty() {
        out.extend_from_slice(b",\"source\":");
        push_json_str(out, e.source);
    }
    out.extend_from_slice(b"}\n");
    valid
}

/// Writes `examples` as JSONL, one object per line. Every example is checked first: at the
/// first unrepresentable one the result is [`HarnessError::NotRepresentable`] and nothing has
/// been written.
pub fn write_jsonl<W: Write>(w: W, examples: &[Example]) -> Result<(), HarnessError> {
    for e in examples {
        check_representable(e)?;
    }
    let mut w = BufWriter::with_capacity(1 << 16, w);
    let mut line = Vec::with_capacity(1024);
    for e in examples {
        line.clear();
        // Checked above.
        encode_raw(&e.view(), &mut line, false);
        w.write_all(&line).map_err(|source| HarnessError::Write {
            task: e.task.clone(),
            input: e.input.clone(),
            source,
        })?;
    }
    w.flush().map_err(|source| HarnessError::Write {
        task: examples.last().map(|e| e.task.clone()).unwrap_or_default(),
        input: examples.last().map(|e| e.input.clone()).unwrap_or_default(),
        source,
    })
}

/// Reads a whole JSONL corpus. See [`JsonlReader`] for the line rules.
pub fn read_jsonl<R: Read>(r: R) -> Result<Vec<Example>, HarnessError> {
    JsonlReader::new(BufReader::new(r))
        .map(|item| item.map(|(_, e)| e))
        .collect()
}

/// A streaming JSONL reader yielding `(line number, example)`.
///
/// Lines are split on `\n`; a trailing `\r` and surrounding whitespace are dropped. Line numbers
/// count every physical line from 1, blank ones included, and blank lines are skipped. Keys
/// match case-insensitively (`TASK` fills `task`), the last repeat wins, unknown keys are
/// ignored, and `"expect":null` gives `None`: Go's decoder rules.
pub struct JsonlReader<R> {
    reader: R,
    line: usize,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> JsonlReader<R> {
    /// Wraps a buffered reader.
    pub fn new(reader: R) -> Self {
        JsonlReader {
            reader,
            line: 0,
            buf: Vec::new(),
            done: false,
        }
    }

    /// Reads the next physical line into `buf`; `Ok(false)` at end of input.
    fn next_line(&mut self) -> Result<bool, HarnessError> {
        self.buf.clear();
        let mut limited = (&mut self.reader).take(MAX_LINE_BYTES as u64);
        let n = limited
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| HarnessError::Read { source })?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        } else if n == MAX_LINE_BYTES {
            return Err(HarnessError::LineTooLong { line: self.line });
        }
        Ok(true)
    }
}

impl<R: BufRead> Iterator for JsonlReader<R> {
    type Item = Result<(usize, Example), HarnessError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.next_line() {
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
                Ok(false) => self.done = true,
                Ok(true) => {
                    let line = trim_line(&self.buf);
                    if line.is_empty() {
                        continue;
                    }
                    let parsed = parse_line(line, self.line);
                    if parsed.is_err() {
                        self.done = true;
                    }
                    return Some(parsed.map(|e| (self.line, e)));
                }
            }
        }
        None
    }
}

/// Drops a trailing `\r` and surrounding whitespace (Unicode whitespace when the line is UTF-8).
fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match std::str::from_utf8(line) {
        Ok(s) => s.trim().as_bytes(),
        Err(_) => line.trim_ascii(),
    }
}

/// Parses one trimmed, non-blank line as an example.
pub fn parse_line(line: &[u8], line_no: usize) -> Result<Example, HarnessError> {
    let mut de = serde_json::Deserializer::from_slice(line);
    let example = Example::deserialize(&mut de).and_then(|e| de.end().map(|()| e));
    example.map_err(|e| HarnessError::Json {
        line: line_no,
        column: e.column(),
        message: strip_position(&e.to_string()).to_owned(),
    })
}

/// serde_json appends " at line L column C"; each JSONL line is its own document, so the line is
/// always 1 and the caller reports the physical line and column instead.
fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(at) if message[at..].contains(" column ") => &message[..at],
        _ => message,
    }
}

/// The example fields, matched the way Go's decoder matches struct fields: case-insensitively
/// (with the Kelvin sign and long s folding to `k` and `s`).
#[derive(Clone, Copy)]
enum Field {
    Task,
    Input,
    Expect,
    Split,
    Source,
    Other,
}

impl Field {
    fn from_key(key: &str) -> Field {
        let folded: String = key
            .chars()
            .map(|c| match c {
                '\u{212A}' => 'k',
                '\u{17F}' => 's',
                c => c.to_ascii_lowercase(),
            })
            .collect();
        match folded.as_str() {
            "task" => Field::Task,
            "input" => Field::Input,
            "expect" => Field::Expect,
            "split" => Field::Split,
            "source" => Field::Source,
            _ => Field::Other,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Field::Task => "task",
            Field::Input => "input",
            Field::Expect => "expect",
            Field::Split => "split",
            Field::Source => "source",
            Field::Other => "",
        }
    }
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl Visitor<'_> for FieldVisitor {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
                Ok(Field::from_key(v))
            }
        }
        d.deserialize_identifier(FieldVisitor)
    }
}

impl<'de> Deserialize<'de> for Example {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ExampleVisitor)
    }
}

struct ExampleVisitor;

impl<'de> Visitor<'de> for ExampleVisitor {
    type Value = Example;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object with task, input, expect, split and source")
    }

    /// A `null` line decodes to an empty example, as in Go.
    fn visit_unit<E: de::Error>(self) -> Result<Example, E> {
        Ok(Example::default())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Example, A::Error> {
        let mut e = Example::default();
        while let Some(field) = map.next_key::<Field>()? {
            let named = |err: A::Error| {
                de::Error::custom(format_args!(
                    "field \"{}\": {}",
                    field.name(),
                    strip_position(&err.to_string())
                ))
            };
            let slot = match field {
                Field::Task => &mut e.task,
                Field::Input => &mut e.input,
                Field::Split => &mut e.split,
                Field::Source => &mut e.source,
                Field::Expect => {
                    let set: Option<Vec<Option<String>>> = map.next_value().map_err(named)?;
                    e.expect = set.map(|members| {
                        members
                            .into_iter()
                            .map(|m| Variant::from(m.unwrap_or_default()))
                            .collect()
                    });
                    continue;
                }
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            // Go leaves a string field unchanged when it is given `null`.
            if let Some(value) = map.next_value::<Option<String>>().map_err(named)? {
                *slot = value;
            }
        }
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use typo_generators::push_json_bytes;

    /// Encodes a set of these members and checks it against each member written by the byte
    /// path, and the refusal against their UTF-8 validity; the first difference, if any.
    fn set_matches_its_members(members: &[Vec<u8>]) -> Result<(), String> {
        let set: Vec<Variant> = members.iter().cloned().map(Variant::from_bytes).collect();
        let e = ExampleRef {
            task: "t",
            input: "i",
            expect: Some(&set),
            split: "",
            source: "",
        };
        let mut out = Vec::new();
        let got = encode_example_ref(&e, &mut out);
        let mut want = b"{\"task\":\"t\",\"input\":\"i\",\"expect\":[".to_vec();
        let mut utf8 = true;
        for (i, m) in members.iter().enumerate() {
            if i > 0 {
                want.push(b',');
            }
            utf8 &= push_json_bytes(&mut want, m);
        }
        want.extend_from_slice(b"]}\n");
        match (got, utf8) {
            (Ok(()), true) if out == want => Ok(()),
            (Err(_), false) if out.is_empty() => Ok(()),
            _ => Err(format!(
                "{members:?}: got {:?}, want {:?}",
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&want)
            )),
        }
    }

    #[test]
    fn short_members_with_one_special_anywhere_are_escaped() {
        for len in 1..=40 {
            for pos in 0..len {
                for special in [b'"', 0x01, 0xE9] {
                    let mut member = vec![b'a'; len];
                    member[pos] = special;
                    set_matches_its_members(&[b"clean".to_vec(), member]).unwrap();
                }
            }
        }
    }

    proptest::proptest! {
        /// Sets of short and long members (inline and heap variants, specials and non-ASCII
        /// at every position, invalid UTF-8): each member written as the byte path writes it,
        /// and refused exactly when one is not UTF-8.
        #[test]
        fn sets_encode_member_by_member(
            members in proptest::collection::vec(
                proptest::collection::vec(
                    // Mostly clean bytes, so that clean members of every length occur.
                    proptest::prop_oneof![
                        12 => proptest::sample::select(vec![b'a', b'z', b'0', b'.', b'-', 0x7f]),
                        1 => proptest::sample::select(vec![
                            b'"', b'<', b'\\', 0x00, 0x1f, 0xC3, 0xA9, 0xE2, 0x80, 0xA8,
                        ]),
                    ],
                    0..40,
                ),
                1..12,
            ),
        ) {
            let checked = set_matches_its_members(&members);
            proptest::prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
        }
    }

    #[test]
    fn refusal_leaves_the_buffer_as_it_was() {
        let bad = Example {
            task: "bf".into(),
            input: "ü".into(),
            expect: Some(vec![
                Variant::from("a"),
                Variant::from_bytes(vec![0xC3, 0x3C]),
            ]),
            ..Example::default()
        };
        let mut out = b"kept".to_vec();
        let err = encode_example(&bad, &mut out).unwrap_err();
        assert_eq!(out, b"kept");
        assert_eq!(
            err.to_string(),
            "bf/\"ü\" has a field or variant that is not valid UTF-8 and cannot survive JSONL; filter with Representable, or drop this task from the corpus"
        );
        assert!(!representable(&bad));
    }

    #[test]
    fn reader_follows_go_decoder_rules() {
        let text = "{\"task\":\"a\",\"TASK\":\"b\",\"task\":null,\"expect\":[\"x\"],\"expect\":null,\"\u{17F}plit\":\"val\"}\n\nnull\n";
        let got: Vec<(usize, Example)> = JsonlReader::new(text.as_bytes())
            .map(Result::unwrap)
            .collect();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, 1);
        assert_eq!(got[0].1.task, "b");
        assert_eq!(got[0].1.expect, None);
        assert_eq!(got[0].1.split, "val");
        assert_eq!(got[1], (3, Example::default()));
        let err = read_jsonl("[1]".as_bytes()).unwrap_err().to_string();
        assert!(err.starts_with("line 1: invalid type"), "{err}");
        let err = read_jsonl("{} x".as_bytes()).unwrap_err().to_string();
        assert!(err.starts_with("line 1: trailing characters"), "{err}");
    }
}
