//! The counts behind every rate of a profile: sufficient statistics, additive across texts.
//!
//! Every type here is a fold over per-text outcomes: start from [`Default`] (or `new` with the
//! suite's stage names), `record` each text's outcome, and add two folds over disjoint (or any)
//! sets of texts with `merge`; the result equals the fold over the concatenated texts. Every
//! figure of a report (rates, intervals, tests, curves) is a function of these counts alone.

use std::ops::AddAssign;

use indexmap::IndexMap;
use profile_types::{
    Abstention, CaptureProfile, ExtractiveProfile, F1Pair, ProbePredictions, SchemaValidity,
    ViolationRates,
};
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::field_sums::FieldSums;
use crate::interval::Level;
use crate::ppi::{PpiSums, binary_sums, estimate_rate};
use crate::sample::{ClassifySample, SampleRepeats};
use crate::stages::{add_stages, named, same_stages};
use crate::table::PairedTable;

paired_counts! {
    /// Per text: an outcome on the clean text and the same outcome on its corrupted version.
    CleanVsCorrupted ("it holds on the clean text", "it holds on the corrupted text") {
        both, clean_only, corrupted_only, neither
    }
}

paired_counts! {
    /// Per text: an outcome of the student and the same outcome of the teacher.
    StudentVsTeacher ("it holds for the student", "it holds for the teacher") {
        both, student_only, teacher_only, neither
    }
}

paired_counts! {
    /// Per text: an outcome of the first student and the same outcome of the second student.
    FirstVsSecond ("it holds for the first student", "it holds for the second student") {
        both, first_only, second_only, neither
    }
}

/// Counts of texts that agree and disagree (one cell of the abstention table).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgreeSplit {
    /// Texts on which the student's prediction agrees with the teacher's.
    pub agree: u64,
    /// Texts on which it does not.
    pub disagree: u64,
}

impl AgreeSplit {
    /// Texts counted.
    pub fn n(&self) -> u64 {
        self.agree + self.disagree
    }

    fn record_n(&mut self, agree: bool, n: u64) {
        if agree {
            self.agree += n
        } else {
            self.disagree += n
        }
    }
}

impl AddAssign for AgreeSplit {
    fn add_assign(&mut self, other: AgreeSplit) {
        self.agree += other.agree;
        self.disagree += other.disagree;
    }
}

impl std::ops::Add for AgreeSplit {
    type Output = AgreeSplit;
    fn add(mut self, other: AgreeSplit) -> AgreeSplit {
        self += other;
        self
    }
}

/// The decision APIs on the clean texts, crossed with agreement: which side escalated each text,
/// and whether the sides' predictions (the `predict` answers, which exist for every text) agree.
///
/// A side without a decision API never escalates (its `*_decides` is `false`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AbstentionCounts {
    /// Whether the student has a decision API.
    pub student_decides: bool,
    /// Whether the teacher has a decision API.
    pub teacher_decides: bool,
    /// Texts neither side escalated.
    pub both_answered: AgreeSplit,
    /// Texts only the student escalated.
    pub student_only_escalated: AgreeSplit,
    /// Texts only the teacher escalated.
    pub teacher_only_escalated: AgreeSplit,
    /// Texts both sides escalated.
    pub both_escalated: AgreeSplit,
}

impl AbstentionCounts {
    /// Empty counts for the given decision APIs.
    pub fn new(student_decides: bool, teacher_decides: bool) -> AbstentionCounts {
        AbstentionCounts {
            student_decides,
            teacher_decides,
            ..AbstentionCounts::default()
        }
    }

    /// Adds one clean text.
    #[inline]
    pub fn record(&mut self, student_escalated: bool, teacher_escalated: bool, agree: bool) {
        self.record_n(student_escalated, teacher_escalated, agree, 1);
    }

    /// Adds `n` clean texts with the same outcome.
    #[inline]
    pub fn record_n(
        &mut self,
        student_escalated: bool,
        teacher_escalated: bool,
        agree: bool,
        n: u64,
    ) {
        match (student_escalated, teacher_escalated) {
            (false, false) => self.both_answered.record_n(agree, n),
            (true, false) => self.student_only_escalated.record_n(agree, n),
            (false, true) => self.teacher_only_escalated.record_n(agree, n),
            (true, true) => self.both_escalated.record_n(agree, n),
        }
    }

    /// Texts counted.
    pub fn n(&self) -> u64 {
        self.all().n()
    }

    /// All texts, escalated or not.
    pub fn all(&self) -> AgreeSplit {
        self.both_answered
            + self.student_only_escalated
            + self.teacher_only_escalated
            + self.both_escalated
    }

    /// Texts the student escalated.
    pub fn student_escalated(&self) -> AgreeSplit {
        self.student_only_escalated + self.both_escalated
    }

    /// Texts the teacher escalated.
    pub fn teacher_escalated(&self) -> AgreeSplit {
        self.teacher_only_escalated + self.both_escalated
    }

    /// Texts the student answered.
    pub fn student_answered(&self) -> AgreeSplit {
        self.both_answered + self.teacher_only_escalated
    }

    /// Texts the teacher answered.
    pub fn teacher_answered(&self) -> AgreeSplit {
        self.both_answered + self.student_only_escalated
    }

    /// Upstream's escalation rates (`None` for a side without a decision API, `0.0` for no
    /// texts).
    pub fn rates(&self) -> Abstention {
        let n = self.n();
        Abstention {
            student_escalation_rate: self
                .student_decides
                .then(|| rate(self.student_escalated().n(), n)),
            teacher_escalation_rate: self
                .teacher_decides
                .then(|| rate(self.teacher_escalated().n(), n)),
        }
    }

    fn merge(&mut self, other: &AbstentionCounts) -> Result<(), Error> {
        self.both_answered += other.both_answered;
        self.student_only_escalated += other.student_only_escalated;
        self.teacher_only_escalated += other.teacher_only_escalated;
        self.both_escalated += other.both_escalated;
        Ok(())
    }
}

fn decides(a: &AbstentionCounts) -> String {
    format!(
        "student {}, teacher {}",
        if a.student_decides {
            "decides"
        } else {
            "has none"
        },
        if a.teacher_decides {
            "decides"
        } else {
            "has none"
        }
    )
}

/// `+=` field by field, for the stage types (every field is itself additive).
macro_rules! add_fields {
    ($($name:ident { $($field:ident),+ })+) => {
        $(impl AddAssign for $name {
            fn add_assign(&mut self, other: $name) {
                $(self.$field += other.$field;)+
            }
        })+
    };
}

add_fields! {
    CleanCounts { agree }
    ChangeCounts { texts_changed, reference, changed, new_disagreements }
    NewDisagreements { teacher_only, student_only, both }
    ExtractCleanCounts { student, exact, student_valid, teacher_valid }
    ExtractCorruptionCounts { student, teacher, exact }
    ExtractInvarianceCounts { student, teacher, changed }
}

/// Clean-text counts of a classifier profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CleanCounts {
    /// Clean texts on which the labels agree.
    pub agree: u64,
}

/// One corruption of a classifier profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorruptionCounts {
    /// Per text: the labels agree on the clean text / on the corrupted text.
    pub agree: CleanVsCorrupted,
    /// Whose change: the corruption's effect on each side, and the student against the
    /// teacher's clean answer. Absent from reports written before it existed (which still read
    /// and merge with each other, not with reports that have it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeCounts>,
}

/// Whose change under one corruption: the table that separates the student's fragility from
/// the teacher's.
///
/// `texts_changed` and `reference` need no teacher answer on the corrupted text, so they count
/// every text even under a teacher sample; `changed` and `new_disagreements` count the texts
/// the teacher answered (all of them without a sample), like the stage's `agree`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangeCounts {
    /// Texts the corruption changed (corrupted text ≠ clean text).
    pub texts_changed: u64,
    /// Per text: the labels agree on the clean text / the student's corrupted answer equals the
    /// teacher's *clean* answer (agreement against the clean reference).
    pub reference: CleanVsCorrupted,
    /// Per text: the student's / the teacher's answer changed under the corruption (each side
    /// against its own clean answer).
    pub changed: StudentVsTeacher,
    /// The texts that agree clean and disagree corrupted, by whose answer changed.
    pub new_disagreements: NewDisagreements,
}

/// The texts whose labels agree on the clean text and disagree on the corrupted one, split by
/// whose answer moved: only the teacher's, only the student's, or both (to different labels).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewDisagreements {
    /// The teacher changed its answer, the student kept the clean label.
    pub teacher_only: u64,
    /// The student changed its answer, the teacher kept its clean label.
    pub student_only: u64,
    /// Both changed, to different labels.
    pub both: u64,
}

impl NewDisagreements {
    /// Every new disagreement.
    pub fn total(&self) -> u64 {
        self.teacher_only + self.student_only + self.both
    }

    /// Adds `n` texts that agree clean and disagree corrupted; `student`/`teacher`: whose
    /// answer changed (at least one did: a text where neither changed still agrees).
    #[inline]
    pub fn record_n(&mut self, student: bool, teacher: bool, n: u64) {
        match (student, teacher) {
            (true, true) => self.both += n,
            (true, false) => self.student_only += n,
            (false, true) => self.teacher_only += n,
            (false, false) => {}
        }
    }
}

impl AddAssign for CorruptionCounts {
    fn add_assign(&mut self, other: CorruptionCounts) {
        self.agree += other.agree;
        // Merging checked first that both sides have the change counts or neither has.
        self.change = match (self.change, other.change) {
            (Some(mut a), Some(b)) => {
                a += b;
                Some(a)
            }
            _ => None,
        };
    }
}

/// One invariance of a classifier or extractor profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InvarianceCounts {
    /// Per text: the student's / the teacher's answer changed under the rewrite.
    pub changed: StudentVsTeacher,
    /// Texts the rewrite changed (rewritten text ≠ clean text); absent from reports written
    /// before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texts_changed: Option<u64>,
}

impl AddAssign for InvarianceCounts {
    fn add_assign(&mut self, other: InvarianceCounts) {
        self.changed += other.changed;
        self.texts_changed = self
            .texts_changed
            .zip(other.texts_changed)
            .map(|(a, b)| a + b);
    }
}

/// The counts of one profile: `n`, the clean texts, each corruption and invariance in suite
/// order, and the decision APIs. [`ClassifyCounts`] and [`ExtractCounts`] are its two kinds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileCounts<Clean, Corruption, Invariance> {
    /// Number of texts.
    pub n: u64,
    /// The clean texts.
    pub clean: Clean,
    /// Per corruption, in suite order.
    pub corruptions: IndexMap<String, Corruption>,
    /// Per invariance, in suite order.
    pub invariances: IndexMap<String, Invariance>,
    /// The decision APIs on the clean texts, when a side has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abstention: Option<AbstentionCounts>,
    /// When the teacher answered the transformed texts of a sample only (classifier profiles):
    /// the design and the counts the estimates need; the stage tables then count the sampled
    /// texts only (see [`ClassifySample`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<ClassifySample>,
}

/// The counts of a classifier profile (`capture_profile`).
pub type ClassifyCounts = ProfileCounts<CleanCounts, CorruptionCounts, InvarianceCounts>;

/// The counts of an extractor profile (`extractive_capture_profile`); in its abstention counts,
/// "agree" is an exact record match.
pub type ExtractCounts =
    ProfileCounts<ExtractCleanCounts, ExtractCorruptionCounts, ExtractInvarianceCounts>;

/// Which optional parts a stage's counts carry (the parts added after reports were first
/// written), so that merging refuses two reports of which only one counted them: the sum would
/// silently describe fewer texts than its `n`.
pub trait StageShape {
    /// A short description of the optional parts present (`""`: none can be).
    fn shape(&self) -> &'static str {
        ""
    }
}

impl StageShape for CleanCounts {}
impl StageShape for ExtractCleanCounts {}
impl StageShape for ExtractCorruptionCounts {}
impl StageShape for ExtractInvarianceCounts {}

impl StageShape for CorruptionCounts {
    fn shape(&self) -> &'static str {
        match self.change {
            Some(_) => "with whose-change counts",
            None => "without whose-change counts (written by an older capkit)",
        }
    }
}

impl StageShape for InvarianceCounts {
    fn shape(&self) -> &'static str {
        match self.texts_changed {
            Some(_) => "with changed-text counts",
            None => "without changed-text counts (written by an older capkit)",
        }
    }
}

/// Refuses two stage maps (of the same names) whose stages carry other optional parts.
fn same_shapes<V: StageShape>(
    section: &str,
    a: &IndexMap<String, V>,
    b: &IndexMap<String, V>,
) -> Result<(), Error> {
    for ((name, x), y) in a.iter().zip(b.values()) {
        if x.shape() != y.shape() {
            return Err(Error::Mismatch {
                what: format!("{section}.{name}"),
                left: x.shape().into(),
                right: y.shape().into(),
            });
        }
    }
    Ok(())
}

impl<C, K, I> ProfileCounts<C, K, I>
where
    C: Default + AddAssign + Copy,
    K: Default + AddAssign + Copy + StageShape,
    I: Default + AddAssign + Copy + StageShape + ChangeTable,
{
    /// Empty counts for a suite's stages (and decision APIs, when a side has one).
    pub fn new<'a>(
        corruptions: impl IntoIterator<Item = &'a str>,
        invariances: impl IntoIterator<Item = &'a str>,
        abstention: Option<AbstentionCounts>,
    ) -> Self {
        ProfileCounts {
            n: 0,
            clean: C::default(),
            corruptions: named(corruptions),
            invariances: named(invariances),
            abstention,
            sample: None,
        }
    }

    /// Adds `other` (the counts of other texts, same suite and models); refuses other stages or
    /// other decision APIs.
    pub fn merge(&mut self, other: &Self) -> Result<(), Error> {
        same_stages("corruptions", &self.corruptions, &other.corruptions)?;
        same_stages("invariances", &self.invariances, &other.invariances)?;
        same_shapes("corruptions", &self.corruptions, &other.corruptions)?;
        same_shapes("invariances", &self.invariances, &other.invariances)?;
        merge_abstention((&mut self.abstention, self.n), (&other.abstention, other.n))?;
        // Repeats on either side: both sides' unit counts (a side without repeats counts each
        // text once, so its line counts are its unit counts).
        let units = match (&self.sample, &other.sample) {
            (Some(a), Some(b)) if a.repeats.is_some() || b.repeats.is_some() => Some((
                a.units(self.n, &self.invariances),
                b.units(other.n, &other.invariances),
            )),
            _ => None,
        };
        match (&mut self.sample, &other.sample) {
            (None, None) => {}
            (Some(a), Some(b)) => a.merge(b, units)?,
            (a, b) => {
                let d = |s: bool| {
                    if s {
                        "a teacher sample"
                    } else {
                        "the full profile"
                    }
                };
                return Err(Error::Mismatch {
                    what: "teacher designs".into(),
                    left: d(a.is_some()).into(),
                    right: d(b.is_some()).into(),
                });
            }
        }
        self.n += other.n;
        self.clean += other.clean;
        add_stages(&mut self.corruptions, &other.corruptions);
        add_stages(&mut self.invariances, &other.invariances);
        // Σ c² = n only when every c is 1: the merged texts are distinct after all.
        if let Some(s) = &mut self.sample
            && s.repeats.as_ref().is_some_and(|r| r.all == self.n)
        {
            s.repeats = None;
        }
        Ok(())
    }
}

impl ClassifySample {
    /// Checks the repeat counts against the line counts they shadow: the same stages, each
    /// table over the sample's `Σ c²`, and every `Σ c²` at least its line count (`c² ≥ c`).
    fn validate_units(&self, r: &SampleRepeats, counts: &ClassifyCounts) -> Result<(), Error> {
        let at = "counts.sample.repeats";
        let lines = self.distinct_units(counts.n, |name| counts.invariances[name].changed.table());
        if !r.corruptions.keys().eq(self.corruptions.keys())
            || !r.invariances.keys().eq(self.invariances.keys())
        {
            return Err(invalid(at, "its stages are not the sample's stages".into()));
        }
        check(
            r.all >= counts.n,
            &format!("{at}.all"),
            "is below n (Σ c² ≥ Σ c)",
        )?;
        check(
            r.labelled >= self.labelled && r.labelled <= r.all,
            &format!("{at}.labelled"),
            "must be between the sample's size and repeats.all",
        )?;
        let stages = r.corruptions.iter().zip(lines.corruptions.values());
        let stages = stages.chain(r.invariances.iter().zip(lines.invariances.values()));
        for ((name, u), l) in stages {
            let (tu, tl) = (u.labelled.table(), l.labelled.table());
            let covers = tu.both >= tl.both
                && tu.first_only >= tl.first_only
                && tu.second_only >= tl.second_only
                && tu.neither >= tl.neither
                && tu.n() == r.labelled
                && u.surrogate >= l.surrogate
                && u.surrogate <= r.all;
            check(
                covers,
                &format!("{at}.{name}"),
                "each cell must count at least its lines, the cells repeats.labelled, the \
                 surrogate at most repeats.all",
            )?;
        }
        Ok(())
    }
}

/// An invariance's sampled student-vs-teacher change table (first: the student changed;
/// second: the teacher), which a teacher sample's repeat counts shadow. Extractor profiles
/// have no teacher sample: theirs is empty.
pub trait ChangeTable {
    /// The table (empty where there is none).
    fn changed_table(&self) -> PairedTable {
        PairedTable::default()
    }
}

impl ChangeTable for InvarianceCounts {
    fn changed_table(&self) -> PairedTable {
        self.changed.table()
    }
}

impl ChangeTable for ExtractInvarianceCounts {}

impl ClassifyCounts {
    /// Adds one clean text.
    #[inline]
    pub fn record_clean(&mut self, agree: bool) {
        self.record_clean_n(agree, 1);
    }

    /// Adds `n` clean texts with the same outcome.
    #[inline]
    pub fn record_clean_n(&mut self, agree: bool, n: u64) {
        self.n += n;
        self.clean.agree += n * u64::from(agree);
    }

    /// Upstream's profile, computed from the counts (bit for bit what `capture_profile` returns
    /// for the same texts).
    ///
    /// A sampled profile's figures that need the teacher on transformed texts are their
    /// power-tuned prediction-powered estimates (at the default level, which does not move a
    /// point estimate). With no sampled text nothing estimates them: they are NaN, which JSON
    /// writes `null` (the report's `estimated.unavailable` says why), never the student's own
    /// figures in the teacher's place.
    pub fn profile(&self, probes: Option<ProbePredictions>) -> CaptureProfile {
        let estimated = |sums: Option<PpiSums>| {
            sums.map(|s| estimate_rate(&s, Level::DEFAULT).map_or(f64::NAN, |e| e.estimate))
        };
        CaptureProfile {
            clean_agreement: rate(self.clean.agree, self.n),
            corruptions: self
                .corruptions
                .iter()
                .map(|(k, c)| {
                    let sums = self
                        .sample
                        .as_ref()
                        .and_then(|s| s.corruption_sums(k, self.n));
                    let value = estimated(sums).unwrap_or(rate(c.agree.table().second(), self.n));
                    (k.clone(), value)
                })
                .collect(),
            invariances: self
                .invariances
                .iter()
                .map(|(k, i)| {
                    let t = i.changed.table();
                    let rates = match &self.sample {
                        Some(s) => ViolationRates {
                            student_violation_rate: rate(
                                s.invariances.get(k).map_or(0, |i| i.student_changed),
                                self.n,
                            ),
                            teacher_violation_rate: estimated(s.invariance_sums(self, k))
                                .unwrap_or(0.0),
                        },
                        None => ViolationRates {
                            student_violation_rate: rate(t.first(), self.n),
                            teacher_violation_rate: rate(t.second(), self.n),
                        },
                    };
                    (k.clone(), rates)
                })
                .collect(),
            probes,
            abstention: self.abstention.as_ref().map(AbstentionCounts::rates),
        }
    }

    /// Checks that the counts are consistent: every table counts `n` texts and every corruption
    /// agrees with the clean counts.
    ///
    /// With a teacher sample the stage tables count the sampled texts (`counts.sample.labelled`)
    /// and the clean agreement of those is not kept, so only its bound is checked.
    pub fn validate(&self) -> Result<(), Error> {
        let full = self.n;
        check(self.clean.agree <= full, "counts.clean.agree", "exceeds n")?;
        if let Some(s) = &self.sample {
            s.validate(self)?;
        }
        let n = self.sample.as_ref().map_or(full, |s| s.labelled);
        for (name, c) in &self.corruptions {
            let at = format!("counts.corruptions.{name}.agree");
            check_n(&at, c.agree.n(), n)?;
            check(
                self.sample.is_some() || c.agree.table().first() == self.clean.agree,
                &at,
                "both + clean_only must equal counts.clean.agree",
            )?;
        }
        for (name, c) in &self.corruptions {
            if let Some(change) = &c.change {
                check_change(name, change, c, full, n, self.clean.agree)?;
            }
        }
        for (name, i) in &self.invariances {
            check_n(
                &format!("counts.invariances.{name}.changed"),
                i.changed.n(),
                n,
            )?;
            if let Some(k) = i.texts_changed {
                let at = format!("counts.invariances.{name}.texts_changed");
                check(k <= full, &at, "exceeds n")?;
            }
        }
        if let Some(a) = &self.abstention {
            check_abstention(a, full, self.clean.agree)?;
        }
        Ok(())
    }
}

/// Checks one corruption's whose-change counts: `texts_changed` and `reference` over every
/// text (`full`), `changed` over the texts the teacher answered (`labelled`), and the new
/// disagreements split exactly the stage's clean-only agreements (every text that agrees
/// clean and disagrees corrupted had at least one side change its answer).
fn check_change(
    name: &str,
    change: &ChangeCounts,
    stage: &CorruptionCounts,
    full: u64,
    labelled: u64,
    clean_agree: u64,
) -> Result<(), Error> {
    let at = |field: &str| format!("counts.corruptions.{name}.change.{field}");
    check(
        change.texts_changed <= full,
        &at("texts_changed"),
        "exceeds n",
    )?;
    check_n(&at("reference"), change.reference.n(), full)?;
    check(
        change.reference.table().first() == clean_agree,
        &at("reference"),
        "both + clean_only must equal counts.clean.agree",
    )?;
    check_n(&at("changed"), change.changed.n(), labelled)?;
    check(
        change.new_disagreements.total() == stage.agree.clean_only,
        &at("new_disagreements"),
        "teacher_only + student_only + both must equal the stage's agree.clean_only",
    )
}

// What a sample is checked and estimated against: its stage tables are the counts', so these
// live here, above `sample.rs` (which knows nothing of the counts that hold it).
impl ClassifySample {
    /// The prediction-powered sums of an invariance's teacher violation rate (observed: the
    /// teacher's answer changed; surrogate: the student's changed), from the sample's
    /// student-vs-teacher table.
    pub fn invariance_sums(&self, counts: &ClassifyCounts, name: &str) -> Option<PpiSums> {
        let i = self.invariances.get(name)?;
        let t = counts.invariances.get(name)?.changed.table();
        let sums = binary_sums(
            t.second(),
            t.first(),
            t.both,
            t.n(),
            i.student_changed,
            counts.n,
        );
        Some(self.with_units(sums, |r| r.invariances.get(name)))
    }

    /// The repeat counts of this sample, its line counts when it has none (`n` and
    /// `invariances`: of the counts that hold it).
    fn units<I: ChangeTable>(&self, n: u64, invariances: &IndexMap<String, I>) -> SampleRepeats {
        match &self.repeats {
            Some(r) => r.clone(),
            None => self.distinct_units(n, |name| {
                invariances
                    .get(name)
                    .map(ChangeTable::changed_table)
                    .unwrap_or_default()
            }),
        }
    }

    /// Checks the sample against the counts that hold it: its design, its size, its stages and
    /// each of its cells against the sample's stage tables.
    fn validate(&self, counts: &ClassifyCounts) -> Result<(), Error> {
        let at = "counts.sample";
        let f = self.design.fraction;
        if !(f > 0.0 && f <= 1.0) {
            return Err(invalid(
                &format!("{at}.design.fraction"),
                format!("must be in (0, 1], got {f}"),
            ));
        }
        if self.labelled > counts.n {
            return Err(invalid(&format!("{at}.labelled"), "exceeds n".into()));
        }
        if !self.corruptions.keys().eq(counts.corruptions.keys())
            || !self.invariances.keys().eq(counts.invariances.keys())
        {
            return Err(invalid(at, "its stages are not the counts' stages".into()));
        }
        for (name, c) in &self.corruptions {
            let here = format!("{at}.corruptions.{name}");
            let observed = counts.corruptions[name].agree.table().second();
            if c.labelled.n() != self.labelled {
                return Err(invalid(
                    &format!("{here}.labelled"),
                    format!(
                        "its cells count {} texts, the sample has {}",
                        c.labelled.n(),
                        self.labelled
                    ),
                ));
            }
            if c.labelled.table().first() != observed {
                return Err(invalid(
                    &format!("{here}.labelled"),
                    "both + observed_only must equal the corrupted agreement of the sample".into(),
                ));
            }
            let sampled_surrogate = c.labelled.table().second();
            if c.surrogate > counts.n || c.surrogate < sampled_surrogate {
                return Err(invalid(
                    &format!("{here}.surrogate"),
                    "must count between the sample's surrogates and n texts".into(),
                ));
            }
        }
        if let Some(r) = &self.repeats {
            self.validate_units(r, counts)?;
        }
        for (name, i) in &self.invariances {
            let sampled = counts.invariances[name].changed.table().first();
            if i.student_changed > counts.n || i.student_changed < sampled {
                return Err(invalid(
                    &format!("{at}.invariances.{name}.student_changed"),
                    "must count between the sample's student changes and n texts".into(),
                ));
            }
        }
        Ok(())
    }
}

/// Clean-text counts of an extractor profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractCleanCounts {
    /// The student's clean records against the teacher's (the gold).
    pub student: FieldSums,
    /// Clean texts whose student record matches the gold exactly: no FP and no FN, i.e. every
    /// reference field predicted equal (Python `==`, a missing key counting as `null`, as
    /// upstream scores a field) and no key outside the reference.
    pub exact: u64,
    /// Clean student records that are complete and grounded.
    pub student_valid: u64,
    /// Clean teacher records that are complete and grounded.
    pub teacher_valid: u64,
}

/// One corruption of an extractor profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractCorruptionCounts {
    /// The student's corrupted records against the gold.
    pub student: FieldSums,
    /// The teacher's corrupted records against the gold (its own clean records).
    pub teacher: FieldSums,
    /// Per text: the student matches the gold exactly on the clean / the corrupted text.
    pub exact: CleanVsCorrupted,
}

/// One invariance of an extractor profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractInvarianceCounts {
    /// The student's rewritten records against its own clean records.
    pub student: FieldSums,
    /// The teacher's rewritten records against its own clean records.
    pub teacher: FieldSums,
    /// Per text: the student's / the teacher's record changed (not an exact match of its clean
    /// record).
    pub changed: StudentVsTeacher,
}

impl ExtractCounts {
    /// Upstream's profile, computed from the counts (bit for bit what
    /// `extractive_capture_profile` returns for the same texts).
    pub fn profile(&self) -> ExtractiveProfile {
        let validity = |valid: u64| {
            if self.n == 0 {
                1.0
            } else {
                valid as f64 / self.n as f64
            }
        };
        let pair = |s: &FieldSums, t: &FieldSums| F1Pair {
            student_f1: s.f1(),
            teacher_f1: t.f1(),
        };
        ExtractiveProfile {
            clean_f1: self.clean.student.f1(),
            schema_validity: SchemaValidity {
                student: validity(self.clean.student_valid),
                teacher: validity(self.clean.teacher_valid),
            },
            corruptions: self
                .corruptions
                .iter()
                .map(|(k, c)| (k.clone(), pair(&c.student, &c.teacher)))
                .collect(),
            invariances: self
                .invariances
                .iter()
                .map(|(k, i)| (k.clone(), pair(&i.student, &i.teacher)))
                .collect(),
            abstention: self.abstention.as_ref().map(AbstentionCounts::rates),
        }
    }

    /// Checks that the counts are consistent (every table counts `n` texts, the exact-match
    /// tables agree with the clean counts).
    pub fn validate(&self) -> Result<(), Error> {
        let n = self.n;
        let c = &self.clean;
        check(
            self.sample.is_none(),
            "counts.sample",
            "an extractor profile has no teacher sample",
        )?;
        for (what, v) in [
            ("exact", c.exact),
            ("student_valid", c.student_valid),
            ("teacher_valid", c.teacher_valid),
        ] {
            check(v <= n, &format!("counts.clean.{what}"), "exceeds n")?;
        }
        for (name, s) in &self.corruptions {
            let at = format!("counts.corruptions.{name}.exact");
            check_n(&at, s.exact.n(), n)?;
            check(
                s.exact.table().first() == c.exact,
                &at,
                "both + clean_only must equal counts.clean.exact",
            )?;
        }
        for (name, i) in &self.invariances {
            check_n(
                &format!("counts.invariances.{name}.changed"),
                i.changed.n(),
                n,
            )?;
        }
        if let Some(a) = &self.abstention {
            check_abstention(a, n, c.exact)?;
        }
        Ok(())
    }
}

/// `k / n` as numpy's mean of booleans gives it (exact IEEE quotient), `0.0` when `n == 0`.
pub(crate) fn rate(k: u64, n: u64) -> f64 {
    if n == 0 { 0.0 } else { k as f64 / n as f64 }
}

/// Adds abstention counts. Counts over no texts merge with any: nothing was decided, so
/// they cannot tell a decision API from none (a command-line model shows its decision API in
/// its answers, and an empty shard has none).
fn merge_abstention(
    (mine, my_n): (&mut Option<AbstentionCounts>, u64),
    (theirs, their_n): (&Option<AbstentionCounts>, u64),
) -> Result<(), Error> {
    let flags = |a: &AbstentionCounts| (a.student_decides, a.teacher_decides);
    match (mine.as_mut(), theirs) {
        (None, None) => Ok(()),
        (Some(a), Some(b)) if flags(a) == flags(b) => a.merge(b),
        (_, _) if their_n == 0 => Ok(()),
        (_, _) if my_n == 0 => {
            *mine = *theirs;
            Ok(())
        }
        (a, b) => Err(Error::Mismatch {
            what: "decision APIs".into(),
            left: a.map_or("neither side decides".into(), |a| decides(a)),
            right: b.as_ref().map_or("neither side decides".into(), decides),
        }),
    }
}

fn invalid(at: &str, message: String) -> Error {
    Error::Invalid {
        at: at.to_owned(),
        message,
    }
}

fn check(ok: bool, at: &str, message: &str) -> Result<(), Error> {
    if ok {
        Ok(())
    } else {
        Err(invalid(at, message.to_owned()))
    }
}

fn check_n(at: &str, counted: u64, n: u64) -> Result<(), Error> {
    check(
        counted == n,
        at,
        &format!("its cells count {counted} texts, n is {n}"),
    )
}

fn check_abstention(a: &AbstentionCounts, n: u64, agree: u64) -> Result<(), Error> {
    check_n("counts.abstention", a.n(), n)?;
    check(
        a.all().agree == agree,
        "counts.abstention",
        "its agree cells must add up to the clean agreement (exact-match) count",
    )?;
    check(
        a.student_decides || a.student_escalated().n() == 0,
        "counts.abstention",
        "the student has no decision API but escalated",
    )?;
    check(
        a.teacher_decides || a.teacher_escalated().n() == 0,
        "counts.abstention",
        "the teacher has no decision API but escalated",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_sums_residuals_match_a_direct_computation() {
        let texts = [(3u64, 0u64, 1u64), (0, 2, 2), (5, 1, 0), (2, 0, 0)];
        let mut sums = FieldSums::default();
        for &(tp, fp, fn_) in &texts {
            sums.record(tp, fp, fn_);
        }
        let t: f64 = texts.iter().map(|x| x.0 as f64).sum();
        let e: f64 = texts.iter().map(|x| (x.1 + x.2) as f64).sum();
        let direct: f64 = texts
            .iter()
            .map(|x| (x.0 as f64 * e - t * (x.1 + x.2) as f64).powi(2))
            .sum();
        assert_eq!(sums.residual_square_sum(), direct);
    }

    #[test]
    fn counts_over_no_texts_merge_whatever_their_decision_apis() {
        let mut deciding =
            ClassifyCounts::new(["t"], ["i"], Some(AbstentionCounts::new(true, false)));
        deciding.record_clean(true);
        if let Some(a) = &mut deciding.abstention {
            a.record(true, false, true);
        }
        deciding.corruptions["t"].agree.record(true, true);
        deciding.invariances["i"].changed.record(false, false);
        let empty = ClassifyCounts::new(["t"], ["i"], None);
        let mut merged = empty.clone();
        merged.merge(&deciding).unwrap();
        assert_eq!(merged, deciding);
        let mut merged = deciding.clone();
        merged.merge(&empty).unwrap();
        assert_eq!(merged, deciding);
        let mut plain = deciding.clone();
        plain.abstention = None;
        let err = deciding.clone().merge(&plain).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot merge: the decision APIs differ (student decides, teacher has none vs neither side decides)"
        );
    }

    #[test]
    fn tables_record_and_add() {
        let mut a = CleanVsCorrupted::default();
        a.record(true, false);
        a.record(true, true);
        let mut b = a;
        b += a;
        assert_eq!(
            (b.both, b.clean_only, b.corrupted_only, b.neither),
            (2, 2, 0, 0)
        );
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            r#"{"both":1,"clean_only":1,"corrupted_only":0,"neither":0}"#
        );
    }
}
