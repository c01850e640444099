//! Several students against one teacher: the chunk loop every comparison runs.
//!
//! `capture::compare_students_chunked` and `extractive::compare_students_chunked` profile each
//! student on the same chunks of texts, the teacher (a [`Memo`]) answering each distinct text
//! of a chunk once, and pair the students' per-text outcomes chunk by chunk. What differs is
//! the run and what a pair counts ([`StudentRun`]); the loop, the student names and the order
//! of the pairs are here, once.

use std::collections::HashSet;

use crate::{Memo, Model};

/// What a comparison's error must be able to say about its students.
pub trait StudentsError: Sized {
    /// A student name was given twice.
    fn duplicate_student(name: String) -> Self;
    /// The run of student `name` failed.
    fn of_student(name: String, source: Self) -> Self;
}

/// One student's profile as [`compare_chunked`] runs it: texts go in by chunk, each text comes
/// back as an outcome id of the run, and [`StudentRun::pair`] counts one text's outcomes of two
/// students into what their pair counts.
pub trait StudentRun: Sized {
    /// What stops the run.
    type Error: StudentsError;
    /// What a finished run gives.
    type Report;
    /// What a pair of students counts.
    type Pair;

    /// Profiles `texts` (after every text added before), returning each text's outcome id.
    fn add_ids<S: AsRef<str>>(&mut self, texts: &[S]) -> Result<Vec<u32>, Self::Error>;

    /// The outcome an id of [`StudentRun::add_ids`] stands for.
    fn outcome(&self, id: u32) -> &[u32];

    /// Adds one text's outcomes to `pair`: `first` this run's, `second` another run's over the
    /// same suite (so this run's layout reads both).
    fn pair(&self, pair: &mut Self::Pair, first: &[u32], second: &[u32]);

    /// The occurrence of each text of the last [`StudentRun::add_ids`] in the run (1: a text's
    /// first line; [`crate::ProfileRun::occurrences`]); empty for a run that does not count
    /// them.
    fn occurrences(&self) -> &[u64] {
        &[]
    }

    /// [`StudentRun::pair`] of a text's `occurrence`-th line, for a pair whose variance needs a
    /// text's repeats (a teacher sample drawn per distinct text); by default the occurrence is
    /// not needed.
    fn pair_occurrence(
        &self,
        pair: &mut Self::Pair,
        first: &[u32],
        second: &[u32],
        occurrence: u64,
    ) {
        let _ = occurrence;
        self.pair(pair, first, second);
    }

    /// The report of every text added.
    fn finish(self) -> Result<Self::Report, Self::Error>;
}

/// Runs every student over `chunks` and returns each student's report, by name, in the order
/// given.
///
/// `open` starts a student's run (against `teacher`, which its caller wraps); the probes it
/// predicts are forgotten once every run is open, and each chunk's answers once every student
/// has seen the chunk, so the teacher's memory stays bounded by a chunk. `pairs` are the
/// students' pairs `(0, 1), (0, 2), …, (1, 2), …` in that order (as `profile_stats::Pair::every`
/// makes them): each gets [`StudentRun::pair`] of its two students on every text. A student
/// name given twice is an error before anything runs; an error of a student's run names it.
pub fn compare_chunked<'m, R, C, S>(
    teacher: &Memo<'_>,
    students: &[(&str, &'m dyn Model)],
    chunks: impl IntoIterator<Item = C>,
    pairs: &mut [R::Pair],
    mut open: impl FnMut(&'m dyn Model) -> Result<R, R::Error>,
) -> Result<Vec<(String, R::Report)>, R::Error>
where
    R: StudentRun,
    C: AsRef<[S]>,
    S: AsRef<str>,
{
    let mut seen = HashSet::new();
    if let Some(&(name, _)) = students.iter().find(|s| !seen.insert(s.0)) {
        return Err(R::Error::duplicate_student(name.to_owned()));
    }
    let named = |name: &str| {
        let name = name.to_owned();
        move |e| R::Error::of_student(name, e)
    };
    let mut runs = Vec::with_capacity(students.len());
    for &(name, student) in students {
        runs.push(open(student).map_err(named(name))?);
    }
    teacher.forget();
    for chunk in chunks {
        let mut ids = Vec::with_capacity(runs.len());
        for (run, &(name, _)) in runs.iter_mut().zip(students) {
            ids.push(run.add_ids(chunk.as_ref()).map_err(named(name))?);
        }
        teacher.forget();
        // Every run saw the same texts: the first's occurrences are every run's.
        let occurrences = runs.first().map_or(&[][..], |r| r.occurrences());
        let mut p = pairs.iter_mut();
        for (i, (a, a_ids)) in runs.iter().zip(&ids).enumerate() {
            for (b, b_ids) in runs[i + 1..].iter().zip(&ids[i + 1..]) {
                let Some(pair) = p.next() else { break };
                for (j, (&x, &y)) in a_ids.iter().zip(b_ids).enumerate() {
                    let k = occurrences.get(j).copied().unwrap_or(1);
                    a.pair_occurrence(pair, a.outcome(x), b.outcome(y), k);
                }
            }
        }
    }
    let mut reports = Vec::with_capacity(runs.len());
    for (run, &(name, _)) in runs.into_iter().zip(students) {
        reports.push((name.to_owned(), run.finish().map_err(named(name))?));
    }
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use serde_json::json;

    use super::*;
    use crate::PerItemFn;

    #[derive(Debug, PartialEq)]
    enum Failure {
        Duplicate(String),
        Student(String, Box<Failure>),
        Texts(usize),
    }

    impl StudentsError for Failure {
        fn duplicate_student(name: String) -> Failure {
            Failure::Duplicate(name)
        }
        fn of_student(name: String, source: Failure) -> Failure {
            Failure::Student(name, Box::new(source))
        }
    }

    /// A run that asks its model about every text and keeps the answers' lengths as outcomes;
    /// it fails on a chunk of `fail_at` texts.
    struct Lengths<'m> {
        model: &'m dyn Model,
        outcomes: Vec<u32>,
        fail_at: Option<usize>,
    }

    impl StudentRun for Lengths<'_> {
        type Error = Failure;
        type Report = Vec<u32>;
        type Pair = Vec<(u32, u32)>;

        fn add_ids<S: AsRef<str>>(&mut self, texts: &[S]) -> Result<Vec<u32>, Failure> {
            if self.fail_at == Some(texts.len()) {
                return Err(Failure::Texts(texts.len()));
            }
            let texts: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
            let first = self.outcomes.len() as u32;
            for label in self.model.predict_batch(&texts).unwrap_or_default() {
                self.outcomes.push(label.as_u64().unwrap_or(0) as u32);
            }
            Ok((first..self.outcomes.len() as u32).collect())
        }

        fn outcome(&self, id: u32) -> &[u32] {
            &self.outcomes[id as usize..=id as usize]
        }

        fn pair(&self, pair: &mut Vec<(u32, u32)>, first: &[u32], second: &[u32]) {
            pair.push((first[0], second[0]));
        }

        fn finish(self) -> Result<Vec<u32>, Failure> {
            Ok(self.outcomes)
        }
    }

    #[test]
    fn every_pair_in_order_and_the_teacher_once_per_chunk() {
        let asked = Cell::new(0);
        let teacher = PerItemFn::new(|t: &str| {
            asked.set(asked.get() + 1);
            json!(t.len())
        });
        let teacher = Memo::new(&teacher);
        let (one, two, three) = (
            PerItemFn::new(|_: &str| json!(1)),
            PerItemFn::new(|_: &str| json!(2)),
            PerItemFn::new(|t: &str| json!(t.len())),
        );
        let students: [(&str, &dyn Model); 3] = [("a", &one), ("b", &two), ("c", &three)];
        let mut pairs = vec![Vec::new(); 3];
        let chunks = [["x", "yy"], ["zzz", "x"]];
        let reports = compare_chunked(&teacher, &students, chunks, &mut pairs, |model| {
            // Every run asks the teacher about the same text; the memo answers it once.
            let _ = teacher.predict_batch(&["probe"]);
            Ok(Lengths {
                model,
                outcomes: Vec::new(),
                fail_at: None,
            })
        })
        .unwrap();
        assert_eq!(asked.get(), 1);
        let names: Vec<&str> = reports.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!(reports[2].1, [1, 2, 3, 1]);
        // (a, b), (a, c), (b, c), each over both chunks.
        assert_eq!(pairs[0], [(1, 2); 4]);
        assert_eq!(pairs[1], [(1, 1), (1, 2), (1, 3), (1, 1)]);
        assert_eq!(pairs[2], [(2, 1), (2, 2), (2, 3), (2, 1)]);
    }

    #[test]
    fn a_name_twice_runs_nothing_and_a_failing_run_is_named() {
        let model = PerItemFn::new(|_: &str| json!(0));
        let teacher = Memo::new(&model);
        let opened = Cell::new(0);
        // The second run opened fails on a chunk of two texts.
        let open = |model| {
            opened.set(opened.get() + 1);
            Ok(Lengths {
                model,
                outcomes: Vec::new(),
                fail_at: (opened.get() == 2).then_some(2),
            })
        };
        let twice: [(&str, &dyn Model); 3] = [("a", &model), ("b", &model), ("a", &model)];
        let chunks = [["x", "y"]];
        let err = compare_chunked(&teacher, &twice, chunks, &mut [], open).unwrap_err();
        assert_eq!(err, Failure::Duplicate("a".into()));
        assert_eq!(opened.get(), 0);
        let students: [(&str, &dyn Model); 2] = [("a", &model), ("b", &model)];
        let err = compare_chunked(&teacher, &students, chunks, &mut [Vec::new()], open);
        assert_eq!(
            err.unwrap_err(),
            Failure::Student("b".into(), Box::new(Failure::Texts(2)))
        );
    }
}
