//! Paired comparisons on the same texts: the exact McNemar test and Newcombe's interval for the
//! difference of two paired proportions.

use serde::{Deserialize, Serialize};

use crate::binomial::lower_tail_half;
use crate::interval::{Interval, Level, Method, wilson_limits};

/// A 2×2 table of two binary outcomes observed on the same texts (the generic form of every
/// paired table of the counts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairedTable {
    /// Both outcomes true.
    pub both: u64,
    /// Only the first outcome true.
    pub first_only: u64,
    /// Only the second outcome true.
    pub second_only: u64,
    /// Neither outcome true.
    pub neither: u64,
}

impl PairedTable {
    /// Number of texts.
    pub fn n(&self) -> u64 {
        self.both + self.first_only + self.second_only + self.neither
    }

    /// Texts where the first outcome is true.
    pub fn first(&self) -> u64 {
        self.both + self.first_only
    }

    /// Texts where the second outcome is true.
    pub fn second(&self) -> u64 {
        self.both + self.second_only
    }
}

/// The name of a test, in the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestMethod {
    /// The exact (binomial) two-sided McNemar test on the discordant pairs.
    McnemarExact,
}

impl TestMethod {
    /// The test's name in JSON.
    pub fn name(self) -> &'static str {
        match self {
            TestMethod::McnemarExact => "mcnemar_exact",
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
    let mut interval = Interval {
        estimate: None,
        lower: -1.0,
        upper: 1.0,
        level: level.get(),
        method: Method::NewcombeHybridScore,
    };
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

/// A paired comparison: the difference of the two proportions with Newcombe's interval, and the
/// exact McNemar p-value of "no difference".
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairedTest {
    /// First proportion minus second, with its interval ([`newcombe_difference`]).
    pub difference: Interval,
    /// The test ([`TestMethod::McnemarExact`]).
    pub test: TestMethod,
    /// Its two-sided p-value ([`mcnemar_exact`]).
    pub p: f64,
}

/// Compares the two outcomes of a paired table.
pub fn paired_test(table: &PairedTable, level: Level) -> PairedTest {
    PairedTest {
        difference: newcombe_difference(table, level),
        test: TestMethod::McnemarExact,
        p: mcnemar_exact(table.first_only, table.second_only),
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
        assert_eq!(empty.p, 1.0);
        // All agree on both: no discordant pair, zero difference, p = 1.
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
        assert_eq!(all.p, 2.0 * 0.5f64.powi(20));
    }
}
