//! Whose change (issue 32): the per-corruption tables that separate the teacher's fragility from
//! the student's, and the changed-text counts of every stage, against an independent
//! recomputation from each model's per-text answers, for single reports, merged shards, any
//! chunk size and comparisons.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use capture::{CaptureRun, compare_students_chunked};
use profile_stats::{ChangeCounts, Counts, FirstVsSecond, ProfileReport};
use serde_json::json;
use suite_core::{
    CapabilitySuite, Label, Model, PerItemFn, Reference, Transform, case_jitter_invariance,
    keyboard_typo_corruption, whitespace_invariance,
};

/// Six stages: two typo rates, a label-preserving accent strip, a rewrite that changes no text
/// of these texts, case and whitespace.
fn suite() -> CapabilitySuite {
    let mut suite = CapabilitySuite::new();
    suite.add_corruption("typo_10", keyboard_typo_corruption(0.1, 0).unwrap());
    suite.add_corruption(
        "typo_30",
        keyboard_typo_corruption(0.3, 0)
            .unwrap()
            .with_reference(Reference::TeacherClean),
    );
    suite.add_corruption(
        "strip_e",
        Transform::new(|t| t.replace(['é', 'è'], "e")).with_reference(Reference::TeacherClean),
    );
    suite.add_corruption("no_op", Transform::new(|t| t.replace('\u{7}', "")));
    suite.add_invariance("case", case_jitter_invariance());
    suite.add_invariance("space", whitespace_invariance());
    suite
}

/// A fragile teacher (it needs whole words) and a student that reads first letters (robust
/// to most typos, and wrong about "food").
fn teacher(t: &str) -> Label {
    let lower = t.to_lowercase();
    json!(if lower.contains("good") || lower.contains("bébé") {
        "pos"
    } else if lower.contains("bad") {
        "neg"
    } else {
        "neutral"
    })
}

fn student(t: &str) -> Label {
    let first = |c: char| t.split_whitespace().any(|w| w.starts_with(c));
    json!(if first('g') || first('f') {
        "pos"
    } else if first('b') {
        "neg"
    } else {
        "neutral"
    })
}

/// Texts with repeats, non-ASCII and long lines.
fn texts() -> Vec<String> {
    let words = [
        "good",
        "Good",
        "bad",
        "food",
        "bébé",
        "crème",
        "  the",
        "GOOD",
        "naïve",
        "ad",
        "日本語",
    ];
    let mut out = Vec::new();
    let mut x: u64 = 7;
    for i in 0..240 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let len = 1 + (x >> 60) as usize + if i % 37 == 0 { 300 } else { 0 };
        let text: Vec<&str> = (0..len)
            .map(|j| words[((x >> (j % 50)) as usize + j) % words.len()])
            .collect();
        out.push(text.join(" "));
        if i % 5 == 0 {
            // A repeat of an earlier text.
            out.push(out[i / 2].clone());
        }
    }
    out
}

/// What the counts must be, from each model's answers text by text.
struct Expected {
    clean_agree: u64,
    corruptions: Vec<(String, ChangeCounts)>,
    invariances: Vec<(String, u64)>,
}

fn expected(texts: &[String], suite: &CapabilitySuite) -> Expected {
    let mut e = Expected {
        clean_agree: 0,
        corruptions: suite
            .corruption_names()
            .map(|n| (n.to_owned(), ChangeCounts::default()))
            .collect(),
        invariances: suite
            .invariance_names()
            .map(|n| (n.to_owned(), 0))
            .collect(),
    };
    for text in texts {
        let (s, t) = (student(text), teacher(text));
        e.clean_agree += u64::from(s == t);
        for ((_, transform), (_, c)) in suite.corruptions().zip(&mut e.corruptions) {
            let x = transform.apply(text);
            let (sx, tx) = (student(&x), teacher(&x));
            c.texts_changed += u64::from(x != *text);
            c.reference.record(s == t, sx == t);
            c.changed.record(sx != s, tx != t);
            if s == t && sx != tx {
                c.new_disagreements.record_n(sx != s, tx != t, 1);
            }
        }
        for ((_, transform), (_, k)) in suite.invariances().zip(&mut e.invariances) {
            *k += u64::from(transform.apply(text) != *text);
        }
    }
    e
}

fn check(report: &ProfileReport, e: &Expected) {
    let Counts::Classify(c) = &report.counts else {
        panic!("a classifier report")
    };
    assert_eq!(c.clean.agree, e.clean_agree);
    for (name, want) in &e.corruptions {
        assert_eq!(c.corruptions[name].change.as_ref(), Some(want), "{name}");
    }
    for (name, want) in &e.invariances {
        assert_eq!(c.invariances[name].texts_changed, Some(*want), "{name}");
    }
    c.validate().unwrap();
}

fn report(texts: &[String], suite: &CapabilitySuite, chunk: usize) -> ProfileReport {
    let (s, t) = (PerItemFn::new(student), PerItemFn::new(teacher));
    let mut run = CaptureRun::new(&s, &t, suite)
        .unwrap()
        .with_chunk_size(chunk);
    run.add(texts).unwrap();
    run.report().unwrap()
}

#[test]
fn whose_change_counts_equal_a_recomputation_from_the_answers() {
    let (texts, suite) = (texts(), suite());
    let e = expected(&texts, &suite);
    // Every kind of change occurs, so the test can tell them apart.
    let typo = &e.corruptions[1].1;
    let d = typo.new_disagreements;
    assert!(d.teacher_only > 0 && d.student_only > 0, "{d:?}");
    assert!(typo.changed.table().second() > 0 && typo.changed.table().first() > 0);
    assert_eq!(e.corruptions[3].1.texts_changed, 0, "no_op changes nothing");
    let whole = report(&texts, &suite, 4_096);
    check(&whole, &e);
    for chunk in [1, 7] {
        assert_eq!(report(&texts, &suite, chunk), whole, "chunk size {chunk}");
    }
    // Shards merge exactly: 3 and 8 pieces.
    for shards in [3, 8] {
        let size = texts.len().div_ceil(shards);
        let mut merged: Option<ProfileReport> = None;
        for piece in texts.chunks(size) {
            let r = report(piece, &suite, 4_096);
            merged = Some(match merged {
                None => r,
                Some(m) => m.merge(&r).unwrap(),
            });
        }
        assert_eq!(merged.unwrap(), whole, "{shards} shards");
    }
}

#[test]
fn the_headline_follows_the_reference_and_no_op_stages_leave_the_family() {
    let (texts, suite) = (texts(), suite());
    let json = report(&texts, &suite, 4_096).to_json();
    let e = expected(&texts, &suite);
    let n = texts.len() as f64;
    let typo = &json["corruptions"]["typo_30"];
    assert_eq!(typo["reference"], "teacher_clean");
    assert_eq!(
        typo["whose"]["teacher_clean_agreement"]["estimate"],
        e.corruptions[1].1.reference.table().second() as f64 / n
    );
    assert_eq!(
        typo["whose"]["teacher_change"]["estimate"],
        e.corruptions[1].1.changed.table().second() as f64 / n
    );
    assert_eq!(
        json["corruptions"]["typo_10"]["reference"],
        "teacher_transformed"
    );
    // The headline family: three corruptions (no_op left out) and two invariances.
    let family = |v: &serde_json::Value| v["adjustment"]["family"].clone();
    assert_eq!(family(&typo["whose"]["clean_vs_teacher_clean"]), 5);
    assert_eq!(
        family(&json["corruptions"]["typo_10"]["clean_vs_corrupted"]),
        5
    );
    assert_eq!(
        family(&json["invariances"]["case"]["student_vs_teacher"]),
        5
    );
    assert_eq!(json["corruptions"]["no_op"]["texts_changed"], 0);
    assert_eq!(
        family(&json["corruptions"]["no_op"]["clean_vs_corrupted"]),
        1
    );
    // The curve of typos draws each stage at its headline.
    let points = &json["curves"]["keyboard_typo"]["points"];
    assert_eq!(
        points[2]["value"],
        e.corruptions[1].1.reference.table().second() as f64 / n
    );
}

#[test]
fn comparison_pairs_against_the_clean_reference_equal_a_recomputation() {
    let (texts, suite) = (texts(), suite());
    let t = PerItemFn::new(teacher);
    let a = PerItemFn::new(student);
    let b = PerItemFn::new(|x: &str| json!(x.len().is_multiple_of(3)));
    let students: [(&str, &dyn Model); 2] = [("a", &a), ("b", &b)];
    let comparison = compare_students_chunked(&t, &students, texts.chunks(13), &suite).unwrap();
    let mut want = FirstVsSecond::default();
    let transform = suite.corruption("typo_30").unwrap();
    for text in &texts {
        let x = transform.apply(text);
        let clean = teacher(text);
        want.record(
            student(&x) == clean,
            json!(x.len().is_multiple_of(3)) == clean,
        );
    }
    assert_eq!(
        comparison.pairs[0].counts.corruptions["typo_30"].teacher_clean,
        Some(want)
    );
    // The pair's headline for typo_30 is that table's test.
    let json = comparison.to_json();
    let t = want.table();
    assert_eq!(
        json["pairs"][0]["corruptions"]["typo_30"]["difference"]["estimate"],
        (t.first() as f64 - t.second() as f64) / texts.len() as f64
    );
    // Each student's report is its own report.
    check(&comparison.students["a"], &expected(&texts, &suite));
}

fn with_examples(texts: &[String], suite: &CapabilitySuite, chunk: usize) -> ProfileReport {
    let (s, t) = (PerItemFn::new(student), PerItemFn::new(teacher));
    let mut run = CaptureRun::new(&s, &t, suite)
        .unwrap()
        .with_chunk_size(chunk)
        .with_examples(3);
    // Added in two pieces, so that examples listed before a later piece's texts are filled in
    // with their escalations as the others are.
    let (a, b) = texts.split_at(texts.len() / 3);
    run.add(a).unwrap();
    run.add(b).unwrap();
    run.report().unwrap()
}

fn key(text: &str) -> String {
    profile_stats::key_hex(profile_stats::example_key(
        blake3::hash(text.as_bytes()).as_bytes(),
    ))
}

#[test]
fn examples_are_the_smallest_keys_of_their_kind_for_any_chunks_and_shards() {
    let (texts, suite) = (texts(), suite());
    let whole = with_examples(&texts, &suite, 4_096);
    let examples = whole.examples.clone().unwrap();
    for chunk in [1, 7] {
        assert_eq!(
            with_examples(&texts, &suite, chunk).examples.as_ref(),
            Some(&examples),
            "chunk size {chunk}"
        );
    }
    for shards in [3, 8] {
        let size = texts.len().div_ceil(shards);
        let mut merged: Option<ProfileReport> = None;
        for piece in texts.chunks(size) {
            let r = with_examples(piece, &suite, 64);
            merged = Some(match merged {
                None => r,
                Some(m) => m.merge(&r).unwrap(),
            });
        }
        assert_eq!(
            merged.unwrap().examples.as_ref(),
            Some(&examples),
            "{shards} shards"
        );
    }
    // An independent recomputation: per stage and kind, the 3 smallest keys of the distinct
    // texts of that kind, each listed with what the models answered.
    let mut distinct: Vec<&String> = texts.iter().collect();
    distinct.sort_by_key(|t| (key(t), (*t).clone()));
    distinct.dedup();
    let smallest = |of_kind: &dyn Fn(&str) -> bool| -> Vec<String> {
        distinct
            .iter()
            .filter(|t| of_kind(t))
            .take(3)
            .map(|t| key(t))
            .collect()
    };
    let keys = |list: &profile_stats::ExampleList| -> Vec<String> {
        list.0.iter().map(|e| e.key.clone()).collect()
    };
    assert_eq!(
        keys(&examples.clean),
        smallest(&|t| student(t) != teacher(t))
    );
    let stages = suite
        .corruptions()
        .map(|(n, t)| (&examples.corruptions[n], t))
        .chain(
            suite
                .invariances()
                .map(|(n, t)| (&examples.invariances[n], t)),
        );
    let mut listed = 0;
    for (stage, transform) in stages {
        let changed = |t: &str| {
            let x = transform.apply(t);
            (student(&x) != student(t), teacher(&x) != teacher(t))
        };
        assert_eq!(
            keys(&stage.student_only),
            smallest(&|t| changed(t) == (true, false))
        );
        assert_eq!(
            keys(&stage.teacher_only),
            smallest(&|t| changed(t) == (false, true))
        );
        assert_eq!(keys(&stage.both), smallest(&|t| changed(t) == (true, true)));
        for e in stage
            .student_only
            .0
            .iter()
            .chain(&stage.teacher_only.0)
            .chain(&stage.both.0)
        {
            let text = distinct.iter().find(|t| key(t) == e.key).unwrap();
            let x = transform.apply(text);
            let form = |l: Label| profile_types::value::py_str(&l).to_string();
            assert_eq!(e.student.clean, form(student(text)));
            assert_eq!(e.student.transformed, Some(form(student(&x))));
            assert_eq!(e.teacher.transformed, Some(form(teacher(&x))));
            assert_eq!(
                e.text_cut,
                text.chars().count() > profile_stats::EXAMPLE_CHARS
            );
            assert!(text.starts_with(&e.text));
            listed += 1;
        }
    }
    assert!(listed > 10, "{listed} examples listed");
    // The report's JSON carries them, and reads back.
    let json = whole.to_json();
    assert_eq!(ProfileReport::from_json(&json).unwrap(), whole);
    // Merging refuses a shard without examples.
    assert!(whole.merge(&report(&texts[..5], &suite, 64)).is_err());
}

fn ledger(texts: &[String], suite: &CapabilitySuite, chunk: usize, piece: usize) -> Vec<u8> {
    let (s, t) = (PerItemFn::new(student), PerItemFn::new(teacher));
    let mut out = Vec::new();
    let mut run = CaptureRun::new(&s, &t, suite)
        .unwrap()
        .with_chunk_size(chunk)
        .with_ledger(&mut out);
    for part in texts.chunks(piece) {
        run.add(part).unwrap();
    }
    run.report().unwrap();
    out
}

#[test]
fn the_ledger_has_the_same_bytes_for_any_chunking_and_says_what_each_side_answered() {
    let (texts, suite) = (texts(), suite());
    let whole = ledger(&texts, &suite, 4_096, texts.len());
    for (chunk, piece) in [(1, 1), (7, 7), (7, 100), (4_096, 13)] {
        assert!(
            ledger(&texts, &suite, chunk, piece) == whole,
            "chunk size {chunk}, added {piece} at a time"
        );
    }
    let lines: Vec<serde_json::Value> = whole
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let stages = 1 + suite.corruptions().count() + suite.invariances().count();
    assert_eq!(lines.len(), texts.len() * stages);
    let transforms: Vec<_> = suite.corruptions().chain(suite.invariances()).collect();
    let mut seen = std::collections::HashSet::new();
    for (i, text) in texts.iter().enumerate() {
        let first = seen.insert(text.clone());
        let clean = &lines[i * stages];
        assert_eq!(clean["id"], i + 1);
        assert_eq!(clean["key"], key(text));
        assert_eq!(clean["text"], text.as_str());
        assert_eq!(clean["agree"], student(text) == teacher(text));
        assert_eq!(clean.get("repeat").is_some(), !first);
        let form = |l: Label| profile_types::value::py_str(&l).to_string();
        if first {
            assert_eq!(clean["student"], form(student(text)));
        }
        for (s, (name, transform)) in transforms.iter().enumerate() {
            let line = &lines[i * stages + 1 + s];
            let x = transform.apply(text);
            assert_eq!(line["stage"], *name);
            assert_eq!(line["student_changed"], student(&x) != student(text));
            assert_eq!(line["teacher_changed"], teacher(&x) != teacher(text));
            assert_eq!(line["text_changed"], x != *text);
            if first {
                assert_eq!(line["transformed"], x.as_str());
                assert_eq!(line["teacher_transformed"], form(teacher(&x)));
            } else {
                assert!(line.get("transformed").is_none());
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

    /// Every example listed is of its kind: its texts are what the stage made of a text of the
    /// run, and the answers listed are the models' answers, changed as the kind says.
    #[test]
    fn every_example_listed_is_of_its_kind(
        words in proptest::collection::vec(
            proptest::collection::vec(proptest::sample::select(vec![
                "good", "Good", "bad", "food", "bébé", "crème", "ad", "日本", "  x",
            ]), 1..6),
            0..40,
        ),
        chunk in 1usize..9,
    ) {
        let texts: Vec<String> = words.iter().map(|w| w.join(" ")).collect();
        let suite = suite();
        let report = with_examples(&texts, &suite, chunk);
        let examples = report.examples.unwrap();
        let form = |l: Label| profile_types::value::py_str(&l).to_string();
        for (section, stage, kind, e) in examples.iter() {
            let text = texts.iter().find(|t| key(t) == e.key).expect("a text of the run");
            proptest::prop_assert_eq!(&e.student.clean, &form(student(text)));
            proptest::prop_assert_eq!(&e.teacher.clean, &form(teacher(text)));
            if section == "clean" {
                proptest::prop_assert_ne!(student(text), teacher(text));
                continue;
            }
            let transform = match section {
                "corruptions" => suite.corruption(stage),
                _ => suite.invariance(stage),
            }
            .unwrap();
            let x = transform.apply(text);
            proptest::prop_assert_eq!(e.transformed.as_deref(), Some(x.as_str()));
            let changed = (student(&x) != student(text), teacher(&x) != teacher(text));
            let want = match kind {
                "student_only" => (true, false),
                "teacher_only" => (false, true),
                _ => (true, true),
            };
            proptest::prop_assert_eq!(changed, want, "{} {} {}", section, stage, kind);
        }
    }
}
