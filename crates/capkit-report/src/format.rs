//! How numbers and test results are written on a page: rates as percentages, differences in
//! percentage points, p-values, and the verdict of a paired test in words.

use profile_stats::{Interval, Method, PairedTest};

/// A rate as a percentage with one decimal (`70.0 %`), or `n/a` when undefined.
pub fn percent(rate: Option<f64>) -> String {
    match rate {
        Some(r) if r.is_finite() => format!("{:.1} %", r * 100.0),
        _ => "n/a".to_owned(),
    }
}

/// An interval's limits as percentages (`[39.7, 89.2] %`).
pub fn limits(interval: &Interval) -> String {
    format!(
        "[{:.1}, {:.1}]",
        interval.lower * 100.0,
        interval.upper * 100.0
    )
}

/// A rate with its interval: `70.0 % [39.7, 89.2]`, followed by ` (estimated)` when the teacher
/// answered a sample and the figure is a prediction-powered estimate.
pub fn rate_with_interval(interval: &Interval) -> String {
    format!(
        "{} {}{}",
        percent(interval.estimate),
        limits(interval),
        estimated(interval)
    )
}

/// ` (estimated)` for a prediction-powered estimate (a sampled teacher), else nothing.
pub fn estimated(interval: &Interval) -> &'static str {
    if interval.method == Method::PpiPowerTuned {
        " (estimated)"
    } else {
        ""
    }
}

/// A difference of rates in percentage points with its interval: `+50.0 pts [+12.3, +75.1]`.
/// One decimal, more where a limit of an interval that excludes 0 would otherwise print as
/// `+0.0` (a bound that reads as 0 beside a significant test would contradict it):
/// `+1.5 pts [+0.02, +3.0]`, at most six decimals.
pub fn points_with_interval(interval: &Interval) -> String {
    let digits = points_digits(interval);
    let estimate = match interval.estimate {
        Some(d) if d.is_finite() => format!("{} pts", signed(d * 100.0, 1)),
        _ => "n/a".to_owned(),
    };
    format!(
        "{estimate} [{}, {}]{}",
        signed(interval.lower * 100.0, digits.0),
        signed(interval.upper * 100.0, digits.1),
        estimated(interval)
    )
}

/// `v` with a sign and `digits` decimals.
fn signed(v: f64, digits: usize) -> String {
    format!("{v:+.digits$}")
}

/// Decimals of each limit of a difference in points: one, or as many as make a limit of an
/// interval excluding 0 visibly non-zero (up to six).
fn points_digits(interval: &Interval) -> (usize, usize) {
    let excludes_zero = interval.lower > 0.0 || interval.upper < 0.0;
    let needed = |v: f64| {
        let pts = (v * 100.0).abs();
        if !excludes_zero || pts == 0.0 || !pts.is_finite() {
            return 1;
        }
        (1..=6)
            .find(|&d| pts >= 0.5 * 10f64.powi(-(d as i32)))
            .unwrap_or(6)
    };
    (needed(interval.lower), needed(interval.upper))
}

/// A difference in points with its interval, without the unit (a column heading gives it):
/// `-12.5 [-20.3, -7.4]`.
pub fn points_bare(interval: &Interval) -> String {
    points_with_interval(interval).replacen(" pts", "", 1)
}

/// A p-value as a reviewer reads it: `p < 0.001`, `p = 0.031`, `p = 1`.
pub fn p_value(p: f64) -> String {
    if !p.is_finite() {
        "p = n/a".to_owned()
    } else if p < 0.001 {
        "p < 0.001".to_owned()
    } else if p >= 1.0 {
        "p = 1".to_owned()
    } else {
        format!("p = {p:.3}")
    }
}

/// A score in `[0, 1]` with three decimals (the typo table's precision).
pub fn score(value: f64) -> String {
    if value.is_finite() {
        format!("{value:.3}")
    } else {
        "n/a".to_owned()
    }
}

/// A severity or threshold: the shortest decimal that round-trips (`0.05`, `0.125`).
pub fn number(value: f64) -> String {
    if value.is_finite() {
        // Ten significant digits, then the shortest form: a severity computed by float
        // arithmetic (0.05 + 0.1 = 0.15000000000000002) prints as the 0.15 it means, and a
        // declared one prints as written.
        let rounded = format!("{value:.9e}").parse::<f64>().unwrap_or(value);
        format!("{rounded}")
    } else {
        "n/a".to_owned()
    }
}

/// An interpolated severity (a break-even point) to three decimals (`0.063`, not
/// `0.06314635398737808`): it is a linear interpolation between measured points, no more
/// precise than they are; a short given value (`0.05`) stays as it is.
pub fn interpolated(value: f64) -> String {
    let full = number(value);
    if full.len() <= 5 || !value.is_finite() {
        return full;
    }
    let short = format!("{value:.3}");
    short.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Whether a paired test rejects "no difference" at the report's level: its adjusted `p` is
/// below `1 − level` (the test says so itself; `level` is kept for the callers' symmetry).
pub fn significant(test: &PairedTest, _level: f64) -> bool {
    test.significant
}

/// A paired test's p-value, saying how it is adjusted: `Holm-adjusted p = 0.031` in a family of
/// several tests, `p = 0.031` for a test on its own.
pub fn test_p(test: &PairedTest) -> String {
    let p = p_value(test.p);
    if test.adjustment.family > 1 {
        format!("Holm-adjusted {p}")
    } else {
        p
    }
}

/// The outcome of a paired test, for a reader: which side is significantly higher, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The first proportion is significantly higher.
    FirstHigher,
    /// The second proportion is significantly higher.
    SecondHigher,
    /// No significant difference (or no data).
    NoDifference,
}

impl Direction {
    /// The direction of a paired test at `level`.
    pub fn of(test: &PairedTest, level: f64) -> Direction {
        match test.difference.estimate {
            Some(d) if significant(test, level) && d > 0.0 => Direction::FirstHigher,
            Some(d) if significant(test, level) && d < 0.0 => Direction::SecondHigher,
            _ => Direction::NoDifference,
        }
    }
}

/// The verdict on an invariance: `student significantly less invariant than teacher, p = 0.003`
/// (the test compares violation rates, student first).
pub fn invariance_verdict(test: &PairedTest, level: f64, student: &str, teacher: &str) -> String {
    let p = test_p(test);
    match Direction::of(test, level) {
        Direction::FirstHigher => {
            format!("{student} significantly less invariant than {teacher}, {p}")
        }
        Direction::SecondHigher => {
            format!("{student} significantly more invariant than {teacher}, {p}")
        }
        Direction::NoDifference => {
            format!("no significant difference between {student} and {teacher}, {p}")
        }
    }
}

/// The verdict on a corruption: does agreement (or exact match) drop from the clean texts?
/// (The test compares clean minus corrupted.)
pub fn corruption_verdict(test: &PairedTest, level: f64, what: &str) -> String {
    let p = test_p(test);
    match Direction::of(test, level) {
        Direction::FirstHigher => format!("{what} drops significantly, {p}"),
        Direction::SecondHigher => format!("{what} rises significantly, {p}"),
        Direction::NoDifference => format!("no significant change in {what}, {p}"),
    }
}

/// The verdict on two students at one stage; `higher` names what the difference measures
/// (`agrees with the teacher more often`, `violates the invariance more often`).
pub fn pair_verdict(
    test: &PairedTest,
    level: f64,
    first: &str,
    second: &str,
    higher: &str,
) -> String {
    let p = test_p(test);
    match Direction::of(test, level) {
        Direction::FirstHigher => format!("{first} {higher} than {second}, {p}"),
        Direction::SecondHigher => format!("{second} {higher} than {first}, {p}"),
        Direction::NoDifference => {
            format!("no significant difference between {first} and {second}, {p}")
        }
    }
}

/// When a page is generated, in seconds since the epoch: `source_date_epoch` (the value of
/// `$SOURCE_DATE_EPOCH`, for reproducible pages) when given, else `now`.
///
/// ```
/// use capkit_report::format::page_time;
///
/// assert_eq!(page_time(Some(" 1700000000\n"), 5)?, 1_700_000_000);
/// assert_eq!(page_time(None, 5)?, 5);
/// assert!(page_time(Some("soon"), 5).is_err());
/// # Ok::<(), capkit_report::Error>(())
/// ```
pub fn page_time(source_date_epoch: Option<&str>, now: i64) -> Result<i64, crate::Error> {
    match source_date_epoch {
        Some(s) => s
            .trim()
            .parse()
            .map_err(|_| crate::Error::SourceDateEpoch(s.to_owned())),
        None => Ok(now),
    }
}

/// A Unix time (seconds) as `YYYY-MM-DD HH:MM UTC` (proleptic Gregorian calendar).
pub fn utc_date(unix_seconds: i64) -> String {
    let days = unix_seconds.div_euclid(86_400);
    let secs = unix_seconds.rem_euclid(86_400);
    // Days to civil date (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        secs / 3_600,
        secs % 3_600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use profile_stats::{Level, PairedTable, paired_test, wilson};

    #[test]
    fn rates_points_and_p_values() {
        assert_eq!(percent(Some(0.7)), "70.0 %");
        assert_eq!(percent(None), "n/a");
        let i = wilson(7, 10, Level::DEFAULT);
        assert_eq!(rate_with_interval(&i), "70.0 % [39.7, 89.2]");
        assert_eq!(p_value(0.0004), "p < 0.001");
        assert_eq!(p_value(0.0031), "p = 0.003");
        assert_eq!(p_value(1.0), "p = 1");
        assert_eq!(number(0.05), "0.05");
        // Issue 36: float noise of a computed severity is never printed.
        assert_eq!(number(0.05 + 0.1), "0.15");
        assert_eq!(number(0.1 + 0.2), "0.3");
        assert_eq!(number(1e-13), "0.0000000000001");
        assert_eq!(number(2.0), "2");
        assert_eq!(interpolated(0.06314635398737808), "0.063");
        assert_eq!(interpolated(0.05), "0.05");
        assert_eq!(interpolated(0.2), "0.2");
        assert_eq!(score(2.0 / 3.0), "0.667");
    }

    /// Issue 36: a limit of an interval that excludes 0 never prints as 0.
    #[test]
    fn a_significant_bound_is_never_shown_as_zero() {
        let d = |lower: f64, estimate: f64, upper: f64| Interval {
            estimate: Some(estimate),
            lower,
            upper,
            level: 0.95,
            method: Method::TangoScore,
        };
        assert_eq!(
            points_with_interval(&d(0.0002, 0.015, 0.03)),
            "+1.5 pts [+0.02, +3.0]"
        );
        assert_eq!(
            points_with_interval(&d(-0.03, -0.015, -0.000004)),
            "-1.5 pts [-3.0, -0.0004]"
        );
        // An interval holding 0 keeps one decimal.
        assert_eq!(
            points_with_interval(&d(-0.0002, 0.015, 0.03)),
            "+1.5 pts [-0.0, +3.0]"
        );
        assert_eq!(points_bare(&d(0.0002, 0.015, 0.03)), "+1.5 [+0.02, +3.0]");
    }

    #[test]
    fn verdicts_name_the_direction_only_when_significant() {
        // Student changed alone on 12 texts, teacher alone on none: z = √12, p < 0.001.
        let t = PairedTable {
            both: 0,
            first_only: 12,
            second_only: 0,
            neither: 8,
        };
        let test = paired_test(&t, Level::DEFAULT);
        assert_eq!(
            invariance_verdict(&test, 0.95, "student", "teacher"),
            "student significantly less invariant than teacher, p < 0.001"
        );
        assert!(points_with_interval(&test.difference).starts_with("+60.0 pts ["));
        let reversed = paired_test(
            &PairedTable {
                first_only: 0,
                second_only: 12,
                ..t
            },
            Level::DEFAULT,
        );
        assert_eq!(
            invariance_verdict(&reversed, 0.95, "student", "teacher"),
            "student significantly more invariant than teacher, p < 0.001"
        );
        let even = paired_test(
            &PairedTable {
                first_only: 2,
                second_only: 1,
                ..t
            },
            Level::DEFAULT,
        );
        assert_eq!(
            invariance_verdict(&even, 0.95, "student", "teacher"),
            "no significant difference between student and teacher, p = 0.564"
        );
        assert_eq!(
            corruption_verdict(&test, 0.95, "agreement"),
            "agreement drops significantly, p < 0.001"
        );
        assert_eq!(
            pair_verdict(
                &reversed,
                0.95,
                "a",
                "b",
                "agrees with the teacher more often"
            ),
            "b agrees with the teacher more often than a, p < 0.001"
        );
        // In a family, the p-value says it is adjusted.
        let (mut a, mut b) = (test, even);
        profile_stats::adjust_family(&mut [&mut a, &mut b], Level::DEFAULT);
        assert_eq!(test_p(&a), "Holm-adjusted p = 0.001");
        assert_eq!(test_p(&b), "Holm-adjusted p = 0.564");
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc_date(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_date(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc_date(1_798_761_599), "2026-12-31 23:59 UTC");
        assert_eq!(utc_date(-1), "1969-12-31 23:59 UTC");
    }
}
