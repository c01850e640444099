//! Breakdowns of a per-text ledger: per group of texts (by the teacher's clean label, the
//! student's clean label, or the length bin), each stage's agreement with its Wilson interval
//! and, for a corruption, the paired test of clean against corrupted agreement within the
//! group; and the confusions of student against teacher labels, clean and per corruption.
//!
//! One streaming pass. A repeat's lines carry no answers (see `capture`'s ledger), so the clean
//! labels and each stage's answers of a text's first occurrence are kept by its key: memory is
//! the distinct texts times the stages, a few words each, and every line — repeats included —
//! counts in its group and its confusion cell, as it counts in the report.
//!
//! The groups of one dimension partition the texts, so their counts add up to the report's
//! (the clean agreement of all groups together is the report's clean agreement).

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;

use profile_stats::{Interval, Level, PairedTable, PairedTest, paired_test, wilson};
use serde::{Deserialize, Serialize};

use crate::{Error, Stages, predicates};

/// The `format` of a breakdown.
pub const BREAKDOWN_FORMAT: &str = "capkit-breakdown/1";

/// What texts are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    /// The teacher's answer on the clean text.
    TeacherLabel,
    /// The student's answer on the clean text.
    StudentLabel,
    /// The length bin of the clean text, in characters (`predicates::LENGTH_BINS`).
    LengthBin,
}

impl Dimension {
    /// The dimension's name (`teacher_label`, …).
    pub fn name(self) -> &'static str {
        match self {
            Dimension::TeacherLabel => "teacher_label",
            Dimension::StudentLabel => "student_label",
            Dimension::LengthBin => "length_bin",
        }
    }

    /// The dimension named `name`, if any.
    pub fn from_name(name: &str) -> Option<Dimension> {
        [
            Dimension::TeacherLabel,
            Dimension::StudentLabel,
            Dimension::LengthBin,
        ]
        .into_iter()
        .find(|d| d.name() == name)
    }
}

/// A breakdown of a ledger.
#[derive(Debug, Clone, Serialize)]
pub struct Breakdown {
    /// [`BREAKDOWN_FORMAT`].
    pub format: String,
    /// The intervals' confidence level.
    pub level: f64,
    /// The texts (clean lines) of the ledger.
    pub texts: u64,
    /// Per dimension asked for, its groups (by value, sorted).
    pub dimensions: Vec<DimensionGroups>,
    /// Per stage with labels to confuse (clean and each corruption), the confusions.
    pub confusion: Stages<Confusion>,
}

/// The groups of one dimension.
#[derive(Debug, Clone, Serialize)]
pub struct DimensionGroups {
    /// The dimension's name.
    pub name: String,
    /// Its groups, by value.
    pub groups: Vec<Group>,
}

/// One group's figures.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// The value the texts share.
    pub value: String,
    /// Its texts.
    pub texts: u64,
    /// Per stage, in ledger order.
    pub stages: Stages<GroupStage>,
}

/// One stage within a group.
#[derive(Debug, Clone, Serialize)]
pub struct GroupStage {
    /// Lines counted (a corruption's outside the teacher's sample are not).
    pub lines: u64,
    /// Clean and corruption stages: the student agrees with the teacher; invariance: the
    /// student's answer changed (its violation).
    pub hits: u64,
    /// `hits / lines` with its Wilson interval.
    pub rate: Interval,
    /// A corruption: clean agreement against corrupted agreement over the group's counted
    /// texts (McNemar's score test, Tango's interval; not adjusted for multiplicity).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clean_vs_stage: Option<PairedTest>,
}

/// The confusions of one stage: which (teacher, student) label pairs its disagreements are.
#[derive(Debug, Clone, Serialize)]
pub struct Confusion {
    /// Disagreeing lines.
    pub disagreements: u64,
    /// The most frequent pairs, most frequent first (ties by labels).
    pub top: Vec<ConfusionPair>,
}

/// One cell of a confusion table.
#[derive(Debug, Clone, Serialize)]
pub struct ConfusionPair {
    /// The teacher's answer.
    pub teacher: String,
    /// The student's answer.
    pub student: String,
    /// Lines.
    pub count: u64,
    /// Of the stage's disagreements.
    pub share: f64,
}

#[derive(Deserialize)]
struct Line {
    key: String,
    stage: String,
    kind: String,
    text: String,
    #[serde(default)]
    student: Option<String>,
    #[serde(default)]
    teacher: Option<String>,
    #[serde(default)]
    student_transformed: Option<String>,
    #[serde(default)]
    teacher_transformed: Option<String>,
    #[serde(default)]
    agree: Option<bool>,
    #[serde(default)]
    student_changed: Option<bool>,
}

#[derive(Default, Clone)]
struct Cell {
    lines: u64,
    hits: u64,
    table: PairedTable,
}

/// Labels as small ids.
#[derive(Default)]
struct Labels {
    names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Labels {
    fn intern(&mut self, label: &str) -> u32 {
        if let Some(&id) = self.ids.get(label) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(label.to_owned());
        self.ids.insert(label.to_owned(), id);
        id
    }

    fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", String::as_str)
    }
}

/// A text's labels as interned ids: clean (teacher, student), then per stage.
type Answers = Vec<(u32, u32)>;

/// Breaks `ledger` (named `file` in errors) down by `dimensions`, keeping the `top` most frequent
/// confusions per stage.
pub fn breakdown<R: BufRead>(
    ledger: R,
    file: &str,
    dimensions: &[Dimension],
    top: usize,
    level: Level,
) -> Result<Breakdown, Error> {
    let bad = |line: u64, message: String| Error::Line {
        file: file.to_owned(),
        line,
        message,
    };
    let mut labels = Labels::default();
    let mut known: HashMap<String, Answers> = HashMap::new();
    let mut stages: Vec<(String, bool)> = Vec::new(); // (name, is corruption)
    // Group cells: (dimension index, group value) -> per stage (0: clean).
    let mut cells: BTreeMap<(usize, String), (u64, Vec<Cell>)> = BTreeMap::new();
    let mut confusion: Vec<HashMap<(u32, u32), u64>> = Vec::new();
    let mut texts = 0u64;
    // The text whose lines are being read: its groups, clean agreement, answers.
    let mut groups: Vec<(usize, String)> = Vec::new();
    let mut clean_agree = false;
    let mut answers: Answers = Vec::new();
    let mut first = false;
    let mut pending: Option<(String, Answers)> = None;
    let mut stage_index = 0usize;
    for (number, raw) in ledger.lines().enumerate() {
        let number = number as u64 + 1;
        let raw = raw.map_err(|error| Error::Io {
            file: file.to_owned(),
            error,
        })?;
        if raw.trim().is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(&raw)
            .map_err(|e| bad(number, format!("not a ledger line: {e}")))?;
        match line.kind.as_str() {
            "clean" => {
                // The previous text's lines are all read: its first occurrence's answers are
                // known from here on.
                if let Some((key, a)) = pending.take() {
                    known.insert(key, a);
                }
                texts += 1;
                stage_index = 0;
                let agree = line
                    .agree
                    .ok_or_else(|| bad(number, "a clean line without `agree`".to_owned()))?;
                clean_agree = agree;
                first = !known.contains_key(&line.key);
                answers = match known.get(&line.key) {
                    Some(a) => a.clone(),
                    None => {
                        let (Some(t), Some(s)) = (&line.teacher, &line.student) else {
                            return Err(bad(
                                number,
                                "the first line of a text without `teacher` and `student`"
                                    .to_owned(),
                            ));
                        };
                        vec![(labels.intern(t), labels.intern(s))]
                    }
                };
                let (t, s) = answers[0];
                groups = dimensions
                    .iter()
                    .enumerate()
                    .map(|(d, dim)| {
                        let value = match dim {
                            Dimension::TeacherLabel => labels.name(t).to_owned(),
                            Dimension::StudentLabel => labels.name(s).to_owned(),
                            Dimension::LengthBin => predicates::fixed_names()
                                [predicates::length_bin(&line.text)]
                            .trim_start_matches("length:")
                            .to_owned(),
                        };
                        (d, value)
                    })
                    .collect();
                if texts == 1 {
                    stages.push(("clean".to_owned(), false));
                    confusion.push(HashMap::new());
                }
                if line.stage != "clean" {
                    return Err(bad(
                        number,
                        format!("a clean line of stage {:?}", line.stage),
                    ));
                }
                for g in &groups {
                    let entry = cells.entry(g.clone()).or_default();
                    entry.0 += 1;
                    if entry.1.is_empty() {
                        entry.1 = vec![Cell::default()];
                    }
                    let cell = &mut entry.1[0];
                    cell.lines += 1;
                    cell.hits += u64::from(agree);
                }
                if !agree {
                    *confusion[0].entry((t, s)).or_default() += 1;
                }
            }
            kind @ ("corruption" | "invariance") => {
                stage_index += 1;
                let corruption = kind == "corruption";
                if texts == 1 {
                    stages.push((line.stage.clone(), corruption));
                    confusion.push(HashMap::new());
                }
                match stages.get(stage_index) {
                    Some((name, _)) if *name == line.stage => {}
                    _ => {
                        return Err(bad(
                            number,
                            format!("stage {:?} out of the first text's order", line.stage),
                        ));
                    }
                }
                if first {
                    let t = line
                        .teacher_transformed
                        .as_deref()
                        .map(|l| labels.intern(l));
                    let s = line
                        .student_transformed
                        .as_deref()
                        .map(|l| labels.intern(l));
                    answers.push((t.unwrap_or(u32::MAX), s.unwrap_or(u32::MAX)));
                }
                let (hit, counted) = if corruption {
                    match line.agree {
                        Some(a) => (a, true),
                        None => (false, false), // outside the teacher's sample
                    }
                } else {
                    let changed = line.student_changed.ok_or_else(|| {
                        bad(
                            number,
                            "an invariance line without `student_changed`".to_owned(),
                        )
                    })?;
                    (changed, true)
                };
                if counted {
                    for g in &groups {
                        let entry = cells.entry(g.clone()).or_default();
                        if entry.1.len() <= stage_index {
                            entry.1.resize(stage_index + 1, Cell::default());
                        }
                        let cell = &mut entry.1[stage_index];
                        cell.lines += 1;
                        cell.hits += u64::from(hit);
                        let table = &mut cell.table;
                        match (clean_agree, hit) {
                            (true, true) => table.both += 1,
                            (true, false) => table.first_only += 1,
                            (false, true) => table.second_only += 1,
                            (false, false) => table.neither += 1,
                        }
                    }
                    if corruption && !hit {
                        let pair = answers.get(stage_index).copied();
                        if let Some((t, s)) = pair.filter(|(t, s)| *t != u32::MAX && *s != u32::MAX)
                        {
                            *confusion[stage_index].entry((t, s)).or_default() += 1;
                        }
                    }
                }
            }
            other => {
                return Err(bad(
                    number,
                    format!("`kind` is {other:?}, not \"clean\", \"corruption\" or \"invariance\""),
                ));
            }
        }
        if first {
            pending = Some((line.key.clone(), answers.clone()));
        }
    }
    let stage_figures = |cells: &[Cell]| {
        Stages(
            stages
                .iter()
                .enumerate()
                .map(|(k, (name, corruption))| {
                    let cell = cells.get(k).cloned().unwrap_or_default();
                    let figure = GroupStage {
                        lines: cell.lines,
                        hits: cell.hits,
                        rate: wilson(cell.hits, cell.lines, level),
                        clean_vs_stage: corruption.then(|| paired_test(&cell.table, level)),
                    };
                    (name.clone(), figure)
                })
                .collect(),
        )
    };
    let dimensions = dimensions
        .iter()
        .enumerate()
        .map(|(d, dim)| DimensionGroups {
            name: dim.name().to_owned(),
            groups: cells
                .iter()
                .filter(|((k, _), _)| *k == d)
                .map(|((_, value), (n, cells))| Group {
                    value: value.clone(),
                    texts: *n,
                    stages: stage_figures(cells),
                })
                .collect(),
        })
        .collect();
    let confusion = Stages(
        stages
            .iter()
            .zip(&confusion)
            .filter(|((name, corruption), _)| *corruption || name == "clean")
            .map(|((name, _), cells)| {
                let disagreements: u64 = cells.values().sum();
                let mut pairs: Vec<((u32, u32), u64)> =
                    cells.iter().map(|(k, v)| (*k, *v)).collect();
                pairs.sort_by(|a, b| {
                    b.1.cmp(&a.1).then_with(|| {
                        let name = |p: &(u32, u32)| (labels.name(p.0), labels.name(p.1));
                        name(&a.0).cmp(&name(&b.0))
                    })
                });
                let top = pairs
                    .into_iter()
                    .take(top)
                    .map(|((t, s), count)| ConfusionPair {
                        teacher: labels.name(t).to_owned(),
                        student: labels.name(s).to_owned(),
                        count,
                        share: count as f64 / disagreements.max(1) as f64,
                    })
                    .collect();
                (name.clone(), Confusion { disagreements, top })
            })
            .collect(),
    );
    Ok(Breakdown {
        format: BREAKDOWN_FORMAT.to_owned(),
        level: level.get(),
        texts,
        dimensions,
        confusion,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ledger line as `capture` writes it (the fields the breakdown reads).
    fn line(key: &str, stage: &str, kind: &str, text: &str, fields: serde_json::Value) -> String {
        let mut v =
            serde_json::json!({"id": 0, "key": key, "stage": stage, "kind": kind, "text": text});
        if let (Some(o), serde_json::Value::Object(f)) = (v.as_object_mut(), fields) {
            o.extend(f);
        }
        v.to_string()
    }

    /// Texts: (key, text, clean (teacher, student), corrupted (teacher, student), student changed
    /// on the invariance); `None` answers for a repeat.
    fn ledger() -> String {
        use serde_json::json;
        let texts = [
            (
                "00000000000000a1",
                "good food",
                ("pos", "pos"),
                ("pos", "neg"),
                false,
            ),
            (
                "00000000000000a2",
                "bad service and a long tail of words here",
                ("neg", "pos"),
                ("neg", "pos"),
                true,
            ),
            (
                "00000000000000a3",
                "fine",
                ("neu", "neu"),
                ("neu", "neu"),
                false,
            ),
        ];
        let mut out = Vec::new();
        for (round, repeat) in [(0, false), (1, true)] {
            let _ = round;
            for (key, text, (tc, sc), (tx, sx), changed) in texts {
                let (clean, corrupted, invariant) = if repeat {
                    (
                        json!({"agree": tc == sc, "repeat": true}),
                        json!({"agree": tx == sx, "repeat": true}),
                        json!({"student_changed": changed, "repeat": true}),
                    )
                } else {
                    (
                        json!({"teacher": tc, "student": sc, "agree": tc == sc}),
                        json!({"teacher_transformed": tx, "student_transformed": sx, "agree": tx == sx}),
                        json!({"student_changed": changed}),
                    )
                };
                out.push(line(key, "clean", "clean", text, clean));
                out.push(line(key, "typo", "corruption", text, corrupted));
                out.push(line(key, "case", "invariance", text, invariant));
            }
        }
        out.join("\n")
    }

    #[test]
    fn groups_and_confusions_equal_a_recomputation() {
        let b = breakdown(
            ledger().as_bytes(),
            "l.jsonl",
            &[Dimension::TeacherLabel, Dimension::LengthBin],
            5,
            Level::DEFAULT,
        )
        .unwrap();
        assert_eq!(b.texts, 6, "repeats count as texts");
        let teacher = &b.dimensions[0];
        let values: Vec<&str> = teacher.groups.iter().map(|g| g.value.as_str()).collect();
        assert_eq!(values, ["neg", "neu", "pos"]);
        // `pos`: "good food" twice; clean agreement 2/2, corrupted 0/2: a paired drop of 1.
        let pos = &teacher.groups[2];
        assert_eq!(pos.texts, 2);
        let stage = |g: &Group, name: &str| {
            g.stages
                .0
                .iter()
                .find(|(n, _)| n == name)
                .unwrap()
                .1
                .clone()
        };
        assert_eq!(
            (stage(pos, "clean").hits, stage(pos, "clean").lines),
            (2, 2)
        );
        let typo = stage(pos, "typo");
        assert_eq!((typo.hits, typo.lines), (0, 2));
        let test = typo.clean_vs_stage.unwrap();
        assert_eq!(test.difference.estimate, Some(1.0));
        // `neg`: the case invariance's violation, repeats included.
        let neg = &teacher.groups[0];
        assert_eq!((stage(neg, "case").hits, stage(neg, "case").lines), (2, 2));
        assert!(
            stage(neg, "case").clean_vs_stage.is_none(),
            "invariances have no paired test here"
        );
        // The groups of one dimension add up to the whole.
        let total: u64 = teacher.groups.iter().map(|g| stage(g, "clean").hits).sum();
        assert_eq!(total, 4);
        let lengths: Vec<&str> = b.dimensions[1]
            .groups
            .iter()
            .map(|g| g.value.as_str())
            .collect();
        assert_eq!(lengths, ["41-80", "<=20"]);
        // Confusions: clean disagreements are (neg, pos) twice; corrupted add (pos, neg) twice.
        let clean = &b.confusion.0[0].1;
        assert_eq!(clean.disagreements, 2);
        assert_eq!(
            (
                clean.top[0].teacher.as_str(),
                clean.top[0].student.as_str(),
                clean.top[0].count
            ),
            ("neg", "pos", 2)
        );
        let typo = &b.confusion.0[1].1;
        assert_eq!(typo.disagreements, 4);
        assert_eq!(typo.top.len(), 2);
        assert_eq!(typo.top[0].share, 0.5);
        assert!(
            b.confusion.0.iter().all(|(n, _)| n != "case"),
            "an invariance confuses nothing"
        );
    }

    #[test]
    fn a_bad_line_is_named() {
        let err =
            breakdown("{\"key\": 1}".as_bytes(), "l.jsonl", &[], 5, Level::DEFAULT).unwrap_err();
        assert!(
            err.to_string().starts_with("l.jsonl:1: not a ledger line"),
            "{err}"
        );
    }
}
