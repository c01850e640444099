//! The standard normal quantile (the critical value of an interval's level) and its two-sided
//! tail (the p-value of a normal test statistic).

/// The `p` quantile of the standard normal distribution, `Φ⁻¹(p)`, for `0 < p < 1`.
///
/// Wichura's algorithm AS 241 (PPND16, Applied Statistics 37:477-484, 1988): relative error
/// about 1e-16, the algorithm behind Python's `statistics.NormalDist.inv_cdf` and R's `qnorm`.
/// `p` outside `(0, 1)` gives NaN; callers validate their level first ([`crate::Level`]).
// The published constants, digit for digit (more digits than an f64 holds).
#[allow(clippy::excessive_precision)]
pub fn normal_quantile(p: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) {
        return f64::NAN;
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        let num = (((((((2.5090809287301226727e3 * r + 3.3430575583588128105e4) * r
            + 6.7265770927008700853e4)
            * r
            + 4.5921953931549871457e4)
            * r
            + 1.3731693765509461125e4)
            * r
            + 1.9715909503065514427e3)
            * r
            + 1.3314166789178437745e2)
            * r
            + 3.3871328727963666080)
            * q;
        let den = ((((((5.2264952788528545610e3 * r + 2.8729085735721942674e4) * r
            + 3.9307895800092710610e4)
            * r
            + 2.1213794301586595867e4)
            * r
            + 5.3941960214247511077e3)
            * r
            + 6.8718700749205790830e2)
            * r
            + 4.2313330701600911252e1)
            * r
            + 1.0;
        return num / den;
    }
    let r = if q <= 0.0 { p } else { 1.0 - p };
    let r = (-r.ln()).sqrt();
    let x = if r <= 5.0 {
        let r = r - 1.6;
        let num = ((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r
            + 2.41780725177450611770e-1)
            * r
            + 1.27045825245236838258)
            * r
            + 3.64784832476320460504)
            * r
            + 5.76949722146069140550)
            * r
            + 4.63033784615654529590)
            * r
            + 1.42343711074968357734;
        let den = ((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r
            + 1.51986665636164571966e-2)
            * r
            + 1.48103976427480074590e-1)
            * r
            + 6.89767334985100004550e-1)
            * r
            + 1.67638483018380384940)
            * r
            + 2.05319162663775882187)
            * r
            + 1.0;
        num / den
    } else {
        let r = r - 5.0;
        let num = ((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r
            + 1.24266094738807843860e-3)
            * r
            + 2.65321895265761230930e-2)
            * r
            + 2.96560571828504891230e-1)
            * r
            + 1.78482653991729133580)
            * r
            + 5.46378491116411436990)
            * r
            + 6.65790464350110377720;
        let den = ((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r
            + 1.84631831751005468180e-5)
            * r
            + 7.86869131145613259100e-4)
            * r
            + 1.48753612908506148525e-2)
            * r
            + 1.36929880922735805310e-1)
            * r
            + 5.99832206555887937690e-1)
            * r
            + 1.0;
        num / den
    };
    if q < 0.0 { -x } else { x }
}

/// The two-sided tail of the standard normal distribution, `P(|Z| ≥ |x|) = erfc(|x|/√2)`: the
/// p-value of a test whose statistic is standard normal under the null.
///
/// Below `|x| = 2.5` the Maclaurin series of `erf` (at most about a 20-fold cancellation there);
/// above, the classical continued fraction of `erfc` (Abramowitz & Stegun 7.1.14) evaluated by
/// the modified Lentz method. Relative error about 1e-13 or better against scipy's
/// `2 * norm.sf(|x|)` (fixture `mcnemar_score.json`); underflows to 0 past `|x| ≈ 38.5`, where
/// [`ln_normal_two_sided_tail`] still has the value.
pub fn normal_two_sided_tail(x: f64) -> f64 {
    match tail(x) {
        Tail::Direct(p) => p,
        Tail::Scaled { ln_exp, factor } => ln_exp.exp() * factor,
    }
}

/// The natural logarithm of [`normal_two_sided_tail`], `ln P(|Z| ≥ |x|)`, finite for every
/// finite `x` (about `−x²/2`): the tail is never rounded to 0, so a p-value far below the
/// smallest double still orders tests by their statistic (`ln_normal_two_sided_tail(60.0)` is
/// about −1804, where the tail itself underflows). NaN gives NaN, ±∞ gives −∞.
pub fn ln_normal_two_sided_tail(x: f64) -> f64 {
    match tail(x) {
        Tail::Direct(p) => p.ln(),
        Tail::Scaled { ln_exp, factor } => ln_exp + factor.ln(),
    }
}

/// The two-sided tail, either as a number (where it cannot underflow) or as `exp(ln_exp) ·
/// factor` with `factor` of moderate size, so its logarithm can be taken without underflow.
enum Tail {
    Direct(f64),
    Scaled { ln_exp: f64, factor: f64 },
}

fn tail(x: f64) -> Tail {
    if x.is_nan() {
        return Tail::Direct(f64::NAN);
    }
    if x.is_infinite() {
        return Tail::Direct(0.0);
    }
    let t = x.abs() / std::f64::consts::SQRT_2;
    if t < 2.5 / std::f64::consts::SQRT_2 {
        // erf(t) = 2/√π Σ (−1)^k t^(2k+1) / (k! (2k + 1)).
        let t2 = t * t;
        let mut term = t;
        let mut sum = t;
        let mut k = 0.0;
        while term.abs() > 1e-17 * sum.abs() {
            k += 1.0;
            term *= -t2 / k;
            sum += term / (2.0 * k + 1.0);
        }
        return Tail::Direct((1.0 - 2.0 / std::f64::consts::PI.sqrt() * sum).clamp(0.0, 1.0));
    }
    // erfc(t) = exp(−t²)/√π · 1/(t + (1/2)/(t + 1/(t + (3/2)/(t + 2/(t + …))))).
    let tiny = 1e-300;
    let mut f = t;
    let mut c = t;
    let mut d = 0.0;
    for k in 1..10_000 {
        let a = f64::from(k) / 2.0;
        d = t + a * d;
        d = if d.abs() < tiny { 1.0 / tiny } else { 1.0 / d };
        c = t + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    // exp(−x²/2) with x² split exactly into hi + lo (an error-free product), so the exponent
    // keeps full precision far into the tail.
    let x = x.abs();
    let hi = x * x;
    let lo = x.mul_add(x, -hi);
    Tail::Scaled {
        ln_exp: -hi / 2.0,
        factor: (-lo / 2.0).exp() / std::f64::consts::PI.sqrt() / f,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_quantiles() {
        // Reference values: scipy.stats.norm.ppf (printed to 16 significant digits).
        for (p, z) in [
            (0.975, 1.959963984540054),
            (0.95, 1.6448536269514722),
            (0.995, 2.5758293035489004),
            (0.75, 0.6744897501960817),
            (0.5, 0.0),
            (1e-10, -6.361340902404056),
            (0.025, -1.959963984540054),
        ] {
            let got = normal_quantile(p);
            assert!(
                (got - z).abs() <= 1e-15 * z.abs().max(1.0),
                "p={p}: {got} vs {z}"
            );
        }
        assert!(normal_quantile(0.0).is_nan() && normal_quantile(1.0).is_nan());
        assert!(normal_quantile(f64::NAN).is_nan());
    }

    #[test]
    fn log_tails_agree_with_tails_and_never_underflow() {
        for x in [0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 10.0, 30.0, 37.0] {
            let (p, ln) = (normal_two_sided_tail(x), ln_normal_two_sided_tail(x));
            assert!(
                (ln - p.ln()).abs() <= 1e-12 * p.ln().abs().max(1.0),
                "x={x}"
            );
        }
        // Reference: mpmath, log(erfc(x/sqrt(2))) at 50 digits.
        for (x, want) in [(40.0, -803.9152948331938), (59.9, -1798.3237463698636)] {
            assert_eq!(normal_two_sided_tail(x), 0.0);
            let got = ln_normal_two_sided_tail(x);
            assert!(
                (got - want).abs() <= 1e-12 * want.abs(),
                "x={x}: {got} vs {want}"
            );
        }
        // Monotone far out: a larger statistic always has a smaller log tail.
        let mut last = 0.0;
        for i in 0..2000 {
            let l = ln_normal_two_sided_tail(f64::from(i) * 0.05);
            assert!(l <= last, "{i}");
            last = l;
        }
        assert_eq!(ln_normal_two_sided_tail(f64::INFINITY), f64::NEG_INFINITY);
        assert!(ln_normal_two_sided_tail(f64::NAN).is_nan());
    }

    #[test]
    fn known_two_sided_tails() {
        // Reference values: 2 * scipy.stats.norm.sf(x), as printed by Python.
        for (x, p) in [
            (0.0, 1.0),
            (1.959963984540054, 0.05),
            (1.0, 0.31731050786291415),
            (2.5, 0.012419330651552265),
            (3.0, 0.0026997960632601866),
            (5.0, 5.733031437583866e-07),
            (10.0, 1.523970604832094e-23),
            (30.0, 9.813427854295816e-198),
        ] {
            for x in [x, -x] {
                let got = normal_two_sided_tail(x);
                assert!((got - p).abs() <= 1e-13 * p, "x={x}: {got} vs {p}");
            }
        }
    }
}
