//! The figures `profile-stats` derives from a report's counts, by task, with the accessors the
//! articles and the verdict read them through. A leaf of the page: the profile and comparison
//! articles and the verdict all import it, and it imports none of them.

use profile_stats::analysis::{self, AbstentionAnalysis, ClassifyAnalysis, ExtractAnalysis};
use profile_stats::{Counts, Interval, PairedTest, ProfileReport, SeverityCurve};

use crate::svg::IntervalRow;

/// A family is drawn as a curve, with its area and break-even severity, only when it has at
/// least this many severities of its own: the clean point (severity 0, common to every family)
/// is not counted. A line from the clean texts through one or two measured points is no curve,
/// and a break-even interpolated on it names a severity never measured; such stages are dots
/// with their intervals instead ([`Figures::dot_stages`]).
pub(crate) const CURVE_SEVERITIES: usize = 3;

/// Whether a family's curve is drawn ([`CURVE_SEVERITIES`]).
pub(crate) fn is_drawn(curve: &SeverityCurve) -> bool {
    curve.points.iter().filter(|p| p.severity > 0.0).count() >= CURVE_SEVERITIES
}

/// The figures of a report, by task.
pub(crate) enum Figures {
    Classify(ClassifyAnalysis),
    Extract(ExtractAnalysis),
}

impl Figures {
    /// The figures `profile-stats` derives from the report's counts.
    pub(crate) fn of(report: &ProfileReport) -> Figures {
        match &report.counts {
            Counts::Classify(c) => {
                Figures::Classify(analysis::classify(c, &report.suite, &report.settings))
            }
            Counts::Extract(c) => {
                Figures::Extract(analysis::extract(c, &report.suite, &report.settings))
            }
        }
    }

    pub(crate) fn curves(&self) -> &indexmap::IndexMap<String, SeverityCurve> {
        match self {
            Figures::Classify(a) => &a.curves,
            Figures::Extract(a) => &a.curves,
        }
    }

    /// The families drawn as curves ([`is_drawn`]), in the report's order.
    pub(crate) fn drawn_curves(&self) -> Vec<(&str, &SeverityCurve)> {
        self.curves()
            .iter()
            .filter(|(_, c)| is_drawn(c))
            .map(|(k, c)| (k.as_str(), c))
            .collect()
    }

    /// Every corruption on no drawn curve (its family has fewer than [`CURVE_SEVERITIES`]
    /// severities, or it has no severity), with its headline (agreement against the reference
    /// it declares, or the student's F1), in suite order: the stages of the dot plot.
    pub(crate) fn dot_stages(&self) -> Vec<(&str, &Interval)> {
        let drawn = self.drawn_curves();
        let on_curve = |stage: &str| {
            drawn
                .iter()
                .any(|(_, c)| c.points.iter().any(|p| p.stages.iter().any(|s| s == stage)))
        };
        self.headlines()
            .into_iter()
            .filter(|(k, _)| !on_curve(k))
            .collect()
    }

    /// Every corruption's headline (agreement against the reference it declares, or the
    /// student's F1), in suite order.
    pub(crate) fn headlines(&self) -> Vec<(&str, &Interval)> {
        match self {
            Figures::Classify(a) => a
                .corruptions
                .iter()
                .map(|(k, c)| (k.as_str(), c.headline().0))
                .collect(),
            Figures::Extract(a) => a
                .corruptions
                .iter()
                .map(|(k, c)| (k.as_str(), &c.student_f1))
                .collect(),
        }
    }

    /// [`Figures::headlines`] of the corruptions that changed some text (the others measure
    /// nothing).
    pub(crate) fn measured_headlines(&self) -> Vec<(&str, &Interval)> {
        self.headlines()
            .into_iter()
            .filter(|(k, _)| !self.changed_nothing(k, false))
            .collect()
    }

    pub(crate) fn abstention(&self) -> Option<&AbstentionAnalysis> {
        match self {
            Figures::Classify(a) => a.abstention.as_ref(),
            Figures::Extract(a) => a.abstention.as_ref(),
        }
    }

    /// Every invariance's violation rates and paired test, in suite order.
    pub(crate) fn invariances(&self) -> Vec<InvarianceRow<'_>> {
        match self {
            Figures::Classify(a) => a
                .invariances
                .iter()
                .map(|(name, i)| InvarianceRow {
                    name,
                    student: &i.student_violation,
                    teacher: &i.teacher_violation,
                    test: &i.student_vs_teacher,
                    texts_changed: i.texts_changed,
                })
                .collect(),
            Figures::Extract(a) => a
                .invariances
                .iter()
                .map(|(name, i)| InvarianceRow {
                    name,
                    student: &i.student_violation,
                    teacher: &i.teacher_violation,
                    test: &i.student_vs_teacher,
                    // Extractor reports do not count the texts a rewrite changed.
                    texts_changed: None,
                })
                .collect(),
        }
    }

    /// The texts a corruption changed, when the report counted them (classifier reports
    /// written since issue 32).
    pub(crate) fn corruption_changed(&self, name: &str) -> Option<u64> {
        match self {
            Figures::Classify(a) => a.corruptions.get(name)?.texts_changed,
            Figures::Extract(_) => None,
        }
    }

    /// Whether a stage (a corruption or an invariance) is known to have changed no text: it
    /// measures nothing, so rankings and verdicts leave it out (as `profile-stats` leaves its
    /// test out of the Holm family).
    pub(crate) fn changed_nothing(&self, name: &str, invariance: bool) -> bool {
        match self {
            Figures::Classify(a) if invariance => {
                a.invariances.get(name).is_some_and(|i| i.changed_nothing())
            }
            Figures::Classify(a) => a.corruptions.get(name).is_some_and(|c| c.changed_nothing()),
            Figures::Extract(_) => false,
        }
    }

    /// The stages that changed no text, corruptions then invariances, in suite order.
    pub(crate) fn no_op_stages(&self) -> Vec<&str> {
        match self {
            Figures::Classify(a) => a
                .corruptions
                .iter()
                .filter(|(_, c)| c.changed_nothing())
                .map(|(k, _)| k.as_str())
                .chain(
                    a.invariances
                        .iter()
                        .filter(|(_, i)| i.changed_nothing())
                        .map(|(k, _)| k.as_str()),
                )
                .collect(),
            Figures::Extract(_) => Vec::new(),
        }
    }

    /// The headline rate on clean texts: agreement, or the student's micro F1.
    pub(crate) fn clean(&self) -> &Interval {
        match self {
            Figures::Classify(a) => &a.clean.agreement,
            Figures::Extract(a) => &a.clean.f1,
        }
    }
}

/// One invariance's student and teacher violation rates, for the chart and the table.
pub(crate) struct InvarianceRow<'a> {
    pub name: &'a str,
    pub student: &'a Interval,
    pub teacher: &'a Interval,
    pub test: &'a PairedTest,
    /// Texts the rewrite changed (`None`: not counted, an older or extractor report).
    pub texts_changed: Option<u64>,
}

impl InvarianceRow<'_> {
    /// Whether the rewrite changed no text (it measures nothing).
    pub(crate) fn changed_nothing(&self) -> bool {
        self.texts_changed == Some(0)
    }
}

/// A rate and its interval as a row of an interval chart.
pub(crate) fn interval_row(label: &str, style: usize, i: &Interval) -> IntervalRow {
    IntervalRow {
        label: label.to_owned(),
        style,
        estimate: i.estimate,
        lower: i.lower,
        upper: i.upper,
    }
}
