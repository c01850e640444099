//! The predictions reader: a parsed row has exactly task, input and predict, and writing it back
//! as JSON parses to the same prediction.
#![no_main]

use libfuzzer_sys::fuzz_target;
use typo_tasks::parse_prediction;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(p) = parse_prediction(text) else {
        return;
    };
    let predict: Vec<String> = p.predict.iter().map(ToString::to_string).collect();
    let json = serde_json::json!({"task": p.task, "input": p.input, "predict": predict});
    let again = parse_prediction(&json.to_string()).expect("a written prediction parses");
    assert_eq!(again, p);
    // Any other key is refused.
    let mut extra = json.clone();
    extra["extra"] = serde_json::json!(1);
    assert!(parse_prediction(&extra.to_string()).is_err());
});
