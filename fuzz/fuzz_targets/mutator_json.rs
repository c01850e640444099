//! mutator-eval's readers: the Python-compatible JSON reader round-trips what it accepts, the
//! reply parser and the case reader never panic, and an accepted reply is deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mutator_eval::{Case, parse_json, parse_reply, read_cases};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(value) = parse_json(text) {
        let written = serde_json::to_string(&value).expect("a value serialises");
        let again = parse_json(&written).expect("written JSON parses");
        assert_eq!(again, value);
    }
    if let Ok(extractions) = parse_reply(text) {
        let again = parse_reply(text).expect("same input");
        assert_eq!(format!("{again:?}"), format!("{extractions:?}"));
    }
    let _ = Case::from_line(text, 1);
    let _ = read_cases(text);
});
