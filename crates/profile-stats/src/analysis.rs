//! The figures a report derives from its counts: intervals, paired tests, curves, abstention.
//!
//! Everything here is a pure function of the counts, the suite's severities and the settings,
//! so a merged report's figures are exactly those of a report over all its texts.

use indexmap::IndexMap;
use profile_types::Reference;
use serde::{Deserialize, Serialize};

use crate::counts::{
    AbstentionCounts, AgreeSplit, ChangeCounts, ClassifyCounts, ExtractCounts, NewDisagreements,
};
use crate::curve::{CurveInput, SeverityCurve, severity_curve};
use crate::field_sums::FieldSums;
use crate::interval::{Interval, Level, Method, f1_text_interval, wilson};
use crate::paired::{PairedTest, SampledDifference, adjust_family, paired_test, sampled_test};
use crate::ppi::{PpiSums, estimate_rate, few_events};
use crate::settings::Settings;
use crate::suite::SuiteDescriptor;

/// Clean texts of a classifier report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassifyClean {
    /// Fraction of clean texts on which the labels agree.
    pub agreement: Interval,
}

/// One corruption of a classifier report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassifyCorruption {
    /// The corruption's family (its transform), when it has a severity.
    pub family: Option<String>,
    /// Its severity (a keyboard typo's rate, or a declared `severity`).
    pub severity: Option<f64>,
    /// Fraction of corrupted texts on which the labels agree.
    pub agreement: Interval,
    /// Agreement on the clean texts minus agreement on the corrupted texts, paired by text.
    pub clean_vs_corrupted: PairedTest,
    /// Present when the teacher answered a sample of the corrupted texts: which figures are
    /// estimated, from how many teacher answers, how.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated: Option<Estimated>,
    /// Which teacher answer the stage's headline compares the student with: `agreement` and
    /// `clean_vs_corrupted` (`teacher_transformed`, the default) or `whose.teacher_clean_agreement`
    /// and `whose.clean_vs_teacher_clean` (`teacher_clean`). See [`ClassifyCorruption::headline`].
    pub reference: Reference,
    /// Texts the corruption changed (absent for reports written before it was counted). A stage
    /// that changed no text is left out of the Holm family, rankings and verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texts_changed: Option<u64>,
    /// Whose change: the teacher's own stability, the student against the teacher's clean
    /// answer, and who moved on each new disagreement (absent for older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whose: Option<WhoseChange>,
    /// The stage's headline as its reference makes it (a copy of [`ClassifyCorruption::headline`],
    /// so that a gate can name it whatever the reference: `corruptions.NAME.headline.agreement`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline: Option<Headline>,
}

/// A corruption's headline figures against its reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    /// The reference (`teacher_transformed` or `teacher_clean`).
    pub reference: Reference,
    /// Agreement against the reference.
    pub agreement: Interval,
    /// Clean agreement minus `agreement`, paired by text.
    pub clean_vs_corrupted: PairedTest,
}

/// One corruption's effect on each side, and the student against the teacher's clean answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhoseChange {
    /// Fraction of texts whose teacher answer changed under the corruption (against its own
    /// clean answer): the teacher's own fragility.
    pub teacher_change: Interval,
    /// Fraction of texts whose student answer changed under the corruption.
    pub student_change: Interval,
    /// Student change rate minus teacher change rate, paired by text: a small `p` with a
    /// positive difference says the student is less robust than its teacher.
    pub student_vs_teacher_change: PairedTest,
    /// Fraction of texts on which the student's corrupted answer equals the teacher's *clean*
    /// answer: the agreement to read for a label-preserving corruption.
    pub teacher_clean_agreement: Interval,
    /// Clean agreement minus `teacher_clean_agreement`, paired by text.
    pub clean_vs_teacher_clean: PairedTest,
    /// The texts that agree clean and disagree corrupted, by whose answer moved.
    pub new_disagreements: NewDisagreements,
    /// Under a teacher sample: the figures that need the teacher's corrupted answers
    /// (`teacher_change`, `student_change`, `student_vs_teacher_change`, `new_disagreements`)
    /// are over the texts it answered (a Bernoulli sample by content: plain Wilson and McNemar
    /// on those texts); `teacher_clean_agreement` and `clean_vs_teacher_clean` need no such
    /// answer and are exact over every text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_sampled_texts: Option<u64>,
}

impl ClassifyCorruption {
    /// The stage's headline: its agreement and the paired test of the drop from the clean
    /// agreement, against the stage's reference (the corrupted-text agreement for
    /// `teacher_transformed`, or a report without whose-change counts).
    pub fn headline(&self) -> (&Interval, &PairedTest) {
        match (&self.whose, self.reference) {
            (Some(w), Reference::TeacherClean) => {
                (&w.teacher_clean_agreement, &w.clean_vs_teacher_clean)
            }
            _ => (&self.agreement, &self.clean_vs_corrupted),
        }
    }

    /// Whether the corruption changed no text (so it measures nothing): `false` when unknown.
    pub fn changed_nothing(&self) -> bool {
        self.texts_changed == Some(0)
    }
}

/// What a stage's estimated figures rest on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimated {
    /// The figures estimated (the others of the stage are exact).
    pub figures: Vec<String>,
    /// Texts whose transformed version the teacher answered.
    pub teacher_answers: u64,
    /// Texts in all.
    pub texts: u64,
    /// The method (`ppi_power_tuned`).
    pub method: String,
    /// The power-tuning weight chosen (`null` with no teacher answer).
    pub lambda: Option<f64>,
    /// What the paired test's `p` is computed on: the estimated difference itself (the
    /// inversion of its interval, Holm-adjusted with the report's other tests).
    pub p_on: String,
    /// Whether the estimate rests on few sampled events (fewer than [`crate::FEW_EVENTS`]
    /// events or non-events, observed or expected): its interval then also holds the sample's
    /// Wilson interval, and the page says so.
    #[serde(default)]
    pub few_events: bool,
    /// Why the estimated figures are `null`: no text was sampled, so the teacher answered no
    /// transformed text of this stage and nothing estimates them (the student's figures are
    /// never put in their place). Absent when they are estimated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// The reason an estimated figure is unavailable without any sampled text.
pub const NO_SAMPLED_TEXT: &str = "no text was sampled: the teacher answered no transformed \
     text, so these figures are not estimated (null), never replaced by the student's";

/// One invariance of a classifier report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassifyInvariance {
    /// Fraction of texts whose student label changed under the rewrite.
    pub student_violation: Interval,
    /// Fraction of texts whose teacher label changed under the rewrite.
    pub teacher_violation: Interval,
    /// Student violation rate minus teacher violation rate, paired by text: a small `p` with a
    /// positive difference says the student is significantly less invariant than its teacher.
    pub student_vs_teacher: PairedTest,
    /// Present when the teacher answered a sample of the rewritten texts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated: Option<Estimated>,
    /// Texts the rewrite changed (absent for reports written before it was counted). A rewrite
    /// that changed no text is left out of the Holm family, rankings and verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texts_changed: Option<u64>,
}

impl ClassifyInvariance {
    /// Whether the rewrite changed no text: `false` when unknown.
    pub fn changed_nothing(&self) -> bool {
        self.texts_changed == Some(0)
    }
}

/// The figures of a classifier report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassifyAnalysis {
    /// Clean texts.
    pub clean: ClassifyClean,
    /// Per corruption, in suite order.
    pub corruptions: IndexMap<String, ClassifyCorruption>,
    /// Per invariance, in suite order.
    pub invariances: IndexMap<String, ClassifyInvariance>,
    /// Agreement against severity, per corruption family with severities.
    pub curves: IndexMap<String, SeverityCurve>,
    /// The decision APIs, when a side has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abstention: Option<AbstentionAnalysis>,
}

/// Schema validity of both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidityPair {
    /// The student's clean records that are complete and grounded.
    pub student: Interval,
    /// The teacher's.
    pub teacher: Interval,
}

/// Clean texts of an extractor report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractClean {
    /// Micro field F1 of the student against the gold (the teacher's clean records).
    pub f1: Interval,
    /// Fraction of clean texts whose student record matches the gold exactly.
    pub exact_match: Interval,
    /// Schema validity of each side.
    pub schema_validity: ValidityPair,
}

/// One corruption of an extractor report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractCorruption {
    /// The corruption's family, when it has a severity.
    pub family: Option<String>,
    /// Its severity.
    pub severity: Option<f64>,
    /// The student's micro F1 against the gold.
    pub student_f1: Interval,
    /// The teacher's micro F1 against the gold (its own clean records).
    pub teacher_f1: Interval,
    /// Fraction of corrupted texts whose student record matches the gold exactly.
    pub exact_match: Interval,
    /// Exact-match rate on the clean texts minus on the corrupted texts, paired by text.
    pub clean_vs_corrupted: PairedTest,
}

/// One invariance of an extractor report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractInvariance {
    /// The student's micro F1 against its own clean records.
    pub student_f1: Interval,
    /// The teacher's micro F1 against its own clean records.
    pub teacher_f1: Interval,
    /// Fraction of texts whose student record changed under the rewrite.
    pub student_violation: Interval,
    /// Fraction of texts whose teacher record changed under the rewrite.
    pub teacher_violation: Interval,
    /// Student violation rate minus teacher violation rate, paired by text.
    pub student_vs_teacher: PairedTest,
}

/// The figures of an extractor report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractAnalysis {
    /// Clean texts.
    pub clean: ExtractClean,
    /// Per corruption, in suite order.
    pub corruptions: IndexMap<String, ExtractCorruption>,
    /// Per invariance, in suite order.
    pub invariances: IndexMap<String, ExtractInvariance>,
    /// The student's F1 against severity, per corruption family with severities.
    pub curves: IndexMap<String, SeverityCurve>,
    /// The decision APIs, when a side has one (agreement = an exact record match).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abstention: Option<AbstentionAnalysis>,
}

/// Selective prediction of one side with a decision API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideAbstention {
    /// Fraction of clean texts it escalated.
    pub escalation: Interval,
    /// Fraction of clean texts it answered (`1 − escalation`).
    pub coverage: Interval,
    /// Agreement of the predictions on the texts it answered (compare with the clean agreement:
    /// escalating well raises it).
    pub selective_agreement: Interval,
    /// Of the texts it escalated, the fraction where the predictions disagree: how often it
    /// escalated exactly where it would have disagreed.
    pub escalated_where_disagreeing: Interval,
    /// Of the texts where the predictions disagree, the fraction it escalated.
    pub disagreements_escalated: Interval,
}

/// The texts neither side escalated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BothAnswered {
    /// Fraction of clean texts both sides answered.
    pub coverage: Interval,
    /// Agreement of the predictions on those texts.
    pub agreement: Interval,
}

/// The decision APIs, analysed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbstentionAnalysis {
    /// The student, or `None` without a decision API.
    pub student: Option<SideAbstention>,
    /// The teacher, or `None` without a decision API.
    pub teacher: Option<SideAbstention>,
    /// The texts both answered.
    pub both_answered: BothAnswered,
}

/// Holm's correction over every paired test of a report's analysis: its corruptions, then its
/// invariances (a macro: the two analyses are different types with the same fields).
macro_rules! adjust {
    ($analysis:expr, $level:expr) => {{
        let mut family: Vec<&mut PairedTest> = $analysis
            .corruptions
            .values_mut()
            .map(|c| &mut c.clean_vs_corrupted)
            .chain(
                $analysis
                    .invariances
                    .values_mut()
                    .map(|i| &mut i.student_vs_teacher),
            )
            .collect();
        adjust_family(&mut family, $level);
    }};
}

/// Holm's correction of a classifier report: one family of each stage's headline test (a
/// corruption's against its reference, an invariance's student-vs-teacher), the stages that
/// changed no text left out (they measure nothing, and would only weaken the others); and a
/// second family of the secondary tests (the other reference's drop, and the student-vs-teacher
/// change under each corruption), so adding them never moves a headline `p`.
fn adjust_classify(analysis: &mut ClassifyAnalysis, level: Level) {
    let mut headline: Vec<&mut PairedTest> = Vec::new();
    let mut secondary: Vec<&mut PairedTest> = Vec::new();
    for c in analysis.corruptions.values_mut() {
        if c.changed_nothing() {
            continue;
        }
        let teacher_clean = c.reference == Reference::TeacherClean;
        match &mut c.whose {
            Some(w) => {
                let (lead, other) = if teacher_clean {
                    (&mut w.clean_vs_teacher_clean, &mut c.clean_vs_corrupted)
                } else {
                    (&mut c.clean_vs_corrupted, &mut w.clean_vs_teacher_clean)
                };
                headline.push(lead);
                secondary.push(other);
                secondary.push(&mut w.student_vs_teacher_change);
            }
            None => headline.push(&mut c.clean_vs_corrupted),
        }
    }
    for i in analysis.invariances.values_mut() {
        if !i.changed_nothing() {
            headline.push(&mut i.student_vs_teacher);
        }
    }
    adjust_family(&mut headline, level);
    adjust_family(&mut secondary, level);
}

/// Whose change under one corruption, from its counts (`n`: every text; `labelled`: the texts
/// the teacher answered, all of them without a sample).
fn whose_change(
    change: &ChangeCounts,
    n: u64,
    labelled: u64,
    sampled: bool,
    level: Level,
) -> WhoseChange {
    let changed = change.changed.table();
    let reference = change.reference.table();
    WhoseChange {
        teacher_change: wilson(changed.second(), labelled, level),
        student_change: wilson(changed.first(), labelled, level),
        student_vs_teacher_change: paired_test(&changed, level),
        teacher_clean_agreement: wilson(reference.second(), n, level),
        clean_vs_teacher_clean: paired_test(&reference, level),
        new_disagreements: change.new_disagreements,
        over_sampled_texts: sampled.then_some(labelled),
    }
}

/// The figures of a classifier report.
pub fn classify(
    counts: &ClassifyCounts,
    suite: &SuiteDescriptor,
    settings: &Settings,
) -> ClassifyAnalysis {
    let level = settings.level;
    let n = counts.n;
    let sample = counts.sample.as_ref();
    let corruptions = counts
        .corruptions
        .iter()
        .map(|(name, c)| {
            let (family, severity) = suite.severity(name);
            let t = c.agree.table();
            let labelled = sample.map_or(n, |s| s.labelled);
            let mut analysis = ClassifyCorruption {
                family,
                severity,
                agreement: wilson(t.second(), n, level),
                clean_vs_corrupted: paired_test(&t, level),
                estimated: None,
                reference: suite.reference(name),
                texts_changed: c.change.map(|c| c.texts_changed),
                whose: c
                    .change
                    .map(|c| whose_change(&c, n, labelled, sample.is_some(), level)),
                headline: None,
            };
            if let Some(sums) = sample.and_then(|s| s.corruption_sums(name, n)) {
                let clean = wilson(counts.clean.agree, n, level).estimate;
                let figures = ["agreement", "clean_vs_corrupted.difference"];
                let (rate, difference, how) = sampled(&sums, clean, level, figures);
                analysis.agreement = rate;
                match difference.1 {
                    Some(s) => analysis.clean_vs_corrupted = sampled_test(&t, s, level),
                    None => analysis.clean_vs_corrupted.difference = difference.0,
                }
                analysis.estimated = Some(how);
            }
            (name.clone(), analysis)
        })
        .collect();
    let invariances = counts
        .invariances
        .iter()
        .map(|(name, i)| {
            let t = i.changed.table();
            let mut analysis = ClassifyInvariance {
                student_violation: wilson(t.first(), n, level),
                teacher_violation: wilson(t.second(), n, level),
                student_vs_teacher: paired_test(&t, level),
                estimated: None,
                texts_changed: i.texts_changed,
            };
            if let Some(s) = sample
                && let Some(sums) = s.invariance_sums(counts, name)
            {
                let changed = s.invariances.get(name).map_or(0, |i| i.student_changed);
                analysis.student_violation = wilson(changed, n, level);
                let student = analysis.student_violation.estimate;
                let figures = ["teacher_violation", "student_vs_teacher.difference"];
                let (rate, difference, how) = sampled(&sums, student, level, figures);
                analysis.teacher_violation = rate;
                match difference.1 {
                    Some(s) => analysis.student_vs_teacher = sampled_test(&t, s, level),
                    None => analysis.student_vs_teacher.difference = difference.0,
                }
                analysis.estimated = Some(how);
            }
            (name.clone(), analysis)
        })
        .collect();
    let clean_point = |stage: &str, severity: f64| CurveInput {
        stage: stage.into(),
        severity,
        hits: counts.clean.agree,
        total: n,
        estimate: None,
    };
    let curves = curves(
        suite,
        "agreement",
        clean_point("clean", 0.0),
        n,
        settings,
        // A sampled profile's corrupted points are its agreement estimates (the clean point
        // is exact): the curve estimates the full profile's, and says so.
        |name| {
            let c = counts.corruptions.get(name)?;
            // A stage against the teacher's clean answer is drawn at that agreement, which
            // needs no teacher answer on the corrupted text: exact even under a sample.
            if let (Reference::TeacherClean, Some(change)) = (suite.reference(name), &c.change) {
                return Some((change.reference.table().second(), n, None));
            }
            let estimate = sample.map(|s| {
                s.corruption_sums(name, n)
                    .and_then(|sums| estimate_rate(&sums, level))
                    .map(|e| e.estimate)
            });
            let total = sample.map_or(n, |s| s.labelled);
            Some((c.agree.table().second(), total, estimate))
        },
    );
    let mut analysis = ClassifyAnalysis {
        clean: ClassifyClean {
            agreement: wilson(counts.clean.agree, n, level),
        },
        corruptions,
        invariances,
        curves,
        abstention: counts.abstention.as_ref().map(|a| abstention(a, level)),
    };
    adjust_classify(&mut analysis, level);
    for c in analysis.corruptions.values_mut() {
        if c.whose.is_some() {
            let (agreement, test) = c.headline();
            c.headline = Some(Headline {
                reference: c.reference,
                agreement: *agreement,
                clean_vs_corrupted: *test,
            });
        }
    }
    analysis
}

/// A sampled rate's estimate and interval, `exact − rate` for the fully observed rate `exact`
/// it is paired with (the rate's interval, reflected; with what it was computed from, for the
/// Holm step to re-level), and what they rest on.
fn sampled(
    sums: &PpiSums,
    exact: Option<f64>,
    level: Level,
    figures: [&str; 2],
) -> (Interval, (Interval, Option<SampledDifference>), Estimated) {
    let e = estimate_rate(sums, level);
    let interval = |estimate, lower, upper| Interval {
        estimate,
        lower,
        upper,
        level: level.get(),
        method: Method::PpiPowerTuned,
    };
    let rate = interval(
        e.map(|e| e.estimate),
        e.map_or(0.0, |e| e.lower),
        e.map_or(1.0, |e| e.upper),
    );
    let difference = match exact {
        Some(x) => {
            let s = SampledDifference {
                sums: *sums,
                minus_from: Some(x),
            };
            (s.interval(level), Some(s))
        }
        None => (interval(None, -1.0, 1.0), None),
    };
    let how = Estimated {
        figures: figures.iter().map(|f| (*f).to_owned()).collect(),
        teacher_answers: sums.labelled,
        texts: sums.all,
        method: Method::PpiPowerTuned.name().to_owned(),
        lambda: e.map(|e| e.lambda),
        p_on: "the estimated difference (ppi_wald: the inversion of its interval)".into(),
        few_events: few_events(sums),
        unavailable: (sums.labelled == 0).then(|| NO_SAMPLED_TEXT.to_owned()),
    };
    (rate, difference, how)
}

/// The figures of an extractor report.
pub fn extract(
    counts: &ExtractCounts,
    suite: &SuiteDescriptor,
    settings: &Settings,
) -> ExtractAnalysis {
    let level = settings.level;
    let n = counts.n;
    let corruptions = counts
        .corruptions
        .iter()
        .map(|(name, c)| {
            let (family, severity) = suite.severity(name);
            let t = c.exact.table();
            let analysis = ExtractCorruption {
                family,
                severity,
                student_f1: f1_text_interval(&c.student, n, level),
                teacher_f1: f1_text_interval(&c.teacher, n, level),
                exact_match: wilson(t.second(), n, level),
                clean_vs_corrupted: paired_test(&t, level),
            };
            (name.clone(), analysis)
        })
        .collect();
    let invariances = counts
        .invariances
        .iter()
        .map(|(name, i)| {
            let t = i.changed.table();
            let analysis = ExtractInvariance {
                student_f1: f1_text_interval(&i.student, n, level),
                teacher_f1: f1_text_interval(&i.teacher, n, level),
                student_violation: wilson(t.first(), n, level),
                teacher_violation: wilson(t.second(), n, level),
                student_vs_teacher: paired_test(&t, level),
            };
            (name.clone(), analysis)
        })
        .collect();
    let f1_point = |sums: &FieldSums| (2 * sums.tp, 2 * sums.tp + sums.fp + sums.fn_);
    let (hits, total) = f1_point(&counts.clean.student);
    let clean = CurveInput {
        stage: "clean".into(),
        severity: 0.0,
        hits,
        total,
        estimate: None,
    };
    let curves = curves(suite, "f1", clean, n, settings, |name| {
        let (hits, total) = f1_point(&counts.corruptions.get(name)?.student);
        Some((hits, total, None))
    });
    let mut analysis = ExtractAnalysis {
        clean: ExtractClean {
            f1: f1_text_interval(&counts.clean.student, n, level),
            exact_match: wilson(counts.clean.exact, n, level),
            schema_validity: ValidityPair {
                student: wilson(counts.clean.student_valid, n, level),
                teacher: wilson(counts.clean.teacher_valid, n, level),
            },
        },
        corruptions,
        invariances,
        curves,
        abstention: counts.abstention.as_ref().map(|a| abstention(a, level)),
    };
    adjust!(analysis, level);
    analysis
}

/// One curve per family of corruptions with a severity, families in order of first appearance.
/// `point` gives a corruption's hits, total and estimate ([`CurveInput`]).
fn curves(
    suite: &SuiteDescriptor,
    metric: &str,
    clean: CurveInput,
    n: u64,
    settings: &Settings,
    point: impl Fn(&str) -> Option<(u64, u64, Option<Option<f64>>)>,
) -> IndexMap<String, SeverityCurve> {
    let mut families: IndexMap<&str, Vec<CurveInput>> = IndexMap::new();
    for c in &suite.corruptions {
        let (Some(family), Some(severity)) = (&c.family, c.severity) else {
            continue;
        };
        let Some((hits, total, estimate)) = point(&c.name) else {
            continue;
        };
        families.entry(family).or_default().push(CurveInput {
            stage: c.name.clone(),
            severity,
            hits,
            total,
            estimate,
        });
    }
    families
        .into_iter()
        .map(|(family, inputs)| {
            let curve = severity_curve(metric, clean.clone(), &inputs, n, settings.break_even);
            (family.to_owned(), curve)
        })
        .collect()
}

fn abstention(a: &AbstentionCounts, level: Level) -> AbstentionAnalysis {
    let n = a.n();
    let disagreements = a.all().disagree;
    let side = |escalated: AgreeSplit, answered: AgreeSplit| SideAbstention {
        escalation: wilson(escalated.n(), n, level),
        coverage: wilson(answered.n(), n, level),
        selective_agreement: wilson(answered.agree, answered.n(), level),
        escalated_where_disagreeing: wilson(escalated.disagree, escalated.n(), level),
        disagreements_escalated: wilson(escalated.disagree, disagreements, level),
    };
    AbstentionAnalysis {
        student: a
            .student_decides
            .then(|| side(a.student_escalated(), a.student_answered())),
        teacher: a
            .teacher_decides
            .then(|| side(a.teacher_escalated(), a.teacher_answered())),
        both_answered: BothAnswered {
            coverage: wilson(a.both_answered.n(), n, level),
            agreement: wilson(a.both_answered.agree, a.both_answered.n(), level),
        },
    }
}
