//! Suite files: an accepted spec round-trips through its JSON, and a built suite's transforms
//! are deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use suite_core::SuiteSpec;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(spec) = SuiteSpec::from_json_str(text) else {
        return;
    };
    let again = SuiteSpec::from_json_str(&spec.to_json_string()).expect("written spec parses");
    assert_eq!(again, spec);
    let Ok(suite) = spec.build() else {
        return;
    };
    for text in ["Hello World", "", "straße 12"] {
        for (_, t) in suite.corruptions().chain(suite.invariances()) {
            assert_eq!(t.apply(text), t.apply(text));
        }
    }
});
