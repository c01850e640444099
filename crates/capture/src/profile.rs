//! `capture_profile`, the report behind it, and student comparisons.

use foldhash::fast::FixedState;
use indexmap::IndexSet;
use profile_stats::{
    AbstentionCounts, ChangeCounts, ClassifyCounts, ClassifySample, Comparison, Counts,
    FirstVsSecond, Pair, PpiSums, ProfileReport, SampleDesign, SampleRepeats, SuiteDescriptor,
};
use profile_stats::{
    Example, ExampleAnswers, ExampleList, Examples, cut_for_display, example_key, key_hex,
};
use profile_types::value::py_str;
use profile_types::{CaptureProfile, Label, ProbePredictions};
use suite_core::{
    CapabilitySuite, DEFAULT_CHUNK_SIZE, Keep, LastAnswer, Memo, Model, OutcomeWriter,
    PredictionCache, ProfileRun, SharedLabel, Side, Stage, StageIds, StudentRun, TeacherSample,
    compare_chunked, escalations,
};

use crate::Error;
use crate::ledger::{Answers, Ledger, StageAnswers, StageKind, StageOutcome, TextOutcome};

/// What the profile keeps of a prediction: the id of its comparison form (Python `str()`), in
/// one space shared by both sides so every comparison is an integer comparison. Ids live for one
/// chunk.
#[derive(Default)]
struct Forms {
    forms: IndexSet<Box<str>, FixedState>,
    last: LastAnswer<u32>,
}

impl Keep for Forms {
    type Kept = u32;

    fn keep(&mut self, answer: SharedLabel) -> u32 {
        if let Some(id) = self.last.get(&answer) {
            return id;
        }
        let form = py_str(&answer);
        // Batches tend to repeat one label: compare with the last form before hashing.
        let id = match self.last.kept().copied().filter(|&id| {
            self.forms
                .get_index(id as usize)
                .is_some_and(|f| **f == *form)
        }) {
            Some(id) => id,
            None => match self.forms.get_index_of(&*form) {
                Some(i) => i as u32,
                None => self.forms.insert_full(form.into()).0 as u32,
            },
        };
        self.last.set(answer, id);
        id
    }

    fn reset(&mut self) {
        self.forms.clear();
        self.last.clear();
    }
}

/// One text's outcome, bit by bit: clean agreement; per corruption five bits (the labels agree
/// on the corrupted text; the student's corrupted answer equals the teacher's clean answer; the
/// student's answer changed; the teacher's answer changed; the text changed); per invariance
/// three (the student's answer changed; the teacher's; the text changed).
///
/// When the teacher answers a sample of the transformed texts, one bit more: whether the text is
/// in the sample (the corrupted agreement and teacher change bits are only meaningful then, and
/// are 0 otherwise, so an outcome depends on its text alone). The second corruption bit, which
/// needs no teacher answer on the corrupted text, is the sample's surrogate.
struct Layout {
    corruptions: usize,
    invariances: usize,
    sampled: bool,
}

/// Bits per corruption and per invariance.
const CORRUPTION_BITS: usize = 5;
const INVARIANCE_BITS: usize = 3;

impl Layout {
    fn of(suite: &CapabilitySuite, sampled: bool) -> Layout {
        Layout {
            corruptions: suite.corruptions().count(),
            invariances: suite.invariances().count(),
            sampled,
        }
    }

    fn stage_bits(&self) -> usize {
        1 + CORRUPTION_BITS * self.corruptions + INVARIANCE_BITS * self.invariances
    }

    fn bits(&self) -> usize {
        self.stage_bits() + usize::from(self.sampled)
    }

    /// Whether the text is in the teacher's sample (always, without one).
    fn in_sample(&self, o: &[u32]) -> bool {
        !self.sampled || bit(o, self.stage_bits())
    }

    fn clean(&self, o: &[u32]) -> bool {
        bit(o, 0)
    }

    fn corruption_at(k: usize) -> usize {
        1 + CORRUPTION_BITS * k
    }

    fn invariance_at(&self, i: usize) -> usize {
        1 + CORRUPTION_BITS * self.corruptions + INVARIANCE_BITS * i
    }

    fn corruption(&self, o: &[u32], k: usize) -> StageOutcome {
        let at = Layout::corruption_at(k);
        StageOutcome {
            agree: bit(o, at),
            teacher_clean: bit(o, at + 1),
            student_changed: bit(o, at + 2),
            teacher_changed: bit(o, at + 3),
            text_changed: bit(o, at + 4),
        }
    }

    fn corrupted(&self, o: &[u32], k: usize) -> bool {
        bit(o, Layout::corruption_at(k))
    }

    /// Whether the student's answer under corruption `k` agrees with the teacher's clean one.
    fn surrogate(&self, o: &[u32], k: usize) -> bool {
        bit(o, Layout::corruption_at(k) + 1)
    }

    fn invariance(&self, o: &[u32], i: usize) -> StageOutcome {
        let at = self.invariance_at(i);
        StageOutcome {
            agree: false,
            teacher_clean: false,
            student_changed: bit(o, at),
            teacher_changed: bit(o, at + 1),
            text_changed: bit(o, at + 2),
        }
    }

    /// (student changed, teacher changed) under invariance `i`.
    fn changed(&self, o: &[u32], i: usize) -> (bool, bool) {
        let b = self.invariance(o, i);
        (b.student_changed, b.teacher_changed)
    }
}

fn bit(words: &[u32], i: usize) -> bool {
    words.get(i / 32).is_some_and(|w| w >> (i % 32) & 1 == 1)
}

/// A classifier profile in progress: texts are added in any number of pieces (each processed in
/// chunks of [`CaptureRun::chunk_size`] texts: one batch per model and stage per chunk, the
/// chunk's texts and answers dropped once its outcomes are counted), and the profile or report
/// is the same whatever the pieces and the chunk size.
///
/// ```
/// use capture::{CaptureRun, PerItemFn, case_jitter_invariance};
/// use capture::serde_json::json;
/// use suite_core::CapabilitySuite;
///
/// let student = PerItemFn::new(|t: &str| json!(t.contains("good")));
/// let teacher = PerItemFn::new(|t: &str| json!(t.to_lowercase().contains("good")));
/// let mut suite = CapabilitySuite::new();
/// suite.add_invariance("case", case_jitter_invariance());
/// let mut run = CaptureRun::new(&student, &teacher, &suite)?.with_chunk_size(2);
/// run.add(&["good", "good food"])?;
/// run.add(&["bad"])?;
/// let profile = run.profile()?;
/// assert_eq!(profile.invariances["case"].student_violation_rate, 2.0 / 3.0);
/// # Ok::<(), capture::Error>(())
/// ```
pub struct CaptureRun<'m> {
    run: ProfileRun<'m, Forms>,
    suite: &'m CapabilitySuite,
    layout: Layout,
    /// The examples kept so far (`None`: off).
    examples: Option<Collector>,
    /// Texts added so far.
    added: usize,
    /// The per-text ledger being written, when asked for.
    ledger: Option<Ledger<'m>>,
}

/// The examples of a run in progress, and the ones whose escalations are still to be filled in
/// (the driver decides a chunk's clean texts after the stages have run).
struct Collector {
    examples: Examples,
    pending: Vec<Pending>,
}

/// An example listed before its text's escalations were known.
struct Pending {
    list: ListAt,
    key: u64,
    position: usize,
}

/// Which list of [`Examples`] an example is in.
#[derive(Clone, Copy)]
enum ListAt {
    Clean,
    /// A corruption by index, and whose answer changed (student, teacher).
    Corruption(usize, (bool, bool)),
    /// An invariance by index, and whose answer changed.
    Invariance(usize, (bool, bool)),
}

impl Collector {
    fn list(&mut self, at: ListAt) -> Option<&mut ExampleList> {
        let e = &mut self.examples;
        match at {
            ListAt::Clean => Some(&mut e.clean),
            ListAt::Corruption(k, (s, t)) => e
                .corruptions
                .get_index_mut(k)
                .and_then(|stage| stage.1.kind_mut(s, t)),
            ListAt::Invariance(i, (s, t)) => e
                .invariances
                .get_index_mut(i)
                .and_then(|stage| stage.1.kind_mut(s, t)),
        }
    }

    /// Lists the example `make` builds when its key is among the `k` smallest of its list.
    fn offer(&mut self, at: ListAt, key: u64, position: usize, make: impl FnOnce() -> Example) {
        let k = self.examples.k;
        let Some(list) = self.list(at) else { return };
        if list.admits(key, k) {
            list.insert(make(), k);
            self.pending.push(Pending {
                list: at,
                key,
                position,
            });
        }
    }
}

impl<'m> CaptureRun<'m> {
    /// A profile of `student` against `teacher` under `suite`; the probes are predicted here.
    pub fn new(
        student: &'m dyn Model,
        teacher: &'m dyn Model,
        suite: &'m CapabilitySuite,
    ) -> Result<CaptureRun<'m>, Error> {
        Ok(CaptureRun {
            run: ProfileRun::new(student, teacher, Forms::default(), suite.probes())?,
            suite,
            layout: Layout::of(suite, false),
            examples: None,
            added: 0,
            ledger: None,
        })
    }

    /// The run writing the per-text ledger to `out` as texts are added: one JSON line per text
    /// and stage, in input order (the format is the `ledger` module's: first occurrences with
    /// their transformed texts and answers, later repeats with their outcome and key). The
    /// bytes are the same for any chunk size. Set it before adding texts; call
    /// [`CaptureRun::finish_ledger`] (or take the report) when done.
    ///
    /// ```
    /// use capture::{CaptureRun, PerItemFn, case_jitter_invariance};
    /// use capture::serde_json::{self, json};
    /// use suite_core::CapabilitySuite;
    ///
    /// let student = PerItemFn::new(|t: &str| json!(t.contains("good")));
    /// let teacher = PerItemFn::new(|t: &str| json!(t.to_lowercase().contains("good")));
    /// let mut suite = CapabilitySuite::new();
    /// suite.add_invariance("case", case_jitter_invariance());
    /// let mut ledger = Vec::new();
    /// let mut run = CaptureRun::new(&student, &teacher, &suite)?.with_ledger(&mut ledger);
    /// run.add(&["good food", "good food"])?;
    /// run.report()?;
    /// let lines: Vec<serde_json::Value> = ledger
    ///     .split(|&b| b == b'\n')
    ///     .filter(|l| !l.is_empty())
    ///     .map(|l| serde_json::from_slice(l).unwrap())
    ///     .collect();
    /// assert_eq!(lines.len(), 4); // two texts, clean and case each
    /// assert_eq!(lines[1]["transformed"], "GOOD FOOD");
    /// assert_eq!(lines[1]["student_changed"], true);
    /// assert_eq!(lines[3]["repeat"], true); // the second "good food"
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_ledger(mut self, out: &'m mut dyn std::io::Write) -> CaptureRun<'m> {
        let stages = self
            .suite
            .corruption_names()
            .map(|n| (n.to_owned(), StageKind::Corruption))
            .chain(
                self.suite
                    .invariance_names()
                    .map(|n| (n.to_owned(), StageKind::Invariance)),
            )
            .collect();
        self.ledger = Some(Ledger::new(out, stages));
        self
    }

    /// Flushes the ledger (a no-op without one): the lines written so far, or the write error.
    pub fn finish_ledger(&mut self) -> Result<u64, Error> {
        match &mut self.ledger {
            Some(l) => {
                l.flush()?;
                Ok(l.lines)
            }
            None => Ok(0),
        }
    }

    /// The run keeping up to `k` example texts per stage and kind of outcome (the student's
    /// answer changed alone, the teacher's alone, both; a clean-text disagreement): the `k`
    /// smallest keys of each kind, so the same for any chunks, shards or threads
    /// ([`profile_stats::Examples`]). `0` keeps none (the default for a run; the command line's
    /// default is [`profile_stats::DEFAULT_EXAMPLES`]). Set it before adding texts.
    ///
    /// ```
    /// use capture::{CaptureRun, PerItemFn, case_jitter_invariance};
    /// use capture::serde_json::json;
    /// use suite_core::CapabilitySuite;
    ///
    /// let student = PerItemFn::new(|t: &str| json!(t.contains("good")));
    /// let teacher = PerItemFn::new(|t: &str| json!(t.to_lowercase().contains("good")));
    /// let mut suite = CapabilitySuite::new();
    /// suite.add_invariance("case", case_jitter_invariance());
    /// let mut run = CaptureRun::new(&student, &teacher, &suite)?.with_examples(5);
    /// run.add(&["good food", "bad"])?;
    /// let report = run.report()?;
    /// let case = &report.examples.as_ref().unwrap().invariances["case"];
    /// // "good food" became "GOOD FOOD": only the student changed its answer.
    /// assert_eq!(case.student_only.0[0].transformed.as_deref(), Some("GOOD FOOD"));
    /// assert_eq!(case.student_only.0[0].student.transformed.as_deref(), Some("False"));
    /// # Ok::<(), capture::Error>(())
    /// ```
    pub fn with_examples(mut self, k: usize) -> CaptureRun<'m> {
        self.examples = (k > 0).then(|| Collector {
            examples: Examples::new(
                k,
                self.suite.corruption_names(),
                self.suite.invariance_names(),
            ),
            pending: Vec::new(),
        });
        self
    }

    /// The run with the teacher answering the corrupted and rewritten texts of a seeded uniform
    /// sample of the texts only (`None`: every text, the default). The clean texts always reach
    /// both models and the student answers everything; the report's figures that need the
    /// teacher on transformed texts become prediction-powered estimates with intervals
    /// (`profile_stats::ClassifySample`). Set it before adding texts.
    pub fn with_teacher_sample(mut self, sample: Option<TeacherSample>) -> CaptureRun<'m> {
        self.run = self.run.with_teacher_sample(sample);
        self.layout = Layout::of(self.suite, sample.is_some());
        self
    }

    /// Distinct transformed texts the teacher was not asked about so far: the teacher calls
    /// the sample saved (0 without one).
    pub fn teacher_calls_saved(&self) -> u64 {
        self.run.teacher_skipped()
    }

    /// The run with chunks of `chunk_size` texts (at least 1; default [`DEFAULT_CHUNK_SIZE`]).
    pub fn with_chunk_size(mut self, chunk_size: usize) -> CaptureRun<'m> {
        self.run = self.run.with_chunk_size(chunk_size);
        self
    }

    /// The chunk size.
    pub fn chunk_size(&self) -> usize {
        self.run.chunk_size()
    }

    /// Profiles `texts` (after every text added before).
    pub fn add<S: AsRef<str>>(&mut self, texts: &[S]) -> Result<(), Error> {
        self.add_ids(texts).map(drop)
    }

    /// Writes the ledger lines of `texts`, just added (`ids`: their outcomes).
    fn write_ledger<S: AsRef<str>>(&mut self, texts: &[S], ids: &[u32]) -> Result<(), Error> {
        let decides = self.run.decides()?;
        let (layout, first) = (&self.layout, self.added);
        let Some(ledger) = self.ledger.as_mut() else {
            return Ok(());
        };
        for (i, (text, &id)) in texts.iter().zip(ids).enumerate() {
            let o = self.run.outcomes().get(id);
            let (s, t) = escalations(o);
            let outcome = TextOutcome {
                clean_agree: layout.clean(o),
                in_sample: layout.in_sample(o),
                sampled: layout.sampled,
                escalated: [decides[0].then_some(s), decides[1].then_some(t)],
                stages: (0..layout.corruptions)
                    .map(|k| layout.corruption(o, k))
                    .chain((0..layout.invariances).map(|k| layout.invariance(o, k)))
                    .collect(),
            };
            ledger.write(first + i, text.as_ref(), &outcome)?;
        }
        Ok(())
    }

    /// The counts of every text added so far.
    fn counts(&mut self) -> Result<ClassifyCounts, Error> {
        let [student_decides, teacher_decides] = self.run.decides()?;
        let mut counts = ClassifyCounts::new(
            self.suite.corruption_names(),
            self.suite.invariance_names(),
            (student_decides || teacher_decides)
                .then(|| AbstentionCounts::new(student_decides, teacher_decides)),
        );
        let layout = &self.layout;
        counts.sample = self.run.teacher_sample().map(|s| {
            ClassifySample::new(
                SampleDesign {
                    fraction: s.fraction(),
                    seed: s.seed(),
                },
                self.suite.corruption_names(),
                self.suite.invariance_names(),
            )
        });
        for stage in counts.corruptions.values_mut() {
            stage.change = Some(ChangeCounts::default());
        }
        for stage in counts.invariances.values_mut() {
            stage.texts_changed = Some(0);
        }
        // The sample's counts over distinct texts, each weighted by its lines squared (`q` of
        // an outcome: Σ c² over its texts); dropped below when every text is distinct.
        let mut units = counts.sample.as_ref().map(|_| {
            SampleRepeats::new(self.suite.corruption_names(), self.suite.invariance_names())
        });
        for (o, n, q) in self.run.outcomes().iter_units() {
            let clean = layout.clean(o);
            counts.record_clean_n(clean, n);
            let labelled = layout.in_sample(o);
            if let Some(units) = &mut units {
                units.all += q;
                units.labelled += q * u64::from(labelled);
                for (k, stage) in units.corruptions.values_mut().enumerate() {
                    let surrogate = layout.surrogate(o, k);
                    stage.surrogate += q * u64::from(surrogate);
                    if labelled {
                        stage
                            .labelled
                            .record_n(layout.corrupted(o, k), surrogate, q);
                    }
                }
                for (i, stage) in units.invariances.values_mut().enumerate() {
                    let b = layout.invariance(o, i);
                    stage.surrogate += q * u64::from(b.student_changed);
                    if labelled {
                        stage
                            .labelled
                            .record_n(b.teacher_changed, b.student_changed, q);
                    }
                }
            }
            if let Some(sample) = &mut counts.sample {
                sample.labelled += n * u64::from(labelled);
                for (k, stage) in sample.corruptions.values_mut().enumerate() {
                    let surrogate = layout.surrogate(o, k);
                    stage.surrogate += n * u64::from(surrogate);
                    if labelled {
                        stage
                            .labelled
                            .record_n(layout.corrupted(o, k), surrogate, n);
                    }
                }
                for (i, stage) in sample.invariances.values_mut().enumerate() {
                    stage.student_changed += n * u64::from(layout.changed(o, i).0);
                }
            }
            for (k, stage) in counts.corruptions.values_mut().enumerate() {
                let b = layout.corruption(o, k);
                if labelled {
                    stage.agree.record_n(clean, b.agree, n);
                }
                if let Some(change) = &mut stage.change {
                    change.texts_changed += n * u64::from(b.text_changed);
                    change.reference.record_n(clean, b.teacher_clean, n);
                    if labelled {
                        change
                            .changed
                            .record_n(b.student_changed, b.teacher_changed, n);
                        if clean && !b.agree {
                            change.new_disagreements.record_n(
                                b.student_changed,
                                b.teacher_changed,
                                n,
                            );
                        }
                    }
                }
            }
            for (i, stage) in counts.invariances.values_mut().enumerate() {
                let b = layout.invariance(o, i);
                if labelled {
                    stage
                        .changed
                        .record_n(b.student_changed, b.teacher_changed, n);
                }
                if let Some(k) = &mut stage.texts_changed {
                    *k += n * u64::from(b.text_changed);
                }
            }
            if let Some(a) = &mut counts.abstention {
                let (s, t) = escalations(o);
                a.record_n(s, t, clean, n);
            }
        }
        if let Some(sample) = &mut counts.sample {
            // Σ c² = n only when every text is distinct: then the line counts say it all.
            sample.repeats = units.filter(|u| u.all != counts.n);
        }
        Ok(counts)
    }

    fn probes(&self) -> Option<ProbePredictions> {
        (!self.suite.probes().is_empty()).then(|| {
            let raw = |side| {
                self.run
                    .probe_answers(side)
                    .iter()
                    .map(|l| Label::clone(l))
                    .collect()
            };
            ProbePredictions {
                student: raw(Side::Student),
                teacher: raw(Side::Teacher),
            }
        })
    }

    /// The profile of every text added (the same as [`capture_profile`] over them all).
    pub fn profile(mut self) -> Result<CaptureProfile, Error> {
        self.finish_ledger()?;
        let counts = self.counts()?;
        Ok(counts.profile(self.probes()))
    }

    /// The report of every text added (the same as [`capture_profile_report`] over them all).
    pub fn report(mut self) -> Result<ProfileReport, Error> {
        self.finish_ledger()?;
        let counts = self.counts()?;
        let examples = self.examples.take().map(|c| c.examples);
        Ok(report(self.suite, counts, self.probes()).with_examples(examples))
    }
}

/// Runs one chunk's fresh clean texts through every stage and writes each text's outcome (the
/// bits of [`Layout`], packed 32 to a word).
fn chunk(
    cache: &mut PredictionCache<'_, Forms>,
    clean: &StageIds,
    out: &mut OutcomeWriter,
    suite: &CapabilitySuite,
    sampled: bool,
    mut examples: Option<(&mut Collector, &[usize])>,
    stage_ids: Option<&mut Vec<StageIds>>,
) -> Result<(), suite_core::Error> {
    let mut kept = Vec::new();
    if let Some((collector, positions)) = examples.as_mut() {
        offer_examples(cache, clean, None, positions, collector, |_| ListAt::Clean);
    }
    let layout = Layout::of(suite, sampled);
    let width = layout.bits().div_ceil(32);
    let mut words = vec![0u32; clean.len() * width];
    let mut set = |j: usize, bit: usize, on: bool| {
        if on {
            words[j * width + bit / 32] |= 1 << (bit % 32);
        }
    };
    let agrees =
        |cache: &PredictionCache<'_, Forms>, id: u32| cache.student(id) == cache.teacher(id);
    for (j, &id) in clean.ids().iter().enumerate() {
        set(j, 0, agrees(cache, id));
    }
    // Sampled profiles only: the sample bit. An unsampled text's teacher bits stay 0 (its
    // teacher answers on transformed texts are not used, even when another text's sample
    // brought them in), so its outcome depends on the text alone.
    let labelled = |cache: &PredictionCache<'_, Forms>, j: usize| cache.teacher_sampled(j);
    if sampled {
        for j in 0..clean.len() {
            set(j, layout.stage_bits(), labelled(cache, j));
        }
    }
    for (k, (name, transform)) in suite.corruptions().enumerate() {
        let ids = cache.transformed(&Stage::Corruption(name.to_owned()), clean, transform)?;
        let at = Layout::corruption_at(k);
        for (j, (&before, &id)) in clean.ids().iter().zip(ids.ids()).enumerate() {
            let asked = labelled(cache, j);
            set(j, at, asked && agrees(cache, id));
            set(j, at + 1, cache.student(id) == cache.teacher(before));
            set(j, at + 2, cache.student(id) != cache.student(before));
            set(
                j,
                at + 3,
                asked && cache.teacher(id) != cache.teacher(before),
            );
            // Interned ids: one text, one id.
            set(j, at + 4, id != before);
        }
        if let Some((collector, positions)) = examples.as_mut() {
            let at = |kind| ListAt::Corruption(k, kind);
            offer_examples(cache, clean, Some(&ids), positions, collector, at);
        }
        kept.push(ids);
    }
    for (i, (name, transform)) in suite.invariances().enumerate() {
        let ids = cache.transformed(&Stage::Invariance(name.to_owned()), clean, transform)?;
        let at = layout.invariance_at(i);
        for (j, (&before, &after)) in clean.ids().iter().zip(ids.ids()).enumerate() {
            set(j, at, cache.student(before) != cache.student(after));
            let teacher_changed = cache.teacher(before) != cache.teacher(after);
            set(j, at + 1, labelled(cache, j) && teacher_changed);
            set(j, at + 2, after != before);
        }
        if let Some((collector, positions)) = examples.as_mut() {
            let at = |kind| ListAt::Invariance(i, kind);
            offer_examples(cache, clean, Some(&ids), positions, collector, at);
        }
        kept.push(ids);
    }
    if let Some(stage_ids) = stage_ids {
        *stage_ids = kept;
    }
    for text in words.chunks(width) {
        out.push(text);
    }
    Ok(())
}

/// Keeps, for the ledger, the answers of each text of a chunk at its first position: its
/// clean answers and per stage its transformed text and answers (the teacher's outside its
/// sample left out), from the stages' ids [`chunk`] kept.
fn keep_answers(
    cache: &PredictionCache<'_, Forms>,
    clean: &StageIds,
    positions: &[usize],
    stages: &[StageIds],
    ledger: &mut Ledger<'_>,
) {
    let form = |cache: &PredictionCache<'_, Forms>, id: u32| {
        cache
            .keeper()
            .forms
            .get_index(id as usize)
            .map_or_else(String::new, |f| f.to_string())
    };
    let mut first = vec![true; cache.distinct_texts()];
    for (j, &id) in clean.ids().iter().enumerate() {
        if !std::mem::replace(&mut first[id as usize], false) {
            continue;
        }
        let sampled = cache.teacher_sampled(j);
        let answers = Answers {
            key: cache.text_hash(id).map_or(u64::MAX, |h| example_key(&h.0)),
            student: form(cache, *cache.student(id)),
            teacher: form(cache, *cache.teacher(id)),
            stages: stages
                .iter()
                .map(|ids| {
                    let after = ids.ids().get(j).copied().unwrap_or(id);
                    StageAnswers {
                        transformed: cache.text(after).to_owned(),
                        student: form(cache, *cache.student(after)),
                        teacher: sampled.then(|| form(cache, *cache.teacher(after))),
                    }
                })
                .collect(),
        };
        ledger.keep(positions[j], answers);
    }
}

/// Offers texts of a chunk as examples: on the clean stage (`after`: `None`) the texts whose
/// labels disagree; on a transformed stage (`after`: its ids) the texts whose answer changed on
/// one side or both, among those the teacher answered (for the others its change is unknown).
/// `at` says which list a kind of change goes to.
fn offer_examples(
    cache: &PredictionCache<'_, Forms>,
    clean: &StageIds,
    after: Option<&StageIds>,
    positions: &[usize],
    collector: &mut Collector,
    at: impl Fn((bool, bool)) -> ListAt,
) {
    let forms = &cache.keeper().forms;
    let form = |id: u32| {
        forms
            .get_index(id as usize)
            .map_or_else(String::new, |f| f.to_string())
    };
    let key = |id: u32| cache.text_hash(id).map_or(u64::MAX, |h| example_key(&h.0));
    let answers = |side: Side, before: u32, after: Option<u32>| ExampleAnswers {
        clean: form(*cache.output(side, before)),
        transformed: after.map(|a| form(*cache.output(side, a))),
        escalated: None,
    };
    let example = |before: u32, after: Option<u32>| {
        let (text, text_cut) = cut_for_display(cache.text(before));
        let (transformed, transformed_cut) = match after {
            Some(a) => {
                let (t, cut) = cut_for_display(cache.text(a));
                (Some(t), cut)
            }
            None => (None, false),
        };
        Example {
            key: key_hex(key(before)),
            text,
            text_cut,
            transformed,
            transformed_cut,
            student: answers(Side::Student, before, after),
            teacher: answers(Side::Teacher, before, after),
        }
    };
    let Some(after) = after else {
        for (j, &id) in clean.ids().iter().enumerate() {
            if cache.student(id) != cache.teacher(id) {
                collector.offer(ListAt::Clean, key(id), positions[j], || example(id, None));
            }
        }
        return;
    };
    for (j, (&before, &id)) in clean.ids().iter().zip(after.ids()).enumerate() {
        if !cache.teacher_sampled(j) {
            continue;
        }
        let student = cache.student(before) != cache.student(id);
        let teacher = cache.teacher(before) != cache.teacher(id);
        if !(student || teacher) {
            continue;
        }
        collector.offer(at((student, teacher)), key(before), positions[j], || {
            example(before, Some(id))
        });
    }
}

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
    let mut run = CaptureRun::new(student, teacher, suite)?;
    run.add(texts)?;
    run.profile()
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
/// // McNemar's score test: z = (2 - 0)/√2, p ≈ 0.157 (one test, nothing to adjust).
/// assert_eq!(json["invariances"]["case"]["student_vs_teacher"]["statistic"], 2.0 / 2f64.sqrt());
/// assert_eq!(json["invariances"]["case"]["student_vs_teacher"]["significant"], false);
/// assert_eq!(report.capture_profile().unwrap().invariances["case"].student_violation_rate, 2.0 / 3.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn capture_profile_report<S: AsRef<str>>(
    student: &dyn Model,
    teacher: &dyn Model,
    texts: &[S],
    suite: &CapabilitySuite,
) -> Result<ProfileReport, Error> {
    let mut run = CaptureRun::new(student, teacher, suite)?;
    run.add(texts)?;
    run.report()
}

/// Profiles several students against one teacher on one suite, the teacher's answers computed
/// once (each distinct text reaches the teacher once, whatever the number of students): each
/// student's report and, for every pair of students, per stage McNemar's score test of their
/// agreement with the teacher (of their violation rates, per invariance) and Tango's interval
/// of the difference, p-values Holm-adjusted over the comparison. Students are named for the report; a name used twice is an error.
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
/// // z = 5/√5, p ≈ 0.025 < 0.05, and Tango's interval agrees (it excludes 0).
/// assert_eq!(json["pairs"][0]["clean"]["significant"], true);
/// assert!(json["pairs"][0]["clean"]["difference"]["lower"].as_f64().unwrap() > 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compare_students<S: AsRef<str>>(
    teacher: &dyn Model,
    students: &[(&str, &dyn Model)],
    texts: &[S],
    suite: &CapabilitySuite,
) -> Result<Comparison, Error> {
    compare_students_chunked(teacher, students, texts.chunks(DEFAULT_CHUNK_SIZE), suite)
}

/// [`compare_students`] over texts given in chunks (read from a file as they are needed, say):
/// each chunk goes through every student, the teacher asked once per distinct text of the
/// chunk, and nothing of it is kept but counts. The comparison is the same whatever the chunks.
pub fn compare_students_chunked<C, S>(
    teacher: &dyn Model,
    students: &[(&str, &dyn Model)],
    chunks: impl IntoIterator<Item = C>,
    suite: &CapabilitySuite,
) -> Result<Comparison, Error>
where
    C: AsRef<[S]>,
    S: AsRef<str>,
{
    compare_students_sampled(teacher, students, chunks, suite, None)
}

/// [`compare_students_chunked`] with the teacher answering the transformed texts of a sample
/// only ([`CaptureRun::with_teacher_sample`]; `None`: every text): each student's report is
/// sampled, and each pair's corruption differences are prediction-powered estimates (the
/// surrogate: the difference of the students' agreements with the teacher's clean answers).
pub fn compare_students_sampled<C, S>(
    teacher: &dyn Model,
    students: &[(&str, &dyn Model)],
    chunks: impl IntoIterator<Item = C>,
    suite: &CapabilitySuite,
    sample: Option<TeacherSample>,
) -> Result<Comparison, Error>
where
    C: AsRef<[S]>,
    S: AsRef<str>,
{
    compare_students_with(teacher, students, chunks, suite, sample, 0)
}

/// [`compare_students_sampled`] with up to `examples` example texts per stage and kind in
/// each student's report ([`CaptureRun::with_examples`]; 0: none).
pub fn compare_students_with<C, S>(
    teacher: &dyn Model,
    students: &[(&str, &dyn Model)],
    chunks: impl IntoIterator<Item = C>,
    suite: &CapabilitySuite,
    sample: Option<TeacherSample>,
    examples: usize,
) -> Result<Comparison, Error>
where
    C: AsRef<[S]>,
    S: AsRef<str>,
{
    compare_students_counted(teacher, students, chunks, suite, sample, examples).map(|(c, _)| c)
}

/// [`compare_students_with`], and the teacher calls on transformed texts its sample saved (0
/// without one): the sample is drawn by content, so every student's run skips the same texts.
pub fn compare_students_counted<C, S>(
    teacher: &dyn Model,
    students: &[(&str, &dyn Model)],
    chunks: impl IntoIterator<Item = C>,
    suite: &CapabilitySuite,
    sample: Option<TeacherSample>,
    examples: usize,
) -> Result<(Comparison, u64), Error>
where
    C: AsRef<[S]>,
    S: AsRef<str>,
{
    let teacher = Memo::new(teacher);
    let names: Vec<&str> = students.iter().map(|s| s.0).collect();
    let mut pairs = Pair::every(&names, suite.corruption_names(), suite.invariance_names());
    for pair in &mut pairs {
        for stage in pair.counts.corruptions.values_mut() {
            stage.teacher_clean = Some(FirstVsSecond::default());
            if sample.is_some() {
                stage.sampled = Some(PpiSums::default());
            }
        }
    }
    let reports = compare_chunked(&teacher, students, chunks, &mut pairs, |student| {
        let run = CaptureRun::new(student, &teacher, suite)?;
        Ok(run
            .with_chunk_size(usize::MAX)
            .with_teacher_sample(sample)
            .with_examples(examples))
    })?;
    let saved = reports.first().map_or(0, |(_, (_, saved))| *saved);
    let reports = reports
        .into_iter()
        .map(|(name, (report, _))| (name, report))
        .collect();
    Ok((Comparison::of_reports(None, reports, pairs), saved))
}

/// A classifier run as a student of a comparison ([`compare_students_sampled`]).
impl StudentRun for CaptureRun<'_> {
    type Error = Error;
    type Report = (ProfileReport, u64);
    type Pair = Pair;

    /// [`CaptureRun::add`], returning each text's outcome id.
    fn add_ids<S: AsRef<str>>(&mut self, texts: &[S]) -> Result<Vec<u32>, Error> {
        let (suite, sampled) = (self.suite, self.layout.sampled);
        let examples = &mut self.examples;
        let ledger = &mut self.ledger;
        let ids = self.run.add(texts, &mut |cache, clean, positions, out| {
            let examples = examples.as_mut().map(|c| (c, positions));
            let mut stages = Vec::new();
            let keep = ledger.is_some().then_some(&mut stages);
            chunk(cache, clean, out, suite, sampled, examples, keep)?;
            if let Some(ledger) = ledger.as_mut() {
                keep_answers(cache, clean, positions, &stages, ledger);
            }
            Ok::<(), suite_core::Error>(())
        })?;
        if self.ledger.is_some() {
            self.write_ledger(texts, &ids)?;
        }
        if let Some(collector) = self.examples.as_mut()
            && !collector.pending.is_empty()
        {
            let [student_decides, teacher_decides] = self.run.decides()?;
            let first = self.added;
            for p in std::mem::take(&mut collector.pending) {
                let Some(&id) = ids.get(p.position - first) else {
                    continue;
                };
                let (s, t) = escalations(self.run.outcomes().get(id));
                let key = key_hex(p.key);
                if let Some(e) = collector
                    .list(p.list)
                    .and_then(|l| l.0.iter_mut().find(|e| e.key == key))
                {
                    e.student.escalated = student_decides.then_some(s);
                    e.teacher.escalated = teacher_decides.then_some(t);
                }
            }
        }
        self.added += texts.len();
        Ok(ids)
    }

    fn outcome(&self, id: u32) -> &[u32] {
        self.run.outcomes().get(id)
    }

    /// Pairs two students' agreements (and changes, per invariance) on one text.
    fn pair(&self, pair: &mut Pair, x: &[u32], y: &[u32]) {
        self.pair_occurrence(pair, x, y, 1);
    }

    fn occurrences(&self) -> &[u64] {
        self.run.occurrences()
    }

    /// [`StudentRun::pair`] of a text's `occurrence`-th line `k`: a sampled pair's sums weigh it `2k − 1`
    /// in their second moments, so that a text of `c` lines adds `c²` (its lines are one draw).
    fn pair_occurrence(&self, pair: &mut Pair, x: &[u32], y: &[u32], occurrence: u64) {
        let (counts, layout) = (&mut pair.counts, &self.layout);
        counts.clean.agree.record(layout.clean(x), layout.clean(y));
        // Both students see the same texts, so the same sample.
        let labelled = layout.in_sample(x);
        for (k, stage) in counts.corruptions.values_mut().enumerate() {
            let (a, b) = (layout.corrupted(x, k), layout.corrupted(y, k));
            if labelled {
                stage.agree.record(a, b);
            }
            if let Some(t) = &mut stage.teacher_clean {
                t.record(layout.surrogate(x, k), layout.surrogate(y, k));
            }
            if let Some(sums) = &mut stage.sampled {
                let d = |p: bool, q: bool| i64::from(p) - i64::from(q);
                let surrogate = d(layout.surrogate(x, k), layout.surrogate(y, k));
                let square = (2 * occurrence.max(1)).saturating_sub(1);
                sums.record_texts(labelled.then(|| d(a, b)), surrogate, 1, square);
            }
        }
        for (i, stage) in counts.invariances.values_mut().enumerate() {
            let changed = |o: &[u32]| layout.changed(o, i).0;
            stage.changed.record(changed(x), changed(y));
        }
    }

    /// The report, and the teacher calls on transformed texts the sample saved.
    fn finish(self) -> Result<(ProfileReport, u64), Error> {
        let saved = self.teacher_calls_saved();
        Ok((self.report()?, saved))
    }
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
    )
    .with_references(suite.corruption_references());
    // The probe texts travel with every report (not only the command line's), so that a page
    // made from any report shows each probe beside its predictions.
    ProfileReport::new(descriptor, Counts::Classify(counts), probes)
        .with_probe_texts(suite.probes().iter().cloned())
}
