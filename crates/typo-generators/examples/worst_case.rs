//! Worst cases per task at the maximum name length: for adversarial names of
//! [`MAX_NAME_LEN`](typo_generators::MAX_NAME_LEN) bytes (every numeral word, every digit, one letter
//! repeated, dots and hyphens, IDN letters, homoglyph-rich text), the largest expected set, its
//! bytes (and the task's output estimate, as JSON, for that input), and the slowest generation,
//! per task, with the shipped English data and QWERTY.
//! The figures documented in `limits` come from here.
//!
//! Times are this thread's CPU time, so a loaded machine inflates them less than wall time.
//!
//! `cargo run --release -p capkit-typo-generators --example worst_case`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use typo_generators::{Data, MAX_NAME_LEN, Registry};

/// `seed` repeated and cut to at most `MAX_NAME_LEN` bytes on a char boundary.
fn fill(seed: &str) -> String {
    let mut s = String::new();
    for c in seed.chars().cycle() {
        if s.len() + c.len_utf8() > MAX_NAME_LEN {
            break;
        }
        s.push(c);
    }
    s
}

/// Runs `f`, returning its result and this thread's CPU time for it.
fn timed<T>(f: impl FnOnce() -> T) -> (T, std::time::Duration) {
    let start = cpu_time::ThreadTime::now();
    let value = f();
    (value, start.elapsed())
}

fn main() {
    let data = Data::english();
    let registry = Registry::new(&data);
    let mut words: Vec<String> = data.numerals.values().flatten().cloned().collect();
    words.sort_by_key(|w| w.len());
    let mut keys: Vec<String> = data.numerals.keys().cloned().collect();
    keys.sort_by_key(|k| k.len());
    let inputs = [
        ("numeral words", fill(&words.concat())),
        ("numeral words, dotted", fill(&words.join("."))),
        ("digit keys", fill(&keys.concat())),
        ("digits", fill("0123456789")),
        ("one letter", fill("a")),
        ("letters", fill("abcdefghijklmnopqrstuvwxyz")),
        ("vowels and hyphens", fill("ae-io.u")),
        ("dots and hyphens", fill("a.b-")),
        ("IDN", fill("bücher-ñandú.日本")),
        ("homoglyph-rich", fill("oli1-rn.cl0")),
        // Found by the generators fuzz target: digit runs with overlapping numerals everywhere.
        (
            "digit runs",
            fill("1111111111100000000005349197369905425065"),
        ),
    ];
    println!(
        "{:<4} {:>9} {:>12} {:>12} {:>10}  worst input (by bytes)",
        "task", "variants", "bytes", "estimate", "ms"
    );
    for task in &registry {
        let (mut variants, mut bytes, mut ms, mut worst) = (0usize, 0usize, 0f64, "");
        let mut estimate = 0u64;
        for (label, name) in &inputs {
            let (set, took) = timed(|| task.expect(name));
            let took = took.as_secs_f64() * 1e3;
            let size: usize = set.iter().map(|v| v.as_bytes().len()).sum();
            variants = variants.max(set.len());
            ms = ms.max(took);
            if size >= bytes {
                bytes = size;
                worst = label;
                estimate = task.output_estimate(name);
            }
        }
        println!(
            "{:<4} {variants:>9} {bytes:>12} {estimate:>12} {ms:>10.1}  {worst}",
            task.id
        );
    }
}
