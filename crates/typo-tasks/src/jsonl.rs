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

use crate::variant::INLINE;
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
                // A short member with nothing to escape (nearly all): its whole inline block
                // is copied (a fixed size: stores, no call) and the padding cut off again.
                if let Some((block, len)) = v.inline_parts()
                    && inline_is_clean(block, len)
                {
                    let at = out.len();
                    out.extend_from_slice(block);
                    out.truncate(at + len);
                    continue;
                }
                valid &= push_json_content(out, v.as_bytes()) || !validate;
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

/// Per byte: 0 = copy, 1 = escape (controls, `"`, `\\`, `<`, `>`, `&`), 2 = maybe U+2028/U+2029.
const fn escape_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = 1;
        i += 1;
    }
    t[b'"' as usize] = 1;
    t[b'\\' as usize] = 1;
    t[b'<' as usize] = 1;
    t[b'>' as usize] = 1;
    t[b'&' as usize] = 1;
    t[0xE2] = 2;
    t
}
const ESCAPE: [u8; 256] = escape_table();

/// Appends `s` as a JSON string literal, escaped exactly as Go's `encoding/json` does (HTML
/// escaping on).
pub fn push_json_str(out: &mut Vec<u8>, s: &str) {
    push_json_bytes(out, s.as_bytes());
}

/// [`push_json_str`] over bytes that may not be UTF-8 (a `bf` variant); returns whether they
/// are (if not, the bytes written are not JSON and the caller discards them).
fn push_json_bytes(out: &mut Vec<u8>, bytes: &[u8]) -> bool {
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let utf8 = push_json_content(out, bytes);
    out.push(b'"');
    utf8
}

/// The inside of [`push_json_bytes`]'s string (no quotes); returns whether `bytes` are UTF-8.
///
/// Nearly every member of a set is plain ASCII with nothing to escape: the whole member is
/// checked eight bytes at a time first and, when clean, copied in one go. Otherwise the bytes
/// up to the first one that needs a look are copied, and from there each byte that needs a look
/// is handled: escaped, or (not ASCII) checked as the start of a UTF-8 sequence and copied.
#[inline(always)]
fn push_json_content(out: &mut Vec<u8>, bytes: &[u8]) -> bool {
    match first_to_look_at(bytes, 0) {
        None => {
            out.extend_from_slice(bytes);
            true
        }
        Some(first) => escape_from(out, bytes, first),
    }
}

/// The length of the UTF-8 sequence that starts `bytes` (with a byte of 0x80 or more), or `None`
/// when it is not a valid one (Unicode's table of well-formed sequences: no overlong forms, no
/// surrogates, nothing past U+10FFFF).
fn utf8_sequence(bytes: &[u8]) -> Option<usize> {
    let (len, second) = match *bytes.first()? {
        0xC2..=0xDF => (2, 0x80..=0xBF),
        0xE0 => (3, 0xA0..=0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80..=0xBF),
        0xED => (3, 0x80..=0x9F),
        0xF0 => (4, 0x90..=0xBF),
        0xF1..=0xF3 => (4, 0x80..=0xBF),
        0xF4 => (4, 0x80..=0x8F),
        _ => return None,
    };
    let rest = bytes.get(1..len)?;
    (second.contains(&rest[0]) && rest[1..].iter().all(|b| (0x80..=0xBF).contains(b)))
        .then_some(len)
}

/// Writes `bytes` escaped, knowing that `bytes[..first]` need nothing and `bytes[first]` needs a
/// look; returns whether `bytes` are UTF-8. Kept out of line: the clean path stays small.
#[inline(never)]
fn escape_from(out: &mut Vec<u8>, bytes: &[u8], first: usize) -> bool {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut utf8 = true;
    let mut start = 0;
    let mut next = Some(first);
    while let Some(i) = next {
        let b = bytes[i];
        let mut resume = i + 1;
        match ESCAPE[b as usize] {
            1 => {
                out.extend_from_slice(&bytes[start..i]);
                match b {
                    b'"' => out.extend_from_slice(b"\\\""),
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    b'\t' => out.extend_from_slice(b"\\t"),
                    0x08 => out.extend_from_slice(b"\\b"),
                    0x0c => out.extend_from_slice(b"\\f"),
                    _ => {
                        out.extend_from_slice(b"\\u00");
                        out.push(HEX[(b >> 4) as usize]);
                        out.push(HEX[(b & 0xf) as usize]);
                    }
                }
                start = resume;
            }
            // U+2028 and U+2029 (E2 80 A8/A9): valid JSON raw, but Go escapes them for
            // JavaScript's sake.
            2 if bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) =>
            {
                out.extend_from_slice(&bytes[start..i]);
                out.extend_from_slice(if bytes[i + 2] == 0xA8 {
                    b"\\u2028"
                } else {
                    b"\\u2029"
                });
                resume = i + 3;
                start = resume;
            }
            // Any other non-ASCII byte starts a sequence copied as it is (if it is one).
            _ => match utf8_sequence(&bytes[i..]) {
                Some(len) => resume = i + len,
                None => utf8 = false,
            },
        }
        next = first_to_look_at(bytes, resume);
    }
    out.extend_from_slice(&bytes[start..]);
    utf8
}

/// The first byte at or after `from` that needs a look (escaped, or not ASCII), eight at a time.
#[inline(always)]
fn first_to_look_at(bytes: &[u8], from: usize) -> Option<usize> {
    let n = bytes.len();
    if n < from + 8 {
        let rest = bytes.get(from..)?;
        return rest
            .iter()
            .position(|&b| b >= 0x80 || ESCAPE[b as usize] != 0)
            .map(|p| from + p);
    }
    let mut at = from;
    while at + 8 <= n {
        let look = needs_look(word_at(bytes, at));
        if look != 0 {
            return Some(at + (look.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    if at == n {
        return None;
    }
    // The last eight bytes, those before `at` masked off (they were looked at already).
    let seen = 8 * (8 - (n - at)) as u32;
    let look = needs_look(word_at(bytes, n - 8)) & (u64::MAX << seen);
    (look != 0).then(|| n - 8 + (look.trailing_zeros() / 8) as usize)
}

/// Whether the first `len` bytes of an inline block need no look (the zero padding after them
/// would look like control characters, so it is masked off).
#[inline(always)]
fn inline_is_clean(block: &[u8; INLINE], len: usize) -> bool {
    // The low `n` bytes of a word (all of it from 8 on).
    let low = |n: usize| {
        if n >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * n)) - 1
        }
    };
    let mut look = needs_look(word_at(block, 0)) & low(len);
    if len > 8 {
        look |= needs_look(word_at(block, 8)) & low(len - 8);
    }
    if len > 16 {
        look |= needs_look(word_at(block, 16)) & low(len - 16);
    }
    if len > 24 {
        // Bytes 22..30: the two already seen masked off, and the padding.
        look |= needs_look(word_at(block, INLINE - 8)) & low(len - 22) & !low(2);
    }
    look == 0
}

/// The eight bytes at `at`, little-endian (the caller checked they exist).
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    if let Some(eight) = bytes.get(at..at + 8) {
        word.copy_from_slice(eight);
    }
    u64::from_le_bytes(word)
}

/// The high bit of each byte of `w` that needs a look: below 0x20, `"`, `&`, `<`, `>`, `\`, or
/// not ASCII. Exact per byte (no carry crosses bytes: every sum below stays under 0x100).
#[inline(always)]
fn needs_look(w: u64) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let x = w & !HI;
    // High bit set when the byte is at least 0x20.
    let printable = x + LO * (0x80 - 0x20);
    // High bit set when the 7-bit value `v` is not zero.
    let nonzero = |v: u64| v + LO * 0x7f;
    // `"` and `&` differ in bit 2 only, `<` and `>` in bit 1 only.
    let not_quote_amp = nonzero((x & (LO * 0x7b)) ^ (LO * 0x22));
    let not_angle = nonzero((x & (LO * 0x7d)) ^ (LO * 0x3c));
    let not_backslash = nonzero(x ^ (LO * 0x5c));
    (!(printable & not_quote_amp & not_angle & not_backslash) | w) & HI
}

/// The bytes `s` takes inside a JSON string as `emit` writes it, quotes excluded.
pub(crate) fn escaped_str_len(s: &str) -> u64 {
    escaped_len(s.as_bytes()) as u64
}

/// The bytes `bytes` take inside a JSON string as written here, quotes excluded.
pub(crate) fn escaped_len(bytes: &[u8]) -> usize {
    match first_to_look_at(bytes, 0) {
        None => bytes.len(),
        Some(first) => {
            let mut out = Vec::with_capacity(bytes.len() + 8);
            escape_from(&mut out, bytes, first);
            out.len()
        }
    }
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

    fn json_of(s: &str) -> String {
        let mut out = Vec::new();
        push_json_str(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_like_go() {
        assert_eq!(json_of("a<b>&c"), r#""a\u003cb\u003e\u0026c""#);
        assert_eq!(
            json_of("\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}"),
            "\"\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}\""
        );
        assert_eq!(json_of("\u{2028}x\u{2029}"), r#""\u2028x\u2029""#);
        // Other characters starting with E2 stay raw.
        assert_eq!(json_of("€‚…"), "\"€‚…\"");
        assert_eq!(json_of("/é日本"), "\"/é日本\"");
    }

    /// Go's escaping one byte at a time: what the word-at-a-time encoder must produce.
    fn reference(bytes: &[u8]) -> (Vec<u8>, bool) {
        // Go's two-character escapes; other controls and `<`, `>`, `&` are `\u00XX`.
        let short = |b: u8| {
            [
                (b'"', "\\\""),
                (b'\\', "\\\\"),
                (b'\n', "\\n"),
                (b'\r', "\\r"),
                (b'\t', "\\t"),
                (0x08, "\\b"),
                (0x0c, "\\f"),
            ]
            .into_iter()
            .find(|&(c, _)| c == b)
            .map(|(_, e)| e.to_owned())
        };
        let mut raw = vec![b'"'];
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            let escaped = short(b)
                .or_else(|| (b < 0x20 || b"<>&".contains(&b)).then(|| format!("\\u{b:04x}")));
            let separator = (b == 0xE2
                && bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)))
            .then(|| format!("\\u20{:02x}", bytes[i + 2] - 0x80));
            match (escaped, separator) {
                (Some(e), _) => raw.extend_from_slice(e.as_bytes()),
                (None, Some(e)) => {
                    raw.extend_from_slice(e.as_bytes());
                    i += 2;
                }
                (None, None) => raw.push(b),
            }
            i += 1;
        }
        raw.push(b'"');
        (raw, std::str::from_utf8(bytes).is_ok())
    }

    #[test]
    fn every_byte_at_every_position_escapes_like_the_reference() {
        let plain = b"abcdefghijklmnopqrstuvwx";
        for len in 0..=plain.len() {
            for pos in 0..len {
                for b in 0..=255u8 {
                    let mut bytes = plain[..len].to_vec();
                    bytes[pos] = b;
                    // And a second special later, when there is room.
                    for second in [None, Some(b'"'), Some(0xE2)] {
                        let mut bytes = bytes.clone();
                        if let (Some(s), true) = (second, pos + 3 < len) {
                            bytes[pos + 3] = s;
                        }
                        let mut out = Vec::new();
                        let utf8 = push_json_bytes(&mut out, &bytes);
                        assert_eq!((out, utf8), reference(&bytes), "{bytes:?}");
                    }
                }
            }
        }
        // Sequences at the edges of well-formedness (overlong, surrogate, past U+10FFFF,
        // truncated) and their valid neighbours, at every offset.
        let sequences: [&[u8]; 10] = [
            &[0xED, 0xA0, 0x80],
            &[0xED, 0x9F, 0xBF],
            &[0xE0, 0x80, 0x80],
            &[0xE0, 0xA0, 0x80],
            &[0xC0, 0x80],
            &[0xC2, 0x80],
            &[0xF4, 0x90, 0x80, 0x80],
            &[0xF4, 0x8F, 0xBF, 0xBF],
            &[0xF0, 0x9F, 0x98, 0x80],
            &[0xE2, 0x82],
        ];
        for seq in sequences {
            for pos in 0..12 {
                let mut bytes = b"abcdefghijkl".to_vec();
                bytes.splice(pos..pos, seq.iter().copied());
                let mut out = Vec::new();
                let utf8 = push_json_bytes(&mut out, &bytes);
                assert_eq!((out, utf8), reference(&bytes), "{bytes:?}");
            }
        }
        // U+2028/U+2029 and look-alike prefixes, at every offset around a word boundary.
        for pos in 0..12 {
            for tail in [
                &[0x80u8, 0xA8][..],
                &[0x80, 0xA9],
                &[0x80, 0xAA],
                &[0x81, 0xA8],
                &[0x80],
            ] {
                let mut bytes = b"abcdefghijkl".to_vec();
                bytes.truncate(pos);
                bytes.push(0xE2);
                bytes.extend_from_slice(tail);
                bytes.extend_from_slice(b"xyz");
                let mut out = Vec::new();
                let utf8 = push_json_bytes(&mut out, &bytes);
                assert_eq!((out, utf8), reference(&bytes), "{bytes:?}");
            }
        }
    }

    proptest::proptest! {
        /// Arbitrary bytes and arbitrary text (every UTF-8 length, surrogate and overlong
        /// neighbours among the bytes): the same output and the same verdict on UTF-8.
        #[test]
        fn any_bytes_escape_like_the_reference(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
            text in proptest::prelude::any::<String>(),
        ) {
            for b in [&bytes[..], text.as_bytes()] {
                let mut out = Vec::new();
                let utf8 = push_json_bytes(&mut out, b);
                proptest::prop_assert_eq!((out, utf8), reference(b));
            }
        }
    }

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
    fn word_scan_agrees_with_the_byte_table() {
        // Every special byte at every position of a 17-byte string, among plain and non-ASCII
        // neighbours.
        for special in [0u8, 0x1f, b'"', b'\\', b'<', b'>', b'&', 0x7f, b'a'] {
            for pos in 0..17 {
                for filler in ["abcdefghijklmnopq", "ééééééééé"] {
                    let mut bytes = filler.as_bytes()[..17].to_vec();
                    bytes[pos] = special;
                    let Ok(s) = String::from_utf8(bytes) else {
                        continue;
                    };
                    let mut want = String::from("\"");
                    for c in s.chars() {
                        match c {
                            '"' => want.push_str("\\\""),
                            '\\' => want.push_str("\\\\"),
                            '<' => want.push_str("\\u003c"),
                            '>' => want.push_str("\\u003e"),
                            '&' => want.push_str("\\u0026"),
                            c if (c as u32) < 0x20 => {
                                want.push_str(&format!("\\u{:04x}", c as u32))
                            }
                            c => want.push(c),
                        }
                    }
                    want.push('"');
                    assert_eq!(json_of(&s), want, "{s:?}");
                }
            }
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
