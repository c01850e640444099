//! The augmentation job end to end: bad inputs, labels, budget, leaks, and the same bytes for
//! any chunk size and shard split.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::Cell;

use augment::{
    Error, Evaluation, InMemory, Job, Options, Rule, Summary, TextsFile, Total, check_files,
    merge_shards, normalise, suite_fingerprint,
};
use profile_stats::{ClassifyCounts, Counts, ProfileReport, SuiteDescriptor};
use serde_json::{Value, json};
use suite_core::{Label, Model, ModelError, Reference, SuiteSpec};
use transforms::Catalogue;

const SUITE: &str = r#"{
  "corruptions": [
    {"name": "typo", "transform": "keyboard_typo", "rate": 0.2, "seed": 0},
    {"name": "negate", "transform": "keyboard_typo", "rate": 0.5, "seed": 3, "reference": "teacher_transformed"}
  ],
  "invariances": [
    {"name": "case", "transform": "case_jitter"},
    {"name": "space", "transform": "whitespace"},
    {"name": "punct", "transform": "strip_all_punctuation"}
  ],
  "probes": ["good", "GOOD"]
}"#;

fn spec() -> SuiteSpec {
    SuiteSpec::from_json_str_with(SUITE, Catalogue::standard()).unwrap()
}

/// A report of `spec` over 200 texts: `typo` and `case` clearly worse than clean, `negate` by
/// noise only, `space` not at all.
fn report(spec: &SuiteSpec) -> Value {
    let names: Vec<&str> = spec.corruptions.iter().map(|c| c.name.as_str()).collect();
    let inv: Vec<&str> = spec.invariances.iter().map(|c| c.name.as_str()).collect();
    let mut c = ClassifyCounts::new(names.iter().copied(), inv.iter().copied(), None);
    for i in 0..200 {
        c.record_clean(true);
        c.corruptions["typo"].agree.record(true, i % 3 != 0);
        c.corruptions["negate"].agree.record(true, i % 50 != 0);
        c.invariances["case"].changed.record(i % 4 == 0, false);
        c.invariances["space"].changed.record(false, false);
        c.invariances["punct"].changed.record(false, false);
    }
    let suite = SuiteDescriptor::new(names.iter().map(|n| (*n, None)), inv, 2).with_references(
        spec.corruptions
            .iter()
            .map(|e| (e.name.as_str(), e.reference.unwrap_or_default())),
    );
    let mut json = ProfileReport::new(suite, Counts::Classify(c), None)
        .with_suite_fingerprint(Some(suite_fingerprint(spec)))
        .to_json();
    json["texts"] = json!([{"count": 3, "blake3": "0".repeat(64)}]);
    json
}

fn evaluation() -> Evaluation {
    Evaluation::from_json(&report(&spec()), "eval-report.json", None).unwrap()
}

/// A teacher that counts the texts it is asked about: "pos" when a text says "good".
#[derive(Default)]
struct Teacher {
    texts: Cell<u64>,
}

impl Model for Teacher {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        self.texts.set(self.texts.get() + texts.len() as u64);
        Ok(texts
            .iter()
            .map(|t| json!(if t.contains("good") { "pos" } else { "neg" }))
            .collect())
    }
}

const WORDS: [&str; 8] = [
    "good", "food", "bad", "service", "the", "was", "not", "fine",
];

fn training(n: usize) -> InMemory {
    InMemory::new((0..n).map(|i| {
        let mut t = String::new();
        for k in 0..(3 + i % 4) {
            t.push_str(WORDS[(i * 7 + k * 3 + i / 8) % WORDS.len()]);
            t.push(' ');
        }
        format!("{t}{i}")
    }))
}

fn job(eval: &InMemory, options: Options) -> Result<Job, Error> {
    Job::new(&evaluation(), &spec(), Catalogue::standard(), eval, options)
}

fn run(job: &Job, training: &InMemory) -> (Vec<u8>, Summary) {
    let mut out = Vec::new();
    let summary = job.run(training, &Teacher::default(), &mut out).unwrap();
    (out, summary)
}

fn rows(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

#[test]
fn the_gap_decides_and_labels_follow_the_declared_reference() {
    let options = Options {
        total: Total::Rows(60),
        ..Options::default()
    };
    let job = job(&InMemory::new(["held out"]), options).unwrap();
    let (out, summary) = run(&job, &training(400));
    let alloc = &summary.allocation;
    let by = |s: &str| alloc.stages.iter().find(|a| a.stage == s).unwrap();
    assert!(by("typo").rows > 0 && by("case").rows > 0);
    assert_eq!((by("negate").rows, by("space").rows), (0, 0));
    assert!(
        by("negate").reason.contains("includes 0"),
        "{}",
        by("negate").reason
    );
    assert_eq!(alloc.stage_rows(), 60);
    assert_eq!(by("typo").label, Reference::TeacherClean);
    assert_eq!(by("negate").label, Reference::TeacherTransformed);
    let rows = rows(&out);
    assert_eq!(rows.len() as u64, summary.written());
    for r in &rows {
        let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["id", "text", "label", "stage", "source_id", "reference"]
        );
        assert_eq!(r["reference"], "teacher_clean");
    }
    // Invariance rows carry the teacher's clean answer: "GOOD" is pos through its clean text.
    assert!(
        rows.iter()
            .any(|r| r["stage"] == "case" && r["label"] == "pos")
    );
    assert!(summary.teacher_calls > 0 && summary.teacher_calls <= 60);
    let text = summary.to_text();
    assert!(
        text.contains("typo") && text.contains("teacher calls"),
        "{text}"
    );
}

#[test]
fn label_changing_corruptions_are_labelled_on_the_transformed_text() {
    let options = Options {
        total: Total::Rows(30),
        stages: vec!["negate".into()],
        ..Options::default()
    };
    let job = job(&InMemory::default(), options).unwrap();
    let (out, summary) = run(&job, &training(100));
    let rows = rows(&out);
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(
            (r["stage"].as_str(), r["reference"].as_str()),
            (Some("negate"), Some("teacher_transformed"))
        );
        let text = r["text"].as_str().unwrap();
        assert_eq!(
            r["label"],
            if text.contains("good") { "pos" } else { "neg" }
        );
    }
    assert_eq!(summary.allocation.stages_named, ["negate"]);
}

#[test]
fn the_teacher_budget_caps_the_calls() {
    let teacher = Teacher::default();
    let options = Options {
        total: Total::Fraction(1.0),
        teacher_budget: Some(25),
        probes: true,
        chunk_size: 7,
        ..Options::default()
    };
    let job = job(&InMemory::default(), options).unwrap();
    let mut out = Vec::new();
    let summary = job.run(&training(300), &teacher, &mut out).unwrap();
    assert_eq!(teacher.texts.get(), summary.teacher_calls);
    assert!(summary.teacher_calls <= 25, "{}", summary.teacher_calls);
    assert_eq!(summary.allocation.total, 25);
}

#[test]
fn disagreeing_probes_are_rows_of_their_own() {
    let spec = spec();
    let mut json = report(&spec);
    json["profile"]["probes"] = json!({"student": ["pos", "neg"], "teacher": ["pos", "pos"]});
    let evaluation = Evaluation::from_json(&json, "r.json", None).unwrap();
    let options = Options {
        total: Total::Rows(5),
        probes: true,
        ..Options::default()
    };
    let job = Job::new(
        &evaluation,
        &spec,
        Catalogue::standard(),
        &InMemory::default(),
        options,
    )
    .unwrap();
    let (out, summary) = run(&job, &training(50));
    let rows = rows(&out);
    let probes: Vec<&Value> = rows.iter().filter(|r| r["stage"] == "probes").collect();
    assert_eq!(probes.len(), 1);
    assert_eq!(
        (probes[0]["text"].as_str(), probes[0]["source_id"].as_str()),
        (Some("GOOD"), Some("probe:1"))
    );
    assert_eq!(summary.rows.last().unwrap().written, 1);
}

#[test]
fn a_comparison_names_its_student() {
    let spec = spec();
    let report = ProfileReport::from_json(&report(&spec)).unwrap();
    let outcomes = || profile_stats::StudentOutcomes {
        clean: vec![true; 200],
        corruptions: spec
            .corruptions
            .iter()
            .map(|c| (c.name.clone(), vec![true; 200]))
            .collect(),
        invariances: spec
            .invariances
            .iter()
            .map(|c| (c.name.clone(), vec![false; 200]))
            .collect(),
    };
    let runs = vec![
        ("cmd:a".to_owned(), report.clone(), outcomes()),
        ("cmd:b".to_owned(), report, outcomes()),
    ];
    let json = profile_stats::Comparison::of_runs(Some("cmd:t".into()), runs).to_json();
    let chosen = Evaluation::from_json(&json, "cmp.json", Some("cmd:b")).unwrap();
    assert_eq!(chosen.student.as_deref(), Some("cmd:b"));
    assert!(
        Job::new(
            &chosen,
            &spec,
            Catalogue::standard(),
            &InMemory::default(),
            Options::default()
        )
        .is_ok()
    );
    let err = Evaluation::from_json(&json, "cmp.json", None)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "cmp.json: a comparison of 2 students: name the one to augment for (its students: cmd:a, cmd:b)"
    );
    let err = Evaluation::from_json(&json, "cmp.json", Some("c"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("cmp.json: no student `c` in the comparison"),
        "{err}"
    );
}

#[test]
fn a_report_of_another_suite_is_refused() {
    let mut other = spec();
    other.invariances.pop();
    let err = Job::new(
        &evaluation(),
        &other,
        Catalogue::standard(),
        &InMemory::default(),
        Options::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        err.starts_with("eval-report.json: a report of another suite"),
        "{err}"
    );
    // A report of `capkit profile --reference teacher-clean` matches its suite file.
    let mut clean = spec();
    for c in &mut clean.corruptions {
        c.reference = Some(Reference::TeacherClean);
    }
    let evaluation = Evaluation::from_json(&report(&clean), "r.json", None).unwrap();
    let job = Job::new(
        &evaluation,
        &spec(),
        Catalogue::standard(),
        &InMemory::default(),
        Options::default(),
    );
    assert!(job.is_ok());
}

#[test]
fn a_stage_the_suite_does_not_have_is_refused() {
    let options = Options {
        stages: vec!["typo".into(), "typo_99".into()],
        ..Options::default()
    };
    let err = job(&InMemory::default(), options)
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        err,
        "stage `typo_99`: the suite has no such stage (its stages: typo, negate, case, space, punct)"
    );
}

#[test]
fn a_budget_of_zero_is_refused() {
    let options = Options {
        teacher_budget: Some(0),
        ..Options::default()
    };
    let err = job(&InMemory::default(), options)
        .err()
        .unwrap()
        .to_string();
    assert!(err.starts_with("teacher_budget: a budget of 0"), "{err}");
}

#[test]
fn a_training_file_that_is_the_evaluation_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let eval = dir.path().join("eval.txt");
    let train = dir.path().join("train.txt");
    std::fs::write(&eval, "held out\nanother\n").unwrap();
    std::fs::write(&train, "held out\nanother\n").unwrap();
    let mut json = report(&spec());
    let [blake3, _] = TextsFile::new(&eval).fingerprints().unwrap();
    json["texts"] = json!([{"count": 2, "blake3": blake3}]);
    let evaluation = Evaluation::from_json(&json, "r.json", None).unwrap();
    let err = check_files(&evaluation, &TextsFile::new(&eval), &TextsFile::new(&train))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("train.txt: training file is the evaluation file"),
        "{err}"
    );
    std::fs::write(&train, "a training text\n").unwrap();
    check_files(&evaluation, &TextsFile::new(&eval), &TextsFile::new(&train)).unwrap();
    // Evaluation texts the report did not count.
    let err = check_files(&evaluation, &TextsFile::new(&train), &TextsFile::new(&eval))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("training file is the evaluation file"),
        "{err}"
    );
    std::fs::write(dir.path().join("other.txt"), "x\n").unwrap();
    let err = check_files(
        &evaluation,
        &TextsFile::new(dir.path().join("other.txt")),
        &TextsFile::new(&train),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("other.txt: not the evaluation texts of the report"),
        "{err}"
    );
}

#[test]
fn nothing_is_written_when_the_teacher_fails() {
    struct Broken;
    impl Model for Broken {
        fn predict_batch(&self, _: &[&str]) -> Result<Vec<Label>, ModelError> {
            Err("the teacher is down".into())
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rows.jsonl");
    let job = job(&InMemory::default(), Options::default()).unwrap();
    let err = augment::write_files(&job, &training(50), &Broken, &out)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("teacher, stage `"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let summary = augment::write_files(&job, &training(50), &Teacher::default(), &out).unwrap();
    let written = std::fs::read(&out).unwrap();
    assert_eq!(rows(&written).len() as u64, summary.written());
    let beside: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("rows.allocation.json")).unwrap())
            .unwrap();
    assert_eq!(beside["format"], "capkit-augment/1");
}

mod laws {
    use super::*;
    use proptest::prelude::*;

    /// Texts of a few words, some of them evaluation texts or variants of them.
    fn corpus() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
        let text = proptest::collection::vec(0..WORDS.len(), 1..5)
            .prop_map(|w| w.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" "));
        (
            proptest::collection::vec(text.clone(), 1..12),
            proptest::collection::vec((text, 0..5u8), 0..60),
        )
            .prop_map(|(eval, train)| {
                let train = train
                    .into_iter()
                    .enumerate()
                    .map(|(i, (t, how))| match how {
                        // An evaluation text, as it is or in other case and spacing.
                        0 => eval[i % eval.len()].clone(),
                        1 => format!(" {}", eval[i % eval.len()].to_uppercase()),
                        // One whose punctuation-free rewrite is an evaluation text.
                        2 => format!("{}!", eval[i % eval.len()].replace(' ', ", ")),
                        _ => t,
                    })
                    .collect();
                (eval, train)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// No row is an evaluation text or a transformed one, exactly or normalised; the bytes
        /// are the same for any chunk size and any split into shards merged in order.
        #[test]
        fn no_leaks_and_the_same_bytes_for_any_chunks_and_shards(
            (eval, train) in corpus(),
            chunk in 1usize..9,
            cuts in proptest::collection::vec(0usize..60, 0..4),
            rule in prop_oneof![Just(Rule::Gap), Just(Rule::Uniform), Just(Rule::Langtest)],
        ) {
            let eval_texts = InMemory::new(eval.clone());
            let training = InMemory::new(train.clone());
            let options = |chunk_size| Options { total: Total::Fraction(1.0), rule, chunk_size, ..Options::default() };
            let reference = job(&eval_texts, options(4096)).unwrap();
            let (bytes, summary) = run(&reference, &training);

            let suite = spec().build_with(Catalogue::standard()).unwrap();
            let mut forbidden: Vec<String> = Vec::new();
            for e in &eval {
                forbidden.push(e.clone());
                for (_, t) in suite.corruptions().chain(suite.invariances()) {
                    forbidden.push(t.apply(e));
                }
            }
            let forbidden_normalised: Vec<String> = forbidden.iter().map(|t| normalise(t)).collect();
            for row in rows(&bytes) {
                let text = row["text"].as_str().unwrap();
                prop_assert!(!forbidden.iter().any(|f| f == text), "leaked {text:?}");
                prop_assert!(!forbidden_normalised.contains(&normalise(text)), "leaked {text:?}");
            }

            let chunked = job(&eval_texts, options(chunk)).unwrap();
            prop_assert_eq!(&run(&chunked, &training).0, &bytes);

            // Shards: contiguous pieces, one plan over all the texts, merged in order.
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(train.len())).collect();
            cuts.push(0);
            cuts.push(train.len());
            cuts.sort_unstable();
            let plan = chunked.plan(&training).unwrap();
            let mut shards = Vec::new();
            for w in cuts.windows(2) {
                let shard = InMemory::new(train[w[0]..w[1]].iter().cloned());
                let mut out = Vec::new();
                let s = chunked.write_rows(&plan, &shard, &Teacher::default(), &mut out).unwrap();
                shards.push((out, s));
            }
            let parts: Vec<(&[u8], &Summary)> = shards.iter().map(|(b, s)| (b.as_slice(), s)).collect();
            let mut merged = Vec::new();
            let merged_summary = merge_shards(&parts, &mut merged).unwrap().unwrap();
            prop_assert_eq!(&merged, &bytes);
            prop_assert_eq!(&merged_summary.rows, &summary.rows);
        }
    }
}
