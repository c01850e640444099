//! `extractive_capture_profile`, its per-field report, the counts report and comparisons.

use std::collections::BTreeMap;
use std::sync::Arc;

use profile_stats::{
    AbstentionCounts, Comparison, Counts, ExtractCounts, FieldSums, Pair, ProfileReport,
    SuiteDescriptor,
};
use profile_types::py_value::ext;
use profile_types::value::json_kind;
use profile_types::{ExtractiveProfile, FieldBreakdown, FieldCounts, FieldReport};
use serde_json::{Map, Value};
use suite_core::{
    CapabilitySuite, DEFAULT_CHUNK_SIZE, Keep, LastAnswer, Memo, Model, OutcomeWriter,
    PredictionCache, ProfileRun, SharedLabel, Side, Stage, StageIds, StudentRun, compare_chunked,
    escalations,
};

use crate::Error;
use crate::f1::{FieldNames, score};
use crate::records::RecordSet;
use crate::schema::is_valid;

/// The upstream-shaped profile plus the per-field breakdown behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtractiveReport {
    /// Exactly what [`extractive_capture_profile`] returns.
    pub profile: ExtractiveProfile,
    /// TP/FP/FN and F1 per field, per stage.
    pub fields: FieldBreakdown,
}

/// Profiles an extraction `student` against its `teacher` on `texts` under `suite`; `fields` are
/// the fields the schema check expects.
///
/// Every distinct text is sent to each model once, in one batch per stage (clean, corruptions,
/// invariances); decisions are requested once per distinct clean text. Errors name the side, the
/// stage and, for a non-record answer, the text's position; no partial profile is returned.
pub fn extractive_capture_profile<S: AsRef<str>, F: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
) -> Result<ExtractiveProfile, Error> {
    let mut run = ExtractRun::new(student, teacher, suite, fields)?;
    run.add(texts)?;
    run.profile()
}

/// [`extractive_capture_profile`] with the per-field breakdown alongside (computed in the same
/// pass; the profile is identical).
pub fn extractive_capture_report<S: AsRef<str>, F: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
) -> Result<ExtractiveReport, Error> {
    let mut run = ExtractRun::new(student, teacher, suite, fields)?.with_field_breakdown();
    run.add(texts)?;
    run.field_report()
}

/// [`extractive_capture_profile`] with the counts behind it: a [`ProfileReport`] whose
/// [`extractive_profile`](ProfileReport::extractive_profile) is exactly the profile, and whose
/// [`to_json`](ProfileReport::to_json) adds an interval on every micro F1 (Wilson at the
/// effective number of fields, never zero-width), Wilson
/// intervals on exact-match, validity and violation rates, paired tests (on exact record
/// matches), the student's F1 against severity, and the abstention analysis (agreement = an
/// exact record match). Reports over other texts of the same suite and models
/// [`merge`](ProfileReport::merge) into the report over all of them.
///
/// ```
/// use extractive::extractive_profile_report;
/// use serde_json::json;
/// use suite_core::{CapabilitySuite, PerItemFn, whitespace_invariance};
///
/// let teacher = PerItemFn::new(|t: &str| json!({"name": t.split_whitespace().last()}));
/// let student = PerItemFn::new(|t: &str| json!({"name": t.split(' ').last()}));
/// let mut suite = CapabilitySuite::new();
/// suite.add_invariance("space", whitespace_invariance());
/// let report = extractive_profile_report(&student, &teacher, &["name: ann", "name: bob "], &suite, &["name"])?;
/// let json = report.to_json();
/// assert_eq!(json["counts"]["clean"]["student"]["tp"], 1);
/// assert_eq!(json["clean"]["f1"]["estimate"], 2.0 / 3.0);
/// assert_eq!(json["clean"]["f1"]["method"], "wilson_effective_f1_t");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn extractive_profile_report<S: AsRef<str>, F: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
) -> Result<ProfileReport, Error> {
    let mut run = ExtractRun::new(student, teacher, suite, fields)?;
    run.add(texts)?;
    run.report()
}

/// [`extractive_profile_report`] and the per-field breakdown of [`extractive_capture_report`],
/// computed in one pass: the report's counts and, beside them, TP/FP/FN per field per stage
/// (`capkit profile extract --report` writes it as the report's `fields`, which `capkit report`
/// draws as a fields × stages heat map).
pub fn extractive_profile_report_with_fields<S: AsRef<str>, F: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
) -> Result<(ProfileReport, FieldBreakdown), Error> {
    let mut run = ExtractRun::new(student, teacher, suite, fields)?.with_field_breakdown();
    run.add(texts)?;
    run.report_with_fields()
}

/// Profiles several extraction students against one teacher on one suite, the teacher's
/// answers computed once: each student's report and, for every pair of students, per stage the
/// McNemar's score test of their exact-match rates against the gold (of their violation rates,
/// per invariance) with Tango's interval of the difference, Holm-adjusted over the comparison. A student name used twice is an
/// error.
pub fn compare_students<S: AsRef<str>, F: AsRef<str>>(
    teacher: &dyn Model,
    students: &[(&str, &dyn Model)],
    texts: &[S],
    suite: &CapabilitySuite,
    fields: &[F],
) -> Result<Comparison, Error> {
    compare_students_chunked(
        teacher,
        students,
        texts.chunks(DEFAULT_CHUNK_SIZE),
        suite,
        fields,
    )
}

/// [`compare_students`] over texts given in chunks: each chunk goes through every student, the
/// teacher asked once per distinct text of the chunk, and nothing of it is kept but counts.
pub fn compare_students_chunked<C, S, F>(
    teacher: &dyn Model,
    students: &[(&str, &dyn Model)],
    chunks: impl IntoIterator<Item = C>,
    suite: &CapabilitySuite,
    fields: &[F],
) -> Result<Comparison, Error>
where
    C: AsRef<[S]>,
    S: AsRef<str>,
    F: AsRef<str>,
{
    let teacher = Memo::new(teacher);
    let names: Vec<&str> = students.iter().map(|s| s.0).collect();
    let mut pairs = Pair::every(&names, suite.corruption_names(), suite.invariance_names());
    let reports = compare_chunked(&teacher, students, chunks, &mut pairs, |student| {
        let run = ExtractRun::new(student, &teacher, suite, fields)?;
        Ok(run.with_chunk_size(usize::MAX))
    })?;
    Ok(Comparison::of_reports(None, reports, pairs))
}

/// An extractor run as a student of a comparison ([`compare_students_chunked`]).
impl StudentRun for ExtractRun<'_> {
    type Error = Error;
    type Report = ProfileReport;
    type Pair = Pair;

    /// [`ExtractRun::add`], returning each text's outcome id.
    fn add_ids<S: AsRef<str>>(&mut self, texts: &[S]) -> Result<Vec<u32>, Error> {
        let (suite, fields, layout) = (self.suite, &self.fields, &self.layout);
        let mut names = self.names.as_mut();
        self.run.add(texts, &mut |cache, clean, positions, out| {
            chunk(
                cache,
                clean,
                positions,
                out,
                Chunk {
                    suite,
                    fields,
                    layout,
                    names: names.as_deref_mut(),
                },
            )
        })
    }

    fn outcome(&self, id: u32) -> &[u32] {
        self.run.outcomes().get(id)
    }

    /// Pairs two students' exact matches (and changes, per invariance) on one text.
    fn pair(&self, pair: &mut Pair, x: &[u32], y: &[u32]) {
        let (counts, layout) = (&mut pair.counts, &self.layout);
        let exact = |o: &[u32], c: usize| layout.exact(o, c);
        counts.clean.agree.record(exact(x, 0), exact(y, 0));
        for (k, stage) in counts.corruptions.values_mut().enumerate() {
            let c = layout.corruption(k).0;
            stage.agree.record(exact(x, c), exact(y, c));
        }
        for (i, stage) in counts.invariances.values_mut().enumerate() {
            let c = layout.invariance(i).0;
            stage.changed.record(!exact(x, c), !exact(y, c));
        }
    }

    fn finish(self) -> Result<ProfileReport, Error> {
        self.report()
    }
}

fn report(suite: &CapabilitySuite, counts: ExtractCounts) -> ProfileReport {
    let descriptor = SuiteDescriptor::new(
        suite.corruption_severities(),
        suite.invariance_names(),
        suite.probes().len(),
    );
    ProfileReport::new(descriptor, Counts::Extract(counts), None)
}

/// What the profile keeps of a prediction: the id of its record in the chunk's [`RecordSet`], or
/// (from [`NOT_A_RECORD`] up) the JSON type of a non-record, reported with its position when the
/// profile reads it.
#[derive(Default)]
struct Records {
    set: RecordSet,
    last: LastAnswer<u32>,
}

/// Kept ids from here up are the kinds of non-records (`NOT_A_RECORD + i` is `KINDS[i]`).
const NOT_A_RECORD: u32 = u32::MAX - 16;
/// What a non-record answer is, as [`json_kind`] names it (a Python value JSON cannot hold, a
/// tuple say, included).
const KINDS: [&str; 10] = [
    "null",
    "a boolean",
    "a number",
    "a string",
    "an array",
    "an int",
    "a float",
    "bytes",
    "a tuple",
    "a dict",
];

impl Keep for Records {
    type Kept = u32;

    fn keep(&mut self, answer: SharedLabel) -> u32 {
        if let Some(id) = self.last.get(&answer) {
            return id;
        }
        let id = match &*answer {
            Value::Object(_) if ext(&answer).is_none() => self.set.intern(Arc::clone(&answer)),
            other => {
                let kind = json_kind(other);
                NOT_A_RECORD + KINDS.iter().position(|k| *k == kind).unwrap_or(0) as u32
            }
        };
        self.last.set(answer, id);
        id
    }

    fn reset(&mut self) {
        self.set.clear();
        self.last.clear();
    }
}

/// Where each number of an extractor's per-text outcome sits. Comparisons are numbered: 0 is the
/// student's clean record against the teacher's, then per corruption the student's and the
/// teacher's corrupted records against the gold, then per invariance each side's rewritten
/// record against its own clean one. The outcome is the validity word (bit 0 the student's clean
/// record is valid, bit 1 the teacher's), then TP, FP, FN of each comparison, then (with the
/// field breakdown) per comparison the number of field entries and the entries
/// (`field id << 2 | 0 TP, 1 FP, 2 FN`); the driver appends the escalation word.
struct Layout {
    corruptions: usize,
    invariances: usize,
}

impl Layout {
    fn comparisons(&self) -> usize {
        1 + 2 * self.corruptions + 2 * self.invariances
    }

    /// (student, teacher) comparisons of corruption `k`.
    fn corruption(&self, k: usize) -> (usize, usize) {
        (1 + 2 * k, 2 + 2 * k)
    }

    /// (student, teacher) comparisons of invariance `i`.
    fn invariance(&self, i: usize) -> (usize, usize) {
        let c = 1 + 2 * self.corruptions + 2 * i;
        (c, c + 1)
    }

    /// TP, FP, FN of comparison `c`.
    fn counts(&self, o: &[u32], c: usize) -> (u64, u64, u64) {
        let w = |i: usize| u64::from(o.get(1 + 3 * c + i).copied().unwrap_or(0));
        (w(0), w(1), w(2))
    }

    /// Whether comparison `c` matched exactly (no FP, no FN).
    fn exact(&self, o: &[u32], c: usize) -> bool {
        let (_, fp, fn_) = self.counts(o, c);
        fp + fn_ == 0
    }

    fn valid(&self, o: &[u32]) -> (bool, bool) {
        let v = o.first().copied().unwrap_or(0);
        (v & 1 != 0, v & 2 != 0)
    }
}

/// An extractor profile in progress: texts are added in any number of pieces, each processed in
/// chunks (one batch per model and stage per chunk, the chunk's texts and records dropped once
/// its outcomes are counted); the profile is the same whatever the pieces and the chunk size.
pub struct ExtractRun<'m> {
    run: ProfileRun<'m, Records>,
    suite: &'m CapabilitySuite,
    fields: Vec<String>,
    layout: Layout,
    /// Field names of the breakdown (`None` without one).
    names: Option<FieldNames>,
}

impl<'m> ExtractRun<'m> {
    /// A profile of `student` against `teacher` under `suite` (whose probes an extractor
    /// profile ignores); `fields` are the fields the schema check expects.
    pub fn new<F: AsRef<str>>(
        student: &'m dyn Model,
        teacher: &'m dyn Model,
        suite: &'m CapabilitySuite,
        fields: &[F],
    ) -> Result<ExtractRun<'m>, Error> {
        let no_probes: [&str; 0] = [];
        Ok(ExtractRun {
            run: ProfileRun::new(student, teacher, Records::default(), &no_probes)?,
            suite,
            fields: fields.iter().map(|f| f.as_ref().to_owned()).collect(),
            layout: Layout {
                corruptions: suite.corruptions().count(),
                invariances: suite.invariances().count(),
            },
            names: None,
        })
    }

    /// The run with chunks of `chunk_size` texts (at least 1; default [`DEFAULT_CHUNK_SIZE`]).
    pub fn with_chunk_size(mut self, chunk_size: usize) -> ExtractRun<'m> {
        self.run = self.run.with_chunk_size(chunk_size);
        self
    }

    /// The run with the per-field breakdown ([`ExtractRun::field_report`]).
    pub fn with_field_breakdown(mut self) -> ExtractRun<'m> {
        self.names = Some(FieldNames::default());
        self
    }

    /// Profiles `texts` (after every text added before).
    pub fn add<S: AsRef<str>>(&mut self, texts: &[S]) -> Result<(), Error> {
        self.add_ids(texts).map(drop)
    }

    fn counts(&mut self) -> Result<ExtractCounts, Error> {
        let [student_decides, teacher_decides] = self.run.decides()?;
        let mut counts = ExtractCounts::new(
            self.suite.corruption_names(),
            self.suite.invariance_names(),
            (student_decides || teacher_decides)
                .then(|| AbstentionCounts::new(student_decides, teacher_decides)),
        );
        let l = &self.layout;
        for (o, n) in self.run.outcomes().iter() {
            let (tp, fp, fn_) = l.counts(o, 0);
            let exact = l.exact(o, 0);
            let (student_valid, teacher_valid) = l.valid(o);
            counts.n += n;
            counts.clean.student.record_n(tp, fp, fn_, n);
            counts.clean.exact += n * u64::from(exact);
            counts.clean.student_valid += n * u64::from(student_valid);
            counts.clean.teacher_valid += n * u64::from(teacher_valid);
            for (k, stage) in counts.corruptions.values_mut().enumerate() {
                let (s, t) = l.corruption(k);
                record_n(&mut stage.student, l.counts(o, s), n);
                record_n(&mut stage.teacher, l.counts(o, t), n);
                stage.exact.record_n(exact, l.exact(o, s), n);
            }
            for (i, stage) in counts.invariances.values_mut().enumerate() {
                let (s, t) = l.invariance(i);
                record_n(&mut stage.student, l.counts(o, s), n);
                record_n(&mut stage.teacher, l.counts(o, t), n);
                stage.changed.record_n(!l.exact(o, s), !l.exact(o, t), n);
            }
            if let Some(a) = &mut counts.abstention {
                let (s, t) = escalations(o);
                a.record_n(s, t, exact, n);
            }
        }
        Ok(counts)
    }

    /// The profile of every text added (the same as [`extractive_capture_profile`] over them).
    pub fn profile(mut self) -> Result<ExtractiveProfile, Error> {
        Ok(self.counts()?.profile())
    }

    /// The report of every text added (the same as [`extractive_profile_report`] over them).
    pub fn report(mut self) -> Result<ProfileReport, Error> {
        let counts = self.counts()?;
        Ok(report(self.suite, counts))
    }

    /// The profile and the per-field breakdown of every text added (the same as
    /// [`extractive_capture_report`]; empty without [`ExtractRun::with_field_breakdown`]).
    pub fn field_report(mut self) -> Result<ExtractiveReport, Error> {
        let profile = self.counts()?.profile();
        Ok(ExtractiveReport {
            profile,
            fields: self.breakdown(),
        })
    }

    /// The report and the per-field breakdown of every text added (the same as
    /// [`extractive_profile_report_with_fields`]).
    pub fn report_with_fields(mut self) -> Result<(ProfileReport, FieldBreakdown), Error> {
        let counts = self.counts()?;
        Ok((report(self.suite, counts), self.breakdown()))
    }

    /// TP/FP/FN per field per stage, from the outcomes' field entries.
    fn breakdown(&self) -> FieldBreakdown {
        let Some(names) = &self.names else {
            return FieldBreakdown::default();
        };
        let l = &self.layout;
        let mut per: Vec<BTreeMap<String, (u64, u64, u64)>> =
            vec![BTreeMap::new(); l.comparisons()];
        for (o, n) in self.run.outcomes().iter() {
            let mut at = 1 + 3 * l.comparisons();
            for tally in &mut per {
                let len = o.get(at).copied().unwrap_or(0) as usize;
                for &entry in o.get(at + 1..at + 1 + len).unwrap_or(&[]) {
                    let e = tally.entry(names.name(entry >> 2).to_owned()).or_default();
                    match entry & 3 {
                        0 => e.0 += n,
                        1 => e.1 += n,
                        _ => e.2 += n,
                    }
                }
                at += 1 + len;
            }
        }
        let fields = |t: &BTreeMap<String, (u64, u64, u64)>| -> BTreeMap<String, FieldCounts> {
            t.iter()
                .map(|(k, &(tp, fp, fn_))| (k.clone(), FieldCounts::new(tp, fp, fn_)))
                .collect()
        };
        let pair = |(s, t): (usize, usize)| FieldReport {
            student: fields(&per[s]),
            teacher: fields(&per[t]),
        };
        FieldBreakdown {
            clean: fields(&per[0]),
            corruptions: self
                .suite
                .corruption_names()
                .enumerate()
                .map(|(k, name)| (name.to_owned(), pair(l.corruption(k))))
                .collect(),
            invariances: self
                .suite
                .invariance_names()
                .enumerate()
                .map(|(i, name)| (name.to_owned(), pair(l.invariance(i))))
                .collect(),
        }
    }
}

fn record_n(sums: &mut FieldSums, (tp, fp, fn_): (u64, u64, u64), n: u64) {
    sums.record_n(tp, fp, fn_, n);
}

/// What scoring one chunk reads besides the cache.
struct Chunk<'a> {
    suite: &'a CapabilitySuite,
    fields: &'a [String],
    layout: &'a Layout,
    names: Option<&'a mut FieldNames>,
}

/// One comparison of every clean position of a chunk: per position TP, FP, FN and (with the
/// breakdown) the field entries.
struct Scored {
    counts: Vec<[u32; 3]>,
    entries: Vec<Vec<u32>>,
}

/// Runs one chunk's fresh clean texts through every stage and writes each text's outcome.
fn chunk(
    cache: &mut PredictionCache<'_, Records>,
    clean: &StageIds,
    positions: &[usize],
    out: &mut OutcomeWriter,
    mut c: Chunk<'_>,
) -> Result<(), Error> {
    let n = clean.len();
    let mut scored: Vec<Scored> = Vec::with_capacity(c.layout.comparisons());
    scored.push(compare(
        cache,
        &Stage::Clean,
        (Side::Student, clean),
        (Side::Teacher, clean),
        positions,
        c.names.as_deref_mut(),
    )?);
    let mut valid = vec![0u32; n];
    for (side, bit) in [(Side::Student, 1), (Side::Teacher, 2)] {
        for (j, v) in valid.iter_mut().enumerate() {
            let id = clean.ids()[j];
            let record = record_of(cache, side, &Stage::Clean, id, positions[j])?;
            if is_valid(record, cache.text(id), c.fields) {
                *v |= bit;
            }
        }
    }
    // Corruptions: both sides against the same fixed gold, the teacher's clean extraction.
    // Invariances: each side against its own clean output (rewritten output as the prediction).
    let corruptions = c
        .suite
        .corruptions()
        .map(|(name, t)| (Stage::Corruption(name.to_owned()), t, false));
    let invariances = c
        .suite
        .invariances()
        .map(|(name, t)| (Stage::Invariance(name.to_owned()), t, true));
    for (stage, transform, against_own) in corruptions.chain(invariances) {
        let ids = cache.transformed(&stage, clean, transform)?;
        for side in [Side::Student, Side::Teacher] {
            let reference = if against_own { side } else { Side::Teacher };
            scored.push(compare(
                cache,
                &stage,
                (side, &ids),
                (reference, clean),
                positions,
                c.names.as_deref_mut(),
            )?);
        }
    }
    let mut words = Vec::new();
    for (j, &v) in valid.iter().enumerate() {
        words.clear();
        words.push(v);
        for s in &scored {
            words.extend_from_slice(&s.counts[j]);
        }
        if c.names.is_some() {
            for s in &scored {
                let entries = s.entries.get(j).map_or(&[][..], Vec::as_slice);
                words.push(entries.len() as u32);
                words.extend_from_slice(entries);
            }
        }
        out.push(&words);
    }
    Ok(())
}

/// The record of `side` for text `id`, or the error naming the text's position in the stage.
fn record_of<'c>(
    cache: &'c PredictionCache<'_, Records>,
    side: Side,
    stage: &Stage,
    id: u32,
    position: usize,
) -> Result<&'c Map<String, Value>, Error> {
    let kept = *cache.output(side, id);
    if kept >= NOT_A_RECORD {
        let got = KINDS
            .get((kept - NOT_A_RECORD) as usize)
            .copied()
            .unwrap_or("not an object");
        return Err(Error::NotARecord {
            side,
            stage: stage.clone(),
            position,
            got,
        });
    }
    Ok(cache.keeper().set.get(kept))
}

/// Scores `predicted` records against `reference` records, position by position.
fn compare(
    cache: &PredictionCache<'_, Records>,
    stage: &Stage,
    predicted: (Side, &StageIds),
    reference: (Side, &StageIds),
    positions: &[usize],
    mut names: Option<&mut FieldNames>,
) -> Result<Scored, Error> {
    let n = predicted.1.len();
    let mut counts = Vec::with_capacity(n);
    let mut entries = Vec::with_capacity(if names.is_some() { n } else { 0 });
    for (j, &position) in positions.iter().enumerate().take(n) {
        let p_id = *cache.output(predicted.0, predicted.1.ids()[j]);
        let p = record_of(cache, predicted.0, stage, predicted.1.ids()[j], position)?;
        // The reference comes from the clean pass.
        let r_id = *cache.output(reference.0, reference.1.ids()[j]);
        let r = record_of(
            cache,
            reference.0,
            &Stage::Clean,
            reference.1.ids()[j],
            position,
        )?;
        let mut e = Vec::new();
        let field_entries = names.as_deref_mut().map(|names| (names, &mut e));
        // One stored record is all TPs, unless it holds a NaN (never equal, even to itself).
        let identical = p_id == r_id && cache.keeper().set.reflexive(p_id);
        counts.push(score(p, r, identical, field_entries));
        if names.is_some() {
            entries.push(e);
        }
    }
    Ok(Scored { counts, entries })
}

#[cfg(test)]
mod tests {
    use super::*;
    use profile_types::F1Pair;
    use serde_json::json;
    use suite_core::{BatchFn, PerItemFn, Transform};

    #[test]
    fn a_non_record_names_side_stage_and_position() {
        let teacher = PerItemFn::new(|_: &str| json!({"a": "x"}));
        let student = PerItemFn::new(|t: &str| if t == "B" { json!("oops") } else { json!({}) });
        let mut suite = CapabilitySuite::new();
        suite.add_corruption("upper", Transform::new(|t| t.to_uppercase()));
        let err = extractive_capture_profile(&student, &teacher, &["a", "b"], &suite, &["a"])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "student model returned a string instead of a record (a JSON object) for text 1 of the corruption `upper`"
        );
    }

    #[test]
    fn a_short_batch_is_an_error_not_a_shorter_profile() {
        let teacher = BatchFn::new(|ts: &[&str]| vec![json!({}); ts.len().saturating_sub(1)]);
        let student = PerItemFn::new(|_: &str| json!({}));
        let err = extractive_capture_profile(
            &student,
            &teacher,
            &["a", "b"],
            &CapabilitySuite::new(),
            &["a"],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "teacher model returned 1 predictions for 2 texts on the clean texts"
        );
    }

    #[test]
    fn empty_texts_score_one_everywhere() {
        let m = PerItemFn::new(|_: &str| json!({}));
        let mut suite = CapabilitySuite::new();
        suite.add_invariance("id", Transform::new(str::to_owned));
        let texts: [&str; 0] = [];
        let p = extractive_capture_profile(&m, &m, &texts, &suite, &["a"]).unwrap();
        assert_eq!(p.clean_f1, 1.0);
        assert_eq!(
            (p.schema_validity.student, p.schema_validity.teacher),
            (1.0, 1.0)
        );
        assert_eq!(
            p.invariances["id"],
            F1Pair {
                student_f1: 1.0,
                teacher_f1: 1.0
            }
        );
        assert!(p.abstention.is_none());
    }
}
