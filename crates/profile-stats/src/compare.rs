//! Comparisons of several students against one teacher on one suite.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Error;
use std::ops::AddAssign;

use crate::counts::FirstVsSecond;
use crate::interval::Method;
use crate::paired::{
    PairedTest, SampledDifference, TestMethod, adjust_family, paired_test, sampled_test,
};
use crate::ppi::{PpiSums, Tuning};
use crate::report::{ProfileReport, Task, check_format, field, methods, same, value};
use crate::stages::{add_stages, named, same_stages};

/// The `format` of a comparison; a reader refuses any other.
pub const COMPARISON_FORMAT: &str = "capkit-profile-comparison/1";

/// Agreement with the teacher of two students, per text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairAgreement {
    /// Per text: the first / the second student agrees with the teacher (for extractors: its
    /// record matches the gold exactly). With a teacher sample: the sampled texts only.
    pub agree: FirstVsSecond,
    /// With a teacher sample (corruptions only): the prediction-powered sums of the difference
    /// of the two agreements (first minus second), the surrogate being the difference of their
    /// agreements with the teacher's clean answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<PpiSums>,
    /// Corruptions: per text, the first / the second student's corrupted answer equals the
    /// teacher's *clean* answer, over every text (it needs no teacher answer on the corrupted
    /// text); what a stage against the teacher's clean answer compares. Absent from older
    /// comparisons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teacher_clean: Option<FirstVsSecond>,
}

impl AddAssign for PairAgreement {
    fn add_assign(&mut self, other: PairAgreement) {
        self.agree += other.agree;
        self.teacher_clean = match (self.teacher_clean, other.teacher_clean) {
            (Some(mut a), Some(b)) => {
                a += b;
                Some(a)
            }
            (a, b) => a.or(b),
        };
        self.sampled = match (self.sampled, other.sampled) {
            (Some(mut a), Some(b)) => {
                a += b;
                Some(a)
            }
            (a, b) => a.or(b),
        };
    }
}

/// Violations of two students under one invariance, per text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairChanges {
    /// Per text: the first / the second student's answer changed under the rewrite.
    pub changed: FirstVsSecond,
}

impl AddAssign for PairChanges {
    fn add_assign(&mut self, other: PairChanges) {
        self.changed += other.changed;
    }
}

/// The paired counts of two students on the same texts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairCounts {
    /// Clean texts.
    pub clean: PairAgreement,
    /// Per corruption, in suite order.
    pub corruptions: IndexMap<String, PairAgreement>,
    /// Per invariance, in suite order.
    pub invariances: IndexMap<String, PairChanges>,
}

impl PairCounts {
    /// Empty counts for a suite's stages.
    pub fn new<'a>(
        corruptions: impl IntoIterator<Item = &'a str>,
        invariances: impl IntoIterator<Item = &'a str>,
    ) -> PairCounts {
        PairCounts {
            clean: PairAgreement::default(),
            corruptions: named(corruptions),
            invariances: named(invariances),
        }
    }

    fn merge(&mut self, other: &PairCounts) -> Result<(), Error> {
        same_stages("pair corruptions", &self.corruptions, &other.corruptions)?;
        same_stages("pair invariances", &self.invariances, &other.invariances)?;
        self.clean += other.clean;
        add_stages(&mut self.corruptions, &other.corruptions);
        add_stages(&mut self.invariances, &other.invariances);
        Ok(())
    }
}

/// One student's per-text outcomes, by stage, kept while profiling so that two students can be
/// paired text by text: agreement with the teacher (an exact record match for extractors) on the
/// clean texts and under each corruption, and whether the student's answer changed under each
/// invariance.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StudentOutcomes {
    /// Per clean text: agrees with the teacher.
    pub clean: Vec<bool>,
    /// Per corruption (suite order), per text: agrees with the teacher on the corrupted text.
    pub corruptions: IndexMap<String, Vec<bool>>,
    /// Per invariance (suite order), per text: the student's answer changed.
    pub invariances: IndexMap<String, Vec<bool>>,
}

impl PairCounts {
    /// The paired counts of two students' outcomes on the same texts (text by text; outcome
    /// lists of different lengths pair up to the shorter, stages by position).
    pub fn of(first: &StudentOutcomes, second: &StudentOutcomes) -> PairCounts {
        fn table(a: &[bool], b: &[bool]) -> FirstVsSecond {
            let mut t = FirstVsSecond::default();
            for (&x, &y) in a.iter().zip(b) {
                t.record(x, y);
            }
            t
        }
        PairCounts {
            clean: PairAgreement {
                agree: table(&first.clean, &second.clean),
                sampled: None,
                teacher_clean: None,
            },
            corruptions: first
                .corruptions
                .iter()
                .zip(second.corruptions.values())
                .map(|((name, a), b)| {
                    let agree = table(a, b);
                    (
                        name.clone(),
                        PairAgreement {
                            agree,
                            sampled: None,
                            teacher_clean: None,
                        },
                    )
                })
                .collect(),
            invariances: first
                .invariances
                .iter()
                .zip(second.invariances.values())
                .map(|((name, a), b)| {
                    (
                        name.clone(),
                        PairChanges {
                            changed: table(a, b),
                        },
                    )
                })
                .collect(),
        }
    }
}

/// Two students compared on every stage.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// The first student's name.
    pub first: String,
    /// The second student's name.
    pub second: String,
    /// Their paired counts.
    pub counts: PairCounts,
}

impl Pair {
    /// Every pair of the named students (first before second in the given order), with empty
    /// counts for a suite's stages.
    pub fn every<'a>(
        students: &[&str],
        corruptions: impl IntoIterator<Item = &'a str>,
        invariances: impl IntoIterator<Item = &'a str>,
    ) -> Vec<Pair> {
        let empty = PairCounts::new(corruptions, invariances);
        let mut pairs = Vec::new();
        for (i, first) in students.iter().enumerate() {
            for second in &students[i + 1..] {
                pairs.push(Pair {
                    first: (*first).to_owned(),
                    second: (*second).to_owned(),
                    counts: empty.clone(),
                });
            }
        }
        pairs
    }
}

/// One teacher against several students on one suite: each student's report, and for every
/// pair of students the paired counts behind a McNemar test and a Tango interval per stage.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The teacher's name, when known.
    pub teacher: Option<String>,
    /// Each student's report against the teacher, by student name, in the given order.
    pub students: IndexMap<String, ProfileReport>,
    /// Every pair of students (first before second in the given order).
    pub pairs: Vec<Pair>,
    /// Short aliases given to students (alias → student name; see [`Comparison::with_aliases`]);
    /// the others get derived ones ([`Comparison::aliases`]).
    pub given_aliases: IndexMap<String, String>,
}

#[derive(Serialize)]
struct PairFigures<'a> {
    first: &'a str,
    second: &'a str,
    counts: &'a PairCounts,
    #[serde(flatten)]
    tests: &'a PairTests,
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    estimated: IndexMap<&'a str, PairEstimated>,
}

/// What a sampled pair's corruption difference rests on.
#[derive(Serialize)]
struct PairEstimated {
    /// Texts whose corrupted version the teacher answered.
    teacher_answers: u64,
    /// Texts in all.
    texts: u64,
    method: &'static str,
    lambda: Option<f64>,
    /// Fewer than [`crate::FEW_EVENTS`] sampled texts where the two students' agreement
    /// differs: the interval also holds Tango's interval of the sampled texts.
    few_events: bool,
}

/// A pair's corruption test: Tango and McNemar's score test on the table, or with a teacher
/// sample the prediction-powered interval of the per-text difference and the test that is its
/// inversion ([`sampled_test`]).
///
/// A stage against the teacher's clean answer compares the students' agreements with it
/// instead: exact over every text, sample or not.
fn corruption_test(c: &PairAgreement, teacher_clean: bool, level: crate::Level) -> PairedTest {
    if let (true, Some(t)) = (teacher_clean, &c.teacher_clean) {
        return paired_test(&t.table(), level);
    }
    let table = c.agree.table();
    match &c.sampled {
        Some(sums) => {
            let s = SampledDifference {
                sums: *sums,
                minus_from: None,
            };
            sampled_test(&table, s, level)
        }
        None => paired_test(&table, level),
    }
}

/// The paired tests of one pair of students, per stage (first minus second), adjusted with every
/// other test of the comparison ([`Comparison::pair_tests`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairTests {
    /// Agreement with the teacher on the clean texts (extractors: exact record match).
    pub clean: PairedTest,
    /// The same, per corruption (suite order).
    pub corruptions: IndexMap<String, PairedTest>,
    /// Violation rate, per invariance (suite order).
    pub invariances: IndexMap<String, PairedTest>,
}

/// What a reader takes of a pair (its figures are recomputed, never read).
#[derive(Deserialize)]
struct PairInput {
    first: String,
    second: String,
    counts: PairCounts,
}

/// Whether `alias` can name a student: 1 to 24 characters, not all digits (a gate's
/// `students.0` is a position), no `.` and no white space (it is a gate path segment).
pub fn check_alias(alias: &str) -> Result<(), &'static str> {
    if alias.is_empty() || alias.chars().count() > 24 {
        Err("must be 1 to 24 characters")
    } else if alias.chars().all(|c| c.is_ascii_digit()) {
        Err("must not be all digits (students.0 names a student by position)")
    } else if alias.chars().any(|c| c == '.' || c.is_whitespace()) {
        Err("must hold no '.' and no white space (it is a gate path segment)")
    } else {
        Ok(())
    }
}

impl Comparison {
    /// The comparison of several students' runs against one teacher: every student's report
    /// (named after the student and the teacher) and every pair of students, first before
    /// second in the given order.
    pub fn of_runs(
        teacher: Option<String>,
        runs: Vec<(String, ProfileReport, StudentOutcomes)>,
    ) -> Comparison {
        let mut pairs = Vec::new();
        for (i, (first, _, a)) in runs.iter().enumerate() {
            for (second, _, b) in &runs[i + 1..] {
                pairs.push(Pair {
                    first: first.clone(),
                    second: second.clone(),
                    counts: PairCounts::of(a, b),
                });
            }
        }
        let reports = runs
            .into_iter()
            .map(|(name, report, _)| (name, report))
            .collect();
        Comparison::of_reports(teacher, reports, pairs)
    }

    /// The comparison of several students' reports against one teacher (each named after its
    /// student and the teacher) with the paired counts of every pair of students, counted as
    /// the texts went by (a chunked comparison keeps no per-text outcomes).
    pub fn of_reports(
        teacher: Option<String>,
        reports: Vec<(String, ProfileReport)>,
        pairs: Vec<Pair>,
    ) -> Comparison {
        let students = reports
            .into_iter()
            .map(|(name, report)| {
                let report = report.with_models(Some(name.clone()), teacher.clone());
                (name, report)
            })
            .collect();
        Comparison {
            teacher,
            students,
            pairs,
            given_aliases: IndexMap::new(),
        }
    }

    /// The comparison with its teacher named (in every student's report too).
    pub fn with_teacher(mut self, teacher: Option<String>) -> Comparison {
        for report in self.students.values_mut() {
            report.models.teacher = teacher.clone();
        }
        self.teacher = teacher;
        self
    }

    /// Every report with other settings.
    pub fn with_settings(mut self, settings: crate::Settings) -> Comparison {
        for report in self.students.values_mut() {
            report.settings = settings;
        }
        self
    }

    /// Every report with each stage's transform and parameters (see
    /// [`crate::SuiteDescriptor::transforms`]).
    pub fn with_suite_transforms(
        mut self,
        transforms: impl IntoIterator<Item = (String, serde_json::Value)>,
    ) -> Comparison {
        let transforms: indexmap::IndexMap<String, serde_json::Value> =
            transforms.into_iter().collect();
        for report in self.students.values_mut() {
            report.suite.transforms = Some(transforms.clone());
        }
        self
    }

    /// Every report with its stages' declared weights and tags (see
    /// [`crate::SuiteDescriptor::with_stage_meta`]).
    pub fn with_stage_meta(
        mut self,
        meta: impl IntoIterator<Item = (String, crate::StageMeta)>,
    ) -> Comparison {
        let meta: Vec<(String, crate::StageMeta)> = meta.into_iter().collect();
        for report in self.students.values_mut() {
            report.suite.set_stage_meta(meta.iter().cloned());
        }
        self
    }

    /// Every report with its suite's probe texts (see
    /// [`crate::SuiteDescriptor::probe_texts`]).
    pub fn with_probe_texts(mut self, texts: impl IntoIterator<Item = String>) -> Comparison {
        let texts: Vec<String> = texts.into_iter().collect();
        for report in self.students.values_mut() {
            report.suite.probe_texts = Some(texts.clone());
        }
        self
    }

    /// Every report with its suite's fingerprint.
    pub fn with_suite_fingerprint(mut self, fingerprint: Option<String>) -> Comparison {
        for report in self.students.values_mut() {
            report.suite.fingerprint = fingerprint.clone();
        }
        self
    }

    /// The task of the students' reports (`None` without students).
    pub fn task(&self) -> Option<Task> {
        self.students.values().next().map(ProfileReport::task)
    }

    /// The whole comparison as JSON: `format`, `task`, `suite`, `teacher`, `settings`, every
    /// student's full report under `students`, their short `aliases` ([`Comparison::aliases`]), and under `pairs`, for every pair of students,
    /// the paired counts and per stage the difference (first minus second: agreement with the
    /// teacher on clean texts and corruptions, violation rate on invariances) with Tango's
    /// interval and McNemar's score test, p-values Holm-adjusted over the whole comparison
    /// ([`Comparison::pair_tests`]).
    pub fn to_json(&self) -> Value {
        let first = self.students.values().next();
        let mut out = Map::new();
        out.insert("format".into(), COMPARISON_FORMAT.into());
        out.insert("task".into(), value(&self.task()));
        out.insert("suite".into(), value(&first.map(|r| &r.suite)));
        out.insert("teacher".into(), value(&self.teacher));
        out.insert("settings".into(), value(&first.map(|r| r.settings)));
        let students: Map<String, Value> = self
            .students
            .iter()
            .map(|(k, r)| (k.clone(), r.to_json()))
            .collect();
        out.insert("students".into(), Value::Object(students));
        out.insert("aliases".into(), value(&self.aliases()));
        let level = first.map(|r| r.settings.level).unwrap_or_default();
        let pairs: Vec<Value> = self
            .pairs
            .iter()
            .zip(self.pair_tests())
            .map(|(p, tests)| {
                value(&PairFigures {
                    first: &p.first,
                    second: &p.second,
                    counts: &p.counts,
                    tests: &tests,
                    estimated: p
                        .counts
                        .corruptions
                        .iter()
                        .filter_map(|(k, c)| {
                            let s = c.sampled?;
                            let lambda = s.estimate(Tuning::Power, level).map(|e| e.lambda);
                            let difference = SampledDifference {
                                sums: s,
                                minus_from: None,
                            };
                            let how = PairEstimated {
                                teacher_answers: s.labelled,
                                texts: s.all,
                                method: Method::PpiPowerTuned.name(),
                                lambda,
                                few_events: s.labelled > 0 && difference.few_events(),
                            };
                            Some((k.as_str(), how))
                        })
                        .collect(),
                })
            })
            .collect();
        out.insert("pairs".into(), Value::Array(pairs));
        let mut glossary = methods();
        let sampled = self.students.values().any(|r| match &r.counts {
            crate::Counts::Classify(c) => c.sample.is_some(),
            crate::Counts::Extract(_) => false,
        });
        if let (true, Value::Object(g)) = (sampled, &mut glossary) {
            g.insert(
                Method::PpiPowerTuned.name().into(),
                Method::PpiPowerTuned.description().into(),
            );
            g.insert(
                TestMethod::PpiWald.name().into(),
                TestMethod::PpiWald.description().into(),
            );
        }
        out.insert("methods".into(), glossary);
        Value::Object(out)
    }

    /// Every student's short alias, in student order, alias → student name: what pages and
    /// gates (`students.A`) use instead of a full model spec. A student given an alias
    /// ([`Comparison::with_aliases`]) has it; the others get A, B, C… in order, skipping any
    /// alias already given, so that every alias is unique.
    pub fn aliases(&self) -> IndexMap<String, String> {
        let given: IndexMap<&str, &str> = self
            .given_aliases
            .iter()
            .map(|(alias, name)| (name.as_str(), alias.as_str()))
            .collect();
        let mut derived = (0..)
            .map(crate::gate::derived_alias)
            .filter(|a| !self.given_aliases.contains_key(a));
        self.students
            .keys()
            .map(|name| {
                let alias = match given.get(name.as_str()) {
                    Some(alias) => (*alias).to_owned(),
                    None => derived.next().unwrap_or_default(),
                };
                (alias, name.clone())
            })
            .collect()
    }

    /// The comparison with short aliases for some students (`(alias, student name)`; the
    /// command line's `--alias ALIAS=MODEL`). Refused, naming the alias: an unknown student, a
    /// student given two aliases, an alias given twice, or an alias that is empty, longer than
    /// 24 characters, all digits (a gate's `students.0` is a position) or holding a `.` or
    /// white space (a gate path could not name it).
    pub fn with_aliases(
        mut self,
        aliases: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Comparison, Error> {
        let mut given: IndexMap<String, String> = IndexMap::new();
        for (alias, name) in aliases {
            let at = || format!("aliases.{alias}");
            let bad = if let Err(message) = check_alias(&alias) {
                Some(message)
            } else if !self.students.contains_key(&name) {
                Some("names no student of the comparison")
            } else if given.contains_key(&alias) {
                Some("is given twice")
            } else if given.values().any(|n| *n == name) {
                Some("names a student that already has an alias")
            } else {
                None
            };
            if let Some(message) = bad {
                return Err(Error::Invalid {
                    at: at(),
                    message: format!("{message} (student {name:?})"),
                });
            }
            given.insert(alias, name);
        }
        self.given_aliases = given;
        Ok(self)
    }

    /// The paired tests of every pair (in `pairs` order), Holm-adjusted together: the family is
    /// every stage of every pair, so that a page listing them all never holds an unadjusted
    /// p-value (each student's own report adjusts its own tests separately).
    ///
    /// A stage that changed no text (every student's report says so) is left out of the
    /// family: it measures nothing.
    pub fn pair_tests(&self) -> Vec<PairTests> {
        let first = self.students.values().next();
        let level = first.map(|r| r.settings.level).unwrap_or_default();
        let teacher_clean = |stage: &str| {
            first
                .is_some_and(|r| r.suite.reference(stage) == profile_types::Reference::TeacherClean)
        };
        let (no_op_corruptions, no_op_invariances) = self.stages_that_changed_nothing();
        let mut all: Vec<PairTests> = self
            .pairs
            .iter()
            .map(|p| PairTests {
                clean: paired_test(&p.counts.clean.agree.table(), level),
                corruptions: p
                    .counts
                    .corruptions
                    .iter()
                    .map(|(k, c)| (k.clone(), corruption_test(c, teacher_clean(k), level)))
                    .collect(),
                invariances: p
                    .counts
                    .invariances
                    .iter()
                    .map(|(k, c)| (k.clone(), paired_test(&c.changed.table(), level)))
                    .collect(),
            })
            .collect();
        let mut family: Vec<&mut PairedTest> = all
            .iter_mut()
            .flat_map(|t| {
                std::iter::once(&mut t.clean)
                    .chain(
                        t.corruptions
                            .iter_mut()
                            .filter(|(k, _)| !no_op_corruptions.contains(k.as_str()))
                            .map(|(_, v)| v),
                    )
                    .chain(
                        t.invariances
                            .iter_mut()
                            .filter(|(k, _)| !no_op_invariances.contains(k.as_str()))
                            .map(|(_, v)| v),
                    )
            })
            .collect();
        adjust_family(&mut family, level);
        all
    }

    /// The corruptions and invariances that changed no text, by every student's report (the
    /// students see the same texts, so their counts agree; a report that did not count it
    /// makes the stage count as changed).
    pub fn stages_that_changed_nothing(
        &self,
    ) -> (
        std::collections::BTreeSet<&str>,
        std::collections::BTreeSet<&str>,
    ) {
        let mut corruptions = std::collections::BTreeSet::new();
        let mut invariances = std::collections::BTreeSet::new();
        let Some(first) = self.students.values().next() else {
            return (corruptions, invariances);
        };
        let all = |f: &dyn Fn(&ProfileReport) -> bool| self.students.values().all(f);
        if let crate::Counts::Classify(c) = &first.counts {
            for name in c.corruptions.keys() {
                if all(&|r| r.corruption_changed_nothing(name)) {
                    corruptions.insert(name.as_str());
                }
            }
            for name in c.invariances.keys() {
                if all(&|r| r.invariance_changed_nothing(name)) {
                    invariances.insert(name.as_str());
                }
            }
        }
        (corruptions, invariances)
    }

    /// Reads a comparison written by [`Comparison::to_json`] (counts and names only; figures are
    /// recomputed). Errors name what is missing or inconsistent.
    pub fn from_json(json: &Value) -> Result<Comparison, Error> {
        let obj = json.as_object().ok_or_else(|| Error::Invalid {
            at: "comparison".into(),
            message: "must be a JSON object".into(),
        })?;
        check_format(obj, COMPARISON_FORMAT)?;
        let teacher: Option<String> = field(obj, "teacher", "teacher")?;
        let Some(Value::Object(students)) = obj.get("students") else {
            return Err(Error::Invalid {
                at: "students".into(),
                message: "must be an object of reports by student name".into(),
            });
        };
        let students = students
            .iter()
            .map(|(name, r)| {
                ProfileReport::from_json(r)
                    .map(|r| (name.clone(), r))
                    .map_err(|e| Error::Invalid {
                        at: format!("students.{name}"),
                        message: e.to_string(),
                    })
            })
            .collect::<Result<IndexMap<_, _>, _>>()?;
        let inputs: Vec<PairInput> = field(obj, "pairs", "pairs")?;
        let pairs = inputs
            .into_iter()
            .map(|p| Pair {
                first: p.first,
                second: p.second,
                counts: p.counts,
            })
            .collect();
        let comparison = Comparison {
            teacher,
            students,
            pairs,
            given_aliases: IndexMap::new(),
        };
        comparison.validate()?;
        // Written aliases are read back as given (derived ones read back as themselves).
        match obj.get("aliases") {
            None | Some(Value::Null) => Ok(comparison),
            Some(Value::Object(map)) => {
                let given = map
                    .iter()
                    .map(|(alias, name)| match name.as_str() {
                        Some(name) => Ok((alias.clone(), name.to_owned())),
                        None => Err(Error::Invalid {
                            at: format!("aliases.{alias}"),
                            message: "must be a student's name (a string)".into(),
                        }),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let mut read = comparison.with_aliases(given)?;
                // Kept as given: only the aliases derivation would not reproduce (a file
                // written with derived aliases reads back as the comparison that wrote it).
                let written = read.aliases();
                for alias in written.keys() {
                    let mut fewer = read.given_aliases.clone();
                    fewer.shift_remove(alias);
                    let trial = Comparison {
                        given_aliases: fewer,
                        ..read.clone()
                    };
                    if trial.aliases() == written {
                        read.given_aliases = trial.given_aliases;
                    }
                }
                Ok(read)
            }
            Some(_) => Err(Error::Invalid {
                at: "aliases".into(),
                message: "must be an object of student names by alias".into(),
            }),
        }
    }

    /// Checks that every report has the same task, suite, settings and teacher, and that every
    /// pair names known students and counts their texts.
    pub fn validate(&self) -> Result<(), Error> {
        let mut reports = self.students.iter();
        if let Some((_, first)) = reports.next() {
            for (name, r) in reports {
                let at = || format!("students.{name}");
                let what = if r.task() != first.task() {
                    Some("task")
                } else if r.suite != first.suite {
                    Some("suite")
                } else if r.settings != first.settings {
                    Some("settings")
                } else {
                    None
                };
                if let Some(what) = what {
                    return Err(Error::Invalid {
                        at: at(),
                        message: format!("its {what} is not the first student's"),
                    });
                }
            }
        }
        for (name, r) in &self.students {
            if r.models.teacher != self.teacher || r.models.student.as_deref() != Some(name) {
                return Err(Error::Invalid {
                    at: format!("students.{name}.models"),
                    message: "must name this student and the comparison's teacher".into(),
                });
            }
        }
        for (i, p) in self.pairs.iter().enumerate() {
            let at = format!("pairs.{i}");
            let (Some(a), Some(_)) = (self.students.get(&p.first), self.students.get(&p.second))
            else {
                return Err(Error::Invalid {
                    at,
                    message: format!(
                        "names a student not compared (`{}`, `{}`)",
                        p.first, p.second
                    ),
                });
            };
            let n = a.n();
            // A sampled corruption's table counts the sample, and its sums every text.
            let counted = |c: &PairAgreement| match c.sampled {
                Some(s) => c.agree.n() == s.labelled && s.all == n,
                None => c.agree.n() == n,
            };
            let tables = std::iter::once(p.counts.clean.agree)
                .chain(p.counts.invariances.values().map(|c| c.changed));
            if tables.into_iter().any(|t| t.n() != n) || !p.counts.corruptions.values().all(counted)
            {
                return Err(Error::Invalid {
                    at,
                    message: format!("a table does not count the students' {n} texts"),
                });
            }
            let stages = |r: &ProfileReport| {
                (
                    r.suite
                        .corruptions
                        .iter()
                        .map(|c| c.name.clone())
                        .collect::<Vec<_>>(),
                    r.suite.invariances.clone(),
                )
            };
            let (corruptions, invariances) = stages(a);
            if !p.counts.corruptions.keys().eq(corruptions.iter())
                || !p.counts.invariances.keys().eq(invariances.iter())
            {
                return Err(Error::Invalid {
                    at,
                    message: "its stages are not the suite's".into(),
                });
            }
        }
        Ok(())
    }

    /// The comparison over both comparisons' texts: every report merged, every pair's counts
    /// added. Refuses unless both compare the same students (same order) against the same
    /// teacher, suite and settings.
    pub fn merge(&self, other: &Comparison) -> Result<Comparison, Error> {
        same("teachers", &self.teacher, &other.teacher, |t| {
            t.clone().unwrap_or_else(|| "unnamed".into())
        })?;
        let names = |c: &Comparison| {
            let v: Vec<&str> = c.students.keys().map(String::as_str).collect();
            format!("[{}]", v.join(", "))
        };
        if !self.students.keys().eq(other.students.keys()) {
            return Err(Error::Mismatch {
                what: "students".into(),
                left: names(self),
                right: names(other),
            });
        }
        let students = self
            .students
            .iter()
            .zip(other.students.values())
            .map(|((name, a), b)| a.merge(b).map(|m| (name.clone(), m)))
            .collect::<Result<IndexMap<_, _>, _>>()?;
        let mut pairs = self.pairs.clone();
        if pairs.len() != other.pairs.len() {
            return Err(Error::Mismatch {
                what: "pairs".into(),
                left: self.pairs.len().to_string(),
                right: other.pairs.len().to_string(),
            });
        }
        for (a, b) in pairs.iter_mut().zip(&other.pairs) {
            same(
                "pairs",
                &(&a.first, &a.second),
                &(&b.first, &b.second),
                |p| format!("{} vs {}", p.0, p.1),
            )?;
            a.counts.merge(&b.counts)?;
        }
        same("aliases", &self.aliases(), &other.aliases(), |a| {
            a.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        })?;
        Ok(Comparison {
            teacher: self.teacher.clone(),
            students,
            pairs,
            given_aliases: self.given_aliases.clone(),
        })
    }
}
