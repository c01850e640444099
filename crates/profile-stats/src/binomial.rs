//! The lower tail of Binomial(m, 1/2), accurate for any m: the exact McNemar test's engine.
//!
//! The probability mass at the tail's edge is computed with Loader's saddle-point expansion
//! (C. Loader, "Fast and accurate computation of binomial probabilities", 2000; the algorithm
//! behind R's `dbinom`), which needs neither factorials nor a log-gamma function and keeps full
//! relative precision for millions of trials. The tail is then summed downwards with the exact
//! ratio of neighbouring terms. Up to 120 trials the tail is an exact integer sum instead
//! (correctly rounded, so small tables give exact dyadic p-values such as 0.625).

use std::f64::consts::PI;

/// `P(X ≤ k)` for `X ~ Binomial(m, 1/2)`, for `2k < m` (the callers' case: the other half of the
/// distribution is never needed, since a two-sided p-value there is 1).
pub(crate) fn lower_tail_half(k: u64, m: u64) -> f64 {
    debug_assert!(2 * k < m);
    if m <= 120 {
        return exact_lower_tail_half(k, m);
    }
    let mut term = pmf_half(k, m);
    let mut sum = term;
    let mut i = k;
    while i > 0 && term > sum * 1e-18 {
        // P(X = i − 1) / P(X = i) = i / (m − i + 1).
        term *= i as f64 / (m - i + 1) as f64;
        sum += term;
        i -= 1;
    }
    sum
}

/// The tail as an exact integer sum of binomial coefficients over `2^m`, correctly rounded
/// (every coefficient of `m <= 120` fits in 128 bits, and so does their sum).
fn exact_lower_tail_half(k: u64, m: u64) -> f64 {
    let mut coefficient: u128 = 1;
    let mut sum: u128 = 1;
    for i in 1..=k {
        // C(m, i) = C(m, i − 1)·(m − i + 1)/i, exact at every step.
        coefficient = coefficient * u128::from(m - i + 1) / u128::from(i);
        sum += coefficient;
    }
    sum as f64 * (-(m as f64)).exp2()
}

/// `P(X = x)` for `X ~ Binomial(n, 1/2)`.
fn pmf_half(x: u64, n: u64) -> f64 {
    if x == 0 || x == n {
        // Exactly 2^-n (underflows to 0 past n = 1074, as the true value does in f64).
        return (-(n as f64)).exp2();
    }
    let (xf, nf) = (x as f64, n as f64);
    let half = nf / 2.0;
    let lc = stirling_error(n)
        - stirling_error(x)
        - stirling_error(n - x)
        - bd0(xf, half)
        - bd0(nf - xf, half);
    let lf = (2.0 * PI).ln() + xf.ln() + (-xf / nf).ln_1p();
    (lc - 0.5 * lf).exp()
}

/// `ln(n!) − ln(√(2πn)·(n/e)^n)`, the error of Stirling's formula.
fn stirling_error(n: u64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    if n <= 15 {
        // n! is exact in an f64 up to 15!; the cancellation costs a few ulps of ln(n!), which
        // is a relative error of the same size in the probability.
        if n == 0 {
            return 0.0;
        }
        let nf = n as f64;
        let factorial: f64 = (1..=n).map(|i| i as f64).product();
        return factorial.ln() - (nf + 0.5) * nf.ln() + nf - 0.5 * (2.0 * PI).ln();
    }
    let nf = n as f64;
    let nn = nf * nf;
    if n > 500 {
        (S0 - S1 / nn) / nf
    } else if n > 80 {
        (S0 - (S1 - S2 / nn) / nn) / nf
    } else if n > 35 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / nf
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / nf
    }
}

/// The deviance term `x·ln(x/np) + np − x`, computed without cancellation when `x ≈ np`.
fn bd0(x: f64, np: f64) -> f64 {
    if (x - np).abs() < 0.1 * (x + np) {
        let mut v = (x - np) / (x + np);
        let mut s = (x - np) * v;
        let mut ej = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            ej *= v;
            let next = s + ej / f64::from(2 * j + 1);
            if next == s {
                return next;
            }
            s = next;
        }
        return s;
    }
    x * (x / np).ln() + np - x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_saddle_point_sum_matches_exact_sums() {
        for m in 1..=120u64 {
            for k in 0..m.div_ceil(2) {
                if 2 * k >= m {
                    continue;
                }
                let mut term = pmf_half(k, m);
                let mut sum = term;
                for i in (1..=k).rev() {
                    term *= i as f64 / (m - i + 1) as f64;
                    sum += term;
                }
                let want = exact_lower_tail_half(k, m);
                assert!(
                    (sum - want).abs() <= 1e-13 * want,
                    "k={k} m={m}: {sum} vs {want}"
                );
            }
        }
    }

    #[test]
    fn tiny_tails_underflow_to_zero_not_nan() {
        assert_eq!(lower_tail_half(0, 2000), 0.0);
        assert!(lower_tail_half(3, 200_000).is_finite());
    }
}
