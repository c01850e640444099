//! Paired comparisons on the same texts: McNemar's test and Tango's score interval for the
//! difference of two paired proportions, which agree by construction (the interval is the set of
//! differences the same score test does not reject), with Holm's correction over a family of
//! comparisons. The exact McNemar test and Newcombe's interval are kept as functions (validated,
//! documented) but no report uses them any more: they could contradict each other.

use serde::{Deserialize, Serialize};

use crate::binomial::lower_tail_half;
use crate::interval::{Interval, Level, Method, wilson_limits};
use crate::normal::normal_two_sided_tail;
use crate::ppi::{PpiSums, Tuning, estimate_rate};
use crate::table::PairedTable;

/// The name of a test, in the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestMethod {
    /// The exact (binomial) two-sided McNemar test on the discordant pairs (no report uses it).
    McnemarExact,
    /// McNemar's asymptotic test without continuity correction: the score test of "no
    /// difference" whose inversion is Tango's interval.
    McnemarScore,
}

impl TestMethod {
    /// The test's name in JSON.
    pub fn name(self) -> &'static str {
        match self {
            TestMethod::McnemarExact => "mcnemar_exact",
            TestMethod::McnemarScore => "mcnemar_score",
        }
    }

    /// One line saying what the test is.
    pub fn description(self) -> &'static str {
        match self {
            TestMethod::McnemarExact => {
                "exact two-sided McNemar test: p = min(1, 2 P(X <= min(b, c))) for X ~ \
                 Binomial(b + c, 1/2), b and c the discordant pairs (statsmodels' \
                 mcnemar(exact=True)); no discordant pairs give p = 1"
            }
            TestMethod::McnemarScore => {
                "McNemar's test without continuity correction (McNemar 1947, Psychometrika \
                 12:153-157): z = (b - c) / sqrt(b + c), b and c the discordant pairs, two-sided \
                 p = P(|Z| >= |z|) (statsmodels' mcnemar(exact=False, correction=False)); no \
                 discordant pairs give p = 1. It is the score test of Tango's interval at a \
                 difference of 0, so the interval excludes 0 exactly when p < 1 - level; \
                 Fagerland, Lydersen & Laake (2013, BMC Med Res Methodol 13:91) found it closer \
                 to the nominal level than the exact test, rarely above it, even at small n"
            }
        }
    }
}

/// The exact two-sided McNemar p-value of a table with `first_only` and `second_only`
/// discordant pairs: `min(1, 2·P(X ≤ min(b, c)))` for `X ~ Binomial(b + c, 1/2)`, as statsmodels'
/// `mcnemar(table, exact=True)` computes it. No discordant pairs give `1.0`.
///
/// ```
/// use profile_stats::mcnemar_exact;
///
/// assert_eq!(mcnemar_exact(0, 0), 1.0);
/// assert_eq!(mcnemar_exact(0, 5), 0.0625);
/// assert_eq!(mcnemar_exact(3, 3), 1.0);
/// ```
pub fn mcnemar_exact(first_only: u64, second_only: u64) -> f64 {
    let m = first_only + second_only;
    let k = first_only.min(second_only);
    if 2 * k >= m {
        // Balanced (or empty): the lower tail is at least 1/2.
        return 1.0;
    }
    (2.0 * lower_tail_half(k, m)).min(1.0)
}

/// A difference without texts: estimate `None`, interval `[−1, 1]`.
fn no_difference_known(level: Level, method: Method) -> Interval {
    Interval {
        estimate: None,
        lower: -1.0,
        upper: 1.0,
        level: level.get(),
        method,
    }
}

/// Newcombe's hybrid score interval for `p₁ − p₂`, the difference between the proportions of
/// the first and the second outcome of a paired table: method 10 of
///
/// > R. G. Newcombe, "Improved confidence intervals for the difference between binomial
/// > proportions based on paired data", Statistics in Medicine 17:2635-2650 (1998).
///
/// With `(l₁, u₁)` and `(l₂, u₂)` the Wilson limits of `p₁ = (a + b)/n` and `p₂ = (a + c)/n`,
/// and `φ` the table's correlation with Newcombe's continuity correction of its numerator
/// (`max(ad − bc − n/2, 0)` when `ad > bc`; `φ = 0` when a margin is empty), the limits are
/// `θ − δ` and `θ + ε` with `θ = (b − c)/n`,
/// `δ = √((p₁ − l₁)² − 2φ(p₁ − l₁)(u₂ − p₂) + (u₂ − p₂)²)` and
/// `ε = √((u₁ − p₁)² − 2φ(u₁ − p₁)(p₂ − l₂) + (p₂ − l₂)²)`, clipped to `[−1, 1]`.
/// The tests reproduce the method-10 rows of the paper's worked examples (its Table III).
///
/// `n = 0` gives the estimate `None` and `[−1, 1]`.
///
/// ```
/// use profile_stats::{Level, PairedTable, newcombe_difference};
///
/// // Newcombe's example (a): 36 pairs both positive, 12 first only, 2 second only, 0 neither.
/// let t = PairedTable { both: 36, first_only: 12, second_only: 2, neither: 0 };
/// let i = newcombe_difference(&t, Level::DEFAULT);
/// assert_eq!(i.estimate, Some(0.2));
/// assert_eq!((format!("{:.4}", i.lower), format!("{:.4}", i.upper)), ("0.0569".into(), "0.3404".into()));
/// ```
pub fn newcombe_difference(table: &PairedTable, level: Level) -> Interval {
    let n = table.n();
    let mut interval = no_difference_known(level, Method::NewcombeHybridScore);
    if n == 0 {
        return interval;
    }
    let nf = n as f64;
    let (a, b, c, d) = (
        table.both as f64,
        table.first_only as f64,
        table.second_only as f64,
        table.neither as f64,
    );
    let p1 = (a + b) / nf;
    let p2 = (a + c) / nf;
    let (l1, u1) = wilson_limits(table.first(), n, level);
    let (l2, u2) = wilson_limits(table.second(), n, level);
    let mut numerator = a * d - b * c;
    if numerator > 0.0 {
        numerator = (numerator - nf / 2.0).max(0.0);
    }
    let denominator = ((a + b) * (c + d) * (a + c) * (b + d)).sqrt();
    let phi = if denominator > 0.0 {
        numerator / denominator
    } else {
        0.0
    };
    let theta = (b - c) / nf;
    let delta = ((p1 - l1).powi(2) - 2.0 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2).powi(2))
        .max(0.0)
        .sqrt();
    let epsilon = ((u1 - p1).powi(2) - 2.0 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2).powi(2))
        .max(0.0)
        .sqrt();
    interval.estimate = Some(theta);
    interval.lower = (theta - delta).max(-1.0);
    interval.upper = (theta + epsilon).min(1.0);
    interval
}

/// McNemar's test without continuity correction on `first_only` and `second_only` discordant
/// pairs: the signed statistic `z = (b − c)/√(b + c)` and its two-sided p-value
/// `P(|Z| ≥ |z|)`. No discordant pairs give `(0, 1)`.
///
/// ```
/// use profile_stats::mcnemar_score;
///
/// let (z, p) = mcnemar_score(5, 0);
/// assert_eq!(z, 5f64.sqrt());
/// assert!((p - 0.025_347_318_677_468).abs() < 1e-12);
/// assert_eq!(mcnemar_score(0, 0), (0.0, 1.0));
/// ```
pub fn mcnemar_score(first_only: u64, second_only: u64) -> (f64, f64) {
    let m = first_only + second_only;
    if m == 0 {
        return (0.0, 1.0);
    }
    let z = (first_only as f64 - second_only as f64) / (m as f64).sqrt();
    (z, normal_two_sided_tail(z))
}

/// Tango's score statistic for the paired difference `Δ = p₁ − p₂` of a table: positive when the
/// observed difference is above `Δ`. `Δ` in `[−1, 1]`; ±∞ where its variance vanishes.
fn tango_statistic(table: &PairedTable, delta: f64) -> f64 {
    let n = table.n() as f64;
    let (b, c) = (table.first_only as f64, table.second_only as f64);
    let numerator = b - c - n * delta;
    // The maximum-likelihood p₂₁ (probability of "second only") under the constraint Δ.
    let w = -b - c + (2.0 * n - b + c) * delta;
    let q = ((w * w + 8.0 * n * c * delta * (1.0 - delta))
        .max(0.0)
        .sqrt()
        - w)
        / (4.0 * n);
    let variance = n * (2.0 * q + delta * (1.0 - delta));
    if variance > 0.0 {
        numerator / variance.sqrt()
    } else if numerator == 0.0 {
        0.0
    } else {
        numerator.signum() * f64::INFINITY
    }
}

/// Tango's asymptotic score interval for `p₁ − p₂`, the difference between the proportions of
/// the first and the second outcome of a paired table:
///
/// > T. Tango, "Equivalence test and confidence interval for the difference in proportions for
/// > the paired-sample design", Statistics in Medicine 17:891-908 (1998); correction 18:3511
/// > (1999).
///
/// The interval is every `Δ` with `|Z(Δ)| ≤ z`, `Z(Δ) = (b − c − nΔ)/√(n(2q̃ + Δ(1 − Δ)))` and
/// `q̃` the constrained maximum-likelihood probability of a "second only" text; `Z(0)` is
/// McNemar's statistic, so the interval excludes 0 exactly when [`mcnemar_score`]'s p-value is
/// below `1 − level`. Recommended by Fagerland, Lydersen & Laake (2014, Stat Med 33:2850-2875).
/// The limits are found by bisection (`Z` decreases in `Δ`) to within 1e-12. Checked against an
/// independent numerical maximisation of the likelihood with scipy (fixture `tango.json`).
///
/// `n = 0` gives the estimate `None` and `[−1, 1]`.
///
/// ```
/// use profile_stats::{Level, PairedTable, mcnemar_score, tango_difference};
///
/// // 5 texts where only the first holds, none where only the second does, 95 concordant.
/// let t = PairedTable { both: 80, first_only: 5, second_only: 0, neither: 15 };
/// let i = tango_difference(&t, Level::DEFAULT);
/// assert_eq!(i.estimate, Some(0.05));
/// assert!(i.lower > 0.0 && mcnemar_score(5, 0).1 < 0.05); // they agree
/// ```
pub fn tango_difference(table: &PairedTable, level: Level) -> Interval {
    let n = table.n();
    let mut interval = no_difference_known(level, Method::TangoScore);
    if n == 0 {
        return interval;
    }
    let theta = (table.first_only as f64 - table.second_only as f64) / n as f64;
    let z = level.z();
    let inside = |delta: f64| tango_statistic(table, delta).abs() <= z;
    // The last Δ inside, walking from `from` (inside) towards `to`.
    let edge = |from: f64, to: f64| {
        if inside(to) {
            return to;
        }
        let (mut good, mut bad) = (from, to);
        while (bad - good).abs() > 1e-12 {
            let mid = 0.5 * (good + bad);
            if inside(mid) {
                good = mid;
            } else {
                bad = mid;
            }
        }
        good
    };
    interval.estimate = Some(theta);
    interval.lower = edge(theta, -1.0);
    interval.upper = edge(theta, 1.0);
    interval
}

/// How the p-values of a family of comparisons are adjusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdjustMethod {
    /// Holm's step-down procedure (Holm 1979, Scand J Statist 6:65-70).
    Holm,
}

impl AdjustMethod {
    /// The method's name in JSON.
    pub fn name(self) -> &'static str {
        match self {
            AdjustMethod::Holm => "holm",
        }
    }

    /// One line saying what the adjustment is.
    pub fn description(self) -> &'static str {
        match self {
            AdjustMethod::Holm => {
                "Holm's step-down correction (Holm 1979, Scand J Statist 6:65-70) over every paired \
                 test of the document (a report: its corruptions and invariances; a comparison: \
                 every stage of every pair of students): with the m raw p-values sorted, the j-th \
                 smallest is adjusted to max over i <= j of min(1, (m - i + 1) p_(i)) \
                 (statsmodels' multipletests(method=\"holm\")). Each difference's interval is \
                 Tango's at the level of the Holm step that decided it, 1 - alpha / (m - j + 1) \
                 for a rejected j-th test and 1 - alpha / (m - r) for the others (r rejected), so \
                 it excludes 0 exactly when the adjusted p is below alpha = 1 - level; these \
                 intervals are compatible with the test, not simultaneous"
            }
        }
    }
}

/// The multiplicity adjustment a paired test's `p` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjustment {
    /// How.
    pub method: AdjustMethod,
    /// Over how many tests (1: a test on its own, adjusted for nothing).
    pub family: usize,
}

/// Holm-adjusted p-values of a family, in the given order (statsmodels'
/// `multipletests(p, method="holm")[1]`). NaN is treated as 1.
///
/// ```
/// use profile_stats::holm;
///
/// assert_eq!(holm(&[0.01, 0.04, 0.03]), vec![0.03, 0.06, 0.06]);
/// ```
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let clean = |x: f64| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| clean(p[i]).total_cmp(&clean(p[j])));
    let mut adjusted = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * clean(p[i])).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

/// A paired comparison: the difference of the two proportions with Tango's interval, McNemar's
/// score test of "no difference", and the multiplicity adjustment of its `p`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairedTest {
    /// First proportion minus second, with Tango's interval ([`tango_difference`]) at the level
    /// that matches the adjusted `p` (the report's level for a family of one).
    pub difference: Interval,
    /// The test ([`TestMethod::McnemarScore`]).
    pub test: TestMethod,
    /// Its signed statistic (`(b − c)/√(b + c)`, 0 without discordant pairs).
    pub statistic: f64,
    /// The test's own two-sided p-value, before the adjustment.
    pub p_unadjusted: f64,
    /// The adjusted p-value (see `adjustment`): the one to compare with `1 − level`.
    pub p: f64,
    /// How `p` is adjusted.
    pub adjustment: Adjustment,
    /// Whether "no difference" is rejected: `p < 1 − level` (then, and only then, the interval
    /// excludes 0).
    pub significant: bool,
    /// The table tested (its counts are in the report already).
    #[serde(skip)]
    pub table: PairedTable,
    /// When `difference` is a prediction-powered estimate from a teacher sample: what it was
    /// computed from, so that a family's Holm step re-levels it as it re-levels Tango's
    /// interval (its sums are in the report's counts already).
    #[serde(skip)]
    pub sampled: Option<SampledDifference>,
}

/// A paired difference estimated from a teacher sample (PPI++, `ppi.rs`): the sums of the
/// sampled mean, and how the difference is made of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampledDifference {
    /// The sums of the sampled mean `θ̂`.
    pub sums: PpiSums,
    /// `Some(x)`: the difference is `x − θ̂`, an exact rate minus a sampled one (`θ̂`'s
    /// limits clipped to `[0, 1]` first, as the rate is shown); `None`: `θ̂` is itself the
    /// difference (a mean of −1/0/1 outcomes).
    pub minus_from: Option<f64>,
}

impl SampledDifference {
    /// The difference with its normal interval at `level`, limits in `[−1, 1]` (`None` and
    /// `[−1, 1]` when the sample is empty).
    pub fn interval(&self, level: Level) -> Interval {
        let e = match self.minus_from {
            Some(_) => estimate_rate(&self.sums, level),
            None => self.sums.estimate(Tuning::Power, level),
        };
        let (estimate, lower, upper) = match (self.minus_from, e) {
            (Some(x), Some(e)) => (Some(x - e.estimate), x - e.upper, x - e.lower),
            (None, Some(e)) => (Some(e.estimate), e.lower, e.upper),
            (_, None) => (None, -1.0, 1.0),
        };
        Interval {
            estimate,
            lower: lower.clamp(-1.0, 1.0),
            upper: upper.clamp(-1.0, 1.0),
            level: level.get(),
            method: Method::PpiPowerTuned,
        }
    }
}

impl PairedTest {
    /// The test re-levelled as part of a family: adjusted `p`, and the interval at `level`.
    fn adjusted(mut self, p: f64, family: usize, interval_level: Level, alpha: f64) -> PairedTest {
        self.p = p;
        self.adjustment.family = family;
        self.significant = p < alpha;
        // A prediction-powered difference is re-estimated at the step's level too; it and
        // any other interval are widened to 0 when the test does not reject (the test is
        // McNemar's on the sampled texts, not the interval's inversion).
        self.difference = match (self.difference.method, self.sampled) {
            (Method::TangoScore, _) => consistent(
                tango_difference(&self.table, interval_level),
                self.significant,
            ),
            (_, Some(s)) => consistent(s.interval(interval_level), self.significant),
            _ => consistent(self.difference, self.significant),
        };
        self
    }
}

/// The interval, made to include 0 when the test does not reject (it already does, up to the
/// last bit of the bisection; this makes it a law rather than a numerical accident).
fn consistent(mut interval: Interval, significant: bool) -> Interval {
    if !significant && interval.estimate.is_some() {
        interval.lower = interval.lower.min(0.0);
        interval.upper = interval.upper.max(0.0);
    }
    interval
}

/// Compares the two outcomes of a paired table on its own (a family of one).
pub fn paired_test(table: &PairedTable, level: Level) -> PairedTest {
    let (statistic, p) = mcnemar_score(table.first_only, table.second_only);
    let significant = p < 1.0 - level.get();
    PairedTest {
        difference: consistent(tango_difference(table, level), significant),
        test: TestMethod::McnemarScore,
        statistic,
        p_unadjusted: p,
        p,
        adjustment: Adjustment {
            method: AdjustMethod::Holm,
            family: 1,
        },
        significant,
        table: *table,
        sampled: None,
    }
}

/// Adjusts a family of paired tests together (Holm): every `p` becomes the Holm-adjusted
/// p-value of its `p_unadjusted` within the family, and every Tango interval is recomputed at
/// the level of the Holm step that decided it (see [`AdjustMethod::Holm`]), so that an interval
/// excludes 0 exactly when its adjusted `p` is below `1 − level`.
pub fn adjust_family(tests: &mut [&mut PairedTest], level: Level) {
    let m = tests.len();
    if m == 0 {
        return;
    }
    let alpha = 1.0 - level.get();
    let raw: Vec<f64> = tests.iter().map(|t| t.p_unadjusted).collect();
    let adjusted = holm(&raw);
    let rejected = adjusted.iter().filter(|&&p| p < alpha).count();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| {
        adjusted[i]
            .total_cmp(&adjusted[j])
            .then(raw[i].total_cmp(&raw[j]))
    });
    for (rank, &i) in order.iter().enumerate() {
        let divisor = if adjusted[i] < alpha {
            m - rank
        } else {
            m - rejected
        };
        // 1 − alpha/k is strictly inside (0, 1) for k >= 1 and a valid level.
        let step = Level::new(1.0 - alpha / divisor.max(1) as f64).unwrap_or(level);
        *tests[i] = tests[i].adjusted(adjusted[i], m, step, alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degenerate_tables_are_documented_values() {
        let empty = paired_test(&PairedTable::default(), Level::DEFAULT);
        assert_eq!(empty.difference.estimate, None);
        assert_eq!(
            (empty.difference.lower, empty.difference.upper),
            (-1.0, 1.0)
        );
        assert_eq!(
            (empty.p, empty.statistic, empty.significant),
            (1.0, 0.0, false)
        );
        // All agree on both: no discordant pair, zero difference, p = 1, a non-empty interval.
        let same = paired_test(
            &PairedTable {
                both: 20,
                ..PairedTable::default()
            },
            Level::DEFAULT,
        );
        assert_eq!((same.difference.estimate, same.p), (Some(0.0), 1.0));
        assert!(same.difference.lower < 0.0 && same.difference.upper > 0.0);
        // All disagree, all the same way.
        let all = paired_test(
            &PairedTable {
                first_only: 20,
                ..PairedTable::default()
            },
            Level::DEFAULT,
        );
        assert_eq!(all.difference.estimate, Some(1.0));
        assert_eq!(all.difference.upper, 1.0);
        assert!(all.significant && all.difference.lower > 0.5);
    }

    #[test]
    fn the_issue_table_no_longer_contradicts_itself() {
        // 5 vs 0 discordant texts of 100: Newcombe's interval excluded 0 beside an exact p of
        // 0.0625. The score test and Tango's interval agree.
        let t = PairedTable {
            both: 80,
            first_only: 5,
            second_only: 0,
            neither: 15,
        };
        let test = paired_test(&t, Level::DEFAULT);
        assert!(test.significant && test.difference.lower > 0.0);
        assert!(newcombe_difference(&t, Level::DEFAULT).lower > 0.0);
        assert_eq!(mcnemar_exact(5, 0), 0.0625);
    }

    #[test]
    fn holm_steps_levels_and_keeps_the_order() {
        assert_eq!(holm(&[]), Vec::<f64>::new());
        assert_eq!(holm(&[0.2]), vec![0.2]);
        assert_eq!(holm(&[0.5, 0.5]), vec![1.0, 1.0]);
        assert_eq!(holm(&[f64::NAN, 0.01]), vec![1.0, 0.02]);
    }
}
