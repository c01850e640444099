//! The test of one candidate and the multiplicity corrections, in log space.
//!
//! p-values are kept as `log10 p`: with thousands of texts a planted slice's p is far below
//! the smallest double, and ranking by a p that underflowed to 0 would tie every strong slice.

use std::f64::consts::{LN_2, LN_10};

/// The test of "the slice disagrees more than the rest": `x1` disagreements of `n1` lines in
/// the slice against `x0` of `n0` outside it. Returns `(z, log10 p)`: `z` is the two-proportion
/// score statistic (pooled rate under the null), `p` the one-sided p-value of Fisher's exact
/// test, `P(X ≥ x1)` for `X` hypergeometric with the table's margins.
///
/// Why exact rather than the score test's normal tail: slices are as small as `min_support`
/// texts, and there, with a disagreement rate of a few per cent, the normal tail is far too
/// small (8 of 20 against 72 of 980: z ≈ 5.3, normal p ≈ 5e-8, exact p ≈ 7e-5), so null
/// ledgers reported slices in every simulated dataset. Fisher's test is conservative and
/// exact at every size. A side without lines gives z = 0 and p = 1, as does a stage without
/// variance (every line agrees, or every one disagrees).
pub fn slice_test(x1: u64, n1: u64, x0: u64, n0: u64) -> (f64, f64) {
    if n1 == 0 || n0 == 0 {
        return (0.0, 0.0);
    }
    let (n1f, n0f) = (n1 as f64, n0 as f64);
    let pooled = (x1 + x0) as f64 / (n1f + n0f);
    let variance = pooled * (1.0 - pooled) * (1.0 / n1f + 1.0 / n0f);
    if variance <= 0.0 {
        return (0.0, 0.0);
    }
    let z = (x1 as f64 / n1f - x0 as f64 / n0f) / variance.sqrt();
    (z, ln_hypergeometric_upper(x1, n1, x1 + x0, n1 + n0) / LN_10)
}

/// `ln n!`: summed below 30, Stirling's series (four correction terms, relative error below
/// 1e-16 there) above.
fn ln_factorial(n: u64) -> f64 {
    if n < 30 {
        return (2..=n).map(|k| (k as f64).ln()).sum();
    }
    let x = n as f64;
    let x2 = x * x;
    x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + 1.0 / (12.0 * x)
        - 1.0 / (360.0 * x * x2)
        + 1.0 / (1260.0 * x * x2 * x2)
        - 1.0 / (1680.0 * x * x2 * x2 * x2)
}

fn ln_choose(n: u64, k: u64) -> f64 {
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
}

/// `ln P(X ≥ x)` for `X` hypergeometric: `draws` of `total` lines, `marked` of them marked.
/// Summed from `x` outwards with the terms' ratio, stopping when they no longer count; below
/// the mean, one minus the lower tail (summed from `x − 1` down), so either sum runs over a few
/// standard deviations, never over the whole support.
pub fn ln_hypergeometric_upper(x: u64, draws: u64, marked: u64, total: u64) -> f64 {
    let lo = (draws + marked).saturating_sub(total);
    let hi = draws.min(marked);
    if x <= lo {
        return 0.0;
    }
    if x > hi {
        return f64::NEG_INFINITY;
    }
    let (n, k, big) = (draws as f64, marked as f64, total as f64);
    let ln_pmf = |i: u64| {
        ln_choose(marked, i) + ln_choose(total - marked, draws - i) - ln_choose(total, draws)
    };
    let mean = n * k / big;
    if x as f64 > mean {
        let (mut sum, mut term) = (1.0_f64, 1.0_f64);
        for i in x..hi {
            let i = i as f64;
            term *= (k - i) * (n - i) / ((i + 1.0) * (big - k - n + i + 1.0));
            sum += term;
            if term < 1e-17 * sum {
                break;
            }
        }
        (ln_pmf(x) + sum.ln()).min(0.0)
    } else {
        let (mut sum, mut term) = (1.0_f64, 1.0_f64);
        for i in (lo + 1..x).rev() {
            let i = i as f64;
            term *= i * (big - k - n + i) / ((k - i + 1.0) * (n - i + 1.0));
            sum += term;
            if term < 1e-17 * sum {
                break;
            }
        }
        let lower = (ln_pmf(x - 1) + sum.ln()).exp().min(1.0);
        (-lower).ln_1p()
    }
}

/// `log10 P(Z ≥ z)` for a standard normal `Z`, finite for every finite `z`.
pub fn log10_upper_tail(z: f64) -> f64 {
    if z > 0.0 {
        // Half the two-sided tail, whose logarithm profile-stats computes without underflow.
        (profile_stats::ln_normal_two_sided_tail(z) - LN_2) / LN_10
    } else {
        (1.0 - 0.5 * profile_stats::normal_two_sided_tail(z)).log10()
    }
}

/// Benjamini–Hochberg adjusted p-values (statsmodels' `multipletests(p, method="fdr_bh")`), in
/// `log10`, from the raw `log10 p` of every test of the family. Equal raw values get equal
/// adjusted values; the result is capped at 0 (p = 1). NaN is treated as p = 1.
pub fn bh_log10(log10_p: &[f64]) -> Vec<f64> {
    let m = log10_p.len();
    let clean = |x: f64| if x.is_nan() { 0.0 } else { x.min(0.0) };
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| {
        clean(log10_p[i])
            .total_cmp(&clean(log10_p[j]))
            .then(i.cmp(&j))
    });
    let mut adjusted = vec![0.0; m];
    let mut running = 0.0_f64;
    let log_m = (m as f64).log10();
    // From the largest p down: adjusted_(k) = min over j ≥ k of p_(j) · m / j.
    for (rank, &i) in order.iter().enumerate().rev() {
        let step = clean(log10_p[i]) + log_m - ((rank + 1) as f64).log10();
        running = running.min(step);
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn bh_matches_statsmodels() {
        // statsmodels.stats.multitest.multipletests([0.01, 0.04, 0.03, 0.005, 0.5], method="fdr_bh")
        let p = [0.01, 0.04, 0.03, 0.005, 0.5];
        let want = [0.025, 0.05, 0.05, 0.025, 0.5];
        let lp: Vec<f64> = p.iter().map(|p: &f64| p.log10()).collect();
        for (got, want) in bh_log10(&lp).iter().zip(want) {
            assert!(close(10f64.powf(*got), want), "{got} vs {want}");
        }
    }

    #[test]
    fn bh_ties_nan_and_caps() {
        let lp = [0.01f64.log10(), 0.01f64.log10(), f64::NAN, 0.9f64.log10()];
        let adjusted = bh_log10(&lp);
        assert_eq!(adjusted[0], adjusted[1]);
        assert!(close(10f64.powf(adjusted[0]), 0.02));
        assert_eq!(adjusted[2], 0.0);
        // 0.9 · 4 / 3 > 1: capped by the NaN's 1 above it.
        assert_eq!(adjusted[3], 0.0);
        assert!(bh_log10(&[]).is_empty());
        // Far below the smallest double, the order still shows.
        let tiny = bh_log10(&[-400.0, -500.0]);
        assert!(close(tiny[1], -500.0 + 2f64.log10()));
        assert!(close(tiny[0], -400.0));
    }

    #[test]
    fn fisher_matches_exact_sums() {
        // The exact sums in rationals (Python: sum(comb(marked, i) * comb(total - marked,
        // draws - i) for i in range(x, min(draws, marked) + 1)) / comb(total, draws)), which is
        // scipy's hypergeom.sf(x - 1, total, marked, draws), fisher_exact(..., "greater").
        let cases: [(u64, u64, u64, u64, f64); 5] = [
            (8, 20, 80, 1000, 6.801_947_667_256_611e-5),
            (3, 10, 20, 100, 0.318_779_936_182_311_15),
            (1, 10, 20, 100, 0.904_883_727_569_211_5),
            (0, 10, 20, 100, 1.0),
            (30, 100, 130, 1100, 1.880_052_457_784_132_3e-7),
        ];
        for (x, draws, marked, total, want) in cases {
            let got = ln_hypergeometric_upper(x, draws, marked, total).exp();
            assert!(
                (got - want).abs() < 1e-9 * want,
                "{x} {draws} {marked} {total}: {got} vs {want}"
            );
        }
        // Far in the tail, the logarithm is still finite: 500 of 500 at a rate of 0.1.
        let ln = ln_hypergeometric_upper(500, 500, 1000, 10_000);
        assert!(ln.is_finite() && ln < -1000.0);
        assert_eq!(ln_hypergeometric_upper(11, 10, 20, 100), f64::NEG_INFINITY);
    }

    #[test]
    fn ln_factorial_is_continuous_at_the_switch() {
        let direct: f64 = (2..=30u64).map(|k| (k as f64).ln()).sum();
        assert!((ln_factorial(30) - direct).abs() < 1e-12 * direct);
        let direct: f64 = (2..=1000u64).map(|k| (k as f64).ln()).sum();
        assert!((ln_factorial(1000) - direct).abs() < 1e-11 * direct);
    }

    #[test]
    fn slice_test_is_one_sided() {
        // 30/100 against 100/1000: z = (0.3 - 0.1) / sqrt(p(1-p)(1/100 + 1/1000)), p = 130/1100.
        let (z, lp) = slice_test(30, 100, 100, 1000);
        let pooled: f64 = 130.0 / 1100.0;
        let want = 0.2 / (pooled * (1.0 - pooled) * 0.011).sqrt();
        assert!(close(z, want));
        assert!(close(
            lp,
            ln_hypergeometric_upper(30, 100, 130, 1100) / LN_10
        ));
        // scipy.stats.norm.sf(1.959963984540054) = 0.025
        assert!(close(
            10f64.powf(log10_upper_tail(1.959_963_984_540_054)),
            0.025
        ));
        // The other direction: p above one half.
        let (z, lp) = slice_test(5, 100, 300, 1000);
        assert!(z < 0.0 && lp > 0.5f64.log10());
        assert_eq!(slice_test(0, 10, 0, 10), (0.0, 0.0));
        assert_eq!(slice_test(3, 0, 1, 10), (0.0, 0.0));
        assert!(log10_upper_tail(60.0).is_finite() && log10_upper_tail(60.0) < -700.0);
    }
}
