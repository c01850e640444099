//! The standard normal quantile, for the critical value of an interval's level.

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
}
