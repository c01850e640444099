//! Confidence levels and intervals: Wilson score intervals for rates, the delta-method interval
//! for micro F1.

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::field_sums::FieldSums;
use crate::normal::normal_quantile;

/// A two-sided confidence level, strictly between 0 and 1 (`0.95` by default).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Level(f64);

impl Level {
    /// 95 %.
    pub const DEFAULT: Level = Level(0.95);

    /// A level; anything outside `(0, 1)` (or NaN) is an error.
    pub fn new(level: f64) -> Result<Level, Error> {
        if level > 0.0 && level < 1.0 {
            Ok(Level(level))
        } else {
            Err(Error::Level(level))
        }
    }

    /// The level as a fraction.
    pub fn get(self) -> f64 {
        self.0
    }

    /// The two-sided critical value `z = −Φ⁻¹(α/2)` with `α = 1 − level` (1.959964 at 95 %),
    /// computed as statsmodels computes it (`norm.isf(alpha / 2)`).
    pub fn z(self) -> f64 {
        -normal_quantile((1.0 - self.0) / 2.0)
    }
}

impl Default for Level {
    fn default() -> Level {
        Level::DEFAULT
    }
}

impl TryFrom<f64> for Level {
    type Error = Error;
    fn try_from(level: f64) -> Result<Level, Error> {
        Level::new(level)
    }
}

impl From<Level> for f64 {
    fn from(level: Level) -> f64 {
        level.0
    }
}

/// How an interval was computed (named in the report so a reader never has to guess).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Wilson's score interval for a binomial proportion (Wilson 1927, JASA 22:209-212).
    Wilson,
    /// The delta-method (Taylor linearisation) interval of a ratio of two per-text sums, with
    /// the sample covariance of the per-text terms (ddof = 1), clipped to `[0, 1]`.
    DeltaMethodRatio,
    /// Newcombe's hybrid score interval for a difference of paired proportions (Newcombe 1998,
    /// Stat Med 17:2635-2650, method 10).
    NewcombeHybridScore,
    /// A prediction-powered estimate (power-tuned PPI++) of a figure whose teacher answers were
    /// sampled ([`crate::PPI_DESCRIPTION`]). Not in [`Method::ALL`]: only sampled reports name
    /// it, and only their glossary lists it.
    PpiPowerTuned,
    /// Tango's score interval for a difference of paired proportions (Tango 1998, Stat Med
    /// 17:891-908), the inversion of McNemar's score test.
    TangoScore,
    /// Micro F1 through the micro Jaccard index `J = tp / (tp + fp + fn)` (`F1 = 2J/(1 + J)`):
    /// Wilson's interval for `J` at the effective number of fields (Kish's design effect from
    /// the delta-method variance over texts, never below 1), mapped to F1.
    WilsonEffectiveF1,
    /// [`Method::WilsonEffectiveF1`] with Student's `t` over texts for the critical value and,
    /// where no error (or nothing right) is seen, the texts' exact-match interval included
    /// ([`f1_text_interval`]): what reports use since issue 35.
    WilsonEffectiveF1T,
    /// Wilson's formula at the mean of `n` scores in `[0, 1]` ([`bounded_mean_interval`]):
    /// conservative, as such a score with mean μ has variance at most μ(1 − μ). Not in
    /// [`Method::ALL`]: typo-score pages use it, reports do not.
    WilsonBoundedMean,
}

/// The name of [`Method::PpiPowerTuned`], which every estimated figure of a sampled report names.
pub const PPI_METHOD: &str = "ppi_power_tuned";

/// What [`PPI_METHOD`] means, for the report's glossary.
pub const PPI_DESCRIPTION: &str = "prediction-powered inference, power-tuned (PPI++: Angelopoulos, \
     Duchi, Zrnic 2023; ppi_py.ppi_mean_ci's estimate and normal interval): the teacher answered \
     the transformed texts of a seeded uniform sample; the figure is lambda * mean(surrogate over \
     every text) + mean(observed - lambda * surrogate over the sample), lambda chosen from the \
     data in [0, 1], limits clipped to the figure's range; when every sampled outcome is the \
     same (no event, or only events) the interval is widened to include Wilson's score interval \
     of the sample, as the normal one would have zero width; a difference with a fully observed \
     rate is that rate minus the estimate; no sampled text gives estimate null. The sample is      drawn per distinct text: when texts repeat (counts.sample.repeats) the unit is the distinct      text, weighted by its number of lines c, the variance is that of the ratio mean over units      (sums of c^2, floored at what every text's sum of c^2 leads the design to expect) and the      critical value is Student's t on n_eff - 1 degrees of freedom (n_eff: the effective number      of sampled texts)";

impl Method {
    /// Every method a full profile's report names, for its glossary.
    pub const ALL: [Method; 3] = [
        Method::Wilson,
        Method::WilsonEffectiveF1T,
        Method::TangoScore,
    ];

    /// The method's name in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Method::Wilson => "wilson",
            Method::DeltaMethodRatio => "delta_method_ratio",
            Method::NewcombeHybridScore => "newcombe_hybrid_score",
            Method::PpiPowerTuned => PPI_METHOD,
            Method::TangoScore => "tango_score",
            Method::WilsonEffectiveF1 => "wilson_effective_f1",
            Method::WilsonEffectiveF1T => "wilson_effective_f1_t",
            Method::WilsonBoundedMean => "wilson_bounded_mean",
        }
    }

    /// One line saying what the method is, with its reference.
    pub fn description(self) -> &'static str {
        match self {
            Method::Wilson => {
                "Wilson score interval for a binomial proportion (Wilson 1927, JASA 22:209-212); \
                 n = 0 gives estimate null and the interval [0, 1]"
            }
            Method::DeltaMethodRatio => {
                "delta-method interval of micro F1 = sum(2 tp_i) / sum(2 tp_i + fp_i + fn_i) over \
                 texts, sample covariance of the per-text terms (ddof = 1), clipped to [0, 1]; \
                 fewer than two texts, or no fields at all, give [0, 1]"
            }
            Method::NewcombeHybridScore => {
                "Newcombe's hybrid score interval for the difference of two paired proportions \
                 (Newcombe 1998, Stat Med 17:2635-2650, method 10: Wilson limits of both \
                 marginals combined with the continuity-corrected phi); n = 0 gives estimate \
                 null and the interval [-1, 1]"
            }
            Method::PpiPowerTuned => PPI_DESCRIPTION,
            Method::TangoScore => {
                "Tango's score interval for the difference of two paired proportions (Tango \
                 1998, Stat Med 17:891-908; recommended by Fagerland, Lydersen & Laake 2014, \
                 Stat Med 33:2850-2875): every difference the score test does not reject at the \
                 interval's level; at a difference of 0 that test is McNemar's without continuity \
                 correction (mcnemar_score), so interval and p never contradict each other; n = \
                 0 gives estimate null and the interval [-1, 1]"
            }
            Method::WilsonEffectiveF1 => {
                "micro F1 = 2 tp / (2 tp + fp + fn) = 2J / (1 + J) with J = tp / (tp + fp + fn): \
                 Wilson's interval for J with the effective number of fields N / deff, N = tp + \
                 fp + fn and deff = max(1, delta-method variance of J over texts (ddof = 1) / \
                 (J (1 - J) / N)) (Kish's design effect; Wilson with an effective sample size as \
                 in Korn & Graubard 1998, Survey Methodology 24:193-201), mapped to F1; never zero \
                 width at finite n (coverage checked by simulation in the tests); fewer than two \
                 texts, or no fields at all, give [0, 1]"
            }
            Method::WilsonEffectiveF1T => {
                "micro F1 = 2J / (1 + J), J = tp / (tp + fp + fn): Wilson's interval for J at the \
                 effective number of fields N / deff (deff = max(1, delta-method variance of J \
                 over texts (ddof = 1) / (J (1 - J) / N)), Kish's design effect) with Student's t \
                 quantile on n - 1 degrees of freedom (n texts; Cornish-Fisher, Abramowitz & \
                 Stegun 26.7.5) as the critical value, mapped to F1; with no error in any text the \
                 lower limit is at most the Wilson lower limit of n exact matches of n at that \
                 critical value (and with nothing right the upper limit at least 1 minus it); \
                 fewer than two texts, or no fields at all, give [0, 1]"
            }
            Method::WilsonBoundedMean => {
                "Wilson's score interval at the mean of n scores in [0, 1] (for 0/1 scores, \
                 Wilson's interval of the proportion); conservative for other scores, whose \
                 variance is at most mean (1 - mean); n = 0 gives [0, 1]"
            }
        }
    }
}

/// A point estimate with a two-sided confidence interval.
///
/// `estimate` is `None` (JSON `null`) only when it is undefined (no texts); `lower` and `upper`
/// are always numbers, so no interval ever carries a NaN.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The point estimate, or `None` when undefined.
    pub estimate: Option<f64>,
    /// Lower limit.
    pub lower: f64,
    /// Upper limit.
    pub upper: f64,
    /// The confidence level.
    pub level: f64,
    /// How the limits were computed.
    pub method: Method,
}

/// The Wilson score interval of `successes` out of `n` (statsmodels'
/// `proportion_confint(successes, n, alpha = 1 - level, method="wilson")`, limits clipped to
/// `[0, 1]`).
///
/// `n = 0` gives the estimate `None` and the interval `[0, 1]` (the limit of Wilson's formula
/// as the information goes to zero); `successes > n` is treated as `n`.
///
/// ```
/// use profile_stats::{Level, wilson};
///
/// let i = wilson(7, 10, Level::DEFAULT);
/// assert_eq!(i.estimate, Some(0.7));
/// assert!((i.lower - 0.396_778).abs() < 1e-6 && (i.upper - 0.892_209).abs() < 1e-6);
/// assert_eq!((wilson(0, 0, Level::DEFAULT).lower, wilson(0, 0, Level::DEFAULT).upper), (0.0, 1.0));
/// ```
pub fn wilson(successes: u64, n: u64, level: Level) -> Interval {
    let (lower, upper) = wilson_limits(successes, n, level);
    Interval {
        estimate: (n > 0).then(|| successes.min(n) as f64 / n as f64),
        lower,
        upper,
        level: level.get(),
        method: Method::Wilson,
    }
}

/// Wilson's limits, in statsmodels' order of operations.
pub(crate) fn wilson_limits(successes: u64, n: u64, level: Level) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let k = successes.min(n);
    let nf = n as f64;
    let (lower, upper) = wilson_formula(k as f64 / nf, nf, level.z());
    // At k = 0 (k = n) the lower (upper) limit is exactly 0 (1); the formula leaves rounding
    // noise of either sign there.
    let lower = if k == 0 { 0.0 } else { lower };
    let upper = if k == n { 1.0 } else { upper };
    (lower, upper)
}

/// Wilson's formula for a proportion `q` over `nf > 0` (possibly fractional) trials, clipped.
pub(crate) fn wilson_formula(q: f64, nf: f64, z: f64) -> (f64, f64) {
    let z2 = z * z;
    let denom = 1.0 + z2 / nf;
    let center = (q + z2 / (2.0 * nf)) / denom;
    let dist = z * (q * (1.0 - q) / nf + z2 / (4.0 * nf * nf)).sqrt() / denom;
    (
        (center - dist).clamp(0.0, 1.0),
        (center + dist).clamp(0.0, 1.0),
    )
}

/// An interval for the mean of `n` scores in `[0, 1]` (a typo task's mean precision, recall or
/// F1, or its exact-match rate) from the mean alone: Wilson's formula at the mean
/// ([`Method::WilsonBoundedMean`]). For 0/1 scores it is Wilson's interval of the proportion;
/// for other scores it is conservative (a score in `[0, 1]` with mean μ has variance at most
/// μ(1 − μ), the variance Wilson's score test assumes), and never of zero width at finite `n`.
/// `n = 0` gives the estimate `None` and `[0, 1]`; a mean outside `[0, 1]` is clamped.
///
/// ```
/// use profile_stats::{Level, bounded_mean_interval, wilson};
///
/// let i = bounded_mean_interval(2.0 / 3.0, 3, Level::DEFAULT);
/// let w = wilson(2, 3, Level::DEFAULT);
/// assert!((i.lower - w.lower).abs() < 1e-15 && (i.upper - w.upper).abs() < 1e-15);
/// let perfect = bounded_mean_interval(1.0, 2, Level::DEFAULT);
/// assert!(perfect.lower < 0.5 && perfect.upper == 1.0);
/// ```
pub fn bounded_mean_interval(mean: f64, n: u64, level: Level) -> Interval {
    let mut interval = Interval {
        estimate: None,
        lower: 0.0,
        upper: 1.0,
        level: level.get(),
        method: Method::WilsonBoundedMean,
    };
    if n == 0 || mean.is_nan() {
        return interval;
    }
    let q = mean.clamp(0.0, 1.0);
    let (lower, upper) = wilson_formula(q, n as f64, level.z());
    interval.estimate = Some(mean);
    interval.lower = if q == 0.0 { 0.0 } else { lower };
    interval.upper = if q == 1.0 { 1.0 } else { upper };
    interval
}

/// The interval of micro F1 over `n` texts from its sufficient sums, never of zero width at
/// finite `n` ([`Method::WilsonEffectiveF1`]).
///
/// Micro F1 is a monotone function of the micro Jaccard index, `F1 = 2J/(1 + J)` with
/// `J = tp / N`, `N = tp + fp + fn` field outcomes. Fields of one text are not independent, so
/// `J` gets Wilson's interval at the *effective* number of fields `N / deff`, with Kish's design
/// effect `deff = max(1, Var_delta(J) / (J(1 − J)/N))` from the delta-method variance of the
/// ratio over texts (sample covariance, ddof = 1); the limits are mapped back to F1. When every
/// text scores the same (all perfect, say) the design effect is 1 and the interval is Wilson's
/// over the fields, not the delta method's zero width. Coverage is checked by a seeded
/// simulation in the tests (`tests/f1_coverage.rs`); the formula against statsmodels'
/// `proportion_confint` and `NonlinearDeltaCov` (fixture `f1_effective.json`).
///
/// Degenerate inputs: `n = 0` gives the estimate `None` and `[0, 1]`; one text, or no field on
/// either side anywhere (F1 is then `1.0`, upstream's convention), gives `[0, 1]`.
///
/// ```
/// use profile_stats::{FieldSums, Level, f1_interval};
///
/// let mut perfect = FieldSums::default();
/// perfect.record_n(3, 0, 0, 4000); // 4,000 texts, every field right
/// let i = f1_interval(&perfect, 4000, Level::DEFAULT);
/// assert_eq!(i.estimate, Some(1.0));
/// assert!(i.upper == 1.0 && i.lower < 1.0 && i.lower > 0.999);
/// ```
pub fn f1_interval(sums: &FieldSums, n: u64, level: Level) -> Interval {
    let mut interval = no_f1_interval(sums, n, level, Method::WilsonEffectiveF1);
    if let Some(j) = effective_jaccard(sums, n, level.z()) {
        interval.lower = if j.tp == 0.0 { 0.0 } else { f1_of(j.lower) };
        interval.upper = if j.errors == 0.0 { 1.0 } else { f1_of(j.upper) };
    }
    interval
}

/// An F1 interval before its limits: the estimate (none without texts) and `[0, 1]`.
fn no_f1_interval(sums: &FieldSums, n: u64, level: Level, method: Method) -> Interval {
    Interval {
        estimate: (n > 0).then(|| sums.f1()),
        lower: 0.0,
        upper: 1.0,
        level: level.get(),
        method,
    }
}

/// `F1 = 2J/(1 + J)`.
fn f1_of(j: f64) -> f64 {
    2.0 * j / (1.0 + j)
}

/// Wilson's limits of the micro Jaccard index at the effective number of fields, at the
/// critical value `crit`, with the totals they came from.
struct EffectiveJaccard {
    tp: f64,
    errors: f64,
    lower: f64,
    upper: f64,
}

/// [`EffectiveJaccard`] of `n` texts; `None` for fewer than two texts or no field at all.
fn effective_jaccard(sums: &FieldSums, n: u64, crit: f64) -> Option<EffectiveJaccard> {
    let (t, e) = (sums.tp as f64, (sums.fp + sums.fn_) as f64);
    let fields = t + e;
    if n < 2 || fields == 0.0 {
        return None;
    }
    let nf = n as f64;
    let deff = if t > 0.0 && e > 0.0 {
        // Var_delta(J) / (J(1 − J)/N) = R·n / ((n − 1)·N·T·E), R = Σ(tpᵢE − T·errᵢ)².
        (sums.residual_square_sum() * nf / ((nf - 1.0) * fields * t * e)).max(1.0)
    } else {
        1.0
    };
    let (lower, upper) = wilson_formula(t / fields, fields / deff, crit);
    Some(EffectiveJaccard {
        tp: t,
        errors: e,
        lower,
        upper,
    })
}

/// The interval of micro F1 over `n` texts that reports use ([`Method::WilsonEffectiveF1T`]):
/// [`f1_interval`]'s Wilson interval of the micro Jaccard index at the effective number of
/// fields, with two changes for few texts, where the design effect is estimated from a handful
/// of texts and errors clustered in one or two of them are easily missed:
///
/// * the critical value is Student's `t` with `n − 1` degrees of freedom instead of `z` (the
///   design effect is a variance estimated over texts; [`t_critical`]);
/// * when the texts show no error (or nothing right) at all — where no design effect can be
///   estimated — the interval also holds the exact-match Wilson interval of the `n` texts at
///   the same critical value, so three perfect texts never claim more than three perfect exact
///   matches would.
///
/// Coverage: `tests/consistency.rs::f1_text_interval_covers_with_clustered_errors` (n = 5, 10,
/// 50, 500; errors spread over fields or clustered in a few texts).
pub fn f1_text_interval(sums: &FieldSums, n: u64, level: Level) -> Interval {
    let mut interval = no_f1_interval(sums, n, level, Method::WilsonEffectiveF1T);
    let crit = t_critical(level, n.saturating_sub(1));
    let Some(j) = effective_jaccard(sums, n, crit) else {
        return interval;
    };
    // Every text perfect (or every one wrong): the exact-match interval of the texts too.
    let (texts_lower, _) = wilson_formula(1.0, n as f64, crit);
    interval.lower = match (j.tp == 0.0, j.errors == 0.0) {
        (true, _) => 0.0,
        (false, true) => f1_of(j.lower).min(texts_lower),
        (false, false) => f1_of(j.lower),
    };
    interval.upper = match (j.errors == 0.0, j.tp == 0.0) {
        (true, _) => 1.0,
        (false, true) => f1_of(j.upper).max(1.0 - texts_lower),
        (false, false) => f1_of(j.upper),
    };
    interval
}

/// The two-sided critical value of Student's `t` with `df` degrees of freedom at `level`, from
/// the normal one by the Cornish–Fisher expansion (Abramowitz & Stegun 26.7.5, four terms):
/// within 0.002 of the exact quantile at 95 % from 4 degrees of freedom on (2.7752 for 2.7764
/// at 4), and never below `z`. Below 4 degrees of freedom the expansion is poor; the value at
/// 4 is not enough there, so the exact 95 % values are scaled: `df` 1–3 use the exact quantile
/// ratio to z at 95 % (12.706, 4.303, 3.182 over 1.960) applied to this level's z.
pub fn t_critical(level: Level, df: u64) -> f64 {
    t_of_z(level.z(), df)
}

/// [`t_critical`] at the normal critical value `z` (increasing in `z`).
pub(crate) fn t_of_z(z: f64, df: u64) -> f64 {
    if df == 0 {
        return f64::INFINITY;
    }
    if df < 4 {
        let ratio =
            [12.706_204_736, 4.302_652_730, 3.182_446_305][(df - 1) as usize] / 1.959_963_985;
        return z * ratio;
    }
    let v = df as f64;
    let (z2, z3) = (z * z, z * z * z);
    let (z5, z7, z9) = (z3 * z2, z3 * z2 * z2, z3 * z3 * z3);
    let g1 = (z3 + z) / 4.0;
    let g2 = (5.0 * z5 + 16.0 * z3 + 3.0 * z) / 96.0;
    let g3 = (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / 384.0;
    let g4 = (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / 92160.0;
    (z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v)).max(z)
}

/// The delta-method interval of micro F1 over `n` texts from its sufficient sums (reports use
/// [`f1_interval`] instead: this one is zero-width whenever every text scores the same).
///
/// Micro F1 is the ratio `R = Σaᵢ / Σbᵢ` with `aᵢ = 2tpᵢ` and `bᵢ = 2tpᵢ + fpᵢ + fnᵢ` per text.
/// Its delta-method variance with the sample covariance (ddof = 1) is
/// `Σ(aᵢ − R·bᵢ)² · n / ((n − 1) · (Σbᵢ)²)`, and `Σ(aᵢ − R·bᵢ)²` is a function of the sums
/// [`FieldSums`] keeps (computed exactly in integers while they fit in 128 bits). The limits are
/// `R ± z·se`, clipped to `[0, 1]`.
///
/// Degenerate inputs: `n = 0` gives the estimate `None` and `[0, 1]`; one text, or no field on
/// either side anywhere (F1 is then `1.0`, upstream's convention), gives `[0, 1]`, since there is
/// no variance to estimate. Texts that all score the same ratio give a zero-width interval (the
/// delta method's known blind spot, the reason reports use [`f1_interval`]).
pub fn f1_delta_interval(sums: &FieldSums, n: u64, level: Level) -> Interval {
    let mut interval = Interval {
        estimate: (n > 0).then(|| sums.f1()),
        lower: 0.0,
        upper: 1.0,
        level: level.get(),
        method: Method::DeltaMethodRatio,
    };
    let denominator = sums.denominator();
    if n < 2 || denominator == 0 {
        return interval;
    }
    let r = sums.f1();
    let se = 2.0 * sums.residual_square_sum().sqrt() / (denominator as f64 * denominator as f64)
        * (n as f64 / (n - 1) as f64).sqrt();
    let z = level.z();
    interval.lower = (r - z * se).clamp(0.0, 1.0);
    interval.upper = (r + z * se).clamp(0.0, 1.0);
    interval
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_validated() {
        assert!(Level::new(0.95).is_ok());
        for bad in [0.0, 1.0, -0.5, 95.0, f64::NAN] {
            assert!(Level::new(bad).is_err(), "{bad}");
        }
        assert!(serde_json::from_str::<Level>("1.5").is_err());
        assert_eq!(serde_json::to_string(&Level::DEFAULT).unwrap(), "0.95");
    }

    #[test]
    fn wilson_degenerate_inputs_are_documented_values() {
        let none = wilson(0, 0, Level::DEFAULT);
        assert_eq!((none.estimate, none.lower, none.upper), (None, 0.0, 1.0));
        let all = wilson(5, 5, Level::DEFAULT);
        assert_eq!((all.estimate, all.upper), (Some(1.0), 1.0));
        assert!(all.lower > 0.0 && all.lower < 1.0);
        let zero = wilson(0, 5, Level::DEFAULT);
        assert_eq!((zero.estimate, zero.lower), (Some(0.0), 0.0));
    }

    #[test]
    fn f1_degenerate_inputs_are_documented_values() {
        let mut sums = FieldSums::default();
        let i = f1_delta_interval(&sums, 0, Level::DEFAULT);
        assert_eq!((i.estimate, i.lower, i.upper), (None, 0.0, 1.0));
        sums.record(3, 0, 1);
        let i = f1_delta_interval(&sums, 1, Level::DEFAULT);
        assert_eq!((i.estimate, i.lower, i.upper), (Some(6.0 / 7.0), 0.0, 1.0));
        // Two texts without fields: F1 is 1.0 by convention, with no information.
        let i = f1_delta_interval(&FieldSums::default(), 2, Level::DEFAULT);
        assert_eq!((i.estimate, i.lower, i.upper), (Some(1.0), 0.0, 1.0));
        // All perfect: zero width at 1 for the delta method, not for the reports' interval.
        let mut perfect = FieldSums::default();
        perfect.record(2, 0, 0);
        perfect.record(3, 0, 0);
        let i = f1_delta_interval(&perfect, 2, Level::DEFAULT);
        assert_eq!((i.estimate, i.lower, i.upper), (Some(1.0), 1.0, 1.0));
        let i = f1_interval(&perfect, 2, Level::DEFAULT);
        assert_eq!((i.estimate, i.upper), (Some(1.0), 1.0));
        assert!(i.lower > 0.0 && i.lower < 1.0);
        let i = f1_interval(&FieldSums::default(), 2, Level::DEFAULT);
        assert_eq!((i.estimate, i.lower, i.upper), (Some(1.0), 0.0, 1.0));
        // All wrong: zero width at 0 for neither.
        let mut wrong = FieldSums::default();
        wrong.record_n(0, 1, 2, 50);
        let i = f1_interval(&wrong, 50, Level::DEFAULT);
        assert_eq!((i.estimate, i.lower), (Some(0.0), 0.0));
        assert!(i.upper > 0.0);
    }
}
