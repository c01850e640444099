//! Laws of the paired statistics and the F1 interval's coverage.
//!
//! * No paired test anywhere shows an interval excluding 0 beside a test called not significant
//!   (or the reverse): on random 2×2 tables alone, and in random families after Holm's
//!   correction, which also never lowers a p-value; in families holding prediction-powered
//!   (sampled) differences too, which are re-estimated at their Holm step's level.
//! * The reports' F1 interval covers the true micro F1 at about its level in a seeded
//!   simulation, including the near-perfect regime where every text often scores 1.0 and the
//!   delta-method interval collapses to zero width.
//! * Issue 35: "the interval excludes 0" equals `significant` equals "`p` < 1 − level" for
//!   full and sampled tests (both kinds of sampled difference, as reports and `compare` pairs
//!   have them) and whole sampled reports, tables whose p underflows a double included; no `p`
//!   is 0 and every `log10_p` is finite; equal tables in one family get equal `p` and intervals.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use profile_stats::{
    ClassifyCounts, ClassifySample, CorruptionInfo, Counts, FieldSums, Level, PairedTable,
    PairedTest, PpiSums, ProfileReport, SMALLEST_P, SampleDesign, SampleRepeats, SampledDifference,
    SuiteDescriptor, adjust_family, f1_delta_interval, f1_interval, f1_text_interval, paired_test,
    sampled_test, wilson,
};
use proptest::prelude::*;
use serde_json::Value;

fn table() -> impl Strategy<Value = PairedTable> {
    let cells = |(both, first_only, second_only, neither)| PairedTable {
        both,
        first_only,
        second_only,
        neither,
    };
    // Small counts (where the asymptotics are least comfortable) and large ones.
    prop_oneof![
        (0u64..8, 0u64..8, 0u64..8, 0u64..8).prop_map(cells),
        (0u64..300, 0u64..40, 0u64..40, 0u64..300).prop_map(cells),
        // z up to about 300: p far below the smallest double (issue 35).
        (0u64..10, 0u64..90_000, 0u64..5, 0u64..10).prop_map(cells),
    ]
}

fn level() -> impl Strategy<Value = Level> {
    prop_oneof![Just(0.95), Just(0.9), Just(0.99), Just(0.5)].prop_map(|l| Level::new(l).unwrap())
}

fn agrees(t: &PairedTest, level: Level) -> Result<(), TestCaseError> {
    let excludes = t.difference.lower > 0.0 || t.difference.upper < 0.0;
    prop_assert_eq!(t.significant, t.p < 1.0 - level.get());
    prop_assert_eq!(
        excludes,
        t.significant,
        "interval [{}, {}] beside p = {} ({:?})",
        t.difference.lower,
        t.difference.upper,
        t.p,
        t.table
    );
    prop_assert!(t.difference.lower <= t.difference.upper);
    if let Some(d) = t.difference.estimate {
        prop_assert!(t.difference.lower <= d && d <= t.difference.upper);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn a_test_and_its_interval_never_contradict_each_other(t in table(), level in level()) {
        agrees(&paired_test(&t, level), level)?;
    }

    #[test]
    fn holm_adjusted_families_never_contradict_themselves(
        tables in prop::collection::vec(table(), 1..30),
        level in level(),
    ) {
        let mut tests: Vec<PairedTest> = tables.iter().map(|t| paired_test(t, level)).collect();
        let mut family: Vec<&mut PairedTest> = tests.iter_mut().collect();
        adjust_family(&mut family, level);
        for t in &tests {
            agrees(t, level)?;
            prop_assert!(t.p >= t.p_unadjusted);
            prop_assert_eq!(t.adjustment.family, tables.len());
        }
    }
}

/// The sums of a sampled mean: labelled (y, ŷ) pairs and unlabelled ŷ, outcomes in `values`.
fn sample_sums(values: std::ops::RangeInclusive<i64>) -> impl Strategy<Value = PpiSums> {
    sample_sums_sized(values, false)
}

fn sampled() -> impl Strategy<Value = SampledDifference> {
    prop_oneof![
        (sample_sums(0..=1), 0.0f64..=1.0).prop_map(|(sums, x)| SampledDifference {
            sums,
            minus_from: Some(x)
        }),
        sample_sums(-1..=1).prop_map(|sums| SampledDifference {
            sums,
            minus_from: None
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// A family mixing Tango tests and sampled (PPI++) differences: no interval excludes 0
    /// beside a test called not significant; each sampled difference is its estimate at the
    /// level of its Holm step (widened to 0 only when not significant), never narrower than at
    /// the report's level.
    #[test]
    fn sampled_differences_are_relevelled_at_their_holm_step(
        tables in prop::collection::vec(table(), 1..20),
        samples in prop::collection::vec(sampled(), 1..10),
        level in level(),
    ) {
        let mut tests: Vec<PairedTest> = tables.iter().map(|t| paired_test(t, level)).collect();
        for (k, s) in samples.iter().enumerate() {
            let mut t = paired_test(&tables[k % tables.len()], level);
            t.difference = s.interval(level);
            t.sampled = Some(*s);
            tests.push(t);
        }
        let mut family: Vec<&mut PairedTest> = tests.iter_mut().collect();
        adjust_family(&mut family, level);
        for t in &tests {
            prop_assert!(t.p >= t.p_unadjusted);
            prop_assert_eq!(t.significant, t.p < 1.0 - level.get());
            let d = t.difference;
            if d.estimate.is_some() && (d.lower > 0.0 || d.upper < 0.0) {
                prop_assert!(t.significant, "[{}, {}] beside p = {}", d.lower, d.upper, t.p);
            }
            match t.sampled {
                Some(s) => {
                    prop_assert!(d.level >= level.get());
                    let fresh = s.interval(Level::new(d.level).unwrap());
                    let widened = d.estimate.is_some() && !t.significant;
                    prop_assert_eq!(d.lower, if widened { fresh.lower.min(0.0) } else { fresh.lower });
                    prop_assert_eq!(d.upper, if widened { fresh.upper.max(0.0) } else { fresh.upper });
                    let base = s.interval(level);
                    prop_assert!(d.lower <= base.lower && d.upper >= base.upper);
                }
                None => agrees(t, level)?,
            }
        }
    }
}

/// Re-levelling changes something: in a family of many, a sampled difference's interval is at
/// a Holm step's level above the report's, and wider than it was.
#[test]
fn a_sampled_difference_in_a_family_is_wider_than_alone() {
    let level = Level::DEFAULT;
    let mut sums = PpiSums::default();
    for k in 0..60 {
        sums.record_labelled(i64::from(k % 3 == 0), i64::from(k % 4 == 0));
    }
    for k in 0..400 {
        sums.record_unlabelled(i64::from(k % 4 == 0));
    }
    let s = SampledDifference {
        sums,
        minus_from: Some(0.9),
    };
    let table = PairedTable {
        both: 50,
        first_only: 3,
        second_only: 2,
        neither: 5,
    };
    let mut tests: Vec<PairedTest> = (0..10).map(|_| paired_test(&table, level)).collect();
    tests[0].difference = s.interval(level);
    tests[0].sampled = Some(s);
    let mut family: Vec<&mut PairedTest> = tests.iter_mut().collect();
    adjust_family(&mut family, level);
    let alone = s.interval(level);
    let d = tests[0].difference;
    assert!((d.level - (1.0 - 0.05 / 10.0)).abs() < 1e-12, "{}", d.level);
    assert!(
        d.upper - d.lower > alone.upper - alone.lower + 0.01,
        "{d:?} vs {alone:?}"
    );
}

/// As [`sample_sums`], up to 40 labelled texts, or up to 400 when `big`.
fn sample_sums_sized(
    values: std::ops::RangeInclusive<i64>,
    big: bool,
) -> impl Strategy<Value = PpiSums> {
    let labelled = if big { 0..400usize } else { 0..40 };
    // A distinct text's lines: mostly 1; sometimes repeated (the distinct text is the unit).
    let count = || prop_oneof![3 => Just(1u64), 1 => 1u64..60];
    (
        prop::collection::vec((values.clone(), values.clone(), count()), labelled),
        prop::collection::vec((values, count()), 0..200),
    )
        .prop_map(|(labelled, unlabelled)| {
            let mut s = PpiSums::default();
            for &(y, h, c) in &labelled {
                s.record_texts(Some(y), h, c, c * c);
            }
            for &(h, c) in &unlabelled {
                s.record_texts(None, h, c, c * c);
            }
            s
        })
}

fn sampled_wide() -> impl Strategy<Value = SampledDifference> {
    prop_oneof![
        (sample_sums_sized(0..=1, false), 0.0f64..=1.0).prop_map(|(sums, x)| SampledDifference {
            sums,
            minus_from: Some(x)
        }),
        (
            sample_sums_sized(0..=1, true),
            prop_oneof![Just(0.0), Just(1.0), 0.0f64..=1.0]
        )
            .prop_map(|(sums, x)| SampledDifference {
                sums,
                minus_from: Some(x)
            }),
        sample_sums_sized(-1..=1, false).prop_map(|sums| SampledDifference {
            sums,
            minus_from: None
        }),
        sample_sums_sized(-1..=1, true).prop_map(|sums| SampledDifference {
            sums,
            minus_from: None
        }),
    ]
}

fn lawful(t: &PairedTest, level: Level) -> Result<(), TestCaseError> {
    let d = t.difference;
    let excludes = d.lower > 0.0 || d.upper < 0.0;
    prop_assert_eq!(t.significant, t.p < 1.0 - level.get());
    prop_assert_eq!(
        excludes,
        t.significant,
        "[{}, {}] beside p = {} ({:?})",
        d.lower,
        d.upper,
        t.p,
        t.sampled
    );
    prop_assert!(t.p > 0.0 && t.p <= 1.0 && t.p_unadjusted > 0.0);
    prop_assert!(t.p >= t.p_unadjusted);
    for l in [t.log10_p, t.log10_p_unadjusted] {
        prop_assert!(l.is_finite() && l <= 0.0, "log10 p = {}", l);
    }
    prop_assert!(t.log10_p >= t.log10_p_unadjusted);
    // p and its logarithm are the same number (p floored at the smallest double).
    if t.log10_p > -300.0 {
        prop_assert!((t.p.log10() - t.log10_p).abs() <= 1e-9 * t.log10_p.abs().max(1.0));
    } else if t.log10_p < -324.0 {
        prop_assert_eq!(t.p, SMALLEST_P);
    }
    prop_assert!(d.lower <= d.upper);
    if let Some(e) = d.estimate {
        prop_assert!(d.lower <= e && e <= d.upper);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn families_of_full_and_sampled_tests_never_contradict_themselves(
        tables in prop::collection::vec(table(), 1..20),
        samples in prop::collection::vec(sampled_wide(), 0..10),
        level in level(),
    ) {
        let mut tests: Vec<PairedTest> = tables.iter().map(|t| paired_test(t, level)).collect();
        for (k, s) in samples.iter().enumerate() {
            let t = sampled_test(&tables[k % tables.len()], *s, level);
            lawful(&t, level)?;
            tests.push(t);
        }
        for t in &tests {
            lawful(t, level)?;
        }
        let mut family: Vec<&mut PairedTest> = tests.iter_mut().collect();
        adjust_family(&mut family, level);
        for t in &tests {
            lawful(t, level)?;
        }
    }

    /// Copies of one table anywhere in a family: one p, one interval, one level.
    #[test]
    fn equal_tables_get_equal_p_and_equal_intervals(
        tables in prop::collection::vec(table(), 1..12),
        copies in prop::collection::vec(0usize..20, 2..6),
        which in 0usize..12,
        level in level(),
    ) {
        let mut all: Vec<PairedTable> = tables.clone();
        let repeated = tables[which % tables.len()];
        for &at in &copies {
            all.insert(at.min(all.len()), repeated);
        }
        let mut tests: Vec<PairedTest> = all.iter().map(|t| paired_test(t, level)).collect();
        let mut family: Vec<&mut PairedTest> = tests.iter_mut().collect();
        adjust_family(&mut family, level);
        let same: Vec<&PairedTest> = tests.iter().filter(|t| t.table == repeated).collect();
        for t in &same {
            prop_assert_eq!(t.p, same[0].p);
            prop_assert_eq!(t.log10_p, same[0].log10_p);
            prop_assert_eq!(t.difference, same[0].difference);
        }
    }
}

/// The table: z = 59.9 printed `p: 0.0`, and two such tables got different levels.
#[test]
fn a_huge_statistic_keeps_a_positive_p_and_its_logarithm() {
    let level = Level::DEFAULT;
    // z = 3588 / sqrt(3588) = 59.9.
    let t = PairedTable {
        both: 10,
        first_only: 3588,
        second_only: 0,
        neither: 10,
    };
    let mut tests = vec![paired_test(&t, level), paired_test(&t, level)];
    tests.push(paired_test(
        &PairedTable {
            first_only: 4000,
            ..t
        },
        level,
    ));
    assert!(
        tests[0].p > 0.0 && tests[0].log10_p < -780.0,
        "{:?}",
        tests[0]
    );
    let mut family: Vec<&mut PairedTest> = tests.iter_mut().collect();
    adjust_family(&mut family, level);
    assert_eq!(tests[0], tests[1]);
    // Ranked by the statistic: the larger one is adjusted by the full family of 3.
    let three = 3f64.log10();
    assert!((tests[2].log10_p - (tests[2].log10_p_unadjusted + three)).abs() < 1e-9);
    assert!(tests[0].log10_p < -780.0 && tests[0].p == SMALLEST_P);
    let json = serde_json::to_value(tests[0]).unwrap();
    assert!(json["log10_p"].as_f64().unwrap() < -780.0);
}

/// One text of a sampled classifier profile: clean agreement, per corruption (observed
/// agreement, surrogate), the invariance's (student changed, teacher changed), in the sample.
type SampledText = (bool, [(bool, bool); 2], (bool, bool), bool);

fn sampled_report(texts: &[SampledText]) -> ProfileReport {
    sampled_report_repeated(&texts.iter().map(|&t| (t, 1)).collect::<Vec<_>>())
}

/// [`sampled_report`] of distinct texts each repeated `c` times (its lines in or out of the
/// sample together), with the sample's repeat counts (`Σ c²`) as the engine writes them.
fn sampled_report_repeated(texts: &[(SampledText, u64)]) -> ProfileReport {
    let design = SampleDesign {
        fraction: 0.1,
        seed: 1,
    };
    let mut c = ClassifyCounts::new(["a", "b"], ["case"], None);
    let mut s = ClassifySample::new(design, ["a", "b"], ["case"]);
    let mut units = SampleRepeats::new(["a", "b"], ["case"]);
    for &((clean, stages, (student, teacher), sampled), n) in texts {
        let q = n * n;
        c.record_clean_n(clean, n);
        units.all += q;
        for (k, &(observed, surrogate)) in ["a", "b"].iter().zip(&stages) {
            let sc = &mut s.corruptions[*k];
            sc.surrogate += n * u64::from(surrogate);
            units.corruptions[*k].surrogate += q * u64::from(surrogate);
            if sampled {
                sc.labelled.record_n(observed, surrogate, n);
                units.corruptions[*k]
                    .labelled
                    .record_n(observed, surrogate, q);
                c.corruptions[*k].agree.record_n(clean, observed, n);
            }
        }
        s.invariances["case"].student_changed += n * u64::from(student);
        units.invariances["case"].surrogate += q * u64::from(student);
        if sampled {
            c.invariances["case"].changed.record_n(student, teacher, n);
            units.invariances["case"]
                .labelled
                .record_n(teacher, student, q);
            units.labelled += q;
        }
        s.labelled += n * u64::from(sampled);
    }
    s.repeats = (units.all != c.n).then_some(units);
    c.sample = Some(s);
    let suite = SuiteDescriptor {
        fingerprint: None,
        corruptions: ["a", "b"]
            .iter()
            .map(|n| CorruptionInfo {
                name: (*n).into(),
                family: None,
                severity: None,
                reference: Default::default(),
                ..Default::default()
            })
            .collect(),
        invariances: vec!["case".into()],
        probes: 0,
        transforms: None,
        probe_texts: None,
        invariance_meta: Default::default(),
    };
    ProfileReport::new(suite, Counts::Classify(c), None)
}

fn tests_of(json: &Value, out: &mut Vec<Value>) {
    match json {
        Value::Object(o) => {
            if o.contains_key("significant") {
                out.push(json.clone());
            }
            o.values().for_each(|v| tests_of(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| tests_of(v, out)),
        _ => {}
    }
}

fn sampled_text() -> impl Strategy<Value = SampledText> {
    (
        any::<bool>(),
        any::<[(bool, bool); 2]>(),
        any::<(bool, bool)>(),
        prop_oneof![3 => Just(false), 1 => Just(true)],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whole sampled reports, read as a reviewer reads them (the JSON): the laws hold in it.
    #[test]
    fn sampled_reports_never_contradict_themselves(
        texts in prop::collection::vec(
            (sampled_text(), prop_oneof![3 => Just(1u64), 1 => 1u64..40]),
            0..300,
        ),
    ) {
        let report = sampled_report_repeated(&texts);
        report.validate().unwrap();
        // It reads back as written (the repeat counts included).
        prop_assert_eq!(&ProfileReport::from_json(&report.to_json()).unwrap(), &report);
        let json = report.to_json();
        let mut tests = Vec::new();
        tests_of(&json, &mut tests);
        prop_assert_eq!(tests.len(), 3);
        for t in &tests {
            let f = |k: &str| t[k].as_f64();
            let d = &t["difference"];
            let (lower, upper) = (d["lower"].as_f64().unwrap(), d["upper"].as_f64().unwrap());
            let significant = t["significant"].as_bool().unwrap();
            let p = f("p").unwrap();
            prop_assert!(p > 0.0 && f("log10_p").unwrap().is_finite());
            prop_assert_eq!(significant, p < 0.05);
            prop_assert_eq!(significant, lower > 0.0 || upper < 0.0, "{}", t);
        }
    }
}

mod common;
use common::Rng;

/// Successes of `trials` draws of probability `p`.
fn binomial(rng: &mut Rng, trials: u64, p: f64) -> u64 {
    (0..trials).filter(|_| rng.chance(p)).count() as u64
}

/// Coverage of both F1 intervals over `runs` simulated profiles of `n` texts with `fields`
/// fields each, each missed with probability `miss`, and up to two invented fields per text.
fn coverage(n: u64, fields: u64, miss: f64, runs: u32, seed: u64) -> (f64, f64) {
    // E[tp] = fields (1 − miss), E[fn] = fields·miss, E[fp] = 2·(miss/2).
    let (tp, fn_, fp) = (fields as f64 * (1.0 - miss), fields as f64 * miss, miss);
    let truth = 2.0 * tp / (2.0 * tp + fp + fn_);
    let mut rng = Rng(seed);
    let (mut ours, mut delta) = (0u32, 0u32);
    for _ in 0..runs {
        let mut sums = FieldSums::default();
        for _ in 0..n {
            let tp = binomial(&mut rng, fields, 1.0 - miss);
            sums.record(tp, binomial(&mut rng, 2, miss / 2.0), fields - tp);
        }
        let covers = |i: profile_stats::Interval| i.lower <= truth && truth <= i.upper;
        ours += u32::from(covers(f1_interval(&sums, n, Level::DEFAULT)));
        delta += u32::from(covers(f1_delta_interval(&sums, n, Level::DEFAULT)));
    }
    (
        f64::from(ours) / f64::from(runs),
        f64::from(delta) / f64::from(runs),
    )
}

#[test]
fn f1_interval_covers_at_about_its_level_where_the_delta_method_collapses() {
    // (n, fields, miss): ordinary, small, and near-perfect regimes.
    let mut report = Vec::new();
    for (i, (n, fields, miss)) in [
        (20, 4, 0.1),
        (100, 12, 0.3),
        (200, 1, 0.5),
        (50, 3, 0.002),
        (400, 3, 0.0005),
    ]
    .into_iter()
    .enumerate()
    {
        let (ours, delta) = coverage(n, fields, miss, 1500, 0x5eed + i as u64);
        report.push(format!(
            "n={n} fields={fields} miss={miss}: {ours:.3} (delta method {delta:.3})"
        ));
        // 1,500 runs: a binomial standard error of about 0.6 points at 95 %.
        assert!(ours >= 0.93, "{report:?}");
    }
    eprintln!("F1 coverage at 95 %:\n  {}", report.join("\n  "));
    // The regime that motivated the change: the delta method's intervals collapse.
    let (_, delta) = coverage(50, 3, 0.002, 1500, 0x5eed + 3);
    assert!(delta < 0.85, "the delta method covers {delta} there");
}

/// A teacher sample that drew no text: every estimated figure is `null` with the reason, in
/// the figures and in the bare profile, never the student's own figures (issue 35: a teacher
/// violation rate of 0.6 where the full run said 0).
#[test]
fn a_report_without_a_sampled_text_marks_its_estimates_unavailable() {
    // Ten texts, none sampled; the student changes its answer on six of them.
    let texts: Vec<SampledText> = (0..10)
        .map(|k| (true, [(true, k % 2 == 0); 2], (k < 6, false), false))
        .collect();
    let report = sampled_report(&texts);
    report.validate().unwrap();
    let json = report.to_json();
    let case = &json["invariances"]["case"];
    assert_eq!(case["teacher_violation"]["estimate"], Value::Null);
    assert_eq!(case["student_violation"]["estimate"], 0.6);
    assert!(
        case["estimated"]["unavailable"]
            .as_str()
            .unwrap()
            .contains("no text was sampled")
    );
    assert_eq!(
        case["student_vs_teacher"]["difference"]["estimate"],
        Value::Null
    );
    assert_eq!(case["student_vs_teacher"]["p"], 1.0);
    assert_eq!(case["student_vs_teacher"]["significant"], false);
    let a = &json["corruptions"]["a"];
    assert_eq!(a["agreement"]["estimate"], Value::Null);
    assert!(a["estimated"]["unavailable"].is_string());
    let profile = &json["profile"];
    assert_eq!(
        profile["invariances"]["case"]["teacher_violation_rate"],
        Value::Null
    );
    assert_eq!(
        profile["invariances"]["case"]["student_violation_rate"],
        0.6
    );
    assert_eq!(profile["corruptions"]["a"], Value::Null);
    assert_eq!(profile["clean_agreement"], 1.0);
    // With a sampled text, no reason is given.
    let mut one = texts.clone();
    one[0].3 = true;
    let json = sampled_report(&one).to_json();
    assert_eq!(
        json["invariances"]["case"]["estimated"].get("unavailable"),
        None
    );
    assert!(json["profile"]["invariances"]["case"]["teacher_violation_rate"].is_number());
}

/// Micro F1 coverage of the reports' interval (`f1_text_interval`) and of the earlier one
/// (`f1_interval`) at few texts with errors spread over fields or clustered in a few texts
/// (issue 35: 81–91 % at n = 5–50 when errors cluster). `fields` per text; spread: each field
/// missed with probability 0.1 (`bad` = 0); clustered: a text is bad with probability `bad` and then
/// misses each field with probability 0.8 (else 0.01). The truth is the superpopulation micro
/// F1, 2E[tp] / (2E[tp] + E[fp] + E[fn]). Returns (ours, earlier).
fn f1_cluster_coverage(n: u64, bad: f64, runs: u32, seed: u64) -> (f64, f64) {
    let fields = 4u64;
    let clustered = bad > 0.0;
    let miss = 0.1;
    let p_miss = |is_bad: bool| match (clustered, is_bad) {
        (false, _) => miss,
        (true, true) => 0.8,
        (true, false) => 0.01,
    };
    // E[fn] per text and E[fp] (one invented field with probability miss/2 per text).
    let e_fn = fields as f64
        * if clustered {
            bad * 0.8 + (1.0 - bad) * 0.01
        } else {
            miss
        };
    let e_tp = fields as f64 - e_fn;
    let e_fp = if clustered {
        bad * 0.8 + (1.0 - bad) * 0.01
    } else {
        miss
    };
    let truth = 2.0 * e_tp / (2.0 * e_tp + e_fp + e_fn);
    let mut rng = Rng(seed);
    let (mut ours, mut earlier) = (0u32, 0u32);
    for _ in 0..runs {
        let mut sums = FieldSums::default();
        for _ in 0..n {
            let is_bad = clustered && rng.chance(bad);
            let m = p_miss(is_bad);
            let tp = binomial(&mut rng, fields, 1.0 - m);
            sums.record(tp, u64::from(rng.chance(m)), fields - tp);
        }
        let covers = |i: profile_stats::Interval| i.lower <= truth && truth <= i.upper;
        ours += u32::from(covers(f1_text_interval(&sums, n, Level::DEFAULT)));
        earlier += u32::from(covers(f1_interval(&sums, n, Level::DEFAULT)));
    }
    (
        f64::from(ours) / f64::from(runs),
        f64::from(earlier) / f64::from(runs),
    )
}

fn f1_cluster_grid(runs: u32, at_least: f64) {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (i, n) in [5u64, 10, 50, 500].into_iter().enumerate() {
        for bad in [0.0, 0.1, 0.03] {
            let runs = if n == 500 { runs / 5 } else { runs };
            let (ours, earlier) = f1_cluster_coverage(n, bad, runs, 0xf1 + i as u64);
            let kind = if bad > 0.0 {
                format!("clustered in {bad} of texts")
            } else {
                "spread".into()
            };
            report.push(format!(
                "n={n} {kind}: {ours:.3} (earlier interval {earlier:.3})"
            ));
            // Clusters in 3 % of texts at n = 50 (1.5 bad texts expected, none in 22 % of the
            // samples) are a known limit: no interval computed from such a sample sees them
            // (measured 0.870, earlier interval 0.846); printed, not asserted.
            if ours < at_least && !(bad == 0.03 && n == 50) {
                failures.push(format!("n={n} {kind}: {ours}"));
            }
        }
    }
    eprintln!("F1 coverage at 95 %:\n  {}", report.join("\n  "));
    assert!(failures.is_empty(), "{failures:?}\n{report:?}");
}

#[test]
fn f1_text_interval_covers_with_clustered_errors() {
    // 1,000 runs a cell (200 at n = 500): a binomial standard error of 0.7 points at 95 %.
    f1_cluster_grid(1000, 0.93);
}

#[test]
#[ignore = "a few seconds in release: cargo test --release -p capkit-profile-stats --test consistency -- --ignored"]
fn f1_text_interval_covers_with_clustered_errors_full() {
    f1_cluster_grid(10_000, 0.935);
}

/// Three perfect texts: not [0.824, 1] (Wilson over the nine fields) but at least as wide as
/// the exact-match interval of three texts.
#[test]
fn perfect_texts_never_claim_more_than_their_exact_matches() {
    for n in [2u64, 3, 5, 10, 100] {
        let mut perfect = FieldSums::default();
        perfect.record_n(3, 0, 0, n);
        let i = f1_text_interval(&perfect, n, Level::DEFAULT);
        let exact = wilson(n, n, Level::DEFAULT);
        assert!(
            i.lower <= exact.lower && i.upper == 1.0,
            "n={n}: {i:?} vs {exact:?}"
        );
        assert_eq!(i.estimate, Some(1.0));
    }
}

/// Student's t critical values against the tables (scipy.stats.t.ppf(0.975, df)).
#[test]
fn t_critical_values_match_the_tables() {
    use profile_stats::t_critical;
    for (df, want) in [
        (1, 12.706_204_736),
        (3, 3.182_446_305),
        (4, 2.776_445_105),
        (9, 2.262_157_163),
        (49, 2.009_575_237),
        (499, 1.964_729_6),
    ] {
        let got = t_critical(Level::DEFAULT, df);
        assert!((got - want).abs() < 2e-3, "df {df}: {got} vs {want}");
    }
    assert!(t_critical(Level::DEFAULT, 0).is_infinite());
}

/// Repeat counts that cannot shadow their line counts (`Σ c²` below `Σ c`, cells that do not
/// add up) are refused with the field named.
#[test]
fn inconsistent_repeat_counts_are_refused() {
    let text = (true, [(true, true), (false, true)], (true, false), true);
    let report = sampled_report_repeated(&[(text, 3), (text, 1)]);
    let json = report.to_json();
    assert_eq!(json["counts"]["sample"]["repeats"]["all"], 10);
    assert_eq!(ProfileReport::from_json(&json).unwrap(), report);
    let mut low = json.clone();
    low["counts"]["sample"]["repeats"]["all"] = 3.into();
    let err = ProfileReport::from_json(&low).unwrap_err().to_string();
    assert!(err.contains("counts.sample.repeats.all"), "{err}");
    let mut cells = json.clone();
    cells["counts"]["sample"]["repeats"]["corruptions"]["a"]["labelled"]["both"] = 1.into();
    let err = ProfileReport::from_json(&cells).unwrap_err().to_string();
    assert!(err.contains("counts.sample.repeats.a"), "{err}");
}
