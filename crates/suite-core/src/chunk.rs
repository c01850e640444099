//! Profiles in chunks: bounded memory at any number of texts.

use std::collections::{HashMap, HashSet};

use foldhash::fast::FixedState;

use crate::cache::{Keep, PredictionCache, StageIds};
use crate::outcome::Outcomes;
use crate::sample::TeacherSample;
use crate::seen::Fingerprints;
use crate::transform::TextHash;
use crate::{Error, Model, SharedLabel, Side, Stage};

/// The number of texts a profile processes at once unless told otherwise
/// ([`ProfileRun::with_chunk_size`]).
///
/// Each chunk of texts goes through every stage (each model gets one batch per stage per chunk),
/// its outcomes are folded into the profile's counts, and its texts and answers are dropped, so
/// a profile's memory is bounded by the chunk (about 100 bytes per text and stage at 64-byte
/// texts: some 3 MB for seven stages) plus 16–32 bytes per distinct clean text for the
/// fingerprints that let a text repeated in a later chunk reuse its outcome. Small chunks are
/// also the fast ones: a chunk's tables stay in the processor's caches (docs/performance.md#workloads, workload A:
/// 0.21 s CPU at 4,096 texts a chunk, 0.31 s at 8,192, 0.46 s at 65,536).
pub const DEFAULT_CHUNK_SIZE: usize = 4_096;

/// The driver every profile runs on: texts in chunks, each distinct text predicted once per
/// model, per-text outcomes counted.
///
/// Per chunk, each clean text is fingerprinted (64 bits of its blake3 hash, which the seeded
/// transforms reuse). A text whose fingerprint an earlier chunk stored is not sent anywhere: its
/// stored outcome id counts it again. The other ("fresh") texts form the chunk's clean stage,
/// which the profile runs through its stages on a [`PredictionCache`] (each distinct text of the
/// chunk predicted once per model, the probes seeded so they are never predicted twice), then
/// describes each text's outcome as a short vector of words ([`OutcomeWriter`]); the driver adds
/// the decision APIs' escalations, interns the vectors ([`Outcomes`]) and stores each fresh
/// fingerprint with its outcome id. The chunk's texts and answers are then dropped.
///
/// What crosses chunks is the fingerprints (16–32 bytes per distinct clean text) and the
/// distinct outcome vectors. What is *not* deduplicated across chunks: a corrupted or rewritten
/// text equal to a text of an earlier chunk (other than through the same clean text) is
/// predicted again, as is a clean text equal to an earlier chunk's corrupted text. Two distinct
/// clean texts whose 64-bit fingerprints collide (odds about n²/2⁶⁵ for n distinct texts:
/// 3·10⁻⁶ at ten million) would share an outcome.
pub struct ProfileRun<'m, K: Keep> {
    cache: PredictionCache<'m, K>,
    probes: (StageIds, Vec<SharedLabel>, Vec<SharedLabel>),
    seen: Fingerprints,
    outcomes: Outcomes,
    chunk_size: usize,
    /// Whether each side (student, teacher) has a decision API, once a decision was asked for.
    decides: Option<[bool; 2]>,
    /// Texts added so far (the position of the next one).
    added: usize,
    /// When the teacher answers the transformed texts of a sample only.
    sample: Option<TeacherSample>,
    /// Lines so far of each clean text seen more than once (by fingerprint): a text's `k`-th
    /// line counts `2k − 1` into its outcome's squared counts ([`Outcomes::iter_units`]), what a
    /// teacher sample drawn per distinct text needs for its variance. 16–24 bytes per repeated
    /// distinct text; nothing for texts seen once.
    repeated: HashMap<u64, u64, FixedState>,
    /// The occurrence `k` of each text of the last [`ProfileRun::add`] (1: its first line).
    occurrences: Vec<u64>,
}

/// A profile's work on one chunk: run the fresh clean texts (`clean`, whose positions among
/// every text added are `positions`) through the stages on the cache, and write one outcome per
/// clean text.
pub type ChunkFn<'a, 'm, K, E> = dyn FnMut(&mut PredictionCache<'m, K>, &StageIds, &[usize], &mut OutcomeWriter) -> Result<(), E>
    + 'a;

/// Where a profile writes the outcome of each clean text of a chunk, in order: one vector of
/// words per text (the encoding is the profile's: bits packed into words, counts). The driver
/// appends one word, the escalations ([`ESCALATED_STUDENT`], [`ESCALATED_TEACHER`]).
#[derive(Debug, Default)]
pub struct OutcomeWriter {
    words: Vec<u32>,
    ends: Vec<usize>,
}

impl OutcomeWriter {
    /// Appends the next text's outcome.
    pub fn push(&mut self, outcome: &[u32]) {
        self.words.extend_from_slice(outcome);
        self.ends.push(self.words.len());
    }

    fn get(&self, i: usize) -> &[u32] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.ends
            .get(i)
            .and_then(|&end| self.words.get(start..end))
            .unwrap_or(&[])
    }
}

/// The word a driver appends to each outcome: bit 0 the student escalated, bit 1 the teacher.
pub const ESCALATED_STUDENT: u32 = 1;
/// See [`ESCALATED_STUDENT`].
pub const ESCALATED_TEACHER: u32 = 2;

/// The (student, teacher) escalations of a stored outcome: its last word, which the driver
/// appends (both `false` for an empty outcome).
///
/// ```
/// use suite_core::{ESCALATED_TEACHER, escalations};
///
/// assert_eq!(escalations(&[0b111, ESCALATED_TEACHER]), (false, true));
/// assert_eq!(escalations(&[]), (false, false));
/// ```
pub fn escalations(outcome: &[u32]) -> (bool, bool) {
    let e = outcome.last().copied().unwrap_or(0);
    (e & ESCALATED_STUDENT != 0, e & ESCALATED_TEACHER != 0)
}

impl<'m, K: Keep> ProfileRun<'m, K> {
    /// A run over `student` and `teacher`, keeping what `keep` makes of each answer; `probes`
    /// are predicted here, once for the whole run.
    pub fn new<S: AsRef<str>>(
        student: &'m dyn Model,
        teacher: &'m dyn Model,
        keep: K,
        probes: &[S],
    ) -> Result<ProfileRun<'m, K>, Error> {
        let (cache, ids, s, t) = PredictionCache::seeded(
            student,
            teacher,
            keep,
            &Stage::Probes,
            probes.iter().map(AsRef::as_ref),
        )?;
        Ok(ProfileRun {
            cache,
            probes: (ids, s, t),
            seen: Fingerprints::default(),
            outcomes: Outcomes::default(),
            chunk_size: DEFAULT_CHUNK_SIZE,
            decides: None,
            added: 0,
            sample: None,
            repeated: HashMap::default(),
            occurrences: Vec::new(),
        })
    }

    /// The run with another chunk size (at least 1). The profile is the same whatever the size;
    /// the batches the models see and the memory are not.
    pub fn with_chunk_size(mut self, chunk_size: usize) -> ProfileRun<'m, K> {
        self.chunk_size = chunk_size.max(1);
        self
    }

    /// The run with the teacher answering the transformed texts of a sample of the texts only
    /// (the clean texts always): [`PredictionCache::teacher_sampled`] tells the profile which
    /// clean positions of a chunk are in it, [`PredictionCache::teacher_answered`] which texts
    /// the teacher answered. Membership is per text, by content ([`TeacherSample`]).
    pub fn with_teacher_sample(mut self, sample: Option<TeacherSample>) -> ProfileRun<'m, K> {
        self.sample = sample;
        self
    }

    /// The teacher's sampling design, when it answers a sample only.
    pub fn teacher_sample(&self) -> Option<TeacherSample> {
        self.sample
    }

    /// Distinct transformed texts the teacher was not asked about so far (the calls the sample
    /// saved, counted per chunk as the engine would have sent them).
    pub fn teacher_skipped(&self) -> u64 {
        self.cache.teacher_skipped()
    }

    /// The chunk size.
    pub fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// `side`'s answers to the probes, one per probe.
    pub fn probe_answers(&self, side: Side) -> &[SharedLabel] {
        match side {
            Side::Student => &self.probes.1,
            Side::Teacher => &self.probes.2,
        }
    }

    /// Profiles `texts`, `chunk_size` at a time (a caller streaming a large input hands them in
    /// pieces of any size). `profile` runs a chunk's fresh clean texts through the stages and
    /// writes one outcome per clean position. Returns the outcome id of every text, in order.
    pub fn add<S, E>(
        &mut self,
        texts: &[S],
        profile: &mut ChunkFn<'_, 'm, K, E>,
    ) -> Result<Vec<u32>, E>
    where
        S: AsRef<str>,
        E: From<Error>,
    {
        let mut ids = Vec::with_capacity(texts.len());
        self.occurrences.clear();
        for chunk in texts.chunks(self.chunk_size) {
            self.add_chunk(chunk, profile, &mut ids)?;
        }
        Ok(ids)
    }

    fn add_chunk<S, E>(
        &mut self,
        chunk: &[S],
        profile: &mut ChunkFn<'_, 'm, K, E>,
        ids: &mut Vec<u32>,
    ) -> Result<(), E>
    where
        S: AsRef<str>,
        E: From<Error>,
    {
        let first = ids.len();
        let mut fresh: Vec<(usize, &str, TextHash)> = Vec::new();
        // Fresh fingerprints of this chunk: a second line of one is a repeat too.
        let mut fresh_here: HashSet<u64, FixedState> = HashSet::default();
        for (i, text) in chunk.iter().enumerate() {
            let text = text.as_ref();
            let hash = TextHash::of(text);
            let print = fingerprint(&hash);
            match self.seen.get(print) {
                Some(id) => {
                    ids.push(id);
                    let k = self.repeat(print);
                    self.occurrences.push(k);
                }
                None => {
                    ids.push(u32::MAX);
                    fresh.push((first + i, text, hash));
                    let k = if fresh_here.insert(print) {
                        1
                    } else {
                        self.repeat(print)
                    };
                    self.occurrences.push(k);
                }
            }
        }
        if !fresh.is_empty() {
            let texts: Vec<&str> = fresh.iter().map(|f| f.1).collect();
            let hashes: Vec<TextHash> = fresh.iter().map(|f| f.2).collect();
            // `f.0` indexes this call's texts; `self.added` already counts this call's earlier
            // chunks, so the chunk's own offset is what is added to it.
            let positions: Vec<usize> = fresh.iter().map(|f| self.added + f.0 - first).collect();
            let clean = self.cache.stage_hashed(&Stage::Clean, &texts, &hashes)?;
            if let Some(sample) = &self.sample {
                self.cache
                    .sample_teacher(hashes.iter().map(|h| sample.includes(h)).collect());
            }
            let mut writer = OutcomeWriter::default();
            profile(&mut self.cache, &clean, &positions, &mut writer)?;
            let escalations = self.cache.escalations(&clean)?;
            let decides = [escalations.student.is_some(), escalations.teacher.is_some()];
            self.check_decides(decides)?;
            let mut outcome = Vec::new();
            for (j, &(i, _, hash)) in fresh.iter().enumerate() {
                outcome.clear();
                outcome.extend_from_slice(writer.get(j));
                let mut escalated = 0;
                if escalations.escalated(Side::Student, j) {
                    escalated |= ESCALATED_STUDENT;
                }
                if escalations.escalated(Side::Teacher, j) {
                    escalated |= ESCALATED_TEACHER;
                }
                outcome.push(escalated);
                let id = self.outcomes.intern(&outcome);
                ids[i] = id;
                self.seen.insert(fingerprint(&hash), id);
            }
            self.cache.reset();
        }
        let occurrences = &self.occurrences[self.occurrences.len() - chunk.len()..];
        for (&id, &k) in ids[first..].iter().zip(occurrences) {
            self.outcomes.count_occurrence(id, k);
        }
        self.added += chunk.len();
        Ok(())
    }

    /// Counts one more line of a text seen before: its occurrence `k` (at least 2).
    fn repeat(&mut self, print: u64) -> u64 {
        let k = self.repeated.entry(print).or_insert(1);
        *k += 1;
        *k
    }

    /// The occurrence of each text of the last [`ProfileRun::add`] in this run: 1 for a text's
    /// first line, `k` for its `k`-th (whatever the chunks). A profile that pairs texts line by
    /// line (a comparison) weighs the `k`-th line `2k − 1`, so that a text's lines sum to `c²`.
    pub fn occurrences(&self) -> &[u64] {
        &self.occurrences
    }

    fn check_decides(&mut self, decides: [bool; 2]) -> Result<(), Error> {
        match self.decides {
            None => {
                self.decides = Some(decides);
                Ok(())
            }
            Some(before) if before == decides => Ok(()),
            Some(before) => Err(Error::DecisionApiChanged {
                side: if before[0] != decides[0] {
                    Side::Student
                } else {
                    Side::Teacher
                },
            }),
        }
    }

    /// Whether each side has a decision API (`[student, teacher]`). A run that never decided a
    /// text asks each model about no texts, as a profile of no texts does.
    pub fn decides(&mut self) -> Result<[bool; 2], Error> {
        if let Some(d) = self.decides {
            return Ok(d);
        }
        let escalations = self.cache.escalations(&StageIds::default())?;
        let decides = [escalations.student.is_some(), escalations.teacher.is_some()];
        self.decides = Some(decides);
        Ok(decides)
    }

    /// Every distinct outcome with its number of texts; the last word of each is the
    /// escalation word ([`ESCALATED_STUDENT`], [`ESCALATED_TEACHER`]).
    pub fn outcomes(&self) -> &Outcomes {
        &self.outcomes
    }

    /// Number of distinct clean texts fingerprinted so far.
    pub fn fingerprints(&self) -> usize {
        self.seen.len()
    }

    /// Bytes held by the fingerprints.
    pub fn fingerprint_bytes(&self) -> usize {
        self.seen.allocated_bytes()
    }
}

/// The fingerprint of a clean text: the first 64 bits of its blake3 hash.
fn fingerprint(hash: &TextHash) -> u64 {
    let mut bytes = [0; 8];
    bytes.copy_from_slice(&hash.0[..8]);
    u64::from_le_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{KeepAnswers, PerItemFn};
    use serde_json::json;
    use std::cell::RefCell;

    #[test]
    fn repeated_texts_of_later_chunks_reach_no_model() {
        let asked = RefCell::new(Vec::<String>::new());
        let student = PerItemFn::new(|t: &str| {
            asked.borrow_mut().push(t.to_owned());
            json!(t.len())
        });
        let teacher = PerItemFn::new(|t: &str| json!(t.len()));
        let mut run = ProfileRun::new(&student, &teacher, KeepAnswers, &["p"])
            .unwrap()
            .with_chunk_size(2);
        let mut profile = |cache: &mut PredictionCache<'_, KeepAnswers>,
                           clean: &StageIds,
                           _: &[usize],
                           out: &mut OutcomeWriter|
         -> Result<(), Error> {
            for &id in clean.ids() {
                let len = cache.student(id).as_u64().unwrap_or(0) as u32;
                out.push(&[len]);
            }
            Ok(())
        };
        let ids = run
            .add(&["ab", "p", "ab", "c", "ab", "c"], &mut profile)
            .unwrap();
        assert_eq!(*asked.borrow(), ["p", "ab", "c"]);
        assert_eq!(ids[0], ids[2]);
        assert_eq!(ids[3], ids[5]);
        assert_eq!(run.outcomes().texts(), 6);
        assert_eq!(run.outcomes().get(ids[0]), [2, 0]);
        assert_eq!(run.fingerprints(), 3);
        assert_eq!(run.decides().unwrap(), [false, false]);
    }

    #[test]
    fn each_line_knows_its_occurrence_and_outcomes_sum_squared_counts() {
        let model = PerItemFn::new(|t: &str| json!(t.len()));
        let texts = ["ab", "ab", "c", "ab", "de", "c", "ab"];
        // The same occurrences and Σ c² per outcome for any chunking, repeats within a chunk
        // and across chunks alike.
        for chunk in [1, 2, 3, 7] {
            let mut run = ProfileRun::new(&model, &model, KeepAnswers, &[] as &[&str])
                .unwrap()
                .with_chunk_size(chunk);
            let mut profile = |cache: &mut PredictionCache<'_, KeepAnswers>,
                               clean: &StageIds,
                               _: &[usize],
                               out: &mut OutcomeWriter|
             -> Result<(), Error> {
                for &id in clean.ids() {
                    out.push(&[cache.student(id).as_u64().unwrap_or(0) as u32]);
                }
                Ok(())
            };
            run.add(&texts[..4], &mut profile).unwrap();
            assert_eq!(run.occurrences(), [1, 2, 1, 3], "chunk {chunk}");
            run.add(&texts[4..], &mut profile).unwrap();
            assert_eq!(run.occurrences(), [1, 2, 4], "chunk {chunk}");
            // Outcome [2]: "ab" (4 lines) and "de" (1): Σc = 5, Σc² = 17; [1]: "c" (2 lines).
            let units: Vec<(Vec<u32>, u64, u64)> = run
                .outcomes()
                .iter_units()
                .map(|(o, w, q)| (o.to_vec(), w, q))
                .collect();
            assert_eq!(
                units,
                [(vec![2, 0], 5, 17), (vec![1, 0], 2, 4)],
                "chunk {chunk}"
            );
        }
    }
}
