//! The seeded simulation of issue 38: a planted two-predicate slice is ranked first, and null
//! ledgers report no slice, at the stated rates. CI runs 40 + 40 datasets; the full 200 + 200
//! is `#[ignore]`d (`cargo test -p capkit-slices --release -- --ignored`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use slices::{Options, find_slices_in};

/// splitmix64: a seeded generator with no dependency, the same on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const TEXTS: usize = 5_000;
const BASE_RATE: f64 = 0.08;

/// A clean-stage ledger of `TEXTS` texts: words of a 300-word vocabulary (frequent words
/// first), `alpha` and `beta` each in about 22 % of the texts, independently (both: about
/// 5 %). With `planted`, a text holding both disagrees at 3 × the base rate.
fn ledger(seed: u64, planted: bool) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for id in 1..=TEXTS {
        let len = 3 + (rng.next() % 23) as usize;
        let mut words: Vec<String> = (0..len)
            .map(|_| format!("w{}", (300.0 * rng.unit() * rng.unit()) as usize))
            .collect();
        let alpha = rng.unit() < 0.22;
        let beta = rng.unit() < 0.22;
        if alpha {
            words.insert((rng.next() as usize) % words.len(), "alpha".into());
        }
        if beta {
            words.insert((rng.next() as usize) % words.len(), "beta".into());
        }
        let rate = if planted && alpha && beta {
            3.0 * BASE_RATE
        } else {
            BASE_RATE
        };
        let agree = rng.unit() >= rate;
        let teacher = if rng.unit() < 0.5 { "pos" } else { "neg" };
        let student = match (agree, teacher) {
            (true, t) => t,
            (false, "pos") => "neg",
            (false, _) => "pos",
        };
        let line = serde_json::json!({
            "id": id, "key": format!("{:016x}", rng.next()), "stage": "clean", "kind": "clean",
            "text": words.join(" "), "student": student, "teacher": teacher, "agree": agree,
        });
        serde_json::to_writer(&mut out, &line).unwrap();
        out.push(b'\n');
    }
    out
}

/// Over `datasets` seeds: how many rank the planted slice first, and how many null ledgers
/// report any slice (at BH, q = 0.05).
fn simulate(datasets: u64) -> (usize, usize) {
    let options = Options::default();
    let mut first = 0;
    let mut null_any = 0;
    for seed in 0..datasets {
        let report = find_slices_in(&ledger(1000 + seed, true), "planted", &options).unwrap();
        let top = report.stages.0[0].1.first().map(|s| s.name.as_str());
        first += usize::from(top == Some("token:alpha & token:beta"));
        let report = find_slices_in(&ledger(900_000 + seed, false), "null", &options).unwrap();
        null_any += usize::from(!report.stages.0[0].1.is_empty());
    }
    (first, null_any)
}

#[test]
fn planted_slice_first_and_null_quiet_ci_sized() {
    let (first, null_any) = simulate(40);
    eprintln!("40 datasets: planted first in {first}, null reporting a slice in {null_any}");
    assert!(first >= 38, "planted slice first in {first} of 40");
    assert!(
        null_any <= 2,
        "{null_any} of 40 null datasets report a slice"
    );
}

#[test]
#[ignore = "the full simulation of issue 38 (200 + 200 datasets): run with --release -- --ignored"]
fn planted_slice_first_and_null_quiet_full() {
    let (first, null_any) = simulate(200);
    eprintln!("200 datasets: planted first in {first}, null reporting a slice in {null_any}");
    assert!(first >= 190, "planted slice first in {first} of 200");
    assert!(
        null_any <= 10,
        "{null_any} of 200 null datasets report a slice"
    );
}

#[test]
fn one_planted_dataset_in_detail() {
    let report = find_slices_in(&ledger(1000, true), "planted", &Options::default()).unwrap();
    let top: Vec<_> = report.stages.0[0]
        .1
        .iter()
        .map(|s| (s.name.clone(), s.log10_adjusted_p))
        .collect();
    eprintln!(
        "tested {} candidates {} conjunctions {}: {top:?}",
        report.tested, report.candidates, report.conjunctions
    );
    let report = find_slices_in(&ledger(900_000, false), "null", &Options::default()).unwrap();
    let top: Vec<_> = report.stages.0[0]
        .1
        .iter()
        .map(|s| (s.name.clone(), s.log10_adjusted_p))
        .collect();
    eprintln!("null: {top:?}");
}
