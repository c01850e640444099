//! Profiles whose teacher answers a sample of the transformed texts: the same report for every
//! chunk size, shard count and thread count (shards merged in any order); the teacher never sees an unsampled text's
//! corrupted or rewritten versions; a sample of every text estimates exactly the full profile.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::sync::Mutex;

use capture::{CaptureRun, ProfileReport};
use proptest::prelude::*;
use suite_core::{PerItemFn, TeacherSample};

mod common;

use common::{WORDS, student, suite, teacher, text};

fn sampled_report(texts: &[String], chunk: usize, fraction: f64) -> ProfileReport {
    let s = PerItemFn::new(student);
    let t = PerItemFn::new(teacher);
    let suite = suite();
    let mut run = CaptureRun::new(&s, &t, &suite)
        .unwrap()
        .with_chunk_size(chunk)
        .with_teacher_sample(Some(TeacherSample::new(fraction, 3).unwrap()));
    run.add(texts).unwrap();
    run.report().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn a_sampled_report_is_the_same_for_every_chunk_size_shard_and_thread(
        texts in prop::collection::vec(text(), 0..40),
        shards in 1usize..5,
        threads in 1usize..4,
        fraction in prop::sample::select(vec![0.1, 0.3, 0.5, 1.0]),
    ) {
        let n = texts.len().max(1);
        let whole = sampled_report(&texts, n, fraction);
        for chunk in [1, 7] {
            prop_assert_eq!(&sampled_report(&texts, chunk, fraction), &whole, "chunk {}", chunk);
        }
        // Shards, each profiled on its own thread, merge into the single run's report. The
        // shards partition the texts by content (every line of a text in one shard): the
        // sample's unit is the distinct text, and a text split over shards would count its
        // repeats' squares per shard (c₁² + c₂² for (c₁ + c₂)²; docs/teacher-budget.md).
        let by_text = by_content(&texts, shards);
        let parts: Vec<ProfileReport> = std::thread::scope(|scope| {
            let handles: Vec<_> = by_text
                .iter()
                .map(|part| scope.spawn(move || sampled_report(part, 3, fraction)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut merged = sampled_report(&[], 1, fraction);
        for part in &parts {
            merged = merged.merge(part).unwrap();
        }
        prop_assert_eq!(&merged, &whole);
        prop_assert_eq!(merged.to_json(), whole.to_json());
        // The same shards on `threads` threads (thread k profiles shards k, k + threads, ...),
        // merged in the order the threads return them, backwards: the same report again.
        let parts: Vec<&[String]> = by_text.iter().map(Vec::as_slice).collect();
        let parts = &parts;
        let pooled: Vec<ProfileReport> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|k| {
                    scope.spawn(move || {
                        parts
                            .iter()
                            .skip(k)
                            .step_by(threads)
                            .map(|part| sampled_report(part, 5, fraction))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        let mut merged = sampled_report(&[], 1, fraction);
        for part in pooled.iter().rev() {
            merged = merged.merge(part).unwrap();
        }
        prop_assert_eq!(merged.to_json(), whole.to_json(), "{} threads", threads);
    }
}

/// The texts split into `shards` parts by content (order kept within a part).
fn by_content(texts: &[String], shards: usize) -> Vec<Vec<String>> {
    let mut parts = vec![Vec::new(); shards];
    for t in texts {
        let h = t
            .bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
        parts[(h % shards as u64) as usize].push(t.clone());
    }
    parts
}

#[test]
fn the_teacher_never_sees_an_unsampled_texts_transformed_versions() {
    let texts: Vec<String> = (0..300).map(|i| format!("good text number {i}")).collect();
    let sample = TeacherSample::new(0.1, 9).unwrap();
    let sampled: HashSet<&str> = texts
        .iter()
        .filter(|t| sample.includes(&suite_core::TextHash::of(t)))
        .map(String::as_str)
        .collect();
    assert!((10..60).contains(&sampled.len()), "{}", sampled.len());
    let asked = Mutex::new(Vec::<String>::new());
    let s = PerItemFn::new(student);
    let t = PerItemFn::new(|x: &str| {
        asked.lock().unwrap().push(x.to_owned());
        teacher(x)
    });
    let suite = suite();
    let mut run = CaptureRun::new(&s, &t, &suite)
        .unwrap()
        .with_chunk_size(64)
        .with_teacher_sample(Some(sample));
    run.add(&texts).unwrap();
    let saved = run.teacher_calls_saved();
    let report = run.report().unwrap();
    let asked = asked.into_inner().unwrap();
    // The probe, every clean text, and the transformed versions of the sampled ones only.
    let expected_transformed = asked.len() - 1 - texts.len();
    let stages = 5;
    assert!(expected_transformed <= stages * sampled.len());
    assert_eq!(saved as usize + expected_transformed, {
        // The full profile's teacher calls on transformed texts.
        let asked_all = Mutex::new(0usize);
        let t = PerItemFn::new(|x: &str| {
            *asked_all.lock().unwrap() += 1;
            teacher(x)
        });
        let mut full = CaptureRun::new(&s, &t, &suite).unwrap().with_chunk_size(64);
        full.add(&texts).unwrap();
        let all = *asked_all.lock().unwrap();
        all - 1 - texts.len()
    });
    let json = report.to_json();
    assert_eq!(json["counts"]["sample"]["labelled"], sampled.len());
    assert_eq!(
        json["corruptions"]["typo_40"]["agreement"]["method"],
        "ppi_power_tuned"
    );
    assert_eq!(
        json["corruptions"]["typo_40"]["estimated"]["teacher_answers"],
        sampled.len()
    );
    assert_eq!(json["clean"]["agreement"]["method"], "wilson");
    assert!(json["methods"]["ppi_power_tuned"].is_string());
    // The report reads back and merges.
    let back = ProfileReport::from_json(&json).unwrap();
    assert_eq!(back, report);
}

#[test]
fn a_sample_of_every_text_estimates_the_full_profile_exactly() {
    let texts: Vec<String> = (0..120)
        .map(|i| format!("{} food {i}", WORDS[i % WORDS.len()]))
        .collect();
    let s = PerItemFn::new(student);
    let t = PerItemFn::new(teacher);
    let suite = suite();
    let mut full = CaptureRun::new(&s, &t, &suite).unwrap();
    full.add(&texts).unwrap();
    let full = full.profile().unwrap();
    let sampled = sampled_report(&texts, 50, 1.0).capture_profile().unwrap();
    assert_eq!(sampled.clean_agreement, full.clean_agreement);
    for (name, rate) in &full.corruptions {
        assert!((sampled.corruptions[name] - rate).abs() < 1e-12, "{name}");
    }
    for (name, rates) in &full.invariances {
        let got = &sampled.invariances[name];
        assert_eq!(got.student_violation_rate, rates.student_violation_rate);
        assert!((got.teacher_violation_rate - rates.teacher_violation_rate).abs() < 1e-12);
    }
}

#[test]
fn sampled_and_full_reports_do_not_merge() {
    let texts = vec!["good food".to_owned()];
    let s = PerItemFn::new(student);
    let t = PerItemFn::new(teacher);
    let suite = suite();
    let mut full = CaptureRun::new(&s, &t, &suite).unwrap();
    full.add(&texts).unwrap();
    let full = full.report().unwrap();
    let err = full.merge(&sampled_report(&texts, 1, 0.5)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot merge: the teacher designs differ (the full profile vs a teacher sample)"
    );
    let err = sampled_report(&texts, 1, 0.5)
        .merge(&sampled_report(&texts, 1, 0.25))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot merge: the teacher samples differ (fraction 0.5, seed 3 vs fraction 0.25, seed 3)"
    );
}

fn other_student(t: &str) -> suite_core::Label {
    serde_json::json!(if t.len().is_multiple_of(3) {
        "pos"
    } else {
        "neg"
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn a_sampled_comparison_is_the_same_for_every_chunking_and_merges(
        texts in prop::collection::vec(text(), 0..30),
        cut in any::<prop::sample::Index>(),
    ) {
        let t = PerItemFn::new(teacher);
        let a = PerItemFn::new(student);
        let b = PerItemFn::new(other_student);
        let students: [(&str, &dyn suite_core::Model); 2] = [("a", &a), ("b", &b)];
        let suite = suite();
        let sample = Some(TeacherSample::new(0.4, 1).unwrap());
        let compare = |texts: &[String], chunk: usize| {
            capture::compare_students_sampled(&t, &students, texts.chunks(chunk.max(1)), &suite, sample)
                .unwrap()
        };
        let whole = compare(&texts, texts.len());
        for chunk in [1, 7] {
            prop_assert_eq!(compare(&texts, chunk).to_json(), whole.to_json(), "chunk {}", chunk);
        }
        // Shards by content (a text's lines in one shard: see the report's shard test).
        let parts = by_content(&texts, 1 + cut.index(3));
        let mut merged = compare(&parts[0], 5);
        for part in &parts[1..] {
            merged = merged.merge(&compare(part, 5)).unwrap();
        }
        prop_assert_eq!(merged.to_json(), whole.to_json());
        let json = whole.to_json();
        prop_assert_eq!(capture::Comparison::from_json(&json).unwrap().to_json(), json);
    }
}

#[test]
fn a_comparison_sampling_every_text_estimates_the_full_differences() {
    let texts: Vec<String> = (0..90)
        .map(|i| format!("{} food {i}", WORDS[i % WORDS.len()]))
        .collect();
    let t = PerItemFn::new(teacher);
    let a = PerItemFn::new(student);
    let b = PerItemFn::new(other_student);
    let students: [(&str, &dyn suite_core::Model); 2] = [("a", &a), ("b", &b)];
    let suite = suite();
    let full = capture::compare_students(&t, &students, &texts, &suite)
        .unwrap()
        .to_json();
    let all = Some(TeacherSample::new(1.0, 1).unwrap());
    let sampled =
        capture::compare_students_sampled(&t, &students, [&texts[..]], &suite, all).unwrap();
    let sampled = sampled.to_json();
    for name in ["typo_10", "typo_40", "drop_vowels"] {
        let f = full["pairs"][0]["corruptions"][name]["difference"]["estimate"]
            .as_f64()
            .unwrap();
        let s = &sampled["pairs"][0]["corruptions"][name]["difference"];
        assert!(
            (s["estimate"].as_f64().unwrap() - f).abs() < 1e-12,
            "{name}"
        );
        assert_eq!(s["method"], "ppi_power_tuned");
        assert_eq!(
            sampled["pairs"][0]["estimated"][name]["teacher_answers"],
            90
        );
    }
}

/// A teacher that ignores what the corruption changes: its clean answer is its corrupted answer,
/// so the surrogate (the student's corrupted answer against the teacher's clean one) is the
/// observed agreement on every text, and the estimate is the full value with no sampling error.
#[test]
fn the_surrogate_is_the_students_corrupted_answer_against_the_teachers_clean_one() {
    let texts: Vec<String> = (0..200)
        .map(|i| format!("{} food {i}", WORDS[i % WORDS.len()]))
        .collect();
    let s = PerItemFn::new(student);
    let t = PerItemFn::new(|x: &str| {
        serde_json::json!(if x.contains('g') || x.contains('G') {
            "pos"
        } else {
            "neg"
        })
    });
    let suite = suite();
    let mut full = CaptureRun::new(&s, &t, &suite).unwrap();
    full.add(&texts).unwrap();
    let full = full.report().unwrap().to_json();
    let mut run = CaptureRun::new(&s, &t, &suite)
        .unwrap()
        .with_teacher_sample(Some(TeacherSample::new(0.2, 5).unwrap()));
    run.add(&texts).unwrap();
    let sampled = run.report().unwrap().to_json();
    let agree = &full["counts"]["corruptions"]["drop_vowels"]["agree"];
    let corrupted = agree["both"].as_u64().unwrap() + agree["corrupted_only"].as_u64().unwrap();
    let stage = &sampled["counts"]["sample"]["corruptions"]["drop_vowels"];
    assert!(corrupted > 20 && corrupted < 180, "{corrupted}");
    assert_eq!(stage["surrogate"], corrupted);
    assert_eq!(stage["labelled"]["observed_only"], 0);
    assert_eq!(stage["labelled"]["surrogate_only"], 0);
    // A perfect surrogate carries information: λ̂ > 0 (PPI++ still weighs it by about
    // 1 / (1 + n/N) at most, so the estimate is not the full value exactly).
    let how = &sampled["corruptions"]["drop_vowels"]["estimated"];
    assert!(how["lambda"].as_f64().unwrap() > 0.3, "{how}");
}

#[test]
fn a_sampled_reports_curves_are_its_estimates_and_say_so() {
    let texts: Vec<String> = (0..400)
        .map(|i| format!("{} food {i}", WORDS[i % WORDS.len()]))
        .collect();
    let sampled = sampled_report(&texts, 64, 0.3).to_json();
    let curves = sampled["curves"].as_object().unwrap();
    assert!(!curves.is_empty());
    for curve in curves.values() {
        assert_eq!(curve["estimated"], "ppi_power_tuned");
        let points = curve["points"].as_array().unwrap();
        assert_eq!(
            points[0]["value"],
            sampled["clean"]["agreement"]["estimate"]
        );
        for point in &points[1..] {
            let stages = point["stages"].as_array().unwrap();
            assert_eq!(stages.len(), 1);
            let stage = stages[0].as_str().unwrap();
            // The corruption's prediction-powered agreement, not the sample's plain rate.
            assert_eq!(
                point["value"],
                sampled["corruptions"][stage]["agreement"]["estimate"]
            );
        }
    }
    let s = PerItemFn::new(student);
    let t = PerItemFn::new(teacher);
    let suite = suite();
    let mut full = CaptureRun::new(&s, &t, &suite).unwrap();
    full.add(&texts).unwrap();
    let full = full.report().unwrap().to_json();
    for curve in full["curves"].as_object().unwrap().values() {
        assert!(curve.get("estimated").is_none(), "{curve}");
    }
}

/// Texts repeated: the sample's unit is the distinct text (its lines in or out together), so
/// the report keeps each count weighted by its text's lines squared (`repeats`), the intervals
/// are wider than the same lines taken as distinct texts, and the report reads back. Shards
/// must hold each text whole: cut by position, a text's squares are counted per shard.
#[test]
fn repeated_texts_are_one_draw_each_and_widen_the_intervals() {
    // 40 distinct texts, the i-th repeated 1 + i % 7 times (160 lines).
    let distinct: Vec<String> = (0..40)
        .map(|i| format!("{} food {i}", WORDS[i % WORDS.len()]))
        .collect();
    let texts: Vec<String> = distinct
        .iter()
        .enumerate()
        .flat_map(|(i, t)| std::iter::repeat_n(t.clone(), 1 + i % 7))
        .collect();
    let report = sampled_report(&texts, 16, 0.5);
    let json = report.to_json();
    let counts = &json["counts"];
    let squares: u64 = (0..40u64).map(|i| (1 + i % 7).pow(2)).sum();
    assert_eq!(counts["n"], texts.len() as u64);
    let repeats = &counts["sample"]["repeats"];
    assert_eq!(repeats["all"], squares, "{repeats}");
    // The sampled texts' Σ c², recomputed from the design.
    let sample = TeacherSample::new(0.5, 3).unwrap();
    let sampled: u64 = (0..40u64)
        .filter(|&i| sample.includes(&suite_core::TextHash::of(&distinct[i as usize])))
        .map(|i| (1 + i % 7).pow(2))
        .sum();
    assert_eq!(repeats["labelled"], sampled);
    assert_eq!(ProfileReport::from_json(&json).unwrap(), report);
    // Without the repeat counts (the lines taken as 160 distinct texts, as before) every
    // estimated interval is at most as wide, and some are narrower.
    let mut as_lines = json.clone();
    as_lines["counts"]["sample"]
        .as_object_mut()
        .unwrap()
        .remove("repeats");
    let as_lines = ProfileReport::from_json(&as_lines).unwrap().to_json();
    let width = |j: &serde_json::Value, stage: &str| {
        let a = &j["corruptions"][stage]["agreement"];
        a["upper"].as_f64().unwrap() - a["lower"].as_f64().unwrap()
    };
    let mut wider = 0;
    for stage in ["typo_10", "typo_40", "drop_vowels"] {
        let (units, lines) = (width(&json, stage), width(&as_lines, stage));
        assert!(units >= lines - 1e-12, "{stage}: {units} < {lines}");
        wider += usize::from(units > lines + 1e-9);
    }
    assert!(wider > 0, "{json}");
    // Two shards holding each text whole merge into the whole report; cut by position (a
    // text's lines in both), the squares of the texts cut are under-counted.
    let parts = by_content(&texts, 2);
    let merged = sampled_report(&parts[0], 7, 0.5)
        .merge(&sampled_report(&parts[1], 7, 0.5))
        .unwrap();
    assert_eq!(merged.to_json(), json);
    let cut = sampled_report(&texts[..81], 7, 0.5)
        .merge(&sampled_report(&texts[81..], 7, 0.5))
        .unwrap();
    let cut_all = cut.to_json()["counts"]["sample"]["repeats"]["all"].as_u64();
    assert!(cut_all < Some(squares), "{cut_all:?}");
}
