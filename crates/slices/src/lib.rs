//! Slices of a per-text ledger where a student disagrees with its teacher more than on the
//! rest of the texts.
//!
//! The ledger is the JSONL `capkit profile classify --ledger FILE.jsonl` writes (one line per
//! text and stage; see `capture`'s `ledger` module). A line's outcome is *disagree*: on the
//! clean line and on a corruption's line `agree == false` (a corruption line without `agree`,
//! outside the teacher's sample, is not counted), on an invariance's line
//! `student_changed == true`. Repeats (`"repeat": true`) count as any other line: they carry
//! the outcome and the text.
//!
//! Candidates are predicates over a line's clean `text` ([`predicates`]: five length bins,
//! five character classes, the tokens occurring in at least `min_support` texts) and over the
//! clean labels of the text's clean line (`teacher:L`, `student:L`, when the line carries them:
//! a repeat's line does not, and its text counts outside every label slice), each in at least
//! `min_support` texts and not in all of them; and conjunctions of two of the
//! [`Options::max_pair_base`] most frequent of those, themselves in at least `min_support`
//! texts, except a teacher label with a student label (on the clean stage that is
//! disagreement itself). For each stage and candidate, [`stats::slice_test`] compares the candidate's
//! disagreement rate with its complement's (one-sided, Fisher's exact test: more disagreement
//! inside; the score statistic `z` is reported beside it); every test
//! of every stage is one family for Benjamini–Hochberg (or Holm), at `q = 1 − level`.
//!
//! A conjunction `A & B` is *folded* into `A` when `A` is itself significant at that stage and
//! their Wilson intervals overlap (the conjunction's rate is not told apart from its part's,
//! so `B` adds nothing shown); it is then listed under `A`'s `folded`, not on its own. A
//! candidate holding exactly the texts of one before it in the order (`token:coffee` and
//! `token:slow` when every text with one has the other) is folded into it the same way.
//!
//! Memory: the ledger is read three times, streaming. The first pass counts each token's
//! texts (memory: the vocabulary); the second counts each stage's lines and disagreements per
//! candidate and pair (memory: candidates × stages, with `max_pair_base²/2` pairs) and keeps the
//! three smallest keys of each one's disagreeing lines; the third reads the example texts of
//! the slices shown. Nothing is kept per line.
#![forbid(unsafe_code)]

pub mod breakdown;
mod error;
pub mod predicates;
pub mod stats;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::BufRead;

pub use error::Error;
use profile_stats::{Interval, Level, wilson};
use serde::{Deserialize, Serialize};

/// The `format` of a slice report.
pub const FORMAT: &str = "capkit-slices/1";

/// The multiplicity correction over every candidate tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Benjamini–Hochberg: the false-discovery rate at most `q`.
    Bh,
    /// Holm: the family-wise error rate at most `q`.
    Holm,
}

/// How slices are looked for.
#[derive(Debug, Clone)]
pub struct Options {
    /// A candidate must hold on at least this many texts (clean lines). Default 20.
    pub min_support: u64,
    /// At most this many slices per stage in the report. Default 15.
    pub max_shown: usize,
    /// The correction. Default Benjamini–Hochberg.
    pub method: Method,
    /// The confidence level of the intervals; `q = 1 − level` is the correction's level.
    pub level: Level,
    /// Conjunctions are formed from this many single candidates, the most frequent (ties by
    /// name). Default 200 (19,900 pairs at most): what bounds the second pass's memory.
    pub max_pair_base: usize,
    /// Example texts per slice. Default 3.
    pub examples: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            min_support: 20,
            max_shown: 15,
            method: Method::Bh,
            level: Level::DEFAULT,
            max_pair_base: 200,
            examples: 3,
        }
    }
}

/// The slices of a ledger.
#[derive(Debug, Clone, Serialize)]
pub struct SliceReport {
    /// [`FORMAT`].
    pub format: String,
    /// How many tests the correction was over (every stage's candidates and conjunctions with
    /// lines both inside and outside).
    pub tested: usize,
    /// The correction.
    pub method: Method,
    /// The intervals' confidence level.
    pub level: f64,
    /// The correction's level, `1 − level`.
    pub q: f64,
    /// The support a candidate needs.
    pub min_support: u64,
    /// The texts (clean lines) of the ledger.
    pub texts: u64,
    /// The single candidates (predicates with enough support).
    pub candidates: usize,
    /// The conjunctions of two with enough support.
    pub conjunctions: usize,
    /// Per stage, in ledger order: its lines, disagreements and how many slices are
    /// significant.
    pub totals: Stages<StageTotal>,
    /// Per stage, in ledger order: the slices shown, by adjusted p, then raw p, then single
    /// candidates before conjunctions, then name.
    pub stages: Stages<Vec<Slice>>,
}

/// A map from stage names, in ledger order (serialised as a JSON object).
#[derive(Debug, Clone)]
pub struct Stages<T>(pub Vec<(String, T)>);

impl<T: Serialize> Serialize for Stages<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// A stage's lines and disagreements.
#[derive(Debug, Clone, Serialize)]
pub struct StageTotal {
    /// Lines counted.
    pub lines: u64,
    /// Of which the student disagrees.
    pub disagree: u64,
    /// The disagreement rate, with its Wilson interval.
    pub rate: Interval,
    /// Slices significant at `q` (folded ones included).
    pub significant: usize,
    /// Slices folded into a larger one.
    pub folded: usize,
}

/// One slice of one stage.
#[derive(Debug, Clone, Serialize)]
pub struct Slice {
    /// The candidate's name: a predicate (`token:but`) or two joined by ` & `.
    pub name: String,
    /// Its predicates.
    pub predicates: Vec<String>,
    /// The texts (clean lines) it holds on.
    pub texts: u64,
    /// Its lines at this stage.
    pub size: u64,
    /// Of which the student disagrees.
    pub disagree: u64,
    /// The disagreement rate inside, with its Wilson interval.
    pub rate: Interval,
    /// The rest of the stage's lines.
    pub rest: Rest,
    /// The rate inside less the rate outside.
    pub difference: f64,
    /// The two-proportion score statistic (pooled).
    pub z: f64,
    /// The one-sided p-value of Fisher's exact test (0 where it underflows: see `log10_p`).
    pub p: f64,
    /// `log10` of the p-value.
    pub log10_p: f64,
    /// The adjusted p-value.
    pub adjusted_p: f64,
    /// `log10` of the adjusted p-value.
    pub log10_adjusted_p: f64,
    /// The conjunctions folded into this slice.
    pub folded: Vec<String>,
    /// Disagreeing texts of the slice: those of the smallest keys.
    pub examples: Vec<Example>,
}

/// The lines outside a slice.
#[derive(Debug, Clone, Serialize)]
pub struct Rest {
    /// Lines.
    pub size: u64,
    /// Of which the student disagrees.
    pub disagree: u64,
    /// The disagreement rate, with its Wilson interval.
    pub rate: Interval,
}

/// An example text.
#[derive(Debug, Clone, Serialize)]
pub struct Example {
    /// The text's `id` in the ledger.
    pub id: u64,
    /// Its `key`.
    pub key: String,
    /// The clean text.
    pub text: String,
}

/// The fields of a ledger line the scan reads (others are ignored).
#[derive(Deserialize)]
struct Line {
    id: u64,
    key: String,
    stage: String,
    kind: String,
    text: String,
    #[serde(default)]
    student: Option<String>,
    #[serde(default)]
    teacher: Option<String>,
    #[serde(default)]
    agree: Option<bool>,
    #[serde(default)]
    student_changed: Option<bool>,
}

/// What kind of line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Clean,
    Corruption,
    Invariance,
}

impl Line {
    fn kind(&self) -> Result<Kind, String> {
        match self.kind.as_str() {
            "clean" => Ok(Kind::Clean),
            "corruption" => Ok(Kind::Corruption),
            "invariance" => Ok(Kind::Invariance),
            other => Err(format!(
                "`kind` is {other:?}, not \"clean\", \"corruption\" or \"invariance\""
            )),
        }
    }

    /// Whether the student disagrees, or `None` for a line that is not counted.
    fn disagrees(&self, kind: Kind) -> Result<Option<bool>, String> {
        match kind {
            Kind::Clean => self
                .agree
                .map(|a| Some(!a))
                .ok_or_else(|| "a clean line without `agree`".to_owned()),
            Kind::Corruption => Ok(self.agree.map(|a| !a)),
            Kind::Invariance => self
                .student_changed
                .map(Some)
                .ok_or_else(|| "an invariance line without `student_changed`".to_owned()),
        }
    }

    fn key(&self) -> Result<u64, String> {
        u64::from_str_radix(&self.key, 16)
            .ok()
            .filter(|_| self.key.len() == 16)
            .ok_or_else(|| format!("`key` is {:?}, not 16 hex digits", self.key))
    }
}

/// Reads the ledger's lines, parsed, with their 1-based numbers; blank lines are skipped.
fn for_each_line<R: BufRead>(
    reader: R,
    file: &str,
    mut each: impl FnMut(u64, Line, &str) -> Result<(), Error>,
) -> Result<u64, Error> {
    let mut number = 0u64;
    let mut counted = 0u64;
    for raw in reader.lines() {
        number += 1;
        let raw = raw.map_err(|error| Error::Io {
            file: file.to_owned(),
            error,
        })?;
        if raw.trim().is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(&raw).map_err(|e| Error::Line {
            file: file.to_owned(),
            line: number,
            message: format!("not a ledger line: {e}"),
        })?;
        counted += 1;
        each(number, line, &raw)?;
    }
    Ok(counted)
}

fn bad(file: &str, line: u64, message: String) -> Error {
    Error::Line {
        file: file.to_owned(),
        line,
        message,
    }
}

/// The single candidates, found by the first pass.
struct Candidates {
    names: Vec<String>,
    support: Vec<u64>,
    /// Fixed predicate index → candidate.
    fixed: Vec<Option<u32>>,
    tokens: HashMap<String, u32>,
    teacher: HashMap<String, u32>,
    student: HashMap<String, u32>,
    /// Candidate → its position among the pair base.
    base: Vec<Option<u32>>,
    /// Pair base position → candidate.
    base_candidates: Vec<u32>,
}

impl Candidates {
    /// The candidates a text holds (sorted ids) and its pair-base positions (sorted).
    fn active(
        &self,
        text: &str,
        teacher: Option<&str>,
        student: Option<&str>,
    ) -> (Vec<u32>, Vec<u32>) {
        let mut ids = Vec::new();
        let mut push = |id: Option<u32>| ids.extend(id);
        push(self.fixed[predicates::length_bin(text)]);
        let bins = predicates::LENGTH_BINS.len() + 1;
        for (i, on) in predicates::classes(text).into_iter().enumerate() {
            if on {
                push(self.fixed[bins + i]);
            }
        }
        for token in predicates::tokens(text) {
            push(self.tokens.get(&token).copied());
        }
        push(teacher.and_then(|t| self.teacher.get(t).copied()));
        push(student.and_then(|s| self.student.get(s).copied()));
        ids.sort_unstable();
        let mut base: Vec<u32> = ids.iter().filter_map(|&c| self.base[c as usize]).collect();
        base.sort_unstable();
        (ids, base)
    }
}

impl Candidates {
    /// Whether the pair of base positions `a`, `b` is a teacher label and a student label: on
    /// the clean stage that conjunction is disagreement itself (or agreement), so it is never a
    /// candidate (the confusion table is a breakdown's, not a slice's).
    fn is_confusion(&self, a: usize, b: usize) -> bool {
        let name = |p: usize| self.names[self.base_candidates[p] as usize].as_str();
        let side = |n: &str| {
            if n.starts_with("teacher:") {
                1
            } else if n.starts_with("student:") {
                2
            } else {
                0
            }
        };
        side(name(a)) * side(name(b)) == 2
    }
}

/// The index of the pair of base positions `a < b`.
fn pair_index(a: u32, b: u32) -> usize {
    let (a, b) = (a as usize, b as usize);
    b * (b - 1) / 2 + a
}

/// splitmix64's finaliser: a well-spread 64-bit hash of a text's ordinal.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Lines and disagreements.
#[derive(Clone, Copy, Default)]
struct Count {
    n: u64,
    x: u64,
}

/// The smallest distinct keys of disagreeing lines (key, id), ascending.
#[derive(Clone, Default)]
struct Smallest(Vec<(u64, u64)>);

impl Smallest {
    fn offer(&mut self, key: u64, id: u64, keep: usize) {
        if self.0.len() == keep && self.0.last().is_some_and(|&(k, _)| key >= k) {
            return;
        }
        match self.0.binary_search_by(|&(k, _)| k.cmp(&key)) {
            Ok(_) => {}
            Err(at) => {
                self.0.insert(at, (key, id));
                self.0.truncate(keep);
            }
        }
    }
}

/// Finds the slices of the ledger `open` gives a reader of (it is called once per pass, three
/// times; `file` names the ledger in errors).
pub fn find_slices<R: BufRead>(
    mut open: impl FnMut() -> std::io::Result<R>,
    file: &str,
    options: &Options,
) -> Result<SliceReport, Error> {
    let io = |error| Error::Io {
        file: file.to_owned(),
        error,
    };
    let fixed_names = predicates::fixed_names();

    // Pass 1: the texts' supports.
    let mut texts = 0u64;
    let mut fixed_support = vec![0u64; fixed_names.len()];
    let mut token_df: HashMap<String, u64> = HashMap::new();
    let mut teacher_df: HashMap<String, u64> = HashMap::new();
    let mut student_df: HashMap<String, u64> = HashMap::new();
    let mut stages: Vec<String> = Vec::new();
    let mut stage_index: HashMap<String, usize> = HashMap::new();
    let lines = for_each_line(open().map_err(io)?, file, |number, line, _| {
        let kind = line.kind().map_err(|m| bad(file, number, m))?;
        line.disagrees(kind).map_err(|m| bad(file, number, m))?;
        line.key().map_err(|m| bad(file, number, m))?;
        if (kind == Kind::Clean) != (line.stage == "clean") {
            return Err(bad(
                file,
                number,
                format!("stage {:?} of kind {:?}", line.stage, line.kind),
            ));
        }
        if !stage_index.contains_key(&line.stage) {
            stage_index.insert(line.stage.clone(), stages.len());
            stages.push(line.stage.clone());
        }
        if kind != Kind::Clean {
            return Ok(());
        }
        texts += 1;
        fixed_support[predicates::length_bin(&line.text)] += 1;
        let bins = predicates::LENGTH_BINS.len() + 1;
        for (i, on) in predicates::classes(&line.text).into_iter().enumerate() {
            fixed_support[bins + i] += u64::from(on);
        }
        for token in predicates::tokens(&line.text) {
            *token_df.entry(token).or_default() += 1;
        }
        if let Some(t) = line.teacher {
            *teacher_df.entry(t).or_default() += 1;
        }
        if let Some(s) = line.student {
            *student_df.entry(s).or_default() += 1;
        }
        Ok(())
    })?;

    // The candidates: enough support, and not every text (a complement to compare with).
    let testable = |support: u64| support >= options.min_support && support < texts;
    let mut names = Vec::new();
    let mut support = Vec::new();
    let mut add = |name: String, s: u64| -> Option<u32> {
        if !testable(s) {
            return None;
        }
        names.push(name);
        support.push(s);
        u32::try_from(names.len() - 1).ok()
    };
    let fixed: Vec<Option<u32>> = fixed_names
        .iter()
        .zip(&fixed_support)
        .map(|(n, &s)| add((*n).to_owned(), s))
        .collect();
    let mut sorted = |df: HashMap<String, u64>, prefix: &str| -> HashMap<String, u32> {
        let df: BTreeMap<String, u64> = df.into_iter().collect();
        df.into_iter()
            .filter_map(|(value, s)| Some((value.clone(), add(format!("{prefix}{value}"), s)?)))
            .collect()
    };
    let tokens = sorted(token_df, "token:");
    let teacher = sorted(teacher_df, "teacher:");
    let student = sorted(student_df, "student:");
    let mut by_support: Vec<u32> = (0..names.len() as u32).collect();
    by_support.sort_by(|&a, &b| {
        support[b as usize]
            .cmp(&support[a as usize])
            .then(names[a as usize].cmp(&names[b as usize]))
    });
    by_support.truncate(options.max_pair_base);
    by_support.sort_unstable();
    let mut base = vec![None; names.len()];
    for (position, &c) in by_support.iter().enumerate() {
        base[c as usize] = Some(position as u32);
    }
    let candidates = Candidates {
        names,
        support,
        fixed,
        tokens,
        teacher,
        student,
        base,
        base_candidates: by_support,
    };
    let singles = candidates.names.len();
    let k = candidates.base_candidates.len();
    let pairs = k * k.saturating_sub(1) / 2;

    // Pass 2: per stage, lines and disagreements of each candidate and pair.
    let s_count = stages.len();
    let keep = options.examples;
    let mut total = vec![Count::default(); s_count];
    let mut single = vec![Count::default(); s_count * singles];
    let mut pair = vec![Count::default(); s_count * pairs];
    let mut single_examples = vec![Smallest::default(); s_count * singles];
    let mut pair_examples = vec![Smallest::default(); s_count * pairs];
    let mut pair_support = vec![0u64; pairs];
    // Which texts each candidate and pair holds, as a sum of one hash per text (its ordinal among
    // the clean lines): two with the same support and sum hold the same texts (but for a 2⁻⁶⁴
    // chance), so one is folded into the other.
    let mut single_print = vec![0u64; singles];
    let mut pair_print = vec![0u64; pairs];
    // The candidates of the text whose lines are being read (a text's lines are consecutive;
    // a line of another id is computed from its own fields).
    let mut current: Option<(u64, Vec<u32>, Vec<u32>)> = None;
    let mut second_texts = 0u64;
    let second_lines = for_each_line(open().map_err(io)?, file, |number, line, _| {
        let changed = |message: String| Error::Changed {
            file: file.to_owned(),
            message: format!("line {number}: {message}"),
        };
        let kind = line.kind().map_err(&changed)?;
        let disagrees = line.disagrees(kind).map_err(&changed)?;
        let key = line.key().map_err(&changed)?;
        let s = *stage_index
            .get(&line.stage)
            .ok_or_else(|| changed(format!("a new stage {:?}", line.stage)))?;
        if kind == Kind::Clean || current.as_ref().is_none_or(|c| c.0 != line.id) {
            let (ids, positions) =
                candidates.active(&line.text, line.teacher.as_deref(), line.student.as_deref());
            current = Some((line.id, ids, positions));
        }
        let Some((_, ids, positions)) = current.as_ref() else {
            return Ok(());
        };
        if kind == Kind::Clean {
            second_texts += 1;
            let h = mix(second_texts);
            for &c in ids {
                single_print[c as usize] = single_print[c as usize].wrapping_add(h);
            }
            for (j, &b) in positions.iter().enumerate() {
                for &a in &positions[..j] {
                    pair_support[pair_index(a, b)] += 1;
                    pair_print[pair_index(a, b)] = pair_print[pair_index(a, b)].wrapping_add(h);
                }
            }
        }
        let Some(disagrees) = disagrees else {
            return Ok(());
        };
        let x = u64::from(disagrees);
        total[s].n += 1;
        total[s].x += x;
        for &c in ids {
            let at = s * singles + c as usize;
            single[at].n += 1;
            single[at].x += x;
            if disagrees {
                single_examples[at].offer(key, line.id, keep);
            }
        }
        for (j, &b) in positions.iter().enumerate() {
            for &a in &positions[..j] {
                let at = s * pairs + pair_index(a, b);
                pair[at].n += 1;
                pair[at].x += x;
                if disagrees {
                    pair_examples[at].offer(key, line.id, keep);
                }
            }
        }
        Ok(())
    })?;
    if (second_lines, second_texts) != (lines, texts) {
        return Err(Error::Changed {
            file: file.to_owned(),
            message: format!(
                "{lines} lines and {texts} texts, then {second_lines} and {second_texts}"
            ),
        });
    }

    // The tests: every stage's candidates and conjunctions with lines inside and outside.
    struct Test {
        stage: usize,
        /// Candidate ids: one, or two for a conjunction (ascending by name).
        parts: Vec<u32>,
        name: String,
        texts: u64,
        count: Count,
        z: f64,
        log10_p: f64,
        examples: Vec<(u64, u64)>,
        /// The support and the sum of the texts' hashes: which texts it holds.
        members: (u64, u64),
    }
    let conjunctions = pair_support.iter().filter(|&&s| testable(s)).count();
    let mut tests: Vec<Test> = Vec::new();
    for (s, stage_total) in total.iter().enumerate() {
        let mut try_test =
            |parts: Vec<u32>, (texts, print): (u64, u64), count: Count, examples: &Smallest| {
                let rest = Count {
                    n: stage_total.n - count.n,
                    x: stage_total.x - count.x,
                };
                if count.n == 0 || rest.n == 0 {
                    return;
                }
                let (z, log10_p) = stats::slice_test(count.x, count.n, rest.x, rest.n);
                let name = parts
                    .iter()
                    .map(|&c| candidates.names[c as usize].as_str())
                    .collect::<Vec<_>>()
                    .join(" & ");
                tests.push(Test {
                    stage: s,
                    parts,
                    name,
                    texts,
                    count,
                    z,
                    log10_p,
                    examples: examples.0.clone(),
                    members: (texts, print),
                });
            };
        for (c, (&support, &print)) in candidates.support.iter().zip(&single_print).enumerate() {
            let at = s * singles + c;
            try_test(
                vec![c as u32],
                (support, print),
                single[at],
                &single_examples[at],
            );
        }
        for b in 1..k {
            for a in 0..b {
                let index = pair_index(a as u32, b as u32);
                if !testable(pair_support[index]) || candidates.is_confusion(a, b) {
                    continue;
                }
                let mut parts = vec![candidates.base_candidates[a], candidates.base_candidates[b]];
                parts.sort_by(|x, y| {
                    candidates.names[*x as usize].cmp(&candidates.names[*y as usize])
                });
                let at = s * pairs + index;
                try_test(
                    parts,
                    (pair_support[index], pair_print[index]),
                    pair[at],
                    &pair_examples[at],
                );
            }
        }
    }
    let log10_p: Vec<f64> = tests.iter().map(|t| t.log10_p).collect();
    let adjusted = match options.method {
        Method::Bh => stats::bh_log10(&log10_p),
        Method::Holm => profile_stats::holm_log10(&log10_p),
    };
    // Rounded to 12 digits: 1 − 0.95 is 0.050000000000000044 in binary, and the JSON shows it.
    let q = ((1.0 - options.level.get()) * 1e12).round() / 1e12;
    let log10_q = q.log10();

    // Per stage: the significant tests in order; conjunctions folded into a significant part
    // whose interval overlaps theirs; the first `max_shown` of the rest.
    let level = options.level;
    let interval = |c: Count| wilson(c.x, c.n, level);
    // Per stage: the tests shown, each with the conjunctions folded into it.
    type Shown = Vec<(usize, Vec<String>)>;
    let mut shown: Vec<(String, Shown)> = Vec::new();
    let mut stage_totals = Vec::new();
    for (s, name) in stages.iter().enumerate() {
        let mut significant: Vec<usize> = (0..tests.len())
            .filter(|&i| tests[i].stage == s && adjusted[i] <= log10_q)
            .collect();
        significant.sort_by(|&i, &j| {
            adjusted[i]
                .total_cmp(&adjusted[j])
                .then(tests[i].log10_p.total_cmp(&tests[j].log10_p))
                // At equal p (the same texts, often) the simpler slice first: it is kept.
                .then(tests[i].parts.len().cmp(&tests[j].parts.len()))
                .then(tests[i].name.cmp(&tests[j].name))
        });
        let single_at: HashMap<u32, usize> = significant
            .iter()
            .filter(|&&i| tests[i].parts.len() == 1)
            .map(|&i| (tests[i].parts[0], i))
            .collect();
        let mut folded_into: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        // A candidate holding the very texts of one before it in the order (the same counts,
        // so the same p: they are neighbours, the first by name kept) is that slice again.
        let mut alias_of: HashMap<usize, usize> = HashMap::new();
        let mut first_with: HashMap<(u64, u64), usize> = HashMap::new();
        for &i in &significant {
            match first_with.get(&tests[i].members) {
                Some(&p) => {
                    alias_of.insert(i, p);
                }
                None => {
                    first_with.insert(tests[i].members, i);
                }
            }
        }
        let mut kept = Vec::new();
        for &i in &significant {
            let t = &tests[i];
            if let Some(&p) = alias_of.get(&i) {
                folded_into.entry(p).or_default().push(t.name.clone());
                continue;
            }
            let inside = interval(t.count);
            // The significant part, first in the order, whose interval overlaps the conjunction's.
            let into = (t.parts.len() == 2)
                .then(|| {
                    let mut parts: Vec<usize> = t
                        .parts
                        .iter()
                        .filter_map(|p| single_at.get(p).copied())
                        .collect();
                    parts.sort_by_key(|&p| significant.iter().position(|&x| x == p));
                    parts.into_iter().find(|&p| {
                        let other = interval(tests[p].count);
                        inside.lower <= other.upper && other.lower <= inside.upper
                    })
                })
                .flatten()
                // A part that is another slice again: into the slice kept.
                .map(|p| alias_of.get(&p).copied().unwrap_or(p));
            match into {
                Some(p) => folded_into.entry(p).or_default().push(t.name.clone()),
                None => kept.push(i),
            }
        }
        let folded: usize = folded_into.values().map(Vec::len).sum();
        stage_totals.push((
            name.clone(),
            StageTotal {
                lines: total[s].n,
                disagree: total[s].x,
                rate: interval(total[s]),
                significant: significant.len(),
                folded,
            },
        ));
        kept.truncate(options.max_shown);
        let kept = kept
            .into_iter()
            .map(|i| (i, folded_into.remove(&i).unwrap_or_default()))
            .collect();
        shown.push((name.clone(), kept));
    }

    // Pass 3: the example texts of the slices shown.
    let wanted: BTreeSet<u64> = shown
        .iter()
        .flat_map(|(_, kept)| kept.iter())
        .flat_map(|(i, _)| tests[*i].examples.iter().map(|&(_, id)| id))
        .collect();
    let mut found: HashMap<u64, (String, String)> = HashMap::new();
    if !wanted.is_empty() {
        for_each_line(open().map_err(io)?, file, |_, line, _| {
            if line.kind == "clean" && wanted.contains(&line.id) {
                found.entry(line.id).or_insert((line.key, line.text));
            }
            Ok(())
        })?;
    }

    let stages_out = shown
        .into_iter()
        .map(|(name, kept)| {
            let slices = kept
                .into_iter()
                .map(|(i, folded)| {
                    let t = &tests[i];
                    let total = total[t.stage];
                    let rest = Count {
                        n: total.n - t.count.n,
                        x: total.x - t.count.x,
                    };
                    let rate = interval(t.count);
                    let rest_rate = interval(rest);
                    Slice {
                        name: t.name.clone(),
                        predicates: t
                            .parts
                            .iter()
                            .map(|&c| candidates.names[c as usize].clone())
                            .collect(),
                        texts: t.texts,
                        size: t.count.n,
                        disagree: t.count.x,
                        difference: rate.estimate.unwrap_or(0.0)
                            - rest_rate.estimate.unwrap_or(0.0),
                        rate,
                        rest: Rest {
                            size: rest.n,
                            disagree: rest.x,
                            rate: rest_rate,
                        },
                        z: t.z,
                        p: 10f64.powf(t.log10_p),
                        log10_p: t.log10_p,
                        adjusted_p: 10f64.powf(adjusted[i]),
                        log10_adjusted_p: adjusted[i],
                        folded,
                        examples: t
                            .examples
                            .iter()
                            .filter_map(|(_, id)| {
                                let (key, text) = found.get(id)?;
                                Some(Example {
                                    id: *id,
                                    key: key.clone(),
                                    text: text.clone(),
                                })
                            })
                            .collect(),
                    }
                })
                .collect();
            (name, slices)
        })
        .collect();

    Ok(SliceReport {
        format: FORMAT.to_owned(),
        tested: tests.len(),
        method: options.method,
        level: options.level.get(),
        q,
        min_support: options.min_support,
        texts,
        candidates: singles,
        conjunctions,
        totals: Stages(stage_totals),
        stages: Stages(stages_out),
    })
}

/// [`find_slices`] over a ledger held in memory.
pub fn find_slices_in(ledger: &[u8], file: &str, options: &Options) -> Result<SliceReport, Error> {
    find_slices(|| Ok(ledger), file, options)
}
