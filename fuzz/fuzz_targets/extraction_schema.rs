//! `validate_extraction_schema`: complete exactly when nothing is missing, missing and
//! ungrounded name expected fields, and the check is deterministic.
#![no_main]

use extractive::validate_extraction_schema;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // RECORD JSON, a 0x00-free separator line, then the source text.
    let (json, source) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(record) = serde_json::from_str::<Value>(json) else {
        return;
    };
    let mut fields: Vec<String> = record
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    fields.push("absent".to_owned());
    let Ok(check) = validate_extraction_schema(&record, source, &fields) else {
        assert!(!record.is_object());
        return;
    };
    assert_eq!(check.complete, check.missing.is_empty());
    assert_eq!(check.grounded, check.ungrounded.is_empty());
    assert!(check.missing.iter().all(|m| fields.contains(m)));
    assert!(check.ungrounded.iter().all(|u| fields.contains(u)));
    let again = validate_extraction_schema(&record, source, &fields).expect("same input");
    assert_eq!(again, check);
});
