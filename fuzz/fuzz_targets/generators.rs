//! The 22 generators on any name up to the maximum length: the set is sorted and unique, never
//! holds "" or the input, is the same on a second call, and takes bounded time. Names are cut
//! to `MAX_NAME_LEN`, the longest name the corpus tools accept.
#![no_main]

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use typo_tasks::{Data, MAX_NAME_LEN, Registry};

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| Registry::new(&Data::english()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(name) = std::str::from_utf8(rest) else {
        return;
    };
    let mut end = name.len().min(MAX_NAME_LEN);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    let name = &name[..end];
    let tasks: Vec<_> = registry().iter().collect();
    let task = tasks[usize::from(pick) % tasks.len()];
    let start = Instant::now();
    let set = task.expect(name);
    let took = start.elapsed();
    let bytes: usize = set.iter().map(|v| v.as_bytes().len()).sum();
    assert!(set.windows(2).all(|w| w[0] < w[1]), "{}: not sorted and unique", task.id);
    assert!(
        set.iter().all(|v| !v.is_empty() && v.as_bytes() != name.as_bytes()),
        "{}: holds \"\" or the input",
        task.id
    );
    // Bounded time: CAPKIT_FUZZ_MAX_MS per call (the long runs use 100; the CI smoke run, on a
    // shared machine, leaves it to libFuzzer's -timeout=1), plus 100 ns per output byte.
    let max_ms = std::env::var("CAPKIT_FUZZ_MAX_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000u64);
    let budget = Duration::from_millis(max_ms) + Duration::from_nanos(100 * bytes as u64);
    assert!(took <= budget, "{} took {took:?} for {bytes} output bytes", task.id);
    // Deterministic (the second call skipped for the huge numeral sets, to stay in time).
    if set.len() <= 4096 {
        assert_eq!(task.expect(name), set, "{}: not deterministic", task.id);
    }
});
