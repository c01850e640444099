//! Paired comparisons on the same texts: McNemar's test and Tango's score interval for the
//! difference of two paired proportions, which agree by construction (the interval is the set of
//! differences the same score test does not reject), with Holm's correction over a family of
//! comparisons. The exact McNemar test and Newcombe's interval are kept as functions (validated,
//! documented) but no report uses them any more: they could contradict each other.

use serde::{Deserialize, Serialize};

use crate::binomial::lower_tail_half;
use crate::interval::{Interval, Level, Method, wilson_limits};
use crate::normal::{ln_normal_two_sided_tail, normal_two_sided_tail};
use crate::ppi::{FEW_EVENTS, PpiSums, RareRectifier, Tuning, estimate_rate_unclipped, widening};
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
    /// The test of "no difference" whose inversion is a sampled difference's interval
    /// ([`SampledDifference::log10_p`]): the prediction-powered estimate over its standard
    /// error, and, where the estimate rests on few events, the sample's score test too.
    PpiWald,
}

impl TestMethod {
    /// The test's name in JSON.
    pub fn name(self) -> &'static str {
        match self {
            TestMethod::McnemarExact => "mcnemar_exact",
            TestMethod::McnemarScore => "mcnemar_score",
            TestMethod::PpiWald => "ppi_wald",
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
            TestMethod::PpiWald => PPI_WALD_DESCRIPTION,
        }
    }
}

/// What [`TestMethod::PpiWald`] means, for the glossary of a sampled report or comparison.
pub const PPI_WALD_DESCRIPTION: &str = "the test of a sampled (prediction-powered) difference, \
     the inversion of its interval: z = (estimate - null) / se with the estimate and standard \
     error of ppi_power_tuned (null: the fully observed rate the estimated rate is subtracted \
     from, or 0 for a difference estimated per text), two-sided normal p (with repeated texts      the z whose Student critical value is |estimate - null| / se, so that p is still the level      at which the interval reaches the null); when the estimate rests \
     on few events (few_events) the interval also holds the sample's score interval, and p is \
     the larger of that p and the sample's score test (Wilson's score test of the null rate; \
     McNemar's on the sampled texts); se = 0 gives p = 1 at the null and otherwise the smallest \
     positive double (log10_p = -1.7976931348623157e308: the data exclude the null outright)";

/// The smallest positive double, the `p` a report shows where the p-value itself is below it
/// (its `log10_p` still has the value): a `p` of 0 would claim certainty and tie every such
/// test with every other.
pub const SMALLEST_P: f64 = 5e-324;

/// A p-value from its base-10 logarithm, never 0 (at least [`SMALLEST_P`]) and at most 1.
pub fn p_from_log10(log10_p: f64) -> f64 {
    if log10_p.is_nan() {
        return 1.0;
    }
    10f64.powf(log10_p.min(0.0)).max(SMALLEST_P)
}

/// `log10` of a p-value from its natural logarithm, at most 0, finite (−∞, a p of exactly 0,
/// becomes the most negative double, which JSON can hold); NaN is treated as p = 1.
fn log10_from_ln(ln_p: f64) -> f64 {
    if ln_p.is_nan() {
        return 0.0;
    }
    (ln_p / std::f64::consts::LN_10).clamp(f64::MIN, 0.0)
}

/// `log10` of a two-sided normal p-value of statistic `z`, finite.
fn log10_normal_p(z: f64) -> f64 {
    log10_from_ln(ln_normal_two_sided_tail(z))
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
    (z, normal_two_sided_tail(z).max(SMALLEST_P))
}

/// [`mcnemar_score`]'s statistic and the base-10 logarithm of its p-value, computed in log
/// space so it never underflows (`(0, 0.0)` without discordant pairs).
pub fn mcnemar_score_log10(first_only: u64, second_only: u64) -> (f64, f64) {
    let m = first_only + second_only;
    if m == 0 {
        return (0.0, 0.0);
    }
    let z = (first_only as f64 - second_only as f64) / (m as f64).sqrt();
    (z, log10_normal_p(z))
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

/// Holm-adjusted p-values of a family in log space: `log10` of each adjusted p, from `log10`
/// of the raw ones (NaN is p = 1). Tests are ranked by their raw `log10 p` and, where those
/// are equal, by position; equal raw values always get equal adjusted values (the running
/// maximum carries the first of a tie to the others), so the position never shows.
pub fn holm_log10(log10_p: &[f64]) -> Vec<f64> {
    let m = log10_p.len();
    let clean = |x: f64| if x.is_nan() { 0.0 } else { x.min(0.0) };
    let order = holm_order(log10_p);
    let mut adjusted = vec![0.0; m];
    let mut running = f64::MIN;
    for (rank, &i) in order.iter().enumerate() {
        let step = ((m - rank) as f64).log10() + clean(log10_p[i]);
        running = running.max(step.min(0.0));
        adjusted[i] = running;
    }
    adjusted
}

/// The tests of a family in Holm's order: by raw `log10 p` (NaN as 0), ties by position.
fn holm_order(log10_p: &[f64]) -> Vec<usize> {
    let clean = |x: f64| if x.is_nan() { 0.0 } else { x.min(0.0) };
    let mut order: Vec<usize> = (0..log10_p.len()).collect();
    order.sort_by(|&i, &j| {
        clean(log10_p[i])
            .total_cmp(&clean(log10_p[j]))
            .then(i.cmp(&j))
    });
    order
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
    let clean = |x: f64| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&i, &j| clean(p[i]).total_cmp(&clean(p[j])));
    holm_in_order(p, &order)
}

/// Holm's adjusted p-values with the tests taken in the given (ascending) order.
fn holm_in_order(p: &[f64], order: &[usize]) -> Vec<f64> {
    let m = p.len();
    let clean = |x: f64| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
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
    /// The test's own two-sided p-value, before the adjustment (never 0: at least
    /// [`SMALLEST_P`]).
    pub p_unadjusted: f64,
    /// `log10` of `p_unadjusted`, computed in log space: exact where `p_unadjusted` underflows.
    #[serde(default)]
    pub log10_p_unadjusted: f64,
    /// The adjusted p-value (see `adjustment`): the one to compare with `1 − level` (never 0).
    pub p: f64,
    /// `log10` of the adjusted p-value, computed in log space (Holm's steps on `log10`).
    #[serde(default)]
    pub log10_p: f64,
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
    /// `[−1, 1]` when the sample is empty). Where the estimate rests on few events
    /// ([`SampledDifference::few_events`]) the interval also holds the sample's score interval:
    /// Wilson's of the sampled rate (reflected: `x − ·`), or Tango's of the sampled texts' paired
    /// table for a difference estimated per text.
    pub fn interval(&self, level: Level) -> Interval {
        let (estimate, lower, upper) = match self.minus_from {
            // The rate's limits unclipped, so that clipping never moves 0 (only `[−1, 1]`,
            // whose ends are far from it, bounds the difference).
            Some(x) => match estimate_rate_unclipped(&self.sums, level, FEW_EVENTS) {
                Some(e) => (Some(x - e.estimate), x - e.upper, x - e.lower),
                None => (None, -1.0, 1.0),
            },
            None => match self.sums.estimate(Tuning::Power, level) {
                Some(e) => {
                    let (mut lower, mut upper) = (e.lower, e.upper);
                    if self.few_discordant() {
                        let t = tango_difference(&self.sampled_table(), level);
                        lower = lower.min(t.lower);
                        upper = upper.max(t.upper);
                    }
                    if let Some(r) = self.rare_rectifier() {
                        let half = r.half_width(level.z());
                        lower = lower.min(r.centre() - half);
                        upper = upper.max(r.centre() + half);
                    }
                    (Some(e.estimate), lower, upper)
                }
                None => (None, -1.0, 1.0),
            },
        };
        Interval {
            estimate,
            lower: lower.clamp(-1.0, 1.0),
            upper: upper.clamp(-1.0, 1.0),
            level: level.get(),
            method: Method::PpiPowerTuned,
        }
    }

    /// Whether the estimate rests on few sampled events ([`crate::FEW_EVENTS`]): for a rate,
    /// few sampled events or non-events ([`crate::few_events`]); for a difference estimated per
    /// text, few sampled texts where the two outcomes differ, or where the outcome differs
    /// from its surrogate.
    pub fn few_events(&self) -> bool {
        match self.minus_from {
            Some(_) => widening(&self.sums, FEW_EVENTS).any(),
            None => self.few_discordant() || self.rare_rectifier().is_some(),
        }
    }

    /// A difference estimated per text whose sample has fewer than [`FEW_EVENTS`] texts where
    /// the two outcomes differ.
    fn few_discordant(&self) -> bool {
        let t = self.sampled_table();
        self.minus_from.is_none()
            && self.sums.labelled > 0
            && t.first_only + t.second_only < FEW_EVENTS
    }

    /// A difference estimated per text whose rectifier `r = d − d̂` (in `[−2, 2]`) is rare in
    /// the sample (`Σr² <` [`FEW_EVENTS`], so fewer texts than that have `r ≠ 0`): the
    /// difference estimator `mean_all(d̂) + mean_sample(r)` with a bound on its variance.
    fn rare_rectifier(&self) -> Option<RareRectifier> {
        let s = &self.sums;
        if self.minus_from.is_some() || s.labelled == 0 || s.all == 0 {
            return None;
        }
        RareRectifier::of(s, 2.0, FEW_EVENTS)
    }

    /// The sampled texts' paired table of a difference estimated per text (outcomes −1, 0, 1:
    /// `Σy = b − c`, `Σy² = b + c`); its concordant texts are all counted as `both`, which
    /// neither Tango's interval nor McNemar's test looks at.
    ///
    /// When texts repeat, the table counts effective units ([`PpiSums::effective_labelled`]):
    /// the `c²`-weighted shares of discordant units (`Σc²d² / Σc²`) and of their difference
    /// (`Σc²d / Σc²`) times `n_eff`, rounded to whole texts, so that a text repeated a hundred
    /// times weighs as the design's one draw, not as a hundred independent ones.
    fn sampled_table(&self) -> PairedTable {
        let s = &self.sums;
        let n = s.labelled;
        let (discordant, diff, total) = match s.repeats {
            None => (s.y_y.clamp(0, n as i64), s.y, n),
            Some(r) => {
                let units = s.effective_labelled();
                let per = if r.w_w > 0 { units / r.w_w as f64 } else { 0.0 };
                let total = units.round() as u64;
                let discordant = ((s.y_y as f64 * per).round() as i64).clamp(0, total as i64);
                (discordant, (r.w_y as f64 * per).round() as i64, total)
            }
        };
        let diff = diff.clamp(-discordant, discordant);
        let b = ((discordant + diff) / 2).unsigned_abs();
        let c = ((discordant - diff) / 2).unsigned_abs();
        PairedTable {
            both: total.saturating_sub(b + c),
            first_only: b,
            second_only: c,
            neither: 0,
        }
    }

    /// The statistic and `log10` of the two-sided p-value of "the difference is 0", the
    /// inversion of [`SampledDifference::interval`] (its interval at a level excludes 0 exactly
    /// when `p < 1 − level`): `z = (θ̂ − x)/se` for `x − θ̂`, `θ̂/se` for a difference estimated
    /// per text; with few events the larger p of that and the sample's score test (Wilson's
    /// score test of the rate `x` on the sampled events; McNemar's on the sampled table), whose
    /// statistic is then the one returned — unless the components lie on both sides of 0, when
    /// their hull always holds it (p = 1). No sampled text gives `(0, 0)` (p = 1).
    pub fn log10_p(&self) -> (f64, f64) {
        let Some((estimate, se, _)) = self.sums.estimate_and_se(Tuning::Power) else {
            return (0.0, 0.0);
        };
        // Signed as the difference is: `x − θ̂`, or `θ̂` itself.
        let difference = match self.minus_from {
            Some(x) => x - estimate,
            None => estimate,
        };
        // With repeats the interval uses Student's t (`PpiSums::critical`): its statistic is
        // taken back to the normal scale, so that p is the level at which it reaches 0.
        let z = self.sums.normal_equivalent(ratio_statistic(difference, se));
        let mut tests = vec![(z, log10_normal_p(z))];
        match self.minus_from {
            Some(x) => {
                let widen = widening(&self.sums, FEW_EVENTS);
                if widen.wilson {
                    // Wilson's interval is the inversion of the score test of the rate.
                    // Over the sample's effective units (its lines without repeats).
                    let n = self.sums.labelled as f64;
                    let k = self.sums.y.clamp(0, self.sums.labelled as i64) as f64;
                    let units = self.sums.effective_labelled();
                    let z = ratio_statistic(x - k / n, (x * (1.0 - x) / units).sqrt());
                    tests.push((z, log10_normal_p(z)));
                }
                if widen.rectifier
                    && let Some(r) = RareRectifier::of(&self.sums, 1.0, u64::MAX)
                {
                    // Signed as the difference `x − θ` is.
                    let z = -r.inverted(x);
                    tests.push((z, log10_normal_p(z)));
                }
            }
            None => {
                if self.few_discordant() {
                    let t = self.sampled_table();
                    tests.push(mcnemar_score_log10(t.first_only, t.second_only));
                }
                if let Some(r) = self.rare_rectifier() {
                    let z = r.inverted(0.0);
                    tests.push((z, log10_normal_p(z)));
                }
            }
        }
        // The interval is the hull of its components: it excludes 0 only when every component
        // does, on the same side (then the largest p decides); components on both sides of 0
        // put 0 inside the hull at every level.
        let positive = tests.iter().any(|t| t.0 > 0.0);
        let negative = tests.iter().any(|t| t.0 < 0.0);
        if positive && negative {
            return (0.0, 0.0);
        }
        tests
            .into_iter()
            .fold((0.0, f64::MIN), |a, b| if b.1 > a.1 { b } else { a })
    }
}

/// `d / se`, with `se = 0` giving 0 at `d = 0` and ±∞ otherwise (a point interval excludes
/// every other value at every level).
fn ratio_statistic(d: f64, se: f64) -> f64 {
    if se > 0.0 {
        d / se
    } else if d == 0.0 {
        0.0
    } else {
        d.signum() * f64::INFINITY
    }
}

impl PairedTest {
    /// The test re-levelled as part of a family: adjusted `p`, and the interval at `level`.
    fn adjusted(
        mut self,
        p: f64,
        log10_p: f64,
        family: usize,
        interval_level: Level,
        alpha: f64,
    ) -> PairedTest {
        self.p = p;
        self.log10_p = log10_p;
        self.adjustment.family = family;
        self.significant = p < alpha;
        // A prediction-powered difference is re-estimated at the step's level too; it and
        // any other interval are widened to 0 when the test does not reject (each test is its
        // interval's inversion already, up to the last bit: this makes it a law).
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
    let (statistic, log10_p) = mcnemar_score_log10(table.first_only, table.second_only);
    let p = mcnemar_score(table.first_only, table.second_only).1;
    let test = (TestMethod::McnemarScore, statistic, p, log10_p);
    alone(tango_difference(table, level), test, table, None, level)
}

/// A paired test whose difference is estimated from a teacher sample (a family of one): the
/// difference's interval ([`SampledDifference::interval`]) and the test that is its inversion
/// ([`SampledDifference::log10_p`], [`TestMethod::PpiWald`]), so the two cannot disagree.
/// `table` is the sampled texts' table (kept, not tested).
pub fn sampled_test(table: &PairedTable, sampled: SampledDifference, level: Level) -> PairedTest {
    let (statistic, log10_p) = sampled.log10_p();
    // The p-value itself where it does not underflow (the same number as `normal_two_sided_tail`).
    let p = match normal_two_sided_tail(statistic) {
        p if p >= 1e-300 && !statistic.is_nan() => p,
        _ => p_from_log10(log10_p),
    };
    let test = (TestMethod::PpiWald, statistic, p, log10_p);
    alone(sampled.interval(level), test, table, Some(sampled), level)
}

/// A test on its own: `test` is (method, statistic, p, log10 p).
fn alone(
    difference: Interval,
    (test, statistic, p, log10_p): (TestMethod, f64, f64, f64),
    table: &PairedTable,
    sampled: Option<SampledDifference>,
    level: Level,
) -> PairedTest {
    let significant = p < 1.0 - level.get();
    PairedTest {
        difference: consistent(difference, significant),
        test,
        statistic,
        p_unadjusted: p,
        log10_p_unadjusted: log10_p,
        p,
        log10_p,
        adjustment: Adjustment {
            method: AdjustMethod::Holm,
            family: 1,
        },
        significant,
        table: *table,
        sampled,
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
    // In log space, so p-values below the smallest double still rank by their statistic.
    let raw: Vec<f64> = tests.iter().map(|t| t.log10_p_unadjusted).collect();
    let adjusted = holm_log10(&raw);
    let order = holm_order(&raw);
    // The p-values themselves from the raw ones where no step underflows (the same numbers,
    // to the last bit, as statsmodels' multipletests), from the logarithms where one does.
    let direct = holm_in_order(
        &tests.iter().map(|t| t.p_unadjusted).collect::<Vec<_>>(),
        &order,
    );
    let p: Vec<f64> = direct
        .iter()
        .zip(&adjusted)
        .map(|(&d, &l)| if d >= 1e-300 { d } else { p_from_log10(l) })
        .collect();
    let rejected = p.iter().filter(|&&p| p < alpha).count();
    // A tie of raw p-values shares the Holm step of its first member: equal tables get equal
    // intervals whatever their position (each of the tie is rejected at that step's level,
    // as the first is, since their raw p is the same).
    let mut step_rank = 0;
    for (rank, &i) in order.iter().enumerate() {
        if rank == 0 || raw[i].total_cmp(&raw[order[rank - 1]]).is_ne() {
            step_rank = rank;
        }
        let divisor = if p[i] < alpha {
            m - step_rank
        } else {
            m - rejected
        };
        // 1 − alpha/k is strictly inside (0, 1) for k >= 1 and a valid level.
        let step = Level::new(1.0 - alpha / divisor.max(1) as f64).unwrap_or(level);
        *tests[i] = tests[i].adjusted(p[i], adjusted[i], m, step, alpha);
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
