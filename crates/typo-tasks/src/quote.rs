//! Go's `%q` quoting, which upstream's error texts use for inputs and argument lists.
//!
//! It differs from Rust's `{:?}`: printable non-ASCII characters stay raw, controls become
//! `\t`/`\x01`, and other unprintable characters `\uXXXX`/`\UXXXXXXXX`.

use std::fmt::Write as _;

use unicode_general_category::{GeneralCategory as G, get_general_category};

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space.
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    !matches!(
        get_general_category(c),
        G::Control
            | G::Format
            | G::Surrogate
            | G::PrivateUse
            | G::Unassigned
            | G::SpaceSeparator
            | G::LineSeparator
            | G::ParagraphSeparator
    )
}

/// `strconv.Quote(s)`: a double-quoted Go string literal.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_print(c) => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// `fmt.Sprintf("%q", slice)`: each element quoted, space-separated, in brackets.
pub(crate) fn go_quote_slice(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| go_quote(s)).collect();
    format!("[{}]", quoted.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_go() {
        assert_eq!(go_quote("münchen"), "\"münchen\"");
        assert_eq!(go_quote("a\tb\u{1}\"\\"), "\"a\\tb\\x01\\\"\\\\\"");
        assert_eq!(go_quote("\u{a0}\u{2028}"), "\"\\u00a0\\u2028\"");
        assert_eq!(go_quote("\u{e0000}"), "\"\\U000e0000\"");
        assert_eq!(go_quote("日本 ☃"), "\"日本 ☃\"");
        assert_eq!(
            go_quote_slice(&[String::new(), String::new()]),
            "[\"\" \"\"]"
        );
    }
}
