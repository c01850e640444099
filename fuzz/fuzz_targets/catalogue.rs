//! Every transform of the capkit-transforms catalogue on any text up to the fuzzer's 4 KiB: no
//! panic, deterministic (a second build, with the text's hash computed apart, gives the same
//! output), an output of bounded size, and CPU time bounded by a fixed part plus a cost per byte
//! (the law of the `generators` target). The first byte picks the transform, the second its rate
//! (when it has one), the next eight its seed; the rest is the text. Transforms whose example
//! needs data the machine lacks (WordNet) are skipped.
#![no_main]

use std::time::Duration;

use cpu_time::ThreadTime;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use suite_core::TextHash;
use transforms::Catalogue;

fuzz_target!(|data: &[u8]| {
    if data.len() < 10 {
        return;
    }
    let (head, rest) = data.split_at(10);
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let catalogue = Catalogue::standard();
    let all: Vec<_> = catalogue.descriptors().collect();
    let d = all[usize::from(head[0]) % all.len()];
    let mut params: Map<String, Value> = match serde_json::from_str(d.example_params) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let declared = |name: &str| d.params.iter().any(|p| p.name == name);
    if declared("rate") {
        params.insert("rate".into(), Value::from(f64::from(head[1]) / 255.0));
    }
    if declared("seed") {
        let seed = u64::from_le_bytes(head[2..10].try_into().expect("eight bytes"));
        params.insert("seed".into(), Value::from(seed));
    }
    let Ok(first) = catalogue.build(d.name, &params) else {
        return; // data missing on this machine (WordNet)
    };
    let second = catalogue
        .build(d.name, &params)
        .expect("built once, builds again");
    let start = ThreadTime::now();
    let out = first.transform.apply(text);
    let took = start.elapsed();
    assert_eq!(
        out,
        second.transform.apply_with_hash(text, &TextHash::of(text)),
        "{}: not deterministic",
        d.name
    );
    // Size: no transform grows a text by more than a constant factor plus its added phrases.
    assert!(
        out.len() <= 64 * text.len() + 4096,
        "{}: {} bytes out of {}",
        d.name,
        out.len(),
        text.len()
    );
    let var = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let bytes = (text.len() + out.len()) as u64;
    let budget = Duration::from_millis(var("CAPKIT_FUZZ_MAX_MS", 1000))
        + Duration::from_nanos(var("CAPKIT_FUZZ_NS_PER_BYTE", 400).saturating_mul(bytes));
    assert!(
        took <= budget,
        "{} took {took:?} of CPU for {bytes} bytes in and out (budget {budget:?})",
        d.name
    );
});
