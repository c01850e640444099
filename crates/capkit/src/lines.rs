//! The one line rule of every capkit text-file reader (`--corpus`, `--texts`, JSONL inputs): a
//! line ends at `\n`, and a `\r` just before it is part of the line break, so a CRLF file reads
//! exactly as its LF twin. Nothing else is trimmed. (JSONL readers get the same result from
//! JSON, which treats `\r` as whitespace.)

/// `line` without its line break (`\n`, `\r\n`, or a lone `\r` ending the file's last line).
pub(crate) fn strip_line_break(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_and_lf_lines_are_the_same() {
        assert_eq!(strip_line_break(b"ab\r\n"), b"ab");
        assert_eq!(strip_line_break(b"ab\n"), b"ab");
        assert_eq!(strip_line_break(b"ab\r"), b"ab");
        assert_eq!(strip_line_break(b"ab"), b"ab");
        assert_eq!(strip_line_break(b" a\tb \n"), b" a\tb ");
        assert_eq!(strip_line_break(b"a\r\r\n"), b"a\r");
    }
}
