//! The language-data loader: any accepted data builds a registry whose every task keeps the
//! generator laws on a few names.
#![no_main]

use libfuzzer_sys::fuzz_target;
use typo_generators::{Data, Registry};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(data) = Data::from_json_str(text) else {
        return;
    };
    let registry = Registry::new(&data);
    for name in ["ab.c-1", "one2three.com", "x"] {
        for task in &registry {
            let set = task.expect(name);
            assert!(
                set.windows(2).all(|w| w[0] < w[1]),
                "{}: not sorted and unique",
                task.id
            );
            assert!(
                set.iter()
                    .all(|v| !v.is_empty() && v.as_bytes() != name.as_bytes()),
                "{}",
                task.id
            );
        }
    }
});
