//! Severity curves: how a rate falls as a family of corruptions gets more severe.

use serde::{Deserialize, Serialize};

/// One measured point of a curve before pooling: a stage at a severity, with the numerator and
/// denominator of its rate (agreeing texts / texts, or `2·tp` / `2·tp + fp + fn`).
#[derive(Debug, Clone, PartialEq)]
pub struct CurveInput {
    /// The stage (`"clean"` for the clean point).
    pub stage: String,
    /// Its severity (0 for the clean point).
    pub severity: f64,
    /// Numerator of the rate.
    pub hits: u64,
    /// Denominator of the rate.
    pub total: u64,
    /// `Some` when the rate is a prediction-powered estimate of its full-profile value (a
    /// sampled teacher; `hits`/`total` then count the sample and are not used): the estimate,
    /// or `None` when there is none (no sampled text). `None`: the rate is `hits / total`.
    pub estimate: Option<Option<f64>>,
}

/// One point of a curve: the stages at one severity, pooled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The severity.
    pub severity: f64,
    /// The stages measured at this severity (`"clean"` is the clean texts).
    pub stages: Vec<String>,
    /// The rate, pooled over those stages (hits and totals added); `None` without texts.
    pub value: Option<f64>,
}

/// Where the curve first falls below a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BreakEven {
    /// The threshold (the report's `settings.break_even`).
    pub threshold: f64,
    /// The first severity at which the curve is below the threshold, interpolated linearly
    /// between the last point at or above it and the first point below it (`0` when the clean
    /// point is already below); `None` when the curve never falls below it, or has no values.
    pub severity: Option<f64>,
}

/// The curve of one corruption family: the clean point at severity 0, then every corruption of
/// the family with a severity, in increasing severity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeverityCurve {
    /// What the curve measures (`agreement`, or the student's `f1` for extractors).
    pub metric: String,
    /// The points, severity 0 first, severities increasing; stages of equal severity pooled.
    pub points: Vec<CurvePoint>,
    /// The normalised area under the curve: the trapezoid rule over `[0, max severity]`
    /// divided by the max severity (so a flat curve at value `v` has area `v`). `None` when
    /// the max severity is 0 or a point has no value.
    pub auc: Option<f64>,
    /// The break-even severity.
    pub break_even: BreakEven,
    /// Set when a point is a prediction-powered estimate (a profile whose teacher answered a
    /// sample of the transformed texts): the estimator (`ppi_power_tuned`). The points are
    /// then estimates of the full profile's rates and the area and break-even severity are
    /// computed from them, as point estimates without an interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated: Option<String>,
}

/// Builds a curve from its clean point and the family's corruptions (any order). `n` is the
/// number of texts: `n = 0` leaves every value `None`. A total of 0 with texts (an extractor
/// stage without any field) has the value `1.0`, upstream's F1 convention. Stages of equal
/// severity pool their counts; where one of them is an estimate ([`CurveInput::estimate`]),
/// the point is the mean of the stages' rates (every stage of a profile has the same texts,
/// so this is the pooled rate of the full profile), and the curve is marked `estimated`.
pub fn severity_curve(
    metric: &str,
    clean: CurveInput,
    corruptions: &[CurveInput],
    n: u64,
    threshold: f64,
) -> SeverityCurve {
    let mut inputs: Vec<&CurveInput> = std::iter::once(&clean).chain(corruptions).collect();
    // Stable: the clean point stays first among severity-0 stages, suite order otherwise.
    inputs.sort_by(|a, b| a.severity.total_cmp(&b.severity));
    let mut pooled: Vec<(f64, Vec<&CurveInput>)> = Vec::new();
    for input in inputs {
        match pooled.last_mut() {
            Some(last) if last.0 == input.severity => last.1.push(input),
            _ => pooled.push((input.severity, vec![input])),
        }
    }
    let counted = |hits: u64, total: u64| match (n, total) {
        (0, _) => None,
        (_, 0) => Some(1.0),
        _ => Some(hits as f64 / total as f64),
    };
    let points: Vec<CurvePoint> = pooled
        .into_iter()
        .map(|(severity, stages)| {
            let value = if stages.iter().any(|s| s.estimate.is_some()) {
                let rates: Option<Vec<f64>> = stages
                    .iter()
                    .map(|s| s.estimate.unwrap_or_else(|| counted(s.hits, s.total)))
                    .collect();
                rates.map(|r| r.iter().sum::<f64>() / r.len() as f64)
            } else {
                counted(
                    stages.iter().map(|s| s.hits).sum(),
                    stages.iter().map(|s| s.total).sum(),
                )
            };
            CurvePoint {
                severity,
                stages: stages.iter().map(|s| s.stage.clone()).collect(),
                value,
            }
        })
        .collect();
    let values: Option<Vec<(f64, f64)>> = points
        .iter()
        .map(|p| p.value.map(|v| (p.severity, v)))
        .collect();
    let auc = values.as_deref().and_then(normalised_area);
    let severity = values.as_deref().and_then(|v| break_even(v, threshold));
    let estimated = std::iter::once(&clean)
        .chain(corruptions)
        .any(|i| i.estimate.is_some())
        .then(|| crate::interval::PPI_METHOD.to_owned());
    SeverityCurve {
        metric: metric.to_owned(),
        points,
        auc,
        break_even: BreakEven {
            threshold,
            severity,
        },
        estimated,
    }
}

/// Trapezoid area over `[0, max]` divided by `max`; `None` when `max` is 0.
fn normalised_area(points: &[(f64, f64)]) -> Option<f64> {
    let max = points.last()?.0;
    if max <= 0.0 {
        return None;
    }
    let area: f64 = points
        .windows(2)
        .map(|w| (w[1].0 - w[0].0) * (w[0].1 + w[1].1) / 2.0)
        .sum();
    Some(area / max)
}

/// The first severity at which the values fall below `threshold`, linearly interpolated.
fn break_even(points: &[(f64, f64)], threshold: f64) -> Option<f64> {
    let below = points.iter().position(|&(_, v)| v < threshold)?;
    if below == 0 {
        return Some(points[0].0);
    }
    let (s0, v0) = points[below - 1];
    let (s1, v1) = points[below];
    // v0 ≥ threshold > v1, so the denominator is positive.
    Some(s0 + (v0 - threshold) / (v0 - v1) * (s1 - s0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(stage: &str, severity: f64, hits: u64, total: u64) -> CurveInput {
        CurveInput {
            stage: stage.into(),
            severity,
            hits,
            total,
            estimate: None,
        }
    }

    #[test]
    fn area_and_break_even_by_hand() {
        // Clean 1.0, 0.1 → 0.9, 0.2 → 0.5 (given out of order).
        let curve = severity_curve(
            "agreement",
            input("clean", 0.0, 10, 10),
            &[input("t20", 0.2, 5, 10), input("t10", 0.1, 9, 10)],
            10,
            0.8,
        );
        let severities: Vec<f64> = curve.points.iter().map(|p| p.severity).collect();
        assert_eq!(severities, [0.0, 0.1, 0.2]);
        // (0.1·(1 + 0.9)/2 + 0.1·(0.9 + 0.5)/2) / 0.2 = 0.825
        assert!((curve.auc.unwrap() - 0.825).abs() < 1e-12);
        // Between (0.1, 0.9) and (0.2, 0.5): 0.1 + (0.9 − 0.8)/(0.4)·0.1 = 0.125.
        assert!((curve.break_even.severity.unwrap() - 0.125).abs() < 1e-12);
    }

    #[test]
    fn never_crossed_is_none_and_clean_below_is_zero() {
        let curve = severity_curve(
            "agreement",
            input("clean", 0.0, 10, 10),
            &[input("t", 0.5, 10, 10)],
            10,
            0.9,
        );
        assert_eq!(curve.break_even.severity, None);
        assert_eq!(curve.auc, Some(1.0));
        let low = severity_curve(
            "agreement",
            input("clean", 0.0, 1, 10),
            &[input("t", 0.5, 1, 10)],
            10,
            0.9,
        );
        assert_eq!(low.break_even.severity, Some(0.0));
    }

    #[test]
    fn equal_severities_pool_and_degenerate_curves_have_no_area() {
        let curve = severity_curve(
            "agreement",
            input("clean", 0.0, 4, 4),
            &[
                input("a", 0.0, 0, 4),
                input("b", 0.3, 1, 4),
                input("c", 0.3, 3, 4),
            ],
            4,
            0.9,
        );
        assert_eq!(curve.points[0].stages, ["clean", "a"]);
        assert_eq!(curve.points[0].value, Some(0.5));
        assert_eq!(curve.points[1].value, Some(0.5));
        let flat = severity_curve(
            "agreement",
            input("clean", 0.0, 4, 4),
            &[input("a", 0.0, 4, 4)],
            4,
            0.9,
        );
        assert_eq!(flat.auc, None);
        let empty = severity_curve(
            "agreement",
            input("clean", 0.0, 0, 0),
            &[input("a", 0.1, 0, 0)],
            0,
            0.9,
        );
        assert_eq!((empty.auc, empty.break_even.severity), (None, None));
        assert!(empty.points.iter().all(|p| p.value.is_none()));
    }
}
