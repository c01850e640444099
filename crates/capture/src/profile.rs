//! `capture_profile`, the report behind it, and student comparisons.

use foldhash::fast::FixedState;
use indexmap::IndexSet;
use profile_stats::{
    AbstentionCounts, ClassifyCounts, Comparison, Counts, ProfileReport, StudentOutcomes,
    SuiteDescriptor,
};
use profile_types::value::py_str;
use profile_types::{CaptureProfile, Label, ProbePredictions};
use suite_core::{CapabilitySuite, Memo, Model, PredictionCache, Side, Stage};

use crate::Error;

/// What the profile keeps of one prediction: the id of its comparison form (Python `str()`), in
/// one space shared by both sides so every comparison is an integer comparison, and the raw label
/// only where the profile reports it (probes).
struct Slot {
    form: u32,
    raw: Option<Box<Label>>,
}

type Cache<'m> = PredictionCache<'m, Slot>;

/// Profiles `student` against `teacher` on `texts` under `suite`.
///
/// Every distinct text is sent to each model once, in one batch per stage (probes, clean,
/// corruptions, invariances); decisions are requested once per distinct clean text. Errors name
/// the side and the stage; no partial profile is returned.
pub fn capture_profile<S: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
) -> Result<CaptureProfile, Error> {
    let (counts, probes) = run(student, teacher, texts, suite, None)?;
    Ok(counts.profile(probes))
}

/// [`capture_profile`] with the counts behind it: a [`ProfileReport`] whose
/// [`capture_profile`](ProfileReport::capture_profile) is exactly the profile, and whose
/// [`to_json`](ProfileReport::to_json) adds intervals, paired tests, severity curves and the
/// abstention analysis. Reports over other texts of the same suite and models
/// [`merge`](ProfileReport::merge) into the report over all of them.
///
/// The report names no models and uses the default settings (95 % intervals, break-even 0.9);
/// see [`ProfileReport::with_models`] and [`ProfileReport::with_settings`].
///
/// ```
/// use capture::capture_profile_report;
/// use serde_json::json;
/// use suite_core::{CapabilitySuite, PerItemFn, case_jitter_invariance};
///
/// let student = PerItemFn::new(|t: &str| json!(t.contains("good")));
/// let teacher = PerItemFn::new(|t: &str| json!(t.to_lowercase().contains("good")));
/// let mut suite = CapabilitySuite::new();
/// suite.add_invariance("case", case_jitter_invariance());
/// let report = capture_profile_report(&student, &teacher, &["good", "good food", "bad"], &suite)?;
/// let json = report.to_json();
/// // Swapped case ("GOOD") changes the student's label twice, the teacher's never.
/// assert_eq!(json["counts"]["invariances"]["case"]["changed"]["student_only"], 2);
/// assert_eq!(json["invariances"]["case"]["student_vs_teacher"]["p"], 0.5);
/// assert_eq!(report.capture_profile().unwrap().invariances["case"].student_violation_rate, 2.0 / 3.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn capture_profile_report<S: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
) -> Result<ProfileReport, Error> {
    let (counts, probes) = run(student, teacher, texts, suite, None)?;
    Ok(report(suite, counts, probes))
}

/// Profiles several students against one teacher on one suite, the teacher's answers computed
/// once (each distinct text reaches the teacher once, whatever the number of students): each
/// student's report and, for every pair of students, per stage the paired McNemar test of their
/// agreement with the teacher (of their violation rates, per invariance) and Newcombe's interval
/// of the difference. Students are named for the report; a name used twice is an error.
///
/// ```
/// use capture::compare_students;
/// use serde_json::json;
/// use suite_core::{CapabilitySuite, Model, PerItemFn};
///
/// let teacher = PerItemFn::new(|t: &str| json!(t.len() % 2));
/// let good = PerItemFn::new(|t: &str| json!(t.len() % 2));
/// let bad = PerItemFn::new(|_: &str| json!(0));
/// let texts = ["a", "bb", "ccc", "dddd", "eeeee", "ffffff", "g", "h"];
/// let students: [(&str, &dyn Model); 2] = [("good", &good), ("bad", &bad)];
/// let comparison = compare_students(&teacher, &students, &texts, &CapabilitySuite::new())?;
/// let json = comparison.to_json();
/// // "good" agrees on all 8 texts, "bad" on 3: the 5 discordant pairs all favour "good".
/// assert_eq!(json["pairs"][0]["clean"]["difference"]["estimate"], 5.0 / 8.0);
/// assert_eq!(json["pairs"][0]["clean"]["p"], 0.0625);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compare_students<S: AsRef<str>>(
    teacher: &dyn Model,
    students: &[(&str, &dyn Model)],
    texts: &[S],
    suite: &CapabilitySuite,
) -> Result<Comparison, Error> {
    if let Some(name) = repeated(students.iter().map(|s| s.0)) {
        return Err(Error::DuplicateStudent(name.to_owned()));
    }
    let teacher = Memo::new(teacher);
    let mut runs = Vec::with_capacity(students.len());
    for &(name, student) in students {
        let mut outcomes = StudentOutcomes::default();
        let (counts, probes) =
            run(student, &teacher, texts, suite, Some(&mut outcomes)).map_err(|e| {
                Error::Student {
                    name: name.to_owned(),
                    source: Box::new(e),
                }
            })?;
        runs.push((name.to_owned(), report(suite, counts, probes), outcomes));
    }
    Ok(Comparison::of_runs(None, runs))
}

/// The first name that occurs twice.
fn repeated<'a>(names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut seen = std::collections::HashSet::new();
    names.into_iter().find(|n| !seen.insert(*n))
}

fn report(
    suite: &CapabilitySuite,
    counts: ClassifyCounts,
    probes: Option<ProbePredictions>,
) -> ProfileReport {
    let descriptor = SuiteDescriptor::new(
        suite.corruption_severities(),
        suite.invariance_names(),
        suite.probes().len(),
    );
    ProfileReport::new(descriptor, Counts::Classify(counts), probes)
}

/// Runs the profile and folds every text's outcomes into counts (and, for comparisons, keeps
/// the student's per-text outcomes).
fn run<S: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
    mut outcomes: Option<&mut StudentOutcomes>,
) -> Result<(ClassifyCounts, Option<ProbePredictions>), Error> {
    let probe_count = suite.probes().len();
    let mut forms: IndexSet<Box<str>, FixedState> = IndexSet::default();
    // Batches tend to repeat one label: remember the last form before hashing.
    let mut last: Option<u32> = None;
    let mut cache = PredictionCache::with_converter(student, teacher, move |id, label: Label| {
        let form = py_str(&label);
        let form = match last.filter(|&i| forms.get_index(i as usize).is_some_and(|f| **f == *form))
        {
            Some(i) => i,
            None => {
                let i = match forms.get_index_of(&*form) {
                    Some(i) => i as u32,
                    None => forms.insert_full(form.into()).0 as u32,
                };
                last = Some(i);
                i
            }
        };
        // Probes are interned first, so their ids are the lowest.
        let raw = ((id as usize) < probe_count).then(|| Box::new(label));
        Slot { form, raw }
    });
    let stages = 1 + suite.corruptions().count() + suite.invariances().count();
    cache.reserve(texts.len() * stages + probe_count);

    // Probes first: their raw labels are kept, everything else is reduced to a form id.
    let probe_ids = cache.stage(&Stage::Probes, suite.probes().iter().map(String::as_str))?;
    let clean = cache.stage(&Stage::Clean, texts.iter().map(AsRef::as_ref))?;
    let agrees = |cache: &Cache<'_>, id: u32| cache.student(id).form == cache.teacher(id).form;
    let clean_agree: Vec<bool> = clean.ids().iter().map(|&id| agrees(&cache, id)).collect();
    let mut counts = ClassifyCounts::new(suite.corruption_names(), suite.invariance_names(), None);
    for &agree in &clean_agree {
        counts.record_clean(agree);
    }

    for ((name, transform), stage) in suite.corruptions().zip(counts.corruptions.values_mut()) {
        let ids = cache.transformed(&Stage::Corruption(name.to_owned()), &clean, transform)?;
        let mut kept = outcomes.as_ref().map(|_| Vec::with_capacity(ids.len()));
        for (&id, &before) in ids.ids().iter().zip(&clean_agree) {
            let after = agrees(&cache, id);
            stage.agree.record(before, after);
            if let Some(kept) = &mut kept {
                kept.push(after);
            }
        }
        if let (Some(o), Some(kept)) = (outcomes.as_deref_mut(), kept) {
            o.corruptions.insert(name.to_owned(), kept);
        }
    }

    for ((name, transform), stage) in suite.invariances().zip(counts.invariances.values_mut()) {
        let ids = cache.transformed(&Stage::Invariance(name.to_owned()), &clean, transform)?;
        let mut kept = outcomes.as_ref().map(|_| Vec::with_capacity(ids.len()));
        for (&before, &after) in clean.ids().iter().zip(ids.ids()) {
            let changed =
                |side: Side| cache.output(side, before).form != cache.output(side, after).form;
            let student_changed = changed(Side::Student);
            stage
                .changed
                .record(student_changed, changed(Side::Teacher));
            if let Some(kept) = &mut kept {
                kept.push(student_changed);
            }
        }
        if let (Some(o), Some(kept)) = (outcomes.as_deref_mut(), kept) {
            o.invariances.insert(name.to_owned(), kept);
        }
    }

    let probes = (probe_count > 0).then(|| {
        let raw = |slot: &Slot| slot.raw.as_deref().cloned().unwrap_or(Label::Null);
        let side = |side: Side| {
            probe_ids
                .ids()
                .iter()
                .map(|&id| raw(cache.output(side, id)))
                .collect()
        };
        ProbePredictions {
            student: side(Side::Student),
            teacher: side(Side::Teacher),
        }
    });

    let escalations = cache.escalations(&clean)?;
    if escalations.any() {
        let mut abstention =
            AbstentionCounts::new(escalations.student.is_some(), escalations.teacher.is_some());
        for (position, &agree) in clean_agree.iter().enumerate() {
            abstention.record(
                escalations.escalated(Side::Student, position),
                escalations.escalated(Side::Teacher, position),
                agree,
            );
        }
        counts.abstention = Some(abstention);
    }
    if let Some(o) = outcomes {
        o.clean = clean_agree;
    }
    Ok((counts, probes))
}
