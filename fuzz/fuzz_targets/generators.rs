//! The 22 generators on any name up to the maximum length: the set is sorted and unique, never
//! holds "" or the input, is the same on a second call, and takes time bounded by a fixed part
//! plus a cost per output byte. Names are cut to `MAX_NAME_LEN`, the longest name the corpus
//! tools accept (`capkit typo emit` refuses longer lines unless `--max-name-len` raises it), so
//! the worst cases documented in `typo_generators`' `limits` are what this target explores.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use cpu_time::ThreadTime;

use libfuzzer_sys::fuzz_target;
use typo_generators::{Data, MAX_NAME_LEN, Registry};

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
    let start = ThreadTime::now();
    let set = task.expect(name);
    let took = start.elapsed();
    let bytes: usize = set.iter().map(|v| v.as_bytes().len()).sum();
    assert!(
        set.windows(2).all(|w| w[0] < w[1]),
        "{}: not sorted and unique",
        task.id
    );
    assert!(
        set.iter()
            .all(|v| !v.is_empty() && v.as_bytes() != name.as_bytes()),
        "{}: holds \"\" or the input",
        task.id
    );
    // Bounded time, counted as this thread's CPU time (wall time on a shared 2-core machine
    // measures the neighbours): CAPKIT_FUZZ_MAX_MS per call plus CAPKIT_FUZZ_NS_PER_BYTE per
    // byte of output. A fixed bound alone cannot hold: `cns`/`ons` legitimately walk up to
    // 65,536 variants (75 MB for the worst 253-byte name, 0.3 s in release, 2-3 s in this
    // instrumented build), so what the law bounds is the cost of each byte produced, which is
    // what a super-linear walk breaks (the walk takes 4-5 ns per output byte in release, 35-40
    // in this build, on its worst names). The long runs use 200 ms and 100 ns/byte, with
    // -timeout=10 (a legitimate worst case takes seconds here) and
    // -entropic_scale_per_exec_time=1 (fewer re-mutations of the slow walks); the defaults are
    // looser for the CI smoke run on a loaded machine.
    let var = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let budget = Duration::from_millis(var("CAPKIT_FUZZ_MAX_MS", 1000))
        + Duration::from_nanos(var("CAPKIT_FUZZ_NS_PER_BYTE", 400).saturating_mul(bytes as u64));
    assert!(
        took <= budget,
        "{} took {took:?} of CPU for {} variants, {bytes} output bytes (budget {budget:?})",
        task.id,
        set.len()
    );
    // Deterministic (the second call only for sets under 1,024 variants: repeating a long
    // numeral walk doubles the time of the slowest inputs; the walk's determinism is also a
    // unit test of typo-generators).
    if set.len() < 1024 {
        assert_eq!(task.expect(name), set, "{}: not deterministic", task.id);
    }
});
