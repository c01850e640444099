//! The JSONL corpus reader: a parsed line re-encodes (upstream's exact bytes) to a line that
//! parses to the same example, and the streaming reader agrees with the line parser.
#![no_main]

use libfuzzer_sys::fuzz_target;
use typo_tasks::{JsonlReader, encode_example, parse_line, representable};

fuzz_target!(|data: &[u8]| {
    let line = data.split(|&b| b == b'\n').next().unwrap_or(data);
    let parsed = parse_line(line, 1);
    if let Ok(example) = &parsed {
        if representable(example) {
            let mut bytes = Vec::new();
            encode_example(example, &mut bytes).expect("a representable example encodes");
            assert_eq!(bytes.last(), Some(&b'\n'));
            let again = parse_line(&bytes[..bytes.len() - 1], 1).expect("encoded line parses");
            assert_eq!(
                &again,
                example,
                "round trip of {:?}",
                String::from_utf8_lossy(line)
            );
        }
    }
    // The reader never panics, and names lines from 1.
    for item in JsonlReader::new(data) {
        match item {
            Ok((n, _)) => assert!(n >= 1),
            Err(_) => break,
        }
    }
});
