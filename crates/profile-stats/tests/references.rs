//! The statistics against their references: statsmodels (fixtures generated once by
//! `fixtures/make_fixtures.py` and committed; Tango's interval against an independent numerical
//! maximisation with scipy), ppi_py (`fixtures/make_ppi_fixtures.py`, likewise)
//! and the worked examples of Newcombe (1998).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use profile_stats::{
    FieldSums, Level, PairedTable, PpiSums, Tuning, bounded_mean_interval, f1_delta_interval,
    f1_interval, holm, mcnemar_exact, mcnemar_score, newcombe_difference, tango_difference, wilson,
};
use serde_json::Value;

fn cases(json: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_str(json).unwrap();
    doc["cases"].as_array().unwrap().clone()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn golden_wilson_matches_statsmodels_proportion_confint() {
    let cases = cases(include_str!("../fixtures/wilson.json"));
    assert!(cases.len() > 200);
    for c in &cases {
        let (k, n, level) = (u(&c["k"]), u(&c["n"]), f(&c["level"]));
        let i = wilson(k, n, Level::new(level).unwrap());
        for (got, want) in [(i.lower, f(&c["lower"])), (i.upper, f(&c["upper"]))] {
            assert!(
                (got - want).abs() <= 1e-13,
                "wilson({k}, {n}, {level}): {got} vs statsmodels {want}"
            );
        }
        assert_eq!(i.estimate, Some(k as f64 / n as f64));
    }
}

#[test]
fn golden_mcnemar_matches_statsmodels_exact() {
    let cases = cases(include_str!("../fixtures/mcnemar.json"));
    assert!(cases.len() > 150);
    for c in &cases {
        let (b, cc, want) = (u(&c["b"]), u(&c["c"]), f(&c["p"]));
        let got = mcnemar_exact(b, cc);
        let ok = if want < 1e-290 {
            got < 1e-280
        } else {
            (got - want).abs() <= 1e-11 * want
        };
        assert!(ok, "mcnemar({b}, {cc}): {got} vs statsmodels {want}");
        assert_eq!(got, mcnemar_exact(cc, b), "symmetric");
    }
}

#[test]
fn golden_f1_delta_interval_matches_statsmodels_nonlinear_delta_cov() {
    let cases = cases(include_str!("../fixtures/ratio.json"));
    assert!(cases.len() > 40);
    for c in &cases {
        let (n, level) = (u(&c["n"]), f(&c["level"]));
        let i = f1_delta_interval(&sums_of(&c["sums"]), n, Level::new(level).unwrap());
        assert_eq!(i.estimate, Some(f(&c["estimate"])), "{}", c["name"]);
        // statsmodels does not clip; the report's interval is clipped to [0, 1].
        for (got, want) in [(i.lower, f(&c["lower"])), (i.upper, f(&c["upper"]))] {
            let want = want.clamp(0.0, 1.0);
            assert!(
                (got - want).abs() <= 1e-12,
                "{} (level {level}): {got} vs statsmodels {want}",
                c["name"]
            );
        }
    }
}

/// Newcombe (1998), Stat Med 17:2635-2650, Table III: the method-10 limits of its worked
/// examples, as printed (four decimals). Cells (a, b, c, d) = both, first only, second only,
/// neither; the difference is (b − c)/n.
type Cells = (u64, u64, u64, u64);

const NEWCOMBE_TABLE_III_METHOD_10: [(Cells, (f64, f64)); 13] = [
    ((36, 12, 2, 0), (0.0569, 0.3404)),
    ((20, 12, 2, 16), (0.0562, 0.3292)),
    ((18, 12, 2, 18), (0.0562, 0.3290)),
    ((36, 14, 0, 0), (0.1528, 0.4167)),
    ((35, 14, 0, 1), (0.1461, 0.4175)),
    ((18, 14, 0, 18), (0.1441, 0.3963)),
    ((2, 97, 1, 0), (0.8721, 0.9854)),
    ((1, 97, 1, 1), (0.8736, 0.9850)),
    ((0, 29, 1, 0), (0.6666, 0.9882)),
    ((2, 98, 0, 0), (0.9178, 0.9945)),
    ((1, 98, 0, 1), (0.9171, 0.9916)),
    ((0, 30, 0, 0), (0.8395, 1.0)),
    ((54, 0, 0, 0), (-0.0664, 0.0664)),
];

#[test]
fn golden_newcombe_method_10_matches_the_papers_worked_examples() {
    for ((a, b, c, d), (lower, upper)) in NEWCOMBE_TABLE_III_METHOD_10 {
        let table = PairedTable {
            both: a,
            first_only: b,
            second_only: c,
            neither: d,
        };
        let i = newcombe_difference(&table, Level::DEFAULT);
        let n = (a + b + c + d) as f64;
        assert_eq!(i.estimate, Some((b as f64 - c as f64) / n));
        // To the printed precision: within one unit of the fourth decimal. Every limit but one
        // rounds to the printed value; (1, 97, 1, 1)'s lower limit is 0.873672, printed 0.8736.
        for (got, printed) in [(i.lower, lower), (i.upper, upper)] {
            assert!(
                (got - printed).abs() < 1e-4,
                "({a}, {b}, {c}, {d}): {got:.6} vs printed {printed}"
            );
        }
        let rounds = format!("{:.4}", i.lower) == format!("{lower:.4}")
            && format!("{:.4}", i.upper) == format!("{upper:.4}");
        assert_eq!(
            rounds,
            (a, b, c, d) != (1, 97, 1, 1),
            "({a}, {b}, {c}, {d})"
        );
    }
}

#[test]
fn newcombe_without_the_continuity_correction_of_phi_would_miss_the_paper() {
    // The correction matters: with the plain phi, example (20, 12, 2, 16) gives 0.0618, not
    // the printed 0.0562. This pins that the implementation applies it.
    let table = PairedTable {
        both: 20,
        first_only: 12,
        second_only: 2,
        neither: 16,
    };
    let i = newcombe_difference(&table, Level::DEFAULT);
    assert_eq!(format!("{:.4}", i.lower), "0.0562");
}

fn values(v: &Value) -> Vec<i64> {
    let s = v.as_str().unwrap();
    s.chars()
        .map(|c| match c {
            '-' => -1,
            '0' => 0,
            '1' => 1,
            other => panic!("unexpected value {other:?}"),
        })
        .collect()
}

#[test]
fn golden_ppi_mean_matches_ppi_py_ppi_mean_ci() {
    let cases = cases(include_str!("../fixtures/ppi.json"));
    assert!(cases.len() > 40);
    let mut clipped = [false; 2];
    for (i, c) in cases.iter().enumerate() {
        let (y, yhat, all) = (values(&c["y"]), values(&c["yhat"]), values(&c["yhat_all"]));
        // The labelled texts are among all texts (a profile's sample), so the sums record every
        // text once, as `all`, and the labelled ones again with their outcome.
        let mut sums = PpiSums::default();
        y.iter()
            .zip(&yhat)
            .for_each(|(&y, &h)| sums.record_labelled(y, h));
        let mut unlabelled = PpiSums::default();
        all.iter().for_each(|&h| unlabelled.record_unlabelled(h));
        sums.all = unlabelled.all;
        sums.yhat_all = unlabelled.yhat_all;
        sums.yhat_yhat_all = unlabelled.yhat_yhat_all;
        let level = Level::new(f(&c["level"])).unwrap();
        let lambda = sums.tuned_lambda();
        clipped[0] |= lambda == 0.0;
        clipped[1] |= lambda == 1.0;
        for (name, tuning) in [
            ("tuned", Tuning::Power),
            ("ppi", Tuning::Fixed(1.0)),
            ("plain", Tuning::Fixed(0.0)),
        ] {
            let got = sums.estimate(tuning, level).unwrap();
            let want = &c[name];
            for (what, g, w) in [
                ("estimate", got.estimate, f(&want["estimate"])),
                ("lower", got.lower, f(&want["lower"])),
                ("upper", got.upper, f(&want["upper"])),
            ] {
                assert!(
                    (g - w).abs() <= 1e-9,
                    "case {i} ({}), {name} {what}: {g} vs ppi_py {w}",
                    c["kind"]
                );
            }
        }
    }
    assert_eq!(clipped, [true, true], "the cases clip lambda at both ends");
}

fn sums_of(s: &Value) -> FieldSums {
    FieldSums {
        tp: u(&s["tp"]),
        fp: u(&s["fp"]),
        fn_: u(&s["fn"]),
        tp_sq: u(&s["tp_sq"]),
        tp_err: u(&s["tp_err"]),
        err_sq: u(&s["err_sq"]),
    }
}

#[test]
fn golden_mcnemar_score_matches_statsmodels_without_correction() {
    let cases = cases(include_str!("../fixtures/mcnemar_score.json"));
    assert!(cases.len() > 140);
    for c in &cases {
        let (b, cc, want) = (u(&c["b"]), u(&c["c"]), f(&c["p"]));
        let (z, got) = mcnemar_score(b, cc);
        let ok = if want < 1e-290 {
            got < 1e-280
        } else {
            (got - want).abs() <= 1e-12 * want
        };
        assert!(ok, "mcnemar_score({b}, {cc}): {got} vs statsmodels {want}");
        assert_eq!(z, -mcnemar_score(cc, b).0, "antisymmetric");
    }
}

#[test]
fn golden_tango_matches_an_independent_scipy_inversion() {
    let cases = cases(include_str!("../fixtures/tango.json"));
    assert!(cases.len() > 200);
    let mut excluded = 0;
    for c in &cases {
        let t: Vec<u64> = c["table"].as_array().unwrap().iter().map(u).collect();
        let table = PairedTable {
            both: t[0],
            first_only: t[1],
            second_only: t[2],
            neither: t[3],
        };
        let level = f(&c["level"]);
        let i = tango_difference(&table, Level::new(level).unwrap());
        // scipy's limits come from a numerical optimum (xatol 1e-14) and brentq (xtol 1e-13).
        for (got, want) in [(i.lower, f(&c["lower"])), (i.upper, f(&c["upper"]))] {
            assert!(
                (got - want).abs() <= 1e-8,
                "tango({t:?}, {level}): {got} vs scipy {want}"
            );
        }
        // The law, against statsmodels' p-value: excludes 0 iff p < alpha.
        let (_, p) = mcnemar_score(table.first_only, table.second_only);
        assert!((p - f(&c["p"])).abs() <= 1e-12 * f(&c["p"]).max(1e-300));
        let excludes = i.lower > 0.0 || i.upper < 0.0;
        assert_eq!(excludes, p < 1.0 - level, "tango({t:?}, {level}): p = {p}");
        excluded += usize::from(excludes);
    }
    assert!(
        excluded > 30 && excluded < cases.len() - 30,
        "both outcomes tested"
    );
}

#[test]
fn golden_holm_matches_statsmodels_multipletests() {
    for c in cases(include_str!("../fixtures/holm.json")) {
        let p: Vec<f64> = c["p"].as_array().unwrap().iter().map(f).collect();
        let want: Vec<f64> = c["holm"].as_array().unwrap().iter().map(f).collect();
        let got = holm(&p);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-15, "holm({p:?}): {got:?} vs {want:?}");
        }
    }
}

#[test]
fn golden_f1_interval_matches_statsmodels_wilson_at_the_effective_size() {
    let cases = cases(include_str!("../fixtures/f1_effective.json"));
    assert!(cases.len() > 40);
    for c in &cases {
        let (n, level) = (u(&c["n"]), f(&c["level"]));
        let i = f1_interval(&sums_of(&c["sums"]), n, Level::new(level).unwrap());
        assert_eq!(i.estimate, Some(f(&c["estimate"])), "{}", c["name"]);
        for (got, want) in [(i.lower, f(&c["lower"])), (i.upper, f(&c["upper"]))] {
            assert!(
                (got - want).abs() <= 1e-12,
                "{} (level {level}): {got} vs statsmodels {want}",
                c["name"]
            );
        }
        assert!(i.upper > i.lower, "{}: never zero-width", c["name"]);
    }
}

/// statsmodels' `proportion_confint(mean * n, n, alpha=0.05, method="wilson")` at fractional
/// counts (typo tasks' mean scores at n = 2-5), printed by Python.
const BOUNDED_MEANS: [(f64, u64, f64, f64); 6] = [
    (0.995, 2, 0.33896937395945254, 0.999987051272134),
    (0.5, 3, 0.1253344719102632, 0.8746655280897369),
    (
        0.8333333333333334,
        4,
        0.36229252299213194,
        0.9777802527048034,
    ),
    (0.3, 5, 0.07258403998566332, 0.7012089459276065),
    (0.9, 5, 0.46294398253247676, 0.9894700456409833),
    (0.123, 1000, 0.10407414325107295, 0.1448112326470356),
];

#[test]
fn golden_bounded_mean_interval_matches_statsmodels_wilson_at_fractional_counts() {
    for (mean, n, lower, upper) in BOUNDED_MEANS {
        let i = bounded_mean_interval(mean, n, Level::DEFAULT);
        assert!(
            (i.lower - lower).abs() <= 1e-13 && (i.upper - upper).abs() <= 1e-13,
            "({mean}, {n}): [{}, {}] vs statsmodels [{lower}, {upper}]",
            i.lower,
            i.upper
        );
    }
}
